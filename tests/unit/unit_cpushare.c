/* unit_cpushare.c - CPU sharing (ss_cpushare.h): the stretch of a pool against closed
 * forms worked by hand (with and without a gang of training processes), and the scenario solve: its own load gives the trace's stretch
 * back, more workers give more. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ss_cpushare.h"

static void test_stretch_closed_forms(void **state)
{
    (void)state;
    /* no more threads than cores: no contention */
    assert_true(ss_share_stretch(0, 0, (double[]){0.9, 0.9}, 2, 2) == 1.0);
    assert_true(ss_share_stretch(1, 0.5, NULL, 0, 4) == 1.0);
    /* two threads of 1/4 on one core: p = s/4 each; E[N] = 2p, E[N max(1, N)] = E[N^2] =
     * 2p(1-p) + 4p^2, so s = 1 + p = 1 + s/4: s = 4/3 */
    assert_float_equal(ss_share_stretch(0, 0, (double[]){0.25, 0.25}, 2, 1), 4.0 / 3, 1e-12);
    /* three threads of 1/2 on two cores: p = s/2, q = 1 - p; E[N max(1, N/2)] = 3pq^2 +
     * 2 * 3p^2q + 4.5p^3 and E[N] = 3p give s = 1 + p^2/2 = 2p: p = 2 - sqrt(2) */
    assert_float_equal(ss_share_stretch(0, 0, (double[]){0.5, 0.5, 0.5}, 3, 2), 4 - 2 * sqrt(2), 1e-12);
    /* the same three, two of them a gang: N = 1 (pq), 2 (pq) or 3 (p^2); s = q + 1.5p = 2p:
     * p = 2/3 */
    assert_float_equal(ss_share_stretch(2, 0.5, (double[]){0.5}, 1, 2), 4.0 / 3, 1e-12);
    /* threads that would run all the time alone: always all runnable, s = n / cores */
    assert_float_equal(ss_share_stretch(0, 0, (double[]){1, 1, 1, 1}, 4, 2), 2.0, 1e-12);
    assert_float_equal(ss_share_stretch(2, 1, (double[]){1, 1}, 2, 2), 2.0, 1e-12);
    /* no demand: no stretch */
    assert_float_equal(ss_share_stretch(0, 0, (double[]){0, 0, 0}, 3, 1), 1.0, 1e-12);
}

/* R(s) - s for n threads of demand u on K cores from the exact binomial law (the test's
 * own: lgamma, not the module's recursion) */
static double binomial_excess(int n, double u, int K, double s)
{
    double p = u * s < 1 ? u * s : 1, num = 0, en = n * p;
    for (int m = 0; m <= n; m++) {
        double pm = exp(lgamma(n + 1.0) - lgamma(m + 1.0) - lgamma(n - m + 1.0) + m * log(p) + (n - m) * log1p(-p));
        num += pm * m * (m > K ? (double)m / K : 1.0);
    }
    return num / en - s;
}

/* A pool large enough for the normal law (3000 threads on 1000 cores): its root within
 * 1e-3 of the exact one */
static void test_large_pool(void **state)
{
    (void)state;
    enum { N = 3000, K = 1000 };
    double *u = malloc(N * sizeof *u);
    assert_non_null(u);
    for (int j = 0; j < N; j++) u[j] = 0.3;
    double s = ss_share_stretch(0, 0, u, N, K);
    double lo = 1, hi = (double)N / K;
    for (int i = 0; i < 60; i++) {
        double m = (lo + hi) / 2;
        if (binomial_excess(N, 0.3, K, m) >= 0) lo = m;
        else hi = m;
    }
    assert_true(s > 1.0 && s < 1.2);
    assert_float_equal(s, lo, 1e-3 * lo);
    free(u);
}

/* R(s) - s for a gang of G threads of demand gu and n workers of demand u on K cores, from
 * the exact mixture (1 - pg) Bin(n, p)(m) + pg Bin(n, p)(m - G) */
