/* ss_row.c - per-row statistics shared by the replay models. */
#include "ss_row.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

#include "ss_isa.h"
#include "ss_step.h"
#include "ss_trace.h"

/* done[] and the row's extremes: one vector pass (max and min are exact in any order).
 * Returns the largest start; the others go to ex[0..5] (start min, fetch min and max,
 * stall max, iteration max, stall min). */
static SS_KERNEL double extremes_body(ss_row *r, double *ex)
{
    const int G = r->gpus;
    const double *restrict fs = r->fetch_start, *restrict ft = r->fetch_time;
    const double *restrict st = r->stall_time, *restrict it = r->iteration_time;
    double *restrict done = r->done;
    double smin = fs[0], smax = smin, fmin = ft[0], fmax = fmin, stmax = st[0], stmin = st[0], itmax = it[0];
#pragma omp simd reduction(min : smin, fmin, stmin) reduction(max : smax, fmax, stmax, itmax)
    for (int g = 0; g < G; g++) {
        double s = fs[g], f = ft[g];
        done[g] = s + f;
        smin = s < smin ? s : smin;
        smax = s > smax ? s : smax;
        fmin = f < fmin ? f : fmin;
        fmax = f > fmax ? f : fmax;
        stmax = st[g] > stmax ? st[g] : stmax;
        stmin = st[g] < stmin ? st[g] : stmin;
        itmax = it[g] > itmax ? it[g] : itmax;
    }
    ex[0] = smin;
    ex[1] = fmin;
    ex[2] = fmax;
    ex[3] = stmax;
    ex[4] = itmax;
    ex[5] = stmin;
    return smax;
}
SS_MULTIVERSION(double, extremes, (ss_row * r, double *ex), (r, ex))

/* done[] alone, when the extremes are known. */
static SS_KERNEL int add_done_body(ss_row *r)
{
    const int G = r->gpus;
    const double *restrict fs = r->fetch_start, *restrict ft = r->fetch_time;
    double *restrict done = r->done;
#pragma omp simd
    for (int g = 0; g < G; g++) done[g] = fs[g] + ft[g];
    return 0;
}
SS_MULTIVERSION(int, add_done, (ss_row * r), (r))

/* delivery[] from done[] and the measured loop. */
static SS_KERNEL int add_delivery_body(ss_row *r)
{
    const int G = r->gpus;
    const double *restrict st = r->stall_time, *restrict ts = r->train_start, *restrict dn = r->done;
    double *restrict d = r->delivery;
#pragma omp simd
    for (int g = 0; g < G; g++) d[g] = ss_row_delivery_of(st[g], ts[g], dn[g]);
    return 0;
}
SS_MULTIVERSION(int, add_delivery, (ss_row * r), (r))

void ss_row_prepare(ss_row *r, int want_median, double *scratch)
{
    const int G = r->gpus;
    double ex[6], smax;
    if (r->extremes) {
        const double *x = r->extremes;
        add_done(r);
        smax = x[SS_EX_START_MAX];
        ex[0] = x[SS_EX_START_MIN], ex[1] = x[SS_EX_FETCH_MIN], ex[2] = x[SS_EX_FETCH_MAX];
        ex[3] = x[SS_EX_STALL_MAX], ex[4] = x[SS_EX_ITER_MAX], ex[5] = x[SS_EX_STALL_MIN];
    } else {
        smax = extremes(r, ex);
    }
    if (r->delivery && r->train_start) add_delivery(r);
    double smin = ex[0], fmin = ex[1], fmax = ex[2], stmax = ex[3], itmax = ex[4];
    /* the sums in GPU order (a vector sum would round differently) */
    double ssum = 0, fsum = 0;
    if (r->sum_fetch_start && r->sum_fetch_time) {
        ssum = *r->sum_fetch_start;
        fsum = *r->sum_fetch_time;
    } else {
        for (int g = 0; g < G; g++) {
            ssum += r->fetch_start[g];
            fsum += r->fetch_time[g];
        }
    }
    r->start_min = smin;
    r->start_max = smax;
    r->start_mean = ssum / G;
    r->fetch_min = fmin;
    r->fetch_max = fmax;
    r->fetch_mean = fsum / G;
    r->stall_max = stmax;
    r->stall_min = ex[5];
    r->stall_argmax = ss_step_unique_argmax(r->stall_time, G, stmax);
    r->iter_max = itmax;
    r->compute = itmax - stmax > 0.0 ? itmax - stmax : 0.0;
    r->fetch_median = r->fetch_mean;
    r->fetch_sorted = NULL;
    if (want_median) {
        memcpy(scratch, r->fetch_time, (size_t)G * sizeof *scratch);
        gsl_sort(scratch, 1, (size_t)G);
        r->fetch_median = gsl_stats_median_from_sorted_data(scratch, 1, (size_t)G);
    }
}

double ss_row_fetch_aligned(const ss_row *r, ss_align a)
{
    switch (a) {
    case SS_ALIGN_MIN: return r->fetch_min;
    case SS_ALIGN_AVG:
    case SS_ALIGN_MEAN: return r->fetch_mean;
    case SS_ALIGN_MEDIAN: return r->fetch_median;
    case SS_ALIGN_MAX: return r->fetch_max;
    case SS_ALIGN_NONE: break;
    }
    return 0.0;
}

