/* unit_independent.c - the independent replay (MODELS-independent.md) on hand-computed rows: every branch of the
 * new-stall rule of step 4, every start and fetch alignment, 1, 2 and 3 GPUs, and one tiny sweep
 * whose summary (means, sample std, effective delay, change against the measured run) is worked out
 * by hand. Numbers are sums of powers of two so that the arithmetic is exact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ss_model_independent.h"
#include "ss_row.h"
#include "test_util.h"

#define EPS 1e-12
#define FLOOR 0.000002 /* default stall_floor */
#define SENS 0.01      /* default stall_sensitivity */

static const ssi_params defaults = {FLOOR, SENS};

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= EPS)) fail_msg("%s: got %.17g, expected %.17g", what, got, want);
}

typedef struct {
    ss_step step;
    double stall[8];
} result;

/* Prepares the row (with the median) and replays it. */
static result replay(int G, const double *fs, const double *ft, const double *it, const double *st,
                     ss_align fa, ss_align sa, const ssi_params *p)
{
    double done[8], scratch[8];
    ss_row row = {.gpus = G, .fetch_start = fs, .fetch_time = ft, .iteration_time = it, .stall_time = st,
                  .done = done};
    ss_row_prepare(&row, 1, scratch);
    for (int g = 0; g < G; g++) near(done[g], fs[g] + ft[g], "done = fetch_start + fetch_time");
    result r;
    memset(&r, 0, sizeof r);
    ssi_replay_row(&row, fa, sa, p, r.stall, &r.step);
    return r;
}

static void check_step(const result *r, double iter, double stall, double delay, double start_diff,
                       double fetch_diff)
{
    near(r->step.iter_time, iter, "iteration time");
    near(r->step.stall, stall, "stall");
    near(r->step.delay, delay, "delay");
    near(r->step.start_diff, start_diff, "start_diff");
    near(r->step.fetch_diff, fetch_diff, "fetch_diff");
}

static void check_stalls(const result *r, int G, const double *want)
{
    for (int g = 0; g < G; g++) {
        char what[64];
        snprintf(what, sizeof what, "new stall of gpu %d", g);
        near(r->stall[g], want[g], what);
    }
}

/* ---------------------------------------------------------------- step 4, branch by branch */

/* Earlier, going below 0 -> stall_floor. 2 GPUs, fetch_align=min, start_align=none.
 * fs = {0, 0}, ft = {1.0, 0.5}: f' = 0.5; done = {1.0, 0.5}, done' = {0.5, 0.5}.
 * gpu0: gap = 0.5 earlier, 0.25 - 0.5 = -0.25 < 0 -> floor 0.000002.
 * gpu1: equal -> 0.5 unchanged.
 * measured max stall 0.5, max iteration time 1.5 -> max pure = 1.0.
 * iteration' = 0.5 + 1.0 = 1.5; stall' = 0.5; delay' = 0.5 - 0.000002; start_diff = 0 (starts
 * as measured, all 0); fetch_diff = 0 (aligned). */
static void test_earlier_below_zero_floor(void **state)
{
    (void)state;
    const double fs[] = {0, 0}, ft[] = {1.0, 0.5}, it[] = {1.5, 1.25}, st[] = {0.25, 0.5};
    result r = replay(2, fs, ft, it, st, SS_ALIGN_MIN, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 2, (const double[]){FLOOR, 0.5});
    check_step(&r, 1.5, 0.5, 0.5 - FLOOR, 0.0, 0.0);
    assert_int_equal(r.step.straggler, 1);

    /* a floor of our own is used: 0.125 */
    const ssi_params p = {0.125, SENS};
    r = replay(2, fs, ft, it, st, SS_ALIGN_MIN, SS_ALIGN_NONE, &p);
    check_stalls(&r, 2, (const double[]){0.125, 0.5});
    check_step(&r, 1.5, 0.5, 0.375, 0.0, 0.0);
}

/* Earlier without going below 0: the same row with st = {0.75, 0.5}.
 * gpu0: 0.75 - 0.5 = 0.25; gpu1 equal 0.5.
 * measured max stall 0.75, max iteration 1.5 -> pure 0.75; iteration' = 0.5 + 0.75 = 1.25;
 * stall' 0.5; delay' 0.25.
 * Exactly 0 is not below 0: st = {0.5, 0.5} gives gpu0 0.5 - 0.5 = 0 (not the floor). */
