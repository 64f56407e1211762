/* ss_pipeline_internal.h - what the pipeline model's files share (sim/models only): its
 * settings in a scenario, its options, the state of one scenario's replay. */
#ifndef SS_PIPELINE_INTERNAL_H
#define SS_PIPELINE_INTERNAL_H

#include <math.h>
#include <stdio.h>

#include "ss_config.h"
#include "ss_model.h"
#include "ss_model_pipeline.h"

/* [pipeline] of the scenario file (ss_model_pipeline.c registers its rows) */
typedef struct {
    ss_autoval worker_gap, refill_gap, delivery; /* auto: calibrated per GPU */
    ss_autoval fetch_cpu;   /* auto: the trace's recorded CPU part of each GPU's fetch (0 when not recorded) */
    int delivery_per_batch; /* delivery = auto: each batch's measured delivery (else the GPU's median) */
    int cpu_sharing;        /* stretch CPU work by the contention for the cores (traces with CPU times) */
    int quiet_host;         /* every scenario as on a host where only the job runs (CPU sharing, host shares) */
    double step_gap;
    double storage_parallel; /* reads the storage serves at full throughput (0: no limit) */
    long sync_every;         /* the ranks all-reduce every this many steps (0, 1: every step) */
} ssp_options;

/* The [pipeline] settings of c. */
const ssp_options *ssp_options_of(const ss_config *c);

/* 1 when CPU sharing is on: cpu_sharing and fetch_cpu = auto (the trace's recorded CPU
 * parts, unscaled). */
int ssp_cpu_sharing_on(const ssp_options *o);

/* A scenario's resolved settings (ss_scenario.settings): the loaders' parameters, whose
 * per-GPU arrays point into the calibration (which must outlive the sweep), and the GPUs
 * of those arrays (0: none). */
typedef struct {
    ssp_params p;
    int gpus;
    int own_model; /* 1 when no [pipeline] key that changes the replay of the trace's own
                    * loaders is given another value than its default: a row that replays
                    * them is then of the class baseline */
} ssp_settings;
_Static_assert(sizeof(ssp_settings) <= SS_MODEL_SETTINGS_MAX, "raise SS_MODEL_SETTINGS_MAX");

static inline ssp_settings *ssp_settings_of(ss_scenario *s) { return (ssp_settings *)(void *)s->settings; }
static inline const ssp_params *ssp_params_of(const ss_scenario *s)
{
    return &((const ssp_settings *)(const void *)s->settings)->p;
}

/* A factor of 0 counts as 1. */
static inline double ssp_factor_of(double f) { return f != 0.0 ? f : 1.0; }

/* 1 when scenario s, with loaders p, runs every GPU with trace_workers[g] workers at the
 * trace's speeds (fetch and compute scale 1) and heals nothing: its load is the trace's,
 * so CPU and storage sharing change nothing. */
int ssp_same_load(const ssp_params *p, const ss_scenario *s, const int *trace_workers, int gpus);

