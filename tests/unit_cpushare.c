/* unit_cpushare.c - CPU sharing (ss_cpushare.h): the stretch of a pool against closed
 * forms worked by hand, and the scenario solve: its own load gives the trace's stretch
 * back, more workers give more. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ss_cpushare.h"

/* q^3 - 3 q^2 + 1/2 on (0, 1) by bisection: it falls from 1/2 to -3/2 there */
static double cubic_root(void)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; i++) {
        double m = (lo + hi) / 2;
        if (m * m * m - 3 * m * m + 0.5 > 0) lo = m;
        else hi = m;
    }
    return (lo + hi) / 2;
}

static void test_stretch_closed_forms(void **state)
{
    (void)state;
    /* no more threads than cores: no contention */
    assert_true(ss_share_stretch((double[]){0.9, 0.9}, 2, 2) == 1.0);
    assert_true(ss_share_stretch((double[]){0.5}, 1, 4) == 1.0);
    /* two threads of 1/4 on one core: p = s/4 each; s = E[N] / P(N >= 1) gives
     * s^2 - 8 s + 8 = 0, s = 4 - 2 sqrt(2) */
    assert_float_equal(ss_share_stretch((double[]){0.25, 0.25}, 2, 1), 4 - 2 * sqrt(2), 1e-12);
    /* three threads of 1/2 on two cores: p = s/2, q = 1 - p; s = 3p / (2 - 2q^3 - 3pq^2)
     * gives q^3 - 3q^2 + 1/2 = 0, s = 2 (1 - q) */
    assert_float_equal(ss_share_stretch((double[]){0.5, 0.5, 0.5}, 3, 2), 2 * (1 - cubic_root()), 1e-12);
    /* threads that would run all the time alone: always all runnable, s = n / cores */
    assert_float_equal(ss_share_stretch((double[]){1, 1, 1, 1}, 4, 2), 2.0, 1e-12);
    /* no demand: no stretch */
    assert_float_equal(ss_share_stretch((double[]){0, 0, 0}, 3, 1), 1.0, 1e-12);
}

/* Two GPUs on one pool of 2 cores, 1 worker each (the shape of datasets/pytorch-cnn) */
static ss_share two_gpus(void)
{
    ss_share sh;
    const double c[2] = {0.012, 0.012}, L[2] = {0.007, 0.007}, f[2] = {0.047, 0.047}, gap[2] = {0, 0},
                 d[2] = {0.0015, 0.0015};
    const int pool[2] = {0, 0}, cores[2] = {2, 2}, W[2] = {1, 1};
    assert_int_equal(ss_share_build(&sh, 2, c, L, pool, cores, f, W, gap, d, 0.048, 0.009), SS_OK);
    return sh;
}

static void test_solve(void **state)
{
    (void)state;
    ss_share sh = two_gpus();
    assert_int_equal(sh.pools, 1);
    /* the trace's stretch: 2 training processes of 0.007/0.048 and 2 workers of 0.012/0.048 */
    assert_float_equal(sh.s0[0], ss_share_stretch((double[]){0.007 / 0.048, 0.012 / 0.048, 0.007 / 0.048, 0.012 / 0.048}, 4, 2),
                       1e-15);
    assert_true(sh.s0[0] > 1.0 && sh.s0[0] < 1.2);
    /* its steady-state period: the loader, f / W */
    assert_float_equal(sh.a0, 0.047, 1e-15);
    /* the trace's own loaders: the trace's stretch, no change of the step */
    double s1, delta;
    const double gap[2] = {0, 0}, d[2] = {0.0015, 0.0015};
    ss_share_scenario same = {(int[]){1, 1}, gap, d, 1.0, 1.0, -1};
    assert_int_equal(ss_share_solve(&sh, &same, &s1, &delta), SS_OK);
    assert_float_equal(s1, sh.s0[0], 1e-12);
    assert_float_equal(delta, 0.0, 1e-12);
    /* 4 workers: more threads, a shorter period, more contention; the step grows by
     * L (s1 - s0) */
    ss_share_scenario four = {(int[]){4, 4}, gap, d, 1.0, 1.0, -1};
    assert_int_equal(ss_share_solve(&sh, &four, &s1, &delta), SS_OK);
    assert_true(s1 > sh.s0[0] + 0.2);
    assert_float_equal(delta, 0.007 * (s1 - sh.s0[0]), 1e-15);
    /* s1 is the stretch at its own period T = 0.048 * A(s1) / A(s0) (the fixed point) */
    double c0 = 0.012 * sh.s0[0], f = c0 * s1 / sh.s0[0] + (0.047 - c0);
    double step = 0.009 + delta + 0.0015, A = f / 4 > step ? f / 4 : step, T = 0.048 * A / sh.a0;
    double u[10] = {0.007 / T, 0.012 / (4 * T), 0.012 / (4 * T), 0.012 / (4 * T), 0.012 / (4 * T),
                    0.007 / T, 0.012 / (4 * T), 0.012 / (4 * T), 0.012 / (4 * T), 0.012 / (4 * T)};
    assert_float_equal(ss_share_stretch(u, 10, 2), s1, 1e-9);
    ss_share_free(&sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stretch_closed_forms),
        cmocka_unit_test(test_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
