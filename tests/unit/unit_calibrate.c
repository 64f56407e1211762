/* unit_calibrate.c - MODELS-pipeline.md calibration: ss_calibrate recovers W and worker_gap from loader-bound generated traces, and on the FusionFlow reference trace gives W = 3 and a gap of about 0.22 s per GPU with a calibrated pipeline baseline within 1 % of the measured mean iteration time (skipped without ../shared/reference). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ss_calibrate.h"
#include "ss_import_dsanalyzer.h"
#include "ss_gen.h"
#include "test_util.h"

#define REF SS_SHARED_DIR "/reference/fusionflow-4gpu/"
#define PREFIX REF "fsNprepNloadNtrain_openimage_randaugment_resnet50_epoch2_b2048_worker12_thread0"

static ss_status calibrate_file(const char *path, ss_calib *cal)
{
    ss_comm c;
    ss_comm_self(&c);
    ss_trace_file *t;
    ss_status st = ss_trace_open(path, &c, &t);
    if (st != SS_OK) return st;
    st = ss_calibrate(t, SS_CALIB_ROWS, cal);
    ss_trace_close(t);
    return st;
}

static void gen_loader_bound(const char *path, unsigned long seed, int gpus, int W, double gap)
{
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.seed = seed;
    p.gpus = gpus;
    p.workers = W;
    p.prefetch = 2;
    p.worker_gap = gap;
    p.fetch_mean = 1.0;    /* fetch_mean / W >= 1/6 s, clearly above ... */
    p.compute_mean = 0.05; /* ... the compute time */
    p.fetch_cv = 0.2;
    p.iterations = 300;
    p.epochs = 2;
    if (ss_gen_write(&p, path, 0) != SS_OK) fail_msg("gen: %s", ss_errmsg());
}

/* Loader-bound generated traces: W in {2, 3, 6}, worker_gap in {0, 0.1}, 4 GPUs, three
 * seeds each: the calibrated W equals the generating W and the gap equals the generating
 * gap to 1e-9 (for W = 2, 3 on every GPU; for W = 6 a GPU may read w = 5, see test_w6_gap,
 * and the largest W and the gap taken at it are still exact). */
static void test_recovers_generating_settings(void **state)
{
    (void)state;
    const int Ws[3] = {2, 3, 6};
    const double gaps[2] = {0.0, 0.1};
    char path[512];
    for (int wi = 0; wi < 3; wi++)
        for (int gi = 0; gi < 2; gi++) {
            for (unsigned long seed = 1; seed <= 3; seed++) {
                snprintf(path, sizeof path, "%s/cal-%d-%d-%lu.h5", tu_tmpdir(), wi, gi, seed);
                gen_loader_bound(path, seed, 4, Ws[wi], gaps[gi]);
                ss_calib cal;
                if (calibrate_file(path, &cal) != SS_OK) fail_msg("calibrate: %s", ss_errmsg());
                assert_int_equal(cal.gpus, 4);
                assert_int_equal(cal.rows_used, 600);
                if (cal.workers != Ws[wi] || fabs(cal.worker_gap - gaps[gi]) > 1e-9)
                    fail_msg("W=%d gap=%g seed %lu: calibrated W=%d gap=%.12g", Ws[wi], gaps[gi], seed, cal.workers,
                             cal.worker_gap);
                for (int g = 0; g < 4; g++) { /* no GPU can see more workers than there were */
                    assert_true(cal.workers_gpu[g] >= 1 && cal.workers_gpu[g] <= Ws[wi]);
                    if (Ws[wi] > 3) continue; /* see test_w6_gap: one GPU may read w = 5 */
                    assert_true(cal.agree);
                    assert_int_equal(cal.workers_gpu[g], Ws[wi]);
                    assert_true(fabs(cal.gap_gpu[g] - gaps[gi]) < 1e-9);
                }
                ss_calib_free(&cal);
            }
        }
}

/* W = 6 with a gap of 0.1 s on 4 GPUs: the generator starts all workers together and their
 * batches stay bunched, so batch k often starts after batch k-5 is done too, and the old
 * MODELS-pipeline.md rule (the smallest w with a median >= 0) could pick w = 5 on some GPU (the fit
 * of issue 11 finds 6 on every GPU). What holds on any generated trace: fetch_start[k] >= done[k-W] + gap for every k, so each
 * GPU's W is at most the generating W and, where it equals it, the gap is at least the
 * generating gap; the overall W (the largest) is the generating one for these seeds, and
 * the run's gap, taken on every GPU at that W, is the generating gap exactly. */
