/* ss_step.c - per-iteration helpers shared by the models (vector loops, ss_isa.h). */
#include "ss_step.h"

#include "ss_isa.h"

static SS_KERNEL int count_max_body(const double *v, int n, double max)
{
    int count = 0;
#pragma omp simd reduction(+ : count)
    for (int g = 0; g < n; g++) count += v[g] == max;
    return count;
}
SS_MULTIVERSION(int, count_max, (const double *v, int n, double max), (v, n, max))

int ss_step_unique_argmax(const double *v, int n, double max)
{
    if (n == 1) return 0;
    if (count_max(v, n, max) != 1) return -1;
    for (int g = 0; g < n; g++)
        if (v[g] == max) return g;
    return -1;
}

/* max and min are exact in any order, so the vector paths give the scalar result */
static SS_KERNEL double spread_body(const double *v, int n, double *min)
{
    double mx = v[0], mn = v[0];
#pragma omp simd reduction(max : mx) reduction(min : mn)
    for (int g = 0; g < n; g++) {
        mx = v[g] > mx ? v[g] : mx;
        mn = v[g] < mn ? v[g] : mn;
    }
    *min = mn;
    return mx;
}
SS_MULTIVERSION(double, spread, (const double *v, int n, double *min), (v, n, min))

void ss_step_spread(const double *v, int n, double *max, double *min, int *argmax)
{
    *max = spread(v, n, min);
    *argmax = ss_step_unique_argmax(v, n, *max);
}
