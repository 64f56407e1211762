/* ss_passes.h - the time a run spends between its epochs' passes over the loader (from one
 * pass's last step to the next pass's first ask), which no row holds, and the part of it
 * that starting the loader's workers takes: measured from the trace, and as each scenario's
 * model scales that part (MODELS-pipeline.md, "Between passes"). */
#ifndef SS_PASSES_H
#define SS_PASSES_H

#include "ss_scenario.h"
#include "ss_status.h"
#include "ss_trace.h"

typedef struct {
    long n;          /* the timeline's epochs */
    double *between; /* [n] the time before each epoch's first ask that no row holds, s: for
                      * epoch 0 its lead (0 without pass starts); for later ones the time from
                      * the last GPU's end of the epoch before to the earliest first ask */
    double *lead;    /* [n] of that, the earliest asking GPU's time from its iter(loader) to its
                      * first ask (NaN without pass starts) */
    double *stop;    /* [n] of the rest, that GPU's time in its next() that ended the pass before
                      * (its workers' shutdown; NaN for epoch 0 and without pass stops) */
    int *first;      /* [n] that GPU */
    int has_starts;  /* the trace has /pass_start_time */
    /* After the last pass (traces with /pass_stop_time; else NULL): each GPU's end of its last
     * row (its ask plus its iteration) and its time in the next() that ended the last pass
     * (its workers' shutdown), [gpus] each. The job ends as the last of end + stop. */
    double *last_end, *last_stop;
    int gpus;        /* the trace's GPUs */
    /* The passes' wall time: over the epochs, the last GPU's end of the epoch's last row
     * (its ask plus its iteration) less the earliest ask of its first row, or less the end
     * of the epoch before where that is later, summed (the
     * rows' longest iterations summed exceed it where the GPUs' asks scatter). NaN where
     * the asks do not follow on from the iterations (each pass's first two rows and the
     * last two sampled): the asks then do not carry the wall time. */
    double span;
    /* The whole run's start, s since the trace's time_origin: the first epoch's earliest
     * first ask less its lead (between[0]); NaN without epochs. */
    double start;
} ss_passes;

/* Reads the epoch column, then each epoch's first and last rows (and so span). A /pass_start_time whose
 * rows are not the timeline's epochs is refused (SS_EDATA, naming it). Independent (not
 * collective). */
ss_status ss_passes_read(ss_trace_file *t, ss_passes *out);
void ss_passes_free(ss_passes *p);
/* Scenario s's time between passes, summed over the epochs, in *out: each epoch's between
 * time with its lead and its stop scaled by s's model's factors, and the model's seconds
 * added to them (ss_model_ops.lead_factors; 1 and 0 where the model has none, or the trace
 * no pass starts). In *tail the time after the last pass's last row: max(0, max_g(end_g +
 * k_g stop_g + a_g) - max_g end_g), k_g and a_g the model's factors on a later epoch's stops
 * and seconds added to them (0 without pass stops). SS_ENOMEM, or the model's error. */
ss_status ss_passes_time(const ss_passes *p, const ss_scenario *s, const ss_trace_meta *m, double *out,
                         double *tail);
/* The passes' wall time over rows, the rows' longest iterations summed (every row of every
 * epoch): what the whole run's time takes of each row's iteration time (MODELS-pipeline.md,
 * "The rows in wall time"). 1 where span is unknown (NaN), rows not positive, or span not below
 * rows (passes that outlast their rows hold gaps no row accounts for). */
double ss_passes_wall_ratio(const ss_passes *p, double rows);
/* The time after the last pass's last row with each GPU's last stop times k[g], plus add[g]
 * seconds (k NULL: as measured; add NULL: none): max(0, max_g(end_g + k_g stop_g + add_g) -
 * max_g end_g); 0 without pass stops. */
double ss_passes_tail(const ss_passes *p, const double *k, const double *add);

#endif
