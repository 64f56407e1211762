/* ss_calibrate.c - per-GPU loader settings fitted to the measured fetch starts and stalls
 * (the fit is defined in sim/models/MODELS-pipeline.md, "Calibration"). */
#include "ss_calibrate.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ss_comm.h"
#include "ss_number.h"
#include "ss_row.h"

/* Memory for the columns of a batch of GPUs (five doubles per row and GPU). */
#define CALIB_BATCH_BYTES (32L << 20)
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
#define CALIB_MAX_KNOWN 8
#define CALIB_ITERATIONS 8

/* One GPU's columns over the calibration rows, and scratch. */
typedef struct {
    long n;
    const long *pos;   /* [n] position of the row in its epoch (0 = the epoch's first row) */
    const long *first; /* [n] the row index of the epoch's first row */
    /* fetch start, fetch done, loop asks (train_start - stall), stall, iteration time (the
     * GPU's staged columns, load_gpu) */
    const double *s, *done, *ask, *st, *it;
    double *a, *b, *buf;         /* scratch [n] */
    double cap;                  /* residual cap: the GPU's median fetch time (at least 1e-9 s) */
    double fmed;                 /* the GPU's median fetch time */
} gpu_cols;

typedef struct {
    int W, P;
    double gap, refill, score;
} cand;

static double median_of(double *v, size_t n) { return n ? gsl_stats_median(v, 1, n) : 0.0; }

/* From each row's first and last ask (amin, amax) over the GPUs: the median spread, the
 * step period (the median of the last ask's step between successive rows of one epoch) and
 * how often the asks come together (rows / rows within a quarter period; 0: never).
 * scratch: rows doubles. */
static void asks_summary(const double *amin, const double *amax, const int32_t *epoch, long rows, double *scratch,
                         double *spread, double *period, double *every)
{
    for (long k = 0; k < rows; k++) scratch[k] = amax[k] - amin[k];
    *spread = median_of(scratch, (size_t)rows);
    size_t np = 0;
    for (long k = 1; k < rows; k++)
        if (epoch[k] == epoch[k - 1]) scratch[np++] = amax[k] - amax[k - 1];
    *period = median_of(scratch, np);
    long together = 0;
    for (long k = 0; k < rows; k++) together += amax[k] - amin[k] < 0.25 * *period;
    *every = together > 0 ? (double)rows / (double)together : 0.0;
}

ss_status ss_calib_asks(ss_trace_file *t, long max_rows, double *spread, double *period, double *every)
{
    *spread = *period = *every = 0.0;
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const long rows = m->iterations < max_rows ? m->iterations : max_rows;
    const int G = m->gpus, B = 64; /* GPUs read at a time */
    if (rows < 2 || G < 2) return SS_OK;
    const size_t nb = (size_t)rows * (size_t)(G < B ? G : B);
    double *ts = malloc(3 * nb * sizeof *ts), *amin = malloc(3 * (size_t)rows * sizeof *amin);
    int32_t *ep = malloc((size_t)rows * sizeof *ep);
    ss_status st = ts && amin && ep ? SS_OK : ss_fail(SS_ENOMEM, "out of memory reading the asks of %ld rows", rows);
    double *amax = amin ? amin + rows : NULL, *scratch = amin ? amin + 2 * rows : NULL;
    for (long k = 0; st == SS_OK && k < rows; k++) amin[k] = INFINITY, amax[k] = -INFINITY;
    if (st == SS_OK) st = ss_trace_read_epochs(t, 0, rows, ep);
    for (int g0 = 0; st == SS_OK && g0 < G; g0 += B) {
        const int ng = G - g0 < B ? G - g0 : B;
        double *it = ts + nb, *stall = ts + 2 * nb;
        st = ss_trace_read_loop_columns(t, 0, rows, g0, ng, ts, it, stall);
        for (long k = 0; st == SS_OK && k < rows; k++)
            for (int g = 0; g < ng; g++) {
                double a = ts[k * ng + g] - stall[k * ng + g];
                if (a < amin[k]) amin[k] = a;
                if (a > amax[k]) amax[k] = a;
            }
    }
    if (st == SS_OK) asks_summary(amin, amax, ep, rows, scratch, spread, period, every);
    free(ts);
    free(amin);
    free(ep);
    return st;
}

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

/* The margin by which a refill gap of a GPU must improve the score `best` to be fitted
 * (and by which the data must reject the prior to keep 0: refill_prior) */
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
        const int agree = at_min >= (first_window < CALIB_GAP_AGREE_ROWS ? first_window : CALIB_GAP_AGREE_ROWS) &&
                          at_min >= 1;
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