static double gang_excess(int G, double gu, int n, double u, int K, double s)
{
    double pg = gu * s < 1 ? gu * s : 1, p = u * s < 1 ? u * s : 1, num = 0, en = G * pg + n * p;
    for (int m = 0; m <= n; m++) {
        double pm = exp(lgamma(n + 1.0) - lgamma(m + 1.0) - lgamma(n - m + 1.0) + m * log(p) + (n - m) * log1p(-p));
        double a = m, b = m + G; /* without and with the gang */
        num += pm * ((1 - pg) * a * (a > K ? a / K : 1.0) + pg * b * (b > K ? b / K : 1.0));
    }
    return num / en - s;
}

/* The same with a gang (1024 training processes and 4096 workers on 1536 cores): the
 * normal law of the workers mixed with the gang's all-or-nothing */
static void test_large_pool_gang(void **state)
{
    (void)state;
    enum { G = 1024, N = 4096, K = 1536 };
    double *u = malloc(N * sizeof *u);
    assert_non_null(u);
    for (int j = 0; j < N; j++) u[j] = 0.2;
    double s = ss_share_stretch(G, 0.3, u, N, K);
    double lo = 1, hi = (double)(G + N) / K;
    for (int i = 0; i < 60; i++) {
        double m = (lo + hi) / 2;
        if (gang_excess(G, 0.3, N, 0.2, K, m) >= 0) lo = m;
        else hi = m;
    }
    assert_true(s > 1.0);
    assert_float_equal(s, lo, 1e-3 * lo);
    free(u);
}

/* Two GPUs on one pool of 2 cores, 1 worker each (the shape of datasets/pytorch-cnn) */
static ss_share two_gpus(void)
{
    ss_share sh;
    const double c[2] = {0.012, 0.012}, L[2] = {0.007, 0.007}, f[2] = {0.047, 0.047}, gap[2] = {0, 0},
                 d[2] = {0.0015, 0.0015};
    const int pool[2] = {0, 0}, cores[2] = {2, 2}, W[2] = {1, 1};
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, cores, f, W, gap, d, 0.048, 0.009, NULL), SS_OK);
    return sh;
}

/* R(s) - s of the job's threads beside other processes, by enumerating every state: a gang
 * of 2 training processes of demand gu (runnable together or not), 2 workers of demand u,
 * and nx threads of other processes of demand ux, on K cores; the stretch averaged over the
 * job's runnable threads alone: E[J max(1, N/K)] / E[J]. */
static double enumerated_excess(double gu, double u, int nx, double ux, int K, double s)
{
    const double pg = fmin(1.0, gu * s), pw = fmin(1.0, u * s), px = fmin(1.0, ux * s);
    double num = 0.0, den = 0.0;
    for (int state = 0; state < (1 << (3 + nx)); state++) {
        double pr = 1.0;
        int j = 0, n = 0;
        for (int b = 0; b < 3 + nx; b++) {
            const int on = (state >> b) & 1;
            const double p = b == 0 ? pg : b < 3 ? pw : px;
            pr *= on ? p : 1.0 - p;
            const int size = b == 0 ? 2 : 1; /* the gang's two threads */
            if (on) {
                n += size;
                if (b < 3) j += size;
            }
        }
        num += pr * j * fmax(1.0, (double)n / K);
        den += pr * j;
    }
    return num / den - s;
}

static double enumerated_stretch(double gu, double u, int nx, double ux, int K)
{
    double lo = 1.0, hi = (4.0 + nx) / K;
    for (int i = 0; i < 100; i++) {
        const double m = 0.5 * (lo + hi);
        if (enumerated_excess(gu, u, nx, ux, K, m) >= 0.0) lo = m;
        else hi = m;
    }
    return 0.5 * (lo + hi);
}

