/* unit_config.c - the scenario file (config/ss_config.h): defaults, lists, aliases,
 * paths relative to the INI file's folder, --set overrides, the sweep's cartesian product and
 * its order (sim/ss_scenario.h), and every kind of error with a "file:line" message. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ss_config.h"
#include "ss_scenario.h"
#include "ss_model_independent.h"
#include "ss_pipeline_internal.h"
#include "test_util.h"

/* the models' sections of a loaded configuration */
#define PIPE(c) ssp_options_of(&(c))
#define IND(c) ((const ssi_params *)ss_config_options(&(c), "independent"))

/* the folder of the files that tu_write_ini writes */
static const char *dir(void) { return tu_tmpdir(); }

static ss_status load(const char *text, ss_config *c, char *path_out)
{
    const char *path = tu_write_ini(text);
    if (path_out) snprintf(path_out, 512, "%s", path);
    ss_clear();
    return ss_config_load(c, path, 0, NULL);
}

static void load_ok(const char *text, ss_config *c)
{
    if (load(text, c, NULL) != SS_OK) fail_msg("load failed: %s", ss_errmsg());
}

/* Loads text expecting SS_ECONFIG with a message holding "FILE:LINE" and needle (if any). */
static void expect_error_at(const char *text, int line, const char *needle)
{
    ss_config c;
    char path[512], where[600];
    ss_status st = load(text, &c, path);
    const char *msg = ss_errmsg();
    ss_config_free(&c);
    if (st != SS_ECONFIG) fail_msg("expected SS_ECONFIG, got %d (message '%s') for:\n%s", (int)st, msg, text);
    snprintf(where, sizeof where, "%s:%d", path, line);
    if (!strstr(msg, where)) fail_msg("message '%s' does not name %s", msg, where);
    if (needle && !strstr(msg, needle)) fail_msg("message '%s' does not mention '%s'", msg, needle);
}

/* ---------------------------------------------------------------- values */

static void test_defaults(void **state)
{
    (void)state;
    ss_config c;
    load_ok("[trace]\npath = /data/t.h5\n", &c);
    assert_string_equal(c.trace_path, "/data/t.h5");
    assert_int_equal(c.epoch_all, 1);
    assert_int_equal(c.warmup_iterations, 11);
    assert_int_equal(c.n_models, 1);
    assert_int_equal(c.models[0], SS_MODEL_INDEPENDENT);
    assert_int_equal(c.n_fetch, 1);
    assert_int_equal(c.fetch_align[0], SS_ALIGN_NONE);
    assert_int_equal(c.n_start, 1);
    assert_int_equal(c.start_align[0], SS_ALIGN_NONE);
    assert_true(IND(c)->stall_floor == 0.000002);
    assert_true(IND(c)->stall_sensitivity == 0.01);
    assert_true(c.effective_delay_threshold == 0.030);
    assert_int_equal(c.per_iteration, 0);
    /* pipeline defaults (MODELS-pipeline.md): workers auto, prefetch 2, scales 1, worker_gap auto, gaps 0 */
    assert_int_equal(c.n_workers, 1);
    assert_int_equal(c.workers[0].is_auto, 1);
    assert_true(c.workers[0].value == 1.0);
    assert_int_equal(c.n_prefetch, 1);
    assert_int_equal(c.prefetch[0], 2);
    assert_int_equal(c.n_fetch_scale, 1);
    assert_true(c.fetch_scale[0] == 1.0);
    assert_int_equal(c.n_compute_scale, 1);
    assert_true(c.compute_scale[0] == 1.0);
    assert_int_equal(PIPE(c)->worker_gap.is_auto, 1);
    /* issue 11: refill_gap and delivery default to auto (calibrated per GPU) */
    assert_true(PIPE(c)->refill_gap.is_auto && PIPE(c)->refill_gap.value == 1.0 && PIPE(c)->step_gap == 0.0);
    assert_true(PIPE(c)->delivery.is_auto && PIPE(c)->delivery.value == 1.0);
    ss_config_free(&c);
}

/* README: scenario files shows `dir = results ; relative to this file's folder` in a file that spells out the
 * defaults: without a dir key the output folder is <INI folder>/results, as if written. */
