/* ss_sweep.h - the sweep engine: streams the trace in bounded slabs, spreads (scenario x
 * iteration block) work of the independent model and whole pipeline scenarios over the
 * ranks, and merges block partials on rank 0 in a fixed order (SPEC §10). */
#ifndef SS_SWEEP_H
#define SS_SWEEP_H

#include "ss_comm.h"
#include "ss_config.h"
#include "ss_results.h"
#include "ss_scenario.h"
#include "ss_summary.h"
#include "ss_trace.h"

/* Iterations per statistics block: partials are formed per block and merged in block
 * order, so results do not depend on how the work or the reads are cut. */
#define SS_BLOCK_ROWS 2048L

/* What one rank spent and did in a sweep (for --timing and the benchmark). */
typedef struct {
    double read_seconds;   /* reading and checking slabs */
    double replay_seconds; /* replay kernels and block statistics */
    double evaluations;    /* GPU-iteration-scenario evaluations */
    double rows_read;
} ss_sweep_timing;

/* Rows per slab read for the configuration, GPU count and number of scenarios: the
 * slab, and the per-iteration buffers when asked for, fit in [run] slab_mb. */
long ss_sweep_slab_rows(const ss_config *c, int gpus, int nsc);

/* Collective. Replays every scenario over the trace. On rank 0, *out receives the merged
 * summary (other ranks get an empty one). res (may be NULL) receives the per-iteration
 * series. progress: print a progress line on rank 0. Returns the status agreed by all
 * ranks (without printing it). timing (may be NULL) receives this rank's figures. */
ss_status ss_sweep_run(const ss_comm *comm, const ss_config *cfg, ss_trace_file *t,
                       const ss_scenario *sc, int nsc, ss_results *res, int progress,
                       ss_summary *out, ss_sweep_timing *timing);

#endif
