/* ss_row.c - per-row statistics shared by the replay models. */
#include "ss_row.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <string.h>

void ss_row_prepare(ss_row *r, int want_median, double *scratch)
{
    const int G = r->gpus;
    double smin = r->fetch_start[0], smax = smin, ssum = 0;
    double fmin = r->fetch_time[0], fmax = fmin, fsum = 0;
    double stmax = r->stall_time[0], itmax = r->iteration_time[0];
    for (int g = 0; g < G; g++) {
        double s = r->fetch_start[g], f = r->fetch_time[g];
        r->done[g] = s + f;
        smin = s < smin ? s : smin;
        smax = s > smax ? s : smax;
        fmin = f < fmin ? f : fmin;
        fmax = f > fmax ? f : fmax;
        ssum += s;
        fsum += f;
        stmax = r->stall_time[g] > stmax ? r->stall_time[g] : stmax;
        itmax = r->iteration_time[g] > itmax ? r->iteration_time[g] : itmax;
    }
    r->start_min = smin;
    r->start_max = smax;
    r->start_mean = ssum / G;
    r->fetch_min = fmin;
    r->fetch_max = fmax;
    r->fetch_mean = fsum / G;
    r->stall_max = stmax;
    r->iter_max = itmax;
    r->fetch_median = r->fetch_mean;
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