static void test_default_out_dir_relative_to_file(void **state)
{
    (void)state;
    ss_config c, d;
    char want[600];
    snprintf(want, sizeof want, "%s/results", dir());
    load_ok("[trace]\npath = t.h5\n[output]\ndir = results\n", &d);
    assert_string_equal(d.out_dir, want);
    load_ok("[trace]\npath = t.h5\n", &c);
    assert_string_equal(c.out_dir, d.out_dir);
    ss_config_free(&c);
    ss_config_free(&d);
}

static void test_relative_paths(void **state)
{
    (void)state;
    ss_config c;
    char want[600];
    load_ok("[trace]\npath = sub/t.h5   ; a comment\n[output]\ndir = out\n", &c);
    snprintf(want, sizeof want, "%s/sub/t.h5", dir());
    assert_string_equal(c.trace_path, want);
    snprintf(want, sizeof want, "%s/out", dir());
    assert_string_equal(c.out_dir, want);
    ss_config_free(&c);
    /* absolute paths stay */
    load_ok("[trace]\npath = /abs/t.h5\n[output]\ndir = /abs/out\n", &c);
    assert_string_equal(c.trace_path, "/abs/t.h5");
    assert_string_equal(c.out_dir, "/abs/out");
    ss_config_free(&c);
}

static void test_lists_and_values(void **state)
{
    (void)state;
    ss_config c;
    load_ok("; a scenario file\n"
            "[trace]\n"
            "path = /t.h5\n"
            "epoch = 3\n"
            "warmup_iterations = 0\n"
            "[scenarios]\n"
            "model = independent, pipeline\n"
            "fetch_align = false, min,avg ,median,max\n"
            "start_align = none, false, min, avg, mean\n"
            "workers = auto, 2, auto*2, auto/2\n"
            "prefetch = 1, 4\n"
            "fetch_scale = 1, 0.5\n"
            "compute_scale = 0.25\n"
            "[independent]\n"
            "stall_floor = 0.5\n"
            "stall_sensitivity = 0.25\n"
            "[pipeline]\n"
            "worker_gap = 0.125\n"
            "refill_gap = 0.0625\n"
            "step_gap = 0.03125\n"
            "[summary]\n"
            "effective_delay_threshold = 0.2\n"
            "[output]\n"
            "per_iteration = true\n",
            &c);
    assert_int_equal(c.epoch_all, 0);
    assert_int_equal(c.epoch, 3);
    assert_int_equal(c.warmup_iterations, 0);
    assert_int_equal(c.n_models, 2);
    assert_int_equal(c.models[0], SS_MODEL_INDEPENDENT);
    assert_int_equal(c.models[1], SS_MODEL_PIPELINE);
    assert_int_equal(c.n_fetch, 5);
    const ss_align fa[] = {SS_ALIGN_NONE, SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEDIAN, SS_ALIGN_MAX};
    for (int i = 0; i < 5; i++) assert_int_equal(c.fetch_align[i], fa[i]);
    assert_int_equal(c.n_start, 5);
    const ss_align sa[] = {SS_ALIGN_NONE, SS_ALIGN_NONE, SS_ALIGN_MIN, SS_ALIGN_AVG, SS_ALIGN_MEAN};
    for (int i = 0; i < 5; i++) assert_int_equal(c.start_align[i], sa[i]);
    assert_int_equal(c.n_workers, 4);
    assert_true(c.workers[0].is_auto && c.workers[0].value == 1.0);
    assert_true(!c.workers[1].is_auto && c.workers[1].value == 2.0);
    assert_true(c.workers[2].is_auto && c.workers[2].value == 2.0);
    assert_true(c.workers[3].is_auto && c.workers[3].value == 0.5);
    assert_int_equal(c.n_prefetch, 2);
    assert_int_equal(c.prefetch[0], 1);
    assert_int_equal(c.prefetch[1], 4);
    assert_int_equal(c.n_fetch_scale, 2);
    assert_true(c.fetch_scale[0] == 1.0 && c.fetch_scale[1] == 0.5);
    assert_int_equal(c.n_compute_scale, 1);
    assert_true(c.compute_scale[0] == 0.25);
    assert_true(IND(c)->stall_floor == 0.5);
    assert_true(IND(c)->stall_sensitivity == 0.25);
    assert_true(!PIPE(c)->worker_gap.is_auto && PIPE(c)->worker_gap.value == 0.125);
    assert_true(!PIPE(c)->refill_gap.is_auto && PIPE(c)->refill_gap.value == 0.0625);
    assert_true(PIPE(c)->step_gap == 0.03125);
    assert_true(c.effective_delay_threshold == 0.2);
    assert_int_equal(c.per_iteration, 1);
    ss_config_free(&c);

    load_ok("[trace]\npath = /t.h5\nepoch = all\n[output]\nper_iteration = false\n", &c);
    assert_int_equal(c.epoch_all, 1);
    assert_int_equal(c.per_iteration, 0);
    ss_config_free(&c);
}

