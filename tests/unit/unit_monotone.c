/* unit_monotone.c - MODELS-pipeline.md what-if directions on generated traces: more workers, a larger prefetch or a smaller fetch_scale never increase the mean stall, a smaller compute_scale never increases the mean iteration time (sweeps with lists, rows compared); and a hand-computed case of more workers than the trace's (step 1's first round). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ss_gen.h"
#include "test_util.h"

#define SLACK 1e-9

/* Why these hold in the model (summaries over whole epochs, warmup_iterations = 0):
 * iteration time = stall + step_gap + c per row, so the mean stall is
 * (T_end - T[-1] - sum c) / N per epoch with T[-1] the earliest measured start; the
 * recurrence is built of max and + only, so T_end can only move later when a fetch or
 * compute time grows (fetch_scale, compute_scale) or when a constraint tightens. A larger P
 * loosens the window: T[k-W*P'-1] <= T[k-W*P-1] and done[k-W*P'] <= done[k-W*P] (same
 * worker chain, and done grows along a chain). Workers are compared along 1, 2, 4, 8
 * (each a multiple of the previous, so done[k-W'] sits on the chain of done[k-W]), below
 * and above the generating W: the epoch's first batches take the measured starts of the
 * loader's first round (its fresh workers' starts, the earliest), and those beyond the
 * trace's round its last start, never a start that waited for the trace's workers. */
typedef struct {
    unsigned long seed;
    int gpus, prefetch, workers;
    double fetch_mean, compute_mean, straggler_prob, worker_gap;
} trace_case;

static const trace_case TRACES[] = {
    {21, 4, 2, 8, 1.0, 0.05, 0.0, 0.0},  /* loader-bound */
    {22, 2, 1, 2, 1.0, 0.3, 0.05, 0.05}, /* mixed, stragglers; 4 and 8 workers above the trace's 2 */
    {23, 8, 4, 8, 0.3, 0.4, 0.02, 0.1},  /* compute-bound */
    {24, 1, 2, 2, 1.0, 0.12, 0.1, 0.0},  /* balanced; above the trace's 2 */
    {25, 3, 2, 1, 1.0, 0.03, 0.2, 0.0},  /* loader-bound, 1 worker: every other W above it */
};
#define NTRACES ((int)(sizeof TRACES / sizeof TRACES[0]))

static const char *WORKERS[] = {"1", "2", "4", "8"};
static const int PREFETCH[] = {1, 2, 4};
static const char *FSCALE[] = {"0.25", "0.5", "1", "2"};
static const char *CSCALE[] = {"0.5", "1", "2"};

static void make_trace(const trace_case *c, const char *path)
{
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.seed = c->seed;
    p.gpus = c->gpus;
    p.workers = c->workers;
    p.prefetch = c->prefetch;
    p.fetch_mean = c->fetch_mean;
    p.compute_mean = c->compute_mean;
    p.straggler_prob = c->straggler_prob;
    p.worker_gap = c->worker_gap;
    p.iterations = 300;
    p.epochs = 2;
    if (ss_gen_write(&p, path, 0) != SS_OK) fail_msg("gen: %s", ss_errmsg());
}

static int row_of(const ss_scenario *sc, int nsc, const char *fa, const char *sa, int w, int p, int fs, int cs)
{
    char name[160];
    snprintf(name, sizeof name, "pipeline_fetch-%s_start-%s_w-%s_p%d_fs%s_cs%s", fa, sa, WORKERS[w], PREFETCH[p],
             FSCALE[fs], CSCALE[cs]);
    int j = tu_find(sc, nsc, name);
    if (j < 0) fail_msg("no scenario %s", name);
    return j;
}

