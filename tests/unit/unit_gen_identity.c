/* unit_gen_identity.c - MODELS-pipeline.md: on traces made by ss_gen_write, the pipeline replay with the generating settings gives back every measured iteration time and stall (1e-9 s), row by row and through a sweep (fidelity figures 0); generation is deterministic in the seed. */
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
#include "ss_model_pipeline.h"
#include "ss_row.h"
#include "ss_trace.h"
#include "test_util.h"

#define TOL 1e-9

typedef struct {
    unsigned long seed;
    int gpus, workers, prefetch;
    double worker_gap, refill_gap;
    double fetch_mean, compute_mean, straggler_prob;
} gen_case;

/* Small traces (300 iterations x 2 epochs): several seeds, 1, 2 and 8 GPUs, W >= 2,
 * P in {1, 2, 4}; loader-bound, compute-bound and mixed; with and without gaps. */
static const gen_case CASES[] = {
    {1, 1, 2, 1, 0.0, 0.0, 1.0, 0.3, 0.0},
    {2, 1, 4, 2, 0.1, 0.0, 1.0, 0.05, 0.0},
    {3, 2, 3, 2, 0.0, 0.0, 1.0, 0.3, 0.05},
    {4, 2, 2, 4, 0.05, 0.02, 0.4, 0.5, 0.0},
    {5, 8, 2, 2, 0.0, 0.0, 1.0, 0.3, 0.02},
    {6, 8, 6, 1, 0.1, 0.0, 1.0, 0.05, 0.0},
    {7, 8, 3, 4, 0.2, 0.03, 0.2, 0.4, 0.1},
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

static void make_trace(const gen_case *c, const char *path)
{
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.seed = c->seed;
    p.gpus = c->gpus;
    p.workers = c->workers;
    p.prefetch = c->prefetch;
    p.worker_gap = c->worker_gap;
    p.refill_gap = c->refill_gap;
    p.fetch_mean = c->fetch_mean;
    p.compute_mean = c->compute_mean;
    p.straggler_prob = c->straggler_prob;
    p.iterations = 300;
    p.epochs = 2;
    p.chunk_rows = 128; /* several chunks */
    if (ss_gen_write(&p, path, 0) != SS_OK) fail_msg("gen: %s", ss_errmsg());
}

static void read_all(const char *path, ss_slab *s, ss_trace_meta *m)
{
    ss_comm c;
    ss_comm_self(&c);
    ss_trace_file *t;
    if (ss_trace_open(path, &c, &t) != SS_OK) fail_msg("open: %s", ss_errmsg());
    *m = *ss_trace_meta_of(t);
    assert_int_equal(ss_slab_alloc(s, m->iterations, m->gpus), SS_OK);
    if (ss_trace_read(t, 0, m->iterations, s) != SS_OK) fail_msg("read: %s", ss_errmsg());
    ss_trace_close(t);
}

/* Row by row: ssp_replay_row with the generating settings, ssp_epoch_start at each epoch
 * change; iteration time and every GPU's stall equal the measured ones. */
static void test_rows_reproduced(void **state)
{
    (void)state;
    char path[512];
    for (int ci = 0; ci < NCASES; ci++) {
        const gen_case *c = &CASES[ci];
        snprintf(path, sizeof path, "%s/gen-%d.h5", tu_tmpdir(), ci);
        make_trace(c, path);
        ss_slab s;
        ss_trace_meta m;
        read_all(path, &s, &m);
        const int G = m.gpus;
        assert_int_equal(G, c->gpus);
        assert_int_equal(m.iterations, 600);
        ssp_params p = {.workers = c->workers, .prefetch = c->prefetch, .worker_gap = c->worker_gap,
                        .refill_gap = c->refill_gap, .step_gap = 0, .fetch_scale = 1, .compute_scale = 1,
                        .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE};
        ssp_state ps;
        assert_int_equal(ssp_init(&ps, &p, G), SS_OK);
        double *done = malloc((size_t)G * sizeof *done), *stall = malloc((size_t)G * sizeof *stall);
        int epochs = 0;
        double worst = 0;
        for (long k = 0; k < s.n; k++) {
            if (k == 0 || s.epoch[k] != s.epoch[k - 1]) {
                ssp_epoch_start(&ps);
                epochs++;
            }
            ss_row row = {.gpus = G, .fetch_start = s.fetch_start + k * G, .fetch_time = s.fetch_time + k * G,
                          .iteration_time = s.iteration_time + k * G, .stall_time = s.stall_time + k * G,
                          .done = done};
            ss_row_prepare(&row, 0, NULL);
            ss_step out;
            ssp_replay_row(&ps, &row, stall, &out);
            double e = fabs(out.iter_time - row.iter_max);
            if (e > worst) worst = e;
            if (e > TOL)
                fail_msg("case %d row %ld: iteration time %.12g, measured %.12g", ci, k, out.iter_time, row.iter_max);
            if (fabs(out.stall - row.stall_max) > TOL)
                fail_msg("case %d row %ld: stall %.12g, measured %.12g", ci, k, out.stall, row.stall_max);
            for (int g = 0; g < G; g++)
                if (fabs(stall[g] - row.stall_time[g]) > TOL)
                    fail_msg("case %d row %ld gpu %d: stall %.12g, measured %.12g", ci, k, g, stall[g],
                             row.stall_time[g]);
        }
        assert_int_equal(epochs, 2);
        print_message("case %d (seed %lu, G=%d W=%d P=%d gap=%g): largest iteration-time error %.3g s\n", ci,
                      c->seed, c->gpus, c->workers, c->prefetch, c->worker_gap, worst);
        free(done);
        free(stall);
        ssp_free(&ps);
        ss_slab_free(&s);
    }
}

/* Through a sweep: the row with the generating settings has the measured mean iteration
 * time and stall, and both fidelity figures (mean error and MAPE) are 0. */
static void test_sweep_reproduces(void **state)
{
    (void)state;
    char path[512], ini[2048], name[160];
    for (int ci = 0; ci < NCASES; ci++) {
        const gen_case *c = &CASES[ci];
        snprintf(path, sizeof path, "%s/gen-%d.h5", tu_tmpdir(), ci);
        make_trace(c, path);
        snprintf(ini, sizeof ini,
                 "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nworkers = %d\n"
                 "prefetch = %d\nfetch_scale = 1\ncompute_scale = 1\nfetch_align = none\nstart_align = none\n"
                 "[pipeline]\nworker_gap = %.17g\nrefill_gap = %.17g\nstep_gap = 0\n",
                 path, c->workers, c->prefetch, c->worker_gap, c->refill_gap);
        ss_summary sum;
        ss_scenario *sc;
        int nsc;
        if (tu_run_sweep(ini, &sum, &sc, &nsc) != SS_OK) fail_msg("sweep: %s", ss_errmsg());
        assert_int_equal(nsc, 2);
        snprintf(name, sizeof name, "pipeline_fetch-none_start-none_w-%d_p%d_fs1_cs1", c->workers, c->prefetch);
        int j = tu_find(sc, nsc, name);
        assert_int_equal(j, 1);
        assert_true(sum.p[0].n == 600 && sum.p[j].n == 600);
        double err = ss_summary_change_pct(&sum, j), mape = sum.p[j].mean[SS_M_APE];
        if (!(fabs(err) < TOL) || !(fabs(mape) < TOL))
            fail_msg("case %d: mean error %.3g %%, MAPE %.3g %%", ci, err, mape);
        assert_true(fabs(sum.p[j].mean[SS_M_ITER] - sum.p[0].mean[SS_M_ITER]) < TOL);
        assert_true(fabs(sum.p[j].mean[SS_M_STALL] - sum.p[0].mean[SS_M_STALL]) < TOL);
        assert_true(fabs(sum.p[j].mean[SS_M_DELAY] - sum.p[0].mean[SS_M_DELAY]) < TOL);
        ss_summary_free(&sum);
        free(sc);
    }
}

/* The sweep's own baseline row (workers = auto, worker_gap = auto: nothing changed) on a
 * loader-bound generated trace, where the calibration recovers the generating W and gap:
 * ss_summary_fidelity_err_pct and _mape_pct are 0. */
static void test_baseline_fidelity_zero(void **state)
{
    (void)state;
    const gen_case lb[3] = {{11, 4, 3, 2, 0.1, 0.0, 1.0, 0.05, 0.0},
                            {12, 2, 2, 2, 0.0, 0.0, 1.0, 0.05, 0.0},
                            {13, 1, 3, 4, 0.1, 0.0, 1.0, 0.05, 0.0}};
    char path[512], ini[2048];
    for (int ci = 0; ci < 3; ci++) {
        snprintf(path, sizeof path, "%s/lb-%d.h5", tu_tmpdir(), ci);
        make_trace(&lb[ci], path);
        snprintf(ini, sizeof ini,
                 "[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nworkers = auto\n"
                 "prefetch = %d\n[pipeline]\nworker_gap = auto\n",
                 path, lb[ci].prefetch);
        ss_summary sum;
        ss_scenario *sc;
        int nsc;
        if (tu_run_sweep(ini, &sum, &sc, &nsc) != SS_OK) fail_msg("sweep: %s", ss_errmsg());
        char name[160];
        snprintf(name, sizeof name, "pipeline_fetch-none_start-none_w-auto_p%d_fs1_cs1", lb[ci].prefetch);
        int j = tu_find(sc, nsc, name);
        assert_true(j > 0);
        assert_true(sc[j].baseline);
        assert_true(sum.has_calib);
        assert_int_equal(sum.calib.workers, lb[ci].workers);
        assert_true(fabs(sum.calib.worker_gap - lb[ci].worker_gap) < TOL);
        double err = ss_summary_fidelity_err_pct(&sum, j), mape = ss_summary_fidelity_mape_pct(&sum, j);
        if (!(fabs(err) < TOL) || !(fabs(mape) < TOL))
            fail_msg("loader-bound case %d: fidelity error %.3g %%, MAPE %.3g %%", ci, err, mape);
        assert_true(isnan(ss_summary_fidelity_err_pct(&sum, 0)));
        ss_summary_free(&sum);
        free(sc);
    }
}

static int slabs_equal(const ss_slab *a, const ss_slab *b)
{
    if (a->n != b->n || a->gpus != b->gpus) return 0;
    size_t nn = (size_t)a->n, ng = nn * (size_t)a->gpus * sizeof(double);
    return !memcmp(a->epoch, b->epoch, nn * sizeof *a->epoch) && !memcmp(a->index, b->index, nn * sizeof *a->index) &&
           !memcmp(a->fetch_start, b->fetch_start, ng) && !memcmp(a->fetch_time, b->fetch_time, ng) &&
           !memcmp(a->train_start, b->train_start, ng) && !memcmp(a->iteration_time, b->iteration_time, ng) &&
           !memcmp(a->stall_time, b->stall_time, ng);
}

/* The same seed gives the same data (bit for bit, whatever the chunking); another seed
 * gives other data. */
static void test_seed_determinism(void **state)
{
    (void)state;
    char a[512], b[512], d[512];
    gen_case c = {42, 2, 3, 2, 0.05, 0.0, 1.0, 0.3, 0.05};
    snprintf(a, sizeof a, "%s/seed-a.h5", tu_tmpdir());
    snprintf(b, sizeof b, "%s/seed-b.h5", tu_tmpdir());
    snprintf(d, sizeof d, "%s/seed-d.h5", tu_tmpdir());
    make_trace(&c, a);
    make_trace(&c, b);
    c.seed = 43;
    make_trace(&c, d);
    ss_slab sa, sb, sd;
    ss_trace_meta ma, mb, md;
    read_all(a, &sa, &ma);
    read_all(b, &sb, &mb);
    read_all(d, &sd, &md);
    assert_true(slabs_equal(&sa, &sb));
    assert_false(slabs_equal(&sa, &sd));
    /* the drawn fetch times differ nearly everywhere */
    long same = 0, n = sa.n * sa.gpus;
    for (long i = 0; i < n; i++) same += sa.fetch_time[i] == sd.fetch_time[i];
    assert_true(same < n / 100);
    ss_slab_free(&sa);
    ss_slab_free(&sb);
    ss_slab_free(&sd);

    /* a different chunking of the writes gives the same data */
    ss_gen_params p;
    ss_gen_defaults(&p);
    p.seed = 7;
    p.gpus = 2;
    p.iterations = 300;
    p.epochs = 2;
    p.chunk_rows = 1000;
    assert_int_equal(ss_gen_write(&p, a, 0), SS_OK);
    p.chunk_rows = 37;
    assert_int_equal(ss_gen_write(&p, b, 0), SS_OK);
    read_all(a, &sa, &ma);
    read_all(b, &sb, &mb);
    assert_true(slabs_equal(&sa, &sb));
    ss_slab_free(&sa);
    ss_slab_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_reproduced),
        cmocka_unit_test(test_sweep_reproduces),
        cmocka_unit_test(test_baseline_fidelity_zero),
        cmocka_unit_test(test_seed_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