static void test_earlier_not_below_zero(void **state)
{
    (void)state;
    const double fs[] = {0, 0}, ft[] = {1.0, 0.5}, it[] = {1.5, 1.25};
    const double st[] = {0.75, 0.5};
    result r = replay(2, fs, ft, it, st, SS_ALIGN_MIN, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 2, (const double[]){0.25, 0.5});
    check_step(&r, 1.25, 0.5, 0.25, 0.0, 0.0);

    /* gap 0.5 exactly consumes st 0.5: 0, pure = 1.5 - 0.5 = 1.0, iteration' = 0.5 + 1.0 */
    const double st0[] = {0.5, 0.5};
    r = replay(2, fs, ft, it, st0, SS_ALIGN_MIN, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 2, (const double[]){0.0, 0.5});
    check_step(&r, 1.5, 0.5, 0.5, 0.0, 0.0);
}

/* Later with stall above stall_sensitivity: fetch_align=max.
 * fs = {0, 0}, ft = {0.5, 1.0}: f' = 1.0; done = {0.5, 1.0}, done' = {1.0, 1.0}.
 * gpu0: gap = 0.5 later, st 0.25 > 0.01 -> 0.25 + 0.5 = 0.75; gpu1 equal 0.125.
 * measured max stall 0.25, max iteration 1.0 -> pure 0.75; iteration' = 0.75 + 0.75 = 1.5;
 * stall' 0.75, delay' 0.625. */
static void test_later_above_sensitivity(void **state)
{
    (void)state;
    const double fs[] = {0, 0}, ft[] = {0.5, 1.0}, it[] = {1.0, 1.0}, st[] = {0.25, 0.125};
    result r = replay(2, fs, ft, it, st, SS_ALIGN_MAX, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 2, (const double[]){0.75, 0.125});
    check_step(&r, 1.5, 0.75, 0.625, 0.0, 0.0);
    assert_int_equal(r.step.straggler, 0);
}

/* Later with stall at or below stall_sensitivity: unchanged. 3 GPUs, fetch_align=max.
 * fs = 0, ft = {0.5, 0.5, 1.0}: f' = 1.0; gpu0 and gpu1 0.5 later, gpu2 equal.
 * gpu0: st = 0.01 = sensitivity (not above) -> 0.01; gpu1: 0.0078125 < 0.01 -> 0.0078125;
 * gpu2: equal -> 0.25. max measured stall 0.25, max iteration 1.0 -> pure 0.75;
 * iteration' = 0.25 + 0.75 = 1.0; stall' 0.25; delay' 0.25 - 0.0078125 = 0.2421875. */
static void test_later_at_or_below_sensitivity(void **state)
{
    (void)state;
    const double fs[] = {0, 0, 0}, ft[] = {0.5, 0.5, 1.0}, it[] = {1.0, 1.0, 1.0};
    const double st[] = {0.01, 0.0078125, 0.25};
    result r = replay(3, fs, ft, it, st, SS_ALIGN_MAX, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, (const double[]){0.01, 0.0078125, 0.25});
    check_step(&r, 1.0, 0.25, 0.2421875, 0.0, 0.0);

    /* with stall_sensitivity = 0.25 of our own: st = {0.25, 0.5, 0.125}
     * gpu0: 0.25 is not above 0.25 -> 0.25; gpu1: 0.5 > 0.25 -> 0.5 + 0.5 = 1.0; gpu2 equal 0.125.
     * max measured stall 0.5 -> pure 0.5; iteration' = 1.0 + 0.5 = 1.5; delay' 1.0 - 0.125. */
    const ssi_params p = {FLOOR, 0.25};
    const double st2[] = {0.25, 0.5, 0.125};
    r = replay(3, fs, ft, it, st2, SS_ALIGN_MAX, SS_ALIGN_NONE, &p);
    check_stalls(&r, 3, (const double[]){0.25, 1.0, 0.125});
    check_step(&r, 1.5, 1.0, 0.875, 0.0, 0.0);
}

/* Equal: done = done' leaves every stall as measured, including a zero stall (not the floor).
 * fs = {0.25, 0.5}, ft = {0.5, 0.5}: fetch_align=min/avg/max all give 0.5 -> done' = done.
 * max measured stall 0.5, max iteration 1.5 -> pure 1.0; iteration' = 0.5 + 1.0 = 1.5;
 * start_diff = 0.5 - 0.25 = 0.25 (starts as measured). */
static void test_equal(void **state)
{
    (void)state;
    const double fs[] = {0.25, 0.5}, ft[] = {0.5, 0.5}, it[] = {1.5, 1.0}, st[] = {0.0, 0.5};
    const ss_align modes[] = {SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEDIAN, SS_ALIGN_MAX};
    for (int i = 0; i < 4; i++) {
        result r = replay(2, fs, ft, it, st, modes[i], SS_ALIGN_NONE, &defaults);
        check_stalls(&r, 2, st);
        check_step(&r, 1.5, 0.5, 0.5, 0.25, 0.0);
    }
}

