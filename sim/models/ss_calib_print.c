/* ss_calib_print.c - the calibration's lines ("calibration: ..."): what was fitted and how
 * well it explains the trace, CPU sharing and the disturbed-pool finding (computed by the
 * driver), GPUs with the same settings grouped. */
#include <stdlib.h>

#include "ss_calib_internal.h"
#include "ss_number.h"

#define PRINT_GROUPS 6
#define PRINT_WORST 3

/* "x" or "lo to hi" of v[0..n) with 2 decimals, into buf */
static const char *range_text(const double *v, int n, char *buf, size_t size)
{
    double lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (lo == hi) snprintf(buf, size, "%.2f", lo);
    else snprintf(buf, size, "%.2f to %.2f", lo, hi);
    return buf;
}

/* Where the calibration's W and P come from: recorded, fitted, or (no fetch times to fit
 * them from) not known */
static const char *loader_source(const ss_calib *c)
{
    if (c->recorded_workers && c->recorded_prefetch)
        return "W and P as recorded in the trace (loader_workers, prefetch_factor)";
    if (c->recorded_workers)
        return c->no_fetch ? "W as recorded in the trace (loader_workers); P not known (no fetch times to fit it from)"
                           : "W as recorded in the trace (loader_workers), P fitted";
    if (c->recorded_prefetch)
        return c->no_fetch ? "P as recorded in the trace (prefetch_factor); W not known (no fetch times to fit it from)"
                           : "P as recorded in the trace (prefetch_factor), W fitted";
    return c->no_fetch ? "the loader is not known (neither recorded nor, without fetch times, fitted)"
                       : "W and P fitted (the trace records no loader settings)";
}

/* The fetches' recorded CPU time (c->fetch_cpu_gpu set), and a warning where it exceeds
 * the fetch's wall time */
static void print_fetch_cpu(const ss_calib *c, FILE *out)
{
    const int G = c->gpus;
    double lo = c->fetch_cpu_gpu[0], hi = lo;
    for (int g = 1; g < G; g++) {
        lo = c->fetch_cpu_gpu[g] < lo ? c->fetch_cpu_gpu[g] : lo;
        hi = c->fetch_cpu_gpu[g] > hi ? c->fetch_cpu_gpu[g] : hi;
    }
    fprintf(out, "calibration: the trace records the fetches' CPU time: %.4f to %.4f s per batch (median per GPU); "
                 "with [pipeline] fetch_cpu = auto (the default) fetch_scale keeps it and scales the rest\n", lo, hi);
    /* a fetch's thread cannot use more CPU than its wall time: such a value is in other
     * units, or not a per-batch median (CPU sharing and cpu_load_pct rest on it) */
    int worst = -1;
    for (int g = 0; c->share && c->share->fetch_med && g < G; g++) {
        const double f = c->share->fetch_med[g], x = c->fetch_cpu_gpu[g];
        if (f > 0 && x > 1.05 * f && (worst < 0 || x / f > c->fetch_cpu_gpu[worst] / c->share->fetch_med[worst]))
            worst = g;
    }
    if (worst >= 0)
        fprintf(out, "calibration: warning: GPU %d's recorded CPU per fetch (/fetch_cpu_time, %.4g s) is %.1fx its "
                     "median fetch time (%.4g s): one fetching thread cannot use more CPU than its wall time, so the "
                     "dataset is likely in other units or not per batch; CPU sharing and cpu_load_pct rest on it\n",
                worst, c->fetch_cpu_gpu[worst], c->fetch_cpu_gpu[worst] / c->share->fetch_med[worst],
                c->share->fetch_med[worst]);
}

/* The measured stretch (c->share->s0m set) and the disturbed-pool finding's warning:
 * waits for a core far beyond what the job's own threads explain, by enough to matter
 * (CALIB_DISTURBED_SHARE of an iteration): others ran */
static void print_measured(const ss_calib *c, FILE *out)
{
    const ss_share *sh = c->share;
    char fm[48], sm[48];
    fprintf(out, "calibration: CPU sharing: measured stretch ((CPU time + wait for a core) / CPU time, from "
                 "/fetch_wait_time and /loop_wait_time): fetches %s, steps %s; a scenario's CPU parts are "
                 "these measured times x (the model's stretch at the scenario's load / at the trace's)\n",
            range_text(sh->s0m, sh->pools, fm, sizeof fm), range_text(sh->s0m_step, sh->pools, sm, sizeof sm));
    const ss_calib_finding *f = &c->disturbed;
    if (f->found)
        fprintf(out, "calibration: warning: GPU %d's pool: its CPU work, with its waits for a core, took %.1f "
                     "times as long as the model's stretch for its own threads' load gives (measured stretch %.2f "
                     "for the fetches and %.2f for the steps, the model's %.2f): other processes most likely used "
                     "its cores while it was recorded, and every prediction from this trace carries that "
                     "contention; record the run again on quiet cores (on the committed real runs the ratio is at "
                     "most %.1f)\n",
                f->gpu, f->ratio, f->fetch_stretch, f->step_stretch, f->model_stretch, CALIB_CLEAN_RATIO);
}