static void test_w6_gap(void **state)
{
    (void)state;
    char path[512];
    for (unsigned long seed = 1; seed <= 3; seed++) {
        snprintf(path, sizeof path, "%s/cal6-%lu.h5", tu_tmpdir(), seed);
        gen_loader_bound(path, seed, 4, 6, 0.1);
        ss_calib cal;
        if (calibrate_file(path, &cal) != SS_OK) fail_msg("calibrate: %s", ss_errmsg());
        assert_int_equal(cal.workers, 6);
        int exact = 0;
        for (int g = 0; g < 4; g++) {
            assert_true(cal.workers_gpu[g] >= 1 && cal.workers_gpu[g] <= 6);
            assert_true(cal.gap_gpu[g] >= 0.0);
            if (cal.workers_gpu[g] == 6) assert_true(cal.gap_gpu[g] >= 0.1 - 1e-9);
            exact += cal.workers_gpu[g] == 6 && fabs(cal.gap_gpu[g] - 0.1) < 1e-9;
        }
        assert_true(fabs(cal.worker_gap - 0.1) < 1e-9);
        print_message("W=6 gap=0.1 seed %lu: calibrated W=%d gap=%.6g, %d of 4 GPUs exact\n", seed, cal.workers,
                      cal.worker_gap, exact);
        ss_calib_free(&cal);
    }
}

/* Three GPUs whose loaders pause 0.1, 0.2 and 0.9 s between batches (one worker each,
 * fetches of 1 s starting at k (1 + gap)): each GPU reads W = 1 and its own gap, and
 * the run's gap is their median, 0.2 s (their mean would be 0.4 s). */
static void test_gap_is_median_over_gpus(void **state)
{
    (void)state;
    enum { G = 3, N = 6 };
    const double gap[G] = {0.1, 0.2, 0.9};
    double fs[N * G], ft[N * G], it[N * G], st[N * G];
    for (int k = 0; k < N; k++)
        for (int g = 0; g < G; g++) {
            fs[k * G + g] = k * (1.0 + gap[g]); /* start[k] - done[k-1] = gap[g] */
            ft[k * G + g] = 1.0;
            it[k * G + g] = 1.0;
            st[k * G + g] = 0.0;
        }
    char path[512];
    snprintf(path, sizeof path, "%s/median.h5", tu_tmpdir());
    assert_int_equal(tu_write_trace(path, G, N, NULL, NULL, fs, ft, NULL, it, st), SS_OK);
    ss_calib cal;
    if (calibrate_file(path, &cal) != SS_OK) fail_msg("calibrate: %s", ss_errmsg());
    assert_int_equal(cal.workers, 1);
    for (int g = 0; g < G; g++) {
        assert_int_equal(cal.workers_gpu[g], 1);
        assert_true(fabs(cal.gap_gpu[g] - gap[g]) < 1e-12);
    }
    assert_true(fabs(cal.worker_gap - 0.2) < 1e-12);
    ss_calib_free(&cal);
}

/* gen_loader_bound into the scratch file NAME (its path into path), then calibrated into cal */
static void gen_calibrated(const char *name, unsigned long seed, int gpus, int W, double gap, char *path, size_t n,
                           ss_calib *cal)
{
    snprintf(path, n, "%s/%s", tu_tmpdir(), name);
    gen_loader_bound(path, seed, gpus, W, gap);
    assert_int_equal(calibrate_file(path, cal), SS_OK);
}

/* A single GPU, and a trace with a single worker: the rule still lands on the truth. */
static void test_single_gpu_and_worker(void **state)
{
    (void)state;
    char path[512];
    ss_calib cal;
    gen_calibrated("cal-1gpu.h5", 9, 1, 3, 0.1, path, sizeof path, &cal);
    assert_int_equal(cal.workers, 3);
    assert_true(fabs(cal.worker_gap - 0.1) < 1e-9);
    ss_calib_free(&cal);
    gen_calibrated("cal-1w.h5", 10, 2, 1, 0.05, path, sizeof path, &cal);
    assert_int_equal(cal.workers, 1);
    assert_true(fabs(cal.worker_gap - 0.05) < 1e-9);
    ss_calib_free(&cal);
}

static int cmp_dbl(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The first window's excess fetch (MODELS-pipeline.md, "The first window of an epoch"): per
 * GPU, the mean over each epoch's first W * P rows of max(0, fetch - the GPU's median
 * fetch), recomputed here from the trace's columns. */
