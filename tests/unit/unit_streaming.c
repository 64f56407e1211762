/* unit_streaming.c - a trace with more iterations than fit in one slab, several statistics
 * blocks and an epoch boundary inside a slab is summarised as when read whole: the
 * sweep's measured row, streamed in slabs of 1, 5 and 3000 rows, equals GSL's statistics
 * over the whole per-iteration series computed here from the raw rows. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_statistics_double.h>

#include "ss_gen.h"
#include "test_util.h"

#define N_PER_EPOCH 2500L
#define EPOCHS 2
#define G 3

static char trace[512];

static int setup(void **state)
{
    (void)state;
    snprintf(trace, sizeof trace, "%s/stream.h5", tu_tmpdir());
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.gpus = G;
    p.iterations = N_PER_EPOCH;
    p.epochs = EPOCHS;
    p.straggler_prob = 0.05;
    p.seed = 99;
    p.chunk_rows = 333; /* the writer's slabs too are cut unevenly */
    return ss_gen_write(&p, trace, 0) == SS_OK ? 0 : -1;
}

static void close_to(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-12 * (1.0 + fabs(want))) fail_msg("%s: streamed %.17g, whole %.17g", what, got, want);
}

/* The measured series (MODELS-independent.md) of the summarised rows, straight from the raw rows. */
static void whole_series(long warmup, long epoch, double *it, double *st, double *dl, double *sd, double *fd, long *n)
{
    ss_comm c;
    ss_comm_self(&c);
    ss_trace_file *t;
    assert_int_equal(ss_trace_open(trace, &c, &t), SS_OK);
    const long N = N_PER_EPOCH * EPOCHS;
    ss_slab s;
    assert_int_equal(ss_slab_alloc(&s, N, G), SS_OK);
    assert_int_equal(ss_trace_read(t, 0, N, &s), SS_OK);
    *n = 0;
    for (long k = 0; k < N; k++) {
        if (s.index[k] < warmup || (epoch >= 0 && s.epoch[k] != epoch)) continue;
        double a = -INFINITY, smn = INFINITY, smx = -INFINITY, s0 = INFINITY, s1 = -INFINITY, f0 = INFINITY,
               f1 = -INFINITY;
        for (int g = 0; g < G; g++) {
            long x = k * G + g;
            a = fmax(a, s.iteration_time[x]);
            smx = fmax(smx, s.stall_time[x]);
            smn = fmin(smn, s.stall_time[x]);
            s0 = fmin(s0, s.fetch_start[x]);
            s1 = fmax(s1, s.fetch_start[x]);
            f0 = fmin(f0, s.fetch_time[x]);
            f1 = fmax(f1, s.fetch_time[x]);
        }
        it[*n] = a;
        st[*n] = smx;
        dl[*n] = smx - smn;
        sd[*n] = s1 - s0;
        fd[*n] = f1 - f0;
        (*n)++;
    }
    ss_slab_free(&s);
    ss_trace_close(t);
}

static void check(long slab, long warmup, long epoch)
{
    static double it[N_PER_EPOCH * EPOCHS], st[N_PER_EPOCH * EPOCHS], dl[N_PER_EPOCH * EPOCHS],
        sd[N_PER_EPOCH * EPOCHS], fd[N_PER_EPOCH * EPOCHS];
    long n;
    whole_series(warmup, epoch, it, st, dl, sd, fd, &n);
    char ini[1024], ep[32];
    if (epoch >= 0) snprintf(ep, sizeof ep, "%ld", epoch);
    else snprintf(ep, sizeof ep, "all");
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = %ld\nepoch = %s\n[run]\nslab_iterations = %ld\n", trace, warmup,
             ep, slab);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    assert_int_equal(tu_run_sweep(ini, &sum, &sc, &nsc), SS_OK);
    const ss_partial *p = &sum.p[0];
    assert_true(p->n == (double)n);
    const double *series[5] = {it, st, dl, sd, fd};
    const int metric[5] = {SS_M_ITER, SS_M_STALL, SS_M_DELAY, SS_M_START, SS_M_FETCH};
    const char *names[5] = {"iteration time", "stall", "delay", "start_diff", "fetch_diff"};
    for (int m = 0; m < 5; m++) {
        close_to(p->mean[metric[m]], gsl_stats_mean(series[m], 1, (size_t)n), names[m]);
        close_to(ss_partial_std(p, metric[m]), gsl_stats_sd(series[m], 1, (size_t)n), names[m]);
    }
    long eff = 0;
    for (long i = 0; i < n; i++) eff += dl[i] > 0.030;
    assert_true(p->eff == (double)eff);
    ss_summary_free(&sum);
    free(sc);
}

static void test_slab_of_one(void **state) { (void)state; check(1, 11, -1); }
static void test_slab_of_five(void **state) { (void)state; check(5, 11, -1); }
static void test_slab_larger_than_trace(void **state) { (void)state; check(3000, 0, -1); }
static void test_second_epoch_only(void **state) { (void)state; check(7, 11, 2); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slab_of_one),
        cmocka_unit_test(test_slab_of_five),
        cmocka_unit_test(test_slab_larger_than_trace),
        cmocka_unit_test(test_second_epoch_only),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
