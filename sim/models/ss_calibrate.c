/* ss_calibrate.c - W and worker_gap from medians of start-to-earlier-done gaps. */
#include "ss_calibrate.h"

#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

/* Memory for the fetch columns of a batch of GPUs (two doubles per row and GPU). */
#define CALIB_BATCH_BYTES (32L << 20)

/* Median of start[k] - done[k-w] of one GPU's columns over rows k with k-w in the same
 * epoch; returns 0 when there is no such pair. */
static int median_gap(const int32_t *epoch, long rows, const double *start, const double *done, int w,
                      double *buf, double *out)
{
    size_t n = 0;
    for (long k = w; k < rows; k++)
        if (epoch[k] == epoch[k - w]) buf[n++] = start[k] - done[k - w];
    if (n == 0) return 0;
    *out = gsl_stats_median(buf, 1, n); /* selection, O(n); reorders buf */
    return 1;
}

/* The smallest w >= 1 whose median gap is >= 0, and that gap (SPEC §8). */
static void workers_of_gpu(const int32_t *epoch, long rows, const double *start, const double *done, double *buf,
                           int *W_out, double *gap_out)
{
    double v;
    *W_out = SS_CALIB_MAX_WORKERS;
    *gap_out = 0.0;
    for (int w = 1; w <= SS_CALIB_MAX_WORKERS && w < rows; w++) {
        if (!median_gap(epoch, rows, start, done, w, buf, &v)) break;
        if (v >= 0.0) {
            *W_out = w;
            *gap_out = v;
            return;
        }
    }
}

typedef struct {
    ss_trace_file *t;
    long rows;
    int batch;
    int32_t *epoch;
    double *fs, *ft, *start, *done, *buf;
} calib_io;

/* Loads GPU g's start and done columns, reading the batch of GPUs holding g when needed. */
static ss_status load_gpu(calib_io *io, int g, int *loaded_g0)
{
    int G = ss_trace_meta_of(io->t)->gpus;
    int g0 = g - g % io->batch, ng = g0 + io->batch <= G ? io->batch : G - g0;
    if (*loaded_g0 != g0) {
        /* the first batch read also brings the rows' epochs */
        ss_status st = ss_trace_read_fetch_columns(io->t, 0, io->rows, g0, ng, io->fs, io->ft,
                                                   *loaded_g0 < 0 ? io->epoch : NULL);
        if (st != SS_OK) return st;
        *loaded_g0 = g0;
    }
    for (long k = 0; k < io->rows; k++) {
        io->start[k] = io->fs[k * ng + (g - g0)];
        io->done[k] = io->start[k] + io->ft[k * ng + (g - g0)];
    }
    return SS_OK;
}

ss_status ss_calibrate(ss_trace_file *t, long max_rows, ss_calib *c)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    memset(c, 0, sizeof *c);
    calib_io io = {.t = t};
    /* at most max_rows rows, fewer on wide traces so that one batch holds every GPU (a
     * column batch still reads whole chunks, which span all GPUs), but never below
     * SS_CALIB_MIN_ROWS */
    long fit = CALIB_BATCH_BYTES / (2 * (long)sizeof(double) * m->gpus);
    io.rows = max_rows < fit ? max_rows : fit;
    if (io.rows < SS_CALIB_MIN_ROWS) io.rows = max_rows < SS_CALIB_MIN_ROWS ? max_rows : SS_CALIB_MIN_ROWS;
    if (io.rows > m->iterations) io.rows = m->iterations;
    long per_gpu = io.rows * 2 * (long)sizeof(double);
    io.batch = (int)(CALIB_BATCH_BYTES / per_gpu < m->gpus ? CALIB_BATCH_BYTES / per_gpu : m->gpus);
    if (io.batch < 1) io.batch = 1;
    c->gpus = m->gpus;
    c->rows_used = io.rows;
    c->workers_gpu = calloc((size_t)m->gpus, sizeof *c->workers_gpu);
    c->gap_gpu = calloc((size_t)m->gpus, sizeof *c->gap_gpu);
    double *gaps = malloc((size_t)m->gpus * sizeof *gaps);
    size_t cols = (size_t)io.rows * (size_t)io.batch;
    io.epoch = malloc((size_t)io.rows * sizeof *io.epoch);
    io.fs = malloc(cols * sizeof *io.fs);
    io.ft = malloc(cols * sizeof *io.ft);
    io.start = malloc((size_t)io.rows * sizeof *io.start);
    io.done = malloc((size_t)io.rows * sizeof *io.done);
    io.buf = malloc((size_t)io.rows * sizeof *io.buf);
    ss_status st = SS_OK;
    if (!c->workers_gpu || !c->gap_gpu || !gaps || !io.epoch || !io.fs || !io.ft || !io.start || !io.done || !io.buf)
        st = ss_fail(SS_ENOMEM, "out of memory for calibration");
    int loaded = -1;
    c->agree = 1;
    for (int g = 0; st == SS_OK && g < m->gpus; g++) {
        st = load_gpu(&io, g, &loaded);
        if (st != SS_OK) break;
        workers_of_gpu(io.epoch, io.rows, io.start, io.done, io.buf, &c->workers_gpu[g], &c->gap_gpu[g]);
        if (c->workers_gpu[g] > c->workers) c->workers = c->workers_gpu[g];
        if (g > 0 && c->workers_gpu[g] != c->workers_gpu[0]) c->agree = 0;
    }
    /* the run's gap: each GPU's median gap at the W the run uses, then the median over
     * GPUs (a GPU whose batches bunch may read a smaller w, with a gap that belongs to it) */
    for (int g = 0; st == SS_OK && g < m->gpus; g++) {
        double v = c->gap_gpu[g];
        if (c->workers_gpu[g] != c->workers) {
            st = load_gpu(&io, g, &loaded);
            if (st == SS_OK && !median_gap(io.epoch, io.rows, io.start, io.done, c->workers, io.buf, &v))
                v = c->gap_gpu[g];
        }
        gaps[g] = v > 0.0 ? v : 0.0;
    }
    if (st == SS_OK) c->worker_gap = gsl_stats_median(gaps, 1, (size_t)m->gpus);
    free(io.epoch);
    free(io.fs);
    free(io.ft);
    free(io.start);
    free(io.done);
    free(io.buf);
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
