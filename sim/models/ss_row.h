/* ss_row.h - one measured iteration (row) of a trace as the replay models see it, with
 * the per-row statistics that every scenario of that row shares. */
#ifndef SS_ROW_H
#define SS_ROW_H

#include "ss_align.h"

typedef struct {
    int gpus;
    const double *fetch_start, *fetch_time, *iteration_time, *stall_time; /* [gpus] */
    const double *train_start; /* [gpus], or NULL when the sweep did not read it */
    double *done;        /* [gpus] fetch_start + fetch_time, filled by ss_row_prepare */
    double start_min, start_max, start_mean;
    double fetch_min, fetch_max, fetch_mean, fetch_median; /* median only if asked for */
    double stall_max, iter_max;
} ss_row;

/* Fills done[] and the row statistics. scratch needs gpus doubles when want_median. */
void ss_row_prepare(ss_row *r, int want_median, double *scratch);

/* The aligned fetch time of the row for a non-none align (SPEC §4 step 2). */
double ss_row_fetch_aligned(const ss_row *r, ss_align a);

/* The statistic of values[0..n-1] that a non-none start_align asks for (SPEC §4 step 1):
 * min, avg = max - (max - min) / 2, mean. */
double ss_align_start_of(const double *values, int n, ss_align a);

#endif
