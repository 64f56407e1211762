/* unit_roundtrip.c - importing and re-reading round-trips exactly: every value and
 * attribute written by the trace writer comes back bit for bit, whole or in slabs of any
 * size, for an imported DS-Analyzer trio (when the reference is present) and a trace
 * built here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ss_import_dsanalyzer.h"
#include "test_util.h"

#define PREFIX SS_SHARED_DIR "/reference/fusionflow-4gpu/fsNprepNloadNtrain_openimage_randaugment_resnet50_epoch2_b2048_worker12_thread0"

static void assert_same_rows(const ss_slab *a, long a_off, const ss_slab *b, long n, int G)
{
    for (long k = 0; k < n; k++) {
        assert_int_equal(a->epoch[a_off + k], b->epoch[k]);
        assert_int_equal(a->index[a_off + k], b->index[k]);
    }
    size_t bytes = (size_t)n * (size_t)G * sizeof(double);
    long o = a_off * G;
    assert_memory_equal(a->fetch_start + o, b->fetch_start, bytes);
    assert_memory_equal(a->fetch_time + o, b->fetch_time, bytes);
    assert_memory_equal(a->train_start + o, b->train_start, bytes);
    assert_memory_equal(a->iteration_time + o, b->iteration_time, bytes);
    assert_memory_equal(a->stall_time + o, b->stall_time, bytes);
}

/* writes rows with meta m, reads them back in slabs of `slab` rows */
static void roundtrip(const ss_trace_meta *m, const ss_slab *rows, long slab)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rt.h5", tu_tmpdir());
    ss_trace_writer *w;
    assert_int_equal(ss_trace_create(path, m, &w), SS_OK);
    assert_int_equal(ss_trace_append(w, rows), SS_OK);
    assert_int_equal(ss_trace_finish(w), SS_OK);
    ss_comm c;
    ss_comm_self(&c);
    ss_trace_file *t;
    assert_int_equal(ss_trace_open(path, &c, &t), SS_OK);
    const ss_trace_meta *r = ss_trace_meta_of(t);
    assert_int_equal(r->gpus, m->gpus);
    assert_int_equal(r->iterations, m->iterations);
    assert_string_equal(r->time_origin, m->time_origin);
    assert_string_equal(r->log_type, m->log_type);
    assert_string_equal(r->dataset, m->dataset);
    assert_string_equal(r->augmentation, m->augmentation);
    assert_string_equal(r->model, m->model);
    assert_string_equal(r->source, m->source);
    assert_int_equal(r->batch_size, m->batch_size);
    assert_int_equal(r->workers, m->workers);
    assert_int_equal(r->threads, m->threads);
    assert_int_equal(r->epochs, m->epochs);
    ss_slab s;
    assert_int_equal(ss_slab_alloc(&s, slab, m->gpus), SS_OK);
    for (long r0 = 0; r0 < m->iterations; r0 += slab) {
        long n = m->iterations - r0 < slab ? m->iterations - r0 : slab;
        assert_int_equal(ss_trace_read(t, r0, n, &s), SS_OK);
        assert_same_rows(rows, r0, &s, n, m->gpus);
        /* the reader's row sums (eight rows at a time) are a plain loop's, bit for bit */
        for (long k = 0; k < n; k++) {
            double a = 0, b = 0;
            for (int g = 0; g < m->gpus; g++) {
                a += s.fetch_start[k * m->gpus + g];
                b += s.fetch_time[k * m->gpus + g];
            }
            /* and its row extremes are a plain scan's */
            const double *fs = s.fetch_start + k * m->gpus, *ft = s.fetch_time + k * m->gpus,
                         *st = s.stall_time + k * m->gpus, *it = s.iteration_time + k * m->gpus;
            double want[SS_SLAB_NEX] = {fs[0], fs[0], ft[0], ft[0], st[0], st[0], it[0]};
            for (int g = 0; g < m->gpus; g++) {
                want[SS_EX_START_MIN] = fmin(want[SS_EX_START_MIN], fs[g]);
                want[SS_EX_START_MAX] = fmax(want[SS_EX_START_MAX], fs[g]);
                want[SS_EX_FETCH_MIN] = fmin(want[SS_EX_FETCH_MIN], ft[g]);
                want[SS_EX_FETCH_MAX] = fmax(want[SS_EX_FETCH_MAX], ft[g]);
                want[SS_EX_STALL_MIN] = fmin(want[SS_EX_STALL_MIN], st[g]);
                want[SS_EX_STALL_MAX] = fmax(want[SS_EX_STALL_MAX], st[g]);
                want[SS_EX_ITER_MAX] = fmax(want[SS_EX_ITER_MAX], it[g]);
            }
            for (int e = 0; e < SS_SLAB_NEX; e++)
                if (!(s.extremes[k * SS_SLAB_NEX + e] == want[e]))
                    fail_msg("row %ld: extreme %d is %.17g, a plain scan gives %.17g", r0 + k, e,
                             s.extremes[k * SS_SLAB_NEX + e], want[e]);
            if (memcmp(&a, &s.sum_fetch_start[k], sizeof a) || memcmp(&b, &s.sum_fetch_time[k], sizeof b))
                fail_msg("row %ld: sums %.17g %.17g, a plain loop gives %.17g %.17g", r0 + k, s.sum_fetch_start[k],
                         s.sum_fetch_time[k], a, b);
        }
    }
    ss_slab_free(&s);
    ss_trace_close(t);
}

