/* ss_model_waits.c - the waits model: what a heal gives from the waits alone, for traces
 * without fetch times (MODELS-waits.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_model.h"
#include "ss_model_independent.h"

typedef struct {
    ss_healset heals;   /* the GPUs healed (n = 0: none) */
    int need_stalls;    /* per-iteration output: the per-GPU stalls are written */
    double *buf;        /* [2][gpus] the healed waits, and scratch */
} waits_state;

static void waits_name(const ss_scenario *s, char *buf, size_t n)
{
    char set[SS_HEAL_TEXT_MAX];
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(buf, n, "waits_heal-%s", set);
    else snprintf(buf, n, "waits");
}

static void waits_label(const ss_scenario *s, char *buf, size_t n)
{
    char set[SS_HEAL_TEXT_MAX];
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(buf, n, "waits heal=%s", set);
    else snprintf(buf, n, "waits");
}

static int waits_baseline(const ss_scenario *s) { return s->heal.n == 0; }

static ss_status waits_init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    waits_state *st = calloc(1, sizeof *st);
    if (st) st->buf = malloc(2 * (size_t)(gpus > 0 ? gpus : 1) * sizeof *st->buf);
    if (!st || !st->buf) {
        free(st);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    st->heals = s->heal;
    st->need_stalls = c->per_iteration;
    *state = st;
    return SS_OK;
}

/* Each healed GPU's wait becomes the median wait of the GPUs not healed, in the same row.
 * The step ends when the last GPU has its batch: the row's compute (iter_max - stall_max)
 * plus the largest wait left. */
static void waits_replay(void *state, const ss_row *row, double *stall, ss_step *out)
{
    const waits_state *st = state;
    if (st->heals.n == 0) { /* the measured row itself */
        const ssi_params p = {0.0, 0.0};
        ssi_replay_row(row, SS_ALIGN_NONE, SS_ALIGN_NONE, &p, st->need_stalls ? stall : NULL, out);
        return;
    }
    const int G = row->gpus;
    double *w = st->buf;
    ss_copy_healed(w, row->stall_time, G, &st->heals, st->buf + G);
    double mx, mn;
    int arg;
    ss_step_spread(w, G, &mx, &mn, &arg);
    out->iter_time = row->compute + mx;
    out->stall = mx;
    out->delay = mx - mn;
    out->start_diff = row->start_max - row->start_min;
    out->fetch_diff = row->fetch_max - row->fetch_min;
    out->straggler = arg;
    if (st->need_stalls) memcpy(stall, w, (size_t)G * sizeof *stall);
}

static void waits_free(void *state)
{
    waits_state *st = state;
    if (st) free(st->buf);
    free(st);
}

const ss_model_ops ss_model_waits = {
    .name = "waits",
    .label = "waits",
    .legend = "the waits model (the trace's waits alone)",
    .heal_legend = "heal=G: GPU G's wait in each row becomes the other GPUs' median",
    .stateful = 0,
    .axes = SS_AXIS_HEAL,
    .waits_only = 1,
    .name_of = waits_name,
    .label_of = waits_label,
    .is_baseline = waits_baseline,
    .init = waits_init,
    .replay_row = waits_replay,
    .free = waits_free,
};
