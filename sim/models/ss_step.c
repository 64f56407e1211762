/* ss_step.c - per-iteration helpers shared by the models. */
#include "ss_step.h"

int ss_step_unique_argmax(const double *v, int n, double max)
{
    if (n == 1) return 0;
    int count = 0;
#pragma omp simd reduction(+ : count)
    for (int g = 0; g < n; g++) count += v[g] == max;
    if (count != 1) return -1;
    for (int g = 0; g < n; g++)
        if (v[g] == max) return g;
    return -1;
}

void ss_step_spread(const double *v, int n, double *max, double *min, int *argmax)
{
    double mx = v[0], mn = v[0];
#pragma omp simd reduction(max : mx) reduction(min : mn)
    for (int g = 0; g < n; g++) {
        mx = v[g] > mx ? v[g] : mx;
        mn = v[g] < mn ? v[g] : mn;
    }
    *max = mx;
    *min = mn;
    *argmax = ss_step_unique_argmax(v, n, mx);
}