typedef struct {
    int n;
    int W[CALIB_MAX_KNOWN], P[CALIB_MAX_KNOWN];
} known_set;

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
static cand fit_gpu(gpu_cols *d, int rec_w, int rec_p, known_set *known)
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
/* The refill gap's prior. A refill gap is the time from the loop's ask, which frees a slot
 * of the window, to a worker's start of the batch it sends: one hop through a queue
 * between processes and a wake-up, as the delivery is in the other direction. Where the
 * window never binds in the trace the fit reads 0 (nothing shows the gap); it then takes
 * the delivery d, unless the trace rejects it (the score with refill d worse than with 0
 * by more than the margin a fitted refill gap must gain). On the real runs whose window
 * binds, the fitted refill gaps are 0.8-1.3 times the delivery. */
static void refill_prior(gpu_cols *d, cand *c, double delivery)
{
    if (c->W < 1 || c->refill > 0.0 || !(delivery > 0.0)) return;
    long m;
    const double fixed = fixed_rows(d, c->W, &m);
    fill_ab(d, c->W, c->P);
    const double s0 = score_ab(d, c->W, fixed, m, c->gap, 0.0), sd = score_ab(d, c->W, fixed, m, c->gap, delivery);
    if (sd <= s0 + refill_margin(d, s0)) c->refill = delivery;
}

