/* ss_results.c - results.h5: parallel per-iteration datasets, summary compound table. */
#include "ss_results.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ss_atomic.h"
#include "ss_h5util.h"
#include "ss_version.h"

enum { RD_ITER, RD_STALL, RD_DELAY, RD_FETCH, RD_START, RD_STALL_TIME, RD_INDEX, RD_EPOCH, RD_N };
static const char *const rd_name[RD_N] = {"iteration_time", "stall", "delay", "fetch_diff",
                                          "start_diff", "stall_time", "index", "epoch"};

struct ss_results {
    const ss_comm *comm;
    hid_t file;
    hid_t *ds; /* [nsc][RD_N] when per_iteration */
    int nsc, gpus, per_iteration;
    long N;
    char path[4200], tmp[4300];
};

int ss_results_per_iteration(const ss_results *r) { return r->per_iteration; }

static hid_t make_ds(hid_t grp, const char *name, hid_t type, long N, int G, int two_d)
{
    hsize_t dims[2] = {(hsize_t)N, (hsize_t)G};
    hid_t sp = H5Screate_simple(two_d ? 2 : 1, dims, NULL);
    hid_t d = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(sp);
    return d;
}

static ss_status create_scenario_groups(ss_results *r, const ss_scenario *sc)
{
    hid_t top = H5Gcreate2(r->file, "scenarios", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (top < 0) return ss_fail(SS_EIO, "%s: cannot create /scenarios", r->path);
    for (int j = 0; j < r->nsc; j++) {
        hid_t g = H5Gcreate2(top, sc[j].name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            H5Gclose(top);
            return ss_fail(SS_EIO, "%s: cannot create /scenarios/%s", r->path, sc[j].name);
        }
        hid_t *d = r->ds + (long)j * RD_N;
        for (int k = 0; k < RD_N; k++) {
            hid_t type = k == RD_INDEX ? H5T_STD_I64LE : k == RD_EPOCH ? H5T_STD_I32LE : H5T_IEEE_F64LE;
            d[k] = make_ds(g, rd_name[k], type, r->N, r->gpus, k == RD_STALL_TIME);
        }
        H5Gclose(g);
        for (int k = 0; k < RD_N; k++)
            if (d[k] < 0) {
                H5Gclose(top);
                return ss_fail(SS_EIO, "%s: cannot create /scenarios/%s/%s", r->path, sc[j].name, rd_name[k]);
            }
    }
    H5Gclose(top);
    return SS_OK;
}

ss_status ss_results_open(const ss_comm *c, const char *dir, const ss_scenario *sc, int nsc,
                          long N, int G, int per_iteration, ss_results **out)
{
    *out = NULL;
    /* one temporary name for all ranks: rank 0's process id (broadcast before anything
     * can fail, so that every rank reaches the same collectives) */
    long pid = (long)getpid();
    if (c->mpi) MPI_Bcast(&pid, 1, MPI_LONG, 0, c->comm);
    ss_results *r = calloc(1, sizeof *r);
    ss_status st = r ? SS_OK : ss_fail(SS_ENOMEM, "out of memory");
    st = ss_comm_any_failed(c, st);
    if (st != SS_OK) {
        free(r);
        return st;
    }
    r->comm = c;
    r->file = H5I_INVALID_HID;
    r->nsc = nsc;
    r->gpus = G;
    r->N = N;
    r->per_iteration = per_iteration;
    snprintf(r->path, sizeof r->path, "%s/results.h5", dir);
    snprintf(r->tmp, sizeof r->tmp, "%s/.results.h5.tmp.%ld", dir, pid);
    ss_atomic_track(r->tmp); /* removed on SIGINT/SIGTERM, by every rank */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (per_iteration) {
        r->ds = malloc((size_t)nsc * RD_N * sizeof *r->ds);
        if (!r->ds) st = ss_fail(SS_ENOMEM, "out of memory");
        for (long i = 0; r->ds && i < (long)nsc * RD_N; i++) r->ds[i] = H5I_INVALID_HID;
        st = ss_comm_any_failed(c, st);
        if (st == SS_OK) {
            hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
            if (c->mpi && c->size > 1) H5Pset_fapl_mpio(fapl, c->comm, MPI_INFO_NULL);
            /* rows go to the file when written: a full disk fails the write that hit it */
            H5Pset_sieve_buf_size(fapl, 0);
            r->file = H5Fcreate(r->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
            H5Pclose(fapl);
            if (r->file < 0) st = ss_fail(SS_EIO, "%s: cannot create results file", r->tmp);
            else st = create_scenario_groups(r, sc);
        }
        st = ss_comm_any_failed(c, st);
    }
    if (st != SS_OK) {
        ss_results_finish(r, st, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    *out = r;
    return SS_OK;
}

ss_status ss_results_write_rows(ss_results *r, int j, long row0, long n, const int32_t *epoch,
                                const int64_t *index, const double *iter_time, const double *stall,
                                const double *delay, const double *fetch_diff,
                                const double *start_diff, const double *stall_time)
{
    if (!r->per_iteration || n == 0) return SS_OK;
    hid_t *d = r->ds + (long)j * RD_N;
    const double *f1[5] = {iter_time, stall, delay, fetch_diff, start_diff};
    int rc = 0;
    for (int k = 0; k < 5; k++) rc |= ss_h5_rows(d[k], H5T_NATIVE_DOUBLE, row0, n, 0, (void *)f1[k], 1);
    rc |= ss_h5_rows(d[RD_STALL_TIME], H5T_NATIVE_DOUBLE, row0, n, r->gpus, (void *)stall_time, 1);
    rc |= ss_h5_rows(d[RD_INDEX], H5T_NATIVE_INT64, row0, n, 0, (void *)index, 1);
    rc |= ss_h5_rows(d[RD_EPOCH], H5T_NATIVE_INT32, row0, n, 0, (void *)epoch, 1);
    if (rc) return ss_fail(SS_EIO, "%s: cannot write per-iteration rows %ld..%ld (disk full?)", r->tmp, row0, row0 + n - 1);
    return SS_OK;
}

/* ---- rank 0: summary table and attributes ---- */

typedef struct {
    char scenario[160];
    char model[16], fetch_align[8], start_align[8];
    long iterations;
    double iter_time_mean, iter_time_std, stall_mean, stall_std, delay_mean, delay_std;
    double effective_delay_pct, start_diff_mean, start_diff_std, fetch_diff_mean, fetch_diff_std;
    double iter_time_change_pct;
    int workers, prefetch;
    double fetch_scale, compute_scale;
    double fidelity_iter_time_err_pct, fidelity_iter_time_mape_pct;
} summary_row;

static hid_t summary_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(summary_row));
#define STR(field)                                                          \
    do {                                                                    \
        hid_t s = H5Tcopy(H5T_C_S1);                                        \
        H5Tset_size(s, sizeof(((summary_row *)0)->field));                  \
        H5Tinsert(t, #field, HOFFSET(summary_row, field), s);               \
        H5Tclose(s);                                                        \
    } while (0)
#define NUM(field, type) H5Tinsert(t, #field, HOFFSET(summary_row, field), type)
    STR(scenario);
    STR(model);
    STR(fetch_align);
    STR(start_align);
    NUM(iterations, H5T_NATIVE_LONG);
    NUM(iter_time_mean, H5T_NATIVE_DOUBLE);
    NUM(iter_time_std, H5T_NATIVE_DOUBLE);
    NUM(stall_mean, H5T_NATIVE_DOUBLE);
    NUM(stall_std, H5T_NATIVE_DOUBLE);
    NUM(delay_mean, H5T_NATIVE_DOUBLE);
    NUM(delay_std, H5T_NATIVE_DOUBLE);
    NUM(effective_delay_pct, H5T_NATIVE_DOUBLE);
    NUM(start_diff_mean, H5T_NATIVE_DOUBLE);
    NUM(start_diff_std, H5T_NATIVE_DOUBLE);
    NUM(fetch_diff_mean, H5T_NATIVE_DOUBLE);
    NUM(fetch_diff_std, H5T_NATIVE_DOUBLE);
    NUM(iter_time_change_pct, H5T_NATIVE_DOUBLE);
    NUM(workers, H5T_NATIVE_INT);
    NUM(prefetch, H5T_NATIVE_INT);
    NUM(fetch_scale, H5T_NATIVE_DOUBLE);
    NUM(compute_scale, H5T_NATIVE_DOUBLE);
    NUM(fidelity_iter_time_err_pct, H5T_NATIVE_DOUBLE);
    NUM(fidelity_iter_time_mape_pct, H5T_NATIVE_DOUBLE);
#undef STR
#undef NUM
    return t;
}

static void fill_row(const ss_summary *s, int j, summary_row *row)
{
    const ss_scenario *sc = &s->sc[j];
    const ss_partial *p = &s->p[j];
    memset(row, 0, sizeof *row);
    snprintf(row->scenario, sizeof row->scenario, "%s", sc->name);
    snprintf(row->model, sizeof row->model, "%s", ss_model_name(sc->model));
    if (sc->model != SS_MODEL_MEASURED) {
        snprintf(row->fetch_align, sizeof row->fetch_align, "%s", ss_align_name(sc->fetch_align));
        snprintf(row->start_align, sizeof row->start_align, "%s", ss_align_name(sc->start_align));
    }
    row->iterations = (long)p->n;
    row->iter_time_mean = p->mean[SS_M_ITER];
    row->iter_time_std = ss_partial_std(p, SS_M_ITER);
    row->stall_mean = p->mean[SS_M_STALL];
    row->stall_std = ss_partial_std(p, SS_M_STALL);
    row->delay_mean = p->mean[SS_M_DELAY];
    row->delay_std = ss_partial_std(p, SS_M_DELAY);
    row->effective_delay_pct = ss_summary_effective_delay_pct(s, j);
    row->start_diff_mean = p->mean[SS_M_START];
    row->start_diff_std = ss_partial_std(p, SS_M_START);
    row->fetch_diff_mean = p->mean[SS_M_FETCH];
    row->fetch_diff_std = ss_partial_std(p, SS_M_FETCH);
    row->iter_time_change_pct = ss_summary_change_pct(s, j);
    int pipe = sc->model == SS_MODEL_PIPELINE;
    row->workers = pipe ? sc->pipe.workers : -1;
    row->prefetch = pipe ? sc->pipe.prefetch : -1;
    row->fetch_scale = pipe ? sc->fetch_scale : NAN;
    row->compute_scale = pipe ? sc->compute_scale : NAN;
    row->fidelity_iter_time_err_pct = ss_summary_fidelity_err_pct(s, j);
    row->fidelity_iter_time_mape_pct = ss_summary_fidelity_mape_pct(s, j);
}

static ss_status write_summary(ss_results *r, const ss_summary *s, const char *config_text,
                               const char *trace_path, const char *csv_digest)
{
    hid_t f = r->per_iteration ? H5Fopen(r->tmp, H5F_ACC_RDWR, H5P_DEFAULT)
                               : H5Fcreate(r->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return ss_fail(SS_EIO, "%s: cannot write results file", r->tmp);
    summary_row *rows = calloc((size_t)s->nsc, sizeof *rows);
    int rc = rows == NULL;
    for (int j = 0; !rc && j < s->nsc; j++) fill_row(s, j, &rows[j]);
    if (!rc) {
        hid_t t = summary_type();
        hsize_t n = (hsize_t)s->nsc;
        hid_t sp = H5Screate_simple(1, &n, NULL);
        hid_t d = H5Dcreate2(f, "summary", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = d < 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
        if (d >= 0) H5Dclose(d);
        H5Sclose(sp);
        H5Tclose(t);
    }
    free(rows);
    char run_id[512];
    ss_atomic_run_id(run_id, sizeof run_id);
    rc |= ss_h5_attr_write_string(f, "run_id", run_id);
    if (csv_digest && csv_digest[0]) rc |= ss_h5_attr_write_string(f, "summary_csv_fnv1a64", csv_digest);
    rc |= ss_h5_attr_write_string(f, "stallsim_version", SS_VERSION);
    rc |= ss_h5_attr_write_num(f, "gpus", H5T_STD_I32LE, H5T_NATIVE_INT, &s->gpus, 0);
    rc |= ss_h5_attr_write_string(f, "config", config_text ? config_text : "");
    rc |= ss_h5_attr_write_string(f, "trace", trace_path ? trace_path : "");
    rc |= ss_h5_attr_write_num(f, "effective_delay_threshold", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                   &s->effective_delay_threshold, 0);
    if (s->has_calib) {
        const ss_calib *c = &s->calib;
        rc |= ss_h5_attr_write_num(f, "calibrated_workers", H5T_STD_I32LE, H5T_NATIVE_INT, &c->workers, 0);
        rc |= ss_h5_attr_write_num(f, "calibrated_worker_gap", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &c->worker_gap, 0);
        rc |= ss_h5_attr_write_num(f, "calibrated_workers_per_gpu", H5T_STD_I32LE, H5T_NATIVE_INT, c->workers_gpu,
                       (hsize_t)c->gpus);
        rc |= ss_h5_attr_write_num(f, "calibrated_worker_gap_per_gpu", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c->gap_gpu,
                       (hsize_t)c->gpus);
    }
    if (rc) ss_h5_release(r->tmp); /* discarded: room for the close on a full disk */
    rc |= ss_h5_close_file(f) != 0;
    return rc ? ss_fail(SS_EIO, "%s: cannot write the summary (disk full?)", r->tmp) : SS_OK;
}

ss_status ss_results_finish(ss_results *r, ss_status ok, const ss_summary *s, const char *config_text,
                            const char *trace_path, const char *companion_tmp, const char *companion_path)
{
    ss_status st = ok;
    if (r->ds)
        for (long i = 0; i < (long)r->nsc * RD_N; i++)
            if (r->ds[i] >= 0) H5Dclose(r->ds[i]);
    /* every rank agrees first: a file to be discarded is released before it is closed, so
     * that the close finds room for its metadata on a full disk */
    if (r->file >= 0) {
        st = ss_comm_any_failed(r->comm, st);
        if (st != SS_OK && r->comm->rank == 0) ss_h5_release(r->tmp);
        if (st != SS_OK) st = ss_comm_any_failed(r->comm, st);
        if (ss_h5_close_file(r->file) != 0 && st == SS_OK)
            st = ss_fail(SS_EIO, "%s: cannot close results file (disk full?)", r->tmp);
    }
    st = ss_comm_any_failed(r->comm, st);
    if (r->comm->rank == 0) {
        /* summary.csv's digest goes into results.h5: the pair can be checked later */
        char digest[17] = "";
        if (st == SS_OK && s && companion_tmp && ss_atomic_file_digest(companion_tmp, digest) != 0)
            st = ss_fail(SS_EIO, "%s: cannot read back", companion_tmp);
        if (st == SS_OK && s) st = write_summary(r, s, config_text, trace_path, digest);
        if (st == SS_OK && s && companion_tmp) st = ss_atomic_commit_pair(r->tmp, r->path, companion_tmp, companion_path);
        else if (st == SS_OK && s) st = ss_atomic_commit(r->tmp, r->path);
        else {
            ss_atomic_discard(r->tmp);
            if (companion_tmp) ss_atomic_discard(companion_tmp);
        }
    } else {
        ss_atomic_untrack(r->tmp);
    }
    st = ss_comm_any_failed(r->comm, st);
    free(r->ds);
    free(r);
    return st;
}

ss_status ss_results_read_summary(const char *path, ss_results_row **rows, int *n, int *gpus)
{
    *rows = NULL;
    *n = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) return ss_fail(SS_EDATA, "%s: not an HDF5 file", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return ss_fail(SS_EIO, "%s: cannot open", path);
    ss_status st = SS_OK;
    if (H5Lexists(f, "summary", H5P_DEFAULT) <= 0 || H5Aexists(f, "gpus") <= 0) {
        H5Fclose(f);
        return ss_fail(SS_EDATA, "%s: not a stallsim results file (no /summary table or gpus attribute)", path);
    }
    hid_t a = H5Aopen(f, "gpus", H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT, gpus) < 0) st = ss_fail(SS_EDATA, "%s: unreadable gpus attribute", path);
    if (a >= 0) H5Aclose(a);
    hid_t d = H5Dopen2(f, "summary", H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hssize_t count = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (st == SS_OK && count <= 0) st = ss_fail(SS_EDATA, "%s: /summary is empty or unreadable", path);
    if (st == SS_OK) {
        hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ss_results_row));
        hid_t s1 = H5Tcopy(H5T_C_S1), s2 = H5Tcopy(H5T_C_S1);
        H5Tset_size(s1, sizeof(((ss_results_row *)0)->scenario));
        H5Tset_size(s2, sizeof(((ss_results_row *)0)->model));
        H5Tinsert(t, "scenario", HOFFSET(ss_results_row, scenario), s1);
        H5Tinsert(t, "model", HOFFSET(ss_results_row, model), s2);
        H5Tinsert(t, "iterations", HOFFSET(ss_results_row, iterations), H5T_NATIVE_LONG);
        H5Tinsert(t, "iter_time_mean", HOFFSET(ss_results_row, iter_time_mean), H5T_NATIVE_DOUBLE);
        H5Tinsert(t, "stall_mean", HOFFSET(ss_results_row, stall_mean), H5T_NATIVE_DOUBLE);
        H5Tinsert(t, "delay_mean", HOFFSET(ss_results_row, delay_mean), H5T_NATIVE_DOUBLE);
        H5Tinsert(t, "effective_delay_pct", HOFFSET(ss_results_row, effective_delay_pct), H5T_NATIVE_DOUBLE);
        *rows = calloc((size_t)count, sizeof **rows);
        if (!*rows) st = ss_fail(SS_ENOMEM, "out of memory");
        else if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0)
            st = ss_fail(SS_EDATA, "%s: /summary lacks the expected columns", path);
        H5Tclose(s1);
        H5Tclose(s2);
        H5Tclose(t);
    }
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    H5Fclose(f);
    if (st != SS_OK) {
        free(*rows);
        *rows = NULL;
        return st;
    }
    *n = (int)count;
    return SS_OK;
}

int ss_results_is_results(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    int yes = H5Lexists(f, "summary", H5P_DEFAULT) > 0;
    H5Fclose(f);
    return yes;
}

int ss_results_csv_digest(const char *path, char *out)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    out[0] = '\0';
    if (H5Fis_hdf5(path) <= 0) return -1;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = ss_h5_attr_read_string(f, "summary_csv_fnv1a64", out, 17);
    H5Fclose(f);
    return rc == 0 && strlen(out) == 16 ? 0 : -1;
}
