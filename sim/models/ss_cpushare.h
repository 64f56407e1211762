/* ss_cpushare.h - CPU sharing: how much longer the CPU work of fetches and steps takes
 * when a pool's threads want more cores than it has, at the trace's load and at a
 * scenario's (the definition: sim/models/MODELS-pipeline.md, "CPU sharing"). */
#ifndef SS_CPUSHARE_H
#define SS_CPUSHARE_H

#include "ss_status.h"

/* What the trace says about its CPU use, and its stretch: built once by the calibration
 * from the trace's CPU datasets and the calibrated loaders. */
typedef struct {
    int gpus, pools;
    int *pool_of;      /* [gpus] the GPU's pool, 0 .. pools-1 */
    int *cores;        /* [pools] cores of each pool */
    double *fetch_cpu; /* [gpus] c: CPU seconds of a fetch (/fetch_cpu_time) */
    double *step_cpu;  /* [gpus] L: CPU seconds of the training process per step, its fetch
                        * left out where it loaded synchronously (/loop_cpu_time - c) */
    double *fetch_med; /* [gpus] f: median fetch time over the calibration rows */
    double *fetch_wait; /* [gpus] q: a fetch's measured wait for a core (/fetch_wait_time), or
                         * NULL: c + q is then the CPU part's wall time in the trace, in place
                         * of the model's c s0 */
    double *step_wait;  /* [gpus] the step's measured wait for a core (/loop_wait_time, the
                         * fetch's left out where it loaded synchronously), or NULL */
    int *workers;      /* [gpus] the trace's (calibrated) loader workers */
    double *gap, *delivery; /* [gpus] the trace's calibrated worker gap and delivery */
    double iter_mean;  /* T0: the median over the calibration rows of the slowest GPU's iteration time */
    /* the median over the calibration rows of the largest measured delivery over the GPUs
     * (ss_share_set_delivery_rows; 0: not known): the delivery term of the period where a
     * scenario replays the measured deliveries */
    double delivery_rows;
    double compute_med; /* the median step (iteration minus stall of the slowest GPU) */
    /* the trace's period by the steady-state formula (MODELS-pipeline.md), its delivery term
     * a row's largest delivery (delivery_rows; the largest of the GPUs' medians while that
     * is 0): the A(s0) of scenarios that replay the measured deliveries; a0_med with the
     * largest of the GPUs' median deliveries: the A(s0) of the others */
    double a0, a0_med;
    double *s0;        /* [pools] the stretch of CPU work at the trace's own load */
    /* [pools] the same on the cores that other processes left the job while the trace was
     * recorded (ss_share_set_others); NULL where the trace records none. A scenario on a
     * quiet host takes it for s0. */
    double *s0_others;
    /* [pools] the share of the trace's iterations in which the pool's training processes
     * started their steps together (all within their step's CPU time of each other), and
     * in which each ask plus its batch's delivery fell together (when they would have had
     * their batches, had every batch been ready at the ask); NULL: always together */
    double *align_trace, *align_ahead;
    /* 1: the trace's period is its loaders' (or a synchronous fetch's), not its steps', by
     * a0's formula; bound0_med by a0_med's */
    int bound0, bound0_med;
    double *s0m;       /* [pools] the measured one, (c + q) / c over the pool's fetches
                        * (fetch_wait), or NULL */
    double *s0m_step;  /* [pools] the same for the steps, (L + its wait) / L, or NULL */
    /* The start-up crush (MODELS-pipeline.md, "CPU sharing", "The first window of an
     * epoch"): [gpus] the mean wait for a core of the first start_rows[g] fetches of each
     * epoch (/fetch_wait_start_time), the trace's W·P; NULL when not recorded */
    double *start_wait;
    long *start_rows;
    /* [gpus] the mean over those rows of the fetch's excess over the GPU's median fetch,
     * max(0, fetch - fetch_med): how the first window's wait is spread over its rows; NULL
     * when not given (the wait is the same on every row) */
    double *start_excess;
    /* [gpus] 1 where the GPU's loader kept ahead in the trace: its batch was ready when its
     * loop asked on at least SS_SHARE_READY_SHARE of the calibration rows past each epoch's
     * first W (ss_calib.ready_gpu, set by ss_share_set_ready); its deliveries were its
     * training process's own work and waits for a core, and stretch by s1 / s0 as its step
     * does. NULL: none. */
    unsigned char *ready;
} ss_share;