/* The trace's stretch beside other processes (ss_share_set_others): a share o of K cores is
 * ceil(o K) threads of o K / ceil(o K) each, which the job's threads share the cores with but
 * which do not count in their stretch; none recorded (0) leaves s0_others unset. */
static void test_others(void **state)
{
    (void)state;
    ss_share sh = two_gpus();
    assert_int_equal(ss_share_set_others(&sh, (double[]){0.0, -0.02}), SS_OK);
    assert_null(sh.s0_others);
    const double gu = 0.007 / 0.048, u = 0.012 / 0.048;
    /* the enumeration without others gives the trace's own stretch */
    assert_float_equal(enumerated_stretch(gu, u, 0, 0.0, 2), sh.s0[0], 1e-9);
    /* 30 % of 2 cores: one thread of 0.6 */
    assert_int_equal(ss_share_set_others(&sh, (double[]){0.3, 0.25}), SS_OK);
    assert_non_null(sh.s0_others);
    assert_float_equal(sh.s0_others[0], enumerated_stretch(gu, u, 1, 0.6, 2), 1e-9);
    assert_true(sh.s0_others[0] > sh.s0[0]);
    /* 80 %: two threads of 0.8 */
    assert_int_equal(ss_share_set_others(&sh, (double[]){0.8, 0.8}), SS_OK);
    assert_float_equal(sh.s0_others[0], enumerated_stretch(gu, u, 2, 0.8, 2), 1e-9);
    ss_share_free(&sh);
}

static void test_solve(void **state)
{
    (void)state;
    ss_share sh = two_gpus();
    assert_int_equal(sh.pools, 1);
    /* the trace's stretch: 2 training processes of 0.007/0.048 and 2 workers of 0.012/0.048 */
    assert_float_equal(sh.s0[0], ss_share_stretch(2, 0.007 / 0.048, (double[]){0.012 / 0.048, 0.012 / 0.048}, 2, 2),
                       1e-15);
    assert_true(sh.s0[0] > 1.0 && sh.s0[0] < 1.2);
    /* its steady-state period: the loader, f / W */
    assert_float_equal(sh.a0, 0.047, 1e-15);
    /* the trace's own loaders: the trace's stretch, no change of the step */
    double s1, delta;
    const double gap[2] = {0, 0}, d[2] = {0.0015, 0.0015};
    ss_share_scenario same = {(int[]){1, 1}, gap, d, sh.fetch_cpu, sh.fetch_med, NULL, 1.0, 1.0, 0.0, NULL};
    assert_int_equal(ss_share_solve(&sh, &same, &s1, &delta), SS_OK);
    assert_float_equal(s1, sh.s0[0], 1e-12);
    assert_float_equal(delta, 0.0, 1e-12);
    /* 4 workers: more threads, a shorter period, more contention; the step grows by
     * L (s1 - s0) */
    ss_share_scenario four = {(int[]){4, 4}, gap, d, sh.fetch_cpu, sh.fetch_med, NULL, 1.0, 1.0, 0.0, NULL};
    assert_int_equal(ss_share_solve(&sh, &four, &s1, &delta), SS_OK);
    assert_true(s1 > sh.s0[0] + 0.2);
    assert_float_equal(delta, 0.007 * (s1 - sh.s0[0]), 1e-15);
    /* s1 is the stretch at its own period T = 0.048 * A(s1) / A(s0) (the fixed point) */
    double c0 = 0.012 * sh.s0[0], f = c0 * s1 / sh.s0[0] + (0.047 - c0);
    double step = 0.009 + delta + 0.0015, A = f / 4 > step ? f / 4 : step, T = 0.048 * A / sh.a0;
    double u[8];
    for (int i = 0; i < 8; i++) u[i] = 0.012 / (4 * T);
    assert_float_equal(ss_share_stretch(2, 0.007 / T, u, 8, 2), s1, 1e-9);
    ss_share_free(&sh);
}

