/* ss_calib_fit.c - the calibration's per-GPU fit: the loader settings (W, P, worker gap,
 * refill gap) that best explain one GPU's measured fetch starts, its delivery and
 * residuals (the fit is defined in sim/models/MODELS-pipeline.md, "Calibration"; the
 * driver, ss_calib_driver.c, reads the columns and calls it GPU by GPU). */
#include <gsl/gsl_statistics_double.h>
#include <math.h>

#include "ss_ablate.h"
#include "ss_calib_internal.h"

/* Timestamps closer than this count as equal (seconds). */
#define CALIB_EPS 1e-7
/* Rows that may break a hard bound (W above the concurrency seen, W*P above the lead
 * seen) before the bound moves: a fraction of the rows, for noisy real traces. */
#define CALIB_OUTLIER_FRACTION 0.002
/* Scores within this fraction of each other count as equal (the simpler explanation
 * wins): a prefetch factor or a refill gap that the trace does not show would otherwise
 * be fitted to noise. */
#define CALIB_TIE_FRACTION 0.02
/* ... and a refill gap must also improve the score by this fraction of the GPU's median
 * fetch time, or else halve it: on a quiet trace the score is a few hundredths of a
 * millisecond, and 2 % of it is scheduling noise; a refill gap fitted to that never binds
 * in the trace's own replay but throttles any scenario whose loader gets ahead (faster
 * storage), while a refill gap that the trace does show removes most of its residual.
 * (The worker gap binds on most rows of a loader-bound trace; on a window-bound one see
 * CALIB_GAP_CONTRADICT.) */
#define CALIB_TIE_FETCH_FRACTION 0.002
/* On a trace where the window binds more often than the worker, a worker gap may not be
 * larger than the excess a[k] of more than this fraction of the rows, and is 0 with a
 * prefetch factor of 1 (fit_gaps), ... */
#define CALIB_GAP_CONTRADICT 0.01
/* ... and is 0 unless at least CALIB_GAP_AGREE_ROWS rows show the smallest excess, to
 * this fraction of it plus CALIB_GAP_AGREE_S seconds (the rounding of stored times): the
 * rows where the worker binds show one gap, as on a trace that follows the recurrence
 * (fit_gaps) */
#define CALIB_GAP_AGREE 0.001
#define CALIB_GAP_AGREE_S 1e-6
#define CALIB_GAP_AGREE_ROWS 3
/* Settings already fitted on another GPU are taken when they explain this GPU's starts
 * with a mean capped residual below this fraction of its median fetch time. */
#define CALIB_ACCEPT_FRACTION 0.002
#define CALIB_ITERATIONS 8

/* The start of batch k under (W, P, gap, refill) from measured quantities. The first
 * max(W, 1) batches of an epoch start with the epoch's first batch. */
static double predict(const gpu_cols *d, long k, int W, int P, double gap, double refill)
{
    const long pos = d->pos[k];
    if (pos < (W > 0 ? W : 1)) return d->s[d->first[k]];
    if (W == 0) return d->ask[k] + gap;
    double r = d->done[k - W] + gap;
    const long WP = (long)W * P;
    if (pos >= WP) {
        double h = (d->ask[k - WP] > d->done[k - WP] ? d->ask[k - WP] : d->done[k - WP]) + refill;
        r = r > h ? r : h;
    }
    return r;
}

/* The score of (gap, refill) for the a[] and b[] of fit_gaps: the mean over the rows
 * (pos >= 1) of min(|measured - predicted start|, cap), where measured - predicted =
 * min(a - gap, b - refill) on rows with pos >= W; `fixed` holds the rows before. */
static double score_ab(const gpu_cols *d, int W, double fixed, long m, double gap, double refill)
{
    double sum = fixed;
    const double cap = d->cap;
    for (long k = 0; k < d->n; k++) {
        if (d->pos[k] < W) continue;
        double e = d->a[k] - gap, eb = d->b[k] - refill;
        e = eb < e ? eb : e;
        e = fabs(e);
        sum += e < cap ? e : cap;
    }
    return m ? sum / (double)m : 0.0;
}

/* Sorts v[lo..hi] as far as positions up to `upto` need: afterwards v[0..upto] holds the
 * upto+1 smallest values in ascending order, as a full sort would (quicksort with a
 * median-of-three pivot that leaves alone the parts wholly beyond upto; insertion sort on
 * short parts). The values are finite. */
