/* ss_calib_driver.c - the calibration's driver: reads the trace's columns for batches of
 * GPUs, has each rank fit its blocks of GPUs (ss_calib_fit.c) and share the results, then
 * derives what holds over the GPUs (the loops' asks, period and step, the loader's
 * start-up, CPU sharing and the disturbed-pool finding). */
#include "ss_calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ss_ablate.h"
#include "ss_calib_internal.h"
#include "ss_comm.h"
#include "ss_model_pipeline.h"
#include "ss_row.h"

/* Memory for the columns of a batch of GPUs (five doubles per row and GPU). */
#define CALIB_BATCH_BYTES (32L << 20)

/* From each row's first and last ask (amin, amax) over the GPUs: the median spread, the
 * step period (the median of the last ask's step between successive rows of one epoch) and
 * how often the asks come together (rows / rows within a quarter period; 0: never).
 * scratch: rows doubles. */
static void asks_summary(const double *amin, const double *amax, const int32_t *epoch, long rows, double *scratch,
                         double *spread, double *period, double *every)
{
    for (long k = 0; k < rows; k++) scratch[k] = amax[k] - amin[k];
    *spread = median_of(scratch, (size_t)rows);
    size_t np = 0;
    for (long k = 1; k < rows; k++)
        if (epoch[k] == epoch[k - 1]) scratch[np++] = amax[k] - amax[k - 1];
    *period = median_of(scratch, np);
    long together = 0;
    for (long k = 0; k < rows; k++) together += amax[k] - amin[k] < 0.25 * *period;
    *every = together > 0 ? (double)rows / (double)together : 0.0;
}

/* ss_calib.ask_phase_ratio from each row's least and largest ask over the GPUs and its
 * epoch; scratch holds rows doubles */
static void ask_phases(const double *amin, const double *amax, const int32_t *epoch, long rows, double *scratch,
                       double *ratio)
{
    for (int N = 2; N <= SS_CALIB_PHASES; N++) {
        double m[2];
        for (int at = 0; at < 2; at++) { /* the rows at a multiple of N in their epoch, then the others */
            size_t n = 0;
            for (long k = 0, pos = 0; k < rows; k++, pos++) {
                if (k > 0 && epoch[k] != epoch[k - 1]) pos = 0;
                if ((pos % N == 0) == (at == 0) && isfinite(amax[k] - amin[k])) scratch[n++] = amax[k] - amin[k];
            }
            m[at] = n >= 4 ? median_of(scratch, n) : NAN;
        }
        ratio[N] = m[0] > 0.0 && isfinite(m[1]) ? m[1] / m[0] : 0.0;
    }
}

ss_status ss_calib_asks(ss_trace_file *t, long max_rows, double *spread, double *period, double *every)
{
    *spread = *period = *every = 0.0;
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const long rows = m->iterations < max_rows ? m->iterations : max_rows;
    const int G = m->gpus, B = 64; /* GPUs read at a time */
    if (rows < 2 || G < 2) return SS_OK;
    const size_t nb = (size_t)rows * (size_t)(G < B ? G : B);
    double *ts = malloc(3 * nb * sizeof *ts), *amin = malloc(3 * (size_t)rows * sizeof *amin);
    int32_t *ep = malloc((size_t)rows * sizeof *ep);
    ss_status st = ts && amin && ep ? SS_OK : ss_fail(SS_ENOMEM, "out of memory reading the asks of %ld rows", rows);
    double *amax = amin ? amin + rows : NULL, *scratch = amin ? amin + 2 * rows : NULL;
    for (long k = 0; st == SS_OK && k < rows; k++) amin[k] = INFINITY, amax[k] = -INFINITY;
    if (st == SS_OK) st = ss_trace_read_epochs(t, 0, rows, ep);
    for (int g0 = 0; st == SS_OK && g0 < G; g0 += B) {
        const int ng = G - g0 < B ? G - g0 : B;
        double *it = ts + nb, *stall = ts + 2 * nb;
        st = ss_trace_read_loop_columns(t, 0, rows, g0, ng, ts, it, stall);
        for (long k = 0; st == SS_OK && k < rows; k++)
            for (int g = 0; g < ng; g++) {
                double a = ts[k * ng + g] - stall[k * ng + g];
                if (a < amin[k]) amin[k] = a;
                if (a > amax[k]) amax[k] = a;
            }
    }
    if (st == SS_OK) asks_summary(amin, amax, ep, rows, scratch, spread, period, every);
    free(ts);
    free(amin);
    free(ep);
    return st;
}

typedef struct {
    ss_trace_file *t;
    long rows;
    int batch, loaded_g0;
    int g_lo, g_hi; /* this rank's GPUs: batches are counted from g_lo and end at g_hi */
    int32_t *epoch;
    double *fs, *ft, *ts, *it, *stall; /* [rows][batch] */
    /* the columns of a group of CALIB_GROUP consecutive GPUs of the batch, GPU-major
     * ([GPU][STAGE_COLS][rows]): gathered a cache line at a time (a column of the batch read
     * GPU by GPU steps through memory a row apart, which on a 512-GPU batch is a power of
     * two bytes and thrashes the cache) */
    double *stage;
    int staged_g0;
} calib_io;

