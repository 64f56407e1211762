/* ss_model_pipeline.c - the pipeline recurrence of MODELS-pipeline.md (exact definition in
 * sim/models/MODELS-pipeline.md). */
#include "ss_model_pipeline.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_isa.h"
#include "ss_limits.h"
#include "ss_model.h"
#include "ss_storeshare.h"

static double factor_of(double f) { return f != 0.0 ? f : 1.0; }

/* 1 when GPU g loads synchronously (W = 0) in the scenario but had workers in the trace:
 * it then has no delivery cost (ssp_params.trace_workers_gpu). */
static int made_synchronous(const ssp_params *p, int workers, int g)
{
    return workers == 0 && p->trace_workers_gpu && p->trace_workers_gpu[g] >= 1;
}

ssp_loader ssp_loader_of(const ssp_params *p, int g)
{
    ssp_loader l = {p->workers, p->prefetch, p->worker_gap, p->refill_gap, p->delivery};
    if (p->workers_gpu) {
        double f = factor_of(p->workers_factor);
        double w = floor(p->workers_gpu[g] * f + 0.5);
        if (p->workers_gpu[g] >= 1 && w < 1) w = 1;
        l.workers = w < 0 ? 0 : w > SS_MAX_WORKERS ? SS_MAX_WORKERS : (int)w;
    }
    if (p->prefetch_gpu) l.prefetch = p->prefetch_gpu[g];
    if (p->worker_gap_gpu) l.worker_gap = p->worker_gap_gpu[g] * factor_of(p->worker_gap_factor);
    if (p->refill_gap_gpu) l.refill_gap = p->refill_gap_gpu[g] * factor_of(p->refill_gap_factor);
    if (p->delivery_gpu) l.delivery = p->delivery_gpu[g] * factor_of(p->delivery_factor);
    if (p->delivery_gpu && p->cpu_delivery_gpu) l.delivery *= p->cpu_delivery_gpu[g];
    if (made_synchronous(p, l.workers, g)) l.delivery = 0.0;
    return l;
}

/* The median of v[0..n) (GSL's: the mean of the two middle values for an even n), sorting
 * a copy in scratch[n]. */
static double median_of_copy(const double *v, int n, double *scratch)
{
    memcpy(scratch, v, (size_t)n * sizeof *scratch);
    gsl_sort(scratch, 1, (size_t)n);
    return (scratch[(n - 1) / 2] + scratch[n / 2]) / 2;
}

ss_status ssp_init(ssp_state *s, const ssp_params *p, int gpus)
{
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->gpus = gpus;
    s->ld = malloc((size_t)gpus * sizeof *s->ld);
    s->wp = malloc((size_t)gpus * sizeof *s->wp);
    if (!s->ld || !s->wp) {
        ssp_free(s);
        return ss_fail(SS_ENOMEM, "out of memory for the pipeline state (%d GPUs)", gpus);
    }
    s->ring = 1;
    s->uniform = 1;
    for (int g = 0; g < gpus; g++) {
        ssp_loader l = ssp_loader_of(p, g);
        if (l.workers < 0 || l.prefetch < 1 || !(l.worker_gap >= 0) || !(l.refill_gap >= 0) || !(l.delivery >= 0)) {
            ssp_free(s);
            return ss_fail(SS_EINTERNAL,
                           "pipeline model: GPU %d needs workers >= 0, prefetch >= 1 and gaps >= 0 (got W=%d P=%d)", g,
                           l.workers, l.prefetch);
        }
        s->ld[g] = l;
        s->wp[g] = (long)l.workers * l.prefetch;
        if (s->wp[g] > s->ring) s->ring = s->wp[g];
        if (g > 0 && memcmp(&l, &s->ld[0], sizeof l) != 0) s->uniform = 0;
    }
    s->gap_a = malloc((size_t)gpus * sizeof *s->gap_a);
    s->refill_a = malloc((size_t)gpus * sizeof *s->refill_a);
    s->deliv_a = malloc((size_t)gpus * sizeof *s->deliv_a);
    s->dfac_a = malloc((size_t)gpus * sizeof *s->dfac_a);
    if (!s->gap_a || !s->refill_a || !s->deliv_a || !s->dfac_a) {
        ssp_free(s);
        return ss_fail(SS_ENOMEM, "out of memory for the pipeline state (%d GPUs)", gpus);
    }
    s->same_shape = 1;
    for (int g = 0; g < gpus; g++) {
        s->gap_a[g] = s->ld[g].worker_gap;
        s->refill_a[g] = s->ld[g].refill_gap;
        s->deliv_a[g] = s->ld[g].delivery;
        s->dfac_a[g] = made_synchronous(p, s->ld[g].workers, g) ? 0.0
                       : p->delivery_measured * (p->cpu_delivery_gpu ? p->cpu_delivery_gpu[g] : 1.0);
        if (s->ld[g].workers != s->ld[0].workers || s->ld[g].prefetch != s->ld[0].prefetch) s->same_shape = 0;
    }
    s->done = malloc((size_t)s->ring * (size_t)gpus * sizeof *s->done);
    s->T = malloc((size_t)(s->ring + 1) * sizeof *s->T);
    s->r = malloc((size_t)gpus * sizeof *s->r);
    s->f = malloc((size_t)gpus * sizeof *s->f);
    s->h = malloc((size_t)gpus * sizeof *s->h);
    int lags_ok = 1;
    if (p->delivery_measured) {
        s->dm = malloc((size_t)gpus * sizeof *s->dm);
        lags_ok = s->dm != NULL;
    }
    if (p->ask_lags) {
        s->A = malloc((size_t)(s->ring + 1) * (size_t)gpus * sizeof *s->A);
        s->lag = malloc((size_t)gpus * sizeof *s->lag);
        s->lag_next = malloc((size_t)gpus * sizeof *s->lag_next);
        lags_ok = lags_ok && s->A && s->lag && s->lag_next;
        if (p->sync_every > 1) {
            s->nxt = malloc((size_t)gpus * sizeof *s->nxt);
            lags_ok = lags_ok && s->nxt;
        }
    }
    int cpu_ok = 1;
    if (p->cpu_ratio_gpu || (p->fetch_scale != 1.0 && (p->fetch_cpu_gpu || p->fetch_cpu > 0))) {
        s->cpu = malloc((size_t)gpus * sizeof *s->cpu);
        s->fx = malloc((size_t)gpus * sizeof *s->fx);
        if (p->cpu_ratio_gpu) s->ratio = malloc((size_t)gpus * sizeof *s->ratio);
        cpu_ok = s->cpu && s->fx && (!p->cpu_ratio_gpu || s->ratio);
        if (cpu_ok) {
            for (int g = 0; g < gpus; g++)
                s->cpu[g] = p->cpu_ratio_gpu  ? p->cpu_wall_gpu[g]
                            : p->fetch_cpu_gpu ? p->fetch_cpu_gpu[g] * factor_of(p->fetch_cpu_factor)
                                               : p->fetch_cpu;
            s->cpu_median = median_of_copy(s->cpu, gpus, s->fx);
            s->ratio_median = 1.0;
            if (s->ratio) {
                memcpy(s->ratio, p->cpu_ratio_gpu, (size_t)gpus * sizeof *s->ratio);
                s->ratio_median = median_of_copy(s->ratio, gpus, s->fx);
            }
        }
    }
    if (!s->done || !s->T || !s->r || !s->f || !s->h || !lags_ok || !cpu_ok) {
        ssp_free(s);
        return ss_fail(SS_ENOMEM, "out of memory for the pipeline state (window of %ld batches x %d GPUs)", s->ring,
                       gpus);
    }
    ssp_epoch_start(s);
    return SS_OK;
}

void ssp_free(ssp_state *s)
{
    free(s->ld);
    free(s->wp);
    free(s->done);
    free(s->T);
    free(s->r);
    free(s->f);
    free(s->h);
    free(s->A);
    free(s->lag);
    free(s->lag_next);
    free(s->nxt);
    free(s->dm);
    free(s->cpu);
    free(s->fx);
    free(s->ratio);
    free(s->gap_a);
    free(s->refill_a);
    free(s->deliv_a);
    free(s->dfac_a);
    memset(s, 0, sizeof *s);
}

