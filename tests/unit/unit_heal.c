/* unit_heal.c - healing a GPU on hand-worked cases: the median of the other GPUs' fetch
 * times (odd and even counts, ties), the healed row's statistics, GPUs healed together
 * (the set as written, the median of the GPUs not healed), the independent model's
 * stalls, the pipeline model against the same recurrence run on rows edited by hand, a
 * whole sweep with scenarios.heal, and the ranking that names the GPU to fix. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ss_model_independent.h"
#include "ss_model_pipeline.h"
#include "ss_rank.h"
#include "ss_row.h"
#include "test_util.h"

#define EPS 1e-12

static void near(double got, double want, const char *what)
{
    if (fabs(got - want) > EPS) fail_msg("%s: got %.15g, expected %.15g", what, got, want);
}

typedef struct {
    double fs[8], ft[8], it[8], st[8], done[8], scratch[8], sorted[8], buf[8];
    ss_row r;
} rowbuf;

static void make_row(rowbuf *b, int G, const double *fs, const double *ft, const double *it, const double *st)
{
    memcpy(b->fs, fs, (size_t)G * sizeof(double));
    memcpy(b->ft, ft, (size_t)G * sizeof(double));
    memcpy(b->it, it, (size_t)G * sizeof(double));
    memcpy(b->st, st, (size_t)G * sizeof(double));
    b->r = (ss_row){.gpus = G, .fetch_start = b->fs, .fetch_time = b->ft, .iteration_time = b->it,
                    .stall_time = b->st, .done = b->done};
    ss_row_prepare(&b->r, 1, b->scratch);
    ss_row_prepare_heal(&b->r, b->sorted);
}

/* fetch {1, 5, 2, 8}: the others of GPU 3 are {1, 5, 2}, median 2; of GPU 0 {5, 2, 8}: 5.
 * fetch {3, 3, 1, 9, 4}: the others of GPU 1 are {3, 1, 9, 4}, median (3 + 4) / 2 = 3.5;
 * of GPU 3 {3, 3, 1, 4}: (3 + 3) / 2 = 3. One GPU: its own. */
static void test_median_others(void **state)
{
    (void)state;
    rowbuf b;
    const double z[5] = {0}, one[5] = {1, 1, 1, 1, 1};
    make_row(&b, 4, z, (const double[]){1, 5, 2, 8}, one, z);
    near(ss_row_median_others(&b.r, 3), 2, "G=4 g=3");
    near(ss_row_median_others(&b.r, 0), 5, "G=4 g=0");
    near(ss_row_median_others(&b.r, 2), 5, "G=4 g=2"); /* {1, 5, 8} */
    make_row(&b, 5, z, (const double[]){3, 3, 1, 9, 4}, one, z);
    near(ss_row_median_others(&b.r, 1), 3.5, "G=5 g=1");
    near(ss_row_median_others(&b.r, 3), 3, "G=5 g=3");
    near(ss_row_median_others(&b.r, 2), 3.5, "G=5 g=2"); /* {3, 3, 9, 4} */
    make_row(&b, 1, z, (const double[]){7}, one, z);
    near(ss_row_median_others(&b.r, 0), 7, "G=1");
}

/* Healing GPU 3 of {1, 5, 2, 8} gives {1, 5, 2, 2}: min 1, max 5, mean 2.5, median 2; the
 * measured row is left as it was. */
static void test_healed_row(void **state)
{
    (void)state;
    rowbuf b;
    const double z[4] = {0}, one[4] = {1, 1, 1, 1};
    make_row(&b, 4, z, (const double[]){1, 5, 2, 8}, one, z);
    ss_row h;
    ss_row_heal(&b.r, 3, &h, b.buf);
    near(h.fetch_time[3], 2, "healed fetch");
    near(h.fetch_time[1], 5, "other fetch");
    near(h.fetch_min, 1, "min");
    near(h.fetch_max, 5, "max");
    near(h.fetch_mean, 2.5, "mean");
    near(h.fetch_median, 2, "median");
    near(b.r.fetch_time[3], 8, "measured row untouched");
    near(b.r.fetch_max, 8, "measured max untouched");
}

