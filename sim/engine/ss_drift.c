/* ss_drift.c - finds a stretch of a measured run whose iteration times run at another level
 * than the rest. */
/* The method, step by step:
 *  1. x[i] is summarised row i's iteration time, the largest over its GPUs (they wait for
 *     each other at every step), in trace order over every epoch.
 *  2. The rows fall into B consecutive blocks of m = max(SS_DRIFT_MIN_BLOCK, n / 50) rows
 *     (the last block takes the remainder). b[k] is block k's median.
 *  3. The rows' noise: s = 1.4826 * the median of |x[i] - b[k(i)]| (a robust standard
 *     deviation around each row's own block, so that a level change does not count as
 *     noise). A block median's standard error is then e = 1.2533 * s / sqrt(m).
 *  4. M is the median of the block medians. Block k is off when
 *     |b[k] - M| > max(4 e, SS_DRIFT_MIN_CHANGE * M): clearly beyond the noise of a block
 *     median, and large enough to move a prediction by more than its goal.
 *  5. The stretch is the longest run of at least two consecutive off blocks on the same side
 *     of M. Its level is the median of its rows, the rest the median of the others.
 *  6. It is reported when it moves the run's typical time by SS_DRIFT_MIN_EFFECT or more:
 *     |level - rest| * (its rows / all rows) >= SS_DRIFT_MIN_EFFECT * rest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "ss_drift.h"

/* A level change smaller than this share of the typical iteration time is not reported:
 * the validation's goal for a prediction's error (datasets/VALIDATION.md). */
#define SS_DRIFT_MIN_CHANGE 0.05
/* Nor a stretch that moves the run's typical iteration time by less than this share (its
 * rows times its change): the goal for the baseline replay's error. */
#define SS_DRIFT_MIN_EFFECT 0.02
/* How many standard errors of a block median a block must lie from the typical level. */
#define SS_DRIFT_SIGMAS 4.0
/* Rows read per slab. */
#define SS_DRIFT_SLAB 65536L

static double median_of(double *v, size_t n)
{
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Every row's iteration time (its largest over the GPUs), epoch and index, in trace order. */
static ss_status read_rows(ss_trace_file *t, double **x, int32_t **ep, int64_t **ix, long *n)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    long N = m->iterations;
    *x = malloc((size_t)(N > 0 ? N : 1) * sizeof **x);
    *ep = malloc((size_t)(N > 0 ? N : 1) * sizeof **ep);
    *ix = malloc((size_t)(N > 0 ? N : 1) * sizeof **ix);
    if (!*x || !*ep || !*ix) return ss_fail(SS_ENOMEM, "out of memory");
    ss_slab s;
    long cap = N < SS_DRIFT_SLAB ? (N > 0 ? N : 1) : SS_DRIFT_SLAB;
    ss_status st = ss_slab_alloc(&s, cap, m->gpus);
    if (st != SS_OK) return st;
    *n = 0;
    for (long r0 = 0; r0 < N && st == SS_OK; r0 += cap) {
        long k = N - r0 < cap ? N - r0 : cap;
        st = ss_trace_read_cols(t, r0, k, 0, &s);
        for (long i = 0; st == SS_OK && i < k; i++) {
            (*x)[*n] = s.extremes[i * SS_SLAB_NEX + SS_EX_ITER_MAX];
            (*ep)[*n] = s.epoch[i];
            (*ix)[*n] = s.index[i];
            (*n)++;
        }
    }
    ss_slab_free(&s);
    return st;
}

