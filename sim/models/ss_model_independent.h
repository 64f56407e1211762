/* ss_model_independent.h - the reference notebook's "no dependency" replay (MODELS-independent.md):
 * every iteration replayed on its own under a fetch and a start alignment. */
#ifndef SS_MODEL_INDEPENDENT_H
#define SS_MODEL_INDEPENDENT_H

#include "ss_align.h"
#include "ss_row.h"
#include "ss_step.h"

typedef struct {
    double stall_floor;       /* stall given to a batch that became ready in time */
    double stall_sensitivity; /* stall above which a later batch adds to the stall */
} ssi_params;

/* Replays one prepared row. stall_out[gpus] receives the per-GPU stalls, or is NULL when
 * they are not wanted (the replay then stores nothing per GPU). With both aligns none the
 * measured row is given back exactly. */
void ssi_replay_row(const ss_row *row, ss_align fetch_align, ss_align start_align,
                    const ssi_params *p, double *stall_out, ss_step *out);
/* Replays GPU g healed (its fetch time the median of the others') with both aligns none,
 * in O(1) besides the copy of the stalls into stall_out (which may be NULL): the other
 * GPUs keep their measured stalls. Needs ss_row_prepare_heal. The same numbers as
 * ssi_replay_row_always on the healed row. */
void ssi_replay_healed(const ss_row *row, int g, const ssi_params *p, double *stall_out, ss_step *out);

/* ssi_replay_row that replays a row with both aligns none too (a healed row) instead of
 * giving the measured row back: the replay is then the measured row except where the
 * row's fetch times differ from the measured ones. */
void ssi_replay_row_always(const ss_row *row, ss_align fetch_align, ss_align start_align,
                           const ssi_params *p, double *stall_out, ss_step *out);

#endif