/* ---------------------------------------------------------------- start alignments */

/* 3 GPUs, fetch_align=none. fs = {0, 0, 0.75}, ft = {0.5, 0.25, 0.5}, done = {0.5, 0.25, 1.25},
 * st = {0.125, 0.5, 1.0}, it = {1.5, 1.5, 2.0}: measured max stall 1.0, max iteration 2.0 ->
 * pure 1.0. Fetch not aligned: fetch_diff = 0.5 - 0.25 = 0.25 in every case.
 * none:  the measured row: iteration 2.0, stall 1.0, delay 1.0 - 0.125, start_diff 0.75.
 * min:   s' = 0 -> done' = {0.5, 0.25, 0.5}; gaps {0, 0, 0.75 earlier}
 *        -> {0.125, 0.5, 1.0 - 0.75 = 0.25}; stall 0.5, delay 0.375, iteration 1.5.
 * avg:   s' = 0.75 - (0.75 - 0)/2 = 0.375 -> done' = {0.875, 0.625, 0.875};
 *        gaps {0.375 later, 0.375 later, 0.375 earlier} -> {0.5, 0.875, 0.625};
 *        stall 0.875, delay 0.375, iteration 1.875.
 * mean:  s' = 0.75/3 = 0.25 -> done' = {0.75, 0.5, 0.75};
 *        gaps {0.25 later, 0.25 later, 0.5 earlier} -> {0.375, 0.75, 0.5};
 *        stall 0.75, delay 0.375, iteration 1.75.
 * Aligned starts: start_diff 0. */
static const double S_fs[] = {0, 0, 0.75}, S_ft[] = {0.5, 0.25, 0.5}, S_it[] = {1.5, 1.5, 2.0},
                    S_st[] = {0.125, 0.5, 1.0};

static void test_start_none(void **state)
{
    (void)state;
    result r = replay(3, S_fs, S_ft, S_it, S_st, SS_ALIGN_NONE, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, S_st);
    check_step(&r, 2.0, 1.0, 0.875, 0.75, 0.25);
    assert_int_equal(r.step.straggler, 2);
}

static void test_start_min(void **state)
{
    (void)state;
    result r = replay(3, S_fs, S_ft, S_it, S_st, SS_ALIGN_NONE, SS_ALIGN_MIN, &defaults);
    check_stalls(&r, 3, (const double[]){0.125, 0.5, 0.25});
    check_step(&r, 1.5, 0.5, 0.375, 0.0, 0.25);
    assert_int_equal(r.step.straggler, 1);
}

static void test_start_avg(void **state)
{
    (void)state;
    result r = replay(3, S_fs, S_ft, S_it, S_st, SS_ALIGN_NONE, SS_ALIGN_AVG, &defaults);
    check_stalls(&r, 3, (const double[]){0.5, 0.875, 0.625});
    check_step(&r, 1.875, 0.875, 0.375, 0.0, 0.25);
}

static void test_start_mean(void **state)
{
    (void)state;
    result r = replay(3, S_fs, S_ft, S_it, S_st, SS_ALIGN_NONE, SS_ALIGN_MEAN, &defaults);
    check_stalls(&r, 3, (const double[]){0.375, 0.75, 0.5});
    check_step(&r, 1.75, 0.75, 0.375, 0.0, 0.25);
}

/* avg of starts is the midpoint of min and max, not the mean: ss_align_start_of on {0, 0, 0.75}
 * gives min 0, avg 0.375, mean 0.25; on {1.0, 0.5} min 0.5, avg 0.75, mean 0.75. */
static void test_align_start_of(void **state)
{
    (void)state;
    const double v[] = {0, 0, 0.75}, w[] = {1.0, 0.5};
    near(ss_align_start_of(v, 3, SS_ALIGN_MIN), 0.0, "min");
    near(ss_align_start_of(v, 3, SS_ALIGN_AVG), 0.375, "avg");
    near(ss_align_start_of(v, 3, SS_ALIGN_MEAN), 0.25, "mean");
    near(ss_align_start_of(w, 2, SS_ALIGN_MIN), 0.5, "min");
    near(ss_align_start_of(w, 2, SS_ALIGN_AVG), 0.75, "avg");
    near(ss_align_start_of(w, 2, SS_ALIGN_MEAN), 0.75, "mean");
}

/* ---------------------------------------------------------------- fetch alignments */

