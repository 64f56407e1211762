/* ss_sweep.c - work decomposition, slab streaming, block partials, gather and merge. */
#include "ss_sweep.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ss_limits.h"
#include "ss_model.h"
#include "ss_nodeslab.h"
#include "ss_passes.h"

/* Lanes replayed together over a prepared block in grouped mode. */
#define SS_GROUP 64
#define SLAB_CACHE_BYTES (4L << 20) /* see ss_sweep_run */

enum { PI_ITER, PI_STALL, PI_DELAY, PI_FETCH, PI_START, PI_N };

/* One block partial of one scenario, as it travels to rank 0 (or, for a scenario that
 * this rank replays whole, its blocks 0 to the last merged in order: the merge that rank
 * 0 makes, so the same bytes). */
typedef struct {
    double j, block;
    double cpu_stretch; /* the model's for the scenario (ss_model_ops.cpu_stretch), or NaN */
    double delivery_factor; /* the model's ss_model_ops.delivery_factor, or NaN */
    double reads[3];    /* the model's ss_model_ops.read_stretch: the factor on the reads, the trace's reads in
                         * flight, the storage's parallelism; or NaN */
    ss_partial p;
} record;

/* One scenario as this rank replays it. */
typedef struct {
    int j;
    const ss_model_ops *ops;
    void *state;                 /* the model's */
    double *series[SS_NMETRICS]; /* summarised values of the current block (own, or the pool's) */
    int own_series;
    long nser;
    ss_run_part run;             /* the whole run's rows of the current block */
    double *pi[PI_N];            /* per-iteration series of the current slab */
    double *pi_stall;            /* [slab][gpus] */
    /* a stateful scenario split over the ranks by iterations: it replays from row
     * from_row (the start of an epoch) and records its results from block rec_block on;
     * 0 and 0 otherwise */
    long from_row, rec_block;
    /* a scenario this rank replays whole, from block 0 in order: its blocks' partials are
     * merged as they come (folded: how many), so that memory does not grow with the trace */
    int fold;
    long folded;
    record acc;
} lane;


typedef struct {
    record *v;
    long n, cap;
} record_list;

/* Block b's partial of lane ln, with what its model says of the scenario. */
static void record_of(record *r, const lane *ln, long b, const ss_partial *p)
{
    r->j = ln->j;
    r->block = (double)b;
    r->cpu_stretch = ln->ops->cpu_stretch && ln->state ? ln->ops->cpu_stretch(ln->state) : NAN;
    r->delivery_factor = ln->ops->delivery_factor && ln->state ? ln->ops->delivery_factor(ln->state) : NAN;
    r->reads[0] = r->reads[1] = r->reads[2] = NAN;
    if (ln->ops->read_stretch && ln->state) ln->ops->read_stretch(ln->state, r->reads);
    r->p = *p;
}