/* The period's delivery term where the scenario replays each batch's measured delivery:
 * F times the trace's median over rows of a row's largest delivery (delivery_rows), not the
 * largest of the GPUs' medians */
static void test_delivery_rows(void **state)
{
    (void)state;
    ss_share sh = two_gpus();
    const double a0 = sh.a0;
    assert_int_equal(ss_share_set_delivery_rows(&sh, 0.004), SS_OK);
    /* a loader-bound trace: its period is its loader's, whatever the delivery */
    assert_float_equal(sh.a0, a0, 1e-15);
    assert_int_equal(sh.bound0, 1);
    const double gap[2] = {0, 0}, d[2] = {0.0015, 0.0015};
    const double F[3] = {0.0, 1.0, 2.0}, D[3] = {0.0015, 0.004, 0.008};
    double s_at[3];
    for (int i = 0; i < 3; i++) {
        ss_share_scenario four = {(int[]){4, 4}, gap, d, sh.fetch_cpu, sh.fetch_med, NULL, 1.0, 1.0, F[i], NULL};
        double s1, delta;
        assert_int_equal(ss_share_solve(&sh, &four, &s1, &delta), SS_OK);
        /* the fixed point at T = 0.048 A(s1) / A(s0), A's step term C + delta + D */
        double c0 = 0.012 * sh.s0[0], f = c0 * s1 / sh.s0[0] + (0.047 - c0);
        double step = 0.009 + delta + D[i], A = f / 4 > step ? f / 4 : step, T = 0.048 * A / sh.a0;
        double u[8];
        for (int j = 0; j < 8; j++) u[j] = 0.012 / (4 * T);
        assert_float_equal(ss_share_stretch(2, 0.007 / T, u, 8, 2), s1, 1e-9);
        s_at[i] = s1;
    }
    /* a longer delivery, a longer period, less contention */
    assert_true(s_at[0] > s_at[1] && s_at[1] > s_at[2]);
    ss_share_free(&sh);
    /* a trace whose loaders keep ahead (4 workers: 0.030 / 4 < 0.009 + delivery): its period
     * is the step and the delivery, by hand 0.009 + 0.0015, then 0.009 + 0.004 */
    const double c[2] = {0.012, 0.012}, L[2] = {0.007, 0.007}, fm[2] = {0.030, 0.030};
    const int pool[2] = {0, 0}, cores[2] = {2, 2}, W[2] = {4, 4};
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, cores, fm, W, gap, d, 0.0125, 0.009, NULL), SS_OK);
    assert_int_equal(sh.bound0, 0);
    assert_float_equal(sh.a0, 0.0105, 1e-15);
    assert_int_equal(ss_share_set_delivery_rows(&sh, 0.004), SS_OK);
    assert_float_equal(sh.a0, 0.013, 1e-15);
    assert_int_equal(sh.bound0, 0);
    /* ... while a scenario that replays each GPU's median delivery compares with the period
     * by those, 0.009 + 0.0015: the trace's own loaders keep the trace's stretch in both
     * modes, and a change of nothing changes nothing */
    assert_float_equal(sh.a0_med, 0.0105, 1e-15);
    for (int i = 0; i < 2; i++) {
        ss_share_scenario own = {(int[]){4, 4}, gap, d, sh.fetch_cpu, sh.fetch_med, NULL, 1.0, 1.0, (double)i, NULL};
        double s1, delta;
        assert_int_equal(ss_share_solve(&sh, &own, &s1, &delta), SS_OK);
        assert_float_equal(s1, sh.s0[0], 1e-12);
        assert_float_equal(delta, 0.0, 1e-12);
    }
    ss_share_free(&sh);
    /* the regime can differ between the modes: a loader period of 0.044 / 4 = 0.011 s lies
     * between 0.009 + 0.0015 (the loaders bound the trace by the medians) and 0.009 + 0.004
     * (the steps and deliveries do by a row's largest) */
    const double fm2[2] = {0.044, 0.044};
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, cores, fm2, W, gap, d, 0.0125, 0.009, NULL), SS_OK);
    assert_int_equal(ss_share_set_delivery_rows(&sh, 0.004), SS_OK);
    assert_int_equal(sh.bound0_med, 1);
    assert_float_equal(sh.a0_med, 0.011, 1e-15);
    assert_int_equal(sh.bound0, 0);
    assert_float_equal(sh.a0, 0.013, 1e-15);
    ss_share_free(&sh);
}