/* A GPU's delivery (then the refill gap's prior) and residuals under its fitted settings */
static void finish_gpu(gpu_cols *d, cand *c, double *delivery, double *resid, double *stall_resid)
{
    size_t m = 0;
    for (long k = 0; k < d->n; k++) {
        double w = d->done[k] - d->ask[k];
        d->buf[m++] = d->st[k] - (w > 0 ? w : 0.0);
    }
    double dv = median_of(d->buf, m);
    *delivery = dv > 0 ? dv : 0.0;
    refill_prior(d, c, *delivery);
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

typedef struct {
    ss_trace_file *t;
    long rows;
    int batch, loaded_g0;
    int g_lo, g_hi; /* this rank's GPUs: batches are counted from g_lo and end at g_hi */
    int32_t *epoch;
    double *fs, *ft, *ts, *it, *stall; /* [rows][batch] */
    /* the columns of a group of CALIB_GROUP consecutive GPUs of the batch, GPU-major
     * ([GPU][STAGE_COLS][rows]): gathered a cache line at a time (a column of the batch read
     * GPU by GPU steps through memory a row apart, which on a 512-GPU batch is a power of
     * two bytes and thrashes the cache) */
    double *stage;
    int staged_g0;
} calib_io;

#define CALIB_GROUP 8
enum { STAGE_S, STAGE_DONE, STAGE_ASK, STAGE_ST, STAGE_FT, STAGE_IT, STAGE_COLS };

/* The batch of GPUs [*g0, *g0 + *ng) that holds g. */
static void batch_of(const calib_io *io, int g, int *g0, int *ng)
{
    *g0 = io->g_lo + (g - io->g_lo) / io->batch * io->batch;
    *ng = *g0 + io->batch <= io->g_hi ? io->batch : io->g_hi - *g0;
}

/* Loads GPU g's columns into d (pointers into the staged group; d->buf gets a copy of
 * the fetch times), reading the batch of GPUs holding g and staging its group when needed. */
static ss_status load_gpu(calib_io *io, int g, gpu_cols *d)
{
    int g0, ng;
    batch_of(io, g, &g0, &ng);
    if (io->loaded_g0 != g0) {
        ss_status st = ss_trace_read_fetch_columns(io->t, 0, io->rows, g0, ng, io->fs, io->ft,
                                                   io->loaded_g0 < 0 ? io->epoch : NULL);
        if (st == SS_OK) st = ss_trace_read_loop_columns(io->t, 0, io->rows, g0, ng, io->ts, io->it, io->stall);
        if (st != SS_OK) return st;
        io->loaded_g0 = g0;
        io->staged_g0 = -1;
    }
    const long n = io->rows;
    const int q0 = g0 + (g - g0) / CALIB_GROUP * CALIB_GROUP; /* the group's first GPU */
    const int nq = q0 + CALIB_GROUP <= g0 + ng ? CALIB_GROUP : g0 + ng - q0;
    if (io->staged_g0 != q0) {
        for (long k = 0; k < n; k++) {
            const long x = k * ng + (q0 - g0);
            for (int q = 0; q < nq; q++) {
                double *c = io->stage + (size_t)q * STAGE_COLS * (size_t)n;
                c[STAGE_S * n + k] = io->fs[x + q];
                c[STAGE_DONE * n + k] = io->fs[x + q] + io->ft[x + q];
                c[STAGE_ASK * n + k] = io->ts[x + q] - io->stall[x + q];
                c[STAGE_ST * n + k] = io->stall[x + q];
                c[STAGE_FT * n + k] = io->ft[x + q];
                c[STAGE_IT * n + k] = io->it[x + q];
            }
        }
        io->staged_g0 = q0;
    }
    double *c = io->stage + (size_t)(g - q0) * STAGE_COLS * (size_t)n;
    d->s = c + STAGE_S * n;
    d->done = c + STAGE_DONE * n;
    d->ask = c + STAGE_ASK * n;
    d->st = c + STAGE_ST * n;
    d->it = c + STAGE_IT * n;
    memcpy(d->buf, c + STAGE_FT * n, (size_t)n * sizeof *d->buf);
    double cap = median_of(d->buf, (size_t)n);
    d->fmed = cap;
    d->cap = cap > 1e-9 ? cap : 1e-9;
    return SS_OK;
}

/* GPU g's asks (train_start - stall; d from load_gpu): counts the rows whose next ask is
 * the ask plus the iteration time, and widens each row's [amin, amax] over GPUs. */
static void ask_stats(const calib_io *io, const gpu_cols *d, long *pairs, long *consistent, double *amin,
                      double *amax)
{
    const double *ask = d->ask, *it = d->it;
    for (long k = 0; k < io->rows; k++) {
        double a = ask[k];
        if (a < amin[k]) amin[k] = a; /* both start at infinity */
        if (a > amax[k]) amax[k] = a;
        if (k + 1 == io->rows || io->epoch[k + 1] != io->epoch[k]) continue;
        (*pairs)++;
        *consistent += fabs(a + it[k] - ask[k + 1]) <= 1e-6 + 0.01 * it[k];
    }
}

static void calib_free_io(calib_io *io)
{
    free(io->epoch);
    free(io->fs);
    free(io->ft);
    free(io->ts);
    free(io->it);
    free(io->stall);
    free(io->stage);
}

/* CPU sharing's view of the trace: the calibrated loaders, each GPU's median fetch time,
 * the median over the rows of the slowest GPU's iteration time and of the step (that
 * iteration minus the largest stall); imax and smax are reordered. */
/* The training processes' alignment (MODELS-pipeline.md, "CPU sharing"), per pool of
 * cores: over the calibration's first `rows` rows, the mean of (n - 1) / (G_p - 1), where n
 * is the largest number of the pool's G_p GPUs whose step starts (train_start; j = 1: whose
 * asks plus their batches' deliveries, ask + max(0, stall - max(0, done - ask)) with ask =
 * train_start - stall) lie within b of each other (a spread <= b), b the pool's step CPU time (the
 * median over its GPUs of /loop_cpu_time, the fetch left out where W = 0): 1 when every
 * row's GPUs step together, 0 when each steps apart. v holds [row][GPU][2] (every rank
 * holds them alike after the all-reduce, so every rank finds the same shares). Writes
 * align[2 g + j], GPU g's pool's, 1 for a pool of one GPU. */
#define CALIB_ALIGN_BYTES (4L << 20)
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void alignment(const ss_calib *c, const ss_trace_meta *m, const int *pid, int npools, const double *v,
                      long rows, double *align)
{
    const int G = c->gpus;
    double *b = malloc((size_t)G * sizeof *b), *x = malloc((size_t)G * sizeof *x);
    for (int p = 0; p < npools; p++) {
        size_t nb = 0;
        for (int g = 0; b && g < G; g++)
            if (pid[g] == p) {
                double L = m->loop_cpu[g] - (c->workers_gpu[g] == 0 ? m->fetch_cpu[g] : 0.0);
                b[nb++] = L > 0.0 ? L : 0.0;
            }
        double bp = b ? median_of(b, nb) : 0.0, share[2] = {1.0, 1.0};
        if (nb > 1 && rows > 0 && x) {
            for (int j = 0; j < 2; j++) {
                double sum = 0.0;
                for (long k = 0; k < rows; k++) {
                    size_t n = 0;
                    for (int g = 0; g < G; g++)
                        if (pid[g] == p) x[n++] = v[((size_t)k * (size_t)G + (size_t)g) * 2 + (size_t)j];
                    qsort(x, n, sizeof *x, cmp_double);
                    size_t best = 1;
                    for (size_t lo = 0, hi = 0; hi < n; hi++) { /* the widest run within bp */
                        while (x[hi] - x[lo] > bp) lo++;
                        best = hi - lo + 1 > best ? hi - lo + 1 : best;
                    }
                    sum += (double)(best - 1) / (double)(n - 1);
                }
                share[j] = sum / (double)rows;
            }
        }
        for (int g = 0; g < G; g++)
            if (pid[g] == p)
                for (int j = 0; j < 2; j++) align[2 * g + j] = share[j];
    }
    free(b);
    free(x);
}

/* The trace's period and step (ss_calib.period, .step) from each row's largest iteration
 * time and stall over the GPUs; scratch holds n doubles. */
static void period_and_step(ss_calib *c, const double *imax, const double *smax, size_t n, double *scratch)
{
    for (size_t k = 0; k < n; k++) scratch[k] = imax[k] - smax[k] > 0.0 ? imax[k] - smax[k] : 0.0;
    c->step = median_of(scratch, n);
    memcpy(scratch, imax, n * sizeof *scratch);
    c->period = median_of(scratch, n);
}

static ss_status build_share(ss_calib *c, const ss_trace_meta *m, const double *fmed, const double *align)
{
    const double iter = c->period, step = c->step;
    c->share = malloc(sizeof *c->share);
    if (!c->share) return ss_fail(SS_ENOMEM, "out of memory for CPU sharing");
    ss_status st = ss_share_build(c->share, c->gpus, m->fetch_cpu, m->loop_cpu, m->fetch_wait, m->loop_wait,
                                  m->cpu_pool, m->cpu_pool_cores, fmed, c->workers_gpu, c->gap_gpu, c->delivery_gpu,
                                  iter, step, align);
    if (st == SS_OK && m->fetch_wait_start && c->share->fetch_wait) {
        st = ss_share_set_start(c->share, m->fetch_wait_start, c->prefetch_gpu);
        if (st != SS_OK) ss_share_free(c->share);
    }
    if (st != SS_OK) {
        free(c->share);
        c->share = NULL;
    }
    return st;
}

ss_status ss_calibrate(ss_trace_file *t, long max_rows, ss_calib *c)
{
    ss_comm self;
    ss_comm_self(&self);
    return ss_calibrate_comm(&self, t, max_rows, c);
}

/* Adds every rank's per-GPU results (each GPU is fitted on one rank, the others hold 0,
 * so the sums are exact), with the fetch medians fmed. Collective. */
static ss_status share_results(const ss_comm *comm, ss_calib *c, double *fmed)
{
    if (!comm->mpi || comm->size == 1) return SS_OK;
    int G = c->gpus, rc = MPI_SUCCESS;
    int *iv[2] = {c->workers_gpu, c->prefetch_gpu};
    double *dv[7] = {c->gap_gpu, c->refill_gpu, c->delivery_gpu, c->resid_gpu, c->stall_resid_gpu, c->ready_gpu, fmed};
    const int nd = 7;
    for (int i = 0; rc == MPI_SUCCESS && i < 2; i++) rc = MPI_Allreduce(MPI_IN_PLACE, iv[i], G, MPI_INT, MPI_SUM, comm->comm);
    for (int i = 0; rc == MPI_SUCCESS && i < nd; i++)
        rc = MPI_Allreduce(MPI_IN_PLACE, dv[i], G, MPI_DOUBLE, MPI_SUM, comm->comm);
    return rc == MPI_SUCCESS ? SS_OK : ss_fail(SS_EMPI, "calibration: sharing the per-GPU results failed");
}

ss_status ss_calibrate_comm(const ss_comm *comm, ss_trace_file *t, long max_rows, ss_calib *c)
{
    double t0 = ss_wtime();
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const int G = m->gpus;
    memset(c, 0, sizeof *c);
    calib_io io = {.t = t, .loaded_g0 = -1, .staged_g0 = -1};
    /* at most max_rows rows, fewer on wide traces so that one batch holds every GPU (a
     * column batch still reads whole chunks, which span all GPUs), but never below
     * SS_CALIB_MIN_ROWS */
    long fit = CALIB_BATCH_BYTES / (5 * (long)sizeof(double) * G);
    io.rows = max_rows < fit ? max_rows : fit;
    if (io.rows < SS_CALIB_MIN_ROWS) io.rows = max_rows < SS_CALIB_MIN_ROWS ? max_rows : SS_CALIB_MIN_ROWS;
    if (io.rows > m->iterations) io.rows = m->iterations;
    if (io.rows < 1) io.rows = 1;
    long per_gpu = io.rows * 5 * (long)sizeof(double);
    io.batch = (int)(CALIB_BATCH_BYTES / per_gpu < G ? CALIB_BATCH_BYTES / per_gpu : G);
    if (io.batch < 1) io.batch = 1;
    c->gpus = G;
    c->rows_used = io.rows;
    const size_t n = (size_t)io.rows, cols = n * (size_t)io.batch, ng = (size_t)G;
    c->workers_gpu = calloc(ng, sizeof *c->workers_gpu);
    c->prefetch_gpu = calloc(ng, sizeof *c->prefetch_gpu);
    c->gap_gpu = calloc(ng, sizeof *c->gap_gpu);
    c->refill_gpu = calloc(ng, sizeof *c->refill_gpu);
    c->delivery_gpu = calloc(ng, sizeof *c->delivery_gpu);
    c->resid_gpu = calloc(ng, sizeof *c->resid_gpu);
    c->stall_resid_gpu = calloc(ng, sizeof *c->stall_resid_gpu);
    c->ready_gpu = calloc(ng, sizeof *c->ready_gpu);
    if (m->fetch_cpu && (c->fetch_cpu_gpu = malloc(ng * sizeof *c->fetch_cpu_gpu)) != NULL)
        memcpy(c->fetch_cpu_gpu, m->fetch_cpu, ng * sizeof *c->fetch_cpu_gpu);
    io.epoch = malloc(n * sizeof *io.epoch);
    io.fs = malloc(cols * sizeof *io.fs);
    io.ft = malloc(cols * sizeof *io.ft);
    io.ts = malloc(cols * sizeof *io.ts);
    io.it = malloc(cols * sizeof *io.it);
    io.stall = malloc(cols * sizeof *io.stall);
    io.stage = malloc((size_t)CALIB_GROUP * STAGE_COLS * n * sizeof *io.stage);
    long *pos = malloc(n * sizeof *pos), *first = malloc(n * sizeof *first);
    double *work = malloc(9 * n * sizeof *work), *gaps = malloc(ng * sizeof *gaps), *fmed = calloc(ng, sizeof *fmed);
    double *spread = work ? work + 3 * n : NULL, *amin = work ? work + 4 * n : NULL, *amax = work ? work + 5 * n : NULL;
    /* each row's largest iteration time and stall over the GPUs (the trace's period and
     * step: CPU and storage sharing) */
    double *imax = work ? work + 6 * n : NULL, *smax = work ? work + 7 * n : NULL;
    /* each row's largest delivery over the GPUs (ss_calib.delivery_rows) */
    double *dmax = work ? work + 8 * n : NULL;
    gpu_cols d = {.n = io.rows, .pos = pos, .first = first};
    if (work) { /* s, done, ask, st and it point into the staged columns (load_gpu) */
        d.a = work;
        d.b = work + n;
        d.buf = work + 2 * n;
    }
    ss_status st = SS_OK;
    if (!c->workers_gpu || !c->prefetch_gpu || !c->gap_gpu || !c->refill_gpu || !c->delivery_gpu || !c->resid_gpu ||
        !c->stall_resid_gpu || !c->ready_gpu || (m->fetch_cpu && !c->fetch_cpu_gpu) || !io.epoch || !io.fs || !io.ft || !io.ts || !io.it || !io.stall || !io.stage || !pos || !first || !work || !gaps || !fmed)
        st = ss_fail(SS_ENOMEM, "out of memory for calibration (%ld rows x %d GPUs)", io.rows, G);
    int rec_p = m->prefetch_factor < 1 ? -1 : (int)m->prefetch_factor;
    const int *rec_w = m->loader_workers;
    c->recorded_workers = rec_w != NULL;
    c->recorded_prefetch = rec_p >= 1;
    c->no_fetch = !ss_trace_meta_has_fetch(m);
    /* CPU sharing's statistics (build_share) where the trace has what it needs */
    const int want_share = !c->no_fetch && ss_trace_meta_has_cpu(m);
    /* the training processes' alignment per pool (alignment) over the first al_rows rows:
     * each GPU's step starts and asks, [row][GPU][2] */
    int npools = 0, *pid = NULL;
    long al_rows = 0;
    double *al_v = NULL, *align = NULL;
    if (st == SS_OK && want_share) {
        pid = malloc(ng * sizeof *pid);
        align = malloc(2 * ng * sizeof *align);
        if (pid) npools = ss_share_pool_ids(G, m->cpu_pool, pid); /* as ss_share_build numbers them */
        al_rows = CALIB_ALIGN_BYTES / (2 * (long)sizeof(double) * G);
        al_rows = al_rows < io.rows ? al_rows : io.rows;
        al_v = calloc((size_t)al_rows * ng * 2 + 1, sizeof *al_v);
        if (!pid || !align || !al_v) st = ss_fail(SS_ENOMEM, "out of memory for calibration (%d GPUs)", G);
    }
    known_set known = {0};
    long pairs = 0, consistent = 0;
    /* this rank's GPUs: a contiguous run of SS_CALIB_CHUNK-GPU blocks */
    const int nchunks = (G + SS_CALIB_CHUNK - 1) / SS_CALIB_CHUNK;
    const int c0 = (int)((long)nchunks * comm->rank / comm->size), c1 = (int)((long)nchunks * (comm->rank + 1) / comm->size);
    const int g_lo = c0 * SS_CALIB_CHUNK, g_hi = c1 * SS_CALIB_CHUNK < G ? c1 * SS_CALIB_CHUNK : G;
    io.g_lo = g_lo;
    io.g_hi = g_hi;
    for (long k = 0; amin && k < io.rows; k++) {
        amin[k] = INFINITY;
        amax[k] = -INFINITY;
        imax[k] = smax[k] = dmax[k] = -INFINITY;
    }
    /* the rows' epochs (the asks' period and the loader's start-up below): read with the
     * first GPU's columns, or here by a rank that fits no GPU (more ranks than blocks of
     * GPUs), which read none: every rank must see them */
    if (st == SS_OK && g_lo >= g_hi) st = ss_trace_read_epochs(t, 0, io.rows, io.epoch);
    for (int g = g_lo; st == SS_OK && g < g_hi; g++) {
        if (g % SS_CALIB_CHUNK == 0) known.n = 0; /* each block starts afresh */
        st = load_gpu(&io, g, &d);
        if (st != SS_OK) break;
        ask_stats(&io, &d, &pairs, &consistent, amin, amax);
        fmed[g] = d.fmed;
        /* each row's largest stall (also the loader's start-up: each epoch's first row),
         * iteration and delivery (the stall beyond the wait for the batch to be ready);
         * for the alignment, the step's start and the ask plus the delivery (where the
         * loader is ahead, the step starts then) */
        for (long k = 0; k < io.rows; k++) {
            const double dv = ss_row_delivery_of(d.st[k], d.ask[k] + d.st[k], d.done[k]);
            smax[k] = d.st[k] > smax[k] ? d.st[k] : smax[k];
            imax[k] = d.it[k] > imax[k] ? d.it[k] : imax[k];
            dmax[k] = dv > dmax[k] ? dv : dmax[k];
            if (want_share && k < al_rows) {
                al_v[((size_t)k * ng + (size_t)g) * 2] = d.ask[k] + d.st[k];
                al_v[((size_t)k * ng + (size_t)g) * 2 + 1] = d.ask[k] + dv;
            }
        }
        if (g == g_lo)
            for (long k = 0; k < io.rows; k++) {
                int new_epoch = k == 0 || io.epoch[k] != io.epoch[k - 1];
                first[k] = new_epoch ? k : first[k - 1];
                pos[k] = k - first[k];
            }
        cand best;
        if (c->no_fetch) {
            best = (cand){rec_w ? rec_w[g] : 1, rec_p >= 1 ? rec_p : 2, 0, 0, 0};
        } else {
            best = fit_gpu(&d, rec_w ? rec_w[g] : -1, rec_p, &known);
        }
        c->workers_gpu[g] = best.W;
        c->prefetch_gpu[g] = best.P;
        c->gap_gpu[g] = best.gap;
        if (!c->no_fetch) /* (the delivery, then the refill gap's prior) */
            finish_gpu(&d, &best, &c->delivery_gpu[g], &c->resid_gpu[g], &c->stall_resid_gpu[g]);
        /* the share of its rows whose batch was ready at the ask, past each epoch's first
         * max(W, 1) rows (an epoch's first batches are never ready when asked for) */
        long ready = 0, counted = 0;
        for (long k = 0; k < io.rows; k++)
            if (pos[k] >= (best.W > 1 ? best.W : 1)) {
                ready += d.done[k] <= d.ask[k];
                counted++;
            }
        c->ready_gpu[g] = counted > 0 ? (double)ready / (double)counted : 0.0;
        c->refill_gpu[g] = best.refill;
    }
    st = ss_comm_any_failed(comm, st);
    if (st == SS_OK) st = share_results(comm, c, fmed);
    if (st == SS_OK && comm->mpi && comm->size > 1) {
        long cnt[2] = {pairs, consistent};
        int rc = MPI_Allreduce(MPI_IN_PLACE, cnt, 2, MPI_LONG, MPI_SUM, comm->comm);
        if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, amin, (int)n, MPI_DOUBLE, MPI_MIN, comm->comm);
        if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, amax, (int)n, MPI_DOUBLE, MPI_MAX, comm->comm);
        if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, imax, (int)n, MPI_DOUBLE, MPI_MAX, comm->comm);
        if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, smax, (int)n, MPI_DOUBLE, MPI_MAX, comm->comm);
        if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, dmax, (int)n, MPI_DOUBLE, MPI_MAX, comm->comm);
        /* each GPU's values come from one rank, the others hold 0: the sum is exact */
        const int na = (int)(al_rows * 2 * (long)G);
        if (rc == MPI_SUCCESS && want_share && na > 0)
            rc = MPI_Allreduce(MPI_IN_PLACE, al_v, na, MPI_DOUBLE, MPI_SUM, comm->comm);
        if (rc != MPI_SUCCESS) st = ss_fail(SS_EMPI, "calibration: sharing the asks failed");
        pairs = cnt[0];
        consistent = cnt[1];
    }
    if (st == SS_OK) {
        asks_summary(amin, amax, io.epoch, io.rows, spread, &c->ask_spread, &c->ask_period, &c->ask_together_every);
        c->asks_consistent = pairs > 0 && (double)consistent >= 0.99 * (double)pairs;
        c->ask_lags = c->asks_consistent && G > 1 && c->ask_spread > 1e-9;
        c->agree = 1;
        for (int g = 0; g < G; g++) {
            if (c->workers_gpu[g] > c->workers) c->workers = c->workers_gpu[g];
            if (c->workers_gpu[g] != c->workers_gpu[0] || c->prefetch_gpu[g] != c->prefetch_gpu[0]) c->agree = 0;
            gaps[g] = c->gap_gpu[g];
        }
        c->worker_gap = median_of(gaps, ng);
        /* the loader's start-up: the largest stall of each epoch's first row, on average */
        double up = 0.0;
        long ne = 0;
        for (long k = 0; k < io.rows; k++)
            if (k == 0 || io.epoch[k] != io.epoch[k - 1]) {
                up += smax[k];
                ne++;
            }
        c->startup = ne > 0 ? up / (double)ne : 0.0;
        c->startup_epochs = ne;
        period_and_step(c, imax, smax, (size_t)io.rows, spread); /* (spread is no longer needed) */
        c->delivery_rows = c->no_fetch ? 0.0 : median_of(dmax, n);
    }
    if (st == SS_OK && want_share) {
        alignment(c, m, pid, npools, al_v, al_rows, align);
        st = build_share(c, m, fmed, align);
        if (st == SS_OK) st = ss_share_set_delivery_rows(c->share, c->delivery_rows);
        if (st == SS_OK) st = ss_share_set_ready(c->share, c->ready_gpu);
    }
    free(pid);
    free(align);
    free(al_v);
    calib_free_io(&io);
    free(pos);
    free(first);
    free(work);
    free(gaps);
    c->fetch_med_gpu = fmed; /* (NULL out of memory: then st != SS_OK) */
    if (st != SS_OK) ss_calib_free(c);
    c->seconds = ss_wtime() - t0;
    return st;
}