/* 3 GPUs, start_align=none. fs = {0.5, 0, 0.25} (start_diff 0.5 in every case),
 * ft = {0.25, 0.5, 1.5}: min 0.25, mean 2.25/3 = 0.75, median 0.5, max 1.5.
 * s' = fs, so gap = done - done' = ft - f'.
 * st = {0.5, 0.25, 1.0}, it = {1.5, 1.5, 2.0}: max stall 1.0, max iteration 2.0 -> pure 1.0.
 * none:   measured: iteration 2.0, stall 1.0, delay 0.75, fetch_diff 1.25.
 * min:    gaps {0, 0.25, 1.25} earlier -> {0.5, 0.25 - 0.25 = 0, 1.0 - 1.25 < 0 -> floor};
 *         stall 0.5, delay 0.5, iteration 1.5.
 * avg:    gaps {-0.5, -0.25, 0.75} -> {0.5 + 0.5 = 1.0, 0.25 + 0.25 = 0.5, 1.0 - 0.75 = 0.25};
 *         stall 1.0, delay 0.75, iteration 2.0.
 * median: gaps {-0.25, 0, 1.0} -> {0.75, 0.25, 0}; stall 0.75, delay 0.75, iteration 1.75.
 * max:    gaps {-1.25, -1.0, 0} -> {1.75, 1.25, 1.0}; stall 1.75, delay 0.75, iteration 2.75.
 * Aligned fetches: fetch_diff 0. */
static const double F_fs[] = {0.5, 0, 0.25}, F_ft[] = {0.25, 0.5, 1.5}, F_it[] = {1.5, 1.5, 2.0},
                    F_st[] = {0.5, 0.25, 1.0};

static void test_fetch_none(void **state)
{
    (void)state;
    result r = replay(3, F_fs, F_ft, F_it, F_st, SS_ALIGN_NONE, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, F_st);
    check_step(&r, 2.0, 1.0, 0.75, 0.5, 1.25);
}

static void test_fetch_min(void **state)
{
    (void)state;
    result r = replay(3, F_fs, F_ft, F_it, F_st, SS_ALIGN_MIN, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, (const double[]){0.5, 0.0, FLOOR});
    check_step(&r, 1.5, 0.5, 0.5, 0.5, 0.0);
}

static void test_fetch_avg(void **state)
{
    (void)state;
    result r = replay(3, F_fs, F_ft, F_it, F_st, SS_ALIGN_AVG, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, (const double[]){1.0, 0.5, 0.25});
    check_step(&r, 2.0, 1.0, 0.75, 0.5, 0.0);
}

static void test_fetch_median(void **state)
{
    (void)state;
    result r = replay(3, F_fs, F_ft, F_it, F_st, SS_ALIGN_MEDIAN, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, (const double[]){0.75, 0.25, 0.0});
    check_step(&r, 1.75, 0.75, 0.75, 0.5, 0.0);
}

static void test_fetch_max(void **state)
{
    (void)state;
    result r = replay(3, F_fs, F_ft, F_it, F_st, SS_ALIGN_MAX, SS_ALIGN_NONE, &defaults);
    check_stalls(&r, 3, (const double[]){1.75, 1.25, 1.0});
    check_step(&r, 2.75, 1.75, 0.75, 0.5, 0.0);
}

/* Row statistics, and the median of an even count (mean of the middle two):
 * ft = {0.25, 0.75}: min 0.25, max 0.75, mean 0.5, median 0.5;
 * ft = {1.0, 0.25, 0.5, 0.125}: sorted {0.125, 0.25, 0.5, 1.0}: median (0.25 + 0.5)/2 = 0.375,
 * mean 1.875/4 = 0.46875, min 0.125, max 1.0; starts {0.5, 0, 0.25, 0.75}: min 0, max 0.75,
 * mean 1.5/4 = 0.375. */
static void test_row_prepare(void **state)
{
    (void)state;
    double done[4], scratch[4];
    const double fs2[] = {0, 0}, ft2[] = {0.25, 0.75}, z2[] = {0, 0};
    ss_row r2 = {.gpus = 2, .fetch_start = fs2, .fetch_time = ft2, .iteration_time = z2, .stall_time = z2,
                 .done = done};
    ss_row_prepare(&r2, 1, scratch);
    near(r2.fetch_min, 0.25, "fetch_min");
    near(r2.fetch_max, 0.75, "fetch_max");
    near(r2.fetch_mean, 0.5, "fetch_mean");
    near(r2.fetch_median, 0.5, "fetch_median");
    near(ss_row_fetch_aligned(&r2, SS_ALIGN_MEDIAN), 0.5, "aligned median");

    const double fs4[] = {0.5, 0, 0.25, 0.75}, ft4[] = {1.0, 0.25, 0.5, 0.125};
    const double it4[] = {1, 2, 3, 1.5}, st4[] = {0.5, 0.25, 0.125, 0.75};
    ss_row r4 = {.gpus = 4, .fetch_start = fs4, .fetch_time = ft4, .iteration_time = it4, .stall_time = st4,
                 .done = done};
    ss_row_prepare(&r4, 1, scratch);
    near(r4.fetch_median, 0.375, "fetch_median of 4");
    near(r4.fetch_mean, 0.46875, "fetch_mean of 4");
    near(r4.fetch_min, 0.125, "fetch_min of 4");
    near(r4.fetch_max, 1.0, "fetch_max of 4");
    near(r4.start_min, 0.0, "start_min");
    near(r4.start_max, 0.75, "start_max");
    near(r4.start_mean, 0.375, "start_mean");
    near(r4.stall_max, 0.75, "stall_max");
    near(r4.iter_max, 3.0, "iter_max");
    near(done[0], 1.5, "done[0]");
    near(done[3], 0.875, "done[3]");
    near(ss_row_fetch_aligned(&r4, SS_ALIGN_MIN), 0.125, "aligned min");
    near(ss_row_fetch_aligned(&r4, SS_ALIGN_AVG), 0.46875, "aligned avg");
    near(ss_row_fetch_aligned(&r4, SS_ALIGN_MAX), 1.0, "aligned max");
    /* the row is not reordered by the median */
    near(ft4[0], 1.0, "fetch_time untouched");
}

