/* unit_monotone.c - MODELS-pipeline.md what-if directions on generated traces: more workers, a larger prefetch or a smaller fetch_scale never increase the mean stall, a smaller compute_scale never increases the mean iteration time (sweeps with lists, rows compared). */
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
 * (each a multiple of the previous, so done[k-W'] sits on the chain of done[k-W]) and
 * never above the generating W, so that the measured starts used for k < W' are the
 * loader's initial ones (the earliest). */
#define GEN_W 8

typedef struct {
    unsigned long seed;
    int gpus, prefetch;
    double fetch_mean, compute_mean, straggler_prob, worker_gap;
} trace_case;

static const trace_case TRACES[] = {
    {21, 4, 2, 1.0, 0.05, 0.0, 0.0},  /* loader-bound */
    {22, 2, 1, 1.0, 0.3, 0.05, 0.05}, /* mixed, stragglers */
    {23, 8, 4, 0.3, 0.4, 0.02, 0.1},  /* compute-bound */
    {24, 1, 2, 1.0, 0.12, 0.1, 0.0},  /* balanced */
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
    p.workers = GEN_W;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotone_unaligned),
        cmocka_unit_test(test_monotone_fetch_aligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