/* How often the training processes stepped together (c->share->align_trace set) */
static void print_alignment(const ss_calib *c, FILE *out)
{
    const ss_share *sh = c->share;
    const int G = c->gpus;
    /* the first pool of more than one GPU (a pool of one has nothing to align): the
     * pool of the first GPU whose pool an earlier GPU opened, named by that GPU g0 */
    int p0 = -1, g0 = 0;
    for (int g = 0, opened = 0; g < G && p0 < 0; g++) {
        if (sh->pool_of[g] < opened) p0 = sh->pool_of[g];
        else opened++;
    }
    while (p0 >= 0 && sh->pool_of[g0] != p0) g0++;
    if (p0 < 0) return;
    /* what a scenario takes (ss_cpushare.c, together_share): the trace's own share in
     * its regime, the asks + deliveries' where the loaders get ahead, 0 where they fall
     * behind */
    const double ahead = 100.0 * (sh->bound0 ? sh->align_ahead[p0] : sh->align_trace[p0]),
                 behind = sh->bound0 ? 100.0 * sh->align_trace[p0] : 0.0;
    fprintf(out, "calibration: CPU sharing: GPU %d's pool: its training processes started their steps "
                 "together %.0f%% of the time and would have had their batches together %.0f%% of the time "
                 "had every batch been ready when asked (ask + delivery; within their step's CPU time of "
                 "each other). The trace's loaders were %s: a scenario "
                 "whose loaders %s is modelled with %.0f%% together, one whose loaders %s with %.0f%%\n",
            g0, 100.0 * sh->align_trace[p0],
            100.0 * sh->align_ahead[p0], sh->bound0 ? "behind" : "ahead",
            sh->bound0 ? "keep ahead" : "stay ahead", ahead, sh->bound0 ? "stay behind" : "fall behind",
            behind);
}

/* CPU sharing's pools and stretches (c->share with pools) */
static void print_cpu_sharing(const ss_calib *c, FILE *out)
{
    const ss_share *sh = c->share;
    char cores[48], stretch[48];
    int klo = sh->cores[0], khi = klo;
    for (int p = 1; p < sh->pools; p++) {
        klo = sh->cores[p] < klo ? sh->cores[p] : klo;
        khi = sh->cores[p] > khi ? sh->cores[p] : khi;
    }
    if (klo == khi) snprintf(cores, sizeof cores, "%d", klo);
    else snprintf(cores, sizeof cores, "%d to %d", klo, khi);
    fprintf(out, "calibration: CPU sharing: %d %s of %s cores; the model's stretch at the trace's load: %s (CPU "
                 "work took %sx as long as with a core to itself)\n",
            sh->pools, ss_plural(sh->pools, "pool", "pools"), cores,
            range_text(sh->s0, sh->pools, stretch, sizeof stretch), stretch);
    if (sh->s0m) print_measured(c, out); /* what the kernel measured: the waits for a core the trace records */
    if (sh->align_trace) print_alignment(c, out);
}

/* One line for the n GPUs with settings (W, P): the medians of their gaps, delivery and
 * residuals; v: scratch of c->gpus doubles */
static void print_group(const ss_calib *c, int W, int P, int n, double *v, FILE *out)
{
    const int G = c->gpus;
    double med[5];
    const double *src[5] = {c->gap_gpu, c->refill_gpu, c->delivery_gpu, c->resid_gpu, c->stall_resid_gpu};
    for (int q = 0; q < 5; q++) {
        size_t m = 0;
        for (int g = 0; g < G; g++)
            if (c->workers_gpu[g] == W && c->prefetch_gpu[g] == P) v[m++] = src[q][g];
        med[q] = median_of(v, m);
    }
    char who[64];
    if (n == G) snprintf(who, sizeof who, "%s", G == 1 ? "the GPU" : "every GPU");
    else if (n == 1) {
        int g = 0;
        while (!(c->workers_gpu[g] == W && c->prefetch_gpu[g] == P)) g++;
        snprintf(who, sizeof who, "GPU %d", g);
    } else snprintf(who, sizeof who, "%d GPUs", n);
    if (c->no_fetch) { /* what was recorded (the defaults are not shown: nothing uses them) */
        if (c->recorded_workers && c->recorded_prefetch)
            fprintf(out, "calibration: %s: W=%d%s P=%d as recorded; gaps and delivery not fitted\n", who, W,
                    W == 0 ? " (synchronous loading)" : "", P);
        else if (c->recorded_workers)
            fprintf(out, "calibration: %s: W=%d%s as recorded; P, gaps and delivery not fitted\n", who, W,
                    W == 0 ? " (synchronous loading)" : "");
        else if (c->recorded_prefetch)
            fprintf(out, "calibration: %s: P=%d as recorded; W, gaps and delivery not fitted\n", who, P);
        return;
    }
    char pf[16];
    if (W == 0) snprintf(pf, sizeof pf, "-"); /* synchronous loading has no prefetch */
    else snprintf(pf, sizeof pf, "%d", P);
    fprintf(out, "calibration: %s: W=%d%s P=%s, worker gap %.4f s, refill gap %.4f s, delivery %.4f s%s", who, W,
            W == 0 ? " (synchronous loading)" : "", pf, med[0], med[1], med[2], n == 1 ? "" : " (medians over them)");
    fprintf(out, "; residuals (median |predicted - measured|): fetch start %.4f s, stall %.4f s\n", med[3], med[4]);
}

