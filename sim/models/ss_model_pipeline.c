/* ss_model_pipeline.c - the pipeline recurrence of SPEC §8. */
#include "ss_model_pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_limits.h"
#include "ss_model.h"

ss_status ssp_init(ssp_state *s, const ssp_params *p, int gpus)
{
    memset(s, 0, sizeof *s);
    if (p->workers < 1 || p->prefetch < 1)
        return ss_fail(SS_EINTERNAL, "pipeline model needs workers >= 1 and prefetch >= 1");
    s->p = *p;
    s->gpus = gpus;
    s->ring = (long)p->workers * p->prefetch;
    s->done = malloc((size_t)s->ring * (size_t)gpus * sizeof *s->done);
    s->T = malloc((size_t)(s->ring + 1) * sizeof *s->T);
    s->r = malloc((size_t)gpus * sizeof *s->r);
    s->f = malloc((size_t)gpus * sizeof *s->f);
    if (!s->done || !s->T || !s->r || !s->f) {
        ssp_free(s);
        return ss_fail(SS_ENOMEM, "out of memory for the pipeline state (%d workers x %d prefetch x %d GPUs)",
                       p->workers, p->prefetch, gpus);
    }
    ssp_epoch_start(s);
    return SS_OK;
}

void ssp_free(ssp_state *s)
{
    free(s->done);
    free(s->T);
    free(s->r);
    free(s->f);
    memset(s, 0, sizeof *s);
}

void ssp_epoch_start(ssp_state *s) { s->k = 0; }

static inline double *done_row(ssp_state *s, long j) { return s->done + (j % s->ring) * s->gpus; }
static inline double *T_at(ssp_state *s, long j) { return &s->T[(j + 1) % (s->ring + 1)]; }

double ssp_advance(ssp_state *s, const double *f, double c, const double *fs, double *start,
                   double *stall, double *t_prev, ss_step *out)
{
    const int G = s->gpus, W = s->p.workers;
    const long k = s->k, WP = s->ring;
    double *r = s->r;

    /* when is a worker free for batch k */
    if (k < W) {
        memcpy(r, fs, (size_t)G * sizeof *r);
    } else {
        const double *prev = done_row(s, k - W);
        for (int g = 0; g < G; g++) r[g] = prev[g] + s->p.worker_gap;
    }
    if (s->p.start_align != SS_ALIGN_NONE) {
        double v = ss_align_start_of(r, G, s->p.start_align);
        for (int g = 0; g < G; g++) r[g] = v;
    }
    /* the prefetch window: batch k is handed out when training takes batch k - W*P */
    if (k >= WP) {
        const double *old = done_row(s, k - WP);
        double t_old = *T_at(s, k - WP - 1);
        for (int g = 0; g < G; g++) {
            double h = (t_old > old[g] ? t_old : old[g]) + s->p.refill_gap;
            r[g] = r[g] > h ? r[g] : h;
        }
    }
    /* r now holds start[k]; done[k] overwrites the slot of batch k - W*P, read above */
    double *done = done_row(s, k);
    double dmax = r[0] + f[0];
    for (int g = 0; g < G; g++) {
        done[g] = r[g] + f[g];
        dmax = done[g] > dmax ? done[g] : dmax;
    }
    if (k == 0) {
        double t0 = r[0];
        for (int g = 1; g < G; g++) t0 = r[g] < t0 ? r[g] : t0;
        *T_at(s, -1) = t0;
    }
    double tp = *T_at(s, k - 1);
    double T = (tp > dmax ? tp : dmax) + s->p.step_gap + c;
    for (int g = 0; g < G; g++) {
        double w = done[g] - tp;
        stall[g] = w > 0.0 ? w : 0.0;
    }
    if (start) memcpy(start, r, (size_t)G * sizeof *start);
    *T_at(s, k) = T;
    double smax, smin;
    int arg;
    ss_step_spread(stall, G, &smax, &smin, &arg);
    out->iter_time = T - tp;
    out->stall = smax;
    out->delay = smax - smin;
    out->straggler = arg;
    double rmin = r[0], rmax = r[0], fmin = f[0], fmax = f[0];
    for (int g = 1; g < G; g++) {
        rmin = r[g] < rmin ? r[g] : rmin;
        rmax = r[g] > rmax ? r[g] : rmax;
        fmin = f[g] < fmin ? f[g] : fmin;
        fmax = f[g] > fmax ? f[g] : fmax;
    }
    out->start_diff = rmax - rmin;
    out->fetch_diff = fmax - fmin;
    *t_prev = tp;
    s->k = k + 1;
    return T;
}

void ssp_replay_row(ssp_state *s, const ss_row *row, double *stall, ss_step *out)
{
    const int G = s->gpus;
    double *f = s->f;
    if (s->p.fetch_align == SS_ALIGN_NONE) {
        for (int g = 0; g < G; g++) f[g] = s->p.fetch_scale * row->fetch_time[g];
    } else {
        double v = s->p.fetch_scale * ss_row_fetch_aligned(row, s->p.fetch_align);
        for (int g = 0; g < G; g++) f[g] = v;
    }
    double c = s->p.compute_scale * (row->iter_max - row->stall_max);
    double tp;
    ssp_advance(s, f, c, row->fetch_start, NULL, stall, &tp, out);
}

/* ---- the model table's entry ---- */

