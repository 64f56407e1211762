/* ss_calib_internal.h - what the calibration's files share (sim/models only): one GPU's
 * columns, a candidate setting, the settings already fitted in a block of GPUs, the
 * per-GPU fit (ss_calib_fit.c) that the driver (ss_calib_driver.c) calls, and the
 * thresholds of the disturbed-pool finding (driver) and its line (ss_calib_print.c). */
#ifndef SS_CALIB_INTERNAL_H
#define SS_CALIB_INTERNAL_H

#include <gsl/gsl_statistics_double.h>
#include <stddef.h>

#include "ss_calibrate.h"

/* Settings fitted on the GPUs of a block that later GPUs of it try first (fit_gpu) */
#define CALIB_MAX_KNOWN 8

/* A pool whose measured stretch of its fetches' or steps' CPU work (with their waits for
 * a core) is more than CALIB_DISTURBED_RATIO times the model's at the trace's own load,
 * and whose excess wait is at least CALIB_DISTURBED_SHARE of an iteration, was most likely
 * shared with other processes. CALIB_CLEAN_RATIO bounds the ratio of the committed real
 * traces recorded on quiet cores (sim/models/DECISIONS.md). */
#define CALIB_DISTURBED_RATIO 2.5
#define CALIB_CLEAN_RATIO 2.1
#define CALIB_DISTURBED_SHARE 0.05

/* One GPU's columns over the calibration rows, and scratch. */
typedef struct {
    long n;
    const long *pos;   /* [n] position of the row in its epoch (0 = the epoch's first row) */
    const long *first; /* [n] the row index of the epoch's first row */
    /* fetch start, fetch done, loop asks (train_start - stall), stall, iteration time (the
     * GPU's staged columns, load_gpu) */
    const double *s, *done, *ask, *st, *it;
    double *a, *b, *buf;         /* scratch [n] */
    double cap;                  /* residual cap: the GPU's median fetch time (at least 1e-9 s) */
    double fmed;                 /* the GPU's median fetch time */
} gpu_cols;

/* A loader setting and how well it explains a GPU's fetch starts */
typedef struct {
    int W, P;
    double gap, refill, score;
} cand;

/* The (W, P) already fitted on the GPUs of a block */
typedef struct {
    int n;
    int W[CALIB_MAX_KNOWN], P[CALIB_MAX_KNOWN];
} known_set;

/* The median of v[0..n) (reorders v), 0 for none */
static inline double median_of(double *v, size_t n) { return n ? gsl_stats_median(v, 1, n) : 0.0; }

/* Fits one GPU: W and P (each fixed when recorded: rec_w, rec_p >= 0 / >= 1), gaps;
 * settings found are added to known. */
cand ssc_fit_gpu(gpu_cols *d, int rec_w, int rec_p, known_set *known);

/* A GPU's delivery and residuals under its fitted settings c */
void ssc_finish_gpu(gpu_cols *d, cand *c, double *delivery, double *resid, double *stall_resid);

#endif