/* ---------------------------------------------------------------- the sweep */

/* 2 models; workers 2 values, prefetch 2, fetch_scale 2, compute_scale 2, fetch_align 2,
 * start_align 2: 1 (measured) + 2 x 2 (independent: the aligns only) + 2^6 (pipeline) = 69,
 * in order: measured; independent (fetch outer, start inner); pipeline with workers, prefetch,
 * fetch_scale, compute_scale, fetch_align, start_align nested outer to inner. */
/* the lists of the two sweeps below: two models, six axes of two values each */
#define SWEEP_LISTS                                                                                        \
    "model = independent, pipeline\nworkers = auto, 2\nprefetch = 2, 4\nfetch_scale = 1, 0.5\n"            \
    "compute_scale = 1, 0.25\nfetch_align = none, min\nstart_align = none, avg\n"

static void test_cartesian_product(void **state)
{
    (void)state;
    ss_config c;
    load_ok("[trace]\npath = /t.h5\n[scenarios]\n" SWEEP_LISTS, &c);
    ss_scenario *sc;
    int n;
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 69);
    assert_int_equal(sc[0].model, SS_MODEL_MEASURED);
    assert_string_equal(sc[0].name, "measured");
    const ss_align fa[] = {SS_ALIGN_NONE, SS_ALIGN_MIN}, sa[] = {SS_ALIGN_NONE, SS_ALIGN_AVG};
    const char *ind_names[] = {"independent_fetch-none_start-none", "independent_fetch-none_start-avg",
                               "independent_fetch-min_start-none", "independent_fetch-min_start-avg"};
    for (int i = 0; i < 4; i++) {
        const ss_scenario *s = &sc[1 + i];
        assert_int_equal(s->model, SS_MODEL_INDEPENDENT);
        assert_int_equal(s->fetch_align, fa[i / 2]);
        assert_int_equal(s->start_align, sa[i % 2]);
        assert_string_equal(s->name, ind_names[i]);
        assert_int_equal(s->baseline, i == 0);
    }
    const double fsc[] = {1, 0.5}, csc[] = {1, 0.25};
    const long pf[] = {2, 4};
    int k = 5;
    for (int w = 0; w < 2; w++)
        for (int p = 0; p < 2; p++)
            for (int f = 0; f < 2; f++)
                for (int cs = 0; cs < 2; cs++)
                    for (int a = 0; a < 2; a++)
                        for (int b = 0; b < 2; b++, k++) {
                            const ss_scenario *s = &sc[k];
                            assert_int_equal(s->model, SS_MODEL_PIPELINE);
                            assert_int_equal(s->workers.is_auto, w == 0);
                            assert_true(s->workers.value == (w == 0 ? 1.0 : 2.0));
                            assert_int_equal(s->prefetch, pf[p]);
                            assert_true(s->fetch_scale == fsc[f]);
                            assert_true(s->compute_scale == csc[cs]);
                            assert_int_equal(s->fetch_align, fa[a]);
                            assert_int_equal(s->start_align, sa[b]);
                            if (w == 1 || f == 1 || cs == 1 || a == 1 || b == 1) assert_int_equal(s->baseline, 0);
                            if (w == 0 && p == 0 && f == 0 && cs == 0 && a == 0 && b == 0)
                                assert_int_equal(s->baseline, 1);
                        }
    assert_int_equal(k, 69);
    /* names are unique */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!strcmp(sc[i].name, sc[j].name)) fail_msg("scenarios %d and %d share the name %s", i, j, sc[i].name);
    free(sc);
    ss_config_free(&c);

    /* models in the order listed; defaults give 1 + 1 + 1 */
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline, independent\n", &c);
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 3);
    assert_int_equal(sc[0].model, SS_MODEL_MEASURED);
    assert_int_equal(sc[1].model, SS_MODEL_PIPELINE);
    assert_int_equal(sc[2].model, SS_MODEL_INDEPENDENT);
    free(sc);
    ss_config_free(&c);

    /* the notebook's 3 x 3 sweep: 10 rows */
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = none, avg, min\nstart_align = none, avg, min\n", &c);
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 10);
    assert_string_equal(sc[1].name, "independent_fetch-none_start-none");
    assert_string_equal(sc[2].name, "independent_fetch-none_start-avg");
    assert_string_equal(sc[4].name, "independent_fetch-avg_start-none");
    assert_string_equal(sc[9].name, "independent_fetch-min_start-min");
    free(sc);
    ss_config_free(&c);
}

