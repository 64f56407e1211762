/* ss_storeshare.h - storage sharing: how much longer each read of a fetch takes when a
 * scenario keeps more reads in flight than the trace did, on storage that serves only so
 * many at full speed (the definition: sim/models/MODELS-pipeline.md, "Storage sharing"). */
#ifndef SS_STORESHARE_H
#define SS_STORESHARE_H

#include "ss_status.h"

/* The loaders and fetches of a run, per GPU ([gpus] each): workers W (0: synchronous),
 * worker gap, delivery, the CPU part of the median fetch as it ran (c~) and the median
 * fetch (f~); the storage part of a fetch is max(0, f~ - c~). Its scales. */
typedef struct {
    int gpus;
    const int *workers;
    const double *gap, *delivery, *cpu, *fetch_med;
    double fetch_scale, compute_scale;
    /* > 0: each row's largest delivery as the load replays it (its measured deliveries: F
     * times the trace's median over rows of each row's largest, ss_calib.delivery_rows),
     * the period's delivery term in place of each GPU's `delivery`; 0: those */
    double delivery_row;
} ss_store_load;

/* sigma = 1 + n (readers - 1) / (readers parallel), n at most `readers`: how many times as
 * long as alone a read takes, on average, when `readers` threads keep n reads in flight on
 * average (a read then shares the storage with n (readers - 1) / readers others) on storage whose throughput
 * with many reads in flight is at most `parallel` times that of one read at a time
 * (parallel > 0; otherwise, or with fewer than 2 readers, 1). */
double ss_store_slowdown(double n, long readers, double parallel);

/* The reads the load keeps in flight on average at period T: the sum over GPUs of
 * fetch_scale (f~ - c~)+ / T (Little's law) */
double ss_store_in_flight(const ss_store_load *l, double T);

/* The factor rho on the storage part of every fetch of the scenario `scn` against the
 * trace `trace` (period T0 and step C from the calibration): the root of
 * rho = sigma(n1, M1) / sigma(n0, M0) (M: the readers, sum over GPUs of max(W, 1)) with n0 = sum of the trace's storage parts / T0 (the reads
 * in flight, by Little's law) and n1 the scenario's at the storage parts times
 * fetch_scale rho and the period T0 A(scn, rho) / A(trace, 1) (A: the steady-state
 * period). *n0 and *n1 receive the reads in flight (either may be NULL). 1 when
 * parallel <= 0 or the trace's period, step formula or storage parts are 0. */
double ss_store_factor(const ss_store_load *trace, const ss_store_load *scn, double parallel, double T0, double C,
                       double *n0, double *n1);

#endif
