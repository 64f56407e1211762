/* ss_config.h - the scenario file (README: scenario files): INI parsed with inih, --set overrides, and
 * the validated settings that the sweep is built from. */
#ifndef SS_CONFIG_H
#define SS_CONFIG_H

#include "ss_status.h"

#include <stdio.h>

#include "ss_align.h"
#include "ss_healset.h"
#include "ss_limits.h"
#include "ss_model_ids.h"

/* One item of scenarios.heal: none (each = 0, gpus.n = 0), each (one scenario per GPU), or
 * the GPUs that one scenario heals together (3, 1+3, 8-15). */
typedef struct {
    int each;
    ss_healset gpus;
} ss_heal_item;

/* A setting that is a number, or "auto" (the calibrated value) times a factor:
 * "auto", "auto*2", "auto/2", "auto*0.5". */
typedef struct {
    int is_auto;
    double value; /* the number, or the factor when is_auto */
} ss_autoval;

/* persistent_workers = auto in [scenarios] (as in the trace) */
#define SS_PERSIST_AUTO (-1)

/* prefetch = auto in [scenarios] (the calibrated or recorded P of each GPU) */
#define SS_PREFETCH_AUTO 0L

/* Keys of the option table at most, sections that models may register, and the bytes of
 * one section's settings (ss_config_add_options checks them). */
#define SS_CONFIG_MAX_KEYS 48
#define SS_CONFIG_MAX_SECTIONS 6
#define SS_CONFIG_SECTION_BYTES 256

/* The kinds of value a model's option may take. */
typedef enum {
    SS_OPT_SECONDS,      /* a number of seconds >= 0 (double) */
    SS_OPT_SECONDS_AUTO, /* seconds, or auto / auto*F / auto/F (ss_autoval) */
    SS_OPT_BOOL,         /* true or false, yes/no, on/off, 1/0 (int) */
    SS_OPT_COUNT,        /* a whole number >= 0 (long) */
    SS_OPT_PARALLEL,     /* 0 (no limit) or a number within the row's bounds (double) */
} ss_option_kind;

/* One option of a model's section: its key, kind, the offset of its field in the model's
 * settings struct, its default as written in a scenario file, bounds and one line of help. */
typedef struct {
    const char *key;
    ss_option_kind kind;
    size_t off;
    const char *def;
    double min, max;
    const char *help;
} ss_option;

/* A model's section of the scenario file ([pipeline]): its rows and the size of the
 * settings struct they fill. */
typedef struct {
    const char *name;
    const ss_option *rows;
    int nrows;
    size_t size;
} ss_option_section;

typedef struct {
    char file[SS_PATH_MAX]; /* the scenario file as given */
    unsigned char from_set[SS_CONFIG_MAX_KEYS]; /* per key of the option table: a --set gave its value */
    unsigned char given[SS_CONFIG_MAX_KEYS];    /* per key: 0 not given, 1 given as its default's text, 2 given
                                                 * another value (by the file or a --set) */
    char *text;             /* its text plus the applied overrides (owned) */

    /* [trace] */
    char trace_path[SS_PATH_MAX]; /* resolved against the file's folder */
    int trace_path_from_folder;   /* it was relative and taken from the scenario file's folder */
    char eval_path[SS_PATH_MAX];  /* the evaluation loader's trace, resolved likewise ("": none) */
    int epoch_all;
    long epoch;
    long warmup_iterations;

    /* [scenarios] */
    int n_models;
    ss_model models[SS_LIST_MAX];
    int n_fetch, n_start;
    ss_align fetch_align[SS_LIST_MAX], start_align[SS_LIST_MAX];
    int n_workers, n_prefetch, n_fetch_scale, n_compute_scale;
    ss_autoval workers[SS_LIST_MAX];
    long prefetch[SS_LIST_MAX];
    double fetch_scale[SS_LIST_MAX], compute_scale[SS_LIST_MAX];
    int n_heal;
    ss_heal_item heal[SS_LIST_MAX];
    int n_persistent;
    int persistent[SS_LIST_MAX]; /* SS_PERSIST_AUTO, 0 or 1 */

    /* the registered sections' settings, in the order of registration (each model's own
     * struct: ss_config_options) */
    _Alignas(16) unsigned char section_opts[SS_CONFIG_MAX_SECTIONS][SS_CONFIG_SECTION_BYTES];

    /* [summary] */
    double effective_delay_threshold;

    /* [output] */
    char out_dir[SS_PATH_MAX];
    int per_iteration;
    int rank_steady; /* [output] rank_by = steady (else run: the whole run's time) */
    int sweep_each;  /* [scenarios] sweep = each: the lists one at a time (else grid: every combination) */

    /* [run] */
    long slab_iterations; /* 0: derived from slab_mb */
    double slab_mb;
} ss_config;

