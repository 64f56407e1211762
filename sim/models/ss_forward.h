/* ss_forward.h - a data-parallel job's loaders run forward in time, batch by batch (the
 * pipeline model's recurrence, MODELS-pipeline.md), for `stallsim gen` to make traces. */
#ifndef SS_FORWARD_H
#define SS_FORWARD_H

#include "ss_status.h"

/* Every GPU's loader: W workers (0: synchronous loading), a window of W * P batches, a
 * worker's pause between two batches, the delay of refilling a prefetch slot and the
 * delivery cost of a batch, in seconds. workers_gpu[gpus] (not owned; NULL: workers for
 * every GPU) gives GPUs their own W. */
typedef struct {
    int workers, prefetch;
    double worker_gap, refill_gap, delivery;
    const int *workers_gpu;
} ss_forward_params;

typedef struct ss_forward ss_forward;

ss_status ss_forward_new(const ss_forward_params *p, int gpus, ss_forward **out);
/* A new epoch: the loaders restart with no batch in flight. */
void ss_forward_epoch_start(ss_forward *f);
/* The next batch: its fetch times fetch[gpus], the step's compute time, and the starts
 * the epoch's first batches take (first_starts[gpus]). Fills start[gpus] (when each
 * fetch began) and stall[gpus]; *t_prev receives the previous step's end. Returns the
 * step's end. */
double ss_forward_step(ss_forward *f, const double *fetch, double compute, const double *first_starts, double *start,
                       double *stall, double *t_prev);
void ss_forward_free(ss_forward *f);

#endif