/* A GPU whose batches waited for its loop in the trace (ready at the ask on at least
 * SS_SHARE_READY_SHARE of the rows) has its deliveries stretched by s1 / s0, and so has the
 * period's delivery term: a trace like test_delivery_rows' whose loaders keep ahead (a0 =
 * 0.009 + 0.004), with lighter fetches (0.004 s of CPU) and steps (0.003 s), predicting 8
 * workers and a step half as long: its loaders stay ahead, at a heavier load. */
static void test_delivery_ready(void **state)
{
    (void)state;
    ss_share sh;
    const double c[2] = {0.004, 0.004}, L[2] = {0.003, 0.003}, fm[2] = {0.030, 0.030}, gap[2] = {0, 0},
                 d[2] = {0.0015, 0.0015};
    const int pool[2] = {0, 0}, cores[2] = {2, 2}, W[2] = {4, 4};
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, cores, fm, W, gap, d, 0.0125, 0.009, NULL), SS_OK);
    assert_int_equal(ss_share_set_delivery_rows(&sh, 0.004), SS_OK);
    assert_float_equal(sh.a0, 0.013, 1e-15);
    assert_true(sh.s0[0] > 1.0 && sh.s0[0] < 2.0);
    ss_share_scenario eight = {(int[]){8, 8}, gap, d, sh.fetch_cpu, sh.fetch_med, NULL, 1.0, 0.5, 1.0, NULL};
    double s_plain, s1, delta;
    assert_int_equal(ss_share_solve(&sh, &eight, &s_plain, &delta), SS_OK);
    /* GPU 0's batches were ready at 95 % of its asks, GPU 1's at 94.9 % */
    assert_int_equal(ss_share_set_ready(&sh, (double[]){0.95, 0.949}), SS_OK);
    assert_true(sh.ready[0] == 1 && sh.ready[1] == 0);
    assert_float_equal(sh.a0, 0.013, 1e-15); /* the trace's own period: r = 1 */
    assert_int_equal(ss_share_solve(&sh, &eight, &s1, &delta), SS_OK);
    /* the fixed point at T = 0.0125 A(s1) / A(s0), A's step term C + delta + D_rows r */
    const double r = s1 / sh.s0[0], c0 = 0.004 * sh.s0[0], f = c0 * r + (0.030 - c0);
    assert_true(r > 1.05);
    assert_float_equal(delta, 0.003 * (s1 - sh.s0[0]), 1e-15);
    double step = 0.5 * 0.009 + delta + 0.004 * r, A = f / 8 > step ? f / 8 : step, T = 0.0125 * A / sh.a0;
    assert_true(f / 8 < step); /* (the loaders keep ahead) */
    double u[16];
    for (int j = 0; j < 16; j++) u[j] = 0.004 / (8 * T);
    assert_float_equal(ss_share_stretch(2, 0.003 / T, u, 16, 2), s1, 1e-9);
    /* the longer delivery, a longer period, less contention than without it */
    assert_true(s1 < s_plain);
    /* a scenario's own flags (a healed GPU's may differ from the trace's): none flagged is
     * the solve without the factor, the trace's flags given explicitly the same as NULL */
    double s_none, s_same;
    eight.ready = (const unsigned char[]){0, 0};
    assert_int_equal(ss_share_solve(&sh, &eight, &s_none, &delta), SS_OK);
    assert_float_equal(s_none, s_plain, 1e-15);
    eight.ready = (const unsigned char[]){1, 0};
    assert_int_equal(ss_share_solve(&sh, &eight, &s_same, &delta), SS_OK);
    assert_float_equal(s_same, s1, 1e-15);
    /* the trace's own loaders: nothing changes */
    ss_share_scenario own = {(int[]){4, 4}, gap, d, sh.fetch_cpu, sh.fetch_med, NULL, 1.0, 1.0, 1.0, NULL};
    assert_int_equal(ss_share_solve(&sh, &own, &s1, &delta), SS_OK);
    assert_float_equal(s1, sh.s0[0], 1e-12);
    ss_share_free(&sh);
}