#define CALIB_GROUP 8
enum { STAGE_S, STAGE_DONE, STAGE_ASK, STAGE_ST, STAGE_FT, STAGE_IT, STAGE_COLS };

/* The batch of GPUs [*g0, *g0 + *ng) that holds g. */
static void batch_of(const calib_io *io, int g, int *g0, int *ng)
{
    *g0 = io->g_lo + (g - io->g_lo) / io->batch * io->batch;
    *ng = *g0 + io->batch <= io->g_hi ? io->batch : io->g_hi - *g0;
}

/* Loads GPU g's columns into d (pointers into the staged group; d->buf gets a copy of
 * the fetch times), reading the batch of GPUs holding g and staging its group when needed. */
static ss_status load_gpu(calib_io *io, int g, gpu_cols *d)
{
    int g0, ng;
    batch_of(io, g, &g0, &ng);
    if (io->loaded_g0 != g0) {
        ss_status st = ss_trace_read_fetch_columns(io->t, 0, io->rows, g0, ng, io->fs, io->ft,
                                                   io->loaded_g0 < 0 ? io->epoch : NULL);
        if (st == SS_OK) st = ss_trace_read_loop_columns(io->t, 0, io->rows, g0, ng, io->ts, io->it, io->stall);
        if (st != SS_OK) return st;
        io->loaded_g0 = g0;
        io->staged_g0 = -1;
    }
    const long n = io->rows;
    const int q0 = g0 + (g - g0) / CALIB_GROUP * CALIB_GROUP; /* the group's first GPU */
    const int nq = q0 + CALIB_GROUP <= g0 + ng ? CALIB_GROUP : g0 + ng - q0;
    if (io->staged_g0 != q0) {
        for (long k = 0; k < n; k++) {
            const long x = k * ng + (q0 - g0);
            for (int q = 0; q < nq; q++) {
                double *c = io->stage + (size_t)q * STAGE_COLS * (size_t)n;
                c[STAGE_S * n + k] = io->fs[x + q];
                c[STAGE_DONE * n + k] = io->fs[x + q] + io->ft[x + q];
                c[STAGE_ASK * n + k] = io->ts[x + q] - io->stall[x + q];
                c[STAGE_ST * n + k] = io->stall[x + q];
                c[STAGE_FT * n + k] = io->ft[x + q];
                c[STAGE_IT * n + k] = io->it[x + q];
            }
        }
        io->staged_g0 = q0;
    }
    double *c = io->stage + (size_t)(g - q0) * STAGE_COLS * (size_t)n;
    d->s = c + STAGE_S * n;
    d->done = c + STAGE_DONE * n;
    d->ask = c + STAGE_ASK * n;
    d->st = c + STAGE_ST * n;
    d->it = c + STAGE_IT * n;
    memcpy(d->buf, c + STAGE_FT * n, (size_t)n * sizeof *d->buf);
    double cap = median_of(d->buf, (size_t)n);
    d->fmed = cap;
    d->cap = cap > 1e-9 ? cap : 1e-9;
    return SS_OK;
}

/* GPU g's asks (train_start - stall; d from load_gpu): counts the rows whose next ask is
 * the ask plus the iteration time, and widens each row's [amin, amax] over GPUs. */
static void ask_stats(const calib_io *io, const gpu_cols *d, long *pairs, long *consistent, double *amin,
                      double *amax)
{
    const double *ask = d->ask, *it = d->it;
    for (long k = 0; k < io->rows; k++) {
        double a = ask[k];
        if (a < amin[k]) amin[k] = a; /* both start at infinity */
        if (a > amax[k]) amax[k] = a;
        if (k + 1 == io->rows || io->epoch[k + 1] != io->epoch[k]) continue;
        (*pairs)++;
        *consistent += fabs(a + it[k] - ask[k + 1]) <= 1e-6 + 0.01 * it[k];
    }
}

static void calib_free_io(calib_io *io)
{
    free(io->epoch);
    free(io->fs);
    free(io->ft);
    free(io->ts);
    free(io->it);
    free(io->stall);
    free(io->stage);
}

/* The training processes' alignment (MODELS-pipeline.md, "CPU sharing"), per pool of
 * cores: over the calibration's first `rows` rows, the mean of (n - 1) / (G_p - 1), where n
 * is the largest number of the pool's G_p GPUs whose step starts (train_start; j = 1: whose
 * asks plus their batches' deliveries, ask + max(0, stall - max(0, done - ask)) with ask =
 * train_start - stall) lie within b of each other (a spread <= b), b the pool's step CPU time (the
 * median over its GPUs of /loop_cpu_time, the fetch left out where W = 0): 1 when every
 * row's GPUs step together, 0 when each steps apart. v holds [row][GPU][2] (every rank
 * holds them alike after the all-reduce, so every rank finds the same shares). Writes
 * align[2 g + j], GPU g's pool's, 1 for a pool of one GPU. */
