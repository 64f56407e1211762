/* ss_stats.c - block partials from GSL's statistics, merged pairwise. */
#include "ss_stats.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

void ss_partial_zero(ss_partial *p) { memset(p, 0, sizeof *p); }

void ss_partial_of_series(ss_partial *p, double *const series[SS_NMETRICS], long n, double thr)
{
    ss_partial_zero(p);
    if (n <= 0) return;
    p->n = (double)n;
    for (int m = 0; m < SS_NMETRICS; m++) {
        double mean = gsl_stats_mean(series[m], 1, (size_t)n);
        p->mean[m] = mean;
        p->m2[m] = n > 1 ? gsl_stats_variance_m(series[m], 1, (size_t)n, mean) * (double)(n - 1) : 0.0;
    }
    long eff = 0;
    for (long i = 0; i < n; i++) eff += series[SS_M_DELAY][i] > thr;
    p->eff = (double)eff;
}

void ss_partial_merge(ss_partial *acc, const ss_partial *b)
{
    if (b->n == 0) return;
    if (acc->n == 0) {
        *acc = *b;
        return;
    }
    double n = acc->n + b->n;
    for (int m = 0; m < SS_NMETRICS; m++) {
        double d = b->mean[m] - acc->mean[m];
        acc->mean[m] += d * (b->n / n);
        acc->m2[m] += b->m2[m] + d * d * (acc->n * b->n / n);
    }
    acc->eff += b->eff;
    acc->n = n;
}

double ss_partial_std(const ss_partial *p, int metric)
{
    if (p->n < 2) return NAN;
    return sqrt(p->m2[metric] / (p->n - 1));
}
