/* ss_cmd_compare.h - `stallsim compare`'s private types and functions (sim/cli/ss_cmd_compare*.c). */
#ifndef SS_CMD_COMPARE_H
#define SS_CMD_COMPARE_H

#include <stdio.h>
#include <sys/types.h>

#include "ss_config.h"
#include "ss_results.h"
#include "ss_status.h"

/* What a row is, set once as it is read: a results folder's measured row (the model
 * table's measured_run model) or one of its replays, or the measured run of a trace */
typedef enum { CMP_MEASURED, CMP_REPLAY, CMP_TRACE } cmp_kind;

/* A results folder row's settings, from its numeric and settings columns (summary.csv's,
 * as ss_columns.c writes them; NaN where a column does not apply to the row) */
typedef struct {
    double workers, prefetch, fetch_scale, compute_scale;
    int persistent; /* persistent_workers as the scenario set it (its name's pw-true or pw-false:
                     * 1 or 0); -1 as in the base trace */
    int unaligned; /* fetch_align and start_align both none */
    int healed;    /* heal_gpus (or heal_gpu) names a GPU */
} cmp_settings;

typedef struct {
    char source[256];
    ss_results_row r;
    cmp_kind kind;
    int model; /* a results folder row's model (ss_model), -1 unknown (or a trace's row) */
    cmp_settings set;
    /* a trace's recorded loader: its workers (the same on every GPU) and prefetch factor;
     * -1 where it records none (or its GPUs differ), -2 for workers that differ by GPU */
    int workers, prefetch;
    int persistent; /* a trace's recorded persistent_workers (1 or 0), -1 unknown */
    long batch;     /* a trace's recorded batch size; a results folder's rows: their base trace's
                     * (-1 unknown) */
    double others;  /* a trace's share of its busiest pool's cores that other processes than the
                     * job's used while it was recorded (0 to 1), NaN unknown; a results folder's
                     * rows: its base trace's */
    /* a results folder's base trace's calibrated loader: its largest W, and W and P where
     * every GPU has the same (-1: unknown, or they differ); pw its recorded
     * persistent_workers (-1 unknown) */
    struct {
        long workers;
        int w, p, pw;
    } base;
    /* a trace's file, and a results folder's base trace (as its run named it, found from
     * here), by device and inode; 0 0: unknown */
    dev_t dev;
    ino_t ino;
    /* a trace without fetch times: what its waits say (the GPU that most often waited
     * longest, and what the waits cost), "" otherwise */
    char waits[400];
} cmp_row;

#define CMP_SCENARIO_MAX 8

typedef struct {
    cmp_row *v;
    int n, cap;
    int gpus;  /* of the first input */
    int match; /* --match: each real run gets its own prediction (print_matches) */
    int with_eval; /* --with-eval: each trace A.h5 is summarised with its evaluation loader's A-eval.h5 */
    int runs_apart; /* the results' whole runs count an evaluation loader and the traces' do not, or the
                     * reverse (cmp_align_settings warns): --match sets no whole run beside another */
    /* --scenario TEXT, given up to CMP_SCENARIO_MAX times: --match sets each real run beside
     * the prediction of its loader whose scenario name or label holds every TEXT (with any
     * scale or heal), not the plain one; nscenario 0: none */
    const char *scenario[CMP_SCENARIO_MAX];
    int nscenario;
} cmp_table;

/* The results folders among a table's rows (not from a trace), each once: src[a] is the
 * first row of folder a, fold[i] row i's folder (-1: a trace), meas[a] the folder's
 * measured row (-1: none), rep[a] the earlier folder whose base run folder a replays
 * again (its measured row bit for bit that folder's: the same results.h5 named twice, or
 * the scenario file run again on the same trace), -1 for none. */
typedef struct {
    int n;
    int *src, *fold, *meas, *rep;
} cmp_folders;

/* ---- the rows (ss_cmd_compare_load.c) ---- */

/* Results inputs carry the selection they were summarised with: traces are summarised the
 * same way unless an option says otherwise (then with a warning), and results that
 * disagree with each other are refused. explicit_[3]: --warmup, --threshold, --epoch given. */
ss_status cmp_align_settings(char **inputs, int n, ss_config *opts, const int explicit_[3], int with_eval,
                             int *runs_apart);
/* Adds the rows of one input: a results folder (or its results.h5), or a trace. */
ss_status cmp_add_input(cmp_table *t, const char *arg, const ss_config *opts);

/* The name of the model whose predictions are checked against real runs (the model
 * table's ranks_alone), or NULL where no model is */
const char *cmp_checked_model(void);

/* The waits line of every trace row without fetch times (after the table). */
void cmp_print_waits(const cmp_table *t, FILE *out);

/* ---- the table and its CSV (ss_cmd_compare_table.c) ---- */

/* 100 x (v / ref - 1), NaN against 0 */
double cmp_pct(double v, double ref);
/* A summary column's index in a results row's num[], or -1 */
int cmp_column(const char *name);
/* The mean iteration time's index in num[], or -1; the whole run's time's; the summarised
 * iterations' */
int cmp_iter_column(void);
int cmp_run_column(void);
int cmp_rows_column(void);
/* Row i's source as the table shows it */
const char *cmp_shown_source(const cmp_table *t, int i);
void cmp_print_table(const cmp_table *t, FILE *out);
/* The CSV may replace an earlier compare CSV only, never an input. */
ss_status cmp_check_csv_output(const char *csv, char **inputs, int ninputs);
ss_status cmp_write_csv(const cmp_table *t, const char *path);
/* A number as a CSV field, after its comma ("" for NaN) */
void cmp_csv_num(FILE *f, double v);
/* A CSV written under a temporary name (open), renamed into place when st is SS_OK and
 * every write went through, else removed (close) */
ss_status cmp_csv_open(const char *path, char *tmp, size_t n, FILE **f);
ss_status cmp_csv_close(FILE *f, const char *tmp, const char *path, ss_status st);
/* --match's CSV beside --csv FILE: FILE's name with -match before .csv (cmp.csv: cmp-match.csv) */
void cmp_match_csv_path(const char *csv, char *out, size_t n);
#define CMP_MATCH_CSV_HEAD "real_run,measure,"

/* ---- --match and --spread (ss_cmd_compare_match.c) ---- */

ss_status cmp_folders_of(const cmp_table *t, cmp_folders *f);
void cmp_folders_free(cmp_folders *f);
/* --match needs a trace among the inputs, and --scenario a text some row holds: a usage
 * error otherwise */
ss_status cmp_check_match(const cmp_table *t);
/* the match tables on out and, where csv is not NULL, their rows there (COMMANDS.md) */
void cmp_print_matches(const cmp_table *t, const cmp_folders *f, FILE *out, FILE *csv);
void cmp_print_spread(const cmp_table *t, const cmp_folders *f, FILE *out);
/* --spread needs two results folders of different base runs: a usage error otherwise */
ss_status cmp_check_spread(const cmp_table *t, const cmp_folders *f, char **inputs, int ninputs);

#endif