/* Synchronous loading (W = 0): a GPU's fetch runs in its training process between two
 * steps, on its own time, so its CPU is an independent thread's demand, not the gang's.
 * Two such GPUs on one core whose steps need no CPU (loop CPU = the fetch's 0.012 s per
 * 0.048 s): two independent threads of 1/4 on one core, s = 4/3 (closed form above; as
 * one gang it would be 2). On two cores: one process per core, no contention. */
static void test_synchronous(void **state)
{
    (void)state;
    ss_share sh;
    const double c[2] = {0.012, 0.012}, L[2] = {0.012, 0.012}, f[2] = {0.02, 0.02}, gap[2] = {0, 0}, d[2] = {0, 0};
    const int pool[2] = {0, 0}, one[2] = {1, 1}, two[2] = {2, 2}, W[2] = {0, 0};
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, one, f, W, gap, d, 0.048, 0.028, NULL), SS_OK);
    assert_float_equal(sh.step_cpu[0], 0.0, 1e-15);
    assert_float_equal(sh.s0[0], 4.0 / 3, 1e-12);
    ss_share_free(&sh);
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, two, f, W, gap, d, 0.048, 0.028, NULL), SS_OK);
    assert_float_equal(sh.s0[0], 1.0, 1e-15);
    ss_share_free(&sh);
}

/* The training processes together a share gamma of the time (their alignment, measured by
 * the calibration): R is the mixture's, gamma R_gang + (1 - gamma) R_apart. Two GPUs that
 * load synchronously with no fetch CPU, steps of 1/4 of a core each, on one core: as a
 * gang R = 2, apart R = 1 + s/4 (closed forms above), so s = 2 gamma + (1 - gamma)(1 +
 * s/4): s = 4 (1 + gamma) / (3 + gamma). */
static void test_alignment(void **state)
{
    (void)state;
    const double c[2] = {0, 0}, L[2] = {0.012, 0.012}, f[2] = {0.02, 0.02}, gap[2] = {0, 0}, d[2] = {0, 0};
    const int pool[2] = {0, 0}, one[2] = {1, 1}, W[2] = {0, 0};
    const double gammas[] = {0.0, 0.5, 1.0};
    for (int i = 0; i < 3; i++) {
        double g = gammas[i], align[4] = {g, 0.9, g, 0.9};
        ss_share sh;
        assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, one, f, W, gap, d, 0.048, 0.028, align), SS_OK);
        assert_float_equal(sh.s0[0], 4 * (1 + g) / (3 + g), 1e-12);
        assert_float_equal(sh.align_ahead[0], 0.9, 0.0);
        ss_share_free(&sh);
    }
    /* no alignment given: always together, the gang's 2 */
    ss_share sh;
    assert_int_equal(ss_share_build(&sh, 2, c, L, NULL, NULL, pool, one, f, W, gap, d, 0.048, 0.028, NULL), SS_OK);
    assert_float_equal(sh.s0[0], 2.0, 1e-12);
    ss_share_free(&sh);
}

/* Measured waits for a core (recorder format 3): the trace's measured stretches are
 * (c + q) / c and (L + its wait) / L over the pool, the CPU part's wall time c + q; a
 * scenario's step changes by min(L + wait, C) (s1 / s0 - 1) */