/* ---------------------------------------------------------------- both aligned, 1 GPU */

/* 2 GPUs, fetch min and start min. fs = {0, 0.5}, ft = {1.0, 0.25}: s' = 0, f' = 0.25,
 * done = {1.0, 0.75}, done' = {0.25, 0.25}; gaps {0.75, 0.5} earlier.
 * st = {0.5, 1.0}: gpu0 0.5 - 0.75 < 0 -> floor; gpu1 1.0 - 0.5 = 0.5.
 * it = {2.0, 2.0}: pure 2.0 - 1.0 = 1.0; iteration' 1.5; stall' 0.5; delay' 0.5 - floor;
 * start_diff 0 and fetch_diff 0 (both aligned).
 * fetch avg + start avg: s' = 0.5 - 0.25 = 0.25, f' = 0.625 -> done' = 0.875 both;
 * gaps {0.125 earlier, 0.125 later}: gpu0 0.5 - 0.125 = 0.375, gpu1 1.0 + 0.125 = 1.125;
 * iteration' 1.125 + 1.0 = 2.125; stall' 1.125, delay' 0.75. */
static void test_both_aligned_two_gpus(void **state)
{
    (void)state;
    const double fs[] = {0, 0.5}, ft[] = {1.0, 0.25}, it[] = {2.0, 2.0}, st[] = {0.5, 1.0};
    result r = replay(2, fs, ft, it, st, SS_ALIGN_MIN, SS_ALIGN_MIN, &defaults);
    check_stalls(&r, 2, (const double[]){FLOOR, 0.5});
    check_step(&r, 1.5, 0.5, 0.5 - FLOOR, 0.0, 0.0);

    r = replay(2, fs, ft, it, st, SS_ALIGN_AVG, SS_ALIGN_AVG, &defaults);
    check_stalls(&r, 2, (const double[]){0.375, 1.125});
    check_step(&r, 2.125, 1.125, 0.75, 0.0, 0.0);
}

/* 1 GPU: every alignment of a single value is that value, so done' = done and the row is given
 * back: stall 0.125, delay 0, iteration 1.0 (pure = 1.0 - 0.125 = 0.875, + 0.125), diffs 0. */
static void test_one_gpu_all_modes(void **state)
{
    (void)state;
    const double fs[] = {0.5}, ft[] = {0.25}, it[] = {1.0}, st[] = {0.125};
    const ss_align fetch[] = {SS_ALIGN_NONE, SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEDIAN, SS_ALIGN_MAX};
    const ss_align start[] = {SS_ALIGN_NONE, SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEAN};
    for (int f = 0; f < 5; f++)
        for (int s = 0; s < 4; s++) {
            result r = replay(1, fs, ft, it, st, fetch[f], start[s], &defaults);
            check_stalls(&r, 1, st);
            check_step(&r, 1.0, 0.125, 0.0, 0.0, 0.0);
            assert_int_equal(r.step.straggler, 0);
        }
}

/* ---------------------------------------------------------------- a tiny sweep */