/* PyTorch refuses persistent workers without workers: workers = 0 (as listed) gets no
 * persistent_workers = true scenario while another value is listed, on every other axis; it
 * keeps it where true is the only value. auto keeps it, but on a synchronous trace, where
 * auto is 0. */
static void test_no_persistent_without_workers(void **state)
{
    (void)state;
    ss_config c;
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, 0, 4\n"
            "persistent_workers = auto, false, true\nfetch_scale = 1, 0.5\n",
            &c);
    ss_scenario *sc;
    int n;
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 1 + 3 * 3 * 2 - 2); /* the measured row; less W=0 pw=true at both scales */
    int zero_true = 0, zero = 0, auto_true = 0;
    for (int i = 1; i < n; i++) {
        const int z = !sc[i].workers.is_auto && sc[i].workers.value == 0.0;
        zero += z;
        zero_true += z && sc[i].persistent == 1;
        auto_true += sc[i].workers.is_auto && sc[i].persistent == 1;
    }
    assert_int_equal(zero, 4);
    assert_int_equal(zero_true, 0);
    assert_int_equal(auto_true, 2);
    free(sc);
    ss_config_free(&c);
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline\nworkers = 0, 2\npersistent_workers = true\n", &c);
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 3);
    assert_int_equal(sc[1].persistent, 1);
    assert_true(!sc[1].workers.is_auto && sc[1].workers.value == 0.0);
    free(sc);
    ss_config_free(&c);
    /* the refused pair last in the odometer (workers 0 last, true last): two scenarios
     * built, and nothing written past them (valgrind and ASan see it) */
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline\nworkers = 0\npersistent_workers = auto, true\n", &c);
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(sc[1].persistent, SS_PERSIST_AUTO);
    free(sc);
    ss_config_free(&c);
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, 0\npersistent_workers = auto, true\n"
            "heal = none, each\n", &c);
    assert_int_equal(ss_scenarios_build_gpus(&c, 2, &sc, &n), SS_OK);
    assert_int_equal(n, 1 + 3 * (4 - 1));
    for (int i = 1; i < n; i++) assert_false(!sc[i].workers.is_auto && sc[i].workers.value == 0.0 && sc[i].persistent == 1);
    free(sc);
    ss_config_free(&c);
    /* on a synchronous trace workers = auto (and auto*F) is 0: no true scenario for it */
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2, 1\n"
            "persistent_workers = auto, true\n", &c);
    assert_int_equal(ss_scenarios_build_trace(&c, 2, 0, &sc, &n), SS_OK);
    assert_int_equal(n, 1 + 3 * 2);
    free(sc);
    assert_int_equal(ss_scenarios_build_trace(&c, 2, 1, &sc, &n), SS_OK);
    assert_int_equal(n, 1 + 3 * 2 - 2);
    for (int i = 1; i < n; i++) assert_false(sc[i].workers.is_auto && sc[i].persistent == 1);
    free(sc);
    ss_config_free(&c);
    /* it takes every switch's spellings, as the other switches do: on and off too */
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nmodel = pipeline\nworkers = 2\npersistent_workers = On, off, auto\n", &c);
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 4);
    assert_int_equal(sc[1].persistent, 1);
    assert_int_equal(sc[2].persistent, 0);
    assert_int_equal(sc[3].persistent, SS_PERSIST_AUTO);
    free(sc);
    ss_config_free(&c);
}

/* `false` and `none` are the same scenario: listing both is a repeated scenario. */
/* sweep = each: per model, every list's first value, then each list's other values alone
 * (independent: its 2 aligns' others, 1 + 1 + 1 = 3; pipeline: 1 + 1 per other value of
 * workers, prefetch, fetch_scale, compute_scale, fetch_align and start_align = 7); workers = 0
 * with persistent_workers = true is left out as in a grid */
