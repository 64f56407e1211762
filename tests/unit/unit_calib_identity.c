/* unit_calib_identity.c - issue 11 identity with calibration: on gen traces that are loader-bound, window-bound, with one slow GPU, with W = 0, with a delivery cost and with GPUs of different W (written without the loader_workers/prefetch_factor attributes), the calibration recovers the generating settings per GPU (1e-9), and the baseline with `auto` everywhere replays every iteration and every GPU's stall to 1e-9 s, row by row and through a sweep; with the attributes recorded, the calibration says so and agrees; the recurrence with W = 0 and a delivery cost against hand-worked values. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ss_calibrate.h"
#include "ss_gen.h"
#include "ss_model_pipeline.h"
#include "ss_row.h"
#include "ss_trace.h"
#include "test_util.h"

#define TOL 1e-9

typedef struct {
    const char *what;
    unsigned long seed;
    int gpus, workers, prefetch;
    double worker_gap, refill_gap, delivery;
    double fetch_mean, compute_mean, straggler_prob;
    int n_slow, slow_gpu[2];
    double slow_factor[2];
    int n_wgpu, wgpu_gpu[3], wgpu_workers[3];
    /* which settings the trace shows (a gap of a constraint that never binds cannot be
     * read off; every case below binds the ones it checks) */
    int check_refill;
} cal_case;