/* 2 GPUs, 3 rows (epoch 1, index 0..2), warmup_iterations = 0, fetch_align = none, min.
 *           fs            ft            it             st
 * row 0  {0, 0.5}    {0.5, 0.25}   {1.5, 1.25}    {0.5, 0.25}
 * row 1  {1.0, 1.0}  {0.25, 1.0}   {1.0, 2.0}     {0.125, 1.0}
 * row 2  {2.0, 2.25} {0.5, 0.5}    {1.0, 0.75}    {0, 0}
 * Measured (= independent none/none), per row:
 *   iteration {1.5, 2.0, 1.0}: mean 1.5, deviations -0,0.5,-0.5 -> m2 0.5, var 0.25, std 0.5
 *   stall {0.5, 1.0, 0}: mean 0.5, m2 0.5, std 0.5
 *   delay {0.25, 0.875, 0}: mean 1.125/3 = 0.375; dev -0.125, 0.5, -0.375 -> m2 0.015625 + 0.25 +
 *     0.140625 = 0.40625, var 0.203125
 *   start_diff {0.5, 0, 0.25}: mean 0.25, m2 0.125, var 0.0625, std 0.25
 *   fetch_diff {0.25, 0.75, 0}: mean 1/3; m2 = 0.0625 + 0.5625 - 3 (1/3)^2 = 0.625 - 1/3 = 7/24,
 *     var 7/48
 *   effective delay: delays > 0.030: 0.25, 0.875 -> 2 of 3 = 66.666...%
 * fetch min (f' = row min of ft; starts as measured, so gap = ft - f'):
 *   row 0: f' 0.25: gpu0 gap 0.25 earlier 0.5 - 0.25 = 0.25; gpu1 equal 0.25 -> stall 0.25,
 *          delay 0, pure 1.5 - 0.5 = 1.0 -> iteration 1.25
 *   row 1: f' 0.25: gpu0 equal 0.125; gpu1 gap 0.75: 1.0 - 0.75 = 0.25 -> stall 0.25, delay 0.125,
 *          pure 2.0 - 1.0 = 1.0 -> iteration 1.25
 *   row 2: f' 0.5, all equal: stall 0, delay 0, iteration 0 + 1.0 = 1.0
 *   iteration {1.25, 1.25, 1.0}: mean 3.5/3 = 7/6; dev 1/12, 1/12, -1/6 -> m2 6/144 = 1/24,
 *     var 1/48
 *   stall {0.25, 0.25, 0}: mean 1/6, m2 1/24, var 1/48
 *   delay {0, 0.125, 0}: mean 1/24; dev -1/24, 1/12, -1/24 -> m2 6/576 = 1/96, var 1/192
 *   start_diff as measured; fetch_diff {0, 0, 0}: mean 0, std 0
 *   effective delay: 0.125 only -> 1 of 3 = 33.333...%
 *   iter_time_change_pct = 100 (7/6 / 1.5 - 1) = 100 (7/9 - 1) = -200/9 */
static void test_sweep_summary(void **state)
{
    (void)state;
    char trace[512], ini[1024];
    snprintf(trace, sizeof trace, "%s/tiny.h5", tu_tmpdir());
    const double fs[] = {0, 0.5, 1.0, 1.0, 2.0, 2.25};
    const double ft[] = {0.5, 0.25, 0.25, 1.0, 0.5, 0.5};
    const double it[] = {1.5, 1.25, 1.0, 2.0, 1.0, 0.75};
    const double st[] = {0.5, 0.25, 0.125, 1.0, 0, 0};
    assert_int_equal(tu_write_trace(trace, 2, 3, NULL, NULL, fs, ft, NULL, it, st), SS_OK);
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nfetch_align = none, min\n", trace);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    ss_status rc = tu_run_sweep(ini, &sum, &sc, &nsc);
    if (rc != SS_OK) fail_msg("sweep failed: %s", ss_errmsg());
    assert_int_equal(nsc, 3);
    int jm = tu_find(sc, nsc, "measured");
    int jb = tu_find(sc, nsc, "independent_fetch-none_start-none");
    int jn = tu_find(sc, nsc, "independent_fetch-min_start-none");
    assert_int_equal(jm, 0);
    assert_true(jb > 0 && jn > 0);

    for (int pass = 0; pass < 2; pass++) {
        int j = pass ? jb : jm; /* the baseline row is the measured run */
        const ss_partial *p = &sum.p[j];
        near(p->n, 3, "n");
        near(p->mean[SS_M_ITER], 1.5, "measured iteration mean");
        near(ss_partial_std(p, SS_M_ITER), 0.5, "measured iteration std");
        near(p->mean[SS_M_STALL], 0.5, "measured stall mean");
        near(ss_partial_std(p, SS_M_STALL), 0.5, "measured stall std");
        near(p->mean[SS_M_DELAY], 0.375, "measured delay mean");
        near(ss_partial_std(p, SS_M_DELAY), sqrt(0.203125), "measured delay std");
        near(p->mean[SS_M_START], 0.25, "measured start_diff mean");
        near(ss_partial_std(p, SS_M_START), 0.25, "measured start_diff std");
        near(p->mean[SS_M_FETCH], 1.0 / 3.0, "measured fetch_diff mean");
        near(ss_partial_std(p, SS_M_FETCH), sqrt(7.0 / 48.0), "measured fetch_diff std");
        near(ss_summary_effective_delay_pct(&sum, j), 200.0 / 3.0, "measured effective_delay_pct");
    }
    assert_true(isnan(ss_summary_change_pct(&sum, jm)));
    near(ss_summary_change_pct(&sum, jb), 0.0, "baseline change");

    const ss_partial *p = &sum.p[jn];
    near(p->n, 3, "n");
    near(p->mean[SS_M_ITER], 7.0 / 6.0, "fetch-min iteration mean");
    near(ss_partial_std(p, SS_M_ITER), sqrt(1.0 / 48.0), "fetch-min iteration std");
    near(p->mean[SS_M_STALL], 1.0 / 6.0, "fetch-min stall mean");
    near(ss_partial_std(p, SS_M_STALL), sqrt(1.0 / 48.0), "fetch-min stall std");
    near(p->mean[SS_M_DELAY], 1.0 / 24.0, "fetch-min delay mean");
    near(ss_partial_std(p, SS_M_DELAY), sqrt(1.0 / 192.0), "fetch-min delay std");
    near(p->mean[SS_M_START], 0.25, "fetch-min start_diff mean");
    near(ss_partial_std(p, SS_M_START), 0.25, "fetch-min start_diff std");
    near(p->mean[SS_M_FETCH], 0.0, "fetch-min fetch_diff mean");
    near(ss_partial_std(p, SS_M_FETCH), 0.0, "fetch-min fetch_diff std");
    near(ss_summary_effective_delay_pct(&sum, jn), 100.0 / 3.0, "fetch-min effective_delay_pct");
    near(ss_summary_change_pct(&sum, jn), -200.0 / 9.0, "fetch-min iter_time_change_pct");
    ss_summary_free(&sum);
    free(sc);
}

