/* ss_model_toy.c - a toy third model, added through the model table alone (test tree):
 * one batch of look-ahead. GPU g fetches batch k while step k-1 computes, so
 * stall[k][g] = max(0, fetch_scale * fetch_time[k][g] - c[k-1]) with c the row's compute
 * time (max iteration_time - max stall_time), c[-1] = 0 at every epoch start; the
 * iteration time is max over g of stall + c[k]. It carries c[k-1] from row to row, so
 * it is stateful: the sweep must replay each of its scenarios whole on one rank. Its own
 * section of the scenario file, [toy] overlap = F (default 1), takes F * c[k-1] in place
 * of c[k-1]; its note says which overlap the sweep replays. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "ss_model.h"

typedef struct {
    double scale, prev_c, overlap;
} toy_state;

/* [toy]: the model's one option */
typedef struct {
    double overlap;
} toy_options;
static const ss_option toy_rows[] = {
    {"overlap", SS_OPT_SECONDS, offsetof(toy_options, overlap), "1", 0, 1e18,
     "the share of the previous step that a fetch overlaps (toy model)"},
};
static const ss_option_section toy_section = {"toy", toy_rows, 1, sizeof(toy_options)};

/* The sweep's note: the overlap its toy rows replay with. */
static ss_status toy_notes(const ss_notes_in *in, FILE *out)
{
    if (in->in_sweep) {
        const toy_options *o = ss_config_options(in->cfg, toy_section.name);
        fprintf(out, "note: the toy rows overlap each fetch with %g of the previous step\n", o->overlap);
    }
    return SS_OK;
}

static void toy_name(const ss_scenario *s, char *buf, size_t n)
{
    char fs[32];
    ss_format_number(s->fetch_scale, fs, sizeof fs);
    snprintf(buf, n, "toy_fs%s", fs);
}

static int toy_baseline(const ss_scenario *s)
{
    (void)s;
    return 0;
}

static ss_status toy_init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    (void)gpus;
    toy_state *t = malloc(sizeof *t);
    if (!t) return ss_fail(SS_ENOMEM, "out of memory");
    t->scale = s->fetch_scale;
    t->prev_c = 0.0;
    t->overlap = ((const toy_options *)ss_config_options(c, toy_section.name))->overlap;
    *state = t;
    return SS_OK;
}

static void toy_epoch_start(void *state, int first, long epoch)
{
    (void)first;
    (void)epoch;
    ((toy_state *)state)->prev_c = 0.0;
}

static void toy_replay(void *state, const ss_row *row, double *stall, ss_step *out)
{
    toy_state *t = state;
    double c = row->iter_max - row->stall_max;
    for (int g = 0; g < row->gpus; g++) {
        double v = t->scale * row->fetch_time[g] - t->overlap * t->prev_c;
        stall[g] = v > 0.0 ? v : 0.0;
    }
    double mx, mn;
    int arg;
    ss_step_spread(stall, row->gpus, &mx, &mn, &arg);
    out->iter_time = mx + c;
    out->stall = mx;
    out->delay = mx - mn;
    out->straggler = arg;
    out->start_diff = row->start_max - row->start_min;
    out->fetch_diff = t->scale * (row->fetch_max - row->fetch_min);
    t->prev_c = c;
}

const ss_model_ops ss_model_toy = {
    .name = "toy",
    .label = "toy",
    .stateful = 1,
    .axes = SS_AXIS_FETCH_SCALE,
    .options = &toy_section,
    .notes = toy_notes,
    .name_of = toy_name,
    .label_of = toy_name,
    .is_baseline = toy_baseline,
    .init = toy_init,
    .epoch_start = toy_epoch_start,
    .replay_row = toy_replay,
    .free = free,
};
