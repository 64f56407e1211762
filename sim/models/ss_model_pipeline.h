/* ss_model_pipeline.h - the dependency-aware replay (sim/models/MODELS-pipeline.md):
 * each GPU's loader as a pool of W workers with a prefetch window of W*P batches (W = 0:
 * synchronous loading in the training process), a delivery cost per batch, synchronised
 * training steps, state carried from batch to batch. The same recurrence drives
 * `stallsim gen` forward. */
#ifndef SS_MODEL_PIPELINE_H
#define SS_MODEL_PIPELINE_H

#include "ss_align.h"
#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_cpushare.h"
#include "ss_row.h"
#include "ss_status.h"
#include "ss_step.h"

/* The first window's terms per GPU (ssp_params.start_win_gpu): the fetch's CPU part c, its
 * wall time outside the window c + q and at the scenario's load (c + q) r, the window's
 * mean extra wait qs - q, the wait per second of excess fetch rho (NaN: the same wait on
 * every row), the factor x on a row's wait and the wait added to every row at the
 * scenario's load, the scenario's mean wait (on its window's rows outside the trace's),
 * the median fetch, the rows of the trace's window and of the scenario's, and the factor on
 * an epoch's first delivery, ((c + q) r + mean) / (c + qs) (NaN: the row's usual factor). */
enum {
    SSP_WIN_C,
    SSP_WIN_BASE,
    SSP_WIN_NEW,
    SSP_WIN_WAIT,
    SSP_WIN_RHO,
    SSP_WIN_X,
    SSP_WIN_ADD,
    SSP_WIN_MEAN,
    SSP_WIN_FMED,
    SSP_WIN_TROWS,
    SSP_WIN_SROWS,
    SSP_WIN_DFIRST,
    SSP_WIN_N
};

/* The recorder probe's figures, in ssp_params.probe_gpu and ss_calib.probe_gpu. */
enum {
    SSP_PROBE_LEAD,
    SSP_PROBE_STARTUP,
    SSP_PROBE_DELIVERY,
    SSP_PROBE_STOP,
    SSP_PROBE_NEXT_LEAD,    /* the second pass's: a later epoch's */
    SSP_PROBE_NEXT_STARTUP,
    SSP_PROBE_COUNT
};