/* Selection by epoch and warmup: 4 rows, epochs {1, 1, 2, 2}, index {0, 1, 0, 1}, 1 GPU;
 * epoch = 2, warmup_iterations = 1 keeps only row 3 (epoch 2, index 1): iteration 2.0,
 * stall 0.5, n = 1 and the sample std is NaN. effective_delay_threshold = 0.25 with delay 0
 * (one GPU) -> 0%. */
static void test_sweep_selection(void **state)
{
    (void)state;
    char trace[512], ini[1024];
    snprintf(trace, sizeof trace, "%s/sel.h5", tu_tmpdir());
    const int32_t ep[] = {1, 1, 2, 2};
    const int64_t ix[] = {0, 1, 0, 1};
    const double fs[] = {0, 1, 2, 3}, ft[] = {0.25, 0.25, 0.25, 0.25};
    const double it[] = {1.0, 1.25, 1.5, 2.0}, st[] = {0.125, 0.25, 0.375, 0.5};
    assert_int_equal(tu_write_trace(trace, 1, 4, ep, ix, fs, ft, NULL, it, st), SS_OK);
    snprintf(ini, sizeof ini,
             "[trace]\npath = %s\nepoch = 2\nwarmup_iterations = 1\n[summary]\neffective_delay_threshold = 0.25\n",
             trace);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    ss_status rc = tu_run_sweep(ini, &sum, &sc, &nsc);
    if (rc != SS_OK) fail_msg("sweep failed: %s", ss_errmsg());
    assert_int_equal(nsc, 2);
    for (int j = 0; j < 2; j++) {
        near(sum.p[j].n, 1, "n");
        near(sum.p[j].mean[SS_M_ITER], 2.0, "iteration mean");
        near(sum.p[j].mean[SS_M_STALL], 0.5, "stall mean");
        near(sum.p[j].mean[SS_M_DELAY], 0.0, "delay mean");
        assert_true(isnan(ss_partial_std(&sum.p[j], SS_M_ITER)));
        near(ss_summary_effective_delay_pct(&sum, j), 0.0, "effective_delay_pct");
    }
    ss_summary_free(&sum);
    free(sc);
}

/* The replay without the per-GPU stalls (stall_out NULL: nothing stored, the argmax's
 * chunk replayed again) gives the same step as the one that stores them, on rows as wide
 * as one chunk, several chunks, and chunks wider than 64 GPUs; a straggler copied onto a
 * second GPU (in its chunk or another one) makes the largest stall shared: -1 both ways. */