static void sort_upto(double *v, long lo, long hi, long upto)
{
    while (hi - lo > 16 && lo <= upto) {
        long mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        long i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p) i++;
            while (v[j] > p) j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        /* the smaller side by recursion, the larger by the loop */
        if (j - lo < hi - i) {
            sort_upto(v, lo, j, upto);
            lo = i;
        } else {
            if (i <= upto) sort_upto(v, i, hi, upto);
            hi = j;
        }
    }
    if (lo > upto) return;
    for (long i = lo + 1; i <= hi; i++) {
        double x = v[i];
        long j = i - 1;
        while (j >= lo && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

/* Candidate values of a gap: 0, the smallest excess and low quantiles of the excesses
 * (exact traces have the true gap as their smallest excess; noisy ones near a low
 * quantile). v[0..n-1] is sorted in place as far as the largest quantile needs (GSL's
 * quantile of sorted data reads positions floor(q (n-1)) and the one after). */
#define NQ 9
static int gap_candidates(double *v, size_t n, double out[NQ])
{
    static const double q[NQ - 2] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5};
    int m = 0;
    out[m++] = 0.0;
    if (n == 0) return m;
    long upto = (long)(q[NQ - 3] * (double)(n - 1)) + 1;
    sort_upto(v, 0, (long)n - 1, upto < (long)n - 1 ? upto : (long)n - 1);
    if (v[0] > 0) out[m++] = v[0];
    for (int i = 0; i < NQ - 2; i++) {
        double x = gsl_stats_quantile_from_sorted_data(v, 1, n, q[i]);
        if (x > 0 && x != out[m - 1]) out[m++] = x;
    }
    return m;
}

/* Worker gap and refill gap for (W, P): a[k] = start[k] - done[k-W] is the start's excess
 * over the worker constraint, b[k] = start[k] - max(ask[k-W*P], done[k-W*P]) over the
 * window; each gap is chosen among its candidates to minimise the score with the other
 * held, twice round (the smaller value on a tie: a constraint that never binds reads 0). */
/* The rows fit_gaps scores for W: *m of them (pos >= 1), and *fixed, the capped residuals
 * of those before the W-th of their epoch (they start with the epoch's first batch) */
static double fixed_rows(const gpu_cols *d, int W, long *m)
{
    double fixed = 0;
    *m = 0;
    for (long k = 0; k < d->n; k++) {
        if (d->pos[k] < 1) continue;
        (*m)++;
        if (d->pos[k] < (W > 0 ? W : 1)) {
            double e = fabs(d->s[k] - d->s[d->first[k]]);
            fixed += e < d->cap ? e : d->cap;
        }
    }
    return fixed;
}

/* a[k] and b[k] of fit_gaps for W >= 1 and P (INFINITY where the constraint has no batch) */
static void fill_ab(gpu_cols *d, int W, int P)
{
    const long WP = (long)W * P;
    for (long k = 0; k < d->n; k++) {
        d->a[k] = d->b[k] = INFINITY;
        if (d->pos[k] >= W) d->a[k] = d->s[k] - d->done[k - W];
        if (d->pos[k] >= WP)
            d->b[k] = d->s[k] - (d->ask[k - WP] > d->done[k - WP] ? d->ask[k - WP] : d->done[k - WP]);
    }
}

/* The margin by which a refill gap of a GPU must improve the score `best` to be fitted */
static double refill_margin(const gpu_cols *d, double best)
{
    const double floor_refill = CALIB_TIE_FETCH_FRACTION * d->fmed;
    return 1e-12 * d->cap + (floor_refill < 0.5 * best ? floor_refill : 0.5 * best) + CALIB_TIE_FRACTION * best;
}

static double fit_gaps(gpu_cols *d, int W, int P, double *gap_out, double *refill_out)
{
    const long n = d->n;
    double *a = d->a, *b = d->b;
    long m;
    const double fixed = fixed_rows(d, W, &m);
    if (W == 0) {
        size_t c = 0;
        for (long k = 0; k < n; k++)
            if (d->pos[k] >= 1) d->buf[c++] = d->s[k] - d->ask[k];
        double g = median_of(d->buf, c); /* minimises the sum of |s - ask - gap| */
        *gap_out = g > 0 ? g : 0.0;
        *refill_out = 0.0;
        double sum = fixed;
        for (long k = 0; k < n; k++) {
            if (d->pos[k] < 1) continue;
            double e = fabs(d->s[k] - d->ask[k] - *gap_out);
            sum += e < d->cap ? e : d->cap;
        }
        return m ? sum / (double)m : 0.0;
    }
    const long WP = (long)W * P;
    size_t na = 0, nb = 0;
    fill_ab(d, W, P);
    for (long k = 0; k < n; k++)
        if (d->pos[k] >= W) d->buf[na++] = a[k];
    double cg[NQ], cr[NQ];
    int ng = gap_candidates(d->buf, na, cg);
    /* (d->buf holds the sorted a[] up to its median) */
    const double med_a = na ? gsl_stats_quantile_from_sorted_data(d->buf, 1, na, 0.5) : 0.0;
    const double lim_a = na ? gsl_stats_quantile_from_sorted_data(d->buf, 1, na, CALIB_GAP_CONTRADICT) : 0.0;
    const double min_a = na ? d->buf[0] : 0.0;
    for (long k = 0; k < n; k++)
        if (d->pos[k] >= WP) d->buf[nb++] = b[k];
    int nr = gap_candidates(d->buf, nb, cr);
    /* where the window binds more often than the worker (the median excess over the window
     * below that over the worker), the worker gap shows only on a few rows, mostly each
     * epoch's first window (the batches sent out as the epoch starts) and just after it,
     * and a larger candidate would absorb the window's noise: it may not exceed the excess
     * of more than CALIB_GAP_CONTRADICT of the rows (those where a worker started its next
     * batch sooner after its previous one than the gap allows). And it is 0 unless those
     * rows agree on it (CALIB_GAP_AGREE_ROWS of them or more at the smallest excess, or
     * as many as the epochs' first windows hold where they hold fewer, as on a trace that
     * follows the recurrence): on real runs they do not, as every worker
     * starts at once there and waits for a core, and a gap read off them is the start-up's
     * contention (1-15 ms fitted there on 47 committed real traces, where the smallest
     * excess of every committed loader-bound trace is 0.06-0.4 ms: a scenario with fewer
     * workers then paid it on every batch) */
    const double med_b = nb ? gsl_stats_quantile_from_sorted_data(d->buf, 1, nb, 0.5) : INFINITY;
    if (na > 0 && med_a > med_b) {
        /* with P = 1 both constraints start from the same batch k - W: where it was done
         * after the loop asked for it, the start is done + max(gap, refill) and the two
         * cannot be told apart, and where the window binds the worker was idle because of
         * the window, so its idle time says nothing of the gap: the refill gap carries it */
        /* how many rows show the smallest excess (to the rounding of stored times), and how
         * many rows the epochs' first windows hold (a short trace of few epochs may hold
         * fewer than CALIB_GAP_AGREE_ROWS) */
        long at_min = 0, first_window = 0;
        for (long k = 0; k < n; k++) {
            if (d->pos[k] < W) continue;
            at_min += a[k] <= min_a + CALIB_GAP_AGREE * fabs(min_a) + CALIB_GAP_AGREE_S;
            first_window += d->pos[k] < WP;
        }
        const int agree = ssp_off(SSP_RULE_GAP_AGREE) ||
                          (at_min >= (first_window < CALIB_GAP_AGREE_ROWS ? first_window : CALIB_GAP_AGREE_ROWS) &&
                           at_min >= 1);
        const double lim = P == 1 || !agree ? 0.0 : lim_a;
        int kept = 0;
        for (int i = 0; i < ng; i++)
            if (cg[i] <= lim) cg[kept++] = cg[i];
        ng = kept > 0 ? kept : 1; /* 0 stays: it is the first candidate */
    }
    /* candidates ascend: a later (larger) one must be better by more than rounding and
     * CALIB_TIE_FRACTION of the score to be taken, a refill gap also by
     * CALIB_TIE_FETCH_FRACTION of the median fetch */
    const double tol_abs = 1e-12 * d->cap;
    double gap = ng > 1 ? cg[1] : 0.0, refill = 0.0, best = INFINITY;
    for (int round = 0; round < 2; round++) {
        best = INFINITY;
        double pick = gap;
        for (int i = 0; i < ng; i++) {
            double sc = score_ab(d, W, fixed, m, cg[i], refill);
            if (i == 0 || sc < best - tol_abs - CALIB_TIE_FRACTION * best) {
                best = sc;
                pick = cg[i];
            }
        }
        gap = pick;
        best = INFINITY;
        pick = refill;
        for (int i = 0; i < nr; i++) {
            double sc = score_ab(d, W, fixed, m, gap, cr[i]);
            if (i == 0 || sc < best - refill_margin(d, best)) {
                best = sc;
                pick = cr[i];
            }
        }
        refill = pick;
    }
    *gap_out = gap;
    *refill_out = refill;
    return best;
}

static void eval(gpu_cols *d, cand *c) { c->score = fit_gaps(d, c->W, c->P, &c->gap, &c->refill); }

/* 1 when x is better than y: a lower score; on a tie (scores within CALIB_TIE_FRACTION),
 * a loader with workers, the recorded P, then P = 2 (PyTorch's default), then the smaller
 * window, then fewer workers. */
static int better(const cand *x, const cand *y, int rec_p, double tol)
{
    double margin = tol + CALIB_TIE_FRACTION * (x->score < y->score ? x->score : y->score);
    if (x->score < y->score - margin) return 1;
    if (x->score > y->score + margin) return 0;
    if ((x->W == 0) != (y->W == 0)) return x->W != 0; /* no evidence: a loader with workers */
    int xr = x->P == rec_p, yr = y->P == rec_p;
    if (xr != yr) return xr;
    int x2 = x->P == 2, y2 = y->P == 2;
    if (x2 != y2) return x2;
    long xw = (long)x->W * x->P, yw = (long)y->W * y->P;
    if (xw != yw) return xw < yw;
    return x->W < y->W;
}

/* The smallest w >= 1 such that batch k started before batch k-w was done on at most
 * `allowed` rows (no worker runs two batches at once): a lower bound of W. */
static int concurrency_bound(const gpu_cols *d, long allowed)
{
    for (int w = 1; w < SS_CALIB_MAX_WORKERS; w++) {
        long bad = 0;
        for (long k = 0; k < d->n && bad <= allowed; k++)
            if (d->pos[k] >= w && d->s[k] < d->done[k - w] - CALIB_EPS) bad++;
        if (bad <= allowed) return w;
    }
    return SS_CALIB_MAX_WORKERS;
}

/* A lower bound of W*P: batch k cannot start before the loop asked for batch k - W*P, so
 * k - (the last batch asked for by the time k started) <= W*P; the largest such lead
 * over the rows, but for `allowed` rows. */
static long lead_bound(gpu_cols *d, long allowed)
{
    /* the (allowed+1)-th largest lead (with repeats), or the smallest when there are no
     * more rows than that: top[] keeps the largest K in descending order */
    const long K = allowed + 1;
    double *top = d->a;
    long nt = 0, m = 0;
    for (long k = 0; k < d->n; k++) {
        long lo = d->first[k], hi = k, j = lo - 1; /* the last j in [lo, k] with ask[j] <= s[k] */
        while (lo <= hi) {
            long mid = lo + (hi - lo) / 2;
            if (d->ask[mid] <= d->s[k] + CALIB_EPS) {
                j = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        double x = (double)(k - j);
        m++;
        if (nt == K && x <= top[K - 1]) continue;
        long i = nt < K ? nt++ : K - 1;
        while (i > 0 && top[i - 1] < x) {
            top[i] = top[i - 1];
            i--;
        }
        top[i] = x;
    }
    if (m == 0) return 1;
    return (long)top[nt - 1];
}

/* Evaluates W with each of its P candidates: the recorded P, else W * P around the lead
 * seen (give or take one: noisy timestamps) and PyTorch's default 2; keeps the best. */
static void try_w(gpu_cols *d, int W, long lead, int rec_p, double tol, cand *best)
{
    int ps[5], np = 0;
    if (W == 0) {
        ps[np++] = rec_p >= 1 ? rec_p : 2;
    } else if (rec_p >= 1) {
        ps[np++] = rec_p;
    } else {
        long pmin = (lead + W - 1) / W;
        for (long p = pmin - 1; p <= pmin + 1; p++)
            if (p >= 1 && p <= SS_CALIB_MAX_PREFETCH) ps[np++] = (int)p;
        if (pmin - 1 > 2 || pmin + 1 < 2) ps[np++] = 2;
    }
    for (int i = 0; i < np; i++) {
        cand c = {W, ps[i], 0, 0, 0};
        eval(d, &c);
        if (best->W < 0 || better(&c, best, rec_p, tol)) *best = c;
    }
}

/* Fits one GPU: W and P (each fixed when recorded: rec_w, rec_p >= 0 / >= 1), gaps. */
cand ssc_fit_gpu(gpu_cols *d, int rec_w, int rec_p, known_set *known)
{
    const long allowed = (long)(CALIB_OUTLIER_FRACTION * (double)d->n);
    const double tol = 1e-12 * (1.0 + d->cap);
    int w_lo = rec_w >= 0 ? rec_w : concurrency_bound(d, allowed);
    /* the lead bounds W when W is fitted, and P when P is (recorded both: not needed) */
    long lead = rec_w >= 0 && rec_p >= 1 ? 0 : lead_bound(d, allowed);
    cand kb = {-1, 0, 0, 0, INFINITY}, best = {-1, 0, 0, 0, INFINITY};
    /* settings another GPU had: taken when they explain this one exactly (to a fraction
     * of its fetch time), or as well, within the tie margin, as its own candidates at the
     * concurrency bound (noisy traces with many GPUs stay fast) */
    for (int i = 0; i < known->n; i++) {
        cand c = {known->W[i], known->P[i], 0, 0, 0};
        if (rec_w >= 0 && c.W != rec_w) continue;
        if (rec_p >= 1 && c.W > 0 && c.P != rec_p) continue;
        if (rec_w < 0 && c.W > 0 && (c.W < w_lo || (long)c.W * (c.P + 1) < lead)) continue;
        eval(d, &c);
        if (kb.W < 0 || better(&c, &kb, rec_p, tol)) kb = c;
    }
    if (kb.W >= 0 && kb.score <= CALIB_ACCEPT_FRACTION * d->cap + 1e-9) return kb;
    if (kb.W >= 0) {
        cand lb = {-1, 0, 0, 0, INFINITY};
        if (rec_w < 0) try_w(d, 0, lead, rec_p, tol, &lb);
        try_w(d, w_lo, lead, rec_p, tol, &lb);
        if (kb.score <= lb.score * (1.0 + CALIB_TIE_FRACTION) + tol) return kb;
        best = better(&lb, &kb, rec_p, tol) ? lb : kb;
    }
    /* the search: W = 0 and W from the concurrency bound up to the lead seen (at most 8
     * values: beyond them a larger window only shows through W * P) */
    int w0 = rec_w >= 0 ? rec_w : 0, w1 = rec_w;
    if (rec_w < 0) {
        long hi = lead > w_lo + 2 ? lead : w_lo + 2;
        if (hi > w_lo + 7) hi = w_lo + 7;
        w1 = hi > SS_CALIB_MAX_WORKERS ? SS_CALIB_MAX_WORKERS : (int)hi;
    }
    for (int W = w0; W <= w1; W++)
        if (rec_w >= 0 || W == 0 || W >= w_lo) try_w(d, W, lead, rec_p, tol, &best);
    if (best.W < 0) { /* nothing to fit (too few rows): the recorded or default settings */
        best.W = rec_w >= 0 ? rec_w : 1;
        best.P = rec_p >= 1 ? rec_p : 2;
        best.gap = best.refill = best.score = 0;
    }
    int seen = 0;
    for (int i = 0; i < known->n; i++) seen |= known->W[i] == best.W && known->P[i] == best.P;
    if (!seen && known->n < CALIB_MAX_KNOWN) {
        known->W[known->n] = best.W;
        known->P[known->n] = best.P;
        known->n++;
    }
    return best;
}

/* Delivery: the median of stall - max(0, done - ask) (the time the loop still spends on a
 * batch once it is ready); and the medians of the start and stall residuals. */
/* A GPU's delivery and residuals under its fitted settings */
void ssc_finish_gpu(gpu_cols *d, cand *c, double *delivery, double *resid, double *stall_resid)
{
    size_t m = 0;
    for (long k = 0; k < d->n; k++) {
        double w = d->done[k] - d->ask[k];
        d->buf[m++] = d->st[k] - (w > 0 ? w : 0.0);
    }
    double dv = median_of(d->buf, m);
    *delivery = dv > 0 ? dv : 0.0;
    m = 0;
    for (long k = 0; k < d->n; k++) {
        double w = d->done[k] - d->ask[k];
        d->buf[m++] = fabs(d->st[k] - ((w > 0 ? w : 0.0) + *delivery));
    }
    *stall_resid = median_of(d->buf, m);
    m = 0;
    for (long k = 0; k < d->n; k++)
        if (d->pos[k] >= 1) d->buf[m++] = fabs(d->s[k] - predict(d, k, c->W, c->P, c->gap, c->refill));
    *resid = median_of(d->buf, m);
}
