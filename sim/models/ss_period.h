/* ss_period.h - the steady-state period of a data-parallel job's loaders and steps
 * (sim/models/MODELS-pipeline.md, "CPU sharing" and "Storage sharing"), written once for
 * both. */
#ifndef SS_PERIOD_H
#define SS_PERIOD_H

#include <math.h>

/* The period from its terms over the GPUs: the largest of the loaders' periods lo ((fetch
 * + gap) / W over GPUs with workers), the step plus the largest delivery dmax of a GPU
 * with workers, and the largest fetch fsync of a synchronous GPU plus the step; a term
 * that no GPU has is -INFINITY. 0 when none applies. */
static inline double ss_steady_period(double step, double lo, double dmax, double fsync)
{
    double a = 0.0;
    if (lo > a) a = lo;
    if (dmax > -INFINITY && step + dmax > a) a = step + dmax;
    if (fsync > -INFINITY && fsync + step > a) a = fsync + step;
    return a;
}

#endif
