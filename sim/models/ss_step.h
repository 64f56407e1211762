/* ss_step.h - what a replay model produces for one iteration of one scenario. */
#ifndef SS_STEP_H
#define SS_STEP_H

typedef struct {
    double iter_time, stall, delay, start_diff, fetch_diff;
    int straggler; /* the GPU that alone had the largest stall, or -1 when tied */
} ss_step;

/* max, min and the unique argmax (-1 when the maximum is shared) of v[0..n-1] */
void ss_step_spread(const double *v, int n, double *max, double *min, int *argmax);

/* The index of the only element equal to max, or -1 when several are (0 when n == 1). */
int ss_step_unique_argmax(const double *v, int n, double max);

#endif