#define CALIB_ALIGN_BYTES (4L << 20)
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void alignment(const ss_calib *c, const ss_trace_meta *m, const int *pid, int npools, const double *v,
                      long rows, double *align)
{
    const int G = c->gpus;
    double *b = malloc((size_t)G * sizeof *b), *x = malloc((size_t)G * sizeof *x);
    for (int p = 0; p < npools; p++) {
        size_t nb = 0;
        for (int g = 0; b && g < G; g++)
            if (pid[g] == p) {
                double L = m->loop_cpu[g] - (c->workers_gpu[g] == 0 ? m->fetch_cpu[g] : 0.0);
                b[nb++] = L > 0.0 ? L : 0.0;
            }
        double bp = b ? median_of(b, nb) : 0.0, share[2] = {1.0, 1.0};
        if (nb > 1 && rows > 0 && x) {
            for (int j = 0; j < 2; j++) {
                double sum = 0.0;
                for (long k = 0; k < rows; k++) {
                    size_t n = 0;
                    for (int g = 0; g < G; g++)
                        if (pid[g] == p) x[n++] = v[((size_t)k * (size_t)G + (size_t)g) * 2 + (size_t)j];
                    qsort(x, n, sizeof *x, cmp_double);
                    size_t best = 1;
                    for (size_t lo = 0, hi = 0; hi < n; hi++) { /* the widest run within bp */
                        while (x[hi] - x[lo] > bp) lo++;
                        best = hi - lo + 1 > best ? hi - lo + 1 : best;
                    }
                    sum += (double)(best - 1) / (double)(n - 1);
                }
                share[j] = sum / (double)rows;
            }
        }
        for (int g = 0; g < G; g++)
            if (pid[g] == p)
                for (int j = 0; j < 2; j++) align[2 * g + j] = share[j];
    }
    free(b);
    free(x);
}

/* The trace's period and step (ss_calib.period, .step) from each row's largest iteration
 * time and stall over the GPUs; scratch holds n doubles. */
static void period_and_step(ss_calib *c, const double *imax, const double *smax, size_t n, double *scratch)
{
    for (size_t k = 0; k < n; k++) scratch[k] = imax[k] - smax[k] > 0.0 ? imax[k] - smax[k] : 0.0;
    c->step = median_of(scratch, n);
    memcpy(scratch, imax, n * sizeof *scratch);
    c->period = median_of(scratch, n);
}

/* CPU sharing's view of the trace (c->share): the calibrated loaders, each GPU's median
 * fetch time fmed, the trace's period and step (period_and_step) and the pools' alignment.
 * SS_ENOMEM and ss_share_build's errors (c->share NULL then). */
static ss_status build_share(ss_calib *c, const ss_trace_meta *m, const double *fmed, const double *align)
{
    const double iter = c->period, step = c->step;
    c->share = malloc(sizeof *c->share);
    if (!c->share) return ss_fail(SS_ENOMEM, "out of memory for CPU sharing");
    const int waits = !ssp_off(SSP_RULE_WAITS);
    ss_status st = ss_share_build(c->share, c->gpus, m->fetch_cpu, m->loop_cpu, waits ? m->fetch_wait : NULL,
                                  waits ? m->loop_wait : NULL, m->cpu_pool, m->cpu_pool_cores, fmed, c->workers_gpu,
                                  c->gap_gpu, c->delivery_gpu, iter, step, ssp_off(SSP_RULE_ALIGNMENT) ? NULL : align);
    if (st == SS_OK && m->host_busy && m->host_job) { /* [pipeline] quiet_host's trace stretch */
        double *others = malloc((size_t)c->gpus * sizeof *others);
        if (!others) st = ss_fail(SS_ENOMEM, "out of memory for CPU sharing");
        for (int g = 0; others && g < c->gpus; g++) others[g] = m->host_busy[g] - m->host_job[g];
        if (others) st = ss_share_set_others(c->share, others);
        free(others);
        if (st != SS_OK) ss_share_free(c->share);
    }
    if (st == SS_OK && m->fetch_wait_start && c->share->fetch_wait && !ssp_off(SSP_RULE_FIRST_WINDOW)) {
        st = ss_share_set_start(c->share, m->fetch_wait_start, c->prefetch_gpu,
                                ssp_off(SSP_RULE_WINDOW_ROWS) ? NULL : c->start_excess_gpu);
        if (st != SS_OK) ss_share_free(c->share);
    }
    if (st != SS_OK) {
        free(c->share);
        c->share = NULL;
    }
    return st;
}

/* The disturbed-pool finding (ss_calib.disturbed) from CPU sharing's stretches: among the
 * pools whose excess wait for a core (measured over the model's, per GPU of the pool, on
 * its fetches or on its steps) is more than CALIB_DISTURBED_SHARE of the trace's
 * iteration, the one whose measured stretch is the largest multiple of the model's; a
 * finding when that multiple exceeds CALIB_DISTURBED_RATIO. Needs the measured stretches
 * of fetches and steps. Local. */