static const cal_case CASES[] = {
    /* fetch 1 s over 3 workers against 0.05 s steps: the loop waits for the workers */
    {"loader-bound", 1, 4, 3, 2, 0.1, 0.0, 0.0, 1.0, 0.05, 0.0, 0, {0}, {0}, 0, {0}, {0}, 0},
    /* fast loader, slow steps: the fetches wait for window slots (refill gap binds) */
    {"window-bound", 2, 4, 4, 2, 0.0, 0.01, 0.0, 0.2, 0.5, 0.0, 0, {0}, {0}, 0, {0}, {0}, 1},
    {"window-bound P=4", 3, 2, 2, 4, 0.05, 0.02, 0.0, 0.3, 0.5, 0.0, 0, {0}, {0}, 0, {0}, {0}, 1},
    /* gen's defaults (4 workers, 1 s fetches, 0.3 s steps): the example */
    {"gen defaults", 4, 4, 4, 2, 0.0, 0.0, 0.0, 1.0, 0.3, 0.0, 0, {0}, {0}, 0, {0}, {0}, 0},
    /* GPU 1's fetches 3x longer: it is loader-bound, the others wait for slots */
    {"one slow GPU", 5, 4, 4, 2, 0.0, 0.0, 0.0, 1.0, 0.3, 0.0, 1, {1}, {3.0}, 0, {0}, {0}, 0},
    {"synchronous W=0", 6, 4, 0, 2, 0.02, 0.0, 0.0, 0.2, 0.3, 0.0, 0, {0}, {0}, 0, {0}, {0}, 0},
    {"delivery cost", 7, 4, 4, 2, 0.0, 0.0, 0.002, 0.2, 0.3, 0.0, 0, {0}, {0}, 0, {0}, {0}, 1},
    {"W=0 with delivery", 8, 2, 0, 2, 0.0, 0.0, 0.004, 0.1, 0.3, 0.0, 0, {0}, {0}, 0, {0}, {0}, 0},
    /* GPUs with 4, 2, 6 and 4 workers */
    {"different W", 9, 4, 4, 2, 0.0, 0.0, 0.0, 1.0, 0.3, 0.0, 0, {0}, {0}, 2, {1, 2}, {2, 6}, 0},
    /* one synchronous GPU beside three with 4 workers, worker gaps and a delivery cost */
    {"W=0 beside W=4", 10, 4, 4, 2, 0.01, 0.0, 0.001, 1.0, 0.3, 0.0, 0, {0}, {0}, 1, {0}, {0}, 0},
    /* everything at once on 8 GPUs, with stragglers */
    {"mixed", 11, 8, 3, 2, 0.05, 0.01, 0.003, 1.0, 0.3, 0.05, 1, {2}, {2.5}, 1, {5}, {5}, 0},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* Writes case c's trace of `epochs` epochs of `iterations` rows in all */
static void make_trace_sized(const cal_case *c, const char *path, int record_loader, long iterations, int epochs)
{
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.seed = c->seed;
    p.gpus = c->gpus;
    p.workers = c->workers;
    p.prefetch = c->prefetch;
    p.worker_gap = c->worker_gap;
    p.refill_gap = c->refill_gap;
    p.delivery = c->delivery;
    p.fetch_mean = c->fetch_mean;
    p.compute_mean = c->compute_mean;
    p.straggler_prob = c->straggler_prob;
    p.n_slow = c->n_slow;
    for (int i = 0; i < c->n_slow; i++) {
        p.slow_gpu[i] = c->slow_gpu[i];
        p.slow_factor[i] = c->slow_factor[i];
    }
    p.n_wgpu = c->n_wgpu;
    for (int i = 0; i < c->n_wgpu; i++) {
        p.wgpu_gpu[i] = c->wgpu_gpu[i];
        p.wgpu_workers[i] = c->wgpu_workers[i];
    }
    p.no_loader_attrs = !record_loader;
    p.iterations = iterations;
    p.epochs = epochs;
    p.chunk_rows = 128;
    if (ss_gen_write(&p, path, 0) != SS_OK) fail_msg("gen: %s", ss_errmsg());
}

static void make_trace(const cal_case *c, const char *path, int record_loader)
{
    make_trace_sized(c, path, record_loader, 300, 2);
}

static int workers_of(const cal_case *c, int g)
{
    int w = c->workers;
    for (int i = 0; i < c->n_wgpu; i++)
        if (c->wgpu_gpu[i] == g) w = c->wgpu_workers[i];
    return w;
}

static void calibrate_file(const char *path, ss_calib *cal)
{
    ss_comm cm;
    ss_comm_self(&cm);
    ss_trace_file *t;
    if (ss_trace_open(path, &cm, &t) != SS_OK) fail_msg("open: %s", ss_errmsg());
    if (ss_calibrate(t, SS_CALIB_ROWS, cal) != SS_OK) fail_msg("calibrate: %s", ss_errmsg());
    ss_trace_close(t);
}

static void check_recovered(const cal_case *c, const ss_calib *cal)
{
    assert_int_equal(cal->gpus, c->gpus);
    for (int g = 0; g < c->gpus; g++) {
        int W = workers_of(c, g);
        if (cal->workers_gpu[g] != W)
            fail_msg("%s, GPU %d: calibrated W=%d, generated with %d", c->what, g, cal->workers_gpu[g], W);
        if (W > 0 && cal->prefetch_gpu[g] != c->prefetch)
            fail_msg("%s, GPU %d: calibrated P=%d, generated with %d", c->what, g, cal->prefetch_gpu[g], c->prefetch);
        if (fabs(cal->gap_gpu[g] - c->worker_gap) > TOL)
            fail_msg("%s, GPU %d: worker gap %.12g, generated with %g", c->what, g, cal->gap_gpu[g], c->worker_gap);
        if (fabs(cal->delivery_gpu[g] - c->delivery) > TOL)
            fail_msg("%s, GPU %d: delivery %.12g, generated with %g", c->what, g, cal->delivery_gpu[g], c->delivery);
        if (c->check_refill && fabs(cal->refill_gpu[g] - c->refill_gap) > TOL)
            fail_msg("%s, GPU %d: refill gap %.12g, generated with %g", c->what, g, cal->refill_gpu[g], c->refill_gap);
        assert_true(cal->resid_gpu[g] < TOL && cal->stall_resid_gpu[g] < TOL);
    }
}

/* Calibrated settings, replayed row by row through ssp_replay_row with the calibration's
 * per-GPU arrays: every iteration time and every GPU's stall as measured (1e-9 s). */
static void check_rows(const cal_case *c, const char *path, const ss_calib *cal)
{
    ss_comm cm;
    ss_comm_self(&cm);
    ss_trace_file *t;
    if (ss_trace_open(path, &cm, &t) != SS_OK) fail_msg("open: %s", ss_errmsg());
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const int G = m->gpus;
    ss_slab s;
    assert_int_equal(ss_slab_alloc(&s, m->iterations, G), SS_OK);
    if (ss_trace_read(t, 0, m->iterations, &s) != SS_OK) fail_msg("read: %s", ss_errmsg());
    ssp_params p = {.workers = 1, .prefetch = 2, .fetch_scale = 1, .compute_scale = 1,
                    .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE,
                    .workers_gpu = cal->workers_gpu, .prefetch_gpu = cal->prefetch_gpu,
                    .worker_gap_gpu = cal->gap_gpu, .refill_gap_gpu = cal->refill_gpu,
                    .delivery_gpu = cal->delivery_gpu};
    ssp_state ps;
    assert_int_equal(ssp_init(&ps, &p, G), SS_OK);
    double *done = malloc((size_t)G * sizeof *done), *stall = malloc((size_t)G * sizeof *stall);
    double worst = 0;
    for (long k = 0; k < s.n; k++) {
        if (k == 0 || s.epoch[k] != s.epoch[k - 1]) ssp_epoch_start(&ps);
        ss_row row = {.gpus = G, .fetch_start = s.fetch_start + k * G, .fetch_time = s.fetch_time + k * G,
                      .iteration_time = s.iteration_time + k * G, .stall_time = s.stall_time + k * G, .done = done};
        ss_row_prepare(&row, 0, NULL);
        ss_step out;
        ssp_replay_row(&ps, &row, stall, &out);
        double e = fabs(out.iter_time - row.iter_max);
        worst = e > worst ? e : worst;
        if (e > TOL) fail_msg("%s row %ld: iteration time %.12g, measured %.12g", c->what, k, out.iter_time, row.iter_max);
        for (int g = 0; g < G; g++)
            if (fabs(stall[g] - row.stall_time[g]) > TOL)
                fail_msg("%s row %ld GPU %d: stall %.12g, measured %.12g", c->what, k, g, stall[g], row.stall_time[g]);
    }
    print_message("%s: largest iteration-time error %.3g s over %ld rows\n", c->what, worst, s.n);
    free(done);
    free(stall);
    ssp_free(&ps);
    ss_slab_free(&s);
    ss_trace_close(t);
}

/* The sweep's baseline with auto everywhere (workers, prefetch, worker_gap, refill_gap,
 * delivery): fidelity error and MAPE 0, and "half the workers" (auto/2) is a different
 * run where W >= 2. */
static void check_sweep(const cal_case *c, const char *path)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nworkers = auto, auto/2\n"
             "prefetch = auto\n[pipeline]\nworker_gap = auto\nrefill_gap = auto\ndelivery = auto\n",
             path);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    if (tu_run_sweep(ini, &sum, &sc, &nsc) != SS_OK) fail_msg("sweep: %s", ss_errmsg());
    int j = tu_find(sc, nsc, "pipeline_fetch-none_start-none_w-auto_pauto_fs1_cs1");
    assert_true(j > 0 && sc[j].baseline);
    double err = ss_summary_fidelity_err_pct(&sum, j), mape = ss_summary_fidelity_mape_pct(&sum, j);
    if (!(fabs(err) < TOL) || !(fabs(mape) < TOL)) fail_msg("%s: baseline error %.3g %%, MAPE %.3g %%", c->what, err, mape);
    assert_true(fabs(sum.p[j].mean[SS_M_STALL] - sum.p[0].mean[SS_M_STALL]) < TOL);
    assert_true(fabs(sum.p[j].mean[SS_M_DELAY] - sum.p[0].mean[SS_M_DELAY]) < TOL);
    ss_summary_free(&sum);
    free(sc);
}

