/* unit_shares.c - the shares of a node's shared slab reads (ss_nodeslab_shares): hand-worked
 * water-filling cases, and on random costs the invariants (contiguous shares covering every
 * row once; no rank with a share ends above the level of any other rank, to a row). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ss_nodeslab.h"

static void shares(const double *cost, int k, long n, long *bound)
{
    double scratch[64];
    ss_nodeslab_shares(cost, k, n, bound, scratch);
}

static void test_hand_worked(void **state)
{
    (void)state;
    long b[5];
    /* equal costs: equal shares */
    shares((double[]){0, 0}, 2, 10, b);
    assert_int_equal(b[0], 0), assert_int_equal(b[1], 5), assert_int_equal(b[2], 10);
    /* rank 0 is busy for 4 rows: level (10 + 4) / 2 = 7, shares 3 and 7 */
    shares((double[]){4, 0}, 2, 10, b);
    assert_int_equal(b[1], 3), assert_int_equal(b[2], 10);
    /* rank 0 busier than the whole read: it reads nothing */
    shares((double[]){20, 0}, 2, 10, b);
    assert_int_equal(b[1], 0), assert_int_equal(b[2], 10);
    /* costs 1, 2, 3 and 3 rows: level 3, shares 2, 1, 0 */
    shares((double[]){1, 2, 3}, 3, 3, b);
    assert_int_equal(b[1], 2), assert_int_equal(b[2], 3), assert_int_equal(b[3], 3);
    /* the busy rank in the middle: costs 0, 6, 0 and 12 rows: level 6, shares 6, 0, 6 */
    shares((double[]){0, 6, 0}, 3, 12, b);
    assert_int_equal(b[1], 6), assert_int_equal(b[2], 6), assert_int_equal(b[3], 12);
    /* no rows */
    shares((double[]){1, 0, 2, 5}, 4, 0, b);
    for (int r = 0; r <= 4; r++) assert_int_equal(b[r], 0);
}

static void test_random_invariants(void **state)
{
    (void)state;
    srand(7);
    for (int trial = 0; trial < 2000; trial++) {
        int k = 1 + rand() % 40;
        long n = rand() % 5000;
        double cost[64];
        long b[65];
        for (int r = 0; r < k; r++) cost[r] = rand() % 3 ? (double)(rand() % 4000) / 7.0 : 0.0;
        shares(cost, k, n, b);
        assert_int_equal(b[0], 0);
        assert_int_equal(b[k], n);
        double lo = INFINITY, hi = -INFINITY; /* the lowest end of any rank; the highest of a reading rank */
        for (int r = 0; r < k; r++) {
            assert_true(b[r + 1] >= b[r]);
            double end = cost[r] + (double)(b[r + 1] - b[r]);
            if (end < lo) lo = end;
            if (b[r + 1] > b[r] && end > hi) hi = end;
        }
        /* rounding moves each bound by at most half a row: two rows of slack */
        assert_true(hi <= lo + 2.0 || n == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked),
        cmocka_unit_test(test_random_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
