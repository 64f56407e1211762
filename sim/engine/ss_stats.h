/* ss_stats.h - summary statistics of per-iteration series: partials (count, mean, M2,
 * threshold count) computed per fixed block with GSL and merged exactly in a fixed order,
 * so that a summary does not depend on rank count or slab size. */
#ifndef SS_STATS_H
#define SS_STATS_H

enum {
    SS_M_ITER = 0, /* iteration time */
    SS_M_STALL,    /* max stall over GPUs */
    SS_M_DELAY,    /* max - min stall */
    SS_M_START,    /* start_diff */
    SS_M_FETCH,    /* fetch_diff */
    SS_M_APE,      /* |replayed - measured| / measured iteration time, in % */
    SS_NMETRICS
};

/* Plain doubles only, so that arrays of partials travel as MPI bytes. */
typedef struct {
    double n;
    double mean[SS_NMETRICS];
    double m2[SS_NMETRICS]; /* sum of squared deviations from the mean */
    double eff;             /* iterations with delay above the threshold */
} ss_partial;

void ss_partial_zero(ss_partial *p);
/* Partial of n values per metric: series[m][0..n-1]; eff counts series[SS_M_DELAY] > thr. */
void ss_partial_of_series(ss_partial *p, double *const series[SS_NMETRICS], long n, double thr);
/* acc := acc merged with b (Chan et al.'s pairwise update); exact for counts. */
void ss_partial_merge(ss_partial *acc, const ss_partial *b);
/* Sample standard deviation (n - 1); NaN for fewer than two values. */
double ss_partial_std(const ss_partial *p, int metric);

#endif