/* A window-bound trace of one epoch with W = 1, P = 2: the worker binds on the epoch's
 * one first-window row and where a batch came late, too few rows for the calibration's
 * agreement rule (3 at the smallest excess; ss_calib_fit.c, fit_gaps), which then asks
 * only as many as the first windows hold: the generating gap comes back. */
static void test_short_window_bound_gap(void **state)
{
    (void)state;
    const cal_case c = {"one epoch, W=1 P=2", 7, 2, 1, 2, 0.05, 0.02, 0.0, 0.3, 1.0, 0.0, 0, {0}, {0}, 0, {0}, {0}, 1};
    char path[512];
    snprintf(path, sizeof path, "%s/short-window.h5", tu_tmpdir());
    make_trace_sized(&c, path, 0, 200, 1);
    ss_calib cal;
    calibrate_file(path, &cal);
    check_recovered(&c, &cal);
    ss_calib_free(&cal);
}

static void test_recovers_and_replays(void **state)
{
    (void)state;
    char path[512];
    for (int ci = 0; ci < NCASES; ci++) {
        const cal_case *c = &CASES[ci];
        snprintf(path, sizeof path, "%s/cal-id-%d.h5", tu_tmpdir(), ci);
        make_trace(c, path, 0);
        ss_calib cal;
        calibrate_file(path, &cal);
        assert_false(cal.recorded_workers || cal.recorded_prefetch);
        check_recovered(c, &cal);
        check_rows(c, path, &cal);
        ss_calib_free(&cal);
        check_sweep(c, path);
    }
}

