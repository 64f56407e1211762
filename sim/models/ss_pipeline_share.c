/* ss_pipeline_share.c - the pipeline model's CPU and storage sharing for one scenario
 * (sim/models/MODELS-pipeline.md, "CPU sharing" and "Storage sharing"). */
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#include "ss_ablate.h"
#include "ss_pipeline_internal.h"
#include "ss_storeshare.h"

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
 * median delivery it takes the flag of most of them (more than half flagged: flagged); a
 * probed GPU (ssp_probed) is SS_SHARE_READY_IDLE. */
static void scenario_ready(const ss_share *sh, const ssp_params *p, const ss_healset *h, int gpus,
                           unsigned char *ready)
{
    for (int g = 0; g < gpus; g++) ready[g] = sh->ready ? sh->ready[g] : 0;
    if (h->n > 0 && p->delivery_measured <= 0.0) {
        int flagged = 0, others = 0;
        for (int g = 0; g < gpus; g++)
            if (!ss_healset_has(h, g)) {
                flagged += ready[g];
                others++;
            }
        for (int g = 0; g < gpus; g++)
            if (ss_healset_has(h, g)) ready[g] = 2 * flagged > others;
    }
    /* a probed GPU's delivery was measured after the job, on its idle cores */
    for (int g = 0; g < gpus && !ssp_off(SSP_RULE_PROBE_STRETCH); g++)
        if (ssp_probed(p, ssp_loader_of(p, g).workers, g)) ready[g] = SS_SHARE_READY_IDLE;
}

/* The trace's CPU sharing as p's host sees it: p->share, or on a quiet host a copy in buf
 * whose trace stretch s0 is s0_others (MODELS-pipeline.md, "A quiet host"). */
static const ss_share *host_share(const ssp_params *p, ss_share *buf)
{
    if (!p->share || !p->quiet_host || !p->share->s0_others) return p->share;
    *buf = *p->share;
    buf->s0 = p->share->s0_others;
    return buf;
}

/* CPU sharing for the scenario (MODELS-pipeline.md): solves its stretch per pool and sets
 * p's CPU parts, their factors and the change of the step. After heal_loaders and the
 * healed CPU parts (pipe_init). */