static void find_disturbed(ss_calib *c)
{
    const ss_share *sh = c->share;
    const int G = c->gpus;
    memset(&c->disturbed, 0, sizeof c->disturbed);
    if (!sh || sh->pools <= 0 || !sh->s0m) return;
    int worst = -1;
    double wr = 0.0, excess = 0.0;
    for (int p = 0; p < sh->pools && sh->s0m_step; p++) {
        double cf = 0.0, cs = 0.0;
        int n = 0;
        for (int g = 0; g < G; g++)
            if (sh->pool_of[g] == p) {
                cf += sh->fetch_cpu[g];
                cs += sh->step_cpu[g];
                n++;
            }
        if (!(sh->s0[p] > 0) || n == 0) continue;
        const double over = CALIB_DISTURBED_SHARE * sh->iter_mean;
        /* the pool's mean excess wait per fetch and per step */
        const double ef = (sh->s0m[p] - sh->s0[p]) * cf / n, es = (sh->s0m_step[p] - sh->s0[p]) * cs / n;
        const double rf = ef > over ? sh->s0m[p] / sh->s0[p] : 0.0, rs = es > over ? sh->s0m_step[p] / sh->s0[p] : 0.0;
        const double r = rf > rs ? rf : rs;
        if (r > wr) {
            wr = r;
            worst = p;
            excess = rf > rs ? ef : es;
        }
    }
    if (worst < 0 || !(wr > CALIB_DISTURBED_RATIO)) return;
    int g0 = 0;
    while (g0 < G - 1 && sh->pool_of[g0] != worst) g0++;
    c->disturbed = (ss_calib_finding){.found = 1,
                                      .pool = worst,
                                      .gpu = g0,
                                      .ratio = wr,
                                      .fetch_stretch = sh->s0m[worst],
                                      .step_stretch = sh->s0m_step[worst],
                                      .model_stretch = sh->s0[worst],
                                      .excess_share = sh->iter_mean > 0 ? excess / sh->iter_mean : NAN};
}

ss_status ss_calibrate(ss_trace_file *t, long max_rows, ss_calib *c)
{
    ss_comm self;
    ss_comm_self(&self);
    return ss_calibrate_comm(&self, t, max_rows, c);
}

/* In-place MPI_Allreduce over comm; rc is the first failure so far (MPI_ERRORS_RETURN):
 * the call is made whatever rc says, so that every rank makes the same calls. */
static int allreduce(const ss_comm *comm, void *buf, int n, MPI_Datatype type, MPI_Op op, int rc)
{
    int r = MPI_Allreduce(MPI_IN_PLACE, buf, n, type, op, comm->comm);
    return rc != MPI_SUCCESS ? rc : r;
}

/* Adds every rank's per-GPU results (each GPU is fitted on one rank, the others hold 0,
 * so the sums are exact), with the fetch medians fmed. Collective. */
static ss_status share_results(const ss_comm *comm, ss_calib *c, double *fmed)
{
    if (!comm->mpi || comm->size == 1) return SS_OK;
    int G = c->gpus, rc = MPI_SUCCESS;
    int *iv[2] = {c->workers_gpu, c->prefetch_gpu};
    double *dv[8] = {c->gap_gpu,         c->refill_gpu, c->delivery_gpu,         c->resid_gpu,
                     c->stall_resid_gpu, c->ready_gpu,  c->start_excess_gpu, fmed};
    const int nd = 8;
    for (int i = 0; i < 2; i++) rc = allreduce(comm, iv[i], G, MPI_INT, MPI_SUM, rc);
    for (int i = 0; i < nd; i++) rc = allreduce(comm, dv[i], G, MPI_DOUBLE, MPI_SUM, rc);
    return rc == MPI_SUCCESS ? SS_OK : ss_fail(SS_EMPI, "calibration: sharing the per-GPU results failed");
}

/* One calibration's buffers and running totals (ss_calibrate_comm): run_setup makes them,
 * run_free frees them on every path. */
typedef struct {
    const ss_comm *comm;
    const ss_trace_meta *m;
    ss_calib *c;
    calib_io io;
    gpu_cols d;          /* the GPU being fitted (load_gpu) */
    long *pos, *first;   /* [rows] each row's position in its epoch and its epoch's first row */
    double *work;        /* [9 rows]: d's scratch a, b, buf, then spread .. dmax */
    double *spread;      /* [rows] scratch */
    double *amin, *amax; /* [rows] each row's first and last ask over the GPUs */
    /* [rows] each row's largest iteration time and stall over the GPUs (the trace's period
     * and step: CPU and storage sharing) */
    double *imax, *smax;
    double *dmax;        /* [rows] each row's largest delivery over the GPUs (ss_calib.delivery_rows) */
    double *gaps;        /* [gpus] scratch: the worker gaps */
    double *fmed;        /* [gpus] each GPU's median fetch time: ss_calib.fetch_med_gpu */
    int rec_p;           /* the recorded prefetch factor, or -1 */
    const int *rec_w;    /* the recorded worker counts, or NULL */
    int want_share;      /* CPU sharing's statistics (build_share) where the trace has what it needs */
    /* the training processes' alignment per pool (alignment) over the first al_rows rows:
     * each GPU's step starts and asks, al_v[row][GPU][2] */
    int npools, *pid;
    long al_rows;
    double *al_v, *align;
    known_set known;     /* the settings fitted so far in the current block of GPUs */
    long pairs, consistent; /* ask_stats' counts */
} calib_run;

/* The calibration's rows: at most max_rows rows, fewer on wide traces so that one batch
 * holds every GPU (a column batch still reads whole chunks, which span all GPUs), but
 * never below SS_CALIB_MIN_ROWS; and the GPUs read at a time. */