/* Independent model, 2 GPUs: starts {0, 0}, fetch {1, 3}, stalls {0.1, 2.1}, iteration
 * times {3, 3}. Healing GPU 1 gives it fetch 1: its batch is ready 2 s earlier, so its
 * stall becomes 2.1 - 2 = 0.1 (not below the floor); GPU 0 keeps 0.1. Iteration time =
 * max stall 0.1 + (3 - 2.1) = 1.0; delay 0. Healing GPU 0 (fetch 3 instead of 1): ready
 * 2 s later, its stall 0.1 is below the sensitivity 0.2, so it stays 0.1: nothing changes. */
static void test_independent(void **state)
{
    (void)state;
    rowbuf b;
    make_row(&b, 2, (const double[]){0, 0}, (const double[]){1, 3}, (const double[]){3, 3},
             (const double[]){0.1, 2.1});
    ssi_params p = {0.000002, 0.2};
    ss_row h;
    double stall[2];
    ss_step out;
    ss_row_heal(&b.r, 1, &h, b.buf);
    ssi_replay_row_always(&h, SS_ALIGN_NONE, SS_ALIGN_NONE, &p, stall, &out);
    near(stall[0], 0.1, "heal 1: GPU 0 stall");
    near(stall[1], 0.1, "heal 1: GPU 1 stall");
    near(out.iter_time, 1.0, "heal 1: iteration time");
    near(out.delay, 0.0, "heal 1: delay");
    ss_row_heal(&b.r, 0, &h, b.buf);
    ssi_replay_row_always(&h, SS_ALIGN_NONE, SS_ALIGN_NONE, &p, stall, &out);
    near(stall[0], 0.1, "heal 0: GPU 0 stall");
    near(stall[1], 2.1, "heal 0: GPU 1 stall");
    near(out.iter_time, 3.0, "heal 0: iteration time");
}

/* Pipeline model, 3 GPUs, W = 1, P = 1: healing GPU 2 must equal replaying rows in which
 * GPU 2's fetch time was replaced by hand by the median of the other two (their mean). */
static void test_pipeline(void **state)
{
    (void)state;
    enum { K = 6, G = 3 };
    const double F[K][G] = {{1, 2, 9}, {2, 2, 7}, {1, 3, 8}, {2, 1, 9}, {1, 1, 6}, {3, 1, 9}};
    ssp_params pp = {.workers = 1, .prefetch = 1, .fetch_scale = 1, .compute_scale = 1,
                     .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE};
    ssp_state a, b;
    assert_int_equal(ssp_init(&a, &pp, G), SS_OK);
    assert_int_equal(ssp_init(&b, &pp, G), SS_OK);
    const double z[G] = {0}, it[G] = {0.5, 0.5, 0.5}, st[G] = {0, 0, 0};
    for (int k = 0; k < K; k++) {
        rowbuf r1, r2;
        make_row(&r1, G, z, F[k], it, st);
        double edited[G] = {F[k][0], F[k][1], (F[k][0] + F[k][1]) / 2};
        make_row(&r2, G, z, edited, it, st);
        ss_row h;
        ss_row_heal(&r1.r, 2, &h, r1.buf);
        double s1[G], s2[G];
        ss_step o1, o2;
        ssp_replay_row(&a, &h, s1, &o1);
        ssp_replay_row(&b, &r2.r, s2, &o2);
        near(o1.iter_time, o2.iter_time, "pipeline healed iteration time");
        for (int g = 0; g < G; g++) near(s1[g], s2[g], "pipeline healed stall");
    }
    ssp_free(&a);
    ssp_free(&b);
}