static void test_sweep_each(void **state)
{
    (void)state;
    ss_config c;
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nsweep = each\n" SWEEP_LISTS, &c);
    ss_scenario *sc;
    int n;
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 1 + 3 + 7);
    int base = 0;
    for (int i = 1; i < n; i++) {
        const ss_scenario *s = &sc[i];
        /* how many settings differ from the lists' first values */
        int d = (s->fetch_align != SS_ALIGN_NONE) + (s->start_align != SS_ALIGN_NONE);
        if (s->model == SS_MODEL_PIPELINE)
            d += !s->workers.is_auto + (s->prefetch != 2) + (s->fetch_scale != 1.0) + (s->compute_scale != 1.0);
        assert_true(d <= 1);
        base += d == 0;
        /* (before resolve, a prefetch factor alone counts as the baseline: the calibration decides) */
        if (!(s->model == SS_MODEL_PIPELINE && s->prefetch != 2)) assert_int_equal(s->baseline, d == 0);
    }
    assert_int_equal(base, 2); /* one per model */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!strcmp(sc[i].name, sc[j].name)) fail_msg("scenarios %d and %d share the name %s", i, j, sc[i].name);
    free(sc);
    ss_config_free(&c);
    /* workers = 0 alone with persistent_workers: its true is refused, its false kept */
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nsweep = each\nmodel = pipeline\nworkers = 0, 2\n"
            "persistent_workers = false, true\n", &c);
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_OK);
    assert_int_equal(n, 1 + 2); /* W=0 pw=false, W=2 pw=false (W=0 pw=true refused) */
    free(sc);
    ss_config_free(&c);
}

static void test_false_none_repeated(void **state)
{
    (void)state;
    ss_config c;
    load_ok("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = none, false\n", &c);
    ss_scenario *sc = NULL;
    int n;
    ss_clear();
    assert_int_equal(ss_scenarios_build(&c, &sc, &n), SS_ECONFIG);
    assert_non_null(strstr(ss_errmsg(), c.file));
    ss_config_free(&c);
}

/* ---------------------------------------------------------------- --set */

static void test_set_overrides(void **state)
{
    (void)state;
    ss_config c;
    const char *path = tu_write_ini("[trace]\npath = /t.h5\nwarmup_iterations = 5\n[scenarios]\nfetch_align = avg\n");
    char *sets[] = {"scenarios.fetch_align=min,avg", "trace.warmup_iterations=0", "trace.path=rel/t.h5",
                    "independent.stall_floor = 0.25", "scenarios.start_align=false,mean"};
    ss_clear();
    if (ss_config_load(&c, path, 5, sets) != SS_OK) fail_msg("load failed: %s", ss_errmsg());
    assert_int_equal(c.n_fetch, 2);
    assert_int_equal(c.fetch_align[0], SS_ALIGN_MIN);
    assert_int_equal(c.fetch_align[1], SS_ALIGN_AVG);
    assert_int_equal(c.warmup_iterations, 0);
    assert_string_equal(c.trace_path, "rel/t.h5"); /* overrides: from the current folder */
    assert_true(IND(c)->stall_floor == 0.25);
    assert_int_equal(c.n_start, 2);
    assert_int_equal(c.start_align[0], SS_ALIGN_NONE);
    assert_int_equal(c.start_align[1], SS_ALIGN_MEAN);
    assert_non_null(strstr(c.text, "scenarios.fetch_align=min,avg")); /* recorded with the text */

    /* ss_config_set on its own; the same key twice is refused, as a key given twice in a file */
    assert_int_equal(ss_config_set(&c, "summary.effective_delay_threshold=0.5"), SS_OK);
    ss_clear();
    assert_int_equal(ss_config_set(&c, "summary.effective_delay_threshold=0.125"), SS_ECONFIG);
    assert_non_null(strstr(ss_errmsg(), "--set summary.effective_delay_threshold is given twice"));
    ss_clear();
    assert_int_equal(ss_config_set(&c, "output.per_iteration=yes"), SS_OK);
    assert_int_equal(c.per_iteration, 1);

    /* bad overrides */
    const char *bad[] = {"scenarios.fetch_align=fastest", "nosuch.key=1", "trace.nokey=1", "trace.path",
                         "noequals", "independent.stall_floor=-1", "scenarios.fetch_align="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ss_clear();
        ss_status st = ss_config_set(&c, bad[i]);
        if (st != SS_ECONFIG) fail_msg("--set %s: expected SS_ECONFIG, got %d", bad[i], (int)st);
        /* the message names the key and the value (once), as "S.K=V" or as "S.K = 'V'" */
        char key[64], quoted[160];
        const char *eq = strchr(bad[i], '=');
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - bad[i]) : (int)strlen(bad[i]), bad[i]);
        snprintf(quoted, sizeof quoted, "%s = '%s'", key, eq ? eq + 1 : "");
        if (!strstr(ss_errmsg(), bad[i]) && !strstr(ss_errmsg(), quoted))
            fail_msg("--set %s: message '%s' does not name it", bad[i], ss_errmsg());
        if (eq && eq[1] && strstr(ss_errmsg(), bad[i]) && strstr(ss_errmsg(), quoted))
            fail_msg("--set %s: message '%s' names the value twice", bad[i], ss_errmsg());
    }
    ss_config_free(&c);

    /* a bad override given to ss_config_load fails the load */
    char *badset[] = {"scenarios.start_align=median"};
    ss_clear();
    assert_int_equal(ss_config_load(&c, path, 1, badset), SS_ECONFIG);
    assert_non_null(strstr(ss_errmsg(), "--set: scenarios.start_align = 'median'"));
    ss_config_free(&c);
}