/* The distinct (W, P), at most PRINT_GROUPS of them, with their GPU counts, a line each,
 * and how many GPUs have other settings. -1 out of memory (nothing printed). */
static int print_groups(const ss_calib *c, FILE *out)
{
    const int G = c->gpus;
    int gw[PRINT_GROUPS], gp[PRINT_GROUPS], gn[PRINT_GROUPS], ng = 0, other = 0;
    for (int g = 0; g < G; g++) {
        int i = 0;
        while (i < ng && !(gw[i] == c->workers_gpu[g] && gp[i] == c->prefetch_gpu[g])) i++;
        if (i == ng && ng < PRINT_GROUPS) {
            gw[ng] = c->workers_gpu[g];
            gp[ng] = c->prefetch_gpu[g];
            gn[ng++] = 0;
        }
        if (i < ng) gn[i]++;
        else other++;
    }
    double *v = malloc((size_t)G * sizeof *v);
    if (!v) return -1;
    for (int i = 0; i < ng; i++) print_group(c, gw[i], gp[i], gn[i], v, out);
    if (other) fprintf(out, "calibration: %d more GPUs with other settings (per GPU in results.h5)\n", other);
    free(v);
    return 0;
}

/* The GPUs the fit explains least: the PRINT_WORST largest fetch-start residuals */
static void print_worst(const ss_calib *c, FILE *out)
{
    const int G = c->gpus;
    int worst[PRINT_WORST], nw = 0;
    for (int g = 0; g < G; g++) {
        int i;
        if (nw < PRINT_WORST) i = nw++;
        else if (c->resid_gpu[g] > c->resid_gpu[worst[PRINT_WORST - 1]]) i = PRINT_WORST - 1;
        else continue;
        worst[i] = g;
        for (; i > 0 && c->resid_gpu[worst[i]] > c->resid_gpu[worst[i - 1]]; i--) {
            int x = worst[i];
            worst[i] = worst[i - 1];
            worst[i - 1] = x;
        }
    }
    fprintf(out, "calibration: largest fetch-start residuals:");
    for (int i = 0; i < nw; i++) {
        char pf[16] = "-"; /* a synchronous loader has no prefetch factor */
        if (c->workers_gpu[worst[i]] > 0) snprintf(pf, sizeof pf, "%d", c->prefetch_gpu[worst[i]]);
        fprintf(out, "%s GPU %d %.4f s (W=%d P=%s)", i ? "," : "", worst[i], c->resid_gpu[worst[i]],
                c->workers_gpu[worst[i]], pf);
    }
    fputc('\n', out);
}

void ss_calib_print(const ss_calib *c, FILE *out)
{
    const int G = c->gpus;
    /* (its time is --timing's: the lines are the same on every run and rank count) */
    fprintf(out, "calibration: %d %s, from the first %ld %s; %s\n", G, ss_plural(G, "GPU", "GPUs"), c->rows_used,
            ss_plural(c->rows_used, "iteration", "iterations"), loader_source(c));
    if (c->fetch_cpu_gpu) print_fetch_cpu(c, out);
    if (c->share && c->share->pools > 0) print_cpu_sharing(c, out);
    if (c->ask_lags)
        fprintf(out, "calibration: the GPUs' loops ask for a batch up to %.4f s apart (median over iterations): the "
                     "replay keeps each GPU's measured lag\n", c->ask_spread);
    if (print_groups(c, out) < 0) return;
    if (c->share && G > 1)
        fprintf(out,
                "calibration: a row's largest delivery over the GPUs: %.4f s (median over the rows; the delivery a "
                "step waits for where a scenario's loaders keep ahead, in CPU and storage sharing's period)\n",
                c->delivery_rows);
    if (c->share && c->share->ready) {
        int nr = 0;
        for (int g = 0; g < G; g++) nr += c->share->ready[g];
        fprintf(out,
                "calibration: CPU sharing: %d of %d GPUs had their batch ready when their loop asked on %.0f%% of "
                "the rows or more (past each epoch's first W): a scenario stretches their deliveries with its "
                "load, as it does their steps\n",
                nr, G, 100.0 * SS_SHARE_READY_SHARE);
    }
    if (G > 1 && !c->no_fetch) print_worst(c, out);
}
