/* ss_drift.h - where a measured run's iteration times change level within the run (a
 * stretch of rows slower or faster than the rest): a trace-level finding for info and run. */
#ifndef SS_DRIFT_H
#define SS_DRIFT_H

#include <stdint.h>

#include "ss_status.h"
#include "ss_trace.h"

/* The finding. Rows count the summarised rows (index >= warmup) in trace order. */
typedef struct {
    int found;           /* 1: a stretch of rows ran at another level than the rest */
    long rows;           /* the summarised rows looked at */
    long row0, row1;     /* the stretch: summarised rows [row0, row1) */
    int32_t epoch0, epoch1; /* its first and last row's epoch */
    int64_t index0, index1; /* and iteration index */
    double level, rest;  /* the median iteration time in the stretch and outside it (s) */
} ss_drift;

/* The fewest summarised rows for a finding, and the fewest rows per block. */
#define SS_DRIFT_MIN_ROWS 100
#define SS_DRIFT_MIN_BLOCK 10

/* Looks for the longest stretch of the trace's summarised rows (every epoch, rows whose
 * index is warmup or more) whose iteration time (the row's largest over the GPUs) runs at
 * another level than the rest; the method is in ss_drift.c. Reads the trace in slabs.
 * Independent (not collective). */
ss_status ss_drift_find(ss_trace_file *t, long warmup, ss_drift *out);

/* The same from rows already read: x[i], epoch[i] and index[i] of every row i < n of the
 * trace in order, x the row's largest iteration time over the GPUs; the rows with an index
 * of warmup or more are summarised. */
ss_status ss_drift_of(const double *x, const int32_t *epoch, const int64_t *index, long n, long warmup,
                      ss_drift *out);

/* The finding as one line without a newline ("" when none). */
void ss_drift_line(const ss_drift *d, char *buf, size_t size);

#endif