/* With loader_workers and prefetch_factor recorded (gen writes them), the calibration
 * takes them, says so, and fits the same gaps and delivery. */
static void test_recorded_settings(void **state)
{
    (void)state;
    char path[512];
    const int picks[3] = {1, 8, 10};
    for (int i = 0; i < 3; i++) {
        const cal_case *c = &CASES[picks[i]];
        snprintf(path, sizeof path, "%s/cal-rec-%d.h5", tu_tmpdir(), i);
        make_trace(c, path, 1);
        ss_calib cal;
        calibrate_file(path, &cal);
        assert_true(cal.recorded_workers && cal.recorded_prefetch);
        check_recovered(c, &cal);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        ss_calib_print(&cal, f);
        fclose(f);
        assert_non_null(strstr(buf, "as recorded in the trace (loader_workers, prefetch_factor)"));
        free(buf);
        ss_calib_free(&cal);
        check_sweep(c, path);
    }
}

/* Same trace, same calibration, whatever was calibrated before (no state between calls). */
static void test_deterministic(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/cal-det.h5", tu_tmpdir());
    make_trace(&CASES[10], path, 0);
    ss_calib a, b;
    calibrate_file(path, &a);
    calibrate_file(path, &b);
    for (int g = 0; g < a.gpus; g++) {
        assert_int_equal(a.workers_gpu[g], b.workers_gpu[g]);
        assert_int_equal(a.prefetch_gpu[g], b.prefetch_gpu[g]);
        assert_memory_equal(&a.gap_gpu[g], &b.gap_gpu[g], sizeof(double));
        assert_memory_equal(&a.refill_gpu[g], &b.refill_gpu[g], sizeof(double));
        assert_memory_equal(&a.delivery_gpu[g], &b.delivery_gpu[g], sizeof(double));
    }
    ss_calib_free(&a);
    ss_calib_free(&b);
}

/* The recurrence by hand, 2 GPUs, one row after another:
 * W = 0, gap 0.1, delivery 0.05; f = (1, 2), c = 0.5 every row; measured starts (0, 0.2).
 *   k=0: start 0, 0.2 (measured); done 1, 2.2; T[-1] = 0; the loop has them at 1.05, 2.25;
 *        stall 1.05, 2.25; T0 = 2.25 + 0.5 = 2.75
 *   k=1: start T0 + 0.1 = 2.85 on both; done 3.85, 4.85; stall 1.1 + .05 = 1.15, 2.15;
 *        T1 = 4.9 + 0.5 = 5.4 */