static void size_io(calib_io *io, const ss_trace_meta *m, long max_rows)
{
    const int G = m->gpus;
    long fit = CALIB_BATCH_BYTES / (5 * (long)sizeof(double) * G);
    io->rows = max_rows < fit ? max_rows : fit;
    if (io->rows < SS_CALIB_MIN_ROWS) io->rows = max_rows < SS_CALIB_MIN_ROWS ? max_rows : SS_CALIB_MIN_ROWS;
    if (io->rows > m->iterations) io->rows = m->iterations;
    if (io->rows < 1) io->rows = 1;
    long per_gpu = io->rows * 5 * (long)sizeof(double);
    io->batch = (int)(CALIB_BATCH_BYTES / per_gpu < G ? CALIB_BATCH_BYTES / per_gpu : G);
    if (io->batch < 1) io->batch = 1;
}

/* The per-GPU results in c, the columns' buffers and the rows' figures. SS_ENOMEM. Local. */
static ss_status alloc_buffers(calib_run *r)
{
    ss_calib *c = r->c;
    const ss_trace_meta *m = r->m;
    calib_io *io = &r->io;
    const size_t n = (size_t)io->rows, cols = n * (size_t)io->batch, ng = (size_t)m->gpus;
    c->workers_gpu = calloc(ng, sizeof *c->workers_gpu);
    c->prefetch_gpu = calloc(ng, sizeof *c->prefetch_gpu);
    c->gap_gpu = calloc(ng, sizeof *c->gap_gpu);
    c->refill_gpu = calloc(ng, sizeof *c->refill_gpu);
    c->delivery_gpu = calloc(ng, sizeof *c->delivery_gpu);
    c->resid_gpu = calloc(ng, sizeof *c->resid_gpu);
    c->stall_resid_gpu = calloc(ng, sizeof *c->stall_resid_gpu);
    c->ready_gpu = calloc(ng, sizeof *c->ready_gpu);
    c->start_excess_gpu = calloc(ng, sizeof *c->start_excess_gpu);
    if (m->fetch_cpu && (c->fetch_cpu_gpu = malloc(ng * sizeof *c->fetch_cpu_gpu)) != NULL)
        memcpy(c->fetch_cpu_gpu, m->fetch_cpu, ng * sizeof *c->fetch_cpu_gpu);
    if (m->probe_lead && (c->probe_gpu = calloc(SSP_PROBE_COUNT * ng, sizeof *c->probe_gpu)) != NULL) {
        c->probe_next = m->probe_next_lead != NULL;
        const double *probe[SSP_PROBE_COUNT] = {
            [SSP_PROBE_LEAD] = m->probe_lead,
            [SSP_PROBE_STARTUP] = m->probe_startup,
            [SSP_PROBE_DELIVERY] = m->probe_delivery,
            [SSP_PROBE_STOP] = m->probe_stop,
            [SSP_PROBE_NEXT_LEAD] = m->probe_next_lead,
            [SSP_PROBE_NEXT_STARTUP] = m->probe_next_startup};
        for (int i = 0; i < SSP_PROBE_COUNT; i++) /* (a second pass not recorded stays unset) */
            if (probe[i]) memcpy(c->probe_gpu + (size_t)i * ng, probe[i], ng * sizeof *c->probe_gpu);
    }
    if (m->pass_start && m->passes > 0 &&
        (c->pass_start_gpu = malloc((size_t)m->passes * ng * sizeof *c->pass_start_gpu)) != NULL) {
        memcpy(c->pass_start_gpu, m->pass_start, (size_t)m->passes * ng * sizeof *c->pass_start_gpu);
        c->passes = m->passes;
        if (m->pass_stop &&
            (c->pass_stop_gpu = malloc((size_t)m->passes * ng * sizeof *c->pass_stop_gpu)) != NULL)
            memcpy(c->pass_stop_gpu, m->pass_stop, (size_t)m->passes * ng * sizeof *c->pass_stop_gpu);
    }
    io->epoch = malloc(n * sizeof *io->epoch);
    io->fs = malloc(cols * sizeof *io->fs);
    io->ft = malloc(cols * sizeof *io->ft);
    io->ts = malloc(cols * sizeof *io->ts);
    io->it = malloc(cols * sizeof *io->it);
    io->stall = malloc(cols * sizeof *io->stall);
    io->stage = malloc((size_t)CALIB_GROUP * STAGE_COLS * n * sizeof *io->stage);
    r->pos = malloc(n * sizeof *r->pos);
    r->first = malloc(n * sizeof *r->first);
    r->work = malloc(9 * n * sizeof *r->work);
    r->gaps = malloc(ng * sizeof *r->gaps);
    r->fmed = calloc(ng, sizeof *r->fmed);
    r->d = (gpu_cols){.n = io->rows, .pos = r->pos, .first = r->first};
    if (r->work) { /* s, done, ask, st and it point into the staged columns (load_gpu) */
        r->d.a = r->work;
        r->d.b = r->work + n;
        r->d.buf = r->work + 2 * n;
        r->spread = r->work + 3 * n;
        r->amin = r->work + 4 * n;
        r->amax = r->work + 5 * n;
        r->imax = r->work + 6 * n;
        r->smax = r->work + 7 * n;
        r->dmax = r->work + 8 * n;
        for (size_t k = 0; k < n; k++) {
            r->amin[k] = INFINITY;
            r->amax[k] = -INFINITY;
            r->imax[k] = r->smax[k] = r->dmax[k] = -INFINITY;
        }
    }
    if (!c->workers_gpu || !c->prefetch_gpu || !c->gap_gpu || !c->refill_gpu || !c->delivery_gpu || !c->resid_gpu ||
        !c->stall_resid_gpu || !c->ready_gpu || !c->start_excess_gpu || (m->fetch_cpu && !c->fetch_cpu_gpu) || (m->probe_lead && !c->probe_gpu) || (m->pass_start && m->passes > 0 && (!c->pass_start_gpu || (m->pass_stop && !c->pass_stop_gpu))) ||
        !io->epoch || !io->fs || !io->ft || !io->ts || !io->it || !io->stall || !io->stage || !r->pos || !r->first ||
        !r->work || !r->gaps || !r->fmed)
        return ss_fail(SS_ENOMEM, "out of memory for calibration (%ld rows x %d GPUs)", io->rows, m->gpus);
    return SS_OK;
}

