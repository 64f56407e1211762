/* ss_calibrate.h - reads each GPU's loader settings off a measured timeline (MODELS-pipeline.md
 * calibration as replaced by issue 11; the exact fit is in sim/models/MODELS-pipeline.md):
 * worker count W (0: synchronous loading), prefetch factor P, worker gap, refill gap and
 * delivery cost, fitted per GPU so that the pipeline recurrence explains the measured
 * fetch starts and stalls. */
#ifndef SS_CALIBRATE_H
#define SS_CALIBRATE_H

#include <stdio.h>

#include "ss_comm.h"
#include "ss_cpushare.h"
#include "ss_status.h"
#include "ss_trace.h"

#define SS_CALIB_MAX_WORKERS 64
#define SS_CALIB_MAX_PREFETCH 64
/* Rows that calibration looks at by default (the first ones of the trace): up to
 * SS_CALIB_ROWS, as many as fit 32 MB of the five columns it reads, at least
 * SS_CALIB_MIN_ROWS. */
#define SS_CALIB_ROWS 20000L
#define SS_CALIB_MIN_ROWS 1000L

/* A finding of the calibration: a pool of cores disturbed while the trace was recorded. Its
 * measured stretch of CPU work (fetches' or steps', with their waits for a core) is
 * `ratio` times the model's for its own threads' load, above what clean runs show, and
 * its excess wait is a sizeable share of an iteration: other processes most likely used
 * its cores, and every prediction from the trace carries that contention. */
/* The largest accumulation period whose asks' phase the calibration measures */
#define SS_CALIB_PHASES 8

typedef struct {
    int found;            /* 1 when there is such a pool (the fields below are then set) */
    int pool;             /* the pool (numbered in the order of its first GPU, as ss_share.pool_of) */
    int gpu;              /* its first GPU, which names it ("GPU g's pool") */
    double ratio;         /* the larger of its measured fetches' and steps' stretch over the model's */
    double fetch_stretch; /* measured stretch of its fetches: (CPU time + wait for a core) / CPU time */
    double step_stretch;  /* the same for its steps */
    double model_stretch; /* the model's stretch at the trace's load */
    /* the excess wait (measured over the model's stretch) per GPU of the pool and iteration,
     * of the fetches or the steps (whichever gave the ratio), as a share of the trace's
     * iteration time */
    double excess_share;
} ss_calib_finding;

