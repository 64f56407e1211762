/* unit_stats.c - summary partials (sim/ss_stats.h): hand-computed mean and sample std of small
 * series, the effective-delay count, empty partials, and merging the partials of split series in a
 * fixed order equals (to 1e-12) the partial of the whole series and is bit-reproducible. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_statistics_double.h>

#include "ss_stats.h"

static void near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol)) fail_msg("%s: got %.17g, expected %.17g", what, got, want);
}

/* relative closeness for larger magnitudes */
static void close_rel(double got, double want, const char *what)
{
    double tol = 1e-12 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
    near(got, want, tol, what);
}

/* Partial of n values: metric m gets base[i] * (m + 1) + m, so that every metric differs. */
static void partial_of(ss_partial *p, const double *base, long n, double thr)
{
    double *s[SS_NMETRICS];
    for (int m = 0; m < SS_NMETRICS; m++) {
        s[m] = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
        assert_non_null(s[m]);
        for (long i = 0; i < n; i++) s[m][i] = base[i] * (m + 1) + m;
    }
    ss_partial_of_series(p, s, n, thr);
    for (int m = 0; m < SS_NMETRICS; m++) free(s[m]);
}

/* {1, 2, 3, 4}: mean 2.5, deviations -1.5 -0.5 0.5 1.5 -> m2 = 2.25 + 0.25 + 0.25 + 2.25 = 5,
 * sample variance 5/3, std sqrt(5/3). Metric m holds (m+1) x + m: mean (m+1) 2.5 + m,
 * m2 (m+1)^2 5, std (m+1) sqrt(5/3). Delay (metric 2) holds 3x + 2 = {5, 8, 11, 14}: with
 * threshold 8, only 11 and 14 are above (8 itself is not) -> eff 2. */
static void test_hand_computed(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3, 4};
    ss_partial p;
    partial_of(&p, x, 4, 8.0);
    near(p.n, 4, 0, "n");
    for (int m = 0; m < SS_NMETRICS; m++) {
        near(p.mean[m], (m + 1) * 2.5 + m, 1e-12, "mean");
        near(p.m2[m], (m + 1) * (m + 1) * 5.0, 1e-12, "m2");
        near(ss_partial_std(&p, m), (m + 1) * sqrt(5.0 / 3.0), 1e-12, "std");
    }
    near(p.eff, 2, 0, "eff");
}

/* {0.5, 0.25, 0.75} in the delay metric: mean 0.5, m2 0.0625 + 0.0625 = 0.125, var 0.0625,
 * std 0.25; threshold 0.030 -> all 3 above. Constant series {2, 2}: std 0. One value: NaN. */
static void test_small_series(void **state)
{
    (void)state;
    double v[] = {0.5, 0.25, 0.75}, c[] = {2, 2};
    double *s[SS_NMETRICS];
    for (int m = 0; m < SS_NMETRICS; m++) s[m] = v;
    ss_partial p;
    ss_partial_of_series(&p, s, 3, 0.030);
    near(p.mean[SS_M_DELAY], 0.5, 1e-15, "mean");
    near(p.m2[SS_M_DELAY], 0.125, 1e-15, "m2");
    near(ss_partial_std(&p, SS_M_DELAY), 0.25, 1e-15, "std");
    near(p.eff, 3, 0, "eff");

    for (int m = 0; m < SS_NMETRICS; m++) s[m] = c;
    ss_partial_of_series(&p, s, 2, 0.030);
    near(p.mean[SS_M_ITER], 2.0, 0, "constant mean");
    near(ss_partial_std(&p, SS_M_ITER), 0.0, 0, "constant std");

    ss_partial_of_series(&p, s, 1, 5.0);
    near(p.n, 1, 0, "n of one");
    near(p.mean[SS_M_STALL], 2.0, 0, "mean of one");
    near(p.m2[SS_M_STALL], 0.0, 0, "m2 of one");
    near(p.eff, 0, 0, "eff of one (2 is not above 5)");
    assert_true(isnan(ss_partial_std(&p, SS_M_STALL)));
}

