/* unit_import_helpers.c - the importers' shared helpers: ranks from file names, the gzip/plain
 * line reader (line ends, NUL bytes, compressed input), and the streaming JSON event reader
 * (fields picked out of nested args, strings holding numbers, a document fed one byte at a
 * time, distributedInfo after the events, the bare list form, malformed lines). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ss_gzline.h"
#include "ss_impfiles.h"
#include "ss_jsonev.h"
#include "test_util.h"

static void rank_is(const char *name, int found, long rank, long of)
{
    long r = -7, o = -7;
    int got = ss_rank_from_name(name, &r, &o);
    if (got != found) fail_msg("%s: found %d, expected %d", name, got, found);
    if (found && (r != rank || o != of)) fail_msg("%s: rank %ld of %ld, expected %ld of %ld", name, r, o, rank, of);
}

static void test_rank_names(void **state)
{
    rank_is("trace-3-of-8.pfw", 1, 3, 8);
    rank_is("/x/run-2-of-8/trace-11-of-16.pfw.gz", 1, 11, 16); /* the base name only */
    rank_is("control_rank3of8.json.gz", 1, 3, 8);
    rank_is("sampled_rank-1.json.gz", 1, 1, -1);
    rank_is("worker_rank_12.json", 1, 12, -1);
    rank_is("trace-of-8.pfw", 0, 0, 0);
    rank_is("distributed_info_not_found.json.gz", 0, 0, 0);
    rank_is("/rank4/plain.json", 0, 0, 0);
}

static const char *write_file(const char *name, const char *text, size_t n, int gz)
{
    static char path[3][512];
    static int k;
    char *p = path[k++ % 3];
    snprintf(p, 512, "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
    if (gz) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "gzip -f '%s'", p);
        assert_int_equal(system(cmd), 0);
        strcat(p, ".gz");
    }
    return p;
}

static void lines_are(const char *path)
{
    static const char *const want[] = {"a", "bb", "", "  x,y ", "last"};
    ss_gzline *r;
    assert_int_equal(ss_gzline_open(path, &r), SS_OK);
    char *line;
    size_t len;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ss_gzline_next(r, &line, &len), SS_OK);
        assert_non_null(line);
        assert_string_equal(line, want[i]);
        assert_int_equal(len, strlen(want[i]));
        assert_int_equal(ss_gzline_lineno(r), i + 1);
    }
    assert_int_equal(ss_gzline_next(r, &line, &len), SS_OK);
    assert_null(line);
    ss_gzline_close(r);
}

static void test_lines(void **state)
{
    static const char text[] = "a\r\nbb\n\n  x,y \nlast";
    lines_are(write_file("lines.txt", text, sizeof text - 1, 0));
    lines_are(write_file("lines2.txt", text, sizeof text - 1, 1));
    /* a line longer than the first buffer (64 KB) */
    size_t big = 200000;
    char *t = malloc(big + 3);
    memset(t, 'q', big);
    memcpy(t + big, "\nz", 3);
    const char *p = write_file("long.txt", t, big + 2, 1);
    ss_gzline *r;
    char *line;
    size_t len;
    assert_int_equal(ss_gzline_open(p, &r), SS_OK);
    assert_int_equal(ss_gzline_next(r, &line, &len), SS_OK);
    assert_int_equal(len, big);
    assert_int_equal(ss_gzline_next(r, &line, &len), SS_OK);
    assert_string_equal(line, "z");
    ss_gzline_close(r);
    free(t);
    /* a NUL byte names the line */
    p = write_file("nul.txt", "ok\nb\0d\nmore\n", 13, 0);
    ss_clear();
    assert_int_equal(ss_gzline_open(p, &r), SS_OK);
    assert_int_equal(ss_gzline_next(r, &line, &len), SS_OK);
    assert_int_equal(ss_gzline_next(r, &line, &len), SS_EDATA);
    assert_non_null(strstr(ss_errmsg(), "nul.txt:2: contains a NUL byte"));
    ss_gzline_close(r);
    assert_int_equal(ss_gzline_open("/nonexistent/x.pfw", &r), SS_EIO);
    assert_int_equal(ss_gzline_open(tu_tmpdir(), &r), SS_EIO);
}

typedef struct {
    ss_jev ev[8];
    int n;
} evlist;

static ss_status keep(void *user, const ss_jev *e)
{
    evlist *l = user;
    if (l->n < 8) l->ev[l->n] = *e;
    l->n++;
    return SS_OK;
}