void ssp_epoch_start(ssp_state *s) { s->k = 0; }

static inline double *done_row(ssp_state *s, long j) { return s->done + (j % s->ring) * s->gpus; }
static inline double *T_at(ssp_state *s, long j) { return &s->T[(j + 1) % (s->ring + 1)]; }
static inline double *A_row(ssp_state *s, long j) { return s->A + (j % (s->ring + 1)) * s->gpus; }

/* r[g] = when GPU g's batch k can start as far as its workers go (before the window):
 * the measured start for the first max(W, 1) batches of the epoch, else done[k-W] +
 * worker_gap (W >= 1) or T[k-1] + worker_gap (W = 0: the loop fetches it itself after
 * step k-1). */
static void worker_free(ssp_state *s, const double *fs, const double *lag, double *r)
{
    const int G = s->gpus;
    const long k = s->k;
    if (lag) { /* GPU g's loop asks for batch k at T[k-1] - lag[g] */
        for (int g = 0; g < G; g++) {
            const ssp_loader *l = &s->ld[g];
            if (k < l->workers || k == 0) r[g] = fs[g];
            else if (l->workers == 0) r[g] = *T_at(s, k - 1) - lag[g] + l->worker_gap;
            else r[g] = done_row(s, k - l->workers)[g] + l->worker_gap;
        }
        return;
    }
    if (s->uniform) {
        const ssp_loader *l = &s->ld[0];
        if (k < l->workers || k == 0) {
            memcpy(r, fs, (size_t)G * sizeof *r);
        } else if (l->workers == 0) {
            double t = *T_at(s, k - 1) + l->worker_gap;
            for (int g = 0; g < G; g++) r[g] = t;
        } else {
            const double *prev = done_row(s, k - l->workers);
            for (int g = 0; g < G; g++) r[g] = prev[g] + l->worker_gap;
        }
        return;
    }
    for (int g = 0; g < G; g++) {
        const ssp_loader *l = &s->ld[g];
        if (k < l->workers || k == 0) r[g] = fs[g];
        else if (l->workers == 0) r[g] = *T_at(s, k - 1) + l->worker_gap;
        else r[g] = done_row(s, k - l->workers)[g] + l->worker_gap;
    }
}

/* The prefetch window: GPU g's batch k (W >= 1, k >= W*P) is handed to its worker when
 * the loop takes batch k - W*P: h = max(T[k-W*P-1], done[k-W*P]) + refill_gap. */
static void window(ssp_state *s, int lagged, double *r)
{
    const int G = s->gpus;
    const long k = s->k;
    if (lagged) { /* batch k - W*P was taken when GPU g's own loop asked for it */
        for (int g = 0; g < G; g++) {
            const long WP = s->wp[g];
            if (WP == 0 || k < WP) continue;
            double old = done_row(s, k - WP)[g], a_old = A_row(s, k - WP)[g];
            double h = (a_old > old ? a_old : old) + s->ld[g].refill_gap;
            r[g] = r[g] > h ? r[g] : h;
        }
        return;
    }
    if (s->uniform) {
        const long WP = s->wp[0];
        if (WP == 0 || k < WP) return;
        const double *old = done_row(s, k - WP);
        double t_old = *T_at(s, k - WP - 1), rg = s->ld[0].refill_gap;
        for (int g = 0; g < G; g++) {
            double h = (t_old > old[g] ? t_old : old[g]) + rg;
            r[g] = r[g] > h ? r[g] : h;
        }
        return;
    }
    for (int g = 0; g < G; g++) {
        const long WP = s->wp[g];
        if (WP == 0 || k < WP) continue;
        double old = done_row(s, k - WP)[g], t_old = *T_at(s, k - WP - 1);
        double h = (t_old > old ? t_old : old) + s->ld[g].refill_gap;
        r[g] = r[g] > h ? r[g] : h;
    }
}

/* ---- the fused step ----
 * One pass over the GPUs for batch k (k > 0, no start_align, no ask lags) doing what
 * worker_free, window, the dones and the delivery do in turn, with the same operations in
 * the same order per GPU, so the results are bit-identical to them; the maxima and minima
 * over GPUs are exact in any order. Fetch times: scale * ft[g], or f1 for every GPU when
 * ft is NULL. Delivery: measured from the row m (m != NULL: dfac[g] * max(0, stall -
 * max(0, done - ask))) or each GPU's constant. Returns the largest got; ex[0..5]: the
 * smallest stall, the largest stall, start min, start max, fetch min, fetch max. */
typedef struct {
    const double *ft, *fs;   /* the row's fetch times (or NULL: f1) and measured starts */
    double scale, f1;
    const ss_row *m;         /* the row whose deliveries are measured, or NULL */
    /* the smallest and largest of ft (known from the row preparation), or NaN: found here;
     * scale * min(ft) is min(scale * ft) for scale >= 0 (rounding is monotone) */
    double ftmin, ftmax;
} fused_in;

/* One GPU's batch in the fused pass: from the time its worker is free (r) to its start
 * (after the window, when win), done, stall (*sv) and the time the loop has it (*a). */
static inline __attribute__((always_inline)) double gpu_batch(double r, int win, double t_old, double old, double rg,
                                                               double f, double tp, double d, double *dn, double *sv,
                                                               double *a)
{
    if (win) {
        double h = (t_old > old ? t_old : old) + rg;
        r = r > h ? r : h;
    }
    *dn = r + f;
    double w = *dn - tp;
    *sv = (w > 0.0 ? w : 0.0) + d;
    *a = (*dn > tp ? *dn : tp) + d;
    return r;
}

/* The arrays of one fused pass over GPUs of the same W and P (prev: the dones of batch
 * k - W, or the measured starts for the epoch's first batches; old: of batch k - W*P). */
typedef struct {
    const double *prev, *old, *gap, *rg, *dl, *dfac, *ft;
    const double *mdl; /* the row's measured deliveries before their factors (meas) */
    const double *h; /* win == 2: each GPU's window bound (-infinity: none) */
    double *done, *stall;
} shape_io;

/* One shape of the fused pass; sync/win/has_ft/meas are constants where it is inlined
 * (win: 0 none, 1 the window of batch k - W*P of every GPU, 2 each GPU's bound in h[]).
 * red: got max, stall min and max, start min and max, fetch min and max. */
static inline __attribute__((always_inline)) void shape_loop(const shape_io *io, int G, double tp, double t_old,
                                                             double scale, double f1, int sync, int win, int has_ft,
                                                             int meas, int first, double *red)
{
    const double *restrict prev = io->prev, *restrict old = io->old, *restrict gap = io->gap;
    const double *restrict rg = io->rg, *restrict dl = io->dl, *restrict dfac = io->dfac, *restrict ft = io->ft;
    const double *restrict mdl = io->mdl;
    const double *restrict hb = io->h;
    double *restrict done = io->done, *restrict stall = io->stall;
    double got = -INFINITY, smin = INFINITY, smax = -INFINITY, rmin = INFINITY, rmax = -INFINITY;
#pragma omp simd reduction(max : got, smax, rmax) reduction(min : smin, rmin)
    for (int g = 0; g < G; g++) {
        double f = has_ft ? scale * ft[g] : f1;
        double d = meas ? mdl[g] * dfac[g] : dl[g];
        double dn, sv, a;
        double r0 = first ? prev[g] : sync ? tp + gap[g] : prev[g] + gap[g];
        if (win == 2) r0 = r0 > hb[g] ? r0 : hb[g];
        double r = gpu_batch(r0, win == 1, t_old, win == 1 ? old[g] : 0.0, win == 1 ? rg[g] : 0.0, f, tp, d, &dn, &sv,
                             &a);
        done[g] = dn;
        stall[g] = sv;
        got = a > got ? a : got;
        smax = sv > smax ? sv : smax;
        smin = sv < smin ? sv : smin;
        rmax = r > rmax ? r : rmax;
        rmin = r < rmin ? r : rmin;
    }
    red[0] = got;
    red[1] = smin;
    red[2] = smax;
    red[3] = rmin;
    red[4] = rmax;
}