/* A sweep: 3 GPUs over 40 rows where GPU 2 fetches 1 s more than the others and so stalls
 * every step. Healing GPU 2 (median of the others) removes that stall; healing GPU 0 or 1
 * changes nothing. The ranking names GPU 2 and only GPU 2. */
static void test_sweep_and_ranking(void **state)
{
    (void)state;
    enum { N = 40, G = 3 };
    static double fs[N * G], ft[N * G], ts[N * G], it[N * G], st[N * G];
    for (int k = 0; k < N; k++)
        for (int g = 0; g < G; g++) {
            int x = k * G + g;
            fs[x] = 2.0 * k;
            ft[x] = g == 2 ? 1.5 : 0.5;
            st[x] = g == 2 ? 1.0 : 0.0; /* GPU 2's batch comes 1 s late */
            ts[x] = fs[x] + 0.5 + 1.0;
            it[x] = 2.0;
        }
    char path[512];
    snprintf(path, sizeof path, "%s/slow.h5", tu_tmpdir());
    assert_int_equal(tu_write_trace(path, G, N, NULL, NULL, fs, ft, ts, it, st), SS_OK);
    char ini[1024];
    snprintf(ini, sizeof ini, "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nheal = none, 0, 1, 2\n", path);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    assert_int_equal(tu_run_sweep(ini, &sum, &sc, &nsc), SS_OK);
    int j2 = tu_find(sc, nsc, "independent_fetch-none_start-none_heal-2");
    int j0 = tu_find(sc, nsc, "independent_fetch-none_start-none_heal-0");
    assert_true(j2 > 0 && j0 > 0);
    /* healed: GPU 2's batch is ready 1 s earlier: stall 1 - 1 = 0 (the floor is for stalls
     * that would go below 0); iteration time = 0 + (2 - 1) */
    near(sum.p[j2].mean[SS_M_ITER], 1.0, "heal 2 iteration time");
    near(sum.p[j0].mean[SS_M_ITER], 2.0, "heal 0 iteration time");
    ss_ranking r;
    assert_int_equal(ss_rank(&sum, 40.0, 0, &r), SS_OK);
    assert_int_equal(r.nheal, 3);
    assert_int_equal(r.heal[0].gpu, 2);
    assert_true(r.heal[0].ranked);
    near(r.heal[0].gain_pct, 50.0, "gain of healing GPU 2");
    near(r.heal[0].gain_s_epoch, 40.0, "seconds per epoch");
    assert_false(r.heal[1].ranked);
    assert_false(r.heal[2].ranked);
    assert_true(r.ntop >= 1);
    assert_int_equal(r.top[0].j, j2);
    ss_ranking_free(&r);
    /* ranked by the whole run: the heal of GPU 2 cuts it. Made to lose the steady state by
     * rounding alone (as persistent workers keep it), it has no pay-off; made to lose 2 %,
     * it pays off only below n* batches per epoch: n* = -D / d, with d the steady change
     * per batch and D the run's change per epoch less n0 d (one epoch of N rows here) */
    const int m = ss_summary_measured(&sum);
    const double meas = sum.p[m].mean[SS_M_ITER], run_cut = ss_summary_run_time(&sum, j2) - ss_summary_run_time(&sum, m);
    assert_true(run_cut < 0.0);
    sum.p[j2].mean[SS_M_ITER] = meas * (1.0 + 1e-15);
    assert_int_equal(ss_rank(&sum, 40.0, 1, &r), SS_OK);
    assert_true(r.ntop >= 1 && r.top[0].j == j2);
    assert_true(isnan(r.top[0].payoff_rows));
    ss_ranking_free(&r);
    sum.p[j2].mean[SS_M_ITER] = meas * 1.02;
    assert_int_equal(ss_rank(&sum, 40.0, 1, &r), SS_OK);
    assert_true(r.ntop >= 1 && r.top[0].j == j2);
    const double d = 0.02 * meas, D = run_cut - N * d;
    near(r.top[0].payoff_rows, -D / d, "pay-off batches per epoch");
    ss_ranking_free(&r);
    ss_summary_free(&sum);
    free(sc);
}

