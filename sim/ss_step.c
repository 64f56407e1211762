/* ss_step.c - per-iteration helpers shared by the models. */
#include "ss_step.h"

void ss_step_spread(const double *v, int n, double *max, double *min, int *argmax)
{
    double mx = v[0], mn = v[0];
    for (int g = 1; g < n; g++) {
        mx = v[g] > mx ? v[g] : mx;
        mn = v[g] < mn ? v[g] : mn;
    }
    int arg = -1;
    for (int g = 0; g < n; g++) {
        if (v[g] != mx) continue;
        if (arg >= 0) {
            arg = -1;
            break;
        }
        arg = g;
    }
    *max = mx;
    *min = mn;
    *argmax = n > 1 ? arg : 0;
}
