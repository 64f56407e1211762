/* ss_model_pipeline.h - the dependency-aware replay (SPEC §8): each GPU's loader as a pool
 * of W workers with a prefetch window of W*P batches, synchronised training steps, state
 * carried from batch to batch. The same recurrence drives `stallsim gen` forward. */
#ifndef SS_MODEL_PIPELINE_H
#define SS_MODEL_PIPELINE_H

#include "ss_align.h"
#include "ss_row.h"
#include "ss_status.h"
#include "ss_step.h"

typedef struct {
    int workers;   /* W per GPU */
    int prefetch;  /* P */
    double worker_gap, refill_gap, step_gap;
    double fetch_scale, compute_scale;
    ss_align fetch_align, start_align;
} ssp_params;

typedef struct {
    ssp_params p;
    int gpus;
    long k;          /* position within the current epoch */
    long ring;       /* W * P */
    double *done;    /* [ring][gpus]: done of batch j at slot j % ring */
    double *T;       /* [ring + 1]: T[j] at slot (j + 1) % (ring + 1), T[-1] at slot 0 */
    double *r, *f;   /* [gpus] scratch */
} ssp_state;

ss_status ssp_init(ssp_state *s, const ssp_params *p, int gpus);
void ssp_free(ssp_state *s);
/* Starts a new epoch: the loader restarts with no batch in flight. */
void ssp_epoch_start(ssp_state *s);

/* One batch k given its fetch times f[g] (already aligned and scaled), its compute time c,
 * and the measured starts fs[g] used for the first W batches. Fills start[g] and done[g]
 * (may be NULL), stall[g] (required), the step result, and returns T[k]. *t_prev receives
 * T[k-1]. */
double ssp_advance(ssp_state *s, const double *f, double c, const double *fs, double *start,
                   double *stall, double *t_prev, ss_step *out);

/* Replays one measured row (SPEC §8: aligned and scaled fetch, compute from the row). */
void ssp_replay_row(ssp_state *s, const ss_row *row, double *stall, ss_step *out);

#endif