typedef struct {
    int workers;   /* W per GPU (0: synchronous loading) */
    int prefetch;  /* P (>= 1) */
    double worker_gap, refill_gap, step_gap;
    double delivery; /* seconds from a batch being ready to the loop having it */
    double fetch_scale, compute_scale;
    ss_align fetch_align, start_align;
    /* Per-GPU loader settings ([gpus] each, not owned, must outlive the state; NULL: the
     * value above for every GPU). GPU g then uses workers = max(0, round(workers_gpu[g] *
     * workers_factor)) (at least 1 when workers_gpu[g] >= 1), prefetch_gpu[g], and the
     * gaps and the delivery cost times their factors (a factor of 0 counts as 1). */
    const int *workers_gpu, *prefetch_gpu;
    const double *worker_gap_gpu, *refill_gap_gpu, *delivery_gpu;
    double workers_factor, worker_gap_factor, refill_gap_factor, delivery_factor;
    /* 1: the replay takes each GPU's measured lag behind the last GPU to ask for a batch
     * (ranks leave a synchronised step at slightly different times) from the rows'
     * train_start and stall_time (ssp_replay_row with row->train_start); set by the
     * calibration when the trace's asks are consistent and not simultaneous. */
    int ask_lags;
    /* > 1: the GPUs step together only on every sync_every-th batch of an epoch (index + 1
     * a multiple of it: gradient accumulation under DDP's no_sync); on the others each GPU
     * asks for its next batch after its own step (its measured iteration time less its
     * stall). Needs ask_lags and the rows' train_start; 0 or 1: every batch. */
    long sync_every;
    /* > 0: each replayed batch's delivery cost is the one measured on that batch and GPU
     * (stall - max(0, done - ask) of the row) times this factor, instead of the GPU's
     * constant; the replay of a row computes it (ssp_replay_row_from). 0: the constants. */
    double delivery_measured;
    /* The trace's own workers per GPU, [gpus] (calibrated; without a calibration, as the
     * trace records them), or NULL. A GPU that the
     * scenario makes synchronous (W = 0) where the trace's loader had workers has no
     * delivery cost: the training process fetches the batch itself, with no queue or
     * unpickling between a worker and the loop. */
    const int *trace_workers_gpu;
    /* The trace's probe of one loader worker, where every GPU loaded synchronously: per GPU
     * ([gpus] each, ss_calib.probe_gpu) its lead, start-up, delivery and stop, and a later
     * epoch's lead and start-up (SSP_PROBE_*), or NULL; a NULL later one falls back to the
     * first pass's. A GPU that the scenario gives workers where the trace's loaded
     * synchronously (ssp_probed) takes the probe's delivery (times delivery = auto*F's F)
     * instead of its measured one. */
    const double *probe_gpu[SSP_PROBE_COUNT];
    /* The trace's pass starts, [passes][gpus] (ss_calib.pass_start_gpu), or NULL: where each
     * epoch's first asks are anchored ("The first asks") */
    const double *pass_start_gpu;
    /* The trace's pass stops, [passes][gpus] (ss_calib.pass_stop_gpu), or NULL: a healed
     * GPU's shutdown of the pass before is the others' median ("Healing a GPU") */
    const double *pass_stop_gpu;
    long passes;
    /* The CPU part of each fetch, which fetch_scale does not scale (the fetching thread's
     * decoding and collating): GPU g's replayed fetch is min(f, c) + fetch_scale * max(0,
     * f - c) with c = fetch_cpu_gpu[g] * fetch_cpu_factor (a factor of 0 counts as 1;
     * NULL: fetch_cpu for every GPU). With fetch_align, the aligned fetch takes the GPUs'
     * median c. 0 everywhere: the whole fetch scales. */
    const double *fetch_cpu_gpu;
    double fetch_cpu, fetch_cpu_factor;
    /* CPU sharing (MODELS-pipeline.md): the trace's CPU statistics (not owned; NULL: off),
     * and, set by the model's init for the scenario, each GPU's CPU part of a fetch as the
     * trace's contention stretched it (c * s0) and its factor s1 / s0 at the scenario's load
     * ([gpus] each, NULL: no change), and the change of every step time */
    const ss_share *share;
    int quiet_host; /* [pipeline] quiet_host: share's s0_others stands for its s0 */
    const ss_share *pools; /* the trace's pools of cores and calibrated workers, whether or not
                            * CPU sharing is on (an epoch's start), or NULL */
    const double *cpu_wall_gpu, *cpu_ratio_gpu;
    double compute_delta;
    /* and each GPU's factor on its deliveries at the scenario's load (s1 / s0 where its
     * batches waited for its loop in the trace, else 1: ss_share_scenario.ready), on the
     * measured ones and on its calibrated constant alike, not on a delivery the scenario
     * file gives in seconds ([gpus], NULL: 1) */
    const double *cpu_delivery_gpu;
    /* and for the first start_rows_gpu[g] rows of each epoch (the trace's start window,
     * whose fetches waited start_wait for a core, or the scenario's where longer): the
     * window's terms, [SSP_WIN_N][gpus] (MODELS-pipeline.md, "The first window of an
     * epoch"); NULL: as every other row */
    const long *start_rows_gpu;
    const double *start_win_gpu;
    /* Storage sharing (MODELS-pipeline.md): the storage's throughput with many reads in
     * flight, in reads at a time (0: no limit), and what the calibration measured of the
     * trace ([gpus] each, not owned): its median fetches, worker gaps and deliveries, its
     * period and step. The model's init folds the scenario's factor on its reads into
     * fetch_scale. */
    double storage_parallel;
    const double *trace_fetch_med, *trace_gap_gpu, *trace_delivery_gpu;
    double trace_period, trace_step;
    double trace_delivery_rows; /* the calibration's delivery_rows (ss_calibrate.h) */
} ssp_params;

/* One GPU's resolved loader settings. */
typedef struct {
    int workers, prefetch;
    double worker_gap, refill_gap, delivery;
} ssp_loader;