/* ---------------------------------------------------------------- errors with file:line */

static void test_err_unknown_key(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\nbogus = 1\n", 3, "bogus");
    expect_error_at("[scenarios]\nfetch_aling = min\n[trace]\npath = /t.h5\n", 2, "fetch_aling");
}

static void test_err_unknown_section(void **state)
{
    (void)state;
    /* the section header (line 3) or its first key (line 4) */
    ss_config c;
    char path[512], at3[600], at4[600];
    ss_status st = load("[trace]\npath = /t.h5\n[bogus]\nx = 1\n", &c, path);
    ss_config_free(&c);
    assert_int_equal(st, SS_ECONFIG);
    snprintf(at3, sizeof at3, "%s:3", path);
    snprintf(at4, sizeof at4, "%s:4", path);
    if (!strstr(ss_errmsg(), at3) && !strstr(ss_errmsg(), at4)) fail_msg("message '%s' names no line", ss_errmsg());
    assert_non_null(strstr(ss_errmsg(), "bogus"));
}

/* An unknown section is an error even when it holds no key (README: scenario files). */
static void test_err_unknown_empty_section(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[bogus]\n", 3, "bogus");
}

static void test_err_duplicate_key(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /a.h5\nwarmup_iterations = 1\nwarmup_iterations = 2\n", 4, "warmup_iterations");
    /* also when the section is opened twice */
    expect_error_at("[trace]\npath = /a.h5\n[scenarios]\nfetch_align = min\n[trace]\npath = /b.h5\n", 6, "path");
}

static void test_err_empty_list(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_align =\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nstart_align = ,\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = none, , min\n", 4, NULL);
}

/* "none,,min" has an empty item just like "none, , min". */
static void test_err_empty_item_no_spaces(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = none,,min\n", 4, NULL);
}

static void test_err_unknown_align(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = none, fastest\n", 4, "fastest");
    /* median and max are fetch-only, mean is start-only */
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nstart_align = median\n", 4, "median");
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nstart_align = max\n", 4, "max");
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = mean\n", 4, "mean");
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nmodel = dependency\n", 4, "dependency");
}

static void test_err_malformed_number(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[summary]\neffective_delay_threshold = 0.03x\n", 4, "0.03x");
    expect_error_at("[trace]\npath = /t.h5\n[independent]\nstall_floor = nan\n", 4, "nan");
    expect_error_at("[trace]\npath = /t.h5\n[independent]\nstall_sensitivity = inf\n", 4, "inf");
    expect_error_at("[trace]\npath = /t.h5\nwarmup_iterations = 1.5\n", 3, "1.5");
    expect_error_at("[trace]\npath = /t.h5\nepoch = first\n", 3, "first");
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nprefetch = 2, x\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[output]\nper_iteration = maybe\n", 4, "maybe");
}