static void test_json_lines(void **state)
{
    evlist l = {.n = 0};
    ss_jsonev *j;
    assert_int_equal(ss_jsonev_new(1, "t.pfw", keep, &l, &j), SS_OK);
    const char *a = "{\"id\":3,\"name\":\"loop.iter\",\"cat\":\"data_loader\",\"pid\":12,\"tid\":13,\"ts\":1744611914690003,"
                    "\"dur\":2197135,\"ph\":\"X\",\"args\":{\"x\":[{\"step\":99}],\"step\":\"7\",\"epoch\":3.0,"
                    "\"name\":{\"deep\":1}}},";
    assert_int_equal(ss_jsonev_line(j, a, strlen(a), 4), SS_OK);
    assert_int_equal(l.n, 1);
    const ss_jev *e = &l.ev[0];
    assert_string_equal(e->name, "loop.iter");
    assert_string_equal(e->cat, "data_loader");
    assert_string_equal(e->ph, "X");
    assert_true(e->has_ts && e->ts == 1744611914690003.0 && e->has_dur && e->dur == 2197135.0);
    assert_true(e->has_pid && e->pid == 12 && e->has_tid && e->tid == 13);
    assert_true(e->has_step && e->step == 7); /* the string "7", not the nested 99 */
    assert_true(e->has_epoch && e->epoch == 3);
    assert_string_equal(e->argname, "");
    const char *m = "{\"name\":\"S\\\"H\\u00e9\",\"ph\":\"M\",\"args\":{\"name\":\"a;read_threads=4;b\",\"step\":\"x\"}}";
    assert_int_equal(ss_jsonev_line(j, m, strlen(m), 5), SS_OK);
    assert_string_equal(l.ev[1].name, "S\"H\xc3\xa9");
    assert_string_equal(l.ev[1].argname, "a;read_threads=4;b");
    assert_false(l.ev[1].has_step);
    assert_int_equal(ss_cmdline_long(l.ev[1].argname, "read_threads="), 4);
    assert_int_equal(ss_cmdline_long(l.ev[1].argname, "epochs="), -1);
    ss_jsonev_free(j);

    static const char *const bad[] = {"{\"name\":\"a\",", "{} {}", "5", "{\"a\":tru}", "[1,2]"};
    static const char *const msg[] = {"does not end on its line", "expected one JSON object", "expected one JSON object",
                                      "not valid JSON", "expected one JSON object"};
    for (int i = 0; i < 5; i++) {
        l.n = 0;
        ss_clear();
        assert_int_equal(ss_jsonev_new(1, "t.pfw", keep, &l, &j), SS_OK);
        assert_int_equal(ss_jsonev_line(j, bad[i], strlen(bad[i]), 9), SS_EDATA);
        if (!strstr(ss_errmsg(), "t.pfw:9: ") || !strstr(ss_errmsg(), msg[i]))
            fail_msg("'%s': %s", bad[i], ss_errmsg());
        assert_true(ss_jsonev_line_broken(j));
        /* the next line is parsed afresh */
        const char *ok = "{\"name\":\"b\",\"pid\":1}";
        ss_clear();
        assert_int_equal(ss_jsonev_line(j, ok, strlen(ok), 10), SS_OK);
        assert_false(ss_jsonev_line_broken(j));
        assert_string_equal(l.ev[l.n - 1].name, "b");
        ss_jsonev_free(j);
    }
}

static ss_status refuse(void *user, const ss_jev *e)
{
    (void)user;
    return ss_fail(SS_EDATA, "refused %s", e->name);
}

/* pid and tid as strings (DFTracer before mid-2024) are read as numbers are; an event line
 * broken in two by a raw line break is two broken lines; a callback's failure is not one */
static void test_json_lines_older(void **state)
{
    evlist l = {.n = 0};
    ss_jsonev *j;
    assert_int_equal(ss_jsonev_new(1, "t.pfw", keep, &l, &j), SS_OK);
    const char *a = "{\"name\":\"read\",\"pid\":\"1064335\",\"tid\":\" 7 \",\"ts\":\"5\"}";
    assert_int_equal(ss_jsonev_line(j, a, strlen(a), 1), SS_OK);
    assert_true(l.ev[0].has_pid && l.ev[0].pid == 1064335 && l.ev[0].has_tid && l.ev[0].tid == 7);
    const char *b = "{\"name\":\"read\",\"pid\":\"x1\",\"tid\":\"1.5\"}";
    assert_int_equal(ss_jsonev_line(j, b, strlen(b), 2), SS_OK);
    assert_false(l.ev[1].has_pid || l.ev[1].has_tid);
    const char *half1 = "{\"name\":\"open\",\"args\":{\"fname\":\"/data/a", *half2 = "b.h5\"}}";
    ss_clear();
    assert_int_equal(ss_jsonev_line(j, half1, strlen(half1), 3), SS_EDATA);
    assert_true(ss_jsonev_line_broken(j));
    ss_clear();
    assert_int_equal(ss_jsonev_line(j, half2, strlen(half2), 4), SS_EDATA);
    assert_true(ss_jsonev_line_broken(j));
    assert_int_equal(ss_jsonev_line(j, a, strlen(a), 5), SS_OK);
    assert_int_equal(l.n, 3);
    /* a string left open after the object (yajl takes the line) does not run on into the
     * next line */
    const char *open_tail = "{\"name\":\"x\"}\":8}}";
    ss_clear();
    assert_int_equal(ss_jsonev_line(j, open_tail, strlen(open_tail), 6), SS_OK);
    assert_string_equal(l.ev[3].name, "x");
    ss_clear();
    assert_int_equal(ss_jsonev_line(j, a, strlen(a), 7), SS_OK);
    assert_false(ss_jsonev_line_broken(j));
    ss_jsonev_free(j);
    ss_clear();
    assert_int_equal(ss_jsonev_new(1, "t.pfw", refuse, NULL, &j), SS_OK);
    assert_int_equal(ss_jsonev_line(j, a, strlen(a), 1), SS_EDATA);
    assert_false(ss_jsonev_line_broken(j));
    assert_non_null(strstr(ss_errmsg(), "refused read"));
    ss_jsonev_free(j);
    ss_clear();
    (void)state;
}

