/* ss_calibrate.h - reads the loader's real worker count and inter-batch gap per GPU off a
 * measured timeline (SPEC §8 calibration). */
#ifndef SS_CALIBRATE_H
#define SS_CALIBRATE_H

#include "ss_status.h"
#include "ss_trace.h"

#define SS_CALIB_MAX_WORKERS 64
/* Rows that calibration looks at by default (the first ones of the trace): up to
 * SS_CALIB_ROWS, as many as fit 32 MB of fetch columns, at least SS_CALIB_MIN_ROWS. */
#define SS_CALIB_ROWS 20000L
#define SS_CALIB_MIN_ROWS 1000L

typedef struct {
    int gpus;
    int *workers_gpu;   /* [gpus] smallest w with median(fetch_start[k] - done[k-w]) >= 0 */
    double *gap_gpu;    /* [gpus] that median (not below 0) */
    int workers;        /* the largest over GPUs */
    double worker_gap;  /* median over GPUs of each GPU's median gap at w = workers */
    int agree;          /* 1 when every GPU gave the same W */
    long rows_used;
} ss_calib;

/* Calibrates on the first rows of the trace (at most max_rows; see SS_CALIB_ROWS),
 * reading fetch columns for batches of GPUs in bounded memory (about 32 MB); the rows
 * depend on the GPU count only, not on slab settings. Local (not collective): every rank
 * gets the same. */
ss_status ss_calibrate(ss_trace_file *t, long max_rows, ss_calib *out);
void ss_calib_free(ss_calib *c);

#endif
