/* ss_model.h - the model interface: a replay model is one ss_model_ops, listed once in
 * ss_model_ids.h (sim/base) and ss_models.c; the engine, the output and the command line
 * know models only through this table and its optional hooks. */
#ifndef SS_MODEL_H
#define SS_MODEL_H

#include <stddef.h>
#include <stdio.h>

#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_limits.h"
#include "ss_trace.h"
#include "ss_row.h"
#include "ss_status.h"
#include "ss_step.h"

/* The [scenarios] lists a model may be swept over (bits of ss_model_ops.axes). */
enum {
    SS_AXIS_WORKERS = 1 << 0,
    SS_AXIS_PREFETCH = 1 << 1,
    SS_AXIS_FETCH_SCALE = 1 << 2,
    SS_AXIS_COMPUTE_SCALE = 1 << 3,
    SS_AXIS_FETCH_ALIGN = 1 << 4,
    SS_AXIS_START_ALIGN = 1 << 5,
    SS_AXIS_HEAL = 1 << 6,
    SS_AXIS_PERSISTENT = 1 << 7,
};

/* One point of a sweep: a model and its value on each axis. Axes that the model is not
 * swept over hold their neutral value (aligns none, scales 1, workers 0, prefetch 0). */
typedef struct {
    char name[SS_NAME_MAX];
    ss_model model;
    ss_align fetch_align, start_align;
    ss_autoval workers;   /* as configured (auto, auto*2, 3) */
    long prefetch;
    int persistent;       /* persistent_workers: SS_PERSIST_AUTO (as in the trace), 0 or 1 */
    double fetch_scale, compute_scale;
    ss_healset heal;      /* the GPUs whose fetch times (and, pipeline, loader settings) become
                           * the median of the GPUs not healed; n = 0: none */
    int heal_gpu;         /* the healed GPU when the set holds one, else -1 */
    int baseline;         /* nothing changed: the replay should give the measured run back */
    int baseline_but_heal; /* nothing but one healed GPU changed (the heal ranking pairs such a
                            * scenario with its model's baseline) */
    /* the model's resolved settings, of the model's own type (its resolve fills them; the
     * engine never reads them) */
    _Alignas(16) unsigned char settings[SS_MODEL_SETTINGS_MAX];
} ss_scenario;

/* What the ranking asks a model about one of its cuts (ss_model_ops.hints). */
typedef struct {
    double measured_stall;   /* the measured run's mean stall */
    double stall;            /* the cut's mean stall */
    double delivery_factor;  /* the cut's ss_model_ops.delivery_factor, 1 where none applies */
    const ss_calib *cal;     /* the trace's calibration, or NULL */
    int gpus;                /* the trace's GPUs */
    int trace_persisted;     /* 1 where the trace's workers persisted over two epochs or more */
} ss_hint_in;

/* Hints a model gives on a scenario (bits of ss_model_ops.hints). */
enum {
    SS_HINT_LOADERS_AHEAD = 1 << 0, /* the trace's loaders were behind and the cut's keep ahead */
    SS_HINT_NO_WORKERS = 1 << 1,    /* every GPU loads synchronously (one setting for all) */
    SS_HINT_NO_WORKERS_AUTO = 1 << 2, /* workers = auto*F on a trace that loads synchronously */
    SS_HINT_RUN_UNPRICED = 1 << 3,  /* its whole run is not priced: workers that do not persist, of a
                                     * trace whose workers persisted (no start to repeat) */
};

/* What a model's class of prediction reads (ss_model_ops.error_class). */
typedef struct {
    double cpu_load_pct;  /* the share of its cores the row's run keeps busy, NaN where not recorded */
    double trace_load_pct; /* the same of the measured run (the trace), NaN where not recorded */
    unsigned hints;       /* the model's hints on the row (SS_HINT_*) */
    const ss_calib *cal;  /* the trace's calibration, or NULL */
} ss_class_in;

/* A class of predictions and its 90 % interval: the 5 % and 95 % quantiles of the scaled
 * error (predicted / real - 1 over its scale sqrt(m^2 + v^2): m the class's model error in
 * that measure, v the trace's variability) of the mean iteration time (steady) and of the
 * whole run's time (run) over the predictions of the class on the development runs, their
 * count, and m per measure (the model's generated table; MODELS-pipeline.md, "Intervals"). */
typedef struct {
    const char *name;
    int n;
    double steady[2], run[2];
    double model_error[2]; /* m: steady, run */
} ss_error_class;

/* What a model's notes read (ss_model_ops.notes): the sweep, the configuration, the
 * trace and its calibration (NULL where none was made). */
