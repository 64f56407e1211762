/* ss_results.c - results.h5: parallel per-iteration datasets, summary compound table. */
#include "ss_results.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ss_atomic.h"
#include "ss_columns.h"
#include "ss_report.h"
#include "ss_model.h"
#include "ss_rank.h"
#include "ss_h5util.h"
#include "ss_limits.h"
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

/* Collective: the creates are collective in parallel HDF5, so every rank learns of a
 * failure on any rank after each scenario and all stop at the same one. */
static ss_status create_scenario_groups(ss_results *r, const ss_scenario *sc)
{
    hid_t top = H5Gcreate2(r->file, "scenarios", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ss_status st = top < 0 ? ss_fail(SS_EIO, "%s: cannot create /scenarios", r->path) : SS_OK;
    st = ss_comm_any_failed(r->comm, st);
    for (int j = 0; st == SS_OK && j < r->nsc; j++) {
        hid_t g = H5Gcreate2(top, sc[j].name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) st = ss_fail(SS_EIO, "%s: cannot create /scenarios/%s", r->path, sc[j].name);
        st = ss_comm_any_failed(r->comm, st); /* the group everywhere before its datasets */
        hid_t *d = r->ds + (long)j * RD_N;
        const int made = st == SS_OK; /* the same on every rank: all 8 creates, or none */
        for (int k = 0; made && k < RD_N; k++) {
            hid_t type = k == RD_INDEX ? H5T_STD_I64LE : k == RD_EPOCH ? H5T_STD_I32LE : H5T_IEEE_F64LE;
            d[k] = make_ds(g, rd_name[k], type, r->N, r->gpus, k == RD_STALL_TIME);
            if (d[k] < 0 && st == SS_OK)
                st = ss_fail(SS_EIO, "%s: cannot create /scenarios/%s/%s", r->path, sc[j].name, rd_name[k]);
        }
        if (g >= 0) H5Gclose(g);
        st = ss_comm_any_failed(r->comm, st);
    }
    if (top >= 0) H5Gclose(top);
    return st;
}

/* The per-iteration series must fit on the output folder's file system before they are
 * written: with several ranks writing one file through MPI-IO, a disk that fills up while
 * the file is written or closed can leave the ranks in different collectives of the HDF5
 * library (the close of a file whose write failed on one rank), a hang no status check can
 * undo. So rank 0 checks the room first: the series' bytes and some for the file's own
 * structure; the others learn the answer from the collective that follows. */
static ss_status check_room(const char *dir, int nsc, long N, int G)
{
    const double row = 5 * 8.0 + 8.0 + 4.0 + 8.0 * G; /* five series, index, epoch, per-GPU stalls */
    const double need = (double)nsc * (double)N * row + (double)nsc * 16384.0 + 1048576.0;
    struct statvfs v;
    if (statvfs(dir, &v) != 0) return SS_OK; /* (the create that follows says what is wrong) */
    const double avail = (double)v.f_bavail * (double)(v.f_frsize ? v.f_frsize : v.f_bsize);
    if (avail >= need * 1.1) return SS_OK;
    return ss_fail(SS_EIO, "%s: the per-iteration series of %d scenarios x %ld iterations x %d GPUs need about %.1f MB, "
                   "but the folder's file system has %.1f MB free (disk full?): make room, or set output.per_iteration "
                   "= false", dir, nsc, N, G, need * 1.1 / 1e6, avail / 1e6);
}

ss_status ss_results_open(const ss_comm *c, const char *dir, const ss_scenario *sc, int nsc,
                          long N, int G, int per_iteration, ss_results **out)
{
    *out = NULL;
    /* one temporary name for all ranks: rank 0's host and process id (broadcast before
     * anything can fail, so that every rank reaches the same collectives) */
    char owner[SS_ATOMIC_OWNER_MAX];
    ss_atomic_owner(owner, sizeof owner);
    if (c->mpi) MPI_Bcast(owner, (int)sizeof owner, MPI_CHAR, 0, c->comm);
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
    /* removed on SIGINT/SIGTERM, by every rank (the path's length was checked with the
     * folder's, so the name fits) */
    (void)ss_atomic_tmpname_owner(r->path, owner, r->tmp, sizeof r->tmp);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (per_iteration) {
        r->ds = malloc((size_t)nsc * RD_N * sizeof *r->ds);
        if (!r->ds) st = ss_fail(SS_ENOMEM, "out of memory");
        if (st == SS_OK && c->rank == 0) st = check_room(dir, nsc, N, G);
        for (long i = 0; r->ds && i < (long)nsc * RD_N; i++) r->ds[i] = H5I_INVALID_HID;
        st = ss_comm_any_failed(c, st);
        if (st == SS_OK) {
            hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
            if (c->mpi && c->size > 1) H5Pset_fapl_mpio(fapl, c->comm, MPI_INFO_NULL);
            /* rows go to the file when written: a full disk fails the write that hit it */
            H5Pset_sieve_buf_size(fapl, 0);
            r->file = H5Fcreate(r->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
            H5Pclose(fapl);
            if (r->file < 0) st = ss_fail(SS_EIO, "%s: cannot create results file (disk full? no write permission?)", r->tmp);
            st = ss_comm_any_failed(c, st);
            if (st == SS_OK) st = create_scenario_groups(r, sc);
        }
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

/* The /summary compound type, generated from the column table: every SS_COLF_H5 column,
 * laid out as a C struct of those fields would be (each field at a multiple of its
 * alignment), so that rows can be packed into one buffer. *size receives the row size;
 * offsets[] (indexed like the column table, may be NULL) each field's offset. */
static hid_t summary_type(int gpus, size_t *size, size_t *offsets)
{
    int nc;
    const ss_column *cols = ss_columns(&nc);
    size_t off = 0, align_max = 1;
    for (int pass = 0; pass < 2; pass++) {
        hid_t t = pass ? H5Tcreate(H5T_COMPOUND, *size) : H5I_INVALID_HID;
        off = 0;
        for (int k = 0; k < nc; k++) {
            const ss_column *c = &cols[k];
            if (!(c->flags & (SS_COLF_H5 | SS_COLF_PER_GPU))) continue;
            int per_gpu = (c->flags & SS_COLF_PER_GPU) != 0;
            size_t sz = c->type == SS_COL_STR ? c->h5_size : c->type == SS_COL_LONG ? sizeof(long) : sizeof(double);
            size_t al = c->type == SS_COL_STR ? 1 : sz;
            if (per_gpu) sz *= (size_t)gpus;
            off = (off + al - 1) / al * al;
            if (al > align_max) align_max = al;
            if (offsets) offsets[k] = off;
            if (pass) {
                if (c->type == SS_COL_STR) {
                    hid_t st = H5Tcopy(H5T_C_S1);
                    H5Tset_size(st, c->h5_size);
                    H5Tinsert(t, c->name, off, st);
                    H5Tclose(st);
                } else if (per_gpu) {
                    hsize_t dim = (hsize_t)gpus;
                    hid_t at = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &dim);
                    H5Tinsert(t, c->name, off, at);
                    H5Tclose(at);
                } else {
                    /* integers that may not apply are numbers, NaN where the CSV is empty */
                    H5Tinsert(t, c->name, off, c->type == SS_COL_LONG ? H5T_NATIVE_LONG : H5T_NATIVE_DOUBLE);
                }
            }
            off += sz;
        }
        if (pass) return t;
        *size = (off + align_max - 1) / align_max * align_max;
    }
    return H5I_INVALID_HID;
}

/* Row j of the /summary table into row (laid out by offsets): where a column does not
 * apply (an empty cell of summary.csv), "" for text and NaN for numbers; per-GPU columns
 * are arrays of one number per GPU. */
static void fill_row(const ss_summary *s, int j, const size_t *offsets, char *row)
{
    int nc;
    const ss_column *cols = ss_columns(&nc);
    for (int k = 0; k < nc; k++) {
        const ss_column *c = &cols[k];
        if (!(c->flags & (SS_COLF_H5 | SS_COLF_PER_GPU))) continue;
        ss_colval v;
        char *field = row + offsets[k];
        if (c->flags & SS_COLF_PER_GPU) {
            for (int g = 0; g < s->gpus; g++)
                ((double *)field)[g] = ss_column_get(c, s, j, g, &v) ? v.d : NAN;
            continue;
        }
        int has = ss_column_get(c, s, j, 0, &v);
        switch (c->type) {
        case SS_COL_STR: snprintf(field, c->h5_size, "%s", has ? v.str : ""); break;
        case SS_COL_INT: *(double *)field = has ? (double)v.l : NAN; break;
        case SS_COL_LONG: *(long *)field = has ? v.l : -1; break;
        case SS_COL_F64: *(double *)field = has ? v.d : NAN; break;
        }
    }
}

/* /ranking/top, /ranking/one_setting_alone and /ranking/heal: the ranked answer (see
 * ss_rank.h). 0 on success. */
static int write_ranking(hid_t f, const ss_summary *s)
{
    const ss_ranking *r = s->rank;
    typedef struct {
        char scenario[SS_NAME_MAX];
        char against[SS_NAME_MAX]; /* the row its changes are against (ss_summary_ref) */
        double change_pct, change_s;
        double change_lo_pct, change_hi_pct; /* its 90 % interval as changes (NaN: none) */
        double cpu_load_pct; /* NaN: the trace records no CPU times */
        int loaders_ahead;   /* 1: the scenario's loaders keep ahead of the trace's, which were behind */
    } top_row;
    typedef struct {
        char model[16];
        int gpu, ranked;
        double gain_pct, gain_s_per_epoch;
    } heal_row;
    hid_t g = H5Gcreate2(f, "ranking", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    int rc = 0;
    hid_t s160 = H5Tcopy(H5T_C_S1), s16 = H5Tcopy(H5T_C_S1);
    H5Tset_size(s160, SS_NAME_MAX);
    H5Tset_size(s16, 16);
    hid_t tt = H5Tcreate(H5T_COMPOUND, sizeof(top_row));
    H5Tinsert(tt, "scenario", HOFFSET(top_row, scenario), s160);
    H5Tinsert(tt, "against", HOFFSET(top_row, against), s160);
    H5Tinsert(tt, "change_pct", HOFFSET(top_row, change_pct), H5T_NATIVE_DOUBLE);
    H5Tinsert(tt, "change_s", HOFFSET(top_row, change_s), H5T_NATIVE_DOUBLE);
    H5Tinsert(tt, "change_lo_pct", HOFFSET(top_row, change_lo_pct), H5T_NATIVE_DOUBLE);
    H5Tinsert(tt, "change_hi_pct", HOFFSET(top_row, change_hi_pct), H5T_NATIVE_DOUBLE);
    H5Tinsert(tt, "cpu_load_pct", HOFFSET(top_row, cpu_load_pct), H5T_NATIVE_DOUBLE);
    H5Tinsert(tt, "loaders_ahead", HOFFSET(top_row, loaders_ahead), H5T_NATIVE_INT);
    hid_t ht = H5Tcreate(H5T_COMPOUND, sizeof(heal_row));
    H5Tinsert(ht, "model", HOFFSET(heal_row, model), s16);
    H5Tinsert(ht, "gpu", HOFFSET(heal_row, gpu), H5T_NATIVE_INT);
    H5Tinsert(ht, "gain_pct", HOFFSET(heal_row, gain_pct), H5T_NATIVE_DOUBLE);
    H5Tinsert(ht, "gain_s_per_epoch", HOFFSET(heal_row, gain_s_per_epoch), H5T_NATIVE_DOUBLE);
    H5Tinsert(ht, "ranked", HOFFSET(heal_row, ranked), H5T_NATIVE_INT);
    /* the ranked cuts, then the cuts of one setting alone, in one array of rows */
    const int ncut = r->ntop + r->nsingle;
    top_row *top = calloc((size_t)ncut + 1, sizeof *top);
    heal_row *heal = calloc((size_t)r->nheal + 1, sizeof *heal);
    rc |= !top || !heal;
    for (int k = 0; !rc && k < ncut; k++) {
        const ss_rank_top *c = k < r->ntop ? &r->top[k] : &r->single[k - r->ntop];
        snprintf(top[k].scenario, sizeof top[k].scenario, "%s", s->sc[c->j].name);
        snprintf(top[k].against, sizeof top[k].against, "%s", s->sc[ss_summary_ref(s, c->j)].name);
        top[k].change_pct = c->change_pct;
        top[k].change_s = c->change_s;
        top[k].change_lo_pct = top[k].change_hi_pct = NAN;
        ss_report_change_interval(s, c->j, r->by_run, &top[k].change_lo_pct, &top[k].change_hi_pct);
        top[k].cpu_load_pct = ss_summary_cpu_load_pct(s, c->j, NULL);
        top[k].loaders_ahead = c->loaders_ahead;
    }
    for (int k = 0; !rc && k < r->nheal; k++) {
        snprintf(heal[k].model, sizeof heal[k].model, "%s", ss_model_name(r->heal[k].model));
        heal[k].gpu = r->heal[k].gpu;
        heal[k].ranked = r->heal[k].ranked;
        heal[k].gain_pct = r->heal[k].gain_pct;
        heal[k].gain_s_per_epoch = r->heal[k].gain_s_epoch;
    }
    static const char *const name[3] = {"top", "one_setting_alone", "heal"};
    for (int d = 0; !rc && d < 3; d++) {
        hsize_t n = (hsize_t)(d == 2 ? r->nheal : d ? r->nsingle : r->ntop);
        const void *rows = d == 2 ? (const void *)heal : d ? (const void *)(top + r->ntop) : (const void *)top;
        hid_t sp = H5Screate_simple(1, &n, NULL);
        hid_t ds = H5Dcreate2(g, name[d], d == 2 ? ht : tt, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc |= ds < 0 || (n > 0 && H5Dwrite(ds, d == 2 ? ht : tt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0);
        if (ds >= 0) H5Dclose(ds);
        H5Sclose(sp);
    }
    free(top);
    free(heal);
    H5Tclose(tt);
    H5Tclose(ht);
    H5Tclose(s160);
    H5Tclose(s16);
    H5Gclose(g);
    return rc;
}

static ss_status write_summary(ss_results *r, const ss_summary *s, const char *config_text,
                               const char *trace_path, const char *csv_digest)
{
    hid_t f = r->per_iteration ? H5Fopen(r->tmp, H5F_ACC_RDWR, H5P_DEFAULT)
                               : H5Fcreate(r->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return ss_fail(SS_EIO, "%s: cannot write results file (disk full? no write permission?)", r->tmp);
    int nc;
    ss_columns(&nc);
    size_t rsize = 0, *offsets = calloc((size_t)nc, sizeof *offsets);
    hid_t t = offsets ? summary_type(s->gpus, &rsize, offsets) : H5I_INVALID_HID;
    char *rows = t >= 0 ? calloc((size_t)s->nsc, rsize) : NULL;
    int rc = rows == NULL;
    for (int j = 0; !rc && j < s->nsc; j++) fill_row(s, j, offsets, rows + (size_t)j * rsize);
    if (!rc) {
        hsize_t n = (hsize_t)s->nsc;
        hid_t sp = H5Screate_simple(1, &n, NULL);
        hid_t d = H5Dcreate2(f, "summary", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = d < 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
        if (d >= 0) H5Dclose(d);
        H5Sclose(sp);
    }
    if (t >= 0) H5Tclose(t);
    free(rows);
    free(offsets);
    char run_id[512];
    ss_atomic_run_id(run_id, sizeof run_id);
    rc |= ss_h5_attr_write_string(f, "run_id", run_id);
    if (csv_digest && csv_digest[0]) rc |= ss_h5_attr_write_string(f, "summary_csv_fnv1a64", csv_digest);
    rc |= ss_h5_attr_write_string(f, "stallsim_version", SS_VERSION);
    rc |= ss_h5_attr_write_num(f, "gpus", H5T_STD_I32LE, H5T_NATIVE_INT, &s->gpus, 0);
    rc |= ss_h5_attr_write_string(f, "config", config_text ? config_text : "");
    rc |= ss_h5_attr_write_string(f, "trace", trace_path ? trace_path : "");
    rc |= ss_h5_attr_write_string(f, "eval_trace", s->eval_trace ? s->eval_trace : "");
    rc |= ss_h5_attr_write_num(f, "trace_persistent_workers", H5T_STD_I64LE, H5T_NATIVE_LONG, &s->trace_persistent, 0);
    rc |= ss_h5_attr_write_num(f, "trace_batch_size", H5T_STD_I64LE, H5T_NATIVE_LONG, &s->trace_batch, 0);
    rc |= ss_h5_attr_write_num(f, "effective_delay_threshold", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                   &s->effective_delay_threshold, 0);
    rc |= ss_h5_attr_write_num(f, "warmup_iterations", H5T_STD_I64LE, H5T_NATIVE_LONG, &s->warmup_iterations, 0);
    /* epoch: the one summarised, or -1 (every epoch, and epoch_all = 1: an epoch may be -1) */
    const long ep = s->epoch == SS_EPOCH_ALL ? -1 : s->epoch, all = s->epoch == SS_EPOCH_ALL;
    rc |= ss_h5_attr_write_num(f, "epoch", H5T_STD_I64LE, H5T_NATIVE_LONG, &ep, 0);
    rc |= ss_h5_attr_write_num(f, "epoch_all", H5T_STD_I64LE, H5T_NATIVE_LONG, &all, 0);
    if (s->rank) rc |= write_ranking(f, s);
    if (s->has_calib) {
        const ss_calib *c = &s->calib;
        rc |= ss_h5_attr_write_num(f, "calibrated_workers", H5T_STD_I32LE, H5T_NATIVE_INT, &c->workers, 0);
        rc |= ss_h5_attr_write_num(f, "calibrated_worker_gap", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &c->worker_gap, 0);
        /* the per-GPU settings as datasets of /calibration (an attribute holds at most 64 KB) */
        hid_t g = H5Gcreate2(f, "calibration", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc |= g < 0;
        if (g >= 0) {
            const hsize_t n = (hsize_t)c->gpus;
            struct {
                const char *name;
                const void *v;
                int is_int;
                const char *units;
            } arr[] = {{"workers", c->workers_gpu, 1, "workers"},     {"prefetch", c->prefetch_gpu, 1, "batches"},
                       {"worker_gap", c->gap_gpu, 0, "s"},            {"refill_gap", c->refill_gpu, 0, "s"},
                       {"delivery", c->delivery_gpu, 0, "s"},         {"start_residual", c->resid_gpu, 0, "s"},
                       {"stall_residual", c->stall_resid_gpu, 0, "s"}};
            for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
                if (arr[i].v)
                    rc |= ss_h5_write_array(g, arr[i].name, arr[i].is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE,
                                            arr[i].is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, arr[i].v, n,
                                            arr[i].units);
            const int flags[4] = {c->recorded_workers, c->recorded_prefetch, c->ask_lags, c->no_fetch};
            const char *fn[4] = {"recorded_workers", "recorded_prefetch", "ask_lags", "no_fetch"};
            for (int i = 0; i < 4; i++) rc |= ss_h5_attr_write_num(g, fn[i], H5T_STD_I32LE, H5T_NATIVE_INT, &flags[i], 0);
            rc |= ss_h5_attr_write_num(g, "rows_used", H5T_STD_I64LE, H5T_NATIVE_LONG, &c->rows_used, 0);
            H5Gclose(g);
        }
    }
    if (rc) ss_h5_release(r->tmp); /* discarded: room for the close on a full disk */
    if (ss_h5_close_file(f) != 0) {
        ss_atomic_note_unclosable();
        rc = 1;
    }
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
    st = ss_comm_any_failed(r->comm, st); /* on every rank, file or not: the same collectives */
    if (st != SS_OK && r->file >= 0 && r->comm->rank == 0) ss_h5_release(r->tmp);
    if (st != SS_OK) st = ss_comm_any_failed(r->comm, st); /* the release before any close */
    if (r->file >= 0) {
        if (ss_h5_close_file(r->file) != 0) {
            ss_atomic_note_unclosable();
            if (st == SS_OK) st = ss_fail(SS_EIO, "%s: cannot close results file (disk full?)", r->tmp);
        }
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

/* The value every GPU has in the integer dataset name of results file f (the calibrated
 * loader), -1 where they differ or the file has none */
static int same_calibrated(hid_t f, const char *name)
{
    int v = -1;
    hid_t d = H5Lexists(f, "calibration", H5P_DEFAULT) > 0 && H5Lexists(f, name, H5P_DEFAULT) > 0
                  ? H5Dopen2(f, name, H5P_DEFAULT)
                  : H5I_INVALID_HID;
    if (d < 0) return -1;
    hid_t sp = H5Dget_space(d);
    hssize_t n = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 ? H5Sget_simple_extent_npoints(sp) : 0;
    int *a = n > 0 && n <= SS_MAX_GPUS ? malloc((size_t)n * sizeof *a) : NULL;
    if (a && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) >= 0) {
        v = a[0];
        for (hssize_t i = 1; i < n; i++)
            if (a[i] != v) v = -1;
    }
    free(a);
    if (sp >= 0) H5Sclose(sp);
    H5Dclose(d);
    return v;
}

ss_status ss_results_read_settings(const char *path, ss_results_settings *out)
{
    memset(out, 0, sizeof *out);
    out->base_workers = out->base_w = out->base_p = out->base_pw = -1; /* unknown, also where the file cannot be read */
    out->base_batch = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return ss_fail(SS_EIO, "%s: cannot open as HDF5 (truncated or damaged file?)", path);
    out->known = ss_h5_attr_read_long(f, "warmup_iterations", &out->warmup_iterations) == 0 &&
                 ss_h5_attr_read_long(f, "epoch", &out->epoch) == 0;
    /* a setting that is there but not a number: the rows cannot be summarised alike */
    const char *names[3] = {"warmup_iterations", "epoch", "effective_delay_threshold"};
    for (int i = 0; !out->known && i < 3; i++) {
        double v;
        hid_t x = H5Aexists(f, names[i]) > 0 ? H5Aopen(f, names[i], H5P_DEFAULT) : H5I_INVALID_HID;
        hid_t ty = x >= 0 ? H5Aget_type(x) : H5I_INVALID_HID;
        const int bad = x >= 0 && (ty < 0 || H5Tget_class(ty) == H5T_STRING || H5Aread(x, H5T_NATIVE_DOUBLE, &v) < 0);
        if (ty >= 0) H5Tclose(ty);
        if (x >= 0) H5Aclose(x);
        if (bad) {
            H5Fclose(f);
            return ss_fail(SS_EDATA, "%s: root attribute %s is not a number, so the settings its rows were "
                           "summarised with are unknown", path, names[i]);
        }
    }
    long all = -1; /* (files before epoch_all: a negative epoch is every epoch) */
    if (out->known && (ss_h5_attr_read_long(f, "epoch_all", &all) == 0 ? all != 0 : out->epoch < 0))
        out->epoch = SS_EPOCH_ALL;
    hid_t a = H5Aexists(f, "effective_delay_threshold") > 0 ? H5Aopen(f, "effective_delay_threshold", H5P_DEFAULT)
                                                           : H5I_INVALID_HID;
    if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &out->threshold) < 0) out->known = 0;
    if (a >= 0) H5Aclose(a);
    if (ss_h5_attr_read_long(f, "calibrated_workers", &out->base_workers) != 0) out->base_workers = -1;
    if (ss_h5_attr_read_string(f, "trace", out->trace, sizeof out->trace) != 0) out->trace[0] = '\0';
    if (ss_h5_attr_read_string(f, "eval_trace", out->eval_trace, sizeof out->eval_trace) != 0) out->eval_trace[0] = '\0';
    long pw = -1;
    if (ss_h5_attr_read_long(f, "trace_persistent_workers", &pw) == 0 && (pw == 0 || pw == 1)) out->base_pw = (int)pw;
    long batch = -1;
    if (ss_h5_attr_read_long(f, "trace_batch_size", &batch) == 0 && batch > 0) out->base_batch = batch;
    out->base_w = same_calibrated(f, "calibration/workers");
    out->base_p = same_calibrated(f, "calibration/prefetch");
    H5Fclose(f);
    return SS_OK;
}

ss_status ss_results_read_summary(const char *path, ss_results_row **rows, int *n, int *gpus)
{
    *rows = NULL;
    *n = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) return ss_fail(SS_EDATA, "%s: not an HDF5 file", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return ss_fail(SS_EIO, "%s: cannot open as HDF5 (truncated or damaged file?)", path);
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
        /* the columns of the table: text into text[], numbers into num[] */
        int nc, ntext = 0;
        const ss_column *cols = ss_columns(&nc);
        hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ss_results_row));
        hid_t ft = H5Dget_type(d);
        /* a column the file lacks (an older stallsim's, or a damaged file): the names and
         * the iteration counts and times are needed; other numbers are NaN (shown as -) */
        int absent[SS_RESULTS_MAX_COLUMNS] = {0};
        for (int k = 0; st == SS_OK && k < nc && k < SS_RESULTS_MAX_COLUMNS; k++) {
            const ss_column *c = &cols[k];
            if (!(c->flags & SS_COLF_H5) || (c->flags & SS_COLF_PER_GPU)) continue;
            if (H5Tget_class(ft) == H5T_COMPOUND && H5Tget_member_index(ft, c->name) >= 0) continue;
            if ((c->flags & SS_COLF_COMPARE) &&
                ((c->type == SS_COL_STR && strcmp(c->name, "label")) || !strcmp(c->name, "iterations") ||
                 !strcmp(c->name, "iter_time_mean"))) /* (a label is left empty: the name stands for it) */
                st = ss_fail(SS_EDATA, "%s: /summary has no column '%s'", path, c->name);
            absent[k] = 1;
        }
        if (ft >= 0) H5Tclose(ft);
        for (int k = 0; st == SS_OK && k < nc && k < SS_RESULTS_MAX_COLUMNS; k++) {
            const ss_column *c = &cols[k];
            if (!(c->flags & SS_COLF_H5) || (c->flags & SS_COLF_PER_GPU)) continue;
            if (absent[k]) {
                ntext += c->type == SS_COL_STR; /* its text stays empty */
                continue;
            }
            if (c->type == SS_COL_STR && ntext >= SS_RESULTS_MAX_TEXT) {
                /* a column table of more text columns than a row holds: raise SS_RESULTS_MAX_TEXT */
                st = ss_fail(SS_EINTERNAL, "%s: the /summary table has more text columns than %d (SS_RESULTS_MAX_TEXT)",
                             path, SS_RESULTS_MAX_TEXT);
            } else if (c->type == SS_COL_STR) {
                hid_t s1 = H5Tcopy(H5T_C_S1);
                H5Tset_size(s1, sizeof(((ss_results_row *)0)->text[0]));
                H5Tinsert(t, c->name, HOFFSET(ss_results_row, text) + (size_t)ntext++ * sizeof(((ss_results_row *)0)->text[0]), s1);
                H5Tclose(s1);
            } else if (c->type != SS_COL_STR) {
                H5Tinsert(t, c->name, HOFFSET(ss_results_row, num) + (size_t)k * sizeof(double), H5T_NATIVE_DOUBLE);
            }
        }
        *rows = st == SS_OK ? calloc((size_t)count, sizeof **rows) : NULL;
        if (st == SS_OK && !*rows) st = ss_fail(SS_ENOMEM, "out of memory");
        else if (st == SS_OK && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0)
            st = ss_fail(SS_EDATA, "%s: /summary lacks the expected columns", path);
        for (long i = 0; st == SS_OK && i < (long)count; i++)
            for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS; k++)
                if (absent[k]) (*rows)[i].num[k] = NAN;
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
