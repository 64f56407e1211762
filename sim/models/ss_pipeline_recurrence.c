/* ss_pipeline_recurrence.c - the pipeline model's recurrence, batch by batch (exact
 * definition in sim/models/MODELS-pipeline.md). */
#include "ss_model_pipeline.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_ablate.h"
#include "ss_isa.h"
#include "ss_limits.h"
#include "ss_pipeline_internal.h"

#define factor_of ssp_factor_of

double ssp_worker_count(double trace_workers, double factor)
{
    double w = floor(trace_workers * factor + 0.5);
    return trace_workers >= 1 && w < 1 ? 1 : w;
}

/* 1 when GPU g loads synchronously (W = 0) in the scenario but had workers in the trace:
 * it then has no delivery cost (ssp_params.trace_workers_gpu). */
static int made_synchronous(const ssp_params *p, int workers, int g)
{
    return workers == 0 && p->trace_workers_gpu && p->trace_workers_gpu[g] >= 1 && !ssp_off(SSP_RULE_SYNC_DELIVERY);
}

int ssp_probed(const ssp_params *p, int workers, int g)
{
    return workers >= 1 && p->probe_gpu[0] && p->trace_workers_gpu && p->trace_workers_gpu[g] == 0 &&
           !ssp_off(SSP_RULE_SYNC_PROBE);
}