ss_status ssp_share_init(pipe_state *st, ssp_params *p, const ss_scenario *s, int gpus)
{
    /* on a quiet host the trace's CPU work was stretched by its own threads and the other
     * processes' (s0_others), the scenario's by its own alone: the trace's own load changes too */
    ss_share quiet;
    const ss_share *sh = host_share(p, &quiet);
    if (sh->gpus != gpus) return SS_OK;
    const int same = ssp_same_load(p, s, sh->workers, gpus);
    if (sh == p->share && same) {
        st->cpu_stretch = gsl_stats_max(sh->s0, 1, (size_t)sh->pools);
        st->delivery_factor = 1.0;
        return SS_OK;
    }
    const size_t G = (size_t)gpus;
    st->share_buf = malloc((10 + SSP_WIN_N) * G * sizeof *st->share_buf);
    st->ready = malloc(G);
    double *s1 = malloc(((size_t)sh->pools + 1) * sizeof *s1);
    int *W = malloc(G * sizeof *W);
    if (!st->share_buf || !st->ready || !s1 || !W) {
        free(s1);
        free(W);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    double *wall = st->share_buf, *ratio = wall + G, *gap = ratio + G, *deliv = gap + G, *c = deliv + G, *f = c + G,
           *q = sh->fetch_wait ? f + G : NULL, *qs = f + 2 * G, *ex = f + 3 * G, *dk = f + 4 * G,
           *win = f + 5 * G;
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
            dk[g] = ss_share_delivery_factor(st->ready, g, s1[sh->pool_of[g]], sh->s0[sh->pool_of[g]]);
            if (W[g] > 0 && (isnan(st->delivery_factor) || dk[g] > st->delivery_factor)) st->delivery_factor = dk[g];
        }
        if (isnan(st->delivery_factor)) st->delivery_factor = 1.0;
        p->cpu_wall_gpu = wall;
        p->cpu_ratio_gpu = ratio;
        p->cpu_delivery_gpu = dk;
        p->compute_delta = delta;
        st->cpu_stretch = gsl_stats_max(s1, 1, (size_t)sh->pools);
        /* the first window of each epoch: its start-up waits, from the pools' first-window
         * stretches at the trace's load and the scenario's (alone: a fetch without a wait
         * for a core, the trace's and the scenario's, in the window's terms as scratch) */
        /* (the trace's own loaders on a quiet host keep the first window as measured, as they
         * do on the trace's host) */
        const int window = q && sh->start_wait && !same;
        double *rx = window ? malloc(2 * (size_t)sh->pools * sizeof *rx) : NULL;
        st->window_rows = rx ? malloc(G * sizeof *st->window_rows) : NULL;
        if (window && (!rx || !st->window_rows))
            rc = ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
        if (rx && rc == SS_OK) {
            double *alone = win; /* scratch until the window's terms are set */
            for (int g = 0; g < gpus; g++) {
                const double storage = f[g] - (c[g] + q[g]);
                alone[g] = (storage > 0.0 ? storage : 0.0) + c[g];
            }
            rc = ss_share_window_stretch(sh, sh->workers, c, alone, rx);
            for (int g = 0; g < gpus; g++) alone[g] = p->fetch_scale * (alone[g] - c[g]) + c[g];
            if (rc == SS_OK) rc = ss_share_window_stretch(sh, W, c, alone, rx + sh->pools);
        }
        if (rx && rc == SS_OK) {
            ss_copy_healed(qs, sh->start_wait, gpus, &s->heal, win);
            if (sh->start_excess) ss_copy_healed(ex, sh->start_excess, gpus, &s->heal, win);
            double *t[SSP_WIN_N];
            for (int k = 0; k < SSP_WIN_N; k++) t[k] = win + (size_t)k * G;
            const int off = ssp_off(SSP_RULE_WINDOW_CRUSH);
            for (int g = 0; g < gpus; g++) {
                const int pool = sh->pool_of[g];
                const double wait = qs[g] - q[g];
                /* the crush's wait at the trace's load and at the scenario's: the model's
                 * change is added to the measured wait */
                const double crush0 = (rx[pool] - 1.0) * c[g], crush1 = (rx[sh->pools + pool] - 1.0) * c[g];
                const double change = crush1 - crush0, mean = fmax(0.0, wait + change);
                t[SSP_WIN_C][g] = c[g];
                t[SSP_WIN_BASE][g] = c[g] + q[g];
                t[SSP_WIN_NEW][g] = (c[g] + q[g]) * ratio[g];
                t[SSP_WIN_WAIT][g] = wait;
                t[SSP_WIN_RHO][g] = sh->start_excess && wait > 0.0 && ex[g] > 0.0 ? wait / ex[g] : NAN;
                /* a crush that shrinks shrinks each row's wait alike; one that grows adds the
                 * same wait to every row */
                const int shrink = change < 0.0 && wait > 0.0;
                t[SSP_WIN_X][g] = off ? ratio[g] : shrink ? mean / wait : 1.0;
                t[SSP_WIN_ADD][g] = off || shrink ? 0.0 : change;
                t[SSP_WIN_MEAN][g] = off ? 0.0 : mean;
                t[SSP_WIN_FMED][g] = f[g];
                const ssp_loader l = ssp_loader_of(p, g);
                const long srows = off || W[g] < 1 ? 0 : (long)W[g] * (l.prefetch > 0 ? l.prefetch : 1);
                t[SSP_WIN_TROWS][g] = (double)sh->start_rows[g];
                t[SSP_WIN_SROWS][g] = (double)(off ? sh->start_rows[g] : srows);
                /* an epoch's first batch is delivered while the rest of the window is still
                 * fetched: its delivery stretches as the window's mean CPU part does, from the
                 * trace's c + q + wait to the scenario's (c + q) r + mean (both loaders with workers) */
                t[SSP_WIN_DFIRST][g] = off || ssp_off(SSP_RULE_WINDOW_DELIVERY) || W[g] < 1 || sh->workers[g] < 1
                                           ? NAN
                                           : ((c[g] + q[g]) * ratio[g] + mean) / (c[g] + q[g] + fmax(0.0, wait));
                st->window_rows[g] = srows > sh->start_rows[g] ? srows : sh->start_rows[g];
            }
            p->start_rows_gpu = st->window_rows;
            p->start_win_gpu = win;
        }
        free(rx);
    }
    free(s1);
    free(W);
    return rc;
}

double ssp_trace_cpu_part(const ssp_params *q, int g)
{
    ss_share quiet;
    const ss_share *sh = host_share(q, &quiet);
    if (sh) return ss_share_cpu_wall(sh, g, sh->fetch_cpu[g], sh->fetch_wait ? sh->fetch_wait[g] : 0.0);
    return q->fetch_cpu_gpu ? q->fetch_cpu_gpu[g] * ssp_factor_of(q->fetch_cpu_factor) : q->fetch_cpu;
}

/* Storage sharing for the scenario (MODELS-pipeline.md): the factor on its reads, folded
 * into p->fetch_scale. q: the resolved settings (the trace's, unhealed); p: the
 * scenario's, healed (heal_loaders, pipe_init). Before share_init. A scenario with the
 * trace's loaders at its speeds keeps factor 1. */
ss_status ssp_store_init(pipe_state *st, ssp_params *p, const ssp_params *q, const ss_scenario *s, int gpus)
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