static void test_err_negative(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[independent]\nstall_sensitivity = -0.01\n", 4, "-0.01");
    expect_error_at("[trace]\npath = /t.h5\n[independent]\nstall_floor = -0.5\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\nwarmup_iterations = -1\n", 3, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[summary]\neffective_delay_threshold = -0.03\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_scale = 1, -0.5\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nprefetch = -2\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nworkers = -3\n", 4, NULL);
    expect_error_at("[trace]\npath = /t.h5\n[pipeline]\nrefill_gap = -1\n", 4, NULL);
}

/* Lines of any length are read (inih alone stops at ~200 characters): a 3000-character
 * path, a long comment line, a long value with a comment after it. */
static void test_long_lines(void **state)
{
    (void)state;
    static char text[8192], line[4000];
    ss_config c;
    memset(line, 0, sizeof line);
    memcpy(line, "path = /", 8);
    memset(line + 8, 'a', 2999);
    snprintf(text, sizeof text, "; ok\n[trace]\n%s   # a long path\n;%s\n[scenarios]\nfetch_align = min\n", line,
             line);
    load_ok(text, &c);
    assert_int_equal((int)strlen(c.trace_path), 3000);
    assert_int_equal(c.n_fetch, 1);
    assert_int_equal(c.fetch_align[0], SS_ALIGN_MIN);
    ss_config_free(&c);
    /* a key longer than any is refused at its line, not cut to a shorter one */
    memset(line, 0, sizeof line);
    memset(line, 'k', 500);
    snprintf(text, sizeof text, "[trace]\npath = /t.h5\n%s = 1\n", line);
    expect_error_at(text, 3, "a key of 500 characters");
}

/* An unknown key names the key meant: a misspelling within two edits of a key of its
 * section, or a key of another section; nothing for a name close to none. */
static void test_unknown_key_hints(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_algn = min\n", 4,
                    "unknown key 'fetch_algn' in section [scenarios] (did you mean 'fetch_align'?)");
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nwarmup_iterations = 3\n", 4,
                    "(it belongs in section [trace])");
    expect_error_at("[trace]\npath = /t.h5\nxyzzy = 1\n", 3, "unknown key 'xyzzy' in section [trace]");
    assert_null(strstr(ss_errmsg(), "did you mean"));
    /* a key's first word names it when one key of the section starts so */
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\npersistent = true\n", 4,
                    "unknown key 'persistent' in section [scenarios] (did you mean 'persistent_workers'?)");
    /* a start shared by two keys or more names none */
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch = 1\n", 4, "unknown key 'fetch'");
    assert_null(strstr(ss_errmsg(), "did you mean"));
}

/* The INI file as people write it: indented headers and keys, ';' and '#' comments after
 * whitespace (not inside a value), CRLF line ends, a byte order mark. */
static void test_ini_as_written(void **state)
{
    (void)state;
    ss_config c;
    load_ok("\xEF\xBB\xBF  [trace]\r\n"
            "    path = /data/x.h5  # the trace\r\n"
            "\twarmup_iterations = 5\t; five\r\n"
            "  # a comment line\r\n"
            "\t[scenarios]\r\n"
            "  fetch_align = none, min   # two of them\r\n",
            &c);
    assert_string_equal(c.trace_path, "/data/x.h5");
    assert_int_equal(c.warmup_iterations, 5);
    assert_int_equal(c.n_fetch, 2);
    assert_int_equal(c.fetch_align[1], SS_ALIGN_MIN);
    ss_config_free(&c);
    /* '#' or ';' without whitespace before it is part of the value */
    load_ok("[trace]\npath = /data/run#3.h5\n", &c);
    assert_string_equal(c.trace_path, "/data/run#3.h5");
    ss_config_free(&c);
    /* an indented line is a key of its own, not the continuation of the value above */
    expect_error_at("[trace]\npath = /t.h5\n  warmup_iterations = 2\n  warmup_iterations = 3\n", 4, "duplicate");
    /* the indented header of an unknown section is named */
    expect_error_at("[trace]\npath = /t.h5\n   [nowhere]\n", 3, "[nowhere]");
    /* a value that is only a comment is empty */
    expect_error_at("[trace]\npath = /t.h5\n[scenarios]\nfetch_align = # none\n", 4, "empty list");
}

/* A scenario file read from a pipe (stallsim run /dev/stdin, <(...)): read to its end;
 * relative paths are taken from the current folder. */