/* CPU sharing's pools and the alignment's rows. SS_ENOMEM. Local. */
static ss_status alloc_share(calib_run *r)
{
    const int G = r->m->gpus;
    const size_t ng = (size_t)G;
    r->pid = malloc(ng * sizeof *r->pid);
    r->align = malloc(2 * ng * sizeof *r->align);
    if (r->pid) r->npools = ss_share_pool_ids(G, r->m->cpu_pool, r->pid); /* as ss_share_build numbers them */
    r->al_rows = CALIB_ALIGN_BYTES / (2 * (long)sizeof(double) * G);
    r->al_rows = r->al_rows < r->io.rows ? r->al_rows : r->io.rows;
    r->al_v = calloc((size_t)r->al_rows * ng * 2 + 1, sizeof *r->al_v);
    if (!r->pid || !r->align || !r->al_v) return ss_fail(SS_ENOMEM, "out of memory for calibration (%d GPUs)", G);
    return SS_OK;
}

/* Sizes and allocates the run, reads what the trace records of its loaders and gives this
 * rank its GPUs: a contiguous run of SS_CALIB_CHUNK-GPU blocks. Local; r is ready for
 * run_free whatever it returns. */
static ss_status run_setup(calib_run *r, const ss_comm *comm, ss_trace_file *t, long max_rows, ss_calib *c)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const int G = m->gpus;
    memset(r, 0, sizeof *r);
    r->comm = comm;
    r->m = m;
    r->c = c;
    r->io = (calib_io){.t = t, .loaded_g0 = -1, .staged_g0 = -1};
    size_io(&r->io, m, max_rows);
    c->gpus = G;
    c->rows_used = r->io.rows;
    ss_status st = alloc_buffers(r);
    r->rec_p = m->prefetch_factor < 1 ? -1 : (int)m->prefetch_factor;
    r->rec_w = m->loader_workers;
    c->recorded_workers = r->rec_w != NULL;
    c->recorded_prefetch = r->rec_p >= 1;
    c->no_fetch = !ss_trace_meta_has_fetch(m);
    r->want_share = !c->no_fetch && ss_trace_meta_has_cpu(m);
    if (st == SS_OK && r->want_share) st = alloc_share(r);
    const int nchunks = (G + SS_CALIB_CHUNK - 1) / SS_CALIB_CHUNK;
    const int c0 = (int)((long)nchunks * comm->rank / comm->size), c1 = (int)((long)nchunks * (comm->rank + 1) / comm->size);
    r->io.g_lo = c0 * SS_CALIB_CHUNK;
    r->io.g_hi = c1 * SS_CALIB_CHUNK < G ? c1 * SS_CALIB_CHUNK : G;
    return st;
}

/* GPU g's part of the rows' figures: each row's largest stall (also the loader's
 * start-up: each epoch's first row), iteration and delivery (the stall beyond the wait
 * for the batch to be ready); for the alignment, the step's start and the ask plus the
 * delivery (where the loader is ahead, the step starts then) */
static void row_figures(calib_run *r, int g)
{
    const gpu_cols *d = &r->d;
    const size_t ng = (size_t)r->m->gpus;
    for (long k = 0; k < r->io.rows; k++) {
        const double dv = ss_row_delivery_of(d->st[k], d->ask[k] + d->st[k], d->done[k]);
        r->smax[k] = d->st[k] > r->smax[k] ? d->st[k] : r->smax[k];
        r->imax[k] = d->it[k] > r->imax[k] ? d->it[k] : r->imax[k];
        r->dmax[k] = dv > r->dmax[k] ? dv : r->dmax[k];
        if (r->want_share && k < r->al_rows) {
            r->al_v[((size_t)k * ng + (size_t)g) * 2] = d->ask[k] + d->st[k];
            r->al_v[((size_t)k * ng + (size_t)g) * 2 + 1] = d->ask[k] + dv;
        }
    }
}

/* Each row's position in its epoch and its epoch's first row, from io.epoch */
static void epoch_positions(calib_run *r)
{
    for (long k = 0; k < r->io.rows; k++) {
        int new_epoch = k == 0 || r->io.epoch[k] != r->io.epoch[k - 1];
        r->first[k] = new_epoch ? k : r->first[k - 1];
        r->pos[k] = k - r->first[k];
    }
}

