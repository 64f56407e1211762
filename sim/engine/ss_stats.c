/* ss_stats.c - block partials (GSL's running mean and variance), merged pairwise. */
#include "ss_stats.h"

#include <math.h>
#include <string.h>

void ss_partial_zero(ss_partial *p) { memset(p, 0, sizeof *p); }

void ss_partial_of_series(ss_partial *p, double *const series[SS_NMETRICS], long n, double thr)
{
    ss_partial_zero(p);
    if (n <= 0) return;
    p->n = (double)n;
    /* GSL's running mean and running variance (gsl_stats_mean, gsl_stats_variance_m: the
     * same recurrences in extended precision, so the same values; unit_stats compares
     * them), of all the metrics at once: their divisions overlap instead of each series
     * waiting for its own chain */
    long double mean[SS_NMETRICS] = {0}, var[SS_NMETRICS] = {0};
    for (long i = 0; i < n; i++) {
        long double k = (long double)(i + 1);
        for (int m = 0; m < SS_NMETRICS; m++) mean[m] += (series[m][i] - mean[m]) / k;
    }
    double dmean[SS_NMETRICS];
    for (int m = 0; m < SS_NMETRICS; m++) dmean[m] = (double)mean[m];
    for (long i = 0; n > 1 && i < n; i++) {
        long double k = (long double)(i + 1);
        for (int m = 0; m < SS_NMETRICS; m++) {
            long double d = series[m][i] - dmean[m];
            var[m] += (d * d - var[m]) / k;
        }
    }
    for (int m = 0; m < SS_NMETRICS; m++) {
        p->mean[m] = dmean[m];
        p->m2[m] = n > 1 ? (double)var[m] * ((double)n / (double)(n - 1)) * (double)(n - 1) : 0.0;
    }
    long eff = 0;
    for (long i = 0; i < n; i++) eff += series[SS_M_DELAY][i] > thr;
    p->eff = (double)eff;
}

void ss_run_add(ss_run_part *r, double iter_time, double stall, double epoch)
{
    if (r->rows == 0) {
        r->first_epoch = epoch;
        r->first_stall = stall;
    } else if (epoch != r->last_epoch) {
        r->starts += 1;
        r->start_sum += stall;
    }
    r->last_epoch = epoch;
    r->rows += 1;
    r->time += iter_time;
    r->stall += stall;
}

/* b's rows after a's */
static void run_merge(ss_run_part *a, const ss_run_part *b)
{
    if (b->rows == 0) return;
    if (a->rows == 0) {
        *a = *b;
        return;
    }
    a->time += b->time;
    a->stall += b->stall;
    a->starts += b->starts;
    a->start_sum += b->start_sum;
    if (b->first_epoch != a->last_epoch) { /* b's first row starts an epoch */
        a->starts += 1;
        a->start_sum += b->first_stall;
    }
    a->rows += b->rows;
    a->last_epoch = b->last_epoch;
    for (int q = 0; q < 4; q++) {
        a->part_rows[q] += b->part_rows[q];
        a->part_time[q] += b->part_time[q];
    }
}

double ss_run_epochs(const ss_run_part *r) { return r->rows > 0 ? r->starts + 1 : 0; }

double ss_run_start_mean(const ss_run_part *r)
{
    return r->rows > 0 ? (r->start_sum + r->first_stall) / (r->starts + 1) : NAN;
}

void ss_partial_merge(ss_partial *acc, const ss_partial *b)
{
    run_merge(&acc->run, &b->run);
    if (b->n == 0) return;
    if (acc->n == 0) {
        const ss_run_part run = acc->run;
        *acc = *b;
        acc->run = run;
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