/* The share of the calibration rows (past each epoch's first W) with the batch ready at
 * the ask from which a GPU's loader counts as ahead (ss_share.ready). Loaders ahead have
 * nearly every batch ready; loader-bound ones far fewer (with 2 workers every second batch
 * is ready at its ask: 0.5). MODELS-pipeline.md defines it; DECISIONS.md says why. */
#define SS_SHARE_READY_SHARE 0.95

/* ready[g] of a GPU whose delivery was measured on idle cores (the recorder's probe of a
 * synchronous trace): it stretches by s1 itself, not by s1 / s0 */
#define SS_SHARE_READY_IDLE 2

/* GPU g's delivery factor at its pool's stretch s1 (s0 at the trace's load): s1 / s0 where
 * its deliveries stretch from the trace's load (ready[g] 1), s1 where they were measured on
 * idle cores (SS_SHARE_READY_IDLE), else 1 (ready NULL: none stretches). */
static inline double ss_share_delivery_factor(const unsigned char *ready, int g, double s1, double s0)
{
    return !ready || !ready[g] ? 1.0 : ready[g] == SS_SHARE_READY_IDLE ? s1 : s1 / s0;
}

/* The stretch of a pool of `cores` cores whose threads want, when alone, gang_u CPU
 * seconds per second (each of a gang of `gang` threads that are runnable all together or
 * not at all: the training processes, which step together) and u[j] (each of n
 * independent threads: the loader workers): the root s in [1, (gang + n) / cores] of
 * s = E[N max(1, N/cores)] / E[N], N the number of runnable threads, the gang runnable
 * with probability min(1, gang_u s), thread j with min(1, u[j] s). 1 when gang + n <=
 * cores. */
double ss_share_stretch(int gang, double gang_u, const double *u, int n, int cores);

/* Numbers the pools of cores in the order of their first GPU: pool_of[g] for each GPU,
 * from pool_first (/cpu_pool: each GPU's pool's first GPU; a value that is not an earlier
 * GPU opens a pool of its own). Returns the number of pools. */
int ss_share_pool_ids(int gpus, const int *pool_first, int *pool_of);

/* Builds sh from the per-GPU arrays (copied); loop_cpu is /loop_cpu_time (the fetch
 * included where workers[g] = 0), fetch_wait and loop_wait /fetch_wait_time and
 * /loop_wait_time (both or neither may be NULL), pool_first the first GPU of each GPU's
 * pool (/cpu_pool), pool_cores its cores; align[2 g], align[2 g + 1] GPU g's pool's
 * align_trace and align_ahead, or NULL (the training processes always step together).
 * Computes a0 and s0. SS_ENOMEM. */
ss_status ss_share_build(ss_share *sh, int gpus, const double *fetch_cpu, const double *loop_cpu,
                         const double *fetch_wait, const double *loop_wait, const int *pool_first,
                         const int *pool_cores, const double *fetch_med, const int *workers, const double *gap,
                         const double *delivery, double iter_mean, double compute_med, const double *align);

/* Adds the start-up crush to sh (which has measured waits): start_wait[g] (seconds,
 * /fetch_wait_start_time), and the first workers[g] * prefetch[g] rows of each epoch as the
 * GPU's start window (sh->workers, the trace's); start_excess[g] (seconds, or NULL) the
 * mean excess of those rows' fetches over the GPU's median fetch. SS_ENOMEM. */
ss_status ss_share_set_start(ss_share *sh, const double *start_wait, const int *prefetch, const double *start_excess);

/* The first window's stretch of each pool, into s[pools] (MODELS-pipeline.md, "The first
 * window of an epoch"): the root of R(s) = s where each GPU g with workers[g] >= 1 adds one
 * gang of workers[g] threads, each runnable with probability min(1, s c[g] / alone[g])
 * (c: a fetch's CPU seconds, alone: its time without a wait for a core), the gangs
 * independent; 1 where the pool's workers are no more than its cores. SS_ENOMEM. */