typedef struct {
    ssp_params p;
    int gpus;
    int uniform;     /* 1 when every GPU has the same loader settings (ld[0]) */
    ssp_loader *ld;  /* [gpus] */
    long *wp;        /* [gpus] W * P of each GPU */
    long k;          /* position within the current epoch */
    long ring;       /* the largest W * P over GPUs, at least 1 */
    double *done;    /* [ring][gpus]: done of batch j at slot j % ring */
    double *A;       /* [ring + 1][gpus] with ask_lags: when GPU g's loop asked for batch j,
                      * at slot j % (ring + 1) */
    double *T;       /* [ring + 1]: T[j] at slot (j + 1) % (ring + 1), T[-1] at slot 0 */
    double *r, *f, *h; /* [gpus] scratch */
    double *lag, *lag_next; /* [gpus] scratch (ask_lags) */
    double *nxt;            /* [gpus] each GPU's ask for the next batch (sync_every > 1) */
    double first_ask;       /* the epoch's first ask (the last GPU's, train_start - stall of its
                             * first row), NaN where the rows do not show it: T[-1] */
    const unsigned char *healed; /* [gpus] 1 for a healed GPU, whose first ask of an epoch is
                                  * healed_asks' (not owned; NULL: none) */
    const double *healed_asks;   /* [gpus] the epoch's first asks of the healed GPUs, which the
                                  * model sets at each epoch's first row ("Healing a GPU"; not
                                  * owned), NULL: as measured */
    const double *first_asks; /* [gpus] the epoch's first asks as the scenario moves them
                               * (MODELS-pipeline.md, "The first asks"; not owned; NULL: as
                               * measured) */
    double *h0;               /* [gpus] the epoch's first asks as measured (healed) */
    double *dm;      /* [gpus] the row's measured delivery costs (delivery_measured) */
    /* the loaders as arrays for the fused step ([gpus] each): worker gap, refill gap,
     * delivery cost, and the factor of the measured delivery (0 for a GPU made
     * synchronous), and the delivery added to the measured one (a probed GPU's: ssp_probed);
     * same_shape: every GPU has the same W and P (ld[0]'s) */
    double *gap_a, *refill_a, *deliv_a, *dfac_a, *dadd_a, *dfirst_a;
    int same_shape;
    const double *dm_row; /* dm while a row is replayed, else NULL (the constants) */
    /* fetch_scale != 1 with a CPU part, or CPU sharing: each GPU's CPU part, their median,
     * and the row's fetch times with the CPU part kept (times its factor) and the rest
     * scaled ([gpus] each; NULL otherwise) */
    double *cpu, cpu_median, *fx;
    double *ratio, ratio_median; /* CPU sharing: [gpus] s1 / s0 per GPU (NULL: 1), their median */
} ssp_state;

/* GPU g's CPU part of a fetch as the trace ran it, under the resolved settings q (not
 * healed): with CPU sharing its wall time (c + q measured, or c s0), else the configured or
 * recorded CPU part (MODELS-pipeline.md, "Inputs per row"); 0 where none is known. */
double ssp_trace_cpu_part(const ssp_params *q, int g);

/* The workers a loader of trace_workers gets under workers = auto*factor: rounded to the
 * nearest whole number, at least 1 where the trace's loader had workers (not bounded). */
double ssp_worker_count(double trace_workers, double factor);

/* GPU g's settings under p (the per-GPU arrays when given). */
ssp_loader ssp_loader_of(const ssp_params *p, int g);

/* 1 when GPU g, given `workers` by the scenario, takes the costs of the trace's probe of one
 * worker: the trace loaded it synchronously and records the probe, and the scenario gives it
 * workers (MODELS-pipeline.md, "From a synchronous trace"). */
int ssp_probed(const ssp_params *p, int workers, int g);

/* 1 when the pipeline model's rows take the trace as on a quiet host: [pipeline] quiet_host
 * is true, CPU sharing is on, and the calibration's trace records other processes' share
 * of its cores (MODELS-pipeline.md, "A quiet host"); -1 when quiet_host is true but takes
 * nothing out; 0 when it is false. */
int ssp_quiet_host(const ss_config *c, const ss_calib *cal);

ss_status ssp_init(ssp_state *s, const ssp_params *p, int gpus);
void ssp_free(ssp_state *s);
/* Starts a new epoch: the loader restarts with no batch in flight. */
void ssp_epoch_start(ssp_state *s);

/* One batch k given its fetch times f[g] (already aligned and scaled), its compute time c,
 * and the measured starts fs[g] used for the first max(W, 1) batches. Fills start[g] and
 * done[g] (may be NULL), stall[g] (required), the step result, and returns T[k]. *t_prev
 * receives T[k-1]. */
double ssp_advance(ssp_state *s, const double *f, double c, const double *fs, double *start,
                   double *stall, double *t_prev, ss_step *out);

/* ssp_advance when the GPUs' loops ask at different times: GPU g asks for batch k at
 * T[k-1] - lag[g] and for batch k+1 at T[k] - lag_next[g] (lag >= 0; T[k-1] is the last
 * GPU's ask); the step's iteration time is the largest over GPUs of the time between
 * their two asks. NULL lags: ssp_advance. Needs p.ask_lags. */
double ssp_advance_lagged(ssp_state *s, const double *f, double c, const double *fs, const double *lag,
                          const double *lag_next, double *start, double *stall, double *t_prev, ss_step *out);

/* Replays one measured row (MODELS-pipeline.md: aligned and scaled fetch, compute from the row). */
void ssp_replay_row(ssp_state *s, const ss_row *row, double *stall, ss_step *out);
/* ssp_replay_row taking the measured delivery costs (delivery_measured) from the row
 * `measured` (the row before a scenario changed it, e.g. healed it). */
void ssp_replay_row_from(ssp_state *s, const ss_row *row, const ss_row *measured, double *stall, ss_step *out);

#endif