static void test_imported_reference(void **state)
{
    (void)state;
    if (access(PREFIX ".csv", R_OK) != 0) skip();
    ss_trace_meta m;
    ss_slab rows;
    assert_int_equal(ss_dsa_load(PREFIX, &m, &rows), SS_OK);
    assert_int_equal(m.gpus, 4);
    assert_int_equal(m.iterations, 851);
    assert_string_equal(m.time_origin, "2021-09-01T19:48:46.000000");
    assert_string_equal(m.model, "resnet50");
    assert_int_equal(m.workers, 12);
    assert_int_equal(m.batch_size, 2048);
    /* first start of GPU 0: 19:48:46.728082 -> 0.728082 s after the origin */
    assert_true(fabs(rows.fetch_start[0] - 0.728082) < 1e-12);
    /* its training step began at 19:48:55.191641 */
    assert_true(fabs(rows.train_start[0] - 9.191641) < 1e-12);
    assert_true(rows.fetch_time[0] == 8.112918319180608);
    assert_true(rows.iteration_time[0] == 9.777588 && rows.stall_time[0] == 8.596788);
    for (long slab = 1; slab <= 1000; slab *= 10) roundtrip(&m, &rows, slab);
    ss_slab_free(&rows);
}

static void test_built_here(void **state)
{
    (void)state;
    ss_trace_meta m;
    ss_trace_meta_init(&m);
    m.gpus = 3;
    m.iterations = 50;
    snprintf(m.time_origin, sizeof m.time_origin, "1999-12-31T23:59:59.000001");
    snprintf(m.source, sizeof m.source, "unit test ünïcode");
    m.workers = 7;
    ss_slab rows;
    assert_int_equal(ss_slab_alloc(&rows, 50, 3), SS_OK);
    rows.n = 50;
    for (long k = 0; k < 50; k++) {
        rows.epoch[k] = (int32_t)(k / 20);
        rows.index[k] = k % 20 + 1000000000000LL;
        for (int g = 0; g < 3; g++) {
            long x = k * 3 + g;
            rows.fetch_start[x] = 1e-300 * (double)x - 5.0; /* instants may be negative */
            rows.fetch_time[x] = 0.1 * (double)x;
            rows.train_start[x] = 1e6 + 1.0 / 3.0 * (double)x;
            rows.iteration_time[x] = nextafter(1.0, 2.0) * (double)x;
            rows.stall_time[x] = x % 2 ? 0.0 : 1e-9;
        }
    }
    roundtrip(&m, &rows, 7);
    roundtrip(&m, &rows, 50);
    ss_slab_free(&rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_imported_reference),
        cmocka_unit_test(test_built_here),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