static void check_trace(int ti, const char *fetch_align, const char *start_align)
{
    const trace_case *c = &TRACES[ti];
    char path[512], ini[2048];
    snprintf(path, sizeof path, "%s/mono-%d.h5", tu_tmpdir(), ti);
    make_trace(c, path);
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nworkers = 1, 2, 4, 8\n"
             "prefetch = 1, 2, 4\nfetch_scale = 0.25, 0.5, 1, 2\ncompute_scale = 0.5, 1, 2\n"
             "fetch_align = %s\nstart_align = %s\n[pipeline]\nworker_gap = %.17g\nrefill_gap = 0.01\nstep_gap = 0.002\n",
             path, fetch_align, start_align, c->worker_gap);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    if (tu_run_sweep(ini, &sum, &sc, &nsc) != SS_OK) fail_msg("sweep: %s", ss_errmsg());
    assert_int_equal(nsc, 1 + 4 * 3 * 4 * 3);
    long checks = 0;
    for (int w = 0; w < 4; w++)
        for (int p = 0; p < 3; p++)
            for (int fs = 0; fs < 4; fs++)
                for (int cs = 0; cs < 3; cs++) {
                    int j = row_of(sc, nsc, fetch_align, start_align, w, p, fs, cs);
                    double st = sum.p[j].mean[SS_M_STALL], it = sum.p[j].mean[SS_M_ITER];
                    if (w + 1 < 4) {
                        int k = row_of(sc, nsc, fetch_align, start_align, w + 1, p, fs, cs);
                        if (sum.p[k].mean[SS_M_STALL] > st + SLACK)
                            fail_msg("trace %d: %s has mean stall %.12g > %.12g of %s", ti, sc[k].name,
                                     sum.p[k].mean[SS_M_STALL], st, sc[j].name);
                        checks++;
                    }
                    if (p + 1 < 3) {
                        int k = row_of(sc, nsc, fetch_align, start_align, w, p + 1, fs, cs);
                        if (sum.p[k].mean[SS_M_STALL] > st + SLACK)
                            fail_msg("trace %d: %s has mean stall %.12g > %.12g of %s", ti, sc[k].name,
                                     sum.p[k].mean[SS_M_STALL], st, sc[j].name);
                        checks++;
                    }
                    if (fs > 0) { /* the previous fetch_scale is smaller */
                        int k = row_of(sc, nsc, fetch_align, start_align, w, p, fs - 1, cs);
                        if (sum.p[k].mean[SS_M_STALL] > st + SLACK)
                            fail_msg("trace %d: %s has mean stall %.12g > %.12g of %s", ti, sc[k].name,
                                     sum.p[k].mean[SS_M_STALL], st, sc[j].name);
                        checks++;
                    }
                    if (cs > 0) { /* the previous compute_scale is smaller */
                        int k = row_of(sc, nsc, fetch_align, start_align, w, p, fs, cs - 1);
                        if (sum.p[k].mean[SS_M_ITER] > it + SLACK)
                            fail_msg("trace %d: %s has mean iteration time %.12g > %.12g of %s", ti, sc[k].name,
                                     sum.p[k].mean[SS_M_ITER], it, sc[j].name);
                        checks++;
                    }
                }
    /* the comparisons are not vacuous: the extremes differ */
    int lo = row_of(sc, nsc, fetch_align, start_align, 3, 2, 0, 0);
    int hi = row_of(sc, nsc, fetch_align, start_align, 0, 0, 3, 2);
    assert_true(sum.p[lo].mean[SS_M_ITER] < sum.p[hi].mean[SS_M_ITER]);
    assert_true(sum.p[lo].mean[SS_M_STALL] <= sum.p[hi].mean[SS_M_STALL]);
    assert_int_equal(checks, 3 * 3 * 4 * 3 + 4 * 2 * 4 * 3 + 4 * 3 * 3 * 3 + 4 * 3 * 4 * 2);
    ss_summary_free(&sum);
    free(sc);
}

static void test_monotone_unaligned(void **state)
{
    (void)state;
    for (int ti = 0; ti < NTRACES; ti++) check_trace(ti, "none", "none");
}

/* The same directions hold with aligned fetch times (f' is a per-row constant, scaled
 * like any fetch time). */
static void test_monotone_fetch_aligned(void **state)
{
    (void)state;
    for (int ti = 0; ti < NTRACES; ti++) check_trace(ti, "avg", "none");
}

/* One GPU, one worker in the trace, loader-bound: fetch k starts at k and takes 1 s, the
 * step takes 0.1 s (fetch_start k, train_start k + 1, stall 1.0 then 0.9, iteration 1.1
 * then 1.0). With 2 workers, batch 1 is a fresh worker's: it starts with batch 0 at 0 (not
 * at its measured 1, where it waited for the trace's one worker), so batches 2m and 2m+1
 * are done at m + 1, T[2m] = m + 1.1, T[2m+1] = m + 1.2: over 40 rows the mean iteration
 * time is 20.2 / 40 = 0.505 s and the mean stall 0.405 s. (Starting batch 1 as measured
 * would give done[2m+1] = m + 2 and 21.1 / 40 = 0.5275 s.) The window (W*P = 4 here: the
 * calibrated P is 2) never binds: batch k >= 4 is requested when batch k - 4 is taken,
 * before its worker is free. */
static void test_more_workers_than_trace(void **state)
{
    (void)state;
    enum { N = 40 };
    double fs[N], ft[N], ts[N], it[N], stl[N];
    for (int k = 0; k < N; k++) {
        fs[k] = k;
        ft[k] = 1.0;
        ts[k] = k + 1.0;
        it[k] = k == 0 ? 1.1 : 1.0;
        stl[k] = k == 0 ? 1.0 : 0.9;
    }
    char path[512], ini[1024];
    snprintf(path, sizeof path, "%s/one-worker.h5", tu_tmpdir());
    assert_int_equal(tu_write_trace(path, 1, N, NULL, NULL, fs, ft, ts, it, stl), SS_OK);
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\n"
             "[pipeline]\nworker_gap = 0\nrefill_gap = 0\ndelivery = 0\n",
             path);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    if (tu_run_sweep(ini, &sum, &sc, &nsc) != SS_OK) fail_msg("sweep: %s", ss_errmsg());
    int base = -1, two = -1;
    for (int j = 0; j < nsc; j++) {
        if (strstr(sc[j].name, "_w-auto_")) base = j;
        if (strstr(sc[j].name, "_w-2_")) two = j;
    }
    assert_true(base >= 0 && two >= 0);
    /* the calibration found the trace's one worker: the baseline replays it (T[39] = 40.1) */
    assert_true(fabs(sum.p[base].mean[SS_M_ITER] - 40.1 / N) < 1e-9);
    if (fabs(sum.p[two].mean[SS_M_ITER] - 0.505) > 1e-9 || fabs(sum.p[two].mean[SS_M_STALL] - 0.405) > 1e-9)
        fail_msg("2 workers from a 1-worker trace: mean iteration %.12g s (want 0.505), stall %.12g s (want 0.405)",
                 sum.p[two].mean[SS_M_ITER], sum.p[two].mean[SS_M_STALL]);
    ss_summary_free(&sum);
    free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotone_unaligned),
        cmocka_unit_test(test_monotone_fetch_aligned),
        cmocka_unit_test(test_more_workers_than_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
