/* test_util.c - helpers shared by the unit tests. */
#define _DEFAULT_SOURCE
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ss_calibrate.h"
#include "ss_comm.h"
#include "ss_config.h"
#include "ss_model.h"
#include "ss_sweep.h"

static char tmpdir[256];

static void remove_tmpdir(void)
{
    if (!tmpdir[0]) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

const char *tu_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/stallsim-test-XXXXXX");
        if (!mkdtemp(tmpdir)) abort();
        atexit(remove_tmpdir);
    }
    return tmpdir;
}

ss_status tu_write_trace(const char *path, int G, long N, const int32_t *epoch, const int64_t *index,
                         const double *fs, const double *ft, const double *ts, const double *it, const double *st)
{
    ss_trace_meta m;
    ss_trace_meta_init(&m);
    m.gpus = G;
    m.iterations = N;
    snprintf(m.time_origin, sizeof m.time_origin, "2000-01-01T00:00:00.000000");
    ss_slab s;
    ss_status rc = ss_slab_alloc(&s, N, G);
    if (rc != SS_OK) return rc;
    s.n = N;
    for (long k = 0; k < N; k++) {
        s.epoch[k] = epoch ? epoch[k] : 1;
        s.index[k] = index ? index[k] : k;
    }
    size_t bytes = (size_t)N * (size_t)G * sizeof(double);
    memcpy(s.fetch_start, fs, bytes);
    memcpy(s.fetch_time, ft, bytes);
    if (ts) memcpy(s.train_start, ts, bytes);
    else memset(s.train_start, 0, bytes);
    memcpy(s.iteration_time, it, bytes);
    memcpy(s.stall_time, st, bytes);
    ss_trace_writer *w;
    rc = ss_trace_create(path, &m, &w);
    if (rc == SS_OK) rc = ss_trace_append(w, &s);
    if (rc == SS_OK) rc = ss_trace_finish(w);
    ss_slab_free(&s);
    return rc;
}

/* Every test program reads scenario files with the models' sections, as stallsim does. */
__attribute__((constructor)) static void tu_register_options(void)
{
    if (ss_models_register_options() != SS_OK) abort();
}

const char *tu_write_ini(const char *ini_text)
{
    static char path[512];
    static int n;
    snprintf(path, sizeof path, "%s/scenario-%d.ini", tu_tmpdir(), n++);
    FILE *f = fopen(path, "w");
    if (!f) abort();
    fputs(ini_text, f);
    fclose(f);
    return path;
}

ss_status tu_run_sweep(const char *ini_text, ss_summary *out, ss_scenario **sc, int *nsc)
{
    ss_comm c;
    ss_comm_self(&c);
    ss_config cfg;
    ss_trace_file *t = NULL;
    ss_calib cal;
    int have_cal = 0;
    *sc = NULL;
    memset(out, 0, sizeof *out);
    ss_clear();
    ss_status st = ss_config_load(&cfg, tu_write_ini(ini_text), 0, NULL);
    if (st == SS_OK) st = ss_scenarios_build(&cfg, sc, nsc);
    if (st == SS_OK) st = ss_trace_open(cfg.trace_path, &c, &t);
    if (st == SS_OK && ss_scenarios_need_calibration(*sc, *nsc, &cfg, ss_trace_meta_of(t))) {
        st = ss_calibrate(t, SS_CALIB_ROWS, &cal);
        have_cal = st == SS_OK;
    }
    if (st == SS_OK) {
        st = ss_scenarios_resolve(*sc, *nsc, &cfg, have_cal ? &cal : NULL, ss_trace_meta_of(t)->loader_workers);
        if (st == SS_OK) st = ss_sweep_run(&c, &cfg, t, *sc, *nsc, NULL, 0, out, NULL);
    }
    if (st == SS_OK && have_cal) {
        out->calib = cal;
        out->has_calib = 1;
    } else if (have_cal) {
        ss_calib_free(&cal);
    }
    if (t) ss_trace_close(t);
    ss_config_free(&cfg);
    return st;
}

int tu_find(const ss_scenario *sc, int nsc, const char *name)
{
    for (int i = 0; i < nsc; i++)
        if (!strcmp(sc[i].name, name)) return i;
    return -1;
}
