/* ss_report.h - the summary for people and programs: summary.csv, the terminal table, the
 * answer under it (sim/cli/ANSWER.md) and JSON. Rank 0 only. */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include <stdio.h>

#include "ss_status.h"
#include "ss_drift.h"
#include "ss_ownwork.h"
#include "ss_summary.h"
#include "ss_trace.h"

/* The answer under the table: at most this many lines (the caller's "wrote" line
 * included), none wider than this many characters. */
#define SS_ANSWER_LINES 20
#define SS_ANSWER_WIDTH 100

/* How the table and its answer are printed. */
typedef struct {
    int explain;            /* the long form: every legend, finding and caveat in full */
    int notes;              /* how many notes the run kept for --explain (the answer counts them) */
    const char *notes_text; /* the models' "note: " lines, or NULL (JSON: "notes") */
    const char *calib_text; /* the calibration's lines, or NULL (JSON: "calibration") */
    const ss_drift *level;  /* the measured run's level change (ss_drift_find), or NULL when
                             * not looked for */
    const ss_trace_meta *meta; /* the trace's metadata (JSON: findings.host_cpu), or NULL */
    const ss_ownwork *own;  /* one GPU's pauses between steps (ss_ownwork_find), or NULL when
                             * not looked for */
} ss_report_opts;

/* Characters (UTF-8 code points) in the first n bytes of t, up to its end (SIZE_MAX: all
 * of it): the columns the text takes on a terminal. */
int ss_report_cols(const char *t, size_t n);
/* Row j's 90 % interval as a change against its reference (ss_summary_ref: the measured run,
 * or on a quiet host its model's baseline replay), in % (the whole run's with
 * by_run, else the mean iteration time's) into lo and hi; 0 where it has none. */
int ss_report_change_interval(const ss_summary *s, int j, int by_run, double *lo, double *hi);
/* (hi is +INFINITY where the row's interval has a lower end alone: open above) */
/* Writes text as one CSV field: quoted, its quotes doubled, where it holds a comma, a quote
 * or a line end (RFC 4180); as it is otherwise. */
void ss_report_csv_text(FILE *f, const char *t);
/* Writes the summary table as CSV to path (callers write to a temporary name and rename
 * it into place together with results.h5; see ss_results_finish). */
ss_status ss_report_write_csv(const ss_summary *s, const char *path);
/* The table for people (mean±std to 4 decimals, the measured run and baseline marked), then
 * the answer on one screen, or with o->explain the long form. o may be NULL. */
void ss_report_print_table(const ss_summary *s, const ss_report_opts *o, FILE *out);
/* The summary as one JSON document, with o's notes and calibration lines (o may be NULL). */
void ss_report_print_json(const ss_summary *s, const ss_report_opts *o, FILE *out);
/* 1 when GPU g, which alone had the largest stall in the share top of the measured run's
 * iterations, stands out (ANSWER.md, "Slowest loader"). */
int ss_report_stands_out(const ss_summary *s, int g, double top);

#endif