typedef struct {
    int gpus;
    /* per GPU, [gpus] each */
    int *workers_gpu;      /* W (0: synchronous loading) */
    int *prefetch_gpu;     /* P */
    double *gap_gpu;       /* worker gap: a worker's pause between two batches, seconds */
    double *refill_gpu;    /* refill gap: from the loop taking batch k-W*P to batch k handed out */
    double *delivery_gpu;  /* from a batch being ready to the loop having it, seconds */
    double *resid_gpu;     /* median |predicted - measured fetch_start| over the fitted rows */
    double *stall_resid_gpu; /* median |predicted - measured stall| */
    double *fetch_cpu_gpu; /* the trace's recorded CPU part of a fetch (/fetch_cpu_time), or NULL */
    double *fetch_med_gpu; /* each GPU's median fetch time over the calibration rows, seconds */
    /* [SSP_PROBE_COUNT][gpus]: the trace's probe of one loader worker where every GPU loaded synchronously
     * (/probe_lead_time, /probe_startup_time, /probe_delivery_time, /probe_stop_time, then its
     * second pass's /probe_next_lead_time and /probe_next_startup_time, unset where probe_next
     * is 0), or NULL */
    double *probe_gpu;
    int probe_next; /* 1 when the trace records the probe's second pass */
    /* [passes][gpus]: when each GPU's loop called iter(loader) in each epoch, s (the trace's
     * /pass_start_time, one row per epoch in the timeline's order), or NULL */
    double *pass_start_gpu;
    /* [passes][gpus]: how long each GPU's next() that ended each epoch's pass took, s (the
     * trace's /pass_stop_time: its workers' shutdown), or NULL */
    double *pass_stop_gpu;
    long passes;
    /* the share of the calibration rows, past each epoch's first max(W, 1), whose batch was
     * ready when GPU g's loop asked for it (fetch_start + fetch_time <= train_start -
     * stall_time): 1 where its loader kept ahead */
    double *ready_gpu;
    /* the mean over the calibration rows among each epoch's first W * P (W >= 1) of
     * max(0, fetch_time - fetch_med_gpu): the first window's excess fetch; 0 without workers */
    double *start_excess_gpu;
    /* over GPUs */
    int workers;           /* the largest W */
    double worker_gap;     /* median of the GPUs' worker gaps */
    int agree;             /* 1 when every GPU has the same W and P */
    int recorded_workers;  /* 1 when W came from the trace's loader_workers attribute */
    int recorded_prefetch; /* 1 when P came from the trace's prefetch_factor attribute */
    int no_fetch;          /* 1 when the trace has no fetch timings: W and P as recorded (or the defaults), nothing fitted */
    /* The loops' asks (train_start - stall_time): consistent when every GPU's next ask is
     * its ask plus its iteration time (on 99 % of rows); spread = the median over rows of
     * the last minus the first GPU's ask. ask_lags = consistent and spread > 1e-9 s: the
     * replay then takes each GPU's measured lag (ssp_params.ask_lags). */
    int asks_consistent, ask_lags;
    double ask_spread;
    /* the median over successive rows of one epoch of the last GPU's ask minus the one
     * before: the step period. A spread of half of it or more says the ranks do not step
     * together (gradient accumulation under no_sync, separate jobs): run warns. */
    double ask_period;
    double ask_together_every; /* rows / rows whose asks lie within a quarter period (0: none) */
    /* [N] for N = 2 .. SS_CALIB_PHASES: the median spread of the asks of the rows whose place
     * in their epoch is not a multiple of N, over that of the rows whose place is (0: not
     * known). A loop that all-reduces every N steps asks together on the rows after each
     * all-reduce and drifts in between: well above 1 at its N, about 1 at every step. */
    double ask_phase_ratio[SS_CALIB_PHASES + 1];
    /* the loader's start-up: the mean over the epochs that begin in the calibration rows of
     * the largest stall of the epoch's first row (its workers starting), and how many */
    double startup;
    long startup_epochs;
    /* the medians over the calibration rows of the slowest GPU's iteration time (period)
     * and of that minus the largest stall (step): CPU and storage sharing's T0 and C */
    double period, step;
    /* the median over the calibration rows of each row's largest delivery over the GPUs
     * (ss_row_delivery_of: the ask to having the batch, less the wait for it to be ready):
     * where the loaders keep ahead, the stall a step waits for (0 without fetch times) */
    double delivery_rows;
    long rows_used;
    double seconds;        /* time the calibration took */
    /* CPU sharing (ss_cpushare.h): built when the trace records the CPU times of fetches
     * and steps and its pools of cores; NULL otherwise */
    ss_share *share;
    /* a pool of cores disturbed by other processes (found = 0: none, or no measured waits
     * for a core): ss_calib_print warns of it, the JSON output carries it */
    ss_calib_finding disturbed;
} ss_calib;

/* The calibration's three figures of the loops' asks (ask_spread, ask_period,
 * ask_together_every) alone, from the first max_rows rows, for sweeps that do not
 * calibrate. Local (not collective). SS_ENOMEM, or the trace's read errors. */
ss_status ss_calib_asks(ss_trace_file *t, long max_rows, double *spread, double *period, double *every);

/* Calibrates on the first rows of the trace (at most max_rows; see SS_CALIB_ROWS),
 * reading columns for batches of GPUs in bounded memory (about 32 MB); the rows depend
 * on the GPU count only, not on slab settings. Local (not collective) and deterministic:
 * every rank gets the same. */
ss_status ss_calibrate(ss_trace_file *t, long max_rows, ss_calib *out);
/* Collective over comm: the ranks fit blocks of SS_CALIB_CHUNK GPUs each and share the
 * results, so every rank gets the same calibration whatever the rank count (the GPUs of
 * one block are fitted in order, each block starting afresh; ss_calibrate is this with
 * one rank). */
#define SS_CALIB_CHUNK 64
ss_status ss_calibrate_comm(const ss_comm *comm, ss_trace_file *t, long max_rows, ss_calib *out);
void ss_calib_free(ss_calib *c);

/* Prints what was fitted and how well it explains the trace, lines starting with
 * "calibration:"; GPUs with the same settings are grouped (a few lines whatever the GPU
 * count). Reads the disturbed-pool finding from c->disturbed. */
void ss_calib_print(const ss_calib *c, FILE *out);

#endif