static void test_measured_waits(void **state)
{
    (void)state;
    ss_share sh;
    const double c[2] = {0.012, 0.010}, L[2] = {0.007, 0.007}, f[2] = {0.047, 0.047}, gap[2] = {0, 0},
                 d[2] = {0.0015, 0.0015}, q[2] = {0.006, 0.004}, ql[2] = {0.002, 0.001};
    const int pool[2] = {0, 0}, cores[2] = {2, 2}, W[2] = {1, 1};
    assert_int_equal(ss_share_build(&sh, 2, c, L, q, ql, pool, cores, f, W, gap, d, 0.048, 0.009, NULL), SS_OK);
    assert_non_null(sh.s0m);
    /* (0.012 + 0.006 + 0.010 + 0.004) / (0.012 + 0.010) and (0.007 + 0.002 + 0.007 + 0.001) / 0.014 */
    assert_float_equal(sh.s0m[0], 0.032 / 0.022, 1e-12);
    assert_float_equal(sh.s0m_step[0], 0.017 / 0.014, 1e-12);
    assert_float_equal(ss_share_cpu_wall(&sh, 1, 0.010, 0.004), 0.014, 1e-15);
    /* the model's stretch does not use the waits: the same as without them */
    ss_share plain;
    assert_int_equal(ss_share_build(&plain, 2, c, L, NULL, NULL, pool, cores, f, W, gap, d, 0.048, 0.009, NULL), SS_OK);
    assert_true(plain.s0m == NULL && plain.s0[0] == sh.s0[0]);
    assert_float_equal(ss_share_cpu_wall(&plain, 1, 0.010, 0.004), 0.010 * plain.s0[0], 1e-15);
    ss_share_free(&plain);
    double s1, delta;
    ss_share_scenario four = {(int[]){4, 4}, gap, d, sh.fetch_cpu, sh.fetch_med, q, 1.0, 1.0, 0.0, NULL};
    assert_int_equal(ss_share_solve(&sh, &four, &s1, &delta), SS_OK);
    assert_true(s1 > sh.s0[0]);
    assert_float_equal(delta, (0.007 + 0.002) * (s1 / sh.s0[0] - 1), 1e-15);
    ss_share_free(&sh);
}

/* The start-up crush: the first W*P rows of each GPU, and the first window's stretch, each
 * GPU's workers one gang (MODELS-pipeline.md, "The first window of an epoch") */