/* Empty partials: n = 0 is all zeros; std is NaN; merging an empty partial changes nothing
 * (bit for bit), and merging into an empty one copies. */
static void test_empty(void **state)
{
    (void)state;
    ss_partial e, z, p, q;
    memset(&e, 0x55, sizeof e); /* garbage that _of_series must overwrite */
    partial_of(&e, NULL, 0, 0.0);
    ss_partial_zero(&z);
    assert_memory_equal(&e, &z, sizeof z);
    near(e.n, 0, 0, "n");
    assert_true(isnan(ss_partial_std(&e, SS_M_ITER)));

    const double x[] = {0.125, 3.5, -1.0, 7.25, 2.0};
    partial_of(&p, x, 5, 1.0);
    q = p;
    ss_partial_merge(&q, &e);
    assert_memory_equal(&q, &p, sizeof p);

    ss_partial acc;
    ss_partial_zero(&acc);
    ss_partial_merge(&acc, &p);
    assert_memory_equal(&acc, &p, sizeof p);

    ss_partial ee = e;
    ss_partial_merge(&ee, &z);
    assert_memory_equal(&ee, &z, sizeof z);
}

/* Merging two one-value partials {1} and {3}: n 2, mean 2, m2 = 0 + 0 + (3 - 1)^2 * 1*1/2 = 2,
 * std sqrt(2). */
static void test_merge_hand(void **state)
{
    (void)state;
    const double a[] = {1}, b[] = {3};
    ss_partial pa, pb;
    partial_of(&pa, a, 1, 2.0);
    partial_of(&pb, b, 1, 2.0);
    ss_partial_merge(&pa, &pb);
    near(pa.n, 2, 0, "n");
    near(pa.mean[SS_M_ITER], 2.0, 1e-15, "mean");
    near(pa.m2[SS_M_ITER], 2.0, 1e-15, "m2");
    near(ss_partial_std(&pa, SS_M_ITER), sqrt(2.0), 1e-15, "std");
    /* delay metric holds 3x + 2: {5, 11}, both above 2 */
    near(pa.eff, 2, 0, "eff");
}

/* a deterministic series of doubles with an offset (to stress the update) */
static double *make_series(long n)
{
    double *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    uint64_t s = 88172645463325252ull;
    for (long i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = 100.0 + (double)(s >> 11) / 9007199254740992.0 * (i % 7 == 0 ? 10.0 : 1.0);
    }
    return x;
}

static void merge_blocks(ss_partial *acc, const double *x, long n, long block, double thr)
{
    ss_partial_zero(acc);
    for (long i = 0; i < n; i += block) {
        ss_partial b;
        partial_of(&b, x + i, (n - i < block ? n - i : block), thr);
        ss_partial_merge(acc, &b);
    }
}

static void assert_partial_close(const ss_partial *a, const ss_partial *b)
{
    near(a->n, b->n, 0, "n");
    near(a->eff, b->eff, 0, "eff");
    for (int m = 0; m < SS_NMETRICS; m++) {
        close_rel(a->mean[m], b->mean[m], "mean");
        double tol = 1e-12 * (b->m2[m] > 1.0 ? b->m2[m] : 1.0);
        near(a->m2[m], b->m2[m], tol, "m2");
        close_rel(ss_partial_std(a, m), ss_partial_std(b, m), "std");
    }
}

/* Split series: blocks of 1, 2, 3, 7, 64, 999, 1000 and the whole, and uneven two-way splits,
 * merged in order equal the partial of the whole series. */