ss_status ss_share_window_stretch(const ss_share *sh, const int *workers, const double *c, const double *alone,
                                  double *s);

/* 1 when some pool's worker processes in the trace outnumber its cores (its epochs can
 * start with a crush); 0 otherwise or out of memory. */
int ss_share_start_crowded(const ss_share *sh);

/* How far the model's stretch at the trace's load is from the measured ones (recorder format
 * 3's waits for a core), beyond which the trace's contention counts as not matched. */
#define SS_SHARE_MODEL_MISS 0.25
/* The measured (or, without the waits, the model's) stretch at the trace's load beyond which
 * its cores count as very busy. */
#define SS_SHARE_BUSY_STRETCH 2.0
/* The pool whose model stretch is furthest from a measured one (the fetches' or the
 * steps'), or without measured waits the busiest by the model: its index, and in *miss the
 * larger of |s0 / measured - 1| for its fetches and steps (0 without measured waits). */
int ss_share_contention_pool(const ss_share *sh, double *miss);

/* Sets sh->s0_others from others[g], the share (0 to 1) of GPU g's pool's cores that other
 * processes used while the trace was recorded (/host_cpu_busy less /host_cpu_job): per pool,
 * o the largest over its GPUs, m = ceil(o K) threads of demand o K / m each (K its cores)
 * share the cores with the trace's threads, and the stretch counts the trace's threads
 * alone, E[J max(1, N/K)] / E[J]. A pool with o = 0, or of more than 1024 cores, keeps s0.
 * Leaves it NULL where no pool has others. SS_ENOMEM. */
ss_status ss_share_set_others(ss_share *sh, const double *others);

/* Sets sh->delivery_rows (seconds, >= 0) and the trace's period a0 and regime bound0 with
 * it; on failure (SS_ENOMEM) sh is as before. */
ss_status ss_share_set_delivery_rows(ss_share *sh, double delivery_rows);

/* Sets sh->ready from ready_share[gpus] (the share of the calibration rows whose batch was
 * ready when each GPU's loop asked, ss_calib.ready_gpu). The trace's own period is
 * unchanged (its stretch ratio is 1). SS_ENOMEM (sh as before). */
ss_status ss_share_set_ready(ss_share *sh, const double *ready_share);

/* The wall time of GPU g's fetch's CPU part in the trace: c + q measured, or c s0 */
double ss_share_cpu_wall(const ss_share *sh, int g, double c, double q);
void ss_share_free(ss_share *sh);

/* A scenario's loaders, fetches and scales, per GPU ([gpus] each): workers, worker gap,
 * delivery, the CPU part of a fetch and the median fetch time (a healed GPU's: the other
 * GPUs' median, which the caller sets as it heals the loaders). */
typedef struct {
    const int *workers;
    const double *gap, *delivery;
    const double *fetch_cpu, *fetch_med;
    const double *fetch_wait; /* [gpus] q (healed as c is), or NULL when the trace has none */
    double fetch_scale, compute_scale;
    /* F when the scenario replays each batch's measured delivery times F (`delivery =
     * auto*F`, delivery_per_batch): the period's delivery term is then F times the trace's
     * delivery_rows; 0: the largest of `delivery` */
    double delivery_rows_factor;
    /* [gpus] 1 where the GPU's deliveries stretch with its pool (as sh->ready, but a healed
     * GPU that takes the others' delivery takes the flag most of them have),
     * SS_SHARE_READY_IDLE where its delivery is the probe's, or NULL: sh->ready */
    const unsigned char *ready;
} ss_share_scenario;

/* The scenario's stretch per pool (s1[pools]) at its own load, and the change of the step
 * time that it brings, *delta = max over GPUs of min(L s0, compute_med) * (s1 / s0 - 1) of
 * the GPU's pool (with measured waits: L + its wait in place of L s0). */
ss_status ss_share_solve(const ss_share *sh, const ss_share_scenario *sc, double *s1, double *delta);

#endif