typedef struct {
    const ss_config *cfg;
    const ss_scenario *sc;
    int nsc;
    int in_sweep;            /* the model has scenarios in sc */
    const ss_calib *cal;
    ss_trace_file *t;
    const ss_trace_meta *meta;
} ss_notes_in;

/* The parts of a scenario's resolved settings that the ranking compares (ss_model_ops.
 * key_of): two cuts are the same scenario when every part is equal, one setting apart when
 * exactly one differs. A part is a range [lo, hi] (a per-GPU setting). */
#define SS_KEY_PARTS 8
typedef struct {
    int n;
    double lo[SS_KEY_PARTS], hi[SS_KEY_PARTS];
} ss_setting_key;

typedef struct ss_model_ops {
    const char *name;    /* as in ss_model_ids.h */
    const char *label;   /* short prefix in the terminal table ("indep") */
    const char *legend;  /* what the label's abbreviations mean (under the table), or NULL */
    /* 1 when the model carries state from one iteration to the next: the sweep then
     * replays each of its scenarios whole, in order, on one rank; a stateless model's
     * scenarios are cut into blocks of iterations spread over the ranks. */
    int stateful;
    /* stateful models: 1 when epoch_start returns the state to what init made, so that
     * an epoch's replay depends on the rows of that epoch only; the sweep may then split
     * a scenario's iterations over the ranks, each rank replaying from the start of the
     * epoch that holds its first row (README, "Running on a cluster"). */
    int epochs_independent;
    unsigned axes;       /* SS_AXIS_* bits */
    /* 1 when its baseline row reports how far the replay is from the measured run */
    int reports_fidelity;
    /* 1 when its replay_row uses row->train_start (the sweep then reads that column) */
    int reads_train_start;
    /* 1 when, in a sweep that has it, its cuts are ranked alone and the other models'
     * counted: its predictions are the ones checked against real runs where the others'
     * keep what it replays (ss_rank.c) */
    int ranks_alone;
    /* 1 for the measured run itself: its row gives the trace's own iterations back, the
     * row every other row is compared with */
    int measured_run;
    /* 1 when it replays from the waits and iteration times alone, so that it runs on a
     * trace without fetch times (fetch_times = absent) */
    int waits_only;
    /* the model's section of the scenario file ([pipeline]), registered into the option
     * table by ss_models_register_options; NULL: none */
    const ss_option_section *options;
    /* texts the answer prints under the ranked cuts (NULL: none): when several of the
     * model's ranked cuts predict the same time, when a ranked cut has
     * SS_HINT_LOADERS_AHEAD, and when a healed GPU is among those */
    const char *same_time_note, *ahead_note, *ahead_heal_note;
    /* what heal=G means in this model, under the table (NULL: its fetch times and loader
     * settings become the other GPUs' median) */
    const char *heal_legend;

    /* The scenario's name (unique within a sweep, used as an HDF5 group name) and its
     * terminal-table label (after resolve). */
    void (*name_of)(const ss_scenario *s, char *buf, size_t n);
    void (*label_of)(const ss_scenario *s, char *buf, size_t n);
    /* 1 when s changes nothing against the measured run. */
    int (*is_baseline)(const ss_scenario *s);
    /* 1 when s needs the trace's loader calibration (may be NULL: never). */
    int (*needs_calibration)(const ss_scenario *s, const ss_config *c, const ss_trace_meta *m);
    /* Fills the model's resolved settings of s from the configuration and the calibration
     * (NULL when no scenario needed it), and without one, from the trace's recorded loader
     * workers per GPU (trace_workers; NULL when not recorded). SS_ECONFIG naming the key
     * when out of bounds. May be NULL. */
    ss_status (*resolve)(ss_scenario *s, const ss_config *c, const ss_calib *cal, const int *trace_workers);

    /* Replay: init makes the state of one scenario for G GPUs; epoch_start is called
     * before the first row of every epoch (stateful models; may be NULL), first = 1 for
     * the trace's first epoch, epoch = the epoch's number less the first epoch's (its place
     * among the trace's epochs where they are numbered one after another); replay_row
     * replays one prepared row, writing the per-GPU stalls into stall[G] (also its
     * working buffer) and the step's figures into *out; free releases the state. */
    ss_status (*init)(void **state, const ss_scenario *s, const ss_config *c, int gpus);
    void (*epoch_start)(void *state, int first, long epoch);
    void (*replay_row)(void *state, const ss_row *row, double *stall, ss_step *out);
    void (*free)(void *state);
    /* The stretch of CPU work that the scenario of this state replays with (CPU sharing:
     * the largest over the pools of cores), or NaN where none applies. May be NULL. */
    double (*cpu_stretch)(const void *state);
    /* Storage sharing: how many times as long as in the trace each read of the scenario
     * takes (out[0]), the reads the trace kept in flight on average (out[1]) and the
     * storage's parallelism it replays with (out[2]); NaN where none applies. May be NULL. */
    void (*read_stretch)(const void *state, double out[3]);
    /* CPU sharing: the largest factor the scenario replays its GPUs' deliveries with (its
     * s1 / s0 where a GPU's batches waited for its loop in the trace, else 1), or NaN
     * where none applies. May be NULL. */
    double (*delivery_factor)(const void *state);
    /* Between passes (MODELS-pipeline.md, "Between passes"): per GPU g, k[g], the factor on
     * its measured time from its iter(loader) to its first ask of an epoch, and k[G + g], on
     * its shutdown of the epoch before (first = 1 for the trace's first epoch) under s,
     * whose settings are resolved; k[2 G + g] and k[3 G + g], seconds added to them; m is
     * the trace's, G = m->gpus, k holds 4 G values. May be NULL: 1 and 0, the times as
     * measured. */
    ss_status (*lead_factors)(const ss_scenario *s, const ss_trace_meta *m, int first, double *k);

    /* ---- advice: optional hooks after the replay's ---- */
    /* The resolved value of sweep axis `axis` (SS_AXIS_WORKERS, SS_AXIS_PREFETCH) of s,
     * the largest over GPUs, for the summary's columns. */
    long (*setting_of)(const ss_scenario *s, unsigned axis);
    /* The model's own parts of s's resolved settings for the ranking (the sweep's axes
     * that the model keeps as given are compared by the ranking itself). */
    void (*key_of)(const ss_scenario *s, ss_setting_key *k);
    /* SS_HINT_* bits of s (in: NULL outside the ranking). */
    unsigned (*hints)(const ss_scenario *s, const ss_hint_in *in);
    /* The class of s's prediction, whose interval the summary gives (NULL: none). */
    const ss_error_class *(*error_class)(const ss_scenario *s, const ss_class_in *in);
    /* Lines after the calibration's (`run`, `info`): what the model's settings make of it. */
    void (*calib_notes)(const ss_config *c, const ss_calib *cal, FILE *out);
    /* Notes on the sweep before it runs (called for every model of the table, in table
     * order, whether or not it has scenarios in the sweep); an error stops the run. */
    ss_status (*notes)(const ss_notes_in *in, FILE *out);
    /* 1 when the model's rows take the trace as if the job ran alone on its cores, other
     * processes' recorded load taken out; -1 when asked to but nothing can be taken out; 0
     * when not asked (NULL: never). */
    int (*quiet_host)(const ss_config *c, const ss_calib *cal);
    /* Changes c, a copy of the sweep's settings, for the replay of the job's evaluation
     * loader ([trace] eval_path): the settings of the training loop alone (NULL: none). */
    void (*for_eval_loader)(ss_config *c);
} ss_model_ops;