static void test_merge_equals_whole(void **state)
{
    (void)state;
    const long n = 1000;
    double *x = make_series(n);
    double dthr = 3 * 100.5 + 2; /* the delay metric is 3x + 2: about half of it exceeds this */
    ss_partial whole;
    partial_of(&whole, x, n, dthr);
    assert_true(whole.eff > 0 && whole.eff < n);
    const long blocks[] = {1, 2, 3, 7, 64, 999, 1000, 5000};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        ss_partial acc;
        merge_blocks(&acc, x, n, blocks[i], dthr);
        assert_partial_close(&acc, &whole);
    }
    for (long cut = 1; cut < n; cut += 111) {
        ss_partial a, b;
        partial_of(&a, x, cut, dthr);
        partial_of(&b, x + cut, n - cut, dthr);
        ss_partial_merge(&a, &b);
        assert_partial_close(&a, &whole);
    }
    free(x);
}

/* The merge order is fixed: the same blocks merged in the same order give the same bits every
 * time, with empty partials anywhere in between; a tree order ((A+B)+(C+D)) agrees to 1e-12. */
static void test_fixed_order(void **state)
{
    (void)state;
    const long n = 800;
    double *x = make_series(n);
    double thr = 3 * 100.5 + 2;
    ss_partial blk[4], empty;
    for (int i = 0; i < 4; i++) partial_of(&blk[i], x + i * 200, 200, thr);
    ss_partial_zero(&empty);

    ss_partial a1, a2;
    ss_partial_zero(&a1);
    ss_partial_zero(&a2);
    for (int i = 0; i < 4; i++) ss_partial_merge(&a1, &blk[i]);
    for (int i = 0; i < 4; i++) {
        ss_partial_merge(&a2, &empty);
        ss_partial_merge(&a2, &blk[i]);
        ss_partial_merge(&a2, &empty);
    }
    assert_memory_equal(&a1, &a2, sizeof a1);

    ss_partial l = blk[0], r = blk[2];
    ss_partial_merge(&l, &blk[1]);
    ss_partial_merge(&r, &blk[3]);
    ss_partial_merge(&l, &r);
    assert_partial_close(&l, &a1);

    ss_partial whole;
    partial_of(&whole, x, n, thr);
    assert_partial_close(&a1, &whole);
    free(x);
}

/* The partial's means and squared deviations are GSL's (gsl_stats_mean, and
 * gsl_stats_variance_m times n - 1) bit for bit: series of several lengths and magnitudes,
 * with ties, zeros and negative values. */
static void test_same_as_gsl(void **state)
{
    (void)state;
    static const long lengths[] = {1, 2, 3, 7, 100, 2048};
    double *buf = malloc(SS_NMETRICS * 2048 * sizeof *buf);
    assert_non_null(buf);
    double *series[SS_NMETRICS];
    uint64_t x = 99;
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
        const long n = lengths[l];
        for (int m = 0; m < SS_NMETRICS; m++) {
            series[m] = buf + (size_t)m * 2048;
            for (long i = 0; i < n; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                double u = (double)(x >> 11) / 9007199254740992.0;
                series[m][i] = m == 0 ? 1e3 + u : m == 1 ? u * 1e-6 : m == 2 ? (i % 3 ? 0.25 : 0.0)
                             : m == 3 ? u - 0.5 : m == 4 ? 1e9 * u : 100.0 * u * u;
            }
        }
        ss_partial p;
        ss_partial_of_series(&p, series, n, 0.5);
        for (int m = 0; m < SS_NMETRICS; m++) {
            double mean = gsl_stats_mean(series[m], 1, (size_t)n);
            double m2 = n > 1 ? gsl_stats_variance_m(series[m], 1, (size_t)n, mean) * (double)(n - 1) : 0.0;
            if (memcmp(&mean, &p.mean[m], sizeof mean) || memcmp(&m2, &p.m2[m], sizeof m2))
                fail_msg("n=%ld metric %d: mean %.17g m2 %.17g, GSL %.17g %.17g", n, m, p.mean[m], p.m2[m], mean, m2);
        }
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_small_series),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_merge_hand),
        cmocka_unit_test(test_merge_equals_whole),
        cmocka_unit_test(test_fixed_order),
        cmocka_unit_test(test_same_as_gsl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