static void pipe_name(const ss_scenario *s, char *buf, size_t n)
{
    char w[48], fs[32], cs[32], heal[32] = "";
    ss_autoval_format(&s->workers, w, sizeof w);
    ss_format_number(s->fetch_scale, fs, sizeof fs);
    ss_format_number(s->compute_scale, cs, sizeof cs);
    if (s->heal_gpu >= 0) snprintf(heal, sizeof heal, "_heal-%d", s->heal_gpu);
    snprintf(buf, n, "pipeline_fetch-%s_start-%s_w-%s_p%ld_fs%s_cs%s%s", ss_align_name(s->fetch_align),
             ss_align_name(s->start_align), w, s->prefetch, fs, cs, heal);
}

static void pipe_label(const ss_scenario *s, char *buf, size_t n)
{
    char heal[32] = "";
    if (s->heal_gpu >= 0) snprintf(heal, sizeof heal, " heal=%d", s->heal_gpu);
    snprintf(buf, n, "pipe f=%s s=%s W=%d P=%d fs=%g cs=%g%s", ss_align_name(s->fetch_align),
             ss_align_name(s->start_align), s->pipe.workers, s->pipe.prefetch, s->fetch_scale, s->compute_scale, heal);
}

static int pipe_baseline(const ss_scenario *s)
{
    return s->fetch_align == SS_ALIGN_NONE && s->start_align == SS_ALIGN_NONE && s->fetch_scale == 1.0 &&
           s->compute_scale == 1.0 && s->workers.is_auto && s->workers.value == 1.0 && s->heal_gpu < 0;
}

static int pipe_needs_calibration(const ss_scenario *s, const ss_config *c)
{
    return s->workers.is_auto || c->worker_gap.is_auto;
}

/* workers = max(1, round(W_cal * factor)) for auto; worker_gap likewise from the calibration. */
static ss_status pipe_resolve(ss_scenario *s, const ss_config *c, const ss_calib *cal)
{
    ssp_params *p = &s->pipe;
    double w = s->workers.is_auto ? floor((cal ? cal->workers : 1) * s->workers.value + 0.5) : s->workers.value;
    if (w > SS_MAX_WORKERS) {
        char spec[48];
        ss_autoval_format(&s->workers, spec, sizeof spec);
        return ss_fail(SS_ECONFIG, "%s: scenarios.workers = %s gives %.0f workers per GPU (calibrated: %d); at most %d",
                       c->file, spec, w, cal ? cal->workers : 0, SS_MAX_WORKERS);
    }
    p->workers = w < 1 ? 1 : (int)w;
    p->prefetch = (int)s->prefetch;
    p->worker_gap = c->worker_gap.is_auto ? (cal ? cal->worker_gap : 0.0) * c->worker_gap.value : c->worker_gap.value;
    p->refill_gap = c->refill_gap;
    p->step_gap = c->step_gap;
    p->fetch_scale = s->fetch_scale;
    p->compute_scale = s->compute_scale;
    p->fetch_align = s->fetch_align;
    p->start_align = s->start_align;
    return SS_OK;
}

typedef struct {
    ssp_state ps;
    int heal;          /* GPU healed, or -1 */
    double *fetch_buf; /* [gpus] the healed row's fetch times */
} pipe_state;

static ss_status pipe_init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    (void)c;
    pipe_state *st = calloc(1, sizeof *st);
    if (st && s->heal_gpu >= 0) st->fetch_buf = malloc((size_t)gpus * sizeof *st->fetch_buf);
    if (!st || (s->heal_gpu >= 0 && !st->fetch_buf)) {
        free(st);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    st->heal = s->heal_gpu;
    ss_status rc = ssp_init(&st->ps, &s->pipe, gpus);
    if (rc != SS_OK) {
        free(st->fetch_buf);
        free(st);
        return rc;
    }
    *state = st;
    return SS_OK;
}

static void pipe_epoch_start(void *state) { ssp_epoch_start(&((pipe_state *)state)->ps); }

static void pipe_replay(void *state, const ss_row *row, double *stall, ss_step *out)
{
    pipe_state *st = state;
    if (st->heal < 0) {
        ssp_replay_row(&st->ps, row, stall, out);
        return;
    }
    ss_row healed;
    ss_row_heal(row, st->heal, &healed, st->fetch_buf);
    ssp_replay_row(&st->ps, &healed, stall, out);
}

static void pipe_free(void *state)
{
    pipe_state *st = state;
    if (!st) return;
    ssp_free(&st->ps);
    free(st->fetch_buf);
    free(st);
}

const ss_model_ops ss_model_pipeline = {
    .name = "pipeline",
    .label = "pipe",
    .stateful = 1,
    .axes = SS_AXIS_HEAL | SS_AXIS_WORKERS | SS_AXIS_PREFETCH | SS_AXIS_FETCH_SCALE | SS_AXIS_COMPUTE_SCALE | SS_AXIS_FETCH_ALIGN |
            SS_AXIS_START_ALIGN,
    .reports_fidelity = 1,
    .name_of = pipe_name,
    .label_of = pipe_label,
    .is_baseline = pipe_baseline,
    .needs_calibration = pipe_needs_calibration,
    .resolve = pipe_resolve,
    .init = pipe_init,
    .epoch_start = pipe_epoch_start,
    .replay_row = pipe_replay,
    .free = pipe_free,
};