static void test_sync_delivery_by_hand(void **state)
{
    (void)state;
    ssp_params p = {.workers = 0, .prefetch = 2, .worker_gap = 0.1, .delivery = 0.05, .fetch_scale = 1,
                    .compute_scale = 1, .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE};
    ssp_state s;
    assert_int_equal(ssp_init(&s, &p, 2), SS_OK);
    const double f[2] = {1, 2}, fs[2] = {0, 0.2};
    double start[2], stall[2], tp;
    ss_step out;
    double T = ssp_advance(&s, f, 0.5, fs, start, stall, &tp, &out);
    assert_true(fabs(T - 2.75) < 1e-12 && fabs(tp) < 1e-12);
    assert_true(fabs(stall[0] - 1.05) < 1e-12 && fabs(stall[1] - 2.25) < 1e-12);
    T = ssp_advance(&s, f, 0.5, fs, start, stall, &tp, &out);
    assert_true(fabs(start[0] - 2.85) < 1e-12 && fabs(start[1] - 2.85) < 1e-12);
    assert_true(fabs(stall[0] - 1.15) < 1e-12 && fabs(stall[1] - 2.15) < 1e-12);
    assert_true(fabs(T - 5.4) < 1e-12 && fabs(out.iter_time - 2.65) < 1e-12);
    assert_true(fabs(out.delay - 1.0) < 1e-12);
    ssp_free(&s);

    /* per GPU: GPU 0 W = 1 (P = 1, no gaps), GPU 1 W = 0 with delivery 0.25; f = 1, c = 1:
     *   k=0: starts 0, 0; done 1, 1; T[-1] = 0; has them at 1, 1.25; T0 = 2.25
     *   k=1: GPU 0: worker free at done0 = 1, slot at max(T[-1], done0) = 1: start 1, done 2,
     *        stall max(0, 2 - 2.25) = 0; GPU 1: start T0 = 2.25, done 3.25, stall 1.25;
     *        T1 = max(2.25, 3.25 + 0.25) + 1 = 4.5 */
    const int wg[2] = {1, 0};
    const double dg[2] = {0, 0.25};
    ssp_params q = {.workers = 1, .prefetch = 1, .fetch_scale = 1, .compute_scale = 1, .fetch_align = SS_ALIGN_NONE,
                    .start_align = SS_ALIGN_NONE, .workers_gpu = wg, .delivery_gpu = dg};
    assert_int_equal(ssp_init(&s, &q, 2), SS_OK);
    assert_false(s.uniform);
    const double f1[2] = {1, 1}, z[2] = {0, 0};
    T = ssp_advance(&s, f1, 1, z, start, stall, &tp, &out);
    assert_true(fabs(T - 2.25) < 1e-12 && fabs(stall[1] - 1.25) < 1e-12 && fabs(stall[0] - 1) < 1e-12);
    T = ssp_advance(&s, f1, 1, z, start, stall, &tp, &out);
    assert_true(fabs(start[0] - 1) < 1e-12 && fabs(start[1] - 2.25) < 1e-12);
    assert_true(fabs(stall[0]) < 1e-12 && fabs(stall[1] - 1.25) < 1e-12);
    assert_true(fabs(T - 4.5) < 1e-12);
    ssp_free(&s);
}

/* The loops asking at different times (ssp_advance_lagged), by hand: 2 GPUs, W = 1,
 * P = 1, no gaps; f = 1, c = 1, measured starts 0; GPU 1 asks for batch 0 0.5 s before
 * GPU 0, GPU 0 asks for batch 1 0.2 s before GPU 1:
 *   k=0: done 1, 1; T[-1] = 0; asks 0, -0.5; stalls 1, 1.5; T0 = 1 + 1 = 2; the
 *        iteration time is the longest time between a GPU's two asks:
 *        max(2 - 0.2 - 0, 2 - 0 + 0.5) = 2.5 */
static void test_lagged_by_hand(void **state)
{
    (void)state;
    ssp_params p = {.workers = 1, .prefetch = 1, .fetch_scale = 1, .compute_scale = 1,
                    .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE, .ask_lags = 1};
    ssp_state s;
    assert_int_equal(ssp_init(&s, &p, 2), SS_OK);
    const double f[2] = {1, 1}, z[2] = {0, 0}, lag[2] = {0, 0.5}, lag_next[2] = {0.2, 0};
    double start[2], stall[2], tp;
    ss_step out;
    double T = ssp_advance_lagged(&s, f, 1, z, lag, lag_next, start, stall, &tp, &out);
    assert_true(fabs(T - 2) < 1e-12 && fabs(stall[0] - 1) < 1e-12 && fabs(stall[1] - 1.5) < 1e-12);
    assert_true(fabs(out.iter_time - 2.5) < 1e-12 && fabs(out.delay - 0.5) < 1e-12);
    ssp_free(&s);
}

/* Gradient accumulation (sync_every = 2, MODELS-pipeline.md), by hand: 2 GPUs, W = 1, P = 1,
 * no gaps, no delivery; fetches f = (1, 3) in every row; every measured row has both asks
 * at 0, no stall and iteration times 1 (so each GPU's own step and the row's step are 1):
 *   k=0: starts 0, 0; done 1, 3; asks 0, 0; stalls 1, 3; no all-reduce: next asks 0+1+1 = 2
 *        and 0+3+1 = 4; iteration 4
 *   k=1: asks 2, 4; starts max(done[0], window max(ask[0], done[0])) = 1, 3; done 2, 6;
 *        stalls 0, 2; the all-reduce: T = 6 + 1 = 7 for both; iteration max(7-2, 7-4) = 5
 *   k=2: asks 7, 7; starts 2, 6; done 3, 9; stalls 0, 2; next asks 8, 10; iteration 3
 *   k=3: asks 8, 10; starts max(3, 7), max(9, 7) = 7, 9; done 8, 12; stalls 0, 2;
 *        the all-reduce: T = 13; iteration max(13-8, 13-10) = 5 */