/* Registers a model's section of options, between [scenarios] and [summary] in the table
 * (as ROSS models add theirs with tw_opt_add). Once only per section; before the first
 * use of the table (sim/models: ss_models_register_options). SS_EINTERNAL when late or
 * when a limit above is exceeded. */
ss_status ss_config_add_options(const ss_option_section *sec);

/* The settings of registered section `section` in c (the model's own struct), or NULL
 * when no such section is registered. */
const void *ss_config_options(const ss_config *c, const char *section);
/* The same, to change: for a copy of c that replays another trace of the job (the
 * evaluation loader's: ss_model_ops.for_eval_loader). */
void *ss_config_options_mut(ss_config *c, const char *section);

/* Where the value of [section] key came from, to begin a message with: "--set section.key"
 * when a --set gave it, else the scenario file; with key NULL, the file, followed by "
 * (with its --set options)" when a --set gave any key of the section. The text stays valid
 * until the next call. */
const char *ss_config_origin(const ss_config *c, const char *section, const char *key);
/* 1 when the scenario file or a --set gave [section] key (key NULL: any key of the
 * section) a value other than its default's text (spaces and case aside), else 0. */
int ss_config_changed(const ss_config *c, const char *section, const char *key);
/* 1 when the scenario file or a --set (or an option set through it) gave [section] key
 * any value, its default's too; 0 when it keeps its default unsaid. */
int ss_config_given(const ss_config *c, const char *section, const char *key);
/* The first key of [section] that ss_config_changed finds, or NULL. */
const char *ss_config_changed_key(const ss_config *c, const char *section);

/* Defaults of every setting (no trace path), from the option table. */
void ss_config_defaults(ss_config *c);

/* The option table for people: "[section]" then "  key = default   help" lines. */
void ss_config_print_keys(FILE *f);
/* The option table's rows, for tests: count, and the section and key of row i. */
int ss_config_key_count(void);
void ss_config_key_name(int i, const char **section, const char **key);

/* Row i of the option table as its reference shows it (stallsim doc keys). */
typedef struct {
    const char *section, *key;
    const char *def;   /* as written in a scenario file; NULL: required */
    char values[160];  /* the values it takes, with their bounds */
    int sweeps;        /* 1: a comma list, one scenario per item */
    int registered;    /* 1: a model registered its section */
    const char *help;
} ss_key_doc;
void ss_config_key_doc(int i, ss_key_doc *d);

/* Reads and validates FILE (SS_ECONFIG/SS_EIO with "file:line: ..." messages), then
 * applies the overrides "section.key=value" in order. Paths in the file are taken from
 * its folder; paths in overrides from the current folder. Not collective. */
ss_status ss_config_load(ss_config *c, const char *file, int n_sets, char **sets);

/* The two halves of ss_config_load, for a file that one process reads for all (a pipe):
 * ss_config_read reads FILE whole (a regular file, a pipe, a terminal; at most 16 MiB,
 * no NUL byte) into *text (malloc'd), *regular = 1 for a regular file; ss_config_load_text
 * is ss_config_load on that text, which c then owns (ss_config_free frees it, on failure
 * too). Not collective. */
ss_status ss_config_read(const char *file, char **text, int *regular);
ss_status ss_config_load_text(ss_config *c, const char *file, char *text, int regular, int n_sets, char **sets);

/* Applies one "section.key=value" override. */
ss_status ss_config_set(ss_config *c, const char *assignment);

void ss_config_free(ss_config *c);

/* The name of model m in scenario files and summaries (sim/base/ss_model_ids.h). */
const char *ss_model_name(ss_model m);

/* Formats an auto value as written in a scenario file ("auto", "auto*2", "3"). */
void ss_autoval_format(const ss_autoval *v, char *buf, int bufsize);

#endif