static SS_KERNEL double fused_body(ssp_state *s, const fused_in *in, double *stall, double *ex)
{
    const int G = s->gpus;
    const long k = s->k, ring = s->ring;
    const double tp = *T_at(s, k - 1);
    double *restrict done = done_row(s, k);
    const double *restrict gap = s->gap_a, *restrict rg = s->refill_a, *restrict dl = s->deliv_a;
    const double *restrict dfac = s->dfac_a;
    const double *restrict ft = in->ft, *restrict fs = in->fs;
    /* the measured deliveries of the batch (before each GPU's factor): the prepared row's
     * (shared by its scenarios), or found here the same way */
    const double *restrict mdl = in->m ? in->m->delivery : NULL;
    if (in->m && !mdl) {
        const ss_row *m = in->m;
        for (int g = 0; g < G; g++)
            s->dm[g] = ss_row_delivery_of(m->stall_time[g], m->train_start[g], m->fetch_start[g] + m->fetch_time[g]);
        mdl = s->dm;
    }
    const double scale = in->scale, f1 = in->f1;
    double red[7];
    if (s->same_shape) {
        /* every GPU's batch k waits for the same earlier rows: contiguous, vectorisable;
         * one loop per shape (synchronous, window, fetch times per GPU, measured
         * delivery), so that no loop carries a test that is the same for every GPU */
        const long W = s->ld[0].workers, WP = s->wp[0];
        const int first = k < W, sync = W == 0, win = WP > 0 && k >= WP;
        const double *restrict prev = sync || first ? (first ? fs : NULL) : done_row(s, k - W);
        const double *restrict old = win ? done_row(s, k - WP) : NULL;
        const double t_old = win ? *T_at(s, k - WP - 1) : 0.0;
        const shape_io io = {prev, old, gap, rg, dl, dfac, ft, mdl, NULL, done, stall};
        const int shape = (first ? 16 : 0) | (sync && !first ? 8 : 0) | (win ? 4 : 0) | (ft ? 2 : 0) | (mdl ? 1 : 0);
        switch (shape) {
#define SHAPE(n) case n: shape_loop(&io, G, tp, t_old, scale, f1, (n) & 8, ((n) & 4) != 0, (n) & 2, (n) & 1, 0, red); break;
            SHAPE(0) SHAPE(1) SHAPE(2) SHAPE(3) SHAPE(4) SHAPE(5) SHAPE(6) SHAPE(7)
            SHAPE(8) SHAPE(9) SHAPE(10) SHAPE(11) SHAPE(12) SHAPE(13) SHAPE(14) SHAPE(15)
#undef SHAPE
        default: /* the epoch's first batches (k < W): measured starts */
            shape_loop(&io, G, tp, t_old, scale, f1, 0, win, ft != NULL, mdl != NULL, 1, red);
            break;
        }
        (void)ring;
    } else {
        /* per-GPU W and P: batch k - W_g of each GPU sits in another row of the ring, so
         * the worker-free times and window bounds are gathered first (a scalar pass),
         * then the same loop runs with them */
        double *restrict r0 = s->f, *restrict hb = s->h;
        for (int g = 0; g < G; g++) {
            const long W = s->ld[g].workers, WP = s->wp[g];
            r0[g] = k < W ? fs[g] : W == 0 ? tp + gap[g] : done_row(s, k - W)[g] + gap[g];
            hb[g] = -INFINITY;
            if (WP > 0 && k >= WP) {
                double old = done_row(s, k - WP)[g], t_old = *T_at(s, k - WP - 1);
                hb[g] = (t_old > old ? t_old : old) + rg[g];
            }
        }
        const shape_io io = {r0, NULL, gap, rg, dl, dfac, ft, mdl, hb, done, stall};
        shape_loop(&io, G, tp, 0.0, scale, f1, 0, 2, ft != NULL, mdl != NULL, 1, red);
    }
    memcpy(ex, red + 1, 4 * sizeof *ex);
    /* the fetch times' spread: from the row's extremes (no reduction in the pass) */
    if (!ft) {
        ex[4] = ex[5] = f1;
    } else {
        double lo = in->ftmin, hi = in->ftmax;
        if (isnan(lo) || isnan(hi)) {
            lo = hi = ft[0];
            for (int g = 1; g < G; g++) {
                lo = ft[g] < lo ? ft[g] : lo;
                hi = ft[g] > hi ? ft[g] : hi;
            }
        }
        ex[4] = scale * lo;
        ex[5] = scale * hi;
    }
    return red[0];
}
SS_MULTIVERSION(double, fused, (ssp_state * s, const fused_in *in, double *stall, double *ex), (s, in, stall, ex))

/* Batch k through the fused pass; the same outputs as ssp_advance_lagged without lags. */
static double advance_fused(ssp_state *s, const fused_in *in, double c, double *stall,
                            double *t_prev, ss_step *out)
{
    const int G = s->gpus;
    const long k = s->k;
    double ex[6];
    const double tp = *T_at(s, k - 1);
    double got = fused(s, in, stall, ex);
    if (got < tp) got = tp; /* no GPU (G = 0 cannot happen) */
    double T = got + s->p.step_gap + c;
    *T_at(s, k) = T;
    out->iter_time = T - tp;
    out->stall = ex[1];
    out->delay = ex[1] - ex[0];
    out->straggler = ss_step_unique_argmax(stall, G, ex[1]);
    out->start_diff = ex[3] - ex[2];
    out->fetch_diff = ex[5] - ex[4];
    *t_prev = tp;
    s->k = k + 1;
    return T;
}

double ssp_advance(ssp_state *s, const double *f, double c, const double *fs, double *start,
                   double *stall, double *t_prev, ss_step *out)
{
    /* the fused pass keeps no start times (storing them cost a fifth of its time): a
     * caller that wants them takes the step by step path, which gives the same values */
    if (!start && s->k > 0 && s->p.start_align == SS_ALIGN_NONE && !s->dm_row) {
        fused_in in = {.ft = f, .fs = fs, .scale = 1.0, .ftmin = NAN, .ftmax = NAN};
        return advance_fused(s, &in, c, stall, t_prev, out);
    }
    return ssp_advance_lagged(s, f, c, fs, NULL, NULL, start, stall, t_prev, out);
}