static void test_accumulation_by_hand(void **state)
{
    (void)state;
    ssp_params p = {.workers = 1, .prefetch = 1, .fetch_scale = 1, .compute_scale = 1,
                    .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE, .ask_lags = 1, .sync_every = 2};
    ssp_state s;
    assert_int_equal(ssp_init(&s, &p, 2), SS_OK);
    const double ft[2] = {1, 3}, zero[2] = {0, 0}, one[2] = {1, 1};
    double done[2];
    ss_row row = {.gpus = 2, .fetch_start = zero, .fetch_time = ft, .iteration_time = one, .stall_time = zero,
                  .train_start = zero, .done = done, .fetch_min = 1, .fetch_max = 3};
    const double iter[4] = {4, 5, 3, 5}, st1[4] = {3, 2, 2, 2};
    double stall[2];
    for (int k = 0; k < 4; k++) {
        ss_step out;
        ssp_replay_row(&s, &row, stall, &out);
        assert_true(fabs(out.iter_time - iter[k]) < 1e-12);
        assert_true(fabs(stall[1] - st1[k]) < 1e-12 && fabs(stall[0] - (k == 0 ? 1 : 0)) < 1e-12);
    }
    ssp_free(&s);
}

/* A trace made by the lagged recurrence itself (each row: every GPU's loop asks at its
 * own time, like real DDP ranks leaving a step a few ms apart; train_start = the ask plus
 * the stall, iteration_time = the next ask minus this one): the calibration finds the asks
 * consistent and staggered, recovers W, P, the gaps and the delivery cost, and the
 * baseline replays every iteration (the longest ask-to-ask time of the row) to 1e-9 s. */
static void test_lagged_identity(void **state)
{
    (void)state;
    enum { G = 4, N = 400 };
    const int W = 2, P = 2;
    const double gap = 0.001, refill = 0.002, deliv = 0.003;
    ssp_params p = {.workers = W, .prefetch = P, .worker_gap = gap, .refill_gap = refill, .delivery = deliv,
                    .fetch_scale = 1, .compute_scale = 1, .fetch_align = SS_ALIGN_NONE,
                    .start_align = SS_ALIGN_NONE, .ask_lags = 1};
    for (int slow = 0; slow < 2; slow++) {
        ssp_state st;
        assert_int_equal(ssp_init(&st, &p, G), SS_OK);
        double *fs = malloc(sizeof(double) * N * G), *ft = malloc(sizeof(double) * N * G);
        double *ts = malloc(sizeof(double) * N * G), *it = malloc(sizeof(double) * N * G);
        double *sl = malloc(sizeof(double) * N * G), *lags = malloc(sizeof(double) * (N + 1) * G);
        unsigned long x = 12345 + (unsigned long)slow;
        /* a small LCG: deterministic draws in [0, 1) */
#define U() ((double)((x = x * 6364136223846793005UL + 1442695040888963407UL) >> 11) / 9007199254740992.0)
        for (long k = 0; k <= N; k++) {
            int zero = (int)(U() * G);
            for (int g = 0; g < G; g++) lags[k * G + g] = g == zero ? 0.0 : 0.003 * U();
        }
        double start[G], stall[G], tp, f[G], z[G];
        for (long k = 0; k < N; k++) {
            for (int g = 0; g < G; g++) {
                f[g] = 0.07 + 0.02 * U();
                if (slow && g == 3) f[g] *= 3.0;
                z[g] = 0.001 * U();
            }
            double c = 0.015 + 0.005 * U();
            ss_step out;
            double T = ssp_advance_lagged(&st, f, c, z, lags + k * G, lags + (k + 1) * G, start, stall, &tp, &out);
            for (int g = 0; g < G; g++) {
                double ask = tp - lags[k * G + g];
                fs[k * G + g] = start[g];
                ft[k * G + g] = f[g];
                sl[k * G + g] = stall[g];
                ts[k * G + g] = ask + stall[g];
                it[k * G + g] = (T - lags[(k + 1) * G + g]) - ask;
            }
        }
#undef U
        ssp_free(&st);
        char path[512];
        snprintf(path, sizeof path, "%s/lagged-%d.h5", tu_tmpdir(), slow);
        assert_int_equal(tu_write_trace(path, G, N, NULL, NULL, fs, ft, ts, it, sl), SS_OK);
        ss_calib cal;
        calibrate_file(path, &cal);
        assert_true(cal.asks_consistent && cal.ask_lags && cal.ask_spread > 0.001);
        for (int g = 0; g < G; g++) {
            /* (the slow GPU's window never binds: its refill gap does not show, and stays 0) */
            double rg = slow && g == 3 ? 0.0 : refill;
            if (cal.workers_gpu[g] != W || cal.prefetch_gpu[g] != P || fabs(cal.gap_gpu[g] - gap) > TOL ||
                fabs(cal.refill_gpu[g] - rg) > TOL || fabs(cal.delivery_gpu[g] - deliv) > TOL)
                fail_msg("lagged trace %d GPU %d: W=%d P=%d gap %.12g refill %.12g delivery %.12g", slow, g,
                         cal.workers_gpu[g], cal.prefetch_gpu[g], cal.gap_gpu[g], cal.refill_gpu[g],
                         cal.delivery_gpu[g]);
        }
        ss_calib_free(&cal);
        cal_case c = {.what = slow ? "lagged asks, one slow GPU" : "lagged asks"};
        check_sweep(&c, path);
        free(fs);
        free(ft);
        free(ts);
        free(it);
        free(sl);
        free(lags);
    }
}