/* Fits GPU g (its columns in r->d) and records its results in c */
static void fit_one(calib_run *r, int g)
{
    ss_calib *c = r->c;
    gpu_cols *d = &r->d;
    cand best;
    if (c->no_fetch) {
        best = (cand){r->rec_w ? r->rec_w[g] : 1, r->rec_p >= 1 ? r->rec_p : 2, 0, 0, 0};
    } else {
        best = ssc_fit_gpu(d, r->rec_w ? r->rec_w[g] : -1, r->rec_p, &r->known);
    }
    c->workers_gpu[g] = best.W;
    c->prefetch_gpu[g] = best.P;
    c->gap_gpu[g] = best.gap;
    if (!c->no_fetch) /* (the delivery and the residuals) */
        ssc_finish_gpu(d, &best, &c->delivery_gpu[g], &c->resid_gpu[g], &c->stall_resid_gpu[g]);
    /* the share of its rows whose batch was ready at the ask, past each epoch's first
     * max(W, 1) rows (an epoch's first batches are never ready when asked for) */
    long ready = 0, counted = 0;
    for (long k = 0; k < r->io.rows; k++)
        if (r->pos[k] >= (best.W > 1 ? best.W : 1)) {
            ready += d->done[k] <= d->ask[k];
            counted++;
        }
    c->ready_gpu[g] = counted > 0 ? (double)ready / (double)counted : 0.0;
    c->refill_gpu[g] = best.refill;
    /* the first window's rows (each epoch's first W * P): their mean excess fetch over the
     * median, which spreads the window's measured wait for a core over its rows */
    double excess = 0.0;
    long window = 0;
    for (long k = 0; best.W >= 1 && k < r->io.rows; k++)
        if (r->pos[k] < (long)best.W * (best.P > 0 ? best.P : 1)) {
            const double e = d->done[k] - d->s[k] - d->fmed;
            excess += e > 0.0 ? e : 0.0;
            window++;
        }
    c->start_excess_gpu[g] = window > 0 ? excess / (double)window : 0.0;
}

/* Reads and fits this rank's GPUs [io.g_lo, io.g_hi), adding them to the rows' figures.
 * Local (the reads are independent). */
static ss_status fit_rank(calib_run *r)
{
    calib_io *io = &r->io;
    ss_status st = SS_OK;
    /* the rows' epochs (the asks' period and the loader's start-up): read with the first
     * GPU's columns, or here by a rank that fits no GPU (more ranks than blocks of GPUs),
     * which read none: every rank must see them */
    if (io->g_lo >= io->g_hi) st = ss_trace_read_epochs(io->t, 0, io->rows, io->epoch);
    for (int g = io->g_lo; st == SS_OK && g < io->g_hi; g++) {
        if (g % SS_CALIB_CHUNK == 0) r->known.n = 0; /* each block starts afresh */
        st = load_gpu(io, g, &r->d);
        if (st != SS_OK) break;
        ask_stats(io, &r->d, &r->pairs, &r->consistent, r->amin, r->amax);
        r->fmed[g] = r->d.fmed;
        row_figures(r, g);
        if (g == io->g_lo) epoch_positions(r);
        fit_one(r, g);
    }
    return st;
}

/* Combines the ranks' ask counts (sums), the rows' figures (minima and maxima) and the
 * alignment's values (each GPU's come from one rank, the others hold 0: the sum is exact).
 * Collective: every rank makes the same calls (the counts and sizes depend on the trace
 * only). */
static ss_status share_rows(calib_run *r)
{
    const ss_comm *comm = r->comm;
    if (!comm->mpi || comm->size == 1) return SS_OK;
    const int n = (int)r->io.rows, na = (int)(r->al_rows * 2 * (long)r->m->gpus);
    long cnt[2] = {r->pairs, r->consistent};
    int rc = allreduce(comm, cnt, 2, MPI_LONG, MPI_SUM, MPI_SUCCESS);
    rc = allreduce(comm, r->amin, n, MPI_DOUBLE, MPI_MIN, rc);
    rc = allreduce(comm, r->amax, n, MPI_DOUBLE, MPI_MAX, rc);
    rc = allreduce(comm, r->imax, n, MPI_DOUBLE, MPI_MAX, rc);
    rc = allreduce(comm, r->smax, n, MPI_DOUBLE, MPI_MAX, rc);
    rc = allreduce(comm, r->dmax, n, MPI_DOUBLE, MPI_MAX, rc);
    if (r->want_share && na > 0) rc = allreduce(comm, r->al_v, na, MPI_DOUBLE, MPI_SUM, rc);
    r->pairs = cnt[0];
    r->consistent = cnt[1];
    return rc == MPI_SUCCESS ? SS_OK : ss_fail(SS_EMPI, "calibration: sharing the asks failed");
}

/* What holds over the GPUs, from the shared per-GPU results and rows' figures: the asks,
 * the largest W, agreement, the worker gap, the loader's start-up, period and step, the
 * rows' delivery. Local (every rank computes the same). */
