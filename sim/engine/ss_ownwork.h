/* ss_ownwork.h - where one GPU's loop pauses between its steps (a checkpoint, a log, a
 * metric on one rank) and the others wait for it at the next all-reduce: a trace-level
 * finding for info and run. */
#ifndef SS_OWNWORK_H
#define SS_OWNWORK_H

#include "ss_status.h"
#include "ss_trace.h"

typedef struct {
    int found;          /* 1: one GPU's loop paused between steps, and the others waited */
    int gpu;            /* that GPU */
    long pauses;        /* its pauses */
    long every;         /* rows from one pause to the next, their median (0: one pause) */
    double mean_extra;  /* seconds a pause added to its row, on average */
    double share;       /* the pauses' time over the GPU's rows' time */
} ss_ownwork;

/* The fewest pauses for a finding, and the least share of the GPU's rows' time they take. */
#define SS_OWNWORK_MIN_PAUSES 4
#define SS_OWNWORK_MIN_SHARE 0.03

/* Looks for it in every row of the trace (the method is in ss_ownwork.c): two reads in
 * slabs, the first of a sample of rows. Independent (not collective). */
ss_status ss_ownwork_find(ss_trace_file *t, ss_ownwork *out);

/* The finding as one line without a newline ("" when none). */
void ss_ownwork_line(const ss_ownwork *w, char *buf, size_t size);

#endif