/* Writes the traces of the heal tests into a and b (size bytes each, named after tag):
 * B with `gpus` GPUs of 4 workers and constant fetch (1 s) and compute (0.2 s) times, A the
 * same draws with GPU sync_gpu loading synchronously and, when slow_gpu >= 0, GPU slow_gpu's
 * fetches 3x slower. */
static void heal_traces(char *a, char *b, size_t size, const char *tag, int gpus, int sync_gpu, int slow_gpu)
{
    snprintf(a, size, "%s/%s-a.h5", tu_tmpdir(), tag);
    snprintf(b, size, "%s/%s-b.h5", tu_tmpdir(), tag);
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.gpus = gpus;
    p.iterations = 200;
    p.fetch_cv = 0;
    p.compute_cv = 0;
    p.fetch_mean = 1.0;
    p.compute_mean = 0.2;
    p.no_loader_attrs = 1;
    assert_int_equal(ss_gen_write(&p, b, 0), SS_OK);
    p.n_wgpu = 1;
    p.wgpu_gpu[0] = sync_gpu;
    p.wgpu_workers[0] = 0;
    if (slow_gpu >= 0) {
        p.n_slow = 1;
        p.slow_gpu[0] = slow_gpu;
        p.slow_factor[0] = 3.0;
    }
    assert_int_equal(ss_gen_write(&p, a, 0), SS_OK);
}

/* The measured run of trace b (the independent model's sweep, warm-up warmup) into *sb. */
static void measured_of(const char *b, int warmup, ss_summary *sb)
{
    char ini[1024];
    ss_scenario *sc;
    int nsc;
    snprintf(ini, sizeof ini, "[trace]\npath = %s\nwarmup_iterations = %d\n[scenarios]\nmodel = independent\n", b,
             warmup);
    if (tu_run_sweep(ini, sb, &sc, &nsc) != SS_OK) fail_msg("sweep B: %s", ss_errmsg());
    free(sc);
}

/* Healing a GPU also gives it the other GPUs' (median) loader settings: trace A has GPU 3
 * loading synchronously (W = 0) beside three GPUs with 4 workers, trace B has 4 workers
 * everywhere, both with constant fetch and compute times and the same draws; healing GPU
 * 3 on A replays B's measured run (mean iteration time and stall to 1e-9 s). */
static void test_heal_takes_others_loader(void **state)
{
    (void)state;
    char a[512], b[512], ini[1024];
    heal_traces(a, b, sizeof a, "heal", 4, 3, -1);
    ss_summary sb, sa;
    ss_scenario *sc;
    int nsc;
    measured_of(b, 0, &sb);
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nprefetch = auto\nheal = none, 3\n", a);
    if (tu_run_sweep(ini, &sa, &sc, &nsc) != SS_OK) fail_msg("sweep A: %s", ss_errmsg());
    assert_int_equal(sa.calib.workers_gpu[3], 0);
    assert_int_equal(sa.calib.workers_gpu[0], 4);
    int j = tu_find(sc, nsc, "pipeline_fetch-none_start-none_w-auto_pauto_fs1_cs1_heal-3");
    assert_true(j > 0);
    double mb = sb.p[0].mean[SS_M_ITER], mh = sa.p[j].mean[SS_M_ITER];
    print_message("A measured %.6f s, A with GPU 3 healed %.6f s, B measured %.6f s\n", sa.p[0].mean[SS_M_ITER], mh, mb);
    assert_true(sa.p[0].mean[SS_M_ITER] > mb + 0.1); /* the synchronous GPU slows A down */
    if (fabs(mh - mb) > TOL) fail_msg("healed %.12g s, B %.12g s", mh, mb);
    assert_true(fabs(sa.p[j].mean[SS_M_STALL] - sb.p[0].mean[SS_M_STALL]) < TOL);
    ss_summary_free(&sa);
    ss_summary_free(&sb);
    free(sc);
}