static void summarise(calib_run *r)
{
    ss_calib *c = r->c;
    const int G = c->gpus;
    const long rows = r->io.rows;
    const int32_t *epoch = r->io.epoch;
    asks_summary(r->amin, r->amax, epoch, rows, r->spread, &c->ask_spread, &c->ask_period, &c->ask_together_every);
    ask_phases(r->amin, r->amax, epoch, rows, r->spread, c->ask_phase_ratio);
    c->asks_consistent = r->pairs > 0 && (double)r->consistent >= 0.99 * (double)r->pairs;
    c->ask_lags = c->asks_consistent && G > 1 && c->ask_spread > 1e-9;
    c->agree = 1;
    for (int g = 0; g < G; g++) {
        if (c->workers_gpu[g] > c->workers) c->workers = c->workers_gpu[g];
        if (c->workers_gpu[g] != c->workers_gpu[0] || c->prefetch_gpu[g] != c->prefetch_gpu[0]) c->agree = 0;
        r->gaps[g] = c->gap_gpu[g];
    }
    c->worker_gap = median_of(r->gaps, (size_t)G);
    /* the loader's start-up: the largest stall of each epoch's first row, on average */
    double up = 0.0;
    long ne = 0;
    for (long k = 0; k < rows; k++)
        if (k == 0 || epoch[k] != epoch[k - 1]) {
            up += r->smax[k];
            ne++;
        }
    c->startup = ne > 0 ? up / (double)ne : 0.0;
    c->startup_epochs = ne;
    period_and_step(c, r->imax, r->smax, (size_t)rows, r->spread); /* (spread is no longer needed) */
    c->delivery_rows = c->no_fetch ? 0.0 : median_of(r->dmax, (size_t)rows);
}

/* CPU sharing (c->share) and its finding. Local (every rank builds the same). */
static ss_status finish_share(calib_run *r)
{
    ss_calib *c = r->c;
    alignment(c, r->m, r->pid, r->npools, r->al_v, r->al_rows, r->align);
    ss_status st = build_share(c, r->m, r->fmed, r->align);
    /* the period's delivery term for the scenarios: a row's largest delivery; a synchronous
     * trace's rows show none, so where its probe measured one worker's, the largest probe */
    double rows_term = c->delivery_rows;
    for (int g = 0; c->probe_gpu && !ssp_off(SSP_RULE_SYNC_PROBE) && g < c->gpus; g++)
        rows_term = fmax(rows_term, c->probe_gpu[(size_t)SSP_PROBE_DELIVERY * (size_t)c->gpus + (size_t)g]);
    if (st == SS_OK && !ssp_off(SSP_RULE_DELIVERY_ROWS)) st = ss_share_set_delivery_rows(c->share, rows_term);
    if (st == SS_OK && !ssp_off(SSP_RULE_READY_FLAG)) st = ss_share_set_ready(c->share, c->ready_gpu);
    if (st == SS_OK) find_disturbed(c);
    return st;
}

/* Frees the run's buffers; the fetch medians go to c (freed with it) */
static void run_free(calib_run *r)
{
    free(r->pid);
    free(r->align);
    free(r->al_v);
    calib_free_io(&r->io);
    free(r->pos);
    free(r->first);
    free(r->work);
    free(r->gaps);
    r->c->fetch_med_gpu = r->fmed; /* (NULL out of memory: then the status is not SS_OK) */
}

/* Collective: every rank reaches ss_comm_any_failed; all ranks then hold the same status,
 * and all or none make share_results' and share_rows' calls (share_rows' whatever
 * share_results returned, as an MPI call may fail on one rank alone); the rest is local. */
ss_status ss_calibrate_comm(const ss_comm *comm, ss_trace_file *t, long max_rows, ss_calib *c)
{
    double t0 = ss_wtime();
    memset(c, 0, sizeof *c);
    calib_run r;
    ss_status st = run_setup(&r, comm, t, max_rows, c);
    if (st == SS_OK) st = fit_rank(&r);
    st = ss_comm_any_failed(comm, st);
    if (st == SS_OK) {
        const ss_status s1 = share_results(comm, c, r.fmed), s2 = share_rows(&r);
        st = s1 != SS_OK ? s1 : s2;
    }
    if (st == SS_OK) summarise(&r);
    if (st == SS_OK && r.want_share) st = finish_share(&r);
    run_free(&r);
    if (st != SS_OK) ss_calib_free(c);
    c->seconds = ss_wtime() - t0;
    return st;
}

/* Frees c's per-GPU arrays and CPU-sharing state and clears their pointers, so a second
 * call is harmless; the scalars stay. */
void ss_calib_free(ss_calib *c)
{
    int **ints[] = {&c->workers_gpu, &c->prefetch_gpu};
    double **dbls[] = {&c->gap_gpu,         &c->refill_gpu, &c->delivery_gpu,  &c->resid_gpu,
                       &c->stall_resid_gpu, &c->ready_gpu,  &c->fetch_cpu_gpu, &c->fetch_med_gpu,
                       &c->probe_gpu,       &c->start_excess_gpu, &c->pass_start_gpu,
                       &c->pass_stop_gpu};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        free(*ints[i]);
        *ints[i] = NULL;
    }
    for (size_t i = 0; i < sizeof dbls / sizeof dbls[0]; i++) {
        free(*dbls[i]);
        *dbls[i] = NULL;
    }
    if (c->share) ss_share_free(c->share);
    free(c->share);
    c->share = NULL;
}