ssp_loader ssp_loader_of(const ssp_params *p, int g)
{
    ssp_loader l = {p->workers, p->prefetch, p->worker_gap, p->refill_gap, p->delivery};
    if (p->workers_gpu) {
        double w = ssp_worker_count(p->workers_gpu[g], factor_of(p->workers_factor));
        l.workers = w < 0 ? 0 : w > SS_MAX_WORKERS ? SS_MAX_WORKERS : (int)w;
    }
    if (p->prefetch_gpu) l.prefetch = p->prefetch_gpu[g];
    if (p->worker_gap_gpu) l.worker_gap = p->worker_gap_gpu[g] * factor_of(p->worker_gap_factor);
    if (p->refill_gap_gpu) l.refill_gap = p->refill_gap_gpu[g] * factor_of(p->refill_gap_factor);
    if (p->delivery_gpu) l.delivery = p->delivery_gpu[g] * factor_of(p->delivery_factor);
    if (p->delivery_gpu && p->cpu_delivery_gpu) l.delivery *= p->cpu_delivery_gpu[g];
    if (made_synchronous(p, l.workers, g)) l.delivery = 0.0;
    /* a synchronous trace shows no delivery: a GPU given workers takes the probe's (auto) */
    if (p->delivery_gpu && ssp_probed(p, l.workers, g))
        l.delivery = p->probe_gpu[SSP_PROBE_DELIVERY][g] * factor_of(p->delivery_factor) *
                     (p->cpu_delivery_gpu ? p->cpu_delivery_gpu[g] : 1.0);
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
    s->dadd_a = malloc((size_t)gpus * sizeof *s->dadd_a);
    s->dfirst_a = malloc((size_t)gpus * sizeof *s->dfirst_a);
    if (!s->gap_a || !s->refill_a || !s->deliv_a || !s->dfac_a || !s->dadd_a || !s->dfirst_a) {
        ssp_free(s);
        return ss_fail(SS_ENOMEM, "out of memory for the pipeline state (%d GPUs)", gpus);
    }
    s->same_shape = 1;
    for (int g = 0; g < gpus; g++) {
        s->gap_a[g] = s->ld[g].worker_gap;
        s->refill_a[g] = s->ld[g].refill_gap;
        s->deliv_a[g] = s->ld[g].delivery;
        s->dadd_a[g] = p->delivery_measured > 0.0 && p->delivery_gpu && ssp_probed(p, s->ld[g].workers, g)
                           ? p->probe_gpu[SSP_PROBE_DELIVERY][g] * p->delivery_measured *
                                 (p->cpu_delivery_gpu ? p->cpu_delivery_gpu[g] : 1.0)
                           : 0.0;
        /* (a probed GPU's factor is its probe's: its synchronous rows' deliveries keep theirs) */
        s->dfac_a[g] = made_synchronous(p, s->ld[g].workers, g) ? 0.0
                       : p->delivery_measured * (p->cpu_delivery_gpu && !ssp_probed(p, s->ld[g].workers, g)
                                                     ? p->cpu_delivery_gpu[g]
                                                     : 1.0);
        /* an epoch's first delivery: the first window's factor where it has one */
        const double *win = p->start_win_gpu;
        s->dfirst_a[g] = win && !isnan(win[SSP_WIN_DFIRST * gpus + g]) && !ssp_probed(p, s->ld[g].workers, g)
                             ? p->delivery_measured * win[SSP_WIN_DFIRST * gpus + g]
                             : s->dfac_a[g];
        if (s->ld[g].workers != s->ld[0].workers || s->ld[g].prefetch != s->ld[0].prefetch) s->same_shape = 0;
    }
    s->done = malloc((size_t)s->ring * (size_t)gpus * sizeof *s->done);
    s->T = malloc((size_t)(s->ring + 1) * sizeof *s->T);
    s->r = malloc((size_t)gpus * sizeof *s->r);
    s->f = malloc(2 * (size_t)gpus * sizeof *s->f); /* (and scratch for a median at an epoch's start) */
    s->h = malloc((size_t)gpus * sizeof *s->h);
    s->h0 = malloc((size_t)gpus * sizeof *s->h0);
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
    if (!s->done || !s->T || !s->r || !s->f || !s->h || !s->h0 || !lags_ok || !cpu_ok) {
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
    free(s->h0);
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
    free(s->dadd_a);
    free(s->dfirst_a);
    memset(s, 0, sizeof *s);
}

void ssp_epoch_start(ssp_state *s)
{
    s->k = 0;
    s->first_ask = NAN;
}

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
    const double *prev, *old, *gap, *rg, *dl, *dfac, *dadd, *ft;
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
    const double *restrict dadd = io->dadd;
    const double *restrict mdl = io->mdl;
    const double *restrict hb = io->h;
    double *restrict done = io->done, *restrict stall = io->stall;
    double got = -INFINITY, smin = INFINITY, smax = -INFINITY, rmin = INFINITY, rmax = -INFINITY;
#pragma omp simd reduction(max : got, smax, rmax) reduction(min : smin, rmin)
    for (int g = 0; g < G; g++) {
        double f = has_ft ? scale * ft[g] : f1;
        double d = meas ? mdl[g] * dfac[g] + dadd[g] : dl[g];
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
        const shape_io io = {prev, old, gap, rg, dl, dfac, s->dadd_a, ft, mdl, NULL, done, stall};
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
        const shape_io io = {r0, NULL, gap, rg, dl, dfac, s->dadd_a, ft, mdl, hb, done, stall};
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
    if (k == 0) { /* the epoch's first ask, or where the rows do not show it, its first start */
        double t0 = r[0];
        for (int g = 1; g < G; g++) t0 = r[g] < t0 ? r[g] : t0;
        *T_at(s, -1) = isfinite(s->first_ask) ? s->first_ask : t0;
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
 * ask) with ask = train_start - stall; not below 0. Times its factor: an epoch's first
 * row takes the first window's (dfirst_a). */
static void measure_delivery(ssp_state *s, const ss_row *m)
{
    const double *fac = s->k == 0 ? s->dfirst_a : s->dfac_a;
    for (int g = 0; g < s->gpus; g++)
        s->dm[g] = ss_row_delivery_of(m->stall_time[g], m->train_start[g], m->fetch_start[g] + m->fetch_time[g]) *
                       fac[g] +
                   s->dadd_a[g];
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

/* f of GPU g's first-window row (win: ssp_params.start_win_gpu of G GPUs): its CPU part as
 * the trace ran it, w = c + q + the row's wait, becomes n (the scenario's), the rest scaled
 * (all of f in proportion when f <= w). The row's wait is rho times its excess over the
 * median fetch, or the window's mean wait where rho is NaN, on the trace's window's rows
 * (else 0); at the scenario's load it is x times that plus the added wait on the rows of both
 * windows, the scenario's mean wait on the rows of its window alone, and 0 on the others. */
static inline double start_part(const double *win, int G, int g, long k, double f, double scale)
{
    const double *t = win + g;
    const int in_trace = (double)k < t[SSP_WIN_TROWS * G], in_scenario = (double)k < t[SSP_WIN_SROWS * G];
    double e = f - t[SSP_WIN_FMED * G], eps = 0.0, now = 0.0;
    e = e > 0.0 ? e : 0.0;
    if (in_trace) {
        const double rho = t[SSP_WIN_RHO * G];
        eps = isnan(rho) ? t[SSP_WIN_WAIT * G] : rho * e;
    }
    if (in_scenario) now = in_trace ? eps * t[SSP_WIN_X * G] + t[SSP_WIN_ADD * G] : t[SSP_WIN_MEAN * G];
    const double w = t[SSP_WIN_BASE * G] + eps, c = t[SSP_WIN_C * G];
    double n = t[SSP_WIN_NEW * G] + now;
    n = n > c ? n : c;
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
    if (s->k == 0 && row->train_start) { /* the epoch's first asks (s->h), T[-1] the last */
        double a0 = -INFINITY;
        for (int g = 0; g < G; g++) s->h[g] = row->train_start[g] - row->stall_time[g];
        for (int g = 0; s->healed && s->healed_asks && g < G; g++) /* ("Healing a GPU") */
            if (s->healed[g]) s->h[g] = s->healed_asks[g];
        memcpy(s->h0, s->h, (size_t)G * sizeof *s->h0);
        if (s->first_asks) memcpy(s->h, s->first_asks, (size_t)G * sizeof *s->h);
        for (int g = 0; g < G; g++) a0 = s->h[g] > a0 ? s->h[g] : a0;
        s->first_ask = ssp_off(SSP_RULE_FIRST_ASK) ? NAN : a0;
    }
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
            double f = sr && s->k < sr[g] ? start_part(s->p.start_win_gpu, G, g, s->k, row->fetch_time[g], scale)
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
            double a = s->k == 0 ? s->h[g] : row->train_start[g] - row->stall_time[g],
                   nx = (s->k == 0 ? s->h0[g] : a) + row->iteration_time[g];
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