/* The model with id m. */
const ss_model_ops *ss_model_get(ss_model m);

/* What heal=G means in model o's rows: its heal_legend, or the loader models' sentence. */
const char *ss_model_heal_legend(const ss_model_ops *o);
/* What heal=G+H and heal=G-H mean, in any model's rows. */
extern const char ss_model_heal_set_legend[];

/* The name of the first model that replays from the waits alone (ss_model_ops.waits_only),
 * the measured run aside: what a trace without fetch times can be swept with; NULL: none. */
const char *ss_model_waits_only_name(void);

/* The models of the table that take the trace as if the job ran alone on its cores
 * (ss_model_ops.quiet_host): bit m for model m (ss_summary.quiet_models); *asked (may be
 * NULL) 1 where a model was asked to but can take nothing out. */
unsigned ss_models_quiet_mask(const ss_config *c, const ss_calib *cal, int *asked);
/* Every model's for_eval_loader on c, in table order. */
void ss_models_for_eval_loader(ss_config *c);

/* The model of the sweep's measured row (the first of the table). */
ss_model ss_model_measured_id(void);

/* Registers every model's section of options into the option table (config): once,
 * before the first scenario file is read. */
ss_status ss_models_register_options(void);

/* Scenario s of sc[0..nsc) as the notes name it: its label without the settings that
 * every row of its model has ("pipe W=1 fs=1"). The text lives until the next call. */
const char *ss_model_note_label(const ss_scenario *sc, int nsc, const ss_scenario *s);

#endif