double ssp_advance_lagged(ssp_state *s, const double *f, double c, const double *fs, const double *lag,
                          const double *lag_next, double *start, double *stall, double *t_prev, ss_step *out)
{
    const int G = s->gpus;
    const long k = s->k;
    double *r = s->r;
    if (!s->A) lag = lag_next = NULL;

    worker_free(s, fs, lag, r);
    if (s->p.start_align != SS_ALIGN_NONE) {
        double v = ss_align_start_of(r, G, s->p.start_align);
        for (int g = 0; g < G; g++) r[g] = v;
    }
    window(s, lag != NULL, r);
    /* r now holds start[k]; done[k] overwrites the slot of batch k - ring, read above */
    double *done = done_row(s, k);
    for (int g = 0; g < G; g++) done[g] = r[g] + f[g];
    if (k == 0) {
        double t0 = r[0];
        for (int g = 1; g < G; g++) t0 = r[g] < t0 ? r[g] : t0;
        *T_at(s, -1) = t0;
    }
    /* the loop asks for batch k at T[k-1] and has it at max(T[k-1], done) + delivery */
    double tp = *T_at(s, k - 1), got = tp;
    const double *dm = s->dm_row; /* each GPU's measured delivery of this batch, or NULL */
    if (lag) {
        double *A = A_row(s, k);
        got = -INFINITY;
        for (int g = 0; g < G; g++) {
            double a = tp - lag[g], d = dm ? dm[g] : s->ld[g].delivery, w = done[g] - a;
            A[g] = a;
            double x = (done[g] > a ? done[g] : a) + d;
            got = x > got ? x : got;
            stall[g] = (w > 0.0 ? w : 0.0) + d;
        }
    } else if (s->uniform && !dm) {
        const double d = s->ld[0].delivery;
        double dmax = done[0];
        for (int g = 0; g < G; g++) {
            dmax = done[g] > dmax ? done[g] : dmax;
            double w = done[g] - tp;
            stall[g] = (w > 0.0 ? w : 0.0) + d;
        }
        got = (tp > dmax ? tp : dmax) + d;
    } else {
        for (int g = 0; g < G; g++) {
            double d = dm ? dm[g] : s->ld[g].delivery, w = done[g] - tp;
            double a = (done[g] > tp ? done[g] : tp) + d;
            got = a > got ? a : got;
            stall[g] = (w > 0.0 ? w : 0.0) + d;
        }
    }
    double T = got + s->p.step_gap + c;
    if (start) memcpy(start, r, (size_t)G * sizeof *start);
    *T_at(s, k) = T;
    double smax, smin;
    int arg;
    ss_step_spread(stall, G, &smax, &smin, &arg);
    out->iter_time = T - tp;
    if (lag) { /* the longest time between one GPU's two asks */
        double it = -INFINITY;
        for (int g = 0; g < G; g++) {
            double x = (T - (lag_next ? lag_next[g] : 0.0)) - (tp - lag[g]);
            it = x > it ? x : it;
        }
        out->iter_time = it;
    }
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

/* GPU g's measured delivery of the row's batch: the time from the batch being ready (or
 * the loop asking, whichever came later) to the loop having it, stall - max(0, done -
 * ask) with ask = train_start - stall; not below 0. */
static void measure_delivery(ssp_state *s, const ss_row *m)
{
    for (int g = 0; g < s->gpus; g++)
        s->dm[g] = ss_row_delivery_of(m->stall_time[g], m->train_start[g], m->fetch_start[g] + m->fetch_time[g]) *
                   s->dfac_a[g];
}

void ssp_replay_row(ssp_state *s, const ss_row *row, double *stall, ss_step *out)
{
    ssp_replay_row_from(s, row, row, stall, out);
}

/* f with its storage part scaled and its CPU part c times r: r = s1 / s0 with CPU sharing
 * (c then as the trace's contention stretched it), else 1 (c kept; c * 1 and f * 1 are c
 * and f exactly). */
static inline double cpu_part_kept(double f, double c, double r, double scale)
{
    return f > c ? c * r + scale * (f - c) : f * r;
}

/* f of the first window's rows: its CPU part as the trace ran it, w (c + the window's mean
 * wait), becomes n (the scenario's), the rest scaled (all of f in proportion when f <= w) */
static inline double start_part(double f, double w, double n, double scale)
{
    return f > w ? n + scale * (f - w) : w > 0.0 ? f * (n / w) : f;
}

/* The step time of a row: compute_scale times the measured one, changed by CPU sharing
 * (never below 0). */
static inline double step_of(const ssp_state *s, double compute)
{
    double c = s->p.compute_scale * compute;
    if (s->p.compute_delta != 0.0) {
        c += s->p.compute_delta;
        c = c > 0.0 ? c : 0.0;
    }
    return c;
}

/* A batch with sync_every > 1 (MODELS-pipeline.md, "Gradient accumulation"): GPU g asks
 * for batch k at A[k][g], its own next ask after the previous batch; the lagged advance
 * runs with lag[g] = T[k-1] - A[k][g] (T[k-1] the last GPU's ask) and the row's step c.
 * Then each GPU's next ask: on a batch that ends with the all-reduce ((k + 1) a multiple
 * of sync_every) T[k] for every GPU (they step together); on the others the time it had
 * its batch, A + stall, plus step_gap and its own step, its measured iteration time less
 * its stall (compute_scale and CPU sharing applied), when no all-reduce waits for the
 * others. T[k] becomes the last of those asks; the row's iteration time is the longest
 * time between one GPU's two asks. */
static void advance_accumulating(ssp_state *s, const ss_row *row, const double *f, double c, double *stall,
                                 double *tp, ss_step *out)
{
    const int G = s->gpus;
    const long k = s->k;
    if (k > 0) { /* the asks as this replay made them, not the measured lags */
        double last = *T_at(s, k - 1);
        for (int g = 0; g < G; g++) s->lag[g] = last - s->nxt[g];
    }
    for (int g = 0; g < G; g++) s->lag_next[g] = 0.0;
    const double T = ssp_advance_lagged(s, f, c, row->fetch_start, s->lag, s->lag_next, NULL, stall, tp, out);
    const double *A = A_row(s, k);
    const int sync = (k + 1) % s->p.sync_every == 0;
    double last = -INFINITY, it = -INFINITY;
    for (int g = 0; g < G; g++) {
        double own = row->iteration_time[g] - row->stall_time[g];
        double n = sync ? T : A[g] + stall[g] + s->p.step_gap + step_of(s, own > 0.0 ? own : 0.0);
        s->nxt[g] = n;
        last = n > last ? n : last;
        it = n - A[g] > it ? n - A[g] : it;
    }
    *T_at(s, k) = last;
    out->iter_time = it;
}

void ssp_replay_row_from(ssp_state *s, const ss_row *row, const ss_row *measured, double *stall, ss_step *out)
{
    const int G = s->gpus;
    const int measure = s->dm && measured->train_start, lagged = s->A && row->train_start;
    double scale = s->p.fetch_scale, f1 = 0.0;
    if (s->p.fetch_align != SS_ALIGN_NONE) {
        double a = ss_row_fetch_aligned(row, s->p.fetch_align);
        f1 = s->cpu ? cpu_part_kept(a, s->cpu_median, s->ratio_median, scale) : scale * a;
    }
    ss_row scaled;
    if (s->cpu) { /* the storage parts scaled here; the replay below scales by 1 */
        scaled = *row;
        double lo = INFINITY, hi = -INFINITY;
        const long *sr = s->p.start_rows_gpu;
        for (int g = 0; g < G; g++) {
            double f = sr && s->k < sr[g] ? start_part(row->fetch_time[g], s->p.cpu_start_wall_gpu[g],
                                                       s->p.cpu_start_new_gpu[g], scale)
                                          : cpu_part_kept(row->fetch_time[g], s->cpu[g], s->ratio ? s->ratio[g] : 1.0, scale);
            s->fx[g] = f;
            lo = f < lo ? f : lo;
            hi = f > hi ? f : hi;
        }
        scaled.fetch_time = s->fx;
        scaled.fetch_min = lo;
        scaled.fetch_max = hi;
        row = &scaled;
        scale = 1.0;
    }
    double tp;
    s->dm_row = NULL;
    if (!lagged && s->k > 0 && s->p.start_align == SS_ALIGN_NONE) {
        fused_in in = {.ft = s->p.fetch_align == SS_ALIGN_NONE ? row->fetch_time : NULL,
                       .fs = row->fetch_start,
                       .scale = scale,
                       .f1 = f1,
                       .m = measure ? measured : NULL,
                       .ftmin = row->fetch_min,
                       .ftmax = row->fetch_max};
        advance_fused(s, &in, step_of(s, row->compute), stall, &tp, out);
        return;
    }
    if (measure) {
        measure_delivery(s, measured);
        s->dm_row = s->dm;
    }
    double *f = s->f;
    if (s->p.fetch_align == SS_ALIGN_NONE) {
        for (int g = 0; g < G; g++) f[g] = scale * row->fetch_time[g];
    } else {
        for (int g = 0; g < G; g++) f[g] = f1;
    }
    if (lagged) {
        /* GPU g asked for this batch at ask[g] = train_start - stall and for the next at
         * ask[g] + iteration_time; the compute runs from the last GPU having its batch to
         * the last GPU asking for the next */
        double amax = -INFINITY, nmax = -INFINITY, tmax = -INFINITY;
        for (int g = 0; g < G; g++) {
            double a = row->train_start[g] - row->stall_time[g], nx = a + row->iteration_time[g];
            s->lag[g] = a;
            s->lag_next[g] = nx;
            amax = a > amax ? a : amax;
            nmax = nx > nmax ? nx : nmax;
            tmax = row->train_start[g] > tmax ? row->train_start[g] : tmax;
        }
        for (int g = 0; g < G; g++) {
            s->lag[g] = amax - s->lag[g];
            s->lag_next[g] = nmax - s->lag_next[g];
        }
        double c = step_of(s, nmax - tmax > 0.0 ? nmax - tmax : 0.0);
        if (s->nxt) {
            advance_accumulating(s, row, f, c, stall, &tp, out);
            s->dm_row = NULL;
            return;
        }
        ssp_advance_lagged(s, f, c, row->fetch_start, s->lag, s->lag_next, NULL, stall, &tp, out);
    } else {
        ssp_advance(s, f, step_of(s, row->compute), row->fetch_start, NULL, stall, &tp, out);
    }
    s->dm_row = NULL;
}

/* ---- the model table's entry ---- */

static void pipe_name(const ss_scenario *s, char *buf, size_t n)
{
    char w[48], fs[32], cs[32], pf[24], heal[SS_HEAL_TEXT_MAX + 8] = "", set[SS_HEAL_TEXT_MAX];
    ss_autoval_format(&s->workers, w, sizeof w);
    ss_format_number(s->fetch_scale, fs, sizeof fs);
    ss_format_number(s->compute_scale, cs, sizeof cs);
    if (s->prefetch == SS_PREFETCH_AUTO) snprintf(pf, sizeof pf, "auto");
    else snprintf(pf, sizeof pf, "%ld", s->prefetch);
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(heal, sizeof heal, "_heal-%s", set);
    snprintf(buf, n, "pipeline_fetch-%s_start-%s_w-%s_p%s_fs%s_cs%s%s", ss_align_name(s->fetch_align),
             ss_align_name(s->start_align), w, pf, fs, cs, heal);
}

/* W and P in the terminal label: the value, or "lo-hi" when GPUs differ */
static void range_label(const ss_scenario *s, int prefetch, char *buf, size_t n)
{
    const ssp_params *p = &s->pipe;
    if (!(prefetch ? p->prefetch_gpu : p->workers_gpu) || s->pipe_gpus < 1) {
        snprintf(buf, n, "%d", prefetch ? p->prefetch : p->workers);
        return;
    }
    int lo = 0, hi = 0;
    for (int g = 0; g < s->pipe_gpus; g++) {
        ssp_loader l = ssp_loader_of(p, g);
        int v = prefetch ? l.prefetch : l.workers;
        lo = g == 0 || v < lo ? v : lo;
        hi = g == 0 || v > hi ? v : hi;
    }
    if (lo == hi) snprintf(buf, n, "%d", lo);
    else snprintf(buf, n, "%d-%d", lo, hi);
}

static void pipe_label(const ss_scenario *s, char *buf, size_t n)
{
    char w[32], p[32], heal[SS_HEAL_TEXT_MAX + 8] = "", set[SS_HEAL_TEXT_MAX], fs[40], cs[40];
    ss_format_number(s->fetch_scale, fs, sizeof fs); /* as in the name: values that differ read apart */
    ss_format_number(s->compute_scale, cs, sizeof cs);
    range_label(s, 0, w, sizeof w);
    range_label(s, 1, p, sizeof p);
    if (!strcmp(w, "0")) snprintf(p, sizeof p, "-"); /* synchronous loading has no prefetch */
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(heal, sizeof heal, " heal=%s", set);
    snprintf(buf, n, "pipe f=%s s=%s W=%s P=%s fs=%s cs=%s%s", ss_align_name(s->fetch_align),
             ss_align_name(s->start_align), w, p, fs, cs, heal);
}

static int pipe_baseline(const ss_scenario *s)
{
    return s->fetch_align == SS_ALIGN_NONE && s->start_align == SS_ALIGN_NONE && s->fetch_scale == 1.0 &&
           s->compute_scale == 1.0 && s->workers.is_auto && s->workers.value == 1.0 && s->heal.n == 0;
}

static int pipe_needs_calibration(const ss_scenario *s, const ss_config *c)
{
    return s->workers.is_auto || s->prefetch == SS_PREFETCH_AUTO || c->worker_gap.is_auto || c->refill_gap.is_auto ||
           c->delivery.is_auto || c->sync_every > 1; /* the asks' lags come from the calibration */
}

/* 1 when the resolved scenario changes nothing: no align, scale or heal, and every GPU's
 * loader as the trace's (its calibrated W; P as calibrated where the trace records it or
 * the scenario asks for auto, so that a default prefetch = 2 against a recorded 4 is not
 * taken for the measured run; workers = 1 on a 1-worker trace is). */
static int replays_own_loaders(const ss_scenario *s, const ss_calib *cal, int ignore_heal)
{
    if (s->fetch_align != SS_ALIGN_NONE || s->start_align != SS_ALIGN_NONE || s->fetch_scale != 1.0 ||
        s->compute_scale != 1.0 || (s->heal.n > 0 && !ignore_heal))
        return 0;
    const int check_p = s->prefetch == SS_PREFETCH_AUTO || cal->recorded_prefetch;
    for (int g = 0; g < cal->gpus; g++) {
        ssp_loader l = ssp_loader_of(&s->pipe, g);
        if (l.workers != cal->workers_gpu[g]) return 0;
        if (check_p && l.workers > 0 && cal->prefetch_gpu && l.prefetch != cal->prefetch_gpu[g]) return 0;
    }
    return 1;
}

/* An auto setting takes each GPU's calibrated value (times the factor: workers = auto*2 is
 * each GPU's W times 2, rounded, at least 1 where the calibrated W is); a number is the
 * same for every GPU. pipe.workers and pipe.prefetch receive the largest over GPUs. */
static ss_status pipe_resolve(ss_scenario *s, const ss_config *c, const ss_calib *cal, const int *trace_workers)
{
    ssp_params *p = &s->pipe;
    memset(p, 0, sizeof *p);
    s->pipe_gpus = cal ? cal->gpus : 0;
    p->workers = 1;
    p->prefetch = 2;
    if (s->workers.is_auto && cal && cal->workers_gpu) {
        p->workers_gpu = cal->workers_gpu;
        p->workers_factor = s->workers.value;
        p->workers = 0;
        double wmax = 0;
        for (int g = 0; g < cal->gpus; g++) {
            double w = floor(cal->workers_gpu[g] * s->workers.value + 0.5);
            if (cal->workers_gpu[g] >= 1 && w < 1) w = 1;
            wmax = w > wmax ? w : wmax;
        }
        if (wmax > SS_MAX_WORKERS) {
            char spec[48];
            ss_autoval_format(&s->workers, spec, sizeof spec);
            return ss_fail(SS_ECONFIG, "%s: scenarios.workers = %s gives %.0f workers per GPU (calibrated: up to %d); at most %d",
                           ss_config_origin(c, "scenarios", "workers"), spec, wmax, cal->workers, SS_MAX_WORKERS);
        }
        p->workers = (int)wmax;
    } else if (s->workers.is_auto) {
        double w = floor(s->workers.value + 0.5);
        p->workers = w < 1 ? 1 : w > SS_MAX_WORKERS ? SS_MAX_WORKERS : (int)w;
    } else {
        p->workers = (int)s->workers.value;
    }
    if (s->prefetch == SS_PREFETCH_AUTO && cal && cal->prefetch_gpu) {
        p->prefetch_gpu = cal->prefetch_gpu;
        p->prefetch = 1;
        for (int g = 0; g < cal->gpus; g++) p->prefetch = cal->prefetch_gpu[g] > p->prefetch ? cal->prefetch_gpu[g] : p->prefetch;
    } else if (s->prefetch != SS_PREFETCH_AUTO) {
        p->prefetch = (int)s->prefetch;
    }
    const ss_autoval *gaps[3] = {&c->worker_gap, &c->refill_gap, &c->delivery};
    const double *cal_gpu[3] = {cal ? cal->gap_gpu : NULL, cal ? cal->refill_gpu : NULL, cal ? cal->delivery_gpu : NULL};
    double *value[3] = {&p->worker_gap, &p->refill_gap, &p->delivery};
    const double **per_gpu[3] = {&p->worker_gap_gpu, &p->refill_gap_gpu, &p->delivery_gpu};
    double *factor[3] = {&p->worker_gap_factor, &p->refill_gap_factor, &p->delivery_factor};
    for (int i = 0; i < 3; i++) {
        *value[i] = gaps[i]->is_auto ? 0.0 : gaps[i]->value;
        if (gaps[i]->is_auto && cal_gpu[i]) {
            *per_gpu[i] = cal_gpu[i];
            *factor[i] = gaps[i]->value;
        }
    }
    p->ask_lags = cal ? cal->ask_lags : 0;
    /* the trace's loaders: calibrated, else as the trace records them (so that a scenario's
     * replay does not depend on whether another scenario of the sweep calibrated) */
    p->trace_workers_gpu = cal ? cal->workers_gpu : trace_workers;
    if (c->delivery.is_auto && c->delivery_per_batch) p->delivery_measured = factor_of(c->delivery.value);
    /* the CPU part of a fetch that fetch_scale keeps: recorded per GPU (auto; none
     * recorded: 0, the whole fetch scales), or a number of seconds (times the factor of
     * auto*F) */
    if (!c->fetch_cpu.is_auto) p->fetch_cpu = c->fetch_cpu.value;
    else if (cal && cal->fetch_cpu_gpu) {
        p->fetch_cpu_gpu = cal->fetch_cpu_gpu;
        p->fetch_cpu_factor = factor_of(c->fetch_cpu.value);
    }
    if (ss_config_cpu_sharing_on(c) && cal && cal->share) p->share = cal->share;
    if (c->storage_parallel > 0.0 && cal && cal->fetch_med_gpu) {
        p->storage_parallel = c->storage_parallel;
        p->trace_fetch_med = cal->fetch_med_gpu;
        p->trace_gap_gpu = cal->gap_gpu;
        p->trace_delivery_gpu = cal->delivery_gpu;
        p->trace_period = cal->period;
        p->trace_step = cal->step;
        p->trace_delivery_rows = cal->delivery_rows;
    }
    p->step_gap = c->step_gap;
    p->sync_every = c->sync_every;
    if (c->sync_every > 1 && !(cal && cal->ask_lags))
        return ss_fail(SS_ECONFIG,
                       "%s: [pipeline] sync_every = %ld needs a trace whose GPUs ask for their batches at their own "
                       "times, as the recorder's traces show (train_start and stall_time consistent with "
                       "iteration_time on 99 %% of the rows); this trace's asks are %s",
                       ss_config_origin(c, "pipeline", "sync_every"), c->sync_every,
                       cal && cal->asks_consistent ? "simultaneous" : "not consistent");
    p->fetch_scale = s->fetch_scale;
    p->compute_scale = s->compute_scale;
    p->fetch_align = s->fetch_align;
    p->start_align = s->start_align;
    if (cal && cal->workers_gpu) {
        s->baseline = replays_own_loaders(s, cal, 0);
        /* the loaders as resolved, the healed GPU's own (heal_loaders replaces them in init) */
        s->baseline_but_heal = s->heal_gpu >= 0 && replays_own_loaders(s, cal, 1);
    }
    return SS_OK;
}

typedef struct {
    ssp_state ps;
    int heal;          /* the GPU healed alone, or -1 */
    ss_healset heals;  /* the GPUs healed (n = 0: none) */
    long heal_first;   /* the epoch's first rows whose measured starts a healed GPU takes from
                        * the others: the largest max(W, 1) over the healed GPUs */
    double *fetch_buf; /* [gpus] the healed row's fetch times */
    double *start_buf, *sort_buf; /* [gpus] the healed row's measured starts, scratch */
    /* a scenario with more workers than the trace's loader: the epoch's first batches
     * beyond the trace's first round (its max(W, 1) batches started by fresh workers)
     * start with that round's last, not as measured (they waited for the trace's
     * workers); first_rows = the largest such W (0: none), trace_round[g] = the trace's
     * max(W, 1) (a healed GPU: the others' median), first_hold [gpus] the starts in use */
    long first_rows;
    int *trace_round;
    double *first_hold;
    /* with per-GPU loader settings and a healed GPU: every GPU's settings, the healed
     * one's replaced by the median of the others' ([gpus] each) */
    int *wg, *pg;
    double *gg, *rg, *dg;
    double *cg; /* with recorded fetch CPU parts and a healed GPU: the healed one's is the others' median */
    double cpu_stretch; /* CPU sharing: the largest s1 over the pools (s0 where the load is the
                         * trace's), NaN without it */
    double read_factor, reads_trace; /* storage sharing: the factor on the scenario's reads and
                                      * the reads the trace kept in flight (NaN without it) */
    double *share_buf; /* CPU sharing: [11][gpus] the CPU parts' wall times, s1 / s0, the loaders,
                        * fetches and waits for the solve, the first window's waits and CPU
                        * parts, and the deliveries' factors (share_init) */
    unsigned char *ready; /* CPU sharing: [gpus] the scenario's delivery flags (share_init) */
    double delivery_factor; /* CPU sharing: the largest of the deliveries' factors over the GPUs
                             * with workers (1 where none stretches), NaN without it */
} pipe_state;

/* The healed GPUs take the median of the other GPUs' loader settings (W and P rounded). */
static ss_status heal_loaders(pipe_state *st, ssp_params *p, int gpus)
{
    const size_t G = (size_t)gpus;
    st->wg = malloc(G * sizeof *st->wg);
    st->pg = malloc(G * sizeof *st->pg);
    st->gg = malloc(G * sizeof *st->gg);
    st->rg = malloc(G * sizeof *st->rg);
    st->dg = malloc(G * sizeof *st->dg);
    double *v = malloc(2 * G * sizeof *v);
    if (!st->wg || !st->pg || !st->gg || !st->rg || !st->dg || !v) {
        free(v);
        return ss_fail(SS_ENOMEM, "out of memory for a healed scenario");
    }
    for (int g = 0; g < gpus; g++) {
        ssp_loader l = ssp_loader_of(p, g);
        st->wg[g] = l.workers;
        st->pg[g] = l.prefetch;
        st->gg[g] = l.worker_gap;
        st->rg[g] = l.refill_gap;
        st->dg[g] = l.delivery;
    }
    const ss_healset *h = &st->heals;
    if (gpus > 1) {
        for (int g = 0; g < gpus; g++) v[g] = st->wg[g];
        const int w = (int)floor(ss_median_unhealed(v, gpus, h, v + G) + 0.5);
        for (int g = 0; g < gpus; g++) v[g] = st->pg[g];
        const int pf = (int)floor(ss_median_unhealed(v, gpus, h, v + G) + 0.5);
        for (int g = 0; g < gpus; g++)
            if (ss_healset_has(h, g)) st->wg[g] = w, st->pg[g] = pf;
        double *arr[3] = {st->gg, st->rg, st->dg};
        for (int a = 0; a < 3; a++) ss_copy_healed(arr[a], arr[a], gpus, h, v);
    }
    free(v);
    p->workers_gpu = st->wg;
    p->prefetch_gpu = st->pg;
    p->worker_gap_gpu = st->gg;
    p->refill_gap_gpu = st->rg;
    /* (a delivery the scenario file gives in seconds stays a constant: the same for every
     * GPU, and not stretched with the load) */
    if (p->delivery_gpu) p->delivery_gpu = st->dg;
    p->workers_factor = p->worker_gap_factor = p->refill_gap_factor = p->delivery_factor = 1.0;
    return SS_OK;
}

static void pipe_state_free(pipe_state *st)
{
    free(st->fetch_buf);
    free(st->start_buf);
    free(st->sort_buf);
    free(st->wg);
    free(st->pg);
    free(st->gg);
    free(st->rg);
    free(st->dg);
    free(st->cg);
    free(st->share_buf);
    free(st->ready);
    free(st->trace_round);
    free(st->first_hold);
    free(st);
}

int ssp_same_load(const ssp_params *p, const ss_scenario *s, const int *trace_workers, int gpus)
{
    if (s->fetch_scale != 1.0 || s->compute_scale != 1.0 || s->heal.n > 0) return 0;
    for (int g = 0; g < gpus; g++)
        if (ssp_loader_of(p, g).workers != trace_workers[g]) return 0;
    return 1;
}

/* The scenario's delivery flags into ready[gpus] (MODELS-pipeline.md, "Deliveries of GPUs
 * whose batches waited"): the trace's; a healed GPU keeps its own where the scenario
 * replays each batch's measured delivery (its own), and where it takes the other GPUs'
 * median delivery it takes the flag of most of them (more than half flagged: flagged). */
static void scenario_ready(const ss_share *sh, const ssp_params *p, const ss_healset *h, int gpus,
                           unsigned char *ready)
{
    for (int g = 0; g < gpus; g++) ready[g] = sh->ready ? sh->ready[g] : 0;
    if (h->n == 0 || p->delivery_measured > 0.0) return;
    int flagged = 0, others = 0;
    for (int g = 0; g < gpus; g++)
        if (!ss_healset_has(h, g)) {
            flagged += ready[g];
            others++;
        }
    for (int g = 0; g < gpus; g++)
        if (ss_healset_has(h, g)) ready[g] = 2 * flagged > others;
}

/* CPU sharing for the scenario (MODELS-pipeline.md): solves its stretch per pool and sets
 * p's CPU parts, their factors and the change of the step. After heal_loaders and the
 * healed CPU parts (pipe_init). */
static ss_status share_init(pipe_state *st, ssp_params *p, const ss_scenario *s, int gpus)
{
    const ss_share *sh = p->share;
    if (sh->gpus != gpus) return SS_OK;
    if (ssp_same_load(p, s, sh->workers, gpus)) {
        st->cpu_stretch = gsl_stats_max(sh->s0, 1, (size_t)sh->pools);
        st->delivery_factor = 1.0;
        return SS_OK;
    }
    const size_t G = (size_t)gpus;
    st->share_buf = malloc(11 * G * sizeof *st->share_buf);
    st->ready = malloc(G);
    double *s1 = malloc(((size_t)sh->pools + 1) * sizeof *s1);
    int *W = malloc(G * sizeof *W);
    if (!st->share_buf || !st->ready || !s1 || !W) {
        free(s1);
        free(W);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    double *wall = st->share_buf, *ratio = wall + G, *gap = ratio + G, *deliv = gap + G, *c = deliv + G, *f = c + G,
           *q = sh->fetch_wait ? f + G : NULL, *qs = f + 2 * G, *swall = f + 3 * G, *snew = f + 4 * G,
           *dk = f + 5 * G;
    for (int g = 0; g < gpus; g++) { /* the loaders and CPU parts as healed (heal_loaders, pipe_init) */
        ssp_loader l = ssp_loader_of(p, g);
        W[g] = l.workers;
        gap[g] = l.worker_gap;
        deliv[g] = l.delivery;
        c[g] = p->fetch_cpu_gpu ? p->fetch_cpu_gpu[g] : sh->fetch_cpu[g];
    }
    /* the median fetch and the measured wait for a core: the healed GPU's the others' median
     * (as c); wall is scratch until the CPU parts are set below */
    ss_copy_healed(f, sh->fetch_med, gpus, &s->heal, wall);
    if (q) ss_copy_healed(q, sh->fetch_wait, gpus, &s->heal, wall);
    scenario_ready(sh, p, &s->heal, gpus, st->ready);
    /* (its reads' factor in fetch_scale) */
    ss_share_scenario sc = {W, gap, deliv, c, f, q, p->fetch_scale, s->compute_scale, p->delivery_measured, st->ready};
    double delta = 0.0;
    ss_status rc = ss_share_solve(sh, &sc, s1, &delta);
    if (rc == SS_OK) {
        for (int g = 0; g < gpus; g++) {
            wall[g] = ss_share_cpu_wall(sh, g, c[g], q ? q[g] : 0.0);
            ratio[g] = s1[sh->pool_of[g]] / sh->s0[sh->pool_of[g]];
            dk[g] = ss_share_delivery_factor(st->ready, g, ratio[g]);
            if (W[g] > 0 && (isnan(st->delivery_factor) || dk[g] > st->delivery_factor)) st->delivery_factor = dk[g];
        }
        if (isnan(st->delivery_factor)) st->delivery_factor = 1.0;
        p->cpu_wall_gpu = wall;
        p->cpu_ratio_gpu = ratio;
        p->cpu_delivery_gpu = dk;
        p->compute_delta = delta;
        st->cpu_stretch = gsl_stats_max(s1, 1, (size_t)sh->pools);
        double *rx = q && sh->start_wait ? malloc(2 * (size_t)sh->pools * sizeof *rx) : NULL; /* r, x per pool */
        if (q && sh->start_wait && !rx) rc = ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
        if (rx) { /* the first window of each epoch: its start-up waits */
            for (int k = 0; k < sh->pools; k++) rx[k] = s1[k] / sh->s0[k];
            rc = ss_share_start_factors(sh, W, rx, rx + sh->pools);
        }
        if (rx && rc == SS_OK) {
            ss_copy_healed(qs, sh->start_wait, gpus, &s->heal, swall);
            for (int g = 0; g < gpus; g++) {
                double n = (c[g] + q[g]) * ratio[g] + (qs[g] - q[g]) * rx[sh->pools + sh->pool_of[g]];
                swall[g] = c[g] + qs[g];
                snew[g] = n > c[g] ? n : c[g];
            }
            p->start_rows_gpu = sh->start_rows;
            p->cpu_start_wall_gpu = swall;
            p->cpu_start_new_gpu = snew;
        }
        free(rx);
    }
    free(s1);
    free(W);
    return rc;
}

double ssp_trace_cpu_part(const ssp_params *q, int g)
{
    const ss_share *sh = q->share;
    if (sh) return ss_share_cpu_wall(sh, g, sh->fetch_cpu[g], sh->fetch_wait ? sh->fetch_wait[g] : 0.0);
    return q->fetch_cpu_gpu ? q->fetch_cpu_gpu[g] * factor_of(q->fetch_cpu_factor) : q->fetch_cpu;
}

/* Storage sharing for the scenario (MODELS-pipeline.md): the factor on its reads, folded
 * into p->fetch_scale. q: the resolved settings (the trace's, unhealed); p: the
 * scenario's, healed (heal_loaders, pipe_init). Before share_init. A scenario with the
 * trace's loaders at its speeds keeps factor 1. */
static ss_status store_init(pipe_state *st, ssp_params *p, const ssp_params *q, const ss_scenario *s, int gpus)
{
    const int *tw = q->trace_workers_gpu;
    if (!(p->storage_parallel > 0.0) || !p->trace_fetch_med || !tw || !p->trace_gap_gpu || !p->trace_delivery_gpu ||
        (q->share && q->share->gpus != gpus))
        return SS_OK;
    const int own = ssp_same_load(p, s, tw, gpus);
    const size_t G = (size_t)gpus;
    double *v = malloc(6 * G * sizeof *v);
    int *W = malloc(G * sizeof *W);
    if (!v || !W) {
        free(v);
        free(W);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    double *tcpu = v, *scpu = v + G, *sfm = v + 2 * G, *gap = v + 3 * G, *deliv = v + 4 * G, *scratch = v + 5 * G;
    for (int g = 0; g < gpus; g++) {
        const ssp_loader l = ssp_loader_of(p, g);
        tcpu[g] = ssp_trace_cpu_part(q, g);
        W[g] = l.workers;
        gap[g] = l.worker_gap;
        deliv[g] = l.delivery;
    }
    /* a healed GPU reads as the others do: their median fetch and CPU part */
    ss_copy_healed(scpu, tcpu, gpus, &s->heal, scratch);
    ss_copy_healed(sfm, p->trace_fetch_med, gpus, &s->heal, scratch);
    /* the period's delivery term: a row's largest measured delivery where the sweep replays
     * the measured deliveries (the trace's as measured, the scenario's times its factor),
     * else each GPU's, as CPU sharing does */
    const ss_store_load trace = {gpus, tw, p->trace_gap_gpu, p->trace_delivery_gpu, tcpu, p->trace_fetch_med, 1.0, 1.0,
                                 p->delivery_measured > 0.0 ? p->trace_delivery_rows : 0.0};
    const ss_store_load scn = {gpus, W, gap, deliv, scpu, sfm, s->fetch_scale, s->compute_scale,
                               p->delivery_measured * p->trace_delivery_rows};
    st->reads_trace = ss_store_in_flight(&trace, p->trace_period);
    st->read_factor = own ? 1.0 : ss_store_factor(&trace, &scn, p->storage_parallel, p->trace_period, p->trace_step,
                                                  NULL, NULL);
    p->fetch_scale = s->fetch_scale * st->read_factor;
    free(v);
    free(W);
    return SS_OK;
}

/* The trace's first rounds and the rows whose measured starts they replace (first_rows,
 * pipe_state); after ssp_init. Nothing to do when the trace's loaders are not known
 * (neither calibrated nor recorded) or no GPU has more workers than its trace's. */
static ss_status first_round_init(pipe_state *st, const int *trace_w, int gpus)
{
    if (!trace_w) return SS_OK;
    long rows = 0;
    st->trace_round = malloc((size_t)gpus * sizeof *st->trace_round);
    double *v = malloc(2 * (size_t)gpus * sizeof *v);
    if (!st->trace_round || !v) {
        free(v);
        return ss_fail(SS_ENOMEM, "out of memory for a pipeline scenario");
    }
    for (int g = 0; g < gpus; g++) v[g] = trace_w[g] > 1 ? trace_w[g] : 1;
    /* a healed GPU's measured starts are the others' (pipe_replay): so is its round */
    const double healed = st->heals.n > 0 && gpus > 1 ? floor(ss_median_unhealed(v, gpus, &st->heals, v + gpus) + 0.5) : 0;
    for (int g = 0; g < gpus; g++) {
        st->trace_round[g] = ss_healset_has(&st->heals, g) && healed >= 1 ? (int)healed : (int)v[g];
        const long w = st->ps.ld[g].workers;
        if (w > st->trace_round[g]) rows = w > rows ? w : rows;
    }
    free(v);
    if (rows == 0) return SS_OK;
    st->first_hold = calloc((size_t)gpus, sizeof *st->first_hold);
    if (!st->first_hold) return ss_fail(SS_ENOMEM, "out of memory for a pipeline scenario");
    st->first_rows = rows;
    return SS_OK;
}

static ss_status pipe_init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    (void)c;
    pipe_state *st = calloc(1, sizeof *st);
    if (st && s->heal.n > 0) {
        st->fetch_buf = malloc((size_t)gpus * sizeof *st->fetch_buf);
        st->start_buf = malloc((size_t)gpus * sizeof *st->start_buf);
        st->sort_buf = malloc((size_t)gpus * sizeof *st->sort_buf);
    }
    if (!st || (s->heal.n > 0 && (!st->fetch_buf || !st->start_buf || !st->sort_buf))) {
        if (st) pipe_state_free(st);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    st->heal = s->heal_gpu;
    st->heals = s->heal;
    st->cpu_stretch = st->delivery_factor = NAN;
    st->read_factor = st->reads_trace = NAN;
    ssp_params p = s->pipe;
    ss_status rc = SS_OK;
    const ssp_params *q = &s->pipe;
    const int healing = st->heals.n > 0 && st->heals.lo[0] < gpus;
    if (healing && (q->workers_gpu || q->prefetch_gpu || q->worker_gap_gpu || q->refill_gap_gpu || q->delivery_gpu))
        rc = heal_loaders(st, &p, gpus);
    if (rc == SS_OK && healing && q->fetch_cpu_gpu && gpus > 1) {
        st->cg = malloc(2 * (size_t)gpus * sizeof *st->cg);
        if (!st->cg) rc = ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
        else {
            ss_copy_healed(st->cg, q->fetch_cpu_gpu, gpus, &st->heals, st->cg + gpus);
            p.fetch_cpu_gpu = st->cg;
        }
    }
    if (rc == SS_OK) rc = store_init(st, &p, q, s, gpus);
    if (rc == SS_OK && p.share) rc = share_init(st, &p, s, gpus);
    if (rc == SS_OK) rc = ssp_init(&st->ps, &p, gpus);
    if (rc != SS_OK) {
        pipe_state_free(st);
        return rc;
    }
    for (int i = 0; i < st->heals.n; i++)
        for (int g = st->heals.lo[i]; g <= st->heals.hi[i] && g < gpus; g++) {
            const long w = st->ps.ld[g].workers > 1 ? st->ps.ld[g].workers : 1;
            st->heal_first = w > st->heal_first ? w : st->heal_first;
        }
    rc = first_round_init(st, q->trace_workers_gpu, gpus);
    if (rc != SS_OK) {
        ssp_free(&st->ps);
        pipe_state_free(st);
        return rc;
    }
    *state = st;
    return SS_OK;
}

static void pipe_epoch_start(void *state) { ssp_epoch_start(&((pipe_state *)state)->ps); }

/* The measured starts of the epoch's first batches as the scenario's loaders take them
 * (first_rows, pipe_state): batch k of GPU g keeps its own where the trace's fresh
 * workers started it (k below the trace's round), else the round's last start */
static const double *first_round_starts(pipe_state *st, const double *fs, int G)
{
    const long k = st->ps.k;
    for (int g = 0; g < G; g++)
        if (k < st->trace_round[g]) st->first_hold[g] = fs[g];
    return st->first_hold;
}

static void pipe_replay(void *state, const ss_row *row, double *stall, ss_step *out)
{
    pipe_state *st = state;
    const int G = row->gpus;
    const int first = st->ps.k < st->first_rows;
    if (st->heals.n == 0 && !first) {
        ssp_replay_row(&st->ps, row, stall, out);
        return;
    }
    ss_row healed = *row;
    if (st->heal >= 0) ss_row_heal(row, st->heal, &healed, st->fetch_buf);
    else if (st->heals.n > 0) ss_row_heal_set(row, &st->heals, &healed, st->fetch_buf, st->sort_buf);
    /* the measured starts serve the epoch's first batches, max(W, 1) of them: a healed
     * GPU's loader starts them like the others (the median of their starts), as its own
     * may belong to a loader with fewer workers */
    if (G > 1 && st->heals.n > 0 && st->ps.k < st->heal_first) {
        ss_copy_healed(st->start_buf, row->fetch_start, G, &st->heals, st->sort_buf);
        healed.fetch_start = st->start_buf;
    }
    if (first) healed.fetch_start = first_round_starts(st, healed.fetch_start, G);
    ssp_replay_row_from(&st->ps, &healed, row, stall, out);
}

static double pipe_cpu_stretch(const void *state) { return ((const pipe_state *)state)->cpu_stretch; }
static double pipe_delivery_factor(const void *state) { return ((const pipe_state *)state)->delivery_factor; }

static void pipe_read_stretch(const void *state, double out[2])
{
    out[0] = ((const pipe_state *)state)->read_factor;
    out[1] = ((const pipe_state *)state)->reads_trace;
}

static void pipe_free(void *state)
{
    pipe_state *st = state;
    if (!st) return;
    ssp_free(&st->ps);
    pipe_state_free(st);
}

const ss_model_ops ss_model_pipeline = {
    .name = "pipeline",
    .label = "pipe",
    .legend = "the pipeline model; f= fetch_align, s= start_align, W= workers, P= prefetch, fs= fetch_scale, "
              "cs= compute_scale",
    .stateful = 1,
    .epochs_independent = 1, /* ssp_epoch_start: k = 0, and batch 0 reads only its row */
    .axes = SS_AXIS_HEAL | SS_AXIS_WORKERS | SS_AXIS_PREFETCH | SS_AXIS_FETCH_SCALE | SS_AXIS_COMPUTE_SCALE | SS_AXIS_FETCH_ALIGN |
            SS_AXIS_START_ALIGN,
    .reports_fidelity = 1,
    .reads_train_start = 1,
    .ranks_alone = 1, /* the independent model keeps each GPU's measured steps and loaders */
    .name_of = pipe_name,
    .label_of = pipe_label,
    .is_baseline = pipe_baseline,
    .needs_calibration = pipe_needs_calibration,
    .resolve = pipe_resolve,
    .init = pipe_init,
    .epoch_start = pipe_epoch_start,
    .replay_row = pipe_replay,
    .free = pipe_free,
    .cpu_stretch = pipe_cpu_stretch,
    .read_stretch = pipe_read_stretch,
    .delivery_factor = pipe_delivery_factor,
};
