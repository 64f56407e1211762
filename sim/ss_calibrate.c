/* ss_calibrate.c - W and worker_gap from medians of start-to-earlier-done gaps. */
#include "ss_calibrate.h"

#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

/* Median of start[k] - done[k-w] of one GPU's columns over rows k with k-w in the same
 * epoch; returns 0 when there is no such pair. */
static int median_gap(const ss_slab *s, const double *start, const double *done, int w, double *buf,
                      double *out)
{
    size_t n = 0;
    for (long k = w; k < s->n; k++)
        if (s->epoch[k] == s->epoch[k - w]) buf[n++] = start[k] - done[k - w];
    if (n == 0) return 0;
    *out = gsl_stats_median(buf, 1, n); /* selection, O(n); reorders buf */
    return 1;
}

static void gpu_columns(const ss_slab *s, int g, double *start, double *done)
{
    for (long k = 0; k < s->n; k++) {
        start[k] = s->fetch_start[k * s->gpus + g];
        done[k] = start[k] + s->fetch_time[k * s->gpus + g];
    }
}

ss_status ss_calibrate(ss_trace_file *t, long max_rows, size_t mem_bytes, ss_calib *c)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    memset(c, 0, sizeof *c);
    long rows = m->iterations < max_rows ? m->iterations : max_rows;
    long fit = (long)(mem_bytes / ss_slab_row_bytes(m->gpus));
    if (rows > fit) rows = fit > 2 ? fit : 2;
    if (rows > m->iterations) rows = m->iterations;
    c->gpus = m->gpus;
    c->rows_used = rows;
    c->workers_gpu = calloc((size_t)m->gpus, sizeof *c->workers_gpu);
    c->gap_gpu = calloc((size_t)m->gpus, sizeof *c->gap_gpu);
    double *buf = malloc((size_t)rows * sizeof *buf);
    double *col_start = malloc((size_t)rows * sizeof *col_start);
    double *col_done = malloc((size_t)rows * sizeof *col_done);
    double *gaps = malloc((size_t)m->gpus * sizeof *gaps);
    ss_slab s;
    ss_status st = ss_slab_alloc(&s, rows, m->gpus);
    if (st == SS_OK && (!c->workers_gpu || !c->gap_gpu || !buf || !gaps || !col_start || !col_done))
        st = ss_fail(SS_ENOMEM, "out of memory for calibration");
    if (st == SS_OK) st = ss_trace_read_replay(t, 0, rows, &s);
    c->agree = 1;
    /* per GPU: the smallest w whose median gap is >= 0 (SPEC §8) */
    for (int g = 0; st == SS_OK && g < m->gpus; g++) {
        int W = SS_CALIB_MAX_WORKERS;
        double gap = 0.0, v;
        gpu_columns(&s, g, col_start, col_done);
        for (int w = 1; w <= SS_CALIB_MAX_WORKERS && w < rows; w++) {
            if (!median_gap(&s, col_start, col_done, w, buf, &v)) break;
            if (v >= 0.0) {
                W = w;
                gap = v;
                break;
            }
        }
        c->workers_gpu[g] = W;
        c->gap_gpu[g] = gap;
        if (W > c->workers) c->workers = W;
        if (g > 0 && W != c->workers_gpu[0]) c->agree = 0;
    }
    /* the run's gap: each GPU's median gap at the W the run uses, then the median over
     * GPUs (a GPU whose batches bunch may read a smaller w, with a gap that belongs to it) */
    for (int g = 0; st == SS_OK && g < m->gpus; g++) {
        double v = c->gap_gpu[g];
        if (c->workers_gpu[g] != c->workers) {
            gpu_columns(&s, g, col_start, col_done);
            if (!median_gap(&s, col_start, col_done, c->workers, buf, &v)) v = c->gap_gpu[g];
        }
        gaps[g] = v > 0.0 ? v : 0.0;
    }
    if (st == SS_OK) c->worker_gap = gsl_stats_median(gaps, 1, (size_t)m->gpus);
    ss_slab_free(&s);
    free(col_start);
    free(col_done);
    free(buf);
    free(gaps);
    if (st != SS_OK) ss_calib_free(c);
    return st;
}

void ss_calib_free(ss_calib *c)
{
    free(c->workers_gpu);
    free(c->gap_gpu);
    c->workers_gpu = NULL;
    c->gap_gpu = NULL;
}