static void test_start_excess(void **state)
{
    (void)state;
    char path[512];
    ss_calib cal;
    gen_calibrated("cal-excess.h5", 11, 2, 3, 0.05, path, sizeof path, &cal);
    ss_comm c;
    ss_comm_self(&c);
    ss_trace_file *t;
    assert_int_equal(ss_trace_open(path, &c, &t), SS_OK);
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const long n = m->iterations;
    const int G = m->gpus;
    double *fs = malloc((size_t)n * G * sizeof *fs), *ft = malloc((size_t)n * G * sizeof *ft);
    double *col = malloc((size_t)n * sizeof *col);
    int32_t *ep = malloc((size_t)n * sizeof *ep);
    assert_true(fs && ft && col && ep);
    assert_int_equal(ss_trace_read_fetch_columns(t, 0, n, 0, G, fs, ft, ep), SS_OK);
    for (int g = 0; g < G; g++) {
        for (long k = 0; k < n; k++) col[k] = ft[k * G + g];
        qsort(col, (size_t)n, sizeof *col, cmp_dbl);
        const double med = (col[(n - 1) / 2] + col[n / 2]) / 2;
        const long WP = (long)cal.workers_gpu[g] * cal.prefetch_gpu[g];
        double sum = 0.0;
        long rows = 0, pos = 0;
        for (long k = 0; k < n; k++) {
            pos = k > 0 && ep[k] == ep[k - 1] ? pos + 1 : 0;
            if (pos < WP) sum += fmax(0.0, ft[k * G + g] - med), rows++;
        }
        assert_true(rows > 0 && WP == 6 && sum > 0.0);
        assert_true(fabs(cal.start_excess_gpu[g] - sum / rows) <= 1e-12);
    }
    free(fs);
    free(ft);
    free(col);
    free(ep);
    ss_trace_close(t);
    ss_calib_free(&cal);
}

/* The FusionFlow reference trace: W = 3 and a gap of 0.22 +- 0.01 s on every GPU, and the
 * calibrated pipeline baseline's mean iteration time within 1 % of the measured 3.117 s. */
static void test_fusionflow(void **state)
{
    (void)state;
    if (access(PREFIX ".csv", R_OK) != 0) {
        print_message("skipped: the reference trace is not at %s\n", REF);
        skip();
    }
    char path[512], ini[1024];
    snprintf(path, sizeof path, "%s/ff.h5", tu_tmpdir());
    long rows;
    int gpus;
    if (ss_dsa_import(PREFIX, path, &rows, &gpus) != SS_OK) fail_msg("import: %s", ss_errmsg());
    assert_int_equal(gpus, 4);
    ss_calib cal;
    assert_int_equal(calibrate_file(path, &cal), SS_OK);
    for (int g = 0; g < gpus; g++) {
        print_message("GPU %d: W=%d P=%d gap=%.4f s refill=%.4f s delivery=%.4f s, start residual %.4f s\n", g,
                      cal.workers_gpu[g], cal.prefetch_gpu[g], cal.gap_gpu[g], cal.refill_gpu[g], cal.delivery_gpu[g],
                      cal.resid_gpu[g]);
        assert_int_equal(cal.workers_gpu[g], 3);
        if (fabs(cal.gap_gpu[g] - 0.22) > 0.01) fail_msg("GPU %d: gap %.4f s, expected 0.22 +- 0.01", g, cal.gap_gpu[g]);
    }
    assert_int_equal(cal.workers, 3);
    assert_true(cal.agree);
    assert_true(fabs(cal.worker_gap - 0.22) <= 0.01);
    ss_calib_free(&cal);

    snprintf(ini, sizeof ini, "[trace]\npath = %s\n[scenarios]\nmodel = pipeline\n", path);
    ss_summary sum;
    ss_scenario *sc;
    int nsc;
    if (tu_run_sweep(ini, &sum, &sc, &nsc) != SS_OK) fail_msg("sweep: %s", ss_errmsg());
    int j = tu_find(sc, nsc, "pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1");
    assert_true(j > 0);
    assert_true(sc[j].baseline);
    assert_int_equal(ss_model_get(sc[j].model)->setting_of(&sc[j], SS_AXIS_WORKERS), 3);
    double meas = sum.p[0].mean[SS_M_ITER], rep = sum.p[j].mean[SS_M_ITER];
    double err = ss_summary_fidelity_err_pct(&sum, j), mape = ss_summary_fidelity_mape_pct(&sum, j);
    print_message("FusionFlow: measured mean %.4f s, calibrated pipeline baseline %.4f s, error %+.3f %%, MAPE %.3f %%\n",
                  meas, rep, err, mape);
    assert_true(fabs(meas - 3.117) < 0.0005);
    assert_true(fabs(err - 100.0 * (rep / meas - 1.0)) < 1e-9);
    if (!(fabs(err) < 1.0)) fail_msg("baseline mean iteration time %.4f s is %.3f %% from the measured %.4f s", rep, err, meas);
    assert_true(mape >= 0 && isfinite(mape));
    ss_summary_free(&sum);
    free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_generating_settings),
        cmocka_unit_test(test_w6_gap),
        cmocka_unit_test(test_gap_is_median_over_gpus),
        cmocka_unit_test(test_single_gpu_and_worker),
        cmocka_unit_test(test_start_excess),
        cmocka_unit_test(test_fusionflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
