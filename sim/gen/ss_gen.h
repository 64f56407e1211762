/* ss_gen.h - synthetic traces (sim/cli/COMMANDS.md, gen): fetch and compute times drawn with GSL, the
 * pipeline recurrence (MODELS-pipeline.md) run forward, written chunk by chunk. */
#ifndef SS_GEN_H
#define SS_GEN_H

#include "ss_status.h"

/* --slow-gpu and --workers-gpu options one trace may have */
#define SS_GEN_MAX_PER_GPU 16

typedef struct {
    int gpus;
    long iterations; /* per epoch */
    int epochs;
    int workers, prefetch;
    double fetch_mean, fetch_cv, compute_mean, compute_cv;
    double straggler_prob, straggler_scale;
    double worker_gap, refill_gap;
    double delivery;  /* seconds from a batch being ready to the loop having it (MODELS-pipeline.md) */
    /* GPUs with their own settings: GPU slow_gpu[i]'s fetches take slow_factor[i] times
     * longer; GPU wgpu_gpu[i] has wgpu_workers[i] workers instead of `workers` */
    int n_slow, slow_gpu[SS_GEN_MAX_PER_GPU];
    double slow_factor[SS_GEN_MAX_PER_GPU];
    int n_wgpu, wgpu_gpu[SS_GEN_MAX_PER_GPU], wgpu_workers[SS_GEN_MAX_PER_GPU];
    int no_loader_attrs; /* 1: do not record loader_workers and prefetch_factor (tests) */
    unsigned long seed;
    long chunk_rows; /* rows generated and written at a time (0: default) */
} ss_gen_params;

void ss_gen_defaults(ss_gen_params *p);
/* Validates p; SS_EUSAGE naming the option that is out of range. */
ss_status ss_gen_check(const ss_gen_params *p);
/* Writes the trace to path (whole or not at all); progress on stderr when a terminal. */
ss_status ss_gen_write(const ss_gen_params *p, const char *path, int progress);

#endif