/* GPUs healed together (heal = 1+3): trace A has GPU 1 loading synchronously and GPU 3's
 * fetches 3x slower beside three GPUs with 4 workers and the same fetches; B has neither
 * fault. Healing both on A replays B's measured run (each healed GPU takes the median of
 * the GPUs not healed: their fetch time and their 4 workers) from the second row on (a
 * healed GPU starts the epoch's first batches at the median of the others' measured starts,
 * which gen draws apart by a few ms); healing either alone does not. */
static void test_heal_set_takes_others_loader(void **state)
{
    (void)state;
    char a[512], b[512], ini[1024];
    heal_traces(a, b, sizeof a, "healset", 5, 1, 3);
    ss_summary sb, sa;
    ss_scenario *sc;
    int nsc;
    measured_of(b, 1, &sb);
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = 1\n[scenarios]\nmodel = pipeline, independent\nprefetch = auto\n"
             "heal = 1, 3, 3+1\n", a);
    if (tu_run_sweep(ini, &sa, &sc, &nsc) != SS_OK) fail_msg("sweep A: %s", ss_errmsg());
    assert_int_equal(sa.calib.workers_gpu[1], 0);
    assert_int_equal(sa.calib.workers_gpu[0], 4);
    const double mb = sb.p[0].mean[SS_M_ITER];
    const int both = tu_find(sc, nsc, "pipeline_fetch-none_start-none_w-auto_pauto_fs1_cs1_heal-1+3");
    const int one = tu_find(sc, nsc, "pipeline_fetch-none_start-none_w-auto_pauto_fs1_cs1_heal-1");
    const int three = tu_find(sc, nsc, "pipeline_fetch-none_start-none_w-auto_pauto_fs1_cs1_heal-3");
    const int indep = tu_find(sc, nsc, "independent_fetch-none_start-none_heal-1+3");
    assert_true(both > 0 && one > 0 && three > 0 && indep > 0);
    assert_int_equal(sc[both].heal_gpu, -1);
    assert_int_equal(sc[one].heal_gpu, 1);
    assert_false(sc[both].baseline_but_heal); /* not one GPU: not in the per-GPU ranking */
    print_message("A measured %.6f s; healed 1: %.6f, 3: %.6f, 1+3: %.6f s (independent %.6f s); B measured %.6f s\n",
                  sa.p[0].mean[SS_M_ITER], sa.p[one].mean[SS_M_ITER], sa.p[three].mean[SS_M_ITER],
                  sa.p[both].mean[SS_M_ITER], sa.p[indep].mean[SS_M_ITER], mb);
    if (fabs(sa.p[both].mean[SS_M_ITER] - mb) > TOL) fail_msg("healed 1+3 %.12g s, B %.12g s", sa.p[both].mean[SS_M_ITER], mb);
    assert_true(fabs(sa.p[both].mean[SS_M_STALL] - sb.p[0].mean[SS_M_STALL]) < TOL);
    assert_true(sa.p[one].mean[SS_M_ITER] > mb + 0.1 && sa.p[three].mean[SS_M_ITER] > mb + 0.1);
    ss_summary_free(&sa);
    ss_summary_free(&sb);
    free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_delivery_by_hand),
        cmocka_unit_test(test_lagged_by_hand),
        cmocka_unit_test(test_accumulation_by_hand),
        cmocka_unit_test(test_lagged_identity),
        cmocka_unit_test(test_heal_takes_others_loader),
        cmocka_unit_test(test_heal_set_takes_others_loader),
        cmocka_unit_test(test_recovers_and_replays),
        cmocka_unit_test(test_short_window_bound_gap),
        cmocka_unit_test(test_recorded_settings),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
