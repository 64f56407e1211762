/* unit_storeshare.c - storage sharing (ss_storeshare.h): the slowdown of a read and the
 * factor on a scenario's reads against cases worked by hand (more workers on storage that
 * serves one read at a time gain nothing; on storage of N = 2, two workers cut the period
 * by a quarter; a loader that gets ahead; fewer workers read faster), and its limits. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ss_storeshare.h"

static void test_slowdown(void **state)
{
    (void)state;
    /* n reads in flight on average from M readers: a read shares the storage with
     * n (M - 1) / M others on average */
    assert_float_equal(ss_store_slowdown(0.5, 2, 2), 1.125, 1e-15); /* 1 + 0.5 / 2 / 2 */
    assert_float_equal(ss_store_slowdown(3.0, 3, 2), 2.0, 1e-15);   /* all 3 always reading: 1 + 2/2 */
    assert_float_equal(ss_store_slowdown(0.9, 1, 2), 1.0, 0);       /* one reader never waits for another */
    assert_float_equal(ss_store_slowdown(9.0, 9, 0), 1.0, 0);       /* no limit */
    assert_float_equal(ss_store_slowdown(5.0, 3, 2), 2.0, 1e-15);   /* no more in flight than readers */
}

/* One GPU whose trace read 0.1 s per batch with one worker (no CPU part, gap or delivery),
 * at a period of 0.1 s with a 0.05 s step: one read in flight. */
static const int one_worker[1] = {1};
static const double zero[1] = {0.0}, trace_fetch[1] = {0.1};
static const ss_store_load trace1 = {1, one_worker, zero, zero, zero, trace_fetch, 1.0, 1.0, 0.0};

static double factor_with(int workers, double parallel, double *n1)
{
    const int w[1] = {workers};
    const ss_store_load scn = {1, w, zero, zero, zero, trace_fetch, 1.0, 1.0, 0.0};
    double n0 = -1.0;
    double rho = ss_store_factor(&trace1, &scn, parallel, 0.1, 0.05, &n0, n1);
    assert_float_equal(n0, 1.0, 1e-15);
    return rho;
}

static void test_factor_by_hand(void **state)
{
    (void)state;
    double n1;
    /* 2 workers, storage that serves one read at a time (N = 1): both read, each twice as
     * long (sigma(2) = 2); the period (0.1 * 2 / 2) does not move */
    assert_float_equal(factor_with(2, 1.0, &n1), 2.0, 1e-12);
    assert_float_equal(n1, 2.0, 1e-12);
    /* N = 2: sigma(2) = 1.5, the period 0.075 s */
    assert_float_equal(factor_with(2, 2.0, &n1), 1.5, 1e-12);
    /* 8 workers, N = 4: were the loader the bound, 8 reads at sigma = 1 + 7/4 would give a
     * period of 0.1 * 2.75 / 8 < 0.05: the step bounds it, T = 0.05, n1 = 0.1 rho / 0.05 =
     * 2 rho and rho = 1 + 2 rho * 7 / (8 * 4): rho = 16/9, n1 = 32/9 */
    assert_float_equal(factor_with(8, 4.0, &n1), 16.0 / 9.0, 1e-12);
    assert_float_equal(n1, 32.0 / 9.0, 1e-12);
    /* the trace's own loader: nothing changes */
    assert_float_equal(factor_with(1, 2.0, &n1), 1.0, 1e-12);
    /* no limit */
    assert_float_equal(factor_with(8, 0.0, &n1), 1.0, 0);
}

static void test_fewer_workers_read_faster(void **state)
{
    (void)state;
    /* a trace with 2 workers on storage that serves one read at a time: each read took
     * 0.2 s (two in flight, sigma = 2), period 0.1 s. With 1 worker one read is in flight:
     * each takes half as long, and the period stays 0.1 s */
    const int w2[1] = {2}, w1[1] = {1};
    const double f[1] = {0.2};
    const ss_store_load trace = {1, w2, zero, zero, zero, f, 1.0, 1.0, 0.0};
    const ss_store_load scn = {1, w1, zero, zero, zero, f, 1.0, 1.0, 0.0};
    double n0, n1;
    assert_float_equal(ss_store_factor(&trace, &scn, 1.0, 0.1, 0.05, &n0, &n1), 0.5, 1e-12);
    assert_float_equal(n0, 2.0, 1e-12);
    assert_float_equal(n1, 1.0, 1e-12);
    /* storage twice as fast (fetch_scale 0.5) with the trace's 2 workers (a 0.02 s step):
     * still two reads in flight (rho = 1), each half as long, the period 0.05 s */
    const ss_store_load fast = {1, w2, zero, zero, zero, f, 0.5, 1.0, 0.0};
    assert_float_equal(ss_store_factor(&trace, &fast, 1.0, 0.1, 0.02, NULL, &n1), 1.0, 1e-12);
    assert_float_equal(n1, 2.0, 1e-12);
}

