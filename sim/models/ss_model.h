/* ss_model.h - the model interface: a replay model is one ss_model_ops, listed once in
 * ss_model_ids.h (sim/base) and ss_models.c; the sweep engine knows models only
 * through this table. */
#ifndef SS_MODEL_H
#define SS_MODEL_H

#include <stddef.h>

#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_limits.h"
#include "ss_model_pipeline.h"
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
};

/* One point of a sweep: a model and its value on each axis. Axes that the model is not
 * swept over hold their neutral value (aligns none, scales 1, workers 0, prefetch 0). */
typedef struct {
    char name[SS_NAME_MAX];
    ss_model model;
    ss_align fetch_align, start_align;
    ss_autoval workers;   /* as configured (auto, auto*2, 3) */
    long prefetch;
    double fetch_scale, compute_scale;
    ss_healset heal;      /* the GPUs whose fetch times (and, pipeline, loader settings) become
                           * the median of the GPUs not healed; n = 0: none */
    int heal_gpu;         /* the healed GPU when the set holds one, else -1 */
    int baseline;         /* nothing changed: the replay should give the measured run back */
    int baseline_but_heal; /* nothing but one healed GPU changed (the heal ranking pairs such a
                            * scenario with its model's baseline) */
    ssp_params pipe;      /* the pipeline model's resolved settings (see its resolve()); its
                           * per-GPU arrays point into the calibration, which must outlive
                           * the sweep */
    int pipe_gpus;        /* GPUs of those per-GPU arrays (0: none) */
} ss_scenario;

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
     * epoch that holds its first row (README: running on a cluster). */
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

    /* The scenario's name (unique within a sweep, used as an HDF5 group name) and its
     * terminal-table label (after resolve). */
    void (*name_of)(const ss_scenario *s, char *buf, size_t n);
    void (*label_of)(const ss_scenario *s, char *buf, size_t n);
    /* 1 when s changes nothing against the measured run. */
    int (*is_baseline)(const ss_scenario *s);
    /* 1 when s needs the trace's loader calibration (may be NULL: never). */
    int (*needs_calibration)(const ss_scenario *s, const ss_config *c);
    /* Fills the model's resolved settings of s from the configuration and the calibration
     * (NULL when no scenario needed it), and without one, from the trace's recorded loader
     * workers per GPU (trace_workers; NULL when not recorded). SS_ECONFIG naming the key
     * when out of bounds. May be NULL. */
    ss_status (*resolve)(ss_scenario *s, const ss_config *c, const ss_calib *cal, const int *trace_workers);

    /* Replay: init makes the state of one scenario for G GPUs; epoch_start is called
     * before the first row of every epoch (stateful models; may be NULL); replay_row
     * replays one prepared row, writing the per-GPU stalls into stall[G] (also its
     * working buffer) and the step's figures into *out; free releases the state. */
    ss_status (*init)(void **state, const ss_scenario *s, const ss_config *c, int gpus);
    void (*epoch_start)(void *state);
    void (*replay_row)(void *state, const ss_row *row, double *stall, ss_step *out);
    void (*free)(void *state);
    /* The stretch of CPU work that the scenario of this state replays with (CPU sharing:
     * the largest over the pools of cores), or NaN where none applies. May be NULL. */
    double (*cpu_stretch)(const void *state);
    /* Storage sharing: how many times as long as in the trace each read of the scenario
     * takes (out[0]) and the reads the trace kept in flight on average (out[1]); NaN
     * where none applies. May be NULL. */
    void (*read_stretch)(const void *state, double out[2]);
    /* CPU sharing: the largest factor the scenario replays its GPUs' deliveries with (its
     * s1 / s0 where a GPU's batches waited for its loop in the trace, else 1), or NaN
     * where none applies. May be NULL. */
    double (*delivery_factor)(const void *state);
} ss_model_ops;

/* The model with id m. */
const ss_model_ops *ss_model_get(ss_model m);

/* The pipeline model (ss_model_pipeline.c): 1 when scenario s, with loaders p, runs every
 * GPU with trace_workers[g] workers at the trace's speeds (fetch and compute scale 1)
 * and heals nothing: its load is the trace's, so CPU and storage sharing change nothing. */
int ssp_same_load(const ssp_params *p, const ss_scenario *s, const int *trace_workers, int gpus);

#endif
