/* test_util.h - helpers shared by the unit tests: temporary folders, traces made from
 * arrays, and an in-process sweep from scenario-file text. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdint.h>

#include "ss_scenario.h"
#include "ss_summary.h"
#include "ss_trace.h"

/* A fresh folder under /tmp (removed at exit). */
const char *tu_tmpdir(void);

/* Writes a trace of N rows x G GPUs; epoch/index may be NULL (epoch 1, index 0..N-1);
 * train_start may be NULL (zeros). Arrays are row-major [N][G]. */
ss_status tu_write_trace(const char *path, int G, long N, const int32_t *epoch, const int64_t *index,
                         const double *fetch_start, const double *fetch_time, const double *train_start,
                         const double *iteration_time, const double *stall_time);

/* Writes ini_text to a file in a temporary folder and returns its path. */
const char *tu_write_ini(const char *ini_text);

/* Runs the sweep of ini_text in this process (no MPI). *sc (caller frees) and *out (free
 * with ss_summary_free) receive the scenarios and the summary. */
ss_status tu_run_sweep(const char *ini_text, ss_summary *out, ss_scenario **sc, int *nsc);

/* Index of the scenario with this name, or -1. */
int tu_find(const ss_scenario *sc, int nsc, const char *name);

#endif