static ss_status records_append(record_list *l, const record *r)
{
    if (l->n == l->cap) {
        long cap = l->cap ? 2 * l->cap : 64;
        record *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return ss_fail(SS_ENOMEM, "out of memory for block results");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *r;
    return SS_OK;
}

/* Block b's partial of lane ln: kept for rank 0, or, for a lane that folds, merged into
 * its blocks so far in block order (as merge_records does; the last known model values
 * kept, as there) and sent once at the end (records_fold_out). */
static ss_status records_push(record_list *l, lane *ln, long b, const ss_partial *p)
{
    record r;
    record_of(&r, ln, b, p);
    if (!ln->fold) return records_append(l, &r);
    if (ln->folded == 0) {
        ln->acc = r;
        ln->acc.block = 0;
        ss_partial_zero(&ln->acc.p);
    }
    ss_partial_merge(&ln->acc.p, &r.p);
    if (!isnan(r.cpu_stretch)) ln->acc.cpu_stretch = r.cpu_stretch;
    if (!isnan(r.delivery_factor)) ln->acc.delivery_factor = r.delivery_factor;
    for (int k = 0; k < 3; k++)
        if (!isnan(r.reads[k])) ln->acc.reads[k] = r.reads[k];
    ln->folded++;
    return SS_OK;
}

/* The folded lanes' records, each one for all its blocks. */
static ss_status records_fold_out(record_list *l, const lane *lanes, const int *whole, int nwhole)
{
    ss_status st = SS_OK;
    for (int p = 0; st == SS_OK && p < nwhole; p++)
        if (lanes[whole[p]].fold && lanes[whole[p]].folded > 0) st = records_append(l, &lanes[whole[p]].acc);
    return st;
}

long ss_sweep_slab_rows(const ss_config *c, int gpus, int nsc)
{
    if (c->slab_iterations > 0) return c->slab_iterations;
    /* a row of the trace, and with per-iteration output a row of series per scenario */
    double row = (double)ss_slab_row_bytes(gpus);
    if (c->per_iteration) row += (double)nsc * (gpus + 5) * sizeof(double);
    long rows = (long)(c->slab_mb * 1048576.0 / row);
    return rows < 1 ? 1 : rows;
}

static void lane_free(lane *l)
{
    if (l->ops) l->ops->free(l->state);
    for (int m = 0; l->own_series && m < SS_NMETRICS; m++) free(l->series[m]);
    for (int m = 0; m < PI_N; m++) free(l->pi[m]);
    free(l->pi_stall);
}

static ss_status lane_init(lane *l, const ss_config *cfg, const ss_scenario *sc, int j, int gpus, long slab,
                           int per_iter, int own_series)
{
    memset(l, 0, sizeof *l);
    l->j = j;
    const ss_model_ops *ops = ss_model_get(sc[j].model);
    ss_status st = ops->init(&l->state, &sc[j], cfg, gpus);
    if (st != SS_OK) return st;
    l->ops = ops;
    int ok = 1;
    l->own_series = own_series;
    for (int m = 0; own_series && m < SS_NMETRICS; m++)
        ok &= (l->series[m] = malloc(SS_BLOCK_ROWS * sizeof(double))) != NULL;
    if (per_iter) {
        for (int m = 0; m < PI_N; m++) ok &= (l->pi[m] = malloc((size_t)slab * sizeof(double))) != NULL;
        ok &= (l->pi_stall = malloc((size_t)slab * (size_t)gpus * sizeof(double))) != NULL;
    }
    if (!ok) return ss_fail(SS_ENOMEM, "out of memory for scenario %s", sc[j].name);
    return SS_OK;
}

/* The next slab, read by a second thread while the current one is replayed. */
typedef struct {
    pthread_t th;
    int running;        /* a read was started and not yet joined */
    long r0, n;
    int train_start;
    ss_status st;
    double seconds;
    ss_trace_file *t;
    ss_slab slab;
} read_ahead;

typedef struct {
    const ss_comm *comm;
    const ss_config *cfg;
    ss_trace_file *t;
    const ss_scenario *sc;
    int nsc, gpus;
    long N, nblocks, slab;
    const ss_series_sink *sink;
    int per_iter, want_median, want_heal;
    int train_start;  /* 1: a model of a used lane reads train_start */
    lane *lanes;      /* one per scenario index (allocated only where used) */
    char *used;       /* [nsc] */
    int *ind, nind;   /* scenarios of stateless models (the measured run among them) */
    int *whole, nwhole; /* this rank's scenarios of stateful models, replayed whole (or,
                         * split by iterations, every stateful scenario: tsplit) */
    /* tsplit: the stateful scenarios are split over the ranks by blocks: this rank
     * records blocks [t_b0, t_b1) and replays from row t_from (the start of the epoch
     * holding block t_b0's first row); nstate: the sweep's stateful scenarios */
    int tsplit, nstate;
    int replayers;  /* whole stateful scenarios go to ranks 0 .. replayers-1, round robin */
    long t_b0, t_b1, t_from;
    long long ulo, uhi; /* this rank's (block, stateless scenario) units */
    long *straggler;  /* [nsc * gpus] */
    record_list recs;
    ss_slab slab_buf;
    double *done, *scratch; /* scratch: [3][gpus]: median work, stalls, sorted fetch times */
    double *deliv;          /* [gpus] the row's measured deliveries, when train_start is read */
    /* grouped mode (a slab holds a whole block): the block's rows are prepared once and
     * replayed for SS_GROUP lanes at a time, which share the pool's series buffers, so a
     * scenario costs no block statistics of its own */
    int grouped;
    ss_row *rows;          /* [slab] prepared rows */
    double *rows_done;     /* [slab][gpus] */
    double *rows_sorted;   /* [slab][gpus] when healing */
    double *rows_deliv;    /* [slab][gpus] the measured deliveries, when train_start is read */
    unsigned char *row_flags; /* [slab] 1: summarised, 2: an epoch starts, 4: in the quarters */
    double *pool;          /* [SS_GROUP][SS_NMETRICS][SS_BLOCK_ROWS] */
    ss_sweep_timing timing;
    /* reading ahead (no per-iteration output, whose writes would call HDF5 from the main
     * thread while the reader thread does, and only when MPI allows a second thread) */
    int use_ahead;
    read_ahead ahead;
    /* slabs shared by the ranks of a node (sweeps with stateful models, whose every rank
     * reads every row): each rank reads a share; node_failed: a shared read agreed on a
     * failure, so that no rank of the node takes part in another */
    int shared, node_failed;
    ss_nodeslab ns;
    /* progress on rank 0 (progress_tick): rows replayed times scenarios, of this rank's
     * total; show as progress_line's; last: the last percent or tenth printed */
    long long prog_done, prog_total;
    int prog_show, prog_last;
    double prog_t0; /* when the replay began (ss_wtime), for the time taken and left */
    int32_t epoch0; /* the epoch of the trace's first row (its first epoch) */
} sweep;

static void progress_tick(sweep *w, long b, long long n);

static int summarised(const sweep *w, int32_t epoch, int64_t index)
{
    return (w->cfg->epoch_all || epoch == w->cfg->epoch) && index >= w->cfg->warmup_iterations;
}

/* 1 when the row counts in the trace's quarters (ss_run_part.part_rows): past its epoch's
 * warm-up, in any epoch, so that how much the trace varies within itself does not depend on
 * the epochs that [trace] epoch summarises. */
static int in_quarters(const sweep *w, int64_t index) { return index >= w->cfg->warmup_iterations; }

/* The quarter of the trace's rows (0-3) that row `global` lies in. */
static int quarter_of(const sweep *w, long global)
{
    const long q = 4 * global / (w->N > 0 ? w->N : 1);
    return q < 3 ? (int)q : 3;
}

/* Replays one row (of epoch `epoch`, in quarter q of the trace) for one lane and records
 * its outcome. */
static void lane_row(sweep *w, lane *l, const ss_row *row, long i, int summ, int part, int32_t epoch, int q)
{
    const int G = w->gpus;
    double *stall = l->pi_stall ? l->pi_stall + i * G : w->scratch + G; /* per-GPU stalls */
    ss_step out;
    l->ops->replay_row(l->state, row, stall, &out);
    if (l->pi[0]) {
        l->pi[PI_ITER][i] = out.iter_time;
        l->pi[PI_STALL][i] = out.stall;
        l->pi[PI_DELAY][i] = out.delay;
        l->pi[PI_FETCH][i] = out.fetch_diff;
        l->pi[PI_START][i] = out.start_diff;
    }
    ss_run_add(&l->run, out.iter_time, out.stall, (double)epoch);
    if (part) {
        l->run.part_rows[q] += 1;
        l->run.part_time[q] += out.iter_time;
    }
    if (!summ) return;
    long n = l->nser++;
    double meas = row->iter_max;
    l->series[SS_M_ITER][n] = out.iter_time;
    l->series[SS_M_STALL][n] = out.stall;
    l->series[SS_M_DELAY][n] = out.delay;
    l->series[SS_M_START][n] = out.start_diff;
    l->series[SS_M_FETCH][n] = out.fetch_diff;
    l->series[SS_M_APE][n] = meas > 0 ? 100.0 * fabs(out.iter_time - meas) / meas : 0.0;
    if (out.straggler >= 0) w->straggler[(long)l->j * G + out.straggler]++;
}

static ss_status setup(sweep *w)
{
    const ss_comm *c = w->comm;
    w->lanes = calloc((size_t)w->nsc, sizeof *w->lanes);
    w->used = calloc((size_t)w->nsc, 1);
    w->ind = calloc((size_t)w->nsc, sizeof *w->ind);
    w->whole = calloc((size_t)w->nsc, sizeof *w->whole);
    w->straggler = calloc((size_t)w->nsc * (size_t)w->gpus, sizeof *w->straggler);
    w->done = malloc((size_t)w->gpus * sizeof *w->done);
    w->scratch = malloc(3 * (size_t)w->gpus * sizeof *w->scratch);
    if (!w->lanes || !w->used || !w->ind || !w->whole || !w->straggler || !w->done || !w->scratch)
        return ss_fail(SS_ENOMEM, "out of memory setting up the sweep");
    int npos = 0;
    for (int j = 0; j < w->nsc; j++) {
        if (!ss_model_get(w->sc[j].model)->stateful) w->ind[w->nind++] = j;
        else if (w->tsplit || npos++ % w->replayers == c->rank) w->whole[w->nwhole++] = j;
    }
    long long U = (long long)w->nblocks * w->nind;
    w->ulo = U * c->rank / c->size;
    w->uhi = U * (c->rank + 1) / c->size;
    for (long long u = w->ulo; u < w->uhi && u < w->ulo + w->nind; u++) w->used[w->ind[u % w->nind]] = 1;
    for (int p = 0; p < w->nwhole; p++) w->used[w->whole[p]] = 1;
    if (w->grouped) {
        size_t G = (size_t)w->gpus, S = (size_t)w->slab;
        w->rows = malloc(S * sizeof *w->rows);
        w->rows_done = malloc(S * G * sizeof *w->rows_done);
        w->rows_sorted = w->want_heal ? malloc(S * G * sizeof *w->rows_sorted) : NULL;
        w->row_flags = malloc(S);
        w->pool = malloc((size_t)SS_GROUP * SS_NMETRICS * SS_BLOCK_ROWS * sizeof *w->pool);
        if (!w->rows || !w->rows_done || (w->want_heal && !w->rows_sorted) || !w->row_flags || !w->pool)
            return ss_fail(SS_ENOMEM, "out of memory for the prepared rows of a slab (%ld rows x %d GPUs)", w->slab,
                           w->gpus);
    }
    int any = 0;
    for (int j = 0; j < w->nsc; j++) {
        if (!w->used[j]) continue;
        ss_status st = lane_init(&w->lanes[j], w->cfg, w->sc, j, w->gpus, w->slab, w->per_iter, !w->grouped);
        if (st != SS_OK) return st;
        w->train_start |= w->lanes[j].ops->reads_train_start;
        if (w->tsplit && w->lanes[j].ops->stateful) {
            w->lanes[j].from_row = w->t_from;
            w->lanes[j].rec_block = w->t_b0;
        }
        w->lanes[j].fold = !w->tsplit && w->lanes[j].ops->stateful; /* replayed whole here, blocks in order */
        any = 1;
    }
    /* the rows' measured deliveries, prepared once for all of a row's scenarios */
    if (w->train_start) {
        size_t G = (size_t)w->gpus;
        w->deliv = malloc(G * sizeof *w->deliv);
        if (w->grouped) w->rows_deliv = malloc((size_t)w->slab * G * sizeof *w->rows_deliv);
        if (!w->deliv || (w->grouped && !w->rows_deliv))
            return ss_fail(SS_ENOMEM, "out of memory for the rows' delivery costs (%ld rows x %d GPUs)", w->slab,
                           w->gpus);
    }
    if (!any || w->shared) return SS_OK; /* shared slabs: ss_sweep_run, on every rank */
    ss_status st = ss_slab_alloc(&w->slab_buf, w->slab, w->gpus);
    if (st == SS_OK && w->use_ahead) st = ss_slab_alloc(&w->ahead.slab, w->slab, w->gpus);
    return st;
}

static ss_status write_slab_rows(sweep *w, lane *l, long row0, long n)
{
    const ss_slab *s = &w->slab_buf;
    long off = row0 - s->row0;
    return w->sink->write_rows(w->sink->ctx, l->j, row0, n, s->epoch + off, s->index + off,
                                 l->pi[PI_ITER], l->pi[PI_STALL], l->pi[PI_DELAY], l->pi[PI_FETCH],
                                 l->pi[PI_START], l->pi_stall);
}

static void *ahead_main(void *arg)
{
    read_ahead *a = arg;
    double t0 = ss_wtime();
    a->st = ss_trace_read_cols(a->t, a->r0, a->n, a->train_start, &a->slab);
    a->seconds = ss_wtime() - t0;
    return NULL;
}

/* 1 when this rank's stateful lanes replay block b (always, unless split by blocks). */
static int stateful_active(const sweep *w, long b)
{
    return !w->tsplit || (b >= w->t_from / SS_BLOCK_ROWS && b < w->t_b1);
}

/* The number of this rank's lanes that replay block b (as replay_local counts them). */
static int block_lanes(const sweep *w, long b)
{
    long long u0 = (long long)b * w->nind, u1 = u0 + w->nind;
    if (u0 < w->ulo) u0 = w->ulo;
    if (u1 > w->uhi) u1 = w->uhi;
    return (int)(u1 > u0 ? u1 - u0 : 0) + (stateful_active(w, b) ? w->nwhole : 0);
}

/* The read that follows rows [r0, r0+n) on this rank (the slab after it in its block, or
 * the first slab of the next block this rank replays); *n_next = 0 when there is none. */
static void next_read(const sweep *w, long r0, long n, long *r0_next, long *n_next)
{
    long r = r0 + n, b = r0 / SS_BLOCK_ROWS;
    *n_next = 0;
    if (r >= w->N) return;
    if (r >= (b + 1) * SS_BLOCK_ROWS) { /* the block is done: the next one with work here */
        for (b = b + 1; b < w->nblocks && block_lanes(w, b) == 0; b++) {
        }
        if (b >= w->nblocks) return;
        r = b * SS_BLOCK_ROWS;
    }
    long end = (b + 1) * SS_BLOCK_ROWS < w->N ? (b + 1) * SS_BLOCK_ROWS : w->N;
    *r0_next = r;
    *n_next = w->grouped ? end - r : (end - r < w->slab ? end - r : w->slab);
}

/* Waits for the reader thread, if one runs. */
static void ahead_join(sweep *w)
{
    if (!w->ahead.running) return;
    pthread_join(w->ahead.th, NULL);
    w->ahead.running = 0;
    w->timing.read_ahead_seconds += w->ahead.seconds;
}

/* Reads rows [r0, r0+n) into the slab (train_start too when a model uses it) and counts
 * the time waited for them and the evaluations that nactive lanes will make; with reading
 * ahead, takes them from the reader thread when it read them and starts the next read.
 * *t_end: when the slab was there. */
static ss_status read_slab_timed(sweep *w, long r0, long n, int nactive, double *t_end)
{
    double t0 = ss_wtime();
    ss_status st = SS_OK;
    long rows = n; /* read by this rank */
    int have = 0;
    if (w->shared) {
        ss_slab *s = NULL;
        st = ss_nodeslab_read(&w->ns, w->t, w->train_start, r0, n, SS_OK, &s);
        if (st != SS_OK) w->node_failed = 1;
        else w->slab_buf = *s;
        rows = w->ns.share;
        w->timing.node_wait_seconds = w->ns.waited;
        have = 1;
    }
    if (w->ahead.running) {
        ahead_join(w);
        if (w->ahead.r0 == r0 && w->ahead.n == n) {
            ss_slab tmp = w->slab_buf;
            w->slab_buf = w->ahead.slab;
            w->ahead.slab = tmp;
            st = w->ahead.st;
            have = 1;
        }
    }
    if (!have) st = ss_trace_read_cols(w->t, r0, n, w->train_start, &w->slab_buf);
    /* (never with shared slabs: use_ahead is off) */
    if (st == SS_OK && w->use_ahead) {
        long r1 = 0, n1 = 0;
        next_read(w, r0, n, &r1, &n1);
        if (n1 > 0) {
            w->ahead.r0 = r1;
            w->ahead.n = n1;
            w->ahead.train_start = w->train_start;
            w->ahead.t = w->t;
            /* the reader thread blocks every signal: SIGINT and friends reach the main
             * thread, whose handler removes the temporary outputs */
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            w->ahead.running = pthread_create(&w->ahead.th, NULL, ahead_main, &w->ahead) == 0;
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
    }
    *t_end = ss_wtime();
    w->timing.read_seconds += *t_end - t0;
    w->timing.rows_read += (double)rows;
    w->timing.evaluations += (double)n * w->gpus * nactive;
    return st;
}

/* Grouped mode: block b is one slab; its rows are read and prepared once, then replayed
 * for SS_GROUP lanes at a time. */
static ss_status run_block_grouped(sweep *w, long b, lane **active, int nactive, int32_t *prev_epoch, int *have_prev)
{
    const int G = w->gpus;
    long r0 = b * SS_BLOCK_ROWS, n = r0 + SS_BLOCK_ROWS < w->N ? SS_BLOCK_ROWS : w->N - r0;
    double t1;
    ss_status st = read_slab_timed(w, r0, n, nactive, &t1);
    if (st != SS_OK) return st;
    const ss_slab *s = &w->slab_buf;
    for (long i = 0; i < n; i++) {
        ss_row *row = &w->rows[i];
        *row = (ss_row){.gpus = G,
                        .fetch_start = s->fetch_start + i * G,
                        .fetch_time = s->fetch_time + i * G,
                        .iteration_time = s->iteration_time + i * G,
                        .stall_time = s->stall_time + i * G,
                        .train_start = w->train_start ? s->train_start + i * G : NULL,
                        .done = w->rows_done + i * G,
                        .delivery = w->rows_deliv ? w->rows_deliv + i * G : NULL,
                        .sum_fetch_start = s->sum_fetch_start + i,
                        .sum_fetch_time = s->sum_fetch_time + i,
                        .extremes = s->extremes + i * SS_SLAB_NEX};
        ss_row_prepare(row, w->want_median, w->scratch);
        if (w->want_heal) ss_row_prepare_heal(row, w->rows_sorted + i * G);
        w->row_flags[i] = (unsigned char)(summarised(w, s->epoch[i], s->index[i]) |
                                          ((!*have_prev || s->epoch[i] != *prev_epoch) ? 2 : 0) |
                                          (in_quarters(w, s->index[i]) ? 4 : 0));
        *prev_epoch = s->epoch[i];
        *have_prev = 1;
    }
    for (int a0 = 0; a0 < nactive; a0 += SS_GROUP) {
        int a1 = a0 + SS_GROUP < nactive ? a0 + SS_GROUP : nactive;
        for (int a = a0; a < a1; a++) {
            for (int m = 0; m < SS_NMETRICS; m++)
                active[a]->series[m] = w->pool + ((size_t)(a - a0) * SS_NMETRICS + (size_t)m) * SS_BLOCK_ROWS;
            active[a]->nser = 0;
            memset(&active[a]->run, 0, sizeof active[a]->run);
        }
        for (long i = 0; i < n; i++) {
            const int q = quarter_of(w, r0 + i);
            for (int a = a0; a < a1; a++) {
                lane *l = active[a];
                if (r0 + i < l->from_row) continue; /* before the epoch this rank starts at */
                if ((w->row_flags[i] & 2) && l->ops->stateful && l->ops->epoch_start)
                    l->ops->epoch_start(l->state, s->epoch[i] == w->epoch0, (long)s->epoch[i] - w->epoch0);
                lane_row(w, l, &w->rows[i], i, (w->row_flags[i] & 1) && b >= l->rec_block,
                         (w->row_flags[i] & 4) && b >= l->rec_block, s->epoch[i], q);
            }
            progress_tick(w, b, a1 - a0);
        }
        for (int a = a0; w->per_iter && a < a1; a++)
            if (b >= active[a]->rec_block && (st = write_slab_rows(w, active[a], r0, n)) != SS_OK) return st;
        for (int a = a0; a < a1; a++) {
            if (b < active[a]->rec_block) { /* replayed only to reach the blocks it records */
                for (int m = 0; m < SS_NMETRICS; m++) active[a]->series[m] = NULL;
                continue;
            }
            ss_partial p;
            ss_partial_of_series(&p, active[a]->series, active[a]->nser, w->cfg->effective_delay_threshold);
            p.run = active[a]->run;
            if ((st = records_push(&w->recs, active[a], b, &p)) != SS_OK) return st;
            for (int m = 0; m < SS_NMETRICS; m++) active[a]->series[m] = NULL;
        }
    }
    w->timing.replay_seconds += ss_wtime() - t1;
    return SS_OK;
}

/* Replays rows [r0, r1) of block b for the active lanes. */
static ss_status run_block(sweep *w, long b, lane **active, int nactive, int with_state,
                           int32_t *prev_epoch, int *have_prev)
{
    const int G = w->gpus;
    long r0 = b * SS_BLOCK_ROWS, r1 = r0 + SS_BLOCK_ROWS < w->N ? r0 + SS_BLOCK_ROWS : w->N;
    for (int a = 0; a < nactive; a++) {
        active[a]->nser = 0;
        memset(&active[a]->run, 0, sizeof active[a]->run);
    }
    for (long s0 = r0; s0 < r1; s0 += w->slab) {
        long n = r1 - s0 < w->slab ? r1 - s0 : w->slab;
        double t1;
        ss_status st = read_slab_timed(w, s0, n, nactive, &t1);
        if (st != SS_OK) return st;
        const ss_slab *s = &w->slab_buf;
        for (long i = 0; i < n; i++) {
            ss_row row = {.gpus = G,
                          .fetch_start = s->fetch_start + i * G,
                          .fetch_time = s->fetch_time + i * G,
                          .iteration_time = s->iteration_time + i * G,
                          .stall_time = s->stall_time + i * G,
                          .train_start = w->train_start ? s->train_start + i * G : NULL,
                          .done = w->done,
                          .delivery = w->train_start ? w->deliv : NULL,
                          .sum_fetch_start = s->sum_fetch_start + i,
                          .sum_fetch_time = s->sum_fetch_time + i,
                          .extremes = s->extremes + i * SS_SLAB_NEX};
            ss_row_prepare(&row, w->want_median, w->scratch);
            if (w->want_heal) ss_row_prepare_heal(&row, w->scratch + 2 * (long)G);
            if (with_state && (!*have_prev || s->epoch[i] != *prev_epoch))
                for (int a = 0; a < nactive; a++)
                    if (active[a]->ops->stateful && active[a]->ops->epoch_start)
                        active[a]->ops->epoch_start(active[a]->state, s->epoch[i] == w->epoch0,
                                                     (long)s->epoch[i] - w->epoch0);
            *prev_epoch = s->epoch[i];
            *have_prev = 1;
            const int summ = summarised(w, s->epoch[i], s->index[i]), q = quarter_of(w, s0 + i);
            const int part = in_quarters(w, s->index[i]);
            for (int a = 0; a < nactive; a++)
                if (s0 + i >= active[a]->from_row)
                    lane_row(w, active[a], &row, i, summ && b >= active[a]->rec_block,
                             part && b >= active[a]->rec_block, s->epoch[i], q);
            progress_tick(w, b, nactive);
        }
        w->timing.replay_seconds += ss_wtime() - t1;
        for (int a = 0; w->per_iter && a < nactive; a++)
            if (b >= active[a]->rec_block && (st = write_slab_rows(w, active[a], s0, n)) != SS_OK) return st;
    }
    double t2 = ss_wtime();
    for (int a = 0; a < nactive; a++) {
        if (b < active[a]->rec_block) continue;
        ss_partial p;
        ss_partial_of_series(&p, active[a]->series, active[a]->nser, w->cfg->effective_delay_threshold);
        p.run = active[a]->run;
        ss_status st = records_push(&w->recs, active[a], b, &p);
        if (st != SS_OK) return st;
    }
    w->timing.replay_seconds += ss_wtime() - t2;
    return SS_OK;
}

/* Counts n more rows replayed for one scenario (of block b) on this rank and prints the
 * progress when it crosses a percent (prog_show 1: one line redrawn on a terminal) or a
 * tenth (2: a line each, stderr not a terminal: a pipe to mpirun, a log file) of this
 * rank's replay. Counting rows times scenarios, not blocks, a sweep of one block (a trace
 * of up to SS_BLOCK_ROWS rows) with many scenarios shows its progress too. */
/* A progress line's time: "12 ms" below a second, "2.5 s" below ten, "42 s" */
static void progress_time(double t, char *out, size_t n)
{
    if (t < 1.0) snprintf(out, n, "%.0f ms", 1e3 * (t > 0.0 ? t : 0.0));
    else snprintf(out, n, "%.*f s", t < 10.0, t);
}

static void progress_tick(sweep *w, long b, long long n)
{
    if (!w->prog_show || w->prog_total <= 0) return;
    w->prog_done += n;
    const long long done = w->prog_done < w->prog_total ? w->prog_done : w->prog_total;
    const int step = w->prog_show == 2 ? 10 : 1, at = (int)(100 * done / w->prog_total) / step * step;
    if (at <= w->prog_last) return;
    w->prog_last = at;
    /* the percent is of rank 0's share; the block, where in the trace it is (with several
     * ranks the two differ: the blocks are shared out); the time left assumes the pace so far */
    const double took = ss_wtime() - w->prog_t0;
    char when[96];
    const double left = done > 0 ? took * (double)(w->prog_total - done) / (double)done : 0.0;
    /* (milliseconds below a second: a short replay's times are not all 0.0 s) */
    char a[24], l[24];
    progress_time(took, a, sizeof a);
    progress_time(left, l, sizeof l);
    if (at >= 100 || done <= 0) snprintf(when, sizeof when, "; %s", a);
    else snprintf(when, sizeof when, "; %s so far, about %s left", a, l);
    if (w->prog_show == 2)
        fprintf(stderr, "stallsim: %d%% of rank 0's share of the replay (at the trace's block %ld of %ld)%s\n", at,
                b + 1, w->nblocks, when);
    else
        fprintf(stderr, "\rstallsim: %d%% of rank 0's share of the replay (at the trace's block %ld of %ld)%s\033[K%s",
                at, b + 1, w->nblocks, when, at == 100 ? "\n" : "");
    fflush(stderr);
}

/* Shared slabs: takes part in the reads of block b, which this rank does not replay. */
static ss_status join_block_reads(sweep *w, long b)
{
    long r0 = b * SS_BLOCK_ROWS, r1 = r0 + SS_BLOCK_ROWS < w->N ? r0 + SS_BLOCK_ROWS : w->N;
    long step = w->grouped ? r1 - r0 : w->slab;
    ss_status st = SS_OK;
    for (long s0 = r0; st == SS_OK && s0 < r1; s0 += step) {
        double t1;
        st = read_slab_timed(w, s0, r1 - s0 < step ? r1 - s0 : step, 0, &t1);
    }
    return st;
}

static ss_status replay_local(sweep *w, int progress)
{
    lane **active = malloc((size_t)w->nsc * sizeof *active);
    if (!active) return ss_fail(SS_ENOMEM, "out of memory");
    int32_t prev_epoch = 0;
    int have_prev = 0;
    ss_status st = SS_OK;
    const int tty = isatty(STDERR_FILENO);
    w->prog_show = !progress || w->comm->rank != 0 ? 0 : tty ? 1 : progress == 2 ? 2 : 0;
    w->prog_t0 = ss_wtime();
    for (long b = 0; w->prog_show && b < w->nblocks; b++) { /* this rank's rows times scenarios */
        const long rows = b * SS_BLOCK_ROWS + SS_BLOCK_ROWS < w->N ? SS_BLOCK_ROWS : w->N - b * SS_BLOCK_ROWS;
        w->prog_total += (long long)block_lanes(w, b) * rows;
    }
    /* on a terminal only for a run long enough to watch (about 10^8 GPU-evaluations, a
     * tenth of a second or more); --progress shows every run's */
    if (w->prog_show == 1 && progress != 2 && (double)w->prog_total * w->gpus < 1e8) w->prog_show = 0;
    for (long b = 0; st == SS_OK && b < w->nblocks; b++) {
        int nactive = 0;
        long long u0 = (long long)b * w->nind, u1 = u0 + w->nind;
        if (u0 < w->ulo) u0 = w->ulo;
        if (u1 > w->uhi) u1 = w->uhi;
        for (long long u = u0; u < u1; u++) active[nactive++] = &w->lanes[w->ind[u % w->nind]];
        for (int p = 0; stateful_active(w, b) && p < w->nwhole; p++) active[nactive++] = &w->lanes[w->whole[p]];
        if (nactive > 0 && w->grouped) st = run_block_grouped(w, b, active, nactive, &prev_epoch, &have_prev);
        else if (nactive > 0) st = run_block(w, b, active, nactive, w->nwhole > 0, &prev_epoch, &have_prev);
        else if (w->shared) st = join_block_reads(w, b);
    }
    /* shared slabs: one last agreement, which also tells the node of a failure of this
     * rank's own (one that no shared read has reported yet) */
    if (w->shared && !w->node_failed) {
        ss_slab *s = NULL;
        ss_status agreed = ss_nodeslab_read(&w->ns, w->t, w->train_start, 0, 0, st, &s);
        if (st == SS_OK) st = agreed;
    }
    ahead_join(w); /* before any MPI or HDF5 call of this thread (an error may leave one running) */
    free(active);
    return st;
}

static int record_cmp(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->j != y->j) return x->j < y->j ? -1 : 1;
    return (x->block > y->block) - (x->block < y->block);
}

/* Rank 0: merges every scenario's partials in block order (a folded record holds its
 * blocks from 0 on, merged in that order already). all is sorted in place. */
static ss_status merge_records(sweep *w, record *all, long nrec, ss_summary *out)
{
    out->p = calloc((size_t)w->nsc, sizeof *out->p);
    out->cpu_stretch = malloc((size_t)w->nsc * sizeof *out->cpu_stretch);
    out->read_stretch = malloc((size_t)w->nsc * sizeof *out->read_stretch);
    out->delivery_factor = malloc((size_t)w->nsc * sizeof *out->delivery_factor);
    if (!out->p || !out->cpu_stretch || !out->read_stretch || !out->delivery_factor)
        return ss_fail(SS_ENOMEM, "out of memory merging results");
    for (int j = 0; j < w->nsc; j++) /* (out->p: calloc's zeros, the empty partial) */
        out->cpu_stretch[j] = out->read_stretch[j] = out->delivery_factor[j] = NAN;
    out->reads_trace = NAN;
    if (nrec > 1) qsort(all, (size_t)nrec, sizeof *all, record_cmp);
    for (long i = 0; i < nrec; i++) {
        long j = (long)all[i].j;
        ss_partial_merge(&out->p[j], &all[i].p);
        if (!isnan(all[i].cpu_stretch)) out->cpu_stretch[j] = all[i].cpu_stretch; /* the same on every rank */
        if (!isnan(all[i].delivery_factor)) out->delivery_factor[j] = all[i].delivery_factor;
        if (!isnan(all[i].reads[0])) out->read_stretch[j] = all[i].reads[0];
        if (!isnan(all[i].reads[1])) out->reads_trace = all[i].reads[1];
        if (!isnan(all[i].reads[2])) out->storage_parallel = all[i].reads[2];
    }
    return SS_OK;
}

static ss_status gather(sweep *w, ss_summary *out)
{
    void *all = NULL;
    int *counts = NULL, *displs = NULL;
    ss_status st = records_fold_out(&w->recs, w->lanes, w->whole, w->nwhole);
    st = ss_comm_any_failed(w->comm, st); /* (collective: every rank gathers, or none) */
    if (st == SS_OK)
        st = ss_comm_gather_bytes(w->comm, w->recs.v, w->recs.n * (long)sizeof(record), &all, &counts, &displs);
    if (st == SS_OK) st = ss_comm_sum_long(w->comm, w->straggler, (long)w->nsc * w->gpus);
    if (st == SS_OK && w->comm->rank == 0) {
        long total = 0;
        for (int r = 0; r < w->comm->size; r++) total += counts[r];
        st = merge_records(w, all, total / (long)sizeof(record), out);
        if (st == SS_OK) {
            out->straggler = w->straggler;
            w->straggler = NULL;
        }
    }
    free(all);
    free(counts);
    free(displs);
    return st;
}

/* Reading and preparing a row, in replays of one stateful scenario over it. */
#define SPLIT_ROW_COST 2.0
/* Stateful scenarios split by iterations at most (each rank holds all of their states). */
#define SPLIT_MAX_SCENARIOS 64

/* Decides how the stateful scenarios are spread (the same on every rank: it reads the
 * epoch column, independently): whole scenarios over the ranks, or, when every stateful
 * model's epochs are independent and it costs less work on the busiest rank,
 * every scenario over the ranks by blocks, each rank replaying from the start of the
 * epoch that holds its first block (STALLSIM_STATEFUL_SPLIT=time or scenarios forces
 * one where allowed). The choice weighs the busiest rank's rows read and prepared and
 * its scenario replays over them. Sets tsplit and this rank's t_* fields. */
static ss_status choose_split(sweep *w)
{
    const ss_comm *c = w->comm;
    int nstate = 0, indep = 1;
    for (int j = 0; j < w->nsc; j++) {
        const ss_model_ops *o = ss_model_get(w->sc[j].model);
        nstate += o->stateful;
        indep &= !o->stateful || o->epochs_independent;
    }
    w->nstate = nstate;
    w->tsplit = 0;
    const char *force = getenv("STALLSIM_STATEFUL_SPLIT");
    if (force && strcmp(force, "time") && strcmp(force, "scenarios")) {
        if (c->rank == 0) ss_warn("STALLSIM_STATEFUL_SPLIT = '%s' is not time or scenarios: ignored", force);
        force = NULL;
    }
    if (nstate == 0 || c->size == 1 || !indep || (force && !strcmp(force, "scenarios"))) return SS_OK;
    const int P = c->size;
    const long B = w->nblocks, N = w->N;
    long *from = malloc((size_t)P * sizeof *from);
    enum { ROWS = 65536 };
    int32_t *e = malloc(ROWS * sizeof *e);
    ss_status st = from && e ? SS_OK : ss_fail(SS_ENOMEM, "out of memory");
    /* from[r]: the first row of the epoch holding rank r's first row (N: no rows) */
    int r = 0;
    while (st == SS_OK && r < P && B * r / P == B * (r + 1) / P) from[r++] = N;
    long start = 0;
    int32_t last = 0;
    for (long r0 = 0; st == SS_OK && r < P && r0 < N; r0 += ROWS) {
        long n = N - r0 < ROWS ? N - r0 : ROWS;
        st = ss_trace_read_epochs(w->t, r0, n, e);
        for (long i = 0; st == SS_OK && i < n && r < P; i++) {
            if (r0 + i == 0 || e[i] != last) start = r0 + i;
            last = e[i];
            while (r < P && (B * r / P) * SS_BLOCK_ROWS == r0 + i) {
                from[r++] = start;
                while (r < P && B * r / P == B * (r + 1) / P) from[r++] = N;
            }
        }
    }
    if (st == SS_OK) {
        long most = 0; /* rows the busiest rank replays per stateful scenario */
        for (int q = 0; q < P; q++) {
            long end = (B * (q + 1) / P) * SS_BLOCK_ROWS;
            if (end > N) end = N;
            if (from[q] < end && end - from[q] > most) most = end - from[q];
        }
        /* the busiest rank's work: each row it takes is read and prepared once (about as
         * much as replaying two scenarios over it, measured on 1024 GPUs) and replayed for
         * each of its stateful scenarios */
        long per_rank = (nstate + P - 1) / P; /* whole scenarios on the busiest rank */
        double by_time = (double)most * (SPLIT_ROW_COST + nstate), whole = (double)N * (SPLIT_ROW_COST + per_rank);
        /* every rank then holds every stateful scenario's state: not for large sweeps,
         * which have enough whole scenarios for every rank anyway */
        w->tsplit = (force && !strcmp(force, "time")) || (by_time < whole && nstate <= SPLIT_MAX_SCENARIOS);
        w->t_b0 = B * c->rank / P;
        w->t_b1 = B * (c->rank + 1) / P;
        w->t_from = from[c->rank];
    }
    free(from);
    free(e);
    return st;
}

/* A row's read and its preparation, in replays of one stateful scenario over it (measured
 * with --timing on 1024 GPUs x 20,000 iterations, pipeline scenarios). */
#define SHARE_READ_COST 12.0
#define SHARE_PREP_COST 4.0

/* How many ranks take the whole stateful scenarios when one node's ranks share the slab
 * reads (the others read more of each slab instead: ss_nodeslab_shares): every rank that
 * replays prepares every row, so a few scenarios go faster on fewer ranks. The q that
 * makes the busiest rank's work least, max((read + q prep + n) / ranks, prep + ceil(n /
 * q)), per row in scenario replays; ties to more ranks. STALLSIM_REPLAYERS=Q forces Q. The
 * same on every rank; which rank replays what never changes a result. */
static int choose_replayers(const sweep *w)
{
    const ss_comm *c = w->comm;
    const char *env = getenv("STALLSIM_REPLAYERS");
    char *end = NULL;
    const long force = env ? strtol(env, &end, 10) : 0;
    if (env && (!*env || *end || force < 1)) {
        if (c->rank == 0) ss_warn("STALLSIM_REPLAYERS = '%s' is not a rank count of 1 or more: ignored", env);
    } else if (force >= 1) {
        return force < c->size ? (int)force : c->size; /* (at most every rank) */
    }
    if (!w->shared || c->node_ranks != c->size || w->nstate == 0) return c->size;
    int best = c->size;
    double best_t = INFINITY;
    for (int q = c->size; q >= 1; q--) {
        long per = (w->nstate + q - 1) / q;
        double spread = (SHARE_READ_COST + q * SHARE_PREP_COST + w->nstate) / c->size, own = SHARE_PREP_COST + per;
        double t = spread > own ? spread : own;
        if (t < best_t - 1e-9) {
            best_t = t;
            best = q;
        }
    }
    return best;
}

static void sweep_free(sweep *w)
{
    for (int j = 0; w->lanes && j < w->nsc; j++)
        if (w->used[j]) lane_free(&w->lanes[j]);
    free(w->lanes);
    free(w->used);
    free(w->ind);
    free(w->whole);
    free(w->straggler);
    free(w->recs.v);
    free(w->done);
    free(w->scratch);
    free(w->rows);
    free(w->rows_done);
    free(w->rows_sorted);
    free(w->rows_deliv);
    free(w->deliv);
    free(w->row_flags);
    free(w->pool);
    if (w->shared) memset(&w->slab_buf, 0, sizeof w->slab_buf); /* the node's window holds it */
    ss_slab_free(&w->slab_buf);
    ss_slab_free(&w->ahead.slab);
    if (w->shared) ss_nodeslab_free(&w->ns); /* collective over the node */
}

/* The loops that began their passes late (ss_summary.late_passes, late_gpu), from the
 * trace's pass starts: over the epochs after the first, the latest pass start less the
 * earliest, summed, and the GPU latest in most epochs. */
static void late_passes(const ss_trace_meta *m, ss_summary *out)
{
    out->late_passes = 0.0;
    out->late_gpu = -1;
    const int G = m->gpus;
    if (!m->pass_start || m->passes < 2 || G < 2) return;
    int *count = calloc((size_t)G, sizeof *count);
    if (!count) return; /* (a note left out) */
    for (long e = 1; e < m->passes; e++) {
        const double *p = m->pass_start + (size_t)e * (size_t)G;
        int lo = 0, hi = 0;
        for (int g = 1; g < G; g++) {
            lo = p[g] < p[lo] ? g : lo;
            hi = p[g] > p[hi] ? g : hi;
        }
        if (!(isfinite(p[hi] - p[lo]) && p[hi] > p[lo])) continue; /* (unknown, or together) */
        out->late_passes += p[hi] - p[lo];
        count[hi]++;
    }
    for (int g = 0; g < G; g++)
        if (count[g] > 0 && (out->late_gpu < 0 || count[g] > count[out->late_gpu])) out->late_gpu = g;
    free(count);
}

/* Rank 0, after the gather: each scenario's time between the epochs' passes and after the
 * last (ss_passes.h), which the whole run's time counts. */
static ss_status between_passes(ss_trace_file *t, const ss_scenario *sc, int nsc, ss_summary *out)
{
    ss_passes p;
    ss_status st = ss_passes_read(t, &p);
    if (st != SS_OK) return st;
    out->between = malloc((size_t)nsc * sizeof *out->between);
    out->tail = malloc((size_t)nsc * sizeof *out->tail);
    if (!out->between || !out->tail) st = ss_fail(SS_ENOMEM, "out of memory merging results");
    for (int j = 0; st == SS_OK && j < nsc; j++)
        st = ss_passes_time(&p, &sc[j], ss_trace_meta_of(t), &out->between[j], &out->tail[j]);
    out->wall_ratio = ss_passes_wall_ratio(&p, out->p[ss_summary_measured(out)].run.time);
    out->run_start = p.start;
    out->kept_between = 0.0;
    /* (a trace whose every GPU loads synchronously has no workers to start or stop) */
    const int workers = ss_trace_meta_has_workers(ss_trace_meta_of(t)) != 0;
    out->kept_with = !workers ? SS_KEPT_OWN : !p.has_starts ? SS_KEPT_STARTS : !p.last_end ? SS_KEPT_STOPS : SS_KEPT_OWN;
    for (long e = 0; e < p.n; e++)
        out->kept_between += fmax(0.0, p.between[e] - (isnan(p.lead[e]) ? 0.0 : p.lead[e]) -
                                           (isnan(p.stop[e]) ? 0.0 : p.stop[e]));
    late_passes(ss_trace_meta_of(t), out);
    ss_passes_free(&p);
    return st;
}

ss_status ss_sweep_run(const ss_comm *comm, const ss_config *cfg, ss_trace_file *t,
                       const ss_scenario *sc, int nsc, const ss_series_sink *sink, int progress,
                       ss_summary *out, ss_sweep_timing *timing)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    sweep w = {.comm = comm, .cfg = cfg, .t = t, .sc = sc, .nsc = nsc, .gpus = m->gpus,
               .N = m->iterations, .sink = sink};
    memset(out, 0, sizeof *out);
    out->run_start = NAN;
    out->late_gpu = -1;
    out->nsc = nsc;
    out->gpus = m->gpus;
    out->sc = sc;
    out->effective_delay_threshold = cfg->effective_delay_threshold;
    out->warmup_iterations = cfg->warmup_iterations;
    out->trace_persistent = m->persistent_workers; /* (the reader keeps -1, 0 or 1) */
    out->trace_batch = m->batch_size > 0 ? m->batch_size : -1;
    int host_gpu;
    double others, host_job;
    /* (-1 where every GPU's share is NaN: none counts) */
    out->host_others = ss_trace_meta_host_others(m, &host_gpu, &others, &host_job) ? fmax(0.0, others) : NAN;
    out->trace_epochs = m->epochs;
    out->epoch = cfg->epoch_all ? SS_EPOCH_ALL : cfg->epoch;
    w.nblocks = (w.N + SS_BLOCK_ROWS - 1) / SS_BLOCK_ROWS;
    w.slab = ss_sweep_slab_rows(cfg, m->gpus, nsc);
    w.per_iter = sink != NULL;
    w.want_median = ss_scenarios_want_median(sc, nsc);
    w.want_heal = ss_scenarios_want_heal(sc, nsc);
    /* reading ahead needs a core of its own (a second thread per rank on a node whose
     * cores the ranks already fill only slows them down) and holds two slabs: each gets
     * half of slab_mb */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ss_status st = w.N > 0 ? ss_trace_read_epochs(t, 0, 1, &w.epoch0) : SS_OK; /* (independent) */
    if (st == SS_OK) st = choose_split(&w);
    st = ss_comm_any_failed(comm, st); /* every rank decides alike, or all stop */
    w.shared = w.nstate > 0 && !w.tsplit && ss_nodeslab_wanted(comm); /* split by blocks: each rank its own rows */
    w.replayers = choose_replayers(&w);
    w.use_ahead = !w.shared && !w.per_iter && comm->threads && 2L * comm->node_ranks <= cores && !getenv("STALLSIM_NO_READ_AHEAD");
    if (w.use_ahead && cfg->slab_iterations <= 0 && w.slab > 1) w.slab /= 2;
    /* a slab never spans two blocks (halved above first: a budget that holds two whole
     * blocks keeps them whole, and the sweep grouped) */
    if (w.slab > SS_BLOCK_ROWS) w.slab = SS_BLOCK_ROWS;
    /* a slab of a sweep that cannot take whole blocks stays in the cache from its read
     * to its replay: at most SLAB_CACHE_BYTES of trace, in whole chunks or an even part of
     * one (so that no two slabs share a part of a chunk; a filtered chunk would be
     * decoded once for each) */
    if (cfg->slab_iterations <= 0 && !w.per_iter && w.slab < SS_BLOCK_ROWS && w.slab < w.N) {
        long fit = (long)(SLAB_CACHE_BYTES / ss_slab_row_bytes(m->gpus)), chunk = ss_trace_chunk_rows(t);
        if (w.slab > fit) w.slab = fit > 0 ? fit : 1;
        if (chunk > 0 && w.slab >= chunk) w.slab -= w.slab % chunk;
        while (chunk > w.slab && chunk % 2 == 0) chunk /= 2;
        if (chunk <= w.slab) w.slab = chunk;
    }
    w.use_ahead = w.use_ahead && w.N > w.slab;
    w.grouped = w.slab >= SS_BLOCK_ROWS || w.slab >= w.N;
    w.ns.win = MPI_WIN_NULL;
    if (st == SS_OK) st = setup(&w);
    /* on every rank of the job, shared or not: nodes may run different numbers of ranks,
     * and a node of one rank shares nothing */
    st = ss_comm_any_failed(comm, st);
    if (w.shared) { /* the node's ranks: its slabs, and train_start read if any rank's model uses it */
        int ts = w.train_start;
        if (st == SS_OK && MPI_Allreduce(MPI_IN_PLACE, &ts, 1, MPI_INT, MPI_MAX, comm->node) != MPI_SUCCESS)
            st = ss_fail(SS_EMPI, "agreeing on the columns to read failed");
        w.train_start = ts;
        if (st == SS_OK) st = ss_nodeslab_alloc(comm, w.slab, w.gpus, &w.ns);
    }
    if (st == SS_OK) st = replay_local(&w, progress);
    st = ss_comm_any_failed(comm, st);
    if (st == SS_OK) st = gather(&w, out);
    if (st == SS_OK && comm->rank == 0) st = between_passes(t, sc, nsc, out);
    st = ss_comm_any_failed(comm, st);
    if (w.nstate > 0 && comm->size > 1) w.timing.stateful_split = w.tsplit ? 2 : 1;
    w.timing.replayers = w.replayers;
    if (w.tsplit && w.t_b0 < w.t_b1) w.timing.warmup_rows = w.t_b0 * SS_BLOCK_ROWS - w.t_from;
    if (timing) *timing = w.timing;
    sweep_free(&w);
    return st;
}
