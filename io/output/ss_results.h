/* ss_results.h - results.h5 (MODELS-independent.md): per-iteration series written in parallel by the
 * ranks that computed them, then the summary table and attributes by rank 0; the file is
 * built under a temporary name and renamed into place only when complete. */
#ifndef SS_RESULTS_H
#define SS_RESULTS_H

#include <stdint.h>

#include "ss_comm.h"
#include "ss_scenario.h"
#include "ss_status.h"
#include "ss_summary.h"

typedef struct ss_results ss_results;

/* Collective. Creates the temporary results file in dir; with per_iteration, the groups
 * /scenarios/<name>/ and their datasets for N rows and G GPUs. */
ss_status ss_results_open(const ss_comm *c, const char *dir, const ss_scenario *sc, int nsc,
                          long N, int G, int per_iteration, ss_results **out);
int ss_results_per_iteration(const ss_results *r);

/* Independent (any rank): rows [row0, row0+n) of scenario j. */
ss_status ss_results_write_rows(ss_results *r, int j, long row0, long n, const int32_t *epoch,
                                const int64_t *index, const double *iter_time, const double *stall,
                                const double *delay, const double *fetch_diff,
                                const double *start_diff, const double *stall_time);

/* Collective. Closes the parallel part; on rank 0 adds /summary and the root attributes
 * (configuration text, trace path, version, calibration). When every step so far (ok)
 * and this one succeeded, commits results.h5 and the companion file companion_tmp
 * (summary.csv written under a temporary name; rank 0, may be NULL) as one unit
 * (ss_atomic_commit_pair: folder lock, undo on failure), with the companion's digest in
 * the attribute summary_csv_fnv1a64 and a run_id attribute; otherwise removes both.
 * Frees r. */
ss_status ss_results_finish(ss_results *r, ss_status ok, const ss_summary *s, const char *config_text,
                            const char *trace_path, const char *companion_tmp, const char *companion_path);

/* 1 when path is an HDF5 file with a /summary table (a stallsim results file). */
int ss_results_is_results(const char *path);
/* The summary_csv_fnv1a64 attribute of results file path into out (17 bytes); 0 when
 * found, -1 when absent (results of an older stallsim) or unreadable. */
int ss_results_csv_digest(const char *path, char *out);

/* One row of a results.h5 /summary table as `stallsim compare` reads it back: the
 * columns flagged SS_COLF_H5 (ss_columns.h), text columns in table order into text[]
 * (text[0] the scenario, text[1] the model, text[2] its label, then the other text
 * columns in the table's order), numbers into num[column index]. A
 * column the file lacks is empty text or NaN; only those flagged SS_COLF_COMPARE but
 * the label are required. */
#define SS_RESULTS_MAX_COLUMNS 64
#define SS_RESULTS_MAX_TEXT 12
typedef struct {
    char text[SS_RESULTS_MAX_TEXT][SS_NAME_MAX];
    double num[SS_RESULTS_MAX_COLUMNS];
} ss_results_row;

/* The selection a results file was summarised with (attributes of results.h5). */
typedef struct {
    int known;              /* 0: an older file without these attributes */
    long warmup_iterations;
    long epoch;             /* SS_EPOCH_ALL: every epoch */
    double threshold;       /* effective_delay_threshold */
    long base_workers;      /* the calibration's largest W of the trace's loaders, -1 unknown */
    int base_w, base_p;     /* the calibrated loader (W, P) where every GPU has the same, -1 otherwise */
    int base_pw;            /* the trace's recorded persistent_workers (1, 0), -1 unknown */
    long base_batch;        /* the trace's recorded batch size, -1 unknown */
    char trace[SS_PATH_MAX]; /* the trace the sweep replayed, as its run named it ("": unknown) */
    char eval_trace[SS_PATH_MAX]; /* its evaluation loader's trace ([trace] eval_path; "": none) */
} ss_results_settings;

/* Reads the settings of results file path (the base's loader and trace unknown, -1 and "",
 * where the file does not say or cannot be read). Local. */
ss_status ss_results_read_settings(const char *path, ss_results_settings *out);

/* Reads path's /summary and its gpus attribute (rows: malloc'd, caller frees). SS_EDATA
 * naming the file when it is not a stallsim results file. Local. */
ss_status ss_results_read_summary(const char *path, ss_results_row **rows, int *n, int *gpus);

#endif