/* The O(1) healed replay equals the general replay of the healed row, bit for bit, on
 * random rows with many ties (stalls and fetch times drawn from a few values). */
static void test_fast_path_equals_general(void **state)
{
    (void)state;
    unsigned long x = 12345;
    for (int trial = 0; trial < 3000; trial++) {
        int G = 1 + trial % 7;
        double fs[8], ft[8], it[8], st[8];
        for (int g = 0; g < G; g++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            fs[g] = (double)((x >> 33) % 3) * 0.25;
            ft[g] = 0.5 + (double)((x >> 40) % 4) * 0.25;
            st[g] = (double)((x >> 47) % 4) * 0.125;
            it[g] = 1.0 + st[g];
        }
        rowbuf b;
        make_row(&b, G, fs, ft, it, st);
        ssi_params p = {0.000002, 0.1};
        for (int g = 0; g < G; g++) {
            double s1[8], s2[8];
            ss_step o1, o2;
            ss_row h;
            ss_row_heal(&b.r, g, &h, b.buf);
            ssi_replay_row_always(&h, SS_ALIGN_NONE, SS_ALIGN_NONE, &p, s1, &o1);
            ssi_replay_healed(&b.r, g, &p, s2, &o2);
            assert_memory_equal(s1, s2, (size_t)G * sizeof(double));
            assert_memory_equal(&o1.iter_time, &o2.iter_time, sizeof(double));
            assert_memory_equal(&o1.delay, &o2.delay, sizeof(double));
            assert_memory_equal(&o1.fetch_diff, &o2.fetch_diff, sizeof(double));
            assert_memory_equal(&o1.start_diff, &o2.start_diff, sizeof(double));
            if (o1.straggler != o2.straggler) fail_msg("trial %d G=%d g=%d: straggler %d vs %d", trial, G, g, o1.straggler, o2.straggler);
        }
    }
}

/* GPUs healed together: the set as scenarios.heal writes it (parts sorted and merged,
 * ranges), membership and counts, and what is refused. */
static void test_heal_set_text(void **state)
{
    (void)state;
    ss_healset h, k;
    char buf[SS_HEAL_TEXT_MAX];
    assert_null(ss_healset_parse("3+1", 100, &h));
    ss_healset_format(&h, buf, sizeof buf);
    assert_string_equal(buf, "1+3");
    assert_int_equal(ss_healset_count(&h), 2);
    assert_int_equal(ss_healset_single(&h), -1);
    assert_true(ss_healset_has(&h, 3) && !ss_healset_has(&h, 2));
    assert_null(ss_healset_parse(" 9 - 11 + 8+12 + 3 ", 100, &h)); /* adjacent parts merge */
    ss_healset_format(&h, buf, sizeof buf);
    assert_string_equal(buf, "3+8-12");
    assert_int_equal(ss_healset_count(&h), 6);
    assert_int_equal(ss_healset_max(&h), 12);
    assert_null(ss_healset_parse("4-7+5", 100, &k)); /* overlapping */
    ss_healset_format(&k, buf, sizeof buf);
    assert_string_equal(buf, "4-7");
    assert_non_null(ss_healset_parse("7-4+4-6+7", 100, &h)); /* a range backwards */
    assert_null(ss_healset_parse("6+4-5+7", 100, &h));
    assert_memory_equal(&h, &k, sizeof h); /* one set, one form: equal byte for byte */
    assert_null(ss_healset_parse("5", 100, &h));
    assert_int_equal(ss_healset_single(&h), 5);
    unsigned char mask[8];
    assert_null(ss_healset_parse("1+5-6", 100, &h));
    ss_healset_mask(&h, mask, 8);
    assert_memory_equal(mask, ((unsigned char[]){0, 1, 0, 0, 0, 1, 1, 0}), 8);
    const char *bad[] = {"", "+", "1+", "1-", "-3", "1++2", "a", "1+b", "2-1", "101", "1 2", "0-99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ss_healset_parse(bad[i], 100, &h) == NULL) fail_msg("accepted \"%s\"", bad[i]);
    /* built GPU by GPU (ascending): adjacent GPUs merge, as parsing "1+2+3+7" does */
    ss_healset b = {0};
    const int add[] = {1, 2, 3, 7};
    for (size_t i = 0; i < sizeof add / sizeof add[0]; i++) assert_int_equal(ss_healset_add(&b, add[i]), 0);
    assert_null(ss_healset_parse("1+2+3+7", 100, &h));
    assert_memory_equal(&b, &h, sizeof h);
    /* 17 separate GPUs are more ranges than a set keeps; a set too long to name a scenario by */
    assert_non_null(ss_healset_parse("0+2+4+6+8+10+12+14+16+18+20+22+24+26+28+30+32", 100, &h));
    assert_non_null(ss_healset_parse("100000+100002+100004+100006+100008+100010+100012+100014+100016+100018", 1000000, &h));
}