static void test_start_window(void **state)
{
    (void)state;
    ss_share sh;
    const double c[2] = {0.012, 0.010}, L[2] = {0.007, 0.007}, f[2] = {0.047, 0.047}, gap[2] = {0, 0},
                 d[2] = {0.0015, 0.0015}, q[2] = {0.006, 0.004}, ql[2] = {0.002, 0.001}, qs[2] = {0.1, -1},
                 ex[2] = {0.2, -3};
    const int pool[2] = {0, 0}, cores[2] = {2, 2}, W[2] = {8, 0}, P[2] = {4, 2};
    assert_int_equal(ss_share_build(&sh, 2, c, L, q, ql, pool, cores, f, W, gap, d, 0.048, 0.009, NULL), SS_OK);
    assert_int_equal(ss_share_set_start(&sh, qs, P, ex), SS_OK);
    assert_true(sh.start_rows[0] == 32 && sh.start_rows[1] == 0); /* a synchronous GPU has no window */
    assert_true(sh.start_wait[0] == 0.1 && sh.start_wait[1] == 0.0); /* not below 0 */
    assert_true(sh.start_excess[0] == 0.2 && sh.start_excess[1] == 0.0);
    double s;
    /* every thread all CPU (c = alone): both gangs always run, 16 threads on 2 cores */
    const double one[2] = {1, 1};
    assert_int_equal(ss_share_window_stretch(&sh, (int[]){8, 8}, one, one, &s), SS_OK);
    assert_float_equal(s, 8.0, 1e-12);
    /* one gang of 4 on 2 cores: whenever it runs it runs 4 at once, R = 2 at any demand */
    const double tenth[2] = {0.1, 0.1};
    assert_int_equal(ss_share_window_stretch(&sh, (int[]){4, 0}, tenth, one, &s), SS_OK);
    assert_float_equal(s, 2.0, 1e-12);
    /* workers that fit the cores: no crush */
    assert_int_equal(ss_share_window_stretch(&sh, (int[]){1, 1}, one, one, &s), SS_OK);
    assert_true(s == 1.0);
    ss_share_free(&sh);
    /* two gangs of one worker on one core, demand u = .25: N ~ Bin(2, p), p = u s; R = E[N^2]
     * / E[N] = 1 + p, so s = 1 + u s: s = 1 / (1 - u) = 4 / 3 */
    const int one_core[2] = {1, 1}, W1[2] = {1, 1};
    assert_int_equal(ss_share_build(&sh, 2, c, L, q, ql, pool, one_core, f, W1, gap, d, 0.048, 0.009, NULL), SS_OK);
    const double quarter[2] = {0.25, 0.25};
    assert_int_equal(ss_share_window_stretch(&sh, W1, quarter, one, &s), SS_OK);
    assert_float_equal(s, 4.0 / 3.0, 1e-12);
    assert_int_equal(ss_share_set_start(&sh, qs, P, NULL), SS_OK);
    assert_true(sh.start_rows[0] == 4 && sh.start_rows[1] == 2 && sh.start_excess == NULL);
    ss_share_free(&sh);
}

/* Degenerate inputs: no time measured, no fetch, one core, the most workers; the trace's
 * stretch and a scenario's stay finite and at least 1, and the solve does not fail */
static void test_degenerate(void **state)
{
    (void)state;
    ss_share sh;
    const double zero[1] = {0}, one[1] = {1};
    const int pool[1] = {0}, cores[1] = {1}, W[1] = {4096};
    assert_int_equal(ss_share_build(&sh, 1, one, one, NULL, NULL, pool, cores, zero, W, zero, zero, 0.0, 0.0, NULL), SS_OK);
    assert_true(sh.s0[0] == 1.0);
    double s1, delta;
    ss_share_scenario sc = {(int[]){0}, zero, zero, sh.fetch_cpu, sh.fetch_med, NULL, 0.5, 1.0, 0.0, NULL};
    assert_int_equal(ss_share_solve(&sh, &sc, &s1, &delta), SS_OK);
    assert_true(isfinite(s1) && s1 >= 1.0 && isfinite(delta));
    ss_share_free(&sh);
    /* a measured period but a zero fetch and step: the steady-state period is 0, so the
     * scenario keeps the trace's stretch */
    const double T[1] = {0.01};
    assert_int_equal(ss_share_build(&sh, 1, T, T, NULL, NULL, pool, cores, zero, W, zero, zero, 0.01, 0.0, NULL), SS_OK);
    assert_true(isfinite(sh.s0[0]) && sh.s0[0] >= 1.0);
    sc.workers = (int[]){4096};
    sc.fetch_cpu = sh.fetch_cpu;
    sc.fetch_med = sh.fetch_med;
    assert_int_equal(ss_share_solve(&sh, &sc, &s1, &delta), SS_OK);
    assert_true(s1 == sh.s0[0] && delta == 0.0);
    ss_share_free(&sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stretch_closed_forms),
        cmocka_unit_test(test_solve),
        cmocka_unit_test(test_others),
        cmocka_unit_test(test_delivery_rows),
        cmocka_unit_test(test_delivery_ready),
        cmocka_unit_test(test_large_pool),
        cmocka_unit_test(test_large_pool_gang),
        cmocka_unit_test(test_synchronous),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_measured_waits),
        cmocka_unit_test(test_start_window),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
