/* unit_atomic.c - sim/base/ss_atomic: the pair commit (both new, or both as before when
 * the second step fails), the output checks (inputs by device and inode, kinds, folders),
 * the registry of temporaries and the digest (FNV-1a 64 of known strings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ss_atomic.h"
#include "test_util.h"

static char dir[4096];

static void put(const char *name, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* the file's text, or "(none)" */
static const char *get(const char *name)
{
    static char buf[256];
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f) return "(none)";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static const char *at(const char *name)
{
    static char p[4][4200];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void test_pair_replaces_both(void **state)
{
    put("r.h5", "old r");
    put("s.csv", "old s");
    put(".r.tmp", "new r");
    put(".s.tmp", "new s");
    assert_int_equal(ss_atomic_commit_pair(at(".r.tmp"), at("r.h5"), at(".s.tmp"), at("s.csv")), SS_OK);
    assert_string_equal(get("r.h5"), "new r");
    assert_string_equal(get("s.csv"), "new s");
    assert_string_equal(get(".r.tmp"), "(none)");
    assert_string_equal(get(".s.tmp"), "(none)");
    assert_string_equal(get(".stallsim.lock"), ""); /* the lock file, empty */
}

static void test_pair_first_time(void **state)
{
    put(".r2.tmp", "new r");
    put(".s2.tmp", "new s");
    assert_int_equal(ss_atomic_commit_pair(at(".r2.tmp"), at("r2.h5"), at(".s2.tmp"), at("s2.csv")), SS_OK);
    assert_string_equal(get("r2.h5"), "new r");
    assert_string_equal(get("s2.csv"), "new s");
}

/* the second step fails (its temporary is missing): the first is undone */
static void test_pair_undo(void **state)
{
    put("r3.h5", "old r");
    put("s3.csv", "old s");
    put(".r3.tmp", "new r");
    ss_clear();
    assert_int_equal(ss_atomic_commit_pair(at(".r3.tmp"), at("r3.h5"), at(".s3.tmp"), at("s3.csv")), SS_EIO);
    assert_non_null(strstr(ss_errmsg(), "s3.csv"));
    assert_string_equal(get("r3.h5"), "old r");
    assert_string_equal(get("s3.csv"), "old s");
    assert_string_equal(get(".r3.tmp"), "(none)");
    ss_clear();
    /* without an earlier pair: nothing is left at all */
    put(".r4.tmp", "new r");
    assert_int_equal(ss_atomic_commit_pair(at(".r4.tmp"), at("r4.h5"), at(".s4.tmp"), at("s4.csv")), SS_EIO);
    assert_string_equal(get("r4.h5"), "(none)");
    assert_string_equal(get(".r4.tmp"), "(none)");
    ss_clear();
}

/* the same on a file system that cannot exchange two names: the earlier pair still comes
 * back when the second step fails, and no second name is left behind */
static void test_pair_undo_without_exchange(void **state)
{
    ss_atomic_test_no_exchange(1);
    put("r5.h5", "old r");
    put("s5.csv", "old s");
    put(".r5.tmp", "new r");
    ss_clear();
    assert_int_equal(ss_atomic_commit_pair(at(".r5.tmp"), at("r5.h5"), at(".s5.tmp"), at("s5.csv")), SS_EIO);
    assert_string_equal(get("r5.h5"), "old r");
    assert_string_equal(get("s5.csv"), "old s");
    assert_string_equal(get(".r5.tmp"), "(none)");
    assert_string_equal(get(".r5.tmp.old"), "(none)");
    ss_clear();
    put(".r5.tmp", "new r");
    put(".s5.tmp", "new s");
    assert_int_equal(ss_atomic_commit_pair(at(".r5.tmp"), at("r5.h5"), at(".s5.tmp"), at("s5.csv")), SS_OK);
    assert_string_equal(get("r5.h5"), "new r");
    assert_string_equal(get("s5.csv"), "new s");
    assert_string_equal(get(".r5.tmp.old"), "(none)");
    assert_string_equal(get(".s5.tmp.old"), "(none)");
    /* a leftover copy under this process's name (an earlier process of the same id) does
     * not stop the earlier file from being kept and brought back */
    put("r6.h5", "old r");
    put("s6.csv", "old s");
    put(".r6.tmp", "new r");
    put(".r6.tmp.old", "leftover");
    ss_clear();
    assert_int_equal(ss_atomic_commit_pair(at(".r6.tmp"), at("r6.h5"), at(".s6.tmp"), at("s6.csv")), SS_EIO);
    assert_non_null(strstr(ss_errmsg(), "r6.h5 is left as it was"));
    assert_string_equal(get("r6.h5"), "old r");
    assert_string_equal(get(".r6.tmp.old"), "(none)");
    ss_clear();
    ss_atomic_test_no_exchange(0);
}

static int is_hello(const char *path) { return ss_atomic_starts_with(path, "hello,"); }

static void test_check_output(void **state)
{
    put("in.txt", "input");
    put("mine.csv", "hello,world\n");
    put("other.csv", "a,b\n");
    put("empty.csv", "");
    char in[4200];
    snprintf(in, sizeof in, "%s", at("in.txt"));
    const char *inputs[] = {in};
    assert_int_equal(ss_atomic_check_output(at("new.csv"), inputs, 1, is_hello, "hello CSV"), SS_OK);
    assert_int_equal(ss_atomic_check_output(at("mine.csv"), inputs, 1, is_hello, "hello CSV"), SS_OK);
    assert_int_equal(ss_atomic_check_output(at("empty.csv"), inputs, 1, is_hello, "hello CSV"), SS_OK);
    ss_clear();
    assert_int_equal(ss_atomic_check_output(at("other.csv"), inputs, 1, is_hello, "hello CSV"), SS_EUSAGE);
    assert_non_null(strstr(ss_errmsg(), "is not a hello CSV"));
    ss_clear();
    /* the input under another name: a hard link, and a path with ./ in it */
    assert_int_equal(link(at("in.txt"), at("alias.csv")), 0);
    assert_int_equal(ss_atomic_check_output(at("alias.csv"), inputs, 1, NULL, "x"), SS_EUSAGE);
    assert_non_null(strstr(ss_errmsg(), "would replace the input"));
    ss_clear();
    char dotted[4300];
    snprintf(dotted, sizeof dotted, "%s/./in.txt", dir);
    assert_int_equal(ss_atomic_check_output(dotted, inputs, 1, NULL, "x"), SS_EUSAGE);
    ss_clear();
    assert_int_equal(ss_atomic_check_output(dir, inputs, 1, NULL, "x"), SS_EUSAGE);
    assert_non_null(strstr(ss_errmsg(), "is a folder"));
    ss_clear();
}

/* FNV-1a 64: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c (the published test values) */
static void test_digest(void **state)
{
    char d[17];
    put("e.txt", "");
    assert_int_equal(ss_atomic_file_digest(at("e.txt"), d), 0);
    assert_string_equal(d, "cbf29ce484222325");
    put("a.txt", "a");
    assert_int_equal(ss_atomic_file_digest(at("a.txt"), d), 0);
    assert_string_equal(d, "af63dc4c8601ec8c");
    assert_int_equal(ss_atomic_file_digest(at("missing.txt"), d), -1);
}

/* a committed or discarded temporary is forgotten; the registry holds 16 */
static void test_tmpname(void **state)
{
    char t[4300];
    assert_int_equal(ss_atomic_tmpname(at("out.h5"), t, sizeof t), SS_OK);
    /* ".<name>.tmp.<host>_<pid namespace>-<pid>": the host name up to its first dot (this
     * test's host names have no characters to replace), the namespace's number */
    char host[256] = "", ns[64] = "", nsnum[64] = "", want[4300];
    assert_int_equal(gethostname(host, sizeof host), 0);
    host[strcspn(host, ".")] = '\0';
    ssize_t m = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    if (m > 0) {
        ns[m] = '\0';
        size_t k = 0;
        for (const char *c = ns; *c; c++)
            if (*c >= '0' && *c <= '9') nsnum[k++] = *c;
        nsnum[k] = '\0';
    }
    snprintf(want, sizeof want, "%s/.out.h5.tmp.%s%s%s-%ld", dir, host[0] ? host : "host", m > 0 ? "_" : "", nsnum,
             (long)getpid());
    assert_string_equal(t, want);
    char owner[SS_ATOMIC_OWNER_MAX];
    ss_atomic_owner(owner, sizeof owner);
    assert_non_null(strstr(t, owner));
    put(".out.h5.tmp.x", "t");
    ss_atomic_discard(t);
    for (int i = 0; i < 40; i++) {
        char p[64];
        snprintf(p, sizeof p, "/nonexistent/%d", i);
        ss_atomic_track(p);
        ss_atomic_untrack(p);
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_replaces_both), cmocka_unit_test(test_pair_first_time),
        cmocka_unit_test(test_pair_undo),
        cmocka_unit_test(test_pair_undo_without_exchange),
        cmocka_unit_test(test_check_output),
        cmocka_unit_test(test_digest),             cmocka_unit_test(test_tmpname),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