/* fetch {1, 5, 2, 8, 4} with GPUs 1 and 3 healed: the GPUs not healed {1, 2, 4} have the
 * median 2, so the row becomes {1, 2, 2, 2, 4}: min 1, max 4, mean 11/5, median 2. With GPUs
 * 0-1+3 healed the others are {2, 4}: median 3, row {3, 3, 2, 3, 4}. */
static void test_heal_set_row(void **state)
{
    (void)state;
    rowbuf b;
    const double z[5] = {0}, one[5] = {1, 1, 1, 1, 1};
    make_row(&b, 5, z, (const double[]){1, 5, 2, 8, 4}, one, z);
    ss_healset hs;
    assert_null(ss_healset_parse("3+1", 10, &hs));
    double scratch[8];
    near(ss_median_unhealed(b.ft, 5, &hs, scratch), 2, "median of the GPUs not healed");
    ss_row h;
    ss_row_heal_set(&b.r, &hs, &h, b.buf, scratch);
    const double want[5] = {1, 2, 2, 2, 4};
    for (int g = 0; g < 5; g++) near(h.fetch_time[g], want[g], "healed set fetch");
    near(h.fetch_min, 1, "set min");
    near(h.fetch_max, 4, "set max");
    near(h.fetch_mean, 11.0 / 5, "set mean");
    near(h.fetch_median, 2, "set median");
    near(b.r.fetch_time[3], 8, "measured row untouched");
    assert_null(ss_healset_parse("0-1+3", 10, &hs));
    ss_row_heal_set(&b.r, &hs, &h, b.buf, scratch);
    const double want2[5] = {3, 3, 2, 3, 4};
    for (int g = 0; g < 5; g++) near(h.fetch_time[g], want2[g], "healed set 0-1+3 fetch");
    near(h.fetch_median, 3, "set 0-1+3 median");
    /* one GPU as a set: the same row as ss_row_heal */
    ss_row one_h;
    double buf2[8];
    assert_null(ss_healset_parse("3", 10, &hs));
    ss_row_heal(&b.r, 3, &one_h, buf2);
    ss_row_heal_set(&b.r, &hs, &h, b.buf, scratch);
    for (int g = 0; g < 5; g++) near(h.fetch_time[g], one_h.fetch_time[g], "set of one against ss_row_heal");
    near(h.fetch_min, one_h.fetch_min, "set of one: min");
    near(h.fetch_max, one_h.fetch_max, "set of one: max");
    near(h.fetch_mean, one_h.fetch_mean, "set of one: mean");
    near(h.fetch_median, one_h.fetch_median, "set of one: median");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_others), cmocka_unit_test(test_healed_row),
        cmocka_unit_test(test_heal_set_text), cmocka_unit_test(test_heal_set_row),
        cmocka_unit_test(test_independent), cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_sweep_and_ranking), cmocka_unit_test(test_fast_path_equals_general),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
