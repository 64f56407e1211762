/* ss_report.h - the summary for people and programs: summary.csv, the terminal table and
 * JSON (MODELS-independent.md). Rank 0 only. */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include <stdio.h>

#include "ss_status.h"
#include "ss_summary.h"

/* Writes the summary table as CSV to path (callers write to a temporary name and rename
 * it into place together with results.h5; see ss_results_finish). */
ss_status ss_report_write_csv(const ss_summary *s, const char *path);
/* The table for people: mean±std to 4 decimals, the baseline marked, fidelity and
 * slowest-loader notes under it. */
void ss_report_print_table(const ss_summary *s, FILE *out);
/* The summary as one JSON document. */
void ss_report_print_json(const ss_summary *s, FILE *out);

#endif
