/* ss_storeshare.c - storage sharing: the factor on a scenario's reads when it keeps more
 * (or fewer) of them in flight than the trace (sim/models/MODELS-pipeline.md, "Storage
 * sharing"). */
#include "ss_storeshare.h"
#include "ss_period.h"

#include <math.h>

/* Bisection steps on [0, hi]: the bracket shrinks below 1e-15 of itself. */
#define STORE_BISECT 64

double ss_store_slowdown(double n, long readers, double parallel)
{
    if (!(n > 0.0) || readers < 2 || !(parallel > 0.0)) return 1.0;
    const double m = (double)readers, busy = n < m ? n : m; /* a reader has one read in flight at most */
    return 1.0 + busy * (m - 1.0) / (m * parallel);
}

/* The threads that read: each GPU's workers, or its training process where it loads
 * synchronously */
static long readers_of(const ss_store_load *l)
{
    long m = 0;
    for (int g = 0; g < l->gpus; g++) m += l->workers[g] > 1 ? l->workers[g] : 1;
    return m;
}

/* GPU g's storage part of its median fetch */
static double storage_of(const ss_store_load *l, int g)
{
    double s = l->fetch_med[g] - l->cpu[g];
    return s > 0.0 ? s : 0.0;
}

/* The steady-state period A of the load with its storage parts times fetch_scale rho:
 * max over GPUs of (W >= 1 ? max((f' + gap) / W, C' + d) : f' + C'), f' = c~ + fetch_scale
 * rho (f~ - c~)+, C' = compute_scale C, d the GPU's delivery or the load's delivery_row. */
static double period_of(const ss_store_load *l, double rho, double C)
{
    double lo = -INFINITY, dmax = -INFINITY, fsync = -INFINITY;
    for (int g = 0; g < l->gpus; g++) {
        const double f = l->cpu[g] + l->fetch_scale * rho * storage_of(l, g);
        if (l->workers[g] >= 1) {
            const double d = l->delivery_row > 0.0 ? l->delivery_row : l->delivery[g];
            const double w = (f + l->gap[g]) / l->workers[g];
            lo = w > lo ? w : lo;
            dmax = d > dmax ? d : dmax;
        } else {
            fsync = f > fsync ? f : fsync;
        }
    }
    return ss_steady_period(l->compute_scale * C, lo, dmax, fsync);
}

/* The reads in flight at period T with the storage parts times fetch_scale rho: the storage
 * time per batch over the period, summed over GPUs (Little's law) */
static double in_flight(const ss_store_load *l, double rho, double T)
{
    double n = 0.0;
    for (int g = 0; g < l->gpus; g++) n += l->fetch_scale * rho * storage_of(l, g);
    return T > 0.0 ? n / T : 0.0;
}

double ss_store_in_flight(const ss_store_load *l, double T) { return in_flight(l, 1.0, T); }

double ss_store_factor(const ss_store_load *trace, const ss_store_load *scn, double parallel, double T0, double C,
                       double *n0, double *n1)
{
    const double a0 = period_of(trace, 1.0, C), m0 = in_flight(trace, 1.0, T0);
    if (n0) *n0 = m0;
    if (n1) *n1 = m0;
    if (!(parallel > 0.0) || !(T0 > 0.0) || !(a0 > 0.0) || !(m0 > 0.0)) return 1.0;
    const long r0 = readers_of(trace), r1 = readers_of(scn);
    const double s0 = ss_store_slowdown(m0, r0, parallel);
    /* n1 <= (a0 / T0) * its readers: each GPU's reads fill at most its workers (one for a
     * synchronous GPU) over a period no shorter than its own loader's */
    double lo = 0.0, hi = ss_store_slowdown((double)r1 * a0 / T0, r1, parallel) / s0 + 1.0;
    for (int i = 0; i < STORE_BISECT; i++) {
        const double mid = 0.5 * (lo + hi), a = period_of(scn, mid, C);
        const double m1 = a > 0.0 ? in_flight(scn, mid, T0 * a / a0) : 0.0;
        if (ss_store_slowdown(m1, r1, parallel) / s0 - mid >= 0.0) lo = mid;
        else hi = mid;
    }
    const double rho = 0.5 * (lo + hi), a = period_of(scn, rho, C);
    if (!isfinite(rho)) return 1.0; /* (infinite fetch times) */
    if (n1) *n1 = a > 0.0 ? in_flight(scn, rho, T0 * a / a0) : 0.0;
    return rho;
}