static void test_cpu_part_and_gpus(void **state)
{
    (void)state;
    /* two GPUs, each fetch 0.1 s of which 0.04 s CPU (not storage): storage parts 0.06 s,
     * period 0.1 s, so n0 = 1.2 from 2 readers, sigma0 = 1 + 1.2 / (2 * 2) = 1.3 (N = 2).
     * With 2 workers each (4 readers, loader-bound): the fetch 0.04 + 0.06 rho, period
     * (0.04 + 0.06 rho) / 2, n1 = 4 * 0.06 rho / (0.04 + 0.06 rho); rho = (1 + n1 * 3 / (4 *
     * 2)) / 1.3, solved here by fixed-point iteration */
    const int w1[2] = {1, 1}, w2[2] = {2, 2};
    const double z[2] = {0, 0}, cpu[2] = {0.04, 0.04}, f[2] = {0.1, 0.1};
    const ss_store_load trace = {2, w1, z, z, cpu, f, 1.0, 1.0, 0.0};
    const ss_store_load scn = {2, w2, z, z, cpu, f, 1.0, 1.0, 0.0};
    double r = 1.0;
    for (int i = 0; i < 200; i++) {
        double n1 = 4 * 0.06 * r / (0.04 + 0.06 * r);
        r = (1 + n1 * 3 / 8) / 1.3;
    }
    double n0;
    assert_float_equal(ss_store_factor(&trace, &scn, 2.0, 0.1, 0.02, &n0, NULL), r, 1e-12);
    assert_float_equal(n0, 1.2, 1e-12);
}

/* A load whose loaders keep ahead, the period the step and a row's largest delivery
 * (delivery_row) in place of the GPU's: 1 GPU, 2 workers, fetches of 0.1 s of storage
 * (loader period 0.05 s), a 0.06 s step, a 0.001 s median delivery but 0.01 s a row's
 * largest; the trace's period T0 = 0.07 s = A0 = 0.06 + 0.01. Storage twice as fast with
 * deliveries twice as long (F = 2): A1 = 0.06 + 0.02 = 0.08 s, T1 = T0 A1 / A0 = 0.08 s, so
 * n1 = 0.05 rho / 0.08 and, with N = 1 and 2 readers (sigma = 1 + n / 2), rho = (1 + 0.3125
 * rho) / sigma0, sigma0 = 1 + (0.1 / 0.07) / 2: rho = 1 / (sigma0 - 0.3125). With each GPU's
 * 0.001 s instead, A1 = A0 and rho = 1 / (sigma0 - 0.05 / 0.14). */
static void test_delivery_row(void **state)
{
    (void)state;
    const int w2[1] = {2};
    const double f[1] = {0.1}, d[1] = {0.001};
    const double sigma0 = 1.0 + (0.1 / 0.07) / 2.0;
    const ss_store_load trace = {1, w2, zero, d, zero, f, 1.0, 1.0, 0.01};
    const ss_store_load scn = {1, w2, zero, d, zero, f, 0.5, 1.0, 0.02};
    assert_float_equal(ss_store_factor(&trace, &scn, 1.0, 0.07, 0.06, NULL, NULL), 1.0 / (sigma0 - 0.3125), 1e-12);
    const ss_store_load trace_med = {1, w2, zero, d, zero, f, 1.0, 1.0, 0.0};
    const ss_store_load scn_med = {1, w2, zero, d, zero, f, 0.5, 1.0, 0.0};
    assert_float_equal(ss_store_factor(&trace_med, &scn_med, 1.0, 0.07, 0.06, NULL, NULL),
                       1.0 / (sigma0 - 0.05 / 0.14), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slowdown),
        cmocka_unit_test(test_factor_by_hand),
        cmocka_unit_test(test_delivery_row),
        cmocka_unit_test(test_fewer_workers_read_faster),
        cmocka_unit_test(test_cpu_part_and_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