/* The state of one scenario's replay. */
typedef struct {
    ssp_state ps;
    int heal;          /* the GPU healed alone, or -1 */
    ss_healset heals;  /* the GPUs healed (n = 0: none) */
    long heal_first;   /* the epoch's first rows whose measured starts a healed GPU takes from
                        * the others: the largest max(W, 1) over the healed GPUs */
    double *fetch_buf; /* [gpus] the healed row's fetch times */
    double *start_buf, *sort_buf; /* [gpus] the healed row's measured starts, scratch */
    /* [gpus] the healed GPUs' first asks of the epoch (healed_asks); [2 gpus] scratch; [gpus]
     * every GPU's first ask of the epoch as measured; heal_own: the healed asks keep their
     * loops' own work (heal_own_work) */
    double *heal_ask, *heal_tmp, *heal_a0;
    int heal_own;
    /* a scenario with more workers than the trace's loader: the epoch's first batches
     * beyond the trace's first round (its max(W, 1) batches started by fresh workers)
     * start with that round's last, not as measured (they waited for the trace's
     * workers); first_rows = the largest such W (0: none), trace_round[g] = the trace's
     * max(W, 1) (a healed GPU: the others' median), first_hold [gpus] the starts in use */
    long first_rows;
    int *trace_round;
    double *first_hold;
    /* with per-GPU loader settings and a healed GPU: every GPU's settings, the healed
     * one's replaced by the median of the others' ([gpus] each) */
    int *wg, *pg;
    double *gg, *rg, *dg;
    double *cg; /* with recorded fetch CPU parts and a healed GPU: the healed one's is the others' median */
    double cpu_stretch; /* CPU sharing: the largest s1 over the pools (s0 where the load is the
                         * trace's), NaN without it */
    double read_factor, reads_trace; /* storage sharing: the factor on the scenario's reads and
                                      * the reads the trace kept in flight (NaN without it) */
    double *share_buf; /* CPU sharing: [10 + SSP_WIN_N][gpus] the CPU parts' wall times, s1 / s0,
                        * the loaders, fetches and waits for the solve, the first window's
                        * waits and excess fetches, the deliveries' factors and the first
                        * window's terms (share_init) */
    unsigned char *ready; /* CPU sharing: [gpus] the scenario's delivery flags (share_init) */
    long *window_rows; /* CPU sharing: [gpus] the rows of each epoch in the trace's first window
                        * or the scenario's (share_init) */
    double delivery_factor; /* CPU sharing: the largest of the deliveries' factors over the GPUs
                             * with workers (1 where none stretches), NaN without it */
    /* an epoch's start (MODELS-pipeline.md, "An epoch's start"): the first rows of every
     * epoch whose measured starts the scenario changes (0: none); each GPU's factor on its
     * workers' start-up (the contention of the pool's booting workers for its cores, the
     * scenario's over the trace's), whether it starts its workers at all (0: it loads
     * synchronously where the trace had workers), the epoch's first asks and the starts in
     * use ([gpus] each); persistent: the scenario's persistent_workers; first_epoch: the
     * epoch replayed is the trace's first, epoch its place among the trace's epochs
     * (pipe_epoch_start); lead each GPU's time from its pass start to its first ask */
    long boot_rows, epoch;
    double *boot, *ask0, *ask1, *boot_start, *lead; /* [gpus] each, in one block */
    /* the factor on each GPU's first ask's lead over the epoch's earliest, for the first
     * epoch and for the later ones ([2][gpus]; NULL: 1 everywhere; MODELS-pipeline.md,
     * "The first asks"), and the half of it for the epoch replayed; ask1 ([gpus], in boot)
     * the asks it gives, handed to the recurrence as ps.first_asks */
    double *ask_scale;
    const double *ask_scale_now;
    unsigned char *boots;
    /* [2][gpus] a probed GPU's start-up in the first epoch, then in later ones (ssp_probed:
     * the probe's first and second pass's, which its first fetches wait after the ask, times
     * its factor in boot), NaN for the others; NULL: no GPU is probed */
    double *probe_up;
    int persistent, first_epoch;
    unsigned char *healed; /* [gpus] 1 for the healed GPUs (ssp_state.healed), or NULL */
} pipe_state;

/* Storage sharing for the scenario (ss_pipeline_share.c): the factor on its reads, folded
 * into p->fetch_scale. q: the resolved settings (the trace's, unhealed); p: the scenario's,
 * healed. Before ssp_share_init. */
ss_status ssp_store_init(pipe_state *st, ssp_params *p, const ssp_params *q, const ss_scenario *s, int gpus);
/* CPU sharing for the scenario (ss_pipeline_share.c): solves its stretch per pool and sets
 * p's CPU parts, their factors and the change of the step. */
ss_status ssp_share_init(pipe_state *st, ssp_params *p, const ss_scenario *s, int gpus);

/* The classes of the model's predictions, and their intervals (ss_pipeline_intervals.c,
 * generated by scripts/validation/intervals.py from the development and calibration runs). */
enum {
    SSP_CLASS_BASELINE,
    SSP_CLASS_SYNC,
    SSP_CLASS_PROBED,
    SSP_CLASS_BUSY,
    SSP_CLASS_HEAL,
    SSP_CLASS_AHEAD,
    SSP_CLASS_CALM,
    SSP_CLASS_BOUND,
    SSP_NCLASSES
};
extern const ss_error_class ssp_error_classes[SSP_NCLASSES];
/* the share of the cores above which a prediction is "near saturation" */
#define SSP_BUSY_PCT 85.0
/* the share of the cores below which a trace and a row are "calm": under half of them busy */
#define SSP_CALM_PCT 50.0

/* The advice hooks (ss_pipeline_notes.c). */
unsigned ssp_hints(const ss_scenario *s, const ss_hint_in *in);
const ss_error_class *ssp_error_class(const ss_scenario *s, const ss_class_in *in);
void ssp_calib_notes(const ss_config *c, const ss_calib *cal, FILE *out);
ss_status ssp_notes(const ss_notes_in *in, FILE *out);

#endif