double ss_align_start_of(const double *v, int n, ss_align a)
{
    double mn = v[0], mx = v[0], sum = 0;
    for (int i = 0; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
        sum += v[i];
    }
    switch (a) {
    case SS_ALIGN_MIN: return mn;
    case SS_ALIGN_AVG: return mx - (mx - mn) / 2;
    case SS_ALIGN_MEAN: return sum / n;
    default: return mn;
    }
}

void ss_row_prepare_heal(ss_row *r, double *sorted)
{
    const int G = r->gpus;
    memcpy(sorted, r->fetch_time, (size_t)G * sizeof *sorted);
    gsl_sort(sorted, 1, (size_t)G);
    r->fetch_sorted = sorted;
    const double *st = r->stall_time;
    double hi1 = -INFINITY, hi2 = -INFINITY, lo1 = INFINITY, lo2 = INFINITY;
    int hi1_n = 0, hi2_n = 0, lo1_n = 0, hi1_i[2] = {-1, -1}, hi2_i = -1;
    for (int g = 0; g < G; g++) {
        double v = st[g];
        if (v > hi1) {
            hi2 = hi1, hi2_n = hi1_n, hi2_i = hi1_i[0];
            hi1 = v, hi1_n = 1, hi1_i[0] = g, hi1_i[1] = -1;
        } else if (v == hi1) {
            if (hi1_n++ == 1) hi1_i[1] = g;
        } else if (v > hi2) {
            hi2 = v, hi2_n = 1, hi2_i = g;
        } else if (v == hi2) {
            hi2_n++;
        }
        if (v < lo1) lo2 = lo1, lo1 = v, lo1_n = 1;
        else if (v == lo1) lo1_n++;
        else if (v < lo2) lo2 = v;
    }
    r->st_hi1 = hi1, r->st_hi2 = hi2, r->st_lo1 = lo1, r->st_lo2 = lo2;
    r->st_hi1_n = hi1_n, r->st_hi2_n = hi2_n, r->st_lo1_n = lo1_n, r->st_hi2_i = hi2_i;
    r->st_hi1_i[0] = hi1_i[0], r->st_hi1_i[1] = hi1_i[1];
}

/* The first index of value v in the ascending a[0..n-1] (v is present). */
static int first_index(const double *a, int n, double v)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Element p of a[] with index r left out. */
static inline double without(const double *a, int r, int p) { return p < r ? a[p] : a[p + 1]; }

double ss_median_without(const double *sorted, int n, double v)
{
    int k = first_index(sorted, n, v), m = n - 1;
    return (without(sorted, k, (m - 1) / 2) + without(sorted, k, m / 2)) / 2;
}

double ss_row_median_others(const ss_row *r, int g)
{
    if (r->gpus == 1) return r->fetch_time[0];
    return ss_median_without(r->fetch_sorted, r->gpus, r->fetch_time[g]);
}

void ss_row_heal(const ss_row *r, int g, ss_row *out, double *fetch_buf)
{
    const int G = r->gpus;
    *out = *r;
    memcpy(fetch_buf, r->fetch_time, (size_t)G * sizeof *fetch_buf);
    out->fetch_time = fetch_buf;
    out->fetch_sorted = NULL;
    if (G == 1) return;
    const double *a = r->fetch_sorted;
    const double fg = r->fetch_time[g];
    int k = first_index(a, G, fg), n = G - 1;
    double m = ss_median_without(a, G, fg);
    double lo = without(a, k, 0), hi = without(a, k, n - 1);
    fetch_buf[g] = m;
    out->fetch_min = m < lo ? m : lo;
    out->fetch_max = m > hi ? m : hi;
    out->fetch_mean = r->fetch_mean + (m - fg) / G;
    out->fetch_median = m; /* the median of the others is the median once it is added to them */
}

double ss_median_unhealed(const double *v, int n, const ss_healset *h, double *scratch)
{
    int m = 0;
    for (int g = 0; g < n; g++)
        if (!ss_healset_has(h, g)) scratch[m++] = v[g];
    if (m == 0) return v[0];
    gsl_sort(scratch, 1, (size_t)m);
    return (scratch[(m - 1) / 2] + scratch[m / 2]) / 2;
}

void ss_copy_healed(double *dst, const double *src, int n, const ss_healset *h, double *scratch)
{
    if (dst != src) memcpy(dst, src, (size_t)n * sizeof *dst);
    if (h->n == 0 || n < 2) return;
    const double m = ss_median_unhealed(src, n, h, scratch);
    for (int i = 0; i < h->n; i++)
        for (int g = h->lo[i]; g <= h->hi[i] && g < n; g++) dst[g] = m;
}

void ss_row_heal_set(const ss_row *r, const ss_healset *h, ss_row *out, double *fetch_buf, double *scratch)
{
    const int G = r->gpus;
    *out = *r;
    ss_copy_healed(fetch_buf, r->fetch_time, G, h, scratch);
    out->fetch_time = fetch_buf;
    out->fetch_sorted = NULL;
    double lo = fetch_buf[0], hi = fetch_buf[0], sum = 0.0;
    for (int g = 0; g < G; g++) {
        lo = fetch_buf[g] < lo ? fetch_buf[g] : lo;
        hi = fetch_buf[g] > hi ? fetch_buf[g] : hi;
        sum += fetch_buf[g];
    }
    out->fetch_min = lo;
    out->fetch_max = hi;
    out->fetch_mean = sum / G;
    /* the median of the GPUs not healed stays the median once the healed GPUs take it (as
     * ss_row_heal's): at most half of the others lie on either side of it */
    if (G > 1 && h->n > 0 && h->lo[0] < G) out->fetch_median = fetch_buf[h->lo[0]];
}