void ss_calib_free(ss_calib *c)
{
    free(c->workers_gpu);
    free(c->prefetch_gpu);
    free(c->gap_gpu);
    free(c->refill_gpu);
    free(c->delivery_gpu);
    free(c->resid_gpu);
    free(c->stall_resid_gpu);
    free(c->ready_gpu);
    c->ready_gpu = NULL;
    free(c->fetch_cpu_gpu);
    free(c->fetch_med_gpu);
    c->fetch_cpu_gpu = NULL;
    if (c->share) ss_share_free(c->share);
    free(c->share);
    c->share = NULL;
    c->workers_gpu = c->prefetch_gpu = NULL;
    c->gap_gpu = c->refill_gpu = c->delivery_gpu = c->resid_gpu = c->stall_resid_gpu = NULL;
}

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

/* ---- printing ---- */

#define PRINT_GROUPS 6
/* A pool whose measured stretch of its fetches' or steps' CPU work (with their waits for
 * a core) is more than CALIB_DISTURBED_RATIO times the model's at the trace's own load,
 * and whose excess wait is at least CALIB_DISTURBED_SHARE of an iteration, was most likely
 * shared with other processes: on the 605 committed real traces with waits the ratio is
 * at most CALIB_CLEAN_RATIO (pytorch-seq's base, 2.06 for its fetches); on a new user's run
 * during another job's compile 3.2 and 4.4, its clean repeats at most 1.5 */