/* files of one job overlap in time; apart by more than SS_SPAN_GAP_MAX they are refused */
static void test_spans(void **state)
{
    char a[] = "a.pfw", b[] = "b.pfw", c[] = "c.pfw";
    char *paths[] = {a, b, c};
    const double t0[] = {1.7e15, 1.7e15 + 5e5, 1.7e15 + 2e6}, t1[] = {1.7e15 + 3e6, 1.7e15 + 4e6, 1.7e15 + 9e6};
    assert_int_equal(ss_check_spans("x", paths, t0, t1, 3), SS_OK);
    const double late0[] = {1.7e15, 1.7e15 + 5e5, 1.7e15 + 3600e6}, late1[] = {1.7e15 + 3e6, 1.7e15 + 4e6, 1.7e15 + 3700e6};
    ss_clear();
    assert_int_equal(ss_check_spans("x", paths, late0, late1, 3), SS_EDATA);
    if (!strstr(ss_errmsg(), "a.pfw's steps end at") || !strstr(ss_errmsg(), "c.pfw's begin at") ||
        !strstr(ss_errmsg(), "60.0 min later"))
        fail_msg("%s", ss_errmsg());
    const double near0[] = {1.7e15, 1.7e15 + 33e6}, near1[] = {1.7e15 + 3e6, 1.7e15 + 34e6};
    ss_clear();
    assert_int_equal(ss_check_spans("x", paths, near0, near1, 2), SS_OK); /* warned */
    assert_int_equal(ss_check_spans("x", paths, t0, t1, 1), SS_OK);
    ss_clear();
    (void)state;
}

static void doc_in_pieces(const char *doc, size_t piece, evlist *l, long *rank, long *world, int *is_list)
{
    ss_jsonev *j;
    memset(l, 0, sizeof *l);
    assert_int_equal(ss_jsonev_new(0, "t.json", keep, l, &j), SS_OK);
    size_t n = strlen(doc);
    for (size_t at = 0; at < n; at += piece)
        assert_int_equal(ss_jsonev_feed(j, doc + at, n - at < piece ? n - at : piece), SS_OK);
    assert_int_equal(ss_jsonev_finish(j), SS_OK);
    *rank = ss_jsonev_rank(j);
    *world = ss_jsonev_world_size(j);
    *is_list = ss_jsonev_is_list(j);
    ss_jsonev_free(j);
}

static void test_json_document(void **state)
{
    const char *doc = "{\"schemaVersion\":1,\"deviceProperties\":[{\"name\":\"GPU\",\"ts\":5}],\"traceEvents\":["
                      "{\"ph\":\"X\",\"name\":\"ProfilerStep#12\",\"ts\":100.25,\"dur\":50,\"args\":{\"name\":\"n\"}},"
                      "{\"ph\":\"X\",\"name\":\"## data_load ##\",\"ts\":1e2,\"dur\":7.5,\"pid\":\"CPU functions\"}],"
                      "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":8},\"traceName\":\"x\"}";
    for (size_t piece = 1; piece <= 4096; piece *= 8) {
        evlist l;
        long rank, world;
        int is_list;
        doc_in_pieces(doc, piece, &l, &rank, &world, &is_list);
        assert_int_equal(l.n, 2); /* deviceProperties' objects are not events */
        assert_string_equal(l.ev[0].name, "ProfilerStep#12");
        assert_true(l.ev[0].ts == 100.25 && l.ev[0].dur == 50.0 && l.ev[0].seq == 1);
        assert_true(l.ev[1].ts == 100.0 && l.ev[1].dur == 7.5 && !l.ev[1].has_pid && l.ev[1].seq == 2);
        assert_int_equal(rank, 3);
        assert_int_equal(world, 8);
        assert_int_equal(is_list, 0);
    }
    evlist l;
    long rank, world;
    int is_list;
    doc_in_pieces("[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2}, {\"name\":\"b\"}]", 3, &l, &rank, &world, &is_list);
    assert_int_equal(l.n, 2);
    assert_int_equal(is_list, 1);
    assert_int_equal(rank, -1);
    ss_jsonev *j;
    ss_clear();
    assert_int_equal(ss_jsonev_new(0, "cut.json", keep, &l, &j), SS_OK);
    assert_int_equal(ss_jsonev_feed(j, "{\"traceEvents\":[{\"name\":\"a\"}", 28), SS_OK);
    assert_int_equal(ss_jsonev_finish(j), SS_EDATA);
    assert_non_null(strstr(ss_errmsg(), "cut.json: the JSON document is incomplete"));
    ss_jsonev_free(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_names),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_json_lines),
        cmocka_unit_test(test_json_lines_older),
        cmocka_unit_test(test_spans),
        cmocka_unit_test(test_json_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