/* Steps 2 to 5 on x[0..n): fills d's stretch (found, row0, row1, level, rest). */
static ss_status find_stretch(const double *x, long n, ss_drift *d)
{
    long m = n / 50 > SS_DRIFT_MIN_BLOCK ? n / 50 : SS_DRIFT_MIN_BLOCK;
    long B = n / m;
    double *b = malloc((size_t)B * sizeof *b), *tmp = malloc((size_t)n * sizeof *tmp),
           *bs = malloc((size_t)B * sizeof *bs);
    int *side = malloc((size_t)B * sizeof *side);
    if (!b || !tmp || !bs || !side) {
        free(b), free(tmp), free(bs), free(side);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    for (long k = 0; k < B; k++) {
        long lo = k * m, hi = k == B - 1 ? n : lo + m;
        memcpy(tmp, x + lo, (size_t)(hi - lo) * sizeof *tmp);
        b[k] = median_of(tmp, (size_t)(hi - lo));
    }
    for (long i = 0; i < n; i++) {
        long k = i / m < B ? i / m : B - 1;
        tmp[i] = fabs(x[i] - b[k]);
    }
    double s = 1.4826 * median_of(tmp, (size_t)n);
    double e = 1.2533 * s / sqrt((double)m);
    memcpy(bs, b, (size_t)B * sizeof *bs);
    double M = median_of(bs, (size_t)B);
    double lim = fmax(SS_DRIFT_SIGMAS * e, SS_DRIFT_MIN_CHANGE * M);
    for (long k = 0; k < B; k++) side[k] = b[k] - M > lim ? 1 : M - b[k] > lim ? -1 : 0;
    long best0 = 0, best1 = 0;
    for (long k = 0; k < B;) {
        long j = k;
        while (j < B && side[j] != 0 && side[j] == side[k]) j++;
        if (j - k > best1 - best0) best0 = k, best1 = j;
        k = j > k ? j : k + 1;
    }
    d->found = best1 - best0 >= 2;
    if (d->found) {
        d->row0 = best0 * m;
        d->row1 = best1 == B ? n : best1 * m;
        long in = d->row1 - d->row0, out = n - in;
        memcpy(tmp, x + d->row0, (size_t)in * sizeof *tmp);
        d->level = median_of(tmp, (size_t)in);
        memcpy(tmp, x, (size_t)d->row0 * sizeof *tmp);
        memcpy(tmp + d->row0, x + d->row1, (size_t)(n - d->row1) * sizeof *tmp);
        d->rest = out > 0 ? median_of(tmp, (size_t)out) : d->level;
        /* what the stretch moves the run's typical iteration time by */
        d->found = d->rest > 0 && fabs(d->level - d->rest) * (double)in / (double)n >= SS_DRIFT_MIN_EFFECT * d->rest;
    }
    free(b), free(tmp), free(bs), free(side);
    return SS_OK;
}

ss_status ss_drift_of(const double *x, const int32_t *epoch, const int64_t *index, long n, long warmup,
                      ss_drift *out)
{
    memset(out, 0, sizeof *out);
    long k = 0; /* the summarised rows, in order */
    for (long i = 0; i < n; i++) k += index[i] >= warmup;
    out->rows = k;
    if (k < SS_DRIFT_MIN_ROWS) return SS_OK;
    double *xs = malloc((size_t)k * sizeof *xs);
    long *at = malloc((size_t)k * sizeof *at); /* each summarised row's place among all */
    if (!xs || !at) {
        free(xs);
        free(at);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    for (long i = 0, j = 0; i < n; i++)
        if (index[i] >= warmup) xs[j] = x[i], at[j++] = i;
    ss_status st = find_stretch(xs, k, out);
    if (st == SS_OK && out->found) {
        out->epoch0 = epoch[at[out->row0]];
        out->index0 = index[at[out->row0]];
        out->epoch1 = epoch[at[out->row1 - 1]];
        out->index1 = index[at[out->row1 - 1]];
    }
    free(xs);
    free(at);
    return st;
}

ss_status ss_drift_find(ss_trace_file *t, long warmup, ss_drift *out)
{
    double *x = NULL;
    int32_t *ep = NULL;
    int64_t *ix = NULL;
    long n = 0;
    ss_status st = read_rows(t, &x, &ep, &ix, &n);
    if (st == SS_OK) st = ss_drift_of(x, ep, ix, n, warmup, out);
    else memset(out, 0, sizeof *out);
    free(x);
    free(ep);
    free(ix);
    return st;
}

void ss_drift_line(const ss_drift *d, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!d->found || d->rest <= 0) return;
    snprintf(buf, size,
             "iteration times change level within the run: from epoch %d step %lld to epoch %d step %lld "
             "(%.0f %% of the summarised rows) they took %.2fx the rest's median (%.4f s against %.4f s)",
             (int)d->epoch0, (long long)d->index0, (int)d->epoch1, (long long)d->index1,
             100.0 * (double)(d->row1 - d->row0) / (double)d->rows, d->level / d->rest, d->level, d->rest);
}