#define CALIB_DISTURBED_RATIO 2.5
#define CALIB_CLEAN_RATIO 2.1
#define CALIB_DISTURBED_SHARE 0.05
#define PRINT_WORST 3

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

void ss_calib_print(const ss_calib *c, FILE *out)
{
    const int G = c->gpus;
    fprintf(out, "calibration: %d %s, from the first %ld %s (took %.3f s); %s\n", G, ss_plural(G, "GPU", "GPUs"),
            c->rows_used, ss_plural(c->rows_used, "iteration", "iterations"), c->seconds, loader_source(c));
    if (c->fetch_cpu_gpu) {
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
    if (c->share && c->share->pools > 0) {
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
        if (sh->s0m) { /* what the kernel measured: the waits for a core the trace records */
            char fm[48], sm[48];
            fprintf(out, "calibration: CPU sharing: measured stretch ((CPU time + wait for a core) / CPU time, from "
                         "/fetch_wait_time and /loop_wait_time): fetches %s, steps %s; a scenario's CPU parts are "
                         "these measured times x (the model's stretch at the scenario's load / at the trace's)\n",
                    range_text(sh->s0m, sh->pools, fm, sizeof fm), range_text(sh->s0m_step, sh->pools, sm, sizeof sm));
            /* waits for a core far beyond what the job's own threads explain, by enough to
             * matter (CALIB_DISTURBED_SHARE of an iteration): others ran */
            int worst = -1;
            double wr = 0.0;
            for (int p = 0; p < sh->pools && sh->s0m_step; p++) {
                double cf = 0.0, cs = 0.0;
                int n = 0;
                for (int g = 0; g < G; g++)
                    if (sh->pool_of[g] == p) {
                        cf += sh->fetch_cpu[g];
                        cs += sh->step_cpu[g];
                        n++;
                    }
                if (!(sh->s0[p] > 0) || n == 0) continue;
                const double over = CALIB_DISTURBED_SHARE * sh->iter_mean;
                const double rf = (sh->s0m[p] - sh->s0[p]) * cf / n > over ? sh->s0m[p] / sh->s0[p] : 0.0,
                             rs = (sh->s0m_step[p] - sh->s0[p]) * cs / n > over ? sh->s0m_step[p] / sh->s0[p] : 0.0;
                const double r = rf > rs ? rf : rs;
                if (r > wr) {
                    wr = r;
                    worst = p;
                }
            }
            if (worst >= 0 && wr > CALIB_DISTURBED_RATIO) {
                int g0 = 0;
                while (g0 < G - 1 && sh->pool_of[g0] != worst) g0++;
                fprintf(out, "calibration: warning: GPU %d's pool: its CPU work, with its waits for a core, took %.1f "
                             "times as long as the model's stretch for its own threads' load gives (measured stretch %.2f "
                             "for the fetches and %.2f for the steps, the model's %.2f): other processes most likely used "
                             "its cores while it was recorded, and every prediction from this trace carries that "
                             "contention; record the run again on quiet cores (on the committed real runs the ratio is at "
                             "most %.1f)\n",
                        g0, wr, sh->s0m[worst], sh->s0m_step[worst], sh->s0[worst], CALIB_CLEAN_RATIO);
            }
        }
        if (sh->align_trace) { /* how often the training processes stepped together */
            /* the first pool of more than one GPU (a pool of one has nothing to align): the
             * pool of the first GPU whose pool an earlier GPU opened, named by that GPU g0 */
            int p0 = -1, g0 = 0;
            for (int g = 0, opened = 0; g < G && p0 < 0; g++) {
                if (sh->pool_of[g] < opened) p0 = sh->pool_of[g];
                else opened++;
            }
            while (p0 >= 0 && sh->pool_of[g0] != p0) g0++;
            if (p0 >= 0) {
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
        }
    }
    if (c->ask_lags)
        fprintf(out, "calibration: the GPUs' loops ask for a batch up to %.4f s apart (median over iterations): the "
                     "replay keeps each GPU's measured lag\n", c->ask_spread);
    /* the distinct (W, P) with their GPU count and the medians of their gaps */
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
    if (!v) return;
    for (int i = 0; i < ng; i++) {
        double med[5];
        const double *src[5] = {c->gap_gpu, c->refill_gpu, c->delivery_gpu, c->resid_gpu, c->stall_resid_gpu};
        for (int q = 0; q < 5; q++) {
            size_t m = 0;
            for (int g = 0; g < G; g++)
                if (c->workers_gpu[g] == gw[i] && c->prefetch_gpu[g] == gp[i]) v[m++] = src[q][g];
            med[q] = median_of(v, m);
        }
        char who[64];
        if (gn[i] == G) snprintf(who, sizeof who, "%s", G == 1 ? "the GPU" : "every GPU");
        else if (gn[i] == 1) {
            int g = 0;
            while (!(c->workers_gpu[g] == gw[i] && c->prefetch_gpu[g] == gp[i])) g++;
            snprintf(who, sizeof who, "GPU %d", g);
        } else snprintf(who, sizeof who, "%d GPUs", gn[i]);
        if (c->no_fetch) { /* what was recorded (the defaults are not shown: nothing uses them) */
            if (c->recorded_workers && c->recorded_prefetch)
                fprintf(out, "calibration: %s: W=%d%s P=%d as recorded; gaps and delivery not fitted\n", who, gw[i],
                        gw[i] == 0 ? " (synchronous loading)" : "", gp[i]);
            else if (c->recorded_workers)
                fprintf(out, "calibration: %s: W=%d%s as recorded; P, gaps and delivery not fitted\n", who, gw[i],
                        gw[i] == 0 ? " (synchronous loading)" : "");
            else if (c->recorded_prefetch)
                fprintf(out, "calibration: %s: P=%d as recorded; W, gaps and delivery not fitted\n", who, gp[i]);
            continue;
        }
        char pf[16];
        if (gw[i] == 0) snprintf(pf, sizeof pf, "-"); /* synchronous loading has no prefetch */
        else snprintf(pf, sizeof pf, "%d", gp[i]);
        fprintf(out, "calibration: %s: W=%d%s P=%s, worker gap %.4f s, refill gap %.4f s, delivery %.4f s%s", who, gw[i],
                gw[i] == 0 ? " (synchronous loading)" : "", pf, med[0], med[1], med[2],
                gn[i] == 1 ? "" : " (medians over them)");
        fprintf(out, "; residuals (median |predicted - measured|): fetch start %.4f s, stall %.4f s\n", med[3],
                med[4]);
    }
    if (other) fprintf(out, "calibration: %d more GPUs with other settings (per GPU in results.h5)\n", other);
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
    /* the GPUs the fit explains least */
    if (G > 1 && !c->no_fetch) {
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
    free(v);
}
