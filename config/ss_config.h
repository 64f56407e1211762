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

/* prefetch = auto in [scenarios] (the calibrated or recorded P of each GPU) */
#define SS_PREFETCH_AUTO 0L

/* Keys of the option table at most (ss_config.c checks it). */
#define SS_CONFIG_MAX_KEYS 48

typedef struct {
    char file[SS_PATH_MAX]; /* the scenario file as given */
    unsigned char from_set[SS_CONFIG_MAX_KEYS]; /* per key of the option table: a --set gave its value */
    unsigned char given[SS_CONFIG_MAX_KEYS];    /* per key: 0 not given, 1 given as its default's text, 2 given
                                                 * another value (by the file or a --set) */
    char *text;             /* its text plus the applied overrides (owned) */

    /* [trace] */
    char trace_path[SS_PATH_MAX]; /* resolved against the file's folder */
    int trace_path_from_folder;   /* it was relative and taken from the scenario file's folder */
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

    /* [independent] */
    double stall_floor, stall_sensitivity;

    /* [pipeline] */
    ss_autoval worker_gap, refill_gap, delivery; /* auto: calibrated per GPU (issue 11) */
    ss_autoval fetch_cpu; /* auto: the trace's recorded CPU part of each GPU's fetch (0 when not recorded) */
    int delivery_per_batch; /* delivery = auto: each batch's measured delivery (else the GPU's median) */
    int cpu_sharing; /* stretch CPU work by the contention for the cores (traces with CPU times) */
    double step_gap;
    double storage_parallel; /* [pipeline] storage_parallel: reads the storage serves at full throughput (0: no limit) */
    long sync_every; /* [pipeline] sync_every: the ranks all-reduce every this many steps (0, 1: every step) */

    /* [summary] */
    double effective_delay_threshold;

    /* [output] */
    char out_dir[SS_PATH_MAX];
    int per_iteration;

    /* [run] */
    long slab_iterations; /* 0: derived from slab_mb */
    double slab_mb;
} ss_config;

/* 1 when the pipeline model's CPU sharing is on: cpu_sharing and fetch_cpu = auto (the
 * trace's recorded CPU parts, unscaled). */
int ss_config_cpu_sharing_on(const ss_config *c);

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

/* The name of model m in scenario files and summaries ("independent"). */
const char *ss_model_name(ss_model m);

/* Formats an auto value as written in a scenario file ("auto", "auto*2", "3"). */
void ss_autoval_format(const ss_autoval *v, char *buf, int bufsize);

#endif