static void test_pipe(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    static char text[20000];
    snprintf(text, sizeof text, "[trace]\npath = rel/x.h5\n[scenarios]\nfetch_align = avg\n;");
    size_t n = strlen(text);
    memset(text + n, 'c', 9000); /* longer than a pipe read */
    text[n + 9000] = '\n';
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        ssize_t w = write(fd[1], text, n + 9001);
        _exit(w == (ssize_t)(n + 9001) ? 0 : 1);
    }
    close(fd[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
    ss_config c;
    ss_clear();
    ss_status st = ss_config_load(&c, path, 0, NULL);
    close(fd[0]);
    int wst;
    waitpid(pid, &wst, 0);
    if (st != SS_OK) fail_msg("load from a pipe failed: %s", ss_errmsg());
    assert_string_equal(c.trace_path, "rel/x.h5");
    assert_int_equal(c.fetch_align[0], SS_ALIGN_AVG);
    ss_config_free(&c);
}

static void test_err_not_a_pair(void **state)
{
    (void)state;
    expect_error_at("[trace]\npath = /t.h5\njunk\n", 3, NULL);
    expect_error_at("path = /t.h5\n[trace]\n", 1, NULL); /* outside any section */
    expect_error_at("[trace\npath = /t.h5\n", 1, NULL);
}

static void test_err_missing_file(void **state)
{
    (void)state;
    ss_config c;
    char path[600];
    snprintf(path, sizeof path, "%s/no-such-file.ini", dir());
    ss_clear();
    assert_int_equal(ss_config_load(&c, path, 0, NULL), SS_ECONFIG);
    assert_non_null(strstr(ss_errmsg(), path));
    ss_config_free(&c);
}

static void test_err_folder(void **state)
{
    (void)state;
    ss_config c;
    ss_clear();
    assert_int_equal(ss_config_load(&c, dir(), 0, NULL), SS_ECONFIG);
    assert_non_null(strstr(ss_errmsg(), dir()));
    ss_config_free(&c);
}

/* No [trace] path: an error naming the file. */
static void test_err_missing_trace_path(void **state)
{
    (void)state;
    ss_config c;
    char path[512];
    ss_status st = load("[scenarios]\nfetch_align = min\n", &c, path);
    assert_int_equal(st, SS_ECONFIG);
    assert_non_null(strstr(ss_errmsg(), path));
    ss_config_free(&c);
}

/* The first recorded message wins: a second failure does not replace it until ss_clear. */
static void test_first_message_wins(void **state)
{
    (void)state;
    ss_config c;
    char p1[512], p2[512];
    assert_int_equal(load("[trace]\npath = /t.h5\nbogus1 = 1\n", &c, p1), SS_ECONFIG);
    ss_config_free(&c);
    const char *path2 = tu_write_ini("[trace]\npath = /t.h5\nbogus2 = 1\n");
    snprintf(p2, sizeof p2, "%s", path2);
    assert_int_equal(ss_config_load(&c, p2, 0, NULL), SS_ECONFIG); /* no ss_clear */
    ss_config_free(&c);
    assert_non_null(strstr(ss_errmsg(), "bogus1"));
    assert_null(strstr(ss_errmsg(), "bogus2"));
    ss_clear();
    assert_string_equal(ss_errmsg(), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_default_out_dir_relative_to_file),
        cmocka_unit_test(test_relative_paths),
        cmocka_unit_test(test_lists_and_values),
        cmocka_unit_test(test_cartesian_product),
        cmocka_unit_test(test_sweep_each),
        cmocka_unit_test(test_false_none_repeated),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_err_unknown_key),
        cmocka_unit_test(test_err_unknown_section),
        cmocka_unit_test(test_err_unknown_empty_section),
        cmocka_unit_test(test_err_duplicate_key),
        cmocka_unit_test(test_err_empty_list),
        cmocka_unit_test(test_err_empty_item_no_spaces),
        cmocka_unit_test(test_err_unknown_align),
        cmocka_unit_test(test_err_malformed_number),
        cmocka_unit_test(test_err_negative),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_unknown_key_hints),
        cmocka_unit_test(test_ini_as_written),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_no_persistent_without_workers),
        cmocka_unit_test(test_err_not_a_pair),
        cmocka_unit_test(test_err_missing_file),
        cmocka_unit_test(test_err_folder),
        cmocka_unit_test(test_err_missing_trace_path),
        cmocka_unit_test(test_first_message_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
