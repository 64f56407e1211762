/* ss_sweep.h - the sweep engine: streams the trace in bounded slabs, spreads (scenario x
 * iteration block) work of the independent model and whole pipeline scenarios over the
 * ranks, and merges block partials on rank 0 in a fixed order (README, "Running on a cluster"). */
#ifndef SS_SWEEP_H
#define SS_SWEEP_H

#include "ss_comm.h"
#include "ss_config.h"
#include "ss_scenario.h"
#include "ss_summary.h"
#include "ss_trace.h"

/* Iterations per statistics block: partials are formed per block and merged in block
 * order, so results do not depend on how the work or the reads are cut. */
#define SS_BLOCK_ROWS 2048L

/* What one rank spent and did in a sweep (for --timing and the benchmark). */
typedef struct {
    double read_seconds;   /* waiting for slabs to be read and checked */
    double read_ahead_seconds; /* reading and checking slabs in the background, while the
                                * previous slab was replayed (scripts/BENCHMARKS.md) */
    double replay_seconds; /* replay kernels and block statistics */
    double evaluations;    /* GPU-iteration-scenario evaluations */
    double rows_read;
    int stateful_split; /* 0: no stateful scenarios or one rank; 1: whole scenarios over the
                         * ranks; 2: every scenario over the ranks by iteration blocks */
    long warmup_rows;   /* with 2: rows this rank replays before the blocks it records */
    int replayers;      /* with 1: the ranks that took whole scenarios (the first ones) */
    double node_wait_seconds; /* of read_seconds: waiting for the other ranks of the node
                               * to read their share of a shared slab (and to finish
                               * replaying the slab before it) */
} ss_sweep_timing;

/* Where the per-iteration series of the scenarios go (results.h5, written by io/output):
 * rows [row0, row0+n) of scenario j; stall_time is [n][gpus]. Called on the rank that
 * replayed them (independent I/O). */
typedef struct {
    void *ctx;
    ss_status (*write_rows)(void *ctx, int j, long row0, long n, const int32_t *epoch, const int64_t *index,
                            const double *iter_time, const double *stall, const double *delay,
                            const double *fetch_diff, const double *start_diff, const double *stall_time);
} ss_series_sink;

/* Rows per slab read for the configuration, GPU count and number of scenarios: the
 * slab, and the per-iteration buffers when asked for, fit in [run] slab_mb. */
long ss_sweep_slab_rows(const ss_config *c, int gpus, int nsc);

/* Collective. Replays every scenario over the trace. On rank 0, *out receives the merged
 * summary (other ranks get an empty one). sink (may be NULL) receives the per-iteration
 * series. progress: a progress line on rank 0 (1: when stderr is a terminal; 2: also when not,
 * a line per tenth of the sweep; 0: none). Returns the status agreed by all
 * ranks (without printing it). timing (may be NULL) receives this rank's figures. */
ss_status ss_sweep_run(const ss_comm *comm, const ss_config *cfg, ss_trace_file *t,
                       const ss_scenario *sc, int nsc, const ss_series_sink *sink, int progress,
                       ss_summary *out, ss_sweep_timing *timing);

#endif
