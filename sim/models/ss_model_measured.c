/* ss_model_measured.c - the measured run as a model: row 0 of every sweep, the trace's
 * own iterations given back unchanged (what every other row is compared with). */
#include <stdio.h>
#include <stdlib.h>

#include "ss_model.h"
#include "ss_model_independent.h"

static void name_of(const ss_scenario *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "measured");
}

static int is_baseline(const ss_scenario *s)
{
    (void)s;
    return 0;
}

/* The state: whether the per-GPU stalls are written (per-iteration output). */
static ss_status init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    (void)gpus;
    int *need_stalls = malloc(sizeof *need_stalls);
    if (!need_stalls) return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    *need_stalls = c->per_iteration;
    *state = need_stalls;
    return SS_OK;
}

/* The independent kernel with both aligns none gives the measured row back exactly. */
static void replay_row(void *state, const ss_row *row, double *stall, ss_step *out)
{
    const int *need_stalls = state;
    const ssi_params p = {0.0, 0.0};
    ssi_replay_row(row, SS_ALIGN_NONE, SS_ALIGN_NONE, &p, *need_stalls ? stall : NULL, out);
}

static void release(void *state) { free(state); }

const ss_model_ops ss_model_measured = {
    .name = "measured",
    .label = "measured",
    .stateful = 0,
    .axes = 0,
    .measured_run = 1,
    .waits_only = 1,
    .name_of = name_of,
    .label_of = name_of,
    .is_baseline = is_baseline,
    .init = init,
    .replay_row = replay_row,
    .free = release,
};