static void lean_case(int G, const double *fs, const double *ft, const double *it, const double *st, double *done,
                      double *scratch, double *stall, int *argmax_out)
{
    static const ss_align fas[] = {SS_ALIGN_NONE, SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEDIAN, SS_ALIGN_MAX};
    static const ss_align sas[] = {SS_ALIGN_NONE, SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEAN};
    ss_row row = {.gpus = G, .fetch_start = fs, .fetch_time = ft, .iteration_time = it, .stall_time = st,
                  .done = done};
    ss_row_prepare(&row, 1, scratch);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 4; b++)
            for (int always = 0; always < 2; always++) {
                ss_step full, lean;
                if (always) {
                    ssi_replay_row_always(&row, fas[a], sas[b], &defaults, stall, &full);
                    ssi_replay_row_always(&row, fas[a], sas[b], &defaults, NULL, &lean);
                } else {
                    ssi_replay_row(&row, fas[a], sas[b], &defaults, stall, &full);
                    ssi_replay_row(&row, fas[a], sas[b], &defaults, NULL, &lean);
                }
                /* the straggler from the stored stalls, found by a plain scan */
                double mx = stall[0];
                for (int g = 1; g < G; g++) mx = stall[g] > mx ? stall[g] : mx;
                int want = -1, count = 0;
                for (int g = 0; g < G; g++)
                    if (stall[g] == mx) want = g, count++;
                if (count > 1) want = -1;
                if (full.straggler != want || lean.straggler != want || full.stall != mx)
                    fail_msg("G=%d fa=%d sa=%d always=%d: straggler %d (stored) %d (lean), expected %d", G, a, b,
                             always, full.straggler, lean.straggler, want);
                if (memcmp(&full.iter_time, &lean.iter_time, sizeof full.iter_time) ||
                    memcmp(&full.stall, &lean.stall, sizeof full.stall) ||
                    memcmp(&full.delay, &lean.delay, sizeof full.delay) ||
                    memcmp(&full.start_diff, &lean.start_diff, sizeof full.start_diff) ||
                    memcmp(&full.fetch_diff, &lean.fetch_diff, sizeof full.fetch_diff))
                    fail_msg("G=%d fa=%d sa=%d always=%d: the lean replay differs", G, a, b, always);
                if (a == 2 && b == 1 && !always) *argmax_out = want;
            }
}

static void test_lean_replay(void **state)
{
    (void)state;
    static const int widths[] = {1, 3, 64, 65, 300, 70001};
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        const int G = widths[w];
        double *buf = malloc(7 * (size_t)G * sizeof *buf);
        assert_non_null(buf);
        double *fs = buf, *ft = fs + G, *it = ft + G, *st = it + G, *done = st + G, *scratch = done + G,
               *stall = scratch + G;
        uint64_t x = 12345 + (uint64_t)G;
        for (int g = 0; g < G; g++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            fs[g] = (double)(x >> 40) / 16777216.0 * 0.02;
            ft[g] = (double)((x >> 16) & 0xffffff) / 16777216.0 * 0.05;
            st[g] = (double)((x >> 8) & 0xffff) / 65536.0 * 0.03;
            it[g] = st[g] + 0.1;
        }
        int arg = -1;
        lean_case(G, fs, ft, it, st, done, scratch, stall, &arg);
        if (G >= 3 && arg < 0) fail_msg("G=%d: the test row has no single straggler", G);
        if (G >= 3) {
            /* the straggler's copy on a neighbour (in its chunk), then half the row away */
            int same = arg % 64 ? arg - 1 : arg + 1, other = (arg + G / 2) % G;
            for (int k = 0; k < 2; k++) {
                int to = k == 0 ? same : other;
                fs[to] = fs[arg], ft[to] = ft[arg], st[to] = st[arg], it[to] = it[arg];
                int arg2 = 0;
                lean_case(G, fs, ft, it, st, done, scratch, stall, &arg2);
                if (arg2 != -1) fail_msg("G=%d: straggler %d copied onto %d is still alone (%d)", G, arg, to, arg2);
            }
        }
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_earlier_below_zero_floor),
        cmocka_unit_test(test_earlier_not_below_zero),
        cmocka_unit_test(test_later_above_sensitivity),
        cmocka_unit_test(test_later_at_or_below_sensitivity),
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_start_none),
        cmocka_unit_test(test_start_min),
        cmocka_unit_test(test_start_avg),
        cmocka_unit_test(test_start_mean),
        cmocka_unit_test(test_align_start_of),
        cmocka_unit_test(test_fetch_none),
        cmocka_unit_test(test_fetch_min),
        cmocka_unit_test(test_fetch_avg),
        cmocka_unit_test(test_fetch_median),
        cmocka_unit_test(test_fetch_max),
        cmocka_unit_test(test_row_prepare),
        cmocka_unit_test(test_both_aligned_two_gpus),
        cmocka_unit_test(test_one_gpu_all_modes),
        cmocka_unit_test(test_sweep_summary),
        cmocka_unit_test(test_sweep_selection),
        cmocka_unit_test(test_lean_replay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
