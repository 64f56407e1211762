/* ss_trace.c - reader and writer of stalltrace HDF5 files (io/trace/FORMAT.md). */
#include "ss_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ss_atomic.h"
#include "ss_isa.h"
#include "ss_limits.h"
#include "ss_h5util.h"

/* the largest attribute the default file format holds in the object header, less room */
#define SS_TRACE_COMPACT_ATTR 60000

enum { DS_FETCH_START, DS_FETCH_TIME, DS_TRAIN_START, DS_ITER_TIME, DS_STALL_TIME, DS_NF64 };
static const char *const ds_f64_name[DS_NF64] = {"fetch_start", "fetch_time", "train_start",
                                                 "iteration_time", "stall_time"};
/* durations must be >= 0; instants only finite */
static const int ds_f64_duration[DS_NF64] = {0, 1, 0, 1, 1};

/* One row that holds what the warnings count (their record): stalls longer than their
 * iteration, and fetches that end more than LATE_FETCH_S after their training step began;
 * per kind, its count of such GPUs and the first of them. Rows, not slabs, so that ranks
 * whose slabs start at different rows (a node's ranks share a slab, read-ahead halves it
 * on some nodes) count each row once. */
typedef struct {
    long row, count;
    int first_gpu;
    double stall, iter;
    long late;
    int late_gpu;
    double late_by;
} long_stall_rec;

/* A fetch that ends later than this after its step began (s) is counted: the batch cannot
 * be trained on before it exists (sim/cli/COMMANDS.md, "Warnings") */
#define LATE_FETCH_S 1e-3

/* At most this many distinct rows recorded per rank (each rank's are gathered on rank 0:
 * 4.2 MB a rank at most, and only on a trace with that many such rows); beyond it the
 * warnings give the counts as lower bounds */
#define LONG_STALL_ROWS_MAX 65536

struct ss_trace_file {
    hid_t file, d_epoch, d_index, d_f64[DS_NF64];
    long chunk_rows;
    ss_trace_meta meta;
    char path[4096];
    int epoch_wide;     /* the epoch dataset holds integers wider than 32 bits (h5py's int64) */
    long_stall_rec *ls; /* rows with a long stall (made unique as it fills and when reported) */
    long nls, cap_ls;
    int ls_overflow; /* more rows than LONG_STALL_ROWS_MAX: some not recorded */
    /* the last row of the last slab read and checked (last_row < 0: none), so that the
     * next slab's order check need not read it again */
    long last_row;
    int32_t last_epoch;
    int64_t last_index;
    /* epochs and indices of rows [key_r0, key_r0 + key_n), read KEY_CACHE_ROWS at a time */
    int32_t *key_epoch;
    int64_t *key_index;
    long key_r0, key_n;
    /* the file as it was opened (ss_trace_check_unchanged): device, inode, size, mtime */
    struct stat opened;
    int have_opened;
};

enum { KEY_CACHE_ROWS = 4096 };

struct ss_trace_writer {
    hid_t file, d_epoch, d_index, d_f64[DS_NF64];
    long rows_written;
    int streaming; /* the row count was not known at creation: datasets grow */
    ss_trace_meta meta;
    char path[4096], tmp[4200];
};

#define STR_ATTR(name, note) {#name, 1, offsetof(ss_trace_meta, name), sizeof(((ss_trace_meta *)0)->name), note, 0, 0}
#define LONG_ATTR(name, note, lo, hi) {#name, 0, offsetof(ss_trace_meta, name), sizeof(long), note, lo, hi}
#define ANY_COUNT (1L << 53) /* counts of things: any that a double holds exactly */
static const ss_trace_attr attrs[] = {
    STR_ATTR(log_type, ""),
    STR_ATTR(dataset, ""),
    STR_ATTR(augmentation, ""),
    STR_ATTR(model, ""),
    STR_ATTR(source, ""),
    LONG_ATTR(batch_size, "", 0, ANY_COUNT),
    LONG_ATTR(workers, " worker processes in all, summed over the GPUs (each GPU's: loader_workers below)", 0, ANY_COUNT),
    LONG_ATTR(threads, "", 0, ANY_COUNT),
    LONG_ATTR(epochs, "", 0, ANY_COUNT),
    LONG_ATTR(prefetch_factor, "", 0, SS_MAX_PREFETCH), /* 0: none (synchronous loading) */
    STR_ATTR(fetch_times, ""),
    STR_ATTR(start_method, " (how the loader's workers were started)"),
    LONG_ATTR(persistent_workers, " (1: kept across epochs, 0: started at every epoch)", 0, 1),
    STR_ATTR(probe_start_method, " (how the recorder's probe started its one worker)"),
    STR_ATTR(import_note, " (the record was not whole when imported: its last rows may be missing)"),
};
#undef STR_ATTR
#undef LONG_ATTR
#undef ANY_COUNT

const ss_trace_attr *ss_trace_attrs(int *n)
{
    *n = (int)(sizeof attrs / sizeof attrs[0]);
    return attrs;
}

/* floats are seconds from 0 to 1e9 unless the row is a SHARE (from 0 to 1) */
#define GPU_ARRAY(field, name, is_float, note, units)                                                              \
    {name, is_float, offsetof(ss_trace_meta, field), note, units, SS_TRACE_MAX_SECONDS, "seconds from 0 to 1e9"}
#define SHARE_ARRAY(field, name, note) {name, 1, offsetof(ss_trace_meta, field), note, "1", 1.0, "a share from 0 to 1"}
static const ss_trace_gpu_array gpu_arrays[] = {
    GPU_ARRAY(fetch_cpu, "fetch_cpu_time", 1, " s (per GPU: the fetching thread's CPU time per batch, median)", "s"),
    GPU_ARRAY(loop_cpu, "loop_cpu_time", 1, " s (per GPU: the training process's CPU time per iteration, median)", "s"),
    GPU_ARRAY(fetch_wait, "fetch_wait_time", 1, " s (per GPU: the fetching thread's wait for a core per batch, median)",
              "s"),
    GPU_ARRAY(loop_wait, "loop_wait_time", 1, " s (per GPU: the training loop's wait for a core per iteration, median)",
              "s"),
    GPU_ARRAY(fetch_wait_start, "fetch_wait_start_time", 1,
              " s (per GPU: the mean wait for a core of each epoch's first W*P fetches, sent out at once)", "s"),
    SHARE_ARRAY(host_busy, "host_cpu_busy",
                " (per GPU: the share of its cores busy while the job ran, all processes together)"),
    SHARE_ARRAY(host_job, "host_cpu_job", " (per GPU: the share of its cores that the job's processes on them used)"),
    GPU_ARRAY(cpu_pool, "cpu_pool", 0, "", "GPU"), /* info sums the pools up */
    GPU_ARRAY(cpu_pool_cores, "cpu_pool_cores", 0, "", "cores"),
    GPU_ARRAY(probe_lead, "probe_lead_time", 1, " s (per GPU, probe: iter(loader) with one worker)", "s"),
    GPU_ARRAY(probe_startup, "probe_startup_time", 1,
              " s (per GPU, probe: from the end of iter(loader) to the worker's first fetch)", "s"),
    GPU_ARRAY(probe_delivery, "probe_delivery_time", 1,
              " s (per GPU, probe: from the ask of a ready batch to the loop having it, median)", "s"),
    GPU_ARRAY(probe_stop, "probe_stop_time", 1, " s (per GPU, probe: the worker's shutdown at the pass's end)", "s"),
    GPU_ARRAY(probe_next_lead, "probe_next_lead_time", 1, " s (per GPU, probe's second pass: iter(loader))", "s"),
    GPU_ARRAY(probe_next_startup, "probe_next_startup_time", 1,
              " s (per GPU, probe's second pass: from the end of iter(loader) to the worker's first fetch)", "s"),
};
#undef GPU_ARRAY
#undef SHARE_ARRAY

const ss_trace_gpu_array *ss_trace_gpu_arrays(int *n)
{
    *n = (int)(sizeof gpu_arrays / sizeof gpu_arrays[0]);
    return gpu_arrays;
}

/* The pointer field of meta that array a is held in. */
static void **gpu_array_field(ss_trace_meta *m, const ss_trace_gpu_array *a) { return (void **)((char *)m + a->offset); }

void ss_trace_meta_init(ss_trace_meta *m)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (!attrs[i].is_string) *(long *)((char *)m + attrs[i].offset) = -1;
}

int ss_trace_meta_has_fetch(const ss_trace_meta *m) { return strcmp(m->fetch_times, "absent") != 0; }

int ss_trace_meta_has_workers(const ss_trace_meta *m)
{
    if (!m->loader_workers) return -1;
    for (int g = 0; g < m->gpus; g++)
        if (m->loader_workers[g] > 0) return 1;
    return 0;
}
int ss_trace_meta_has_cpu(const ss_trace_meta *m) { return m->fetch_cpu && m->loop_cpu && m->cpu_pool && m->cpu_pool_cores; }

int ss_trace_meta_host_others(const ss_trace_meta *m, int *gpu, double *other, double *job)
{
    if (!m->host_busy || !m->host_job) return 0;
    *gpu = 0;
    *other = -1;
    *job = 0;
    for (int g = 0; g < m->gpus; g++) {
        double o = m->host_busy[g] - m->host_job[g];
        if (o < 0) o = 0;
        if (o > *other) *gpu = g, *other = o, *job = m->host_job[g];
    }
    if (m->cpu_pool) *gpu = m->cpu_pool[*gpu];
    return 1;
}

void ss_trace_meta_host_line(const ss_trace_meta *m, char *buf, size_t size)
{
    int g;
    double other, job;
    buf[0] = '\0';
    if (!ss_trace_meta_host_others(m, &g, &other, &job)) return;
    char cores[64] = "the cores";
    if (m->cpu_pool) snprintf(cores, sizeof cores, "the %d cores", m->cpu_pool_cores[g]);
    int pools = 0;
    for (int p = 0; m->cpu_pool && p < m->gpus; p++) pools += m->cpu_pool[p] == p;
    snprintf(buf, size, "other processes used %.0f %% of %s %s while the job was recorded (the job %.0f %%)",
             100 * other, cores, pools > 1 ? "of a pool" : "of its host", 100 * job);
    if (pools > 1) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "; the most loaded pool is GPU %d's", g);
    }
}

/* gen's two marks (ss_trace_meta_is_synthetic) */
static int synthetic_marks(const char *log_type, const char *source)
{
    return !strcmp(log_type, "synthetic") && !strncmp(source, "stallsim gen", 12);
}

int ss_trace_meta_is_synthetic(const ss_trace_meta *m) { return synthetic_marks(m->log_type, m->source); }

size_t ss_slab_row_bytes(int gpus)
{
    return sizeof(int32_t) + sizeof(int64_t) + ((size_t)DS_NF64 * (size_t)gpus + 2 + SS_SLAB_NEX) * sizeof(double);
}

static double **slab_f64(ss_slab *s, int i)
{
    double **p[DS_NF64] = {&s->fetch_start, &s->fetch_time, &s->train_start,
                           &s->iteration_time, &s->stall_time};
    return p[i];
}

ss_status ss_slab_alloc(ss_slab *s, long cap, int gpus)
{
    memset(s, 0, sizeof *s);
    if (cap < 1) cap = 1;
    s->cap = cap;
    s->gpus = gpus;
    s->epoch = malloc((size_t)cap * sizeof *s->epoch);
    s->index = malloc((size_t)cap * sizeof *s->index);
    s->sum_fetch_start = malloc((size_t)cap * sizeof *s->sum_fetch_start);
    s->sum_fetch_time = malloc((size_t)cap * sizeof *s->sum_fetch_time);
    s->extremes = malloc((size_t)cap * SS_SLAB_NEX * sizeof *s->extremes);
    int ok = s->epoch && s->index && s->sum_fetch_start && s->sum_fetch_time && s->extremes;
    for (int i = 0; i < DS_NF64; i++) {
        *slab_f64(s, i) = malloc((size_t)cap * (size_t)gpus * sizeof(double));
        ok = ok && *slab_f64(s, i);
    }
    if (!ok) {
        ss_slab_free(s);
        return ss_fail(SS_ENOMEM, "cannot allocate a slab of %ld rows x %d GPUs", cap, gpus);
    }
    return SS_OK;
}

/* Each array of a placed slab starts on a 64-byte boundary. */
#define SLAB_ALIGN 64
static size_t slab_round(size_t b) { return (b + SLAB_ALIGN - 1) / SLAB_ALIGN * SLAB_ALIGN; }

size_t ss_slab_bytes(long cap, int gpus)
{
    size_t c = (size_t)(cap < 1 ? 1 : cap), g = (size_t)gpus;
    return slab_round(c * sizeof(int32_t)) + slab_round(c * sizeof(int64_t)) + 2 * slab_round(c * sizeof(double)) +
           slab_round(c * SS_SLAB_NEX * sizeof(double)) + (size_t)DS_NF64 * slab_round(c * g * sizeof(double));
}

void ss_slab_place(ss_slab *s, void *mem, long cap, int gpus)
{
    memset(s, 0, sizeof *s);
    if (cap < 1) cap = 1;
    s->cap = cap;
    s->gpus = gpus;
    char *p = mem;
    size_t c = (size_t)cap, g = (size_t)gpus;
    s->epoch = (int32_t *)(void *)p;
    p += slab_round(c * sizeof(int32_t));
    s->index = (int64_t *)(void *)p;
    p += slab_round(c * sizeof(int64_t));
    s->sum_fetch_start = (double *)(void *)p;
    p += slab_round(c * sizeof(double));
    s->sum_fetch_time = (double *)(void *)p;
    p += slab_round(c * sizeof(double));
    s->extremes = (double *)(void *)p;
    p += slab_round(c * SS_SLAB_NEX * sizeof(double));
    for (int i = 0; i < DS_NF64; i++) {
        *slab_f64(s, i) = (double *)(void *)p;
        p += slab_round(c * g * sizeof(double));
    }
}

void ss_slab_view(const ss_slab *s, long lo, long n, ss_slab *view)
{
    memset(view, 0, sizeof *view);
    view->cap = n;
    view->gpus = s->gpus;
    const long G = s->gpus;
    view->epoch = s->epoch + lo;
    view->index = s->index + lo;
    view->sum_fetch_start = s->sum_fetch_start + lo;
    view->sum_fetch_time = s->sum_fetch_time + lo;
    view->extremes = s->extremes + lo * SS_SLAB_NEX;
    for (int i = 0; i < DS_NF64; i++) *slab_f64(view, i) = *slab_f64((ss_slab *)s, i) + lo * G;
}

void ss_slab_free(ss_slab *s)
{
    free(s->epoch);
    free(s->index);
    free(s->sum_fetch_start);
    free(s->sum_fetch_time);
    free(s->extremes);
    for (int i = 0; i < DS_NF64; i++) free(*slab_f64(s, i));
    memset(s, 0, sizeof *s);
}

/* ---- reader ---- */

/* what an existing link that HDF5 cannot follow says of the file */
#define DAMAGED "the file looks damaged (a copy cut short or overwritten in part?)"

static ss_status open_checked(ss_trace_file *t, const char *name, int want_rank, H5T_class_t cls,
                              size_t size, hid_t *out)
{
    char full[128];
    snprintf(full, sizeof full, "/timeline/%s", name);
    const htri_t there = H5Lexists(t->file, full, H5P_DEFAULT);
    if (there < 0) /* HDF5 could not read the group's links */
        return ss_fail(SS_EDATA, "%s: dataset %s cannot be read: %s", t->path, full, DAMAGED);
    if (there == 0) return ss_fail(SS_EDATA, "%s: dataset %s is missing", t->path, full);
    /* no chunk cache: the slabs read whole chunks, which HDF5 then moves straight into the
     * slab instead of through the cache (one copy of every chunk less) */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl >= 0) H5Pset_chunk_cache(dapl, 0, 0, 1.0);
    hid_t d = H5Dopen2(t->file, full, dapl >= 0 ? dapl : H5P_DEFAULT);
    if (dapl >= 0) H5Pclose(dapl);
    if (d < 0) return ss_fail(SS_EDATA, "%s: dataset %s cannot be opened: %s", t->path, full, DAMAGED);
    *out = d;
    hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
    int rank = H5Sget_simple_extent_ndims(sp);
    hsize_t dims[2] = {0, 0};
    if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
    H5T_class_t c = H5Tget_class(ty);
    size_t sz = H5Tget_size(ty);
    H5Sclose(sp);
    H5Tclose(ty);
    if (rank != want_rank)
        return ss_fail(SS_EDATA, "%s: dataset %s has rank %d, expected %d (%s)", t->path, full, rank, want_rank,
                       want_rank == 2 ? "[N][G]: one row per iteration, one column per GPU" : "[N]: one per iteration");
    if (c != cls || (cls == H5T_FLOAT && sz != size) || (cls == H5T_INTEGER && size && sz != size) ||
        (cls == H5T_INTEGER && !size && sz > 8))
        return ss_fail(SS_EDATA, "%s: dataset %s has type %s of %zu bytes, expected %s%zu%s",
                       t->path, full,
                       c == H5T_FLOAT ? "float" : c == H5T_INTEGER ? "integer" : c == H5T_STRING ? "string"
                       : c == H5T_COMPOUND ? "compound (a record of fields)" : c == H5T_ENUM ? "enum"
                       : c == H5T_ARRAY ? "array" : c == H5T_VLEN ? "variable-length" : c == H5T_BITFIELD ? "bitfield"
                       : "other",
                       sz, cls == H5T_FLOAT ? "float" : "int", size ? size * 8 : 64,
                       cls == H5T_INTEGER && !size ? " or a narrower integer" : "");
    if (cls == H5T_INTEGER && !size && !strcmp(name, "epoch")) t->epoch_wide = sz > 4;
    if ((long)dims[0] != t->meta.iterations)
        return ss_fail(SS_EDATA, "%s: dataset %s has %llu rows but attribute iterations = %ld",
                       t->path, full, (unsigned long long)dims[0], t->meta.iterations);
    /* a dataset made but never written (the writer stopped before its data): its fill
     * value, zeros, would read as a run */
    H5D_space_status_t alloc = H5D_SPACE_STATUS_ERROR;
    if (dims[0] > 0 && H5Dget_space_status(d, &alloc) >= 0 && alloc == H5D_SPACE_STATUS_NOT_ALLOCATED)
        return ss_fail(SS_EDATA, "%s: dataset %s was never written (no storage: the writer stopped before its "
                       "data?)", t->path, full);
    if (want_rank == 2 && (long)dims[1] != t->meta.gpus)
        return ss_fail(SS_EDATA, "%s: dataset %s has %llu columns but attribute gpus = %d", t->path,
                       full, (unsigned long long)dims[1], t->meta.gpus);
    /* times in other units would be read as seconds: a units attribute, where there is one,
     * must say seconds */
    char units[32] = "";
    if (cls == H5T_FLOAT && ss_h5_attr_read_string(d, "units", units, sizeof units) == 0 && strcmp(units, "s") &&
        strcmp(units, "seconds") && strcmp(units, "second") && strcmp(units, "sec"))
        return ss_fail(SS_EDATA, "%s: dataset %s has units '%s': stallsim reads seconds (convert the values and "
                       "write units = \"s\")", t->path, full, units);
    /* a compression filter this HDF5 lacks (h5py's lzf, a plugin's) would read as damage */
    hid_t fp = H5Dget_create_plist(d);
    int nf = fp >= 0 ? H5Pget_nfilters(fp) : 0;
    for (int i = 0; i < nf; i++) {
        unsigned flags, conf;
        size_t ncd = 0;
        char fname[64] = "";
        H5Z_filter_t id = H5Pget_filter2(fp, (unsigned)i, &flags, &ncd, NULL, sizeof fname, fname, &conf);
        if (id >= 0 && H5Zfilter_avail(id) <= 0) {
            H5Pclose(fp);
            return ss_fail(SS_EDATA,
                           "%s: dataset %s is compressed with filter %d (%s), which this HDF5 library does not have: "
                           "write the trace with gzip compression (h5py: compression='gzip') or none",
                           t->path, full, (int)id, fname[0] ? fname : id == 32000 ? "lzf" : "unknown");
        }
    }
    /* a compressed chunk is inflated whole for every read of a part of it: chunks past
     * SS_TRACE_MAX_FILTERED_CHUNK bytes would take that memory and time for each slab */
    hsize_t cdims[2] = {0, 0};
    const int crank = nf > 0 && H5Pget_layout(fp) == H5D_CHUNKED ? H5Pget_chunk(fp, 2, cdims) : 0;
    double cbytes = crank >= 1 ? (double)cdims[0] * (crank == 2 ? (double)cdims[1] : 1.0) * (double)sz : 0;
    if (fp >= 0) H5Pclose(fp);
    /* the suggested chunk: up to 65536 rows, within the limit and the dataset's rows */
    double fix_rows = floor(SS_TRACE_MAX_FILTERED_CHUNK / ((crank == 2 ? (double)t->meta.gpus : 1.0) * (double)sz));
    if (fix_rows > 65536.0) fix_rows = 65536.0;
    if (dims[0] > 0 && fix_rows > (double)dims[0]) fix_rows = (double)dims[0];
    if (fix_rows < 1.0) fix_rows = 1.0;
    char cfix[48];
    if (crank == 2) snprintf(cfix, sizeof cfix, "%.0fx%d", fix_rows, t->meta.gpus);
    else snprintf(cfix, sizeof cfix, "%.0f", fix_rows);
    if (cbytes > SS_TRACE_MAX_FILTERED_CHUNK)
        return ss_fail(SS_EDATA,
                       "%s: dataset %s is compressed in chunks of %.1f MiB (%llu rows); stallsim takes compressed "
                       "chunks of up to %d MiB, as each read of a part of one inflates it whole. Re-chunk it, for "
                       "example `h5repack -l %s:CHUNK=%s in.h5 out.h5`",
                       t->path, full, cbytes / 1048576.0, (unsigned long long)cdims[0],
                       (int)(SS_TRACE_MAX_FILTERED_CHUNK / 1048576), full, cfix);
    if (want_rank == 2) {
        hid_t dcpl = H5Dget_create_plist(d);
        hsize_t cd[2];
        if (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, cd) == 2 &&
            (t->chunk_rows == 0 || (long)cd[0] < t->chunk_rows))
            t->chunk_rows = (long)cd[0];
        H5Pclose(dcpl);
    }
    return SS_OK;
}

/* The columns of /timeline/fetch_start (its GPUs), or -1 where it cannot tell. */
static long timeline_columns(const ss_trace_file *t)
{
    long cols = -1;
    if (H5Lexists(t->file, "/timeline", H5P_DEFAULT) <= 0 || H5Lexists(t->file, "/timeline/fetch_start", H5P_DEFAULT) <= 0)
        return -1;
    hid_t d = H5Dopen2(t->file, "/timeline/fetch_start", H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2];
    if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 2 && H5Sget_simple_extent_dims(sp, dims, NULL) == 2)
        cols = (long)dims[1];
    if (sp >= 0) H5Sclose(sp);
    H5Dclose(d);
    return cols;
}

/* A per-GPU attribute or dataset that does not hold gpus values: the gpus attribute is the
 * one to blame when the timeline disagrees with it too. */
static ss_status per_gpu_mismatch(const ss_trace_file *t, const char *what, const char *kind)
{
    const long cols = timeline_columns(t);
    if (cols >= 0 && cols != t->meta.gpus)
        return ss_fail(SS_EDATA, "%s: root attribute gpus = %d, but /timeline/fetch_start has %ld columns (GPUs): the "
                       "attribute is wrong", t->path, t->meta.gpus, cols);
    return ss_fail(SS_EDATA, "%s: %s is not %d %s (one per GPU, as root attribute gpus = %d says)", t->path, what,
                   t->meta.gpus, kind, t->meta.gpus);
}

/* 1 when the root attribute name has a scalar dataspace (h5py: f.attrs[name] = 2) */
static int attr_is_scalar(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return 0;
    hid_t sp = H5Aget_space(a);
    int scalar = sp >= 0 && H5Sget_simple_extent_type(sp) == H5S_SCALAR;
    if (sp >= 0) H5Sclose(sp);
    H5Aclose(a);
    return scalar;
}

/* The optional per-GPU loader_workers attribute: one integer per GPU, 0 to SS_MAX_WORKERS;
 * a scalar is every GPU's. */
static ss_status read_loader_workers(ss_trace_file *t)
{
    ss_trace_meta *m = &t->meta;
    if (H5Aexists(t->file, "loader_workers") <= 0) return SS_OK;
    m->loader_workers = malloc((size_t)m->gpus * sizeof *m->loader_workers);
    if (!m->loader_workers) return ss_fail(SS_ENOMEM, "out of memory");
    long one;
    if (attr_is_scalar(t->file, "loader_workers") && ss_h5_attr_read_long(t->file, "loader_workers", &one) == 0) {
        if (one < 0 || one > SS_MAX_WORKERS)
            return ss_fail(SS_EDATA, "%s: root attribute loader_workers = %ld, expected 0 to %d", t->path, one,
                           SS_MAX_WORKERS);
        for (int g = 0; g < m->gpus; g++) m->loader_workers[g] = (int)one;
    } else if (ss_h5_attr_read_ints(t->file, "loader_workers", m->loader_workers, m->gpus) != 0) {
        return per_gpu_mismatch(t, "root attribute 'loader_workers'", "integers");
    }
    for (int g = 0; g < m->gpus; g++)
        if (m->loader_workers[g] < 0 || m->loader_workers[g] > SS_MAX_WORKERS)
            return ss_fail(SS_EDATA, "%s: root attribute loader_workers[%d] = %d, expected 0 to %d", t->path, g,
                           m->loader_workers[g], SS_MAX_WORKERS);
    return SS_OK;
}

/* An optional root dataset of one value per GPU (float64 seconds or integers): NULL in *out
 * when absent. */
static ss_status read_gpu_array(ss_trace_file *t, const char *name, int is_float, void **out)
{
    const ss_trace_meta *m = &t->meta;
    *out = NULL;
    if (H5Lexists(t->file, name, H5P_DEFAULT) <= 0) return SS_OK;
    hid_t d = H5Dopen2(t->file, name, H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    hid_t ty = d >= 0 ? H5Dget_type(d) : -1;
    hsize_t n = 0;
    int ok = sp >= 0 && ty >= 0 && H5Tget_class(ty) == (is_float ? H5T_FLOAT : H5T_INTEGER) &&
             H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &n, NULL) == 1 &&
             n == (hsize_t)m->gpus;
    if (ok) {
        *out = malloc((size_t)m->gpus * (is_float ? sizeof(double) : sizeof(int)));
        ok = *out && ss_h5_rows(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT, 0, m->gpus, 0, *out, 0) == 0;
    }
    if (ty >= 0) H5Tclose(ty);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    if (ok) return SS_OK;
    char what[96];
    snprintf(what, sizeof what, "dataset /%s", name);
    return per_gpu_mismatch(t, what, is_float ? "floating-point values" : "integers");
}

/* The optional per-GPU datasets (io/trace/FORMAT.md): seconds finite and >= 0; /cpu_pool,
 * the first GPU of the pool of cores each GPU's processes run on, with /cpu_pool_cores,
 * that pool's cores (the same on its GPUs); /fetch_wait_time with /loop_wait_time;
 * /fetch_wait_start_time only with them. */
static ss_status read_gpu_arrays(ss_trace_file *t)
{
    ss_trace_meta *m = &t->meta;
    const int G = m->gpus;
    for (size_t i = 0; i < sizeof gpu_arrays / sizeof gpu_arrays[0]; i++) {
        const ss_trace_gpu_array *a = &gpu_arrays[i];
        void **field = gpu_array_field(m, a);
        ss_status st = read_gpu_array(t, a->name, a->is_float, field);
        if (st != SS_OK) return st;
        const double *v = a->is_float ? *field : NULL;
        for (int g = 0; v && g < G; g++)
            if (!(v[g] >= 0 && v[g] <= a->max))
                return ss_fail(SS_EDATA, "%s: dataset /%s[%d] = %g, expected %s", t->path, a->name, g, v[g], a->range);
    }
    if (!m->cpu_pool != !m->cpu_pool_cores)
        return ss_fail(SS_EDATA, "%s: datasets /cpu_pool and /cpu_pool_cores come together; the trace has only /%s",
                       t->path, m->cpu_pool ? "cpu_pool" : "cpu_pool_cores");
    if (!m->fetch_wait != !m->loop_wait)
        return ss_fail(SS_EDATA, "%s: datasets /fetch_wait_time and /loop_wait_time come together; the trace has only /%s",
                       t->path, m->fetch_wait ? "fetch_wait_time" : "loop_wait_time");
    if (!m->host_busy != !m->host_job)
        return ss_fail(SS_EDATA, "%s: datasets /host_cpu_busy and /host_cpu_job come together; the trace has only /%s",
                       t->path, m->host_busy ? "host_cpu_busy" : "host_cpu_job");
    const int probes = !!m->probe_lead + !!m->probe_startup + !!m->probe_delivery + !!m->probe_stop;
    if (probes != 0 && probes != 4)
        return ss_fail(SS_EDATA, "%s: datasets /probe_lead_time, /probe_startup_time, /probe_delivery_time and "
                       "/probe_stop_time come together; the trace has %d of them", t->path, probes);
    if (!m->probe_next_lead != !m->probe_next_startup)
        return ss_fail(SS_EDATA, "%s: datasets /probe_next_lead_time and /probe_next_startup_time come together; the "
                       "trace has only /%s", t->path, m->probe_next_lead ? "probe_next_lead_time" : "probe_next_startup_time");
    if (m->probe_next_lead && !probes)
        return ss_fail(SS_EDATA, "%s: datasets /probe_next_lead_time and /probe_next_startup_time need the four "
                       "/probe_* datasets of the first pass, which the trace does not have", t->path);
    for (int g = 0; probes && g < G; g++)
        if (!m->loader_workers || m->loader_workers[g] != 0)
            return ss_fail(SS_EDATA, "%s: the /probe_* datasets describe a loader without workers, but "
                           "/loader_workers[%d] is %s", t->path, g, m->loader_workers ? "not 0" : "missing");
    if (m->fetch_wait_start && !m->fetch_wait)
        return ss_fail(SS_EDATA, "%s: dataset /fetch_wait_start_time needs /fetch_wait_time and /loop_wait_time, which "
                       "the trace does not have", t->path);
    for (int g = 0; m->cpu_pool && g < G; g++) {
        int p = m->cpu_pool[g];
        if (p < 0 || p > g || m->cpu_pool[p] != p)
            return ss_fail(SS_EDATA, "%s: dataset /cpu_pool[%d] = %d, expected the first GPU of its pool (0 to %d, "
                           "a GPU whose own entry names itself)", t->path, g, p, g);
        if (m->cpu_pool_cores[g] < 1 || m->cpu_pool_cores[g] != m->cpu_pool_cores[p])
            return ss_fail(SS_EDATA, "%s: dataset /cpu_pool_cores[%d] = %d, expected at least 1 and the same as its "
                           "pool's first GPU %d (%d)", t->path, g, m->cpu_pool_cores[g], p, m->cpu_pool_cores[p]);
    }
    return SS_OK;
}

/* An optional [passes][gpus] float64 dataset of the epochs' passes (/pass_start_time:
 * instants within 1e9 s of the origin; /pass_stop_time: durations from 0 to 1e9 s): NULL in
 * *out when absent, its rows in *rows. Its rows are checked against the timeline's epochs
 * where it is used (ss_passes.c), which counts them. */
static ss_status read_pass_table(ss_trace_file *t, const char *name, int instants, double **out, long *rows)
{
    const ss_trace_meta *m = &t->meta;
    *out = NULL;
    if (H5Lexists(t->file, name, H5P_DEFAULT) <= 0) return SS_OK;
    hid_t d = H5Dopen2(t->file, name, H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    hid_t ty = d >= 0 ? H5Dget_type(d) : -1;
    hsize_t dims[2] = {0, 0};
    int ok = sp >= 0 && ty >= 0 && H5Tget_class(ty) == H5T_FLOAT && H5Sget_simple_extent_ndims(sp) == 2 &&
             H5Sget_simple_extent_dims(sp, dims, NULL) == 2 && dims[1] == (hsize_t)m->gpus && dims[0] >= 1 &&
             dims[0] <= (hsize_t)m->iterations;
    if (ok) {
        *out = malloc((size_t)dims[0] * (size_t)m->gpus * sizeof **out);
        ok = *out && ss_h5_rows(d, H5T_NATIVE_DOUBLE, 0, (long)dims[0], m->gpus, *out, 0) == 0;
    }
    if (ty >= 0) H5Tclose(ty);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    if (!ok)
        return ss_fail(SS_EDATA, "%s: dataset /%s is not a [passes][%d] array of floating-point seconds (one row "
                       "per epoch, one column per GPU, at most one row per iteration)", t->path, name, m->gpus);
    *rows = (long)dims[0];
    for (long e = 0; e < *rows; e++)
        for (int g = 0; g < m->gpus; g++) {
            const double v = (*out)[e * m->gpus + g];
            if (!(fabs(v) <= SS_TRACE_MAX_SECONDS) || (!instants && v < 0))
                return ss_fail(SS_EDATA, "%s: dataset /%s[%ld][%d] = %g, expected %s", t->path, name, e, g, v,
                               instants ? "an instant within 1e9 s of time_origin" : "seconds from 0 to 1e9");
        }
    return SS_OK;
}

/* /pass_start_time, and /pass_stop_time with it and as many rows. */
static ss_status read_passes(ss_trace_file *t)
{
    ss_trace_meta *m = &t->meta;
    long stops = 0;
    ss_status st = read_pass_table(t, "pass_start_time", 1, &m->pass_start, &m->passes);
    if (st == SS_OK) st = read_pass_table(t, "pass_stop_time", 0, &m->pass_stop, &stops);
    if (st == SS_OK && m->pass_stop && (!m->pass_start || stops != m->passes))
        return ss_fail(SS_EDATA, "%s: dataset /pass_stop_time needs /pass_start_time with as many rows (%ld rows; "
                       "/pass_start_time %ld)", t->path, stops, m->pass_start ? m->passes : 0L);
    return st;
}

static ss_status read_meta(ss_trace_file *t)
{
    hid_t root = t->file;
    ss_trace_meta *m = &t->meta;
    char schema[64] = "";
    long v;
    if (ss_h5_attr_read_string(root, "schema", schema, sizeof schema) != 0) {
        if (H5Lexists(root, "summary", H5P_DEFAULT) > 0) /* run's results.h5 */
            return ss_fail(SS_EDATA, "%s: a stallsim results file (the /summary of a sweep), not a trace: give the "
                                     "trace the sweep read (its [trace] path), or compare the results folder",
                           t->path);
        return ss_fail(SS_EDATA, "%s: root attribute 'schema' is missing (not a stalltrace file)", t->path);
    }
    if (strcmp(schema, SS_TRACE_SCHEMA) != 0)
        return ss_fail(SS_EDATA, "%s: root attribute schema = '%s', expected '%s'", t->path, schema,
                       SS_TRACE_SCHEMA);
    if (ss_h5_attr_read_long(root, "schema_version", &v) != 0)
        return ss_fail(SS_EDATA, "%s: root attribute 'schema_version' is missing or not an integer", t->path);
    if (v != SS_TRACE_VERSION)
        return ss_fail(SS_EDATA, "%s: schema_version = %ld, this stallsim reads version %d", t->path, v,
                       SS_TRACE_VERSION);
    if (ss_h5_attr_read_long(root, "gpus", &v) != 0 || v < 1)
        return ss_fail(SS_EDATA, "%s: root attribute 'gpus' is missing or not a positive integer", t->path);
    if (v > SS_MAX_GPUS)
        return ss_fail(SS_EDATA, "%s: root attribute gpus = %ld, at most %d", t->path, v, SS_MAX_GPUS);
    m->gpus = (int)v;
    if (ss_h5_attr_read_long(root, "iterations", &m->iterations) != 0 || m->iterations < 0)
        return ss_fail(SS_EDATA, "%s: root attribute 'iterations' is missing, not an integer or negative", t->path);
    if (m->iterations == 0) return ss_fail(SS_EDATA, "%s: the trace has zero iterations", t->path);
    if (ss_h5_attr_read_string(root, "time_origin", m->time_origin, sizeof m->time_origin) != 0)
        return ss_fail(SS_EDATA, "%s: root attribute 'time_origin' is missing or not a string (the wall-clock time of "
                       "time 0, ISO 8601: '2024-05-01T12:00:00Z')", t->path);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        char *field = (char *)m + attrs[i].offset;
        if (attrs[i].is_string) {
            ss_h5_attr_read_string(root, attrs[i].name, field, attrs[i].size);
            continue;
        }
        long *x = (long *)field;
        int rc = ss_h5_attr_read_long(root, attrs[i].name, x);
        if (rc == -2)
            return ss_fail(SS_EDATA, "%s: root attribute '%s' is not one integer", t->path, attrs[i].name);
        if (rc == 0 && (*x < attrs[i].lo || *x > attrs[i].hi))
            return ss_fail(SS_EDATA, "%s: root attribute %s = %ld, expected %ld to %ld", t->path, attrs[i].name, *x,
                           attrs[i].lo, attrs[i].hi);
        if (rc != 0) *x = -1;
    }
    if (strcmp(m->fetch_times, "") && strcmp(m->fetch_times, "measured") && strcmp(m->fetch_times, "absent"))
        return ss_fail(SS_EDATA, "%s: root attribute fetch_times = '%s', expected 'measured' or 'absent'", t->path,
                       m->fetch_times);
    ss_status st = read_loader_workers(t);
    if (st == SS_OK) st = read_gpu_arrays(t);
    return st == SS_OK ? read_passes(t) : st;
}

static ss_status open_datasets(ss_trace_file *t)
{
    const htri_t there = H5Lexists(t->file, "/timeline", H5P_DEFAULT);
    if (there < 0)
        return ss_fail(SS_EDATA, "%s: group /timeline cannot be read: %s", t->path, DAMAGED);
    if (there == 0) return ss_fail(SS_EDATA, "%s: group /timeline is missing", t->path);
    /* epoch: any integer type (int32 as written, int64 as h5py writes it), read as int32;
     * index: any integer type, read as int64 (HDF5 converts) */
    ss_status st = open_checked(t, "epoch", 1, H5T_INTEGER, 0, &t->d_epoch);
    if (st == SS_OK) st = open_checked(t, "index", 1, H5T_INTEGER, 0, &t->d_index);
    for (int i = 0; st == SS_OK && i < DS_NF64; i++)
        st = open_checked(t, ds_f64_name[i], 2, H5T_FLOAT, 8, &t->d_f64[i]);
    if (t->chunk_rows <= 0) t->chunk_rows = t->meta.iterations;
    return st;
}

/* Opens path read-only without HDF5's file lock (NULL fapl where the library has none). */
static hid_t open_unlocked(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    return f;
}

/* 1 when path is an HDF5 file that another process holds open for writing: HDF5's lock
 * refuses a read-only open that succeeds without the lock. */
static int held_for_writing(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        H5Fclose(f);
        return 0;
    }
    hid_t u = open_unlocked(path);
    if (u < 0) return 0;
    H5Fclose(u);
    return 1;
}

/* The error for a trace that held_for_writing: what then to do. */
static ss_status held_error(const char *path, const char *todo)
{
    return ss_fail(SS_EIO, "%s: another process has the file open for writing (HDF5's file lock): close it there first%s",
                   path, todo);
}

/* 1 when path is a regular file: a pipe or a device would block HDF5's reads, or never end */
static int regular_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int ss_trace_is_trace(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!regular_file(path) || H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = open_unlocked(path); /* (a trace another process has open for writing is one still) */
    if (f < 0) return 0;
    int yes = H5Aexists(f, "schema") > 0;
    H5Fclose(f);
    return yes;
}

int ss_trace_is_synthetic(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!regular_file(path) || H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = open_unlocked(path);
    if (f < 0) return 0;
    char type[64] = "", src[32] = "";
    /* a trace (its schema), with both marks gen writes */
    int yes = H5Aexists(f, "schema") > 0 && ss_h5_attr_read_string(f, "log_type", type, sizeof type) == 0 &&
              ss_h5_attr_read_string(f, "source", src, sizeof src) == 0 && synthetic_marks(type, src);
    H5Fclose(f);
    return yes;
}

int ss_trace_source_of(const char *path, char *out, size_t n)
{
    if (n > 0) out[0] = '\0';
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!regular_file(path) || H5Fis_hdf5(path) <= 0) return -1;
    hid_t f = open_unlocked(path);
    if (f < 0) return -1;
    int rc = H5Aexists(f, "schema") > 0 && ss_h5_attr_read_string(f, "source", out, n) == 0 ? 0 : -1;
    H5Fclose(f);
    return rc;
}

/* Seconds the trace's metadata may take to read (STALLSIM_OPEN_TIMEOUT, 1 to 86400; else
 * 120): a damaged file can make the HDF5 library loop forever. */
static unsigned open_time_limit(void)
{
    const char *e = getenv("STALLSIM_OPEN_TIMEOUT");
    char *end;
    long v = e ? strtol(e, &end, 10) : 0;
    return e && *e && !*end && v >= 1 && v <= 86400 ? (unsigned)v : 120;
}

ss_status ss_trace_open(const char *path, const ss_comm *c, ss_trace_file **out)
{
    *out = NULL;
    ss_trace_file *t = calloc(1, sizeof *t);
    if (!t) {
        ss_status st = ss_fail(SS_ENOMEM, "out of memory opening %s", path);
        if (c->mpi && c->size > 1) ss_comm_any_failed(c, st); /* the others wait there */
        return st;
    }
    t->file = t->d_epoch = t->d_index = H5I_INVALID_HID;
    t->last_row = -1;
    for (int i = 0; i < DS_NF64; i++) t->d_f64[i] = H5I_INVALID_HID;
    snprintf(t->path, sizeof t->path, "%s", path);
    ss_trace_meta_init(&t->meta);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    ss_status st = SS_OK;
    struct stat pre;
    FILE *probe = NULL;
    if (!path[0]) {
        st = ss_fail(SS_EIO, "the trace file's name is empty");
    } else if (stat(path, &pre) == 0 && !S_ISREG(pre.st_mode) && !S_ISDIR(pre.st_mode)) {
        /* a FIFO or a device would block the open below, or never end: only a file or a folder */
        st = ss_fail(SS_EIO, "%s: not a regular file (a pipe or a device?); a trace is a stalltrace .h5 file", path);
    } else if (!(probe = fopen(path, "rb"))) {
        st = ss_fail(SS_EIO, "%s: cannot open trace: %s", path, strerror(errno));
    } else {
        /* the file as opened (an open revalidates what NFS caches of it): ss_trace_check_unchanged */
        t->have_opened = fstat(fileno(probe), &t->opened) == 0;
        fclose(probe);
        if (t->have_opened && S_ISDIR(t->opened.st_mode))
            st = ss_fail(SS_EIO, "%s: a folder, not a trace file (a stalltrace .h5; `stallsim import` makes one from "
                                    "another tool's files)", path);
        else if (H5Fis_hdf5(path) <= 0)
            st = ss_fail(SS_EDATA, "%s: not an HDF5 file (a trace is a stalltrace .h5; `stallsim import` makes one from "
                                   "the recorder's or another tool's files)", path);
    }
    /* every rank reaches the collective open, or none does */
    if (c->mpi && c->size > 1 && st == SS_OK) st = ss_comm_any_failed(c, st);
    else if (c->mpi && c->size > 1) ss_comm_any_failed(c, st);
    if (st != SS_OK) {
        free(t);
        return st;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* each rank reads its own rows: the POSIX driver (faster here than MPI-IO for these
     * independent reads; STALLSIM_TRACE_MPIO=1 opens through MPI-IO instead, and then
     * the open and the close are collective) */
    const int mpio = c->mpi && c->size > 1 && getenv("STALLSIM_TRACE_MPIO");
    if (mpio) H5Pset_fapl_mpio(fapl, c->comm, MPI_INFO_NULL);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 1, 1); /* a file system without locks (some NFS, Lustre mounts) is no error */
#endif
    /* the HDF5 library may crash or loop forever on a damaged file's metadata (a damaged
     * global heap, read with a string attribute): a status 1 and a message instead */
    char crash[SS_PATH_MAX + 200], late[SS_PATH_MAX + 200];
    unsigned limit = open_time_limit();
    snprintf(crash, sizeof crash, "%s: the trace's metadata is damaged: the HDF5 library crashed reading it", path);
    snprintf(late, sizeof late, "%s: reading the trace's metadata took more than %u s: the file is damaged (the HDF5 "
             "library loops on it) or its file system does not answer (STALLSIM_OPEN_TIMEOUT=SECONDS allows more)",
             path, limit);
    const int guard = !getenv("STALLSIM_NO_OPEN_GUARD"); /* (the fuzz harness: libFuzzer sees the crash) */
    if (guard) ss_atomic_guard_begin(crash, late, limit);
    t->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    /* (HDF5's file lock: another process has it open for writing, h5py 'r+' or 'a', say) */
    if (t->file < 0 && held_for_writing(path))
        st = held_error(path, " (or set HDF5_USE_FILE_LOCKING=FALSE if it no longer writes)");
    else if (t->file < 0)
        st = ss_fail(SS_EDATA, "%s: cannot open as HDF5 (truncated or damaged file? or marked as open for writing, by "
                     "a writer that was killed or that writes it in SWMR mode: once no process writes it, `h5clear -s "
                     "FILE` clears the mark)", path);
    if (st == SS_OK) st = read_meta(t);
    if (st == SS_OK) st = open_datasets(t);
    if (guard) ss_atomic_guard_end();
    /* a collective close: every rank closes here, or none does (a rank that alone failed
     * to read the metadata, short of memory, say, would close while the others wait) */
    if (mpio) st = ss_comm_any_failed(c, st);
    if (st != SS_OK) {
        ss_trace_close(t);
        return st;
    }
    *out = t;
    return SS_OK;
}

const ss_trace_meta *ss_trace_meta_of(const ss_trace_file *t) { return &t->meta; }
const char *ss_trace_path(const ss_trace_file *t) { return t->path; }
long ss_trace_chunk_rows(const ss_trace_file *t) { return t->chunk_rows; }

static ss_status read_rows(ss_trace_file *t, hid_t d, const char *name, hid_t memtype, long row0,
                           long n, int cols, void *buf)
{
    if (ss_h5_rows(d, memtype, row0, n, cols, buf, 0) != 0)
        return ss_fail(SS_EIO, "%s: dataset /timeline/%s: cannot read rows %ld..%ld (damaged file?)",
                       t->path, name, row0, row0 + n - 1);
    return SS_OK;
}

/* Rows [row0, row0+n) of the epoch column as int32. A wider column is converted by
 * libhdf5, which saturates what does not fit: those values are rejected. */
static ss_status read_epochs(ss_trace_file *t, long row0, long n, int32_t *out)
{
    ss_status st = read_rows(t, t->d_epoch, "epoch", H5T_NATIVE_INT32, row0, n, 0, out);
    for (long i = 0; st == SS_OK && t->epoch_wide && i < n; i++)
        if (out[i] == INT32_MAX || out[i] == INT32_MIN)
            st = ss_fail(SS_EDATA, "%s: dataset /timeline/epoch: row %ld holds an epoch outside the 32-bit range",
                         t->path, row0 + i);
    return st;
}

ss_status ss_trace_read_epochs(ss_trace_file *t, long row0, long n, int32_t *out)
{
    if (row0 < 0 || n < 0 || row0 + n > t->meta.iterations)
        return ss_fail(SS_EINTERNAL, "%s: bad epoch request rows %ld+%ld", t->path, row0, n);
    return n ? read_epochs(t, row0, n, out) : SS_OK;
}

/* The epochs and indices of rows [row0, row0+n) (the epochs checked as read_epochs
 * does), from a cache that two HDF5 reads fill with up to KEY_CACHE_ROWS rows from row0:
 * a slab of a few rows then costs no reads of its own. Direct reads for longer requests
 * (or when the cache cannot be allocated). */
/* An iteration's index within its epoch is 0 or more (a negative one, or one beyond the
 * signed 64-bit range, which HDF5 reads as INT64_MAX, is no iteration) */
static ss_status check_indices(const ss_trace_file *t, long row0, long n, const int64_t *index)
{
    for (long i = 0; i < n; i++)
        if (index[i] < 0 || index[i] == INT64_MAX)
            return ss_fail(SS_EDATA, "%s: dataset /timeline/index: row %ld holds %s (an iteration's index in its "
                           "epoch: 0 or more)", t->path, row0 + i,
                           index[i] < 0 ? "a negative index" : "a value beyond the signed 64-bit range");
    return SS_OK;
}

static ss_status read_keys(ss_trace_file *t, long row0, long n, int32_t *epoch, int64_t *index)
{
    if (n > KEY_CACHE_ROWS || (!t->key_epoch && !(t->key_epoch = malloc(KEY_CACHE_ROWS * sizeof *t->key_epoch))) ||
        (!t->key_index && !(t->key_index = malloc(KEY_CACHE_ROWS * sizeof *t->key_index)))) {
        ss_status st = read_epochs(t, row0, n, epoch);
        if (st == SS_OK) st = read_rows(t, t->d_index, "index", H5T_NATIVE_INT64, row0, n, 0, index);
        return st == SS_OK ? check_indices(t, row0, n, index) : st;
    }
    if (row0 < t->key_r0 || row0 + n > t->key_r0 + t->key_n) {
        long m = t->meta.iterations - row0 < KEY_CACHE_ROWS ? t->meta.iterations - row0 : KEY_CACHE_ROWS;
        t->key_n = 0;
        ss_status st = read_rows(t, t->d_epoch, "epoch", H5T_NATIVE_INT32, row0, m, 0, t->key_epoch);
        if (st == SS_OK) st = read_rows(t, t->d_index, "index", H5T_NATIVE_INT64, row0, m, 0, t->key_index);
        if (st == SS_OK) st = check_indices(t, row0, m, t->key_index);
        if (st != SS_OK) return st;
        t->key_r0 = row0;
        t->key_n = m;
    }
    memcpy(epoch, t->key_epoch + (row0 - t->key_r0), (size_t)n * sizeof *epoch);
    memcpy(index, t->key_index + (row0 - t->key_r0), (size_t)n * sizeof *index);
    for (long i = 0; t->epoch_wide && i < n; i++)
        if (epoch[i] == INT32_MAX || epoch[i] == INT32_MIN)
            return ss_fail(SS_EDATA, "%s: dataset /timeline/epoch: row %ld holds an epoch outside the 32-bit range",
                           t->path, row0 + i);
    return SS_OK;
}

/* The rows must be sorted by (epoch, index): k against k-1 within the slab, and the
 * first row against the row before the slab (prev_epoch/prev_index, when row0 > 0). */
static ss_status check_order(ss_trace_file *t, long row, int32_t e0, int64_t i0, int32_t e1, int64_t i1)
{
    if (e1 > e0 || (e1 == e0 && i1 > i0)) return SS_OK;
    if (e1 == e0 && i1 == i0)
        return ss_fail(SS_EDATA, "%s: /timeline rows %ld and %ld are the same iteration, (epoch, index) = (%d, %lld): "
                       "each row is one iteration", t->path, row - 1, row, (int)e1, (long long)i1);
    return ss_fail(SS_EDATA,
                   "%s: /timeline rows %ld and %ld are not sorted by (epoch, index): (%d, %lld) then (%d, %lld)",
                   t->path, row - 1, row, (int)e0, (long long)i0, (int)e1, (long long)i1);
}

/* 1 when some v[0..m) is below lo, above SS_TRACE_MAX_SECONDS or NaN (which fails both
 * comparisons). */
static SS_KERNEL int any_bad_body(const double *v, long m, double lo)
{
    int bad = 0;
#pragma omp simd reduction(| : bad)
    for (long x = 0; x < m; x++) bad |= !(v[x] >= lo) | !(v[x] <= SS_TRACE_MAX_SECONDS);
    return bad;
}
SS_MULTIVERSION(int, any_bad, (const double *v, long m, double lo), (v, m, lo))

/* Per row r of v[n][G]: the smallest and largest value into ex[r * SS_SLAB_NEX + lo_at]
 * and [... + hi_at] (a place < 0: not kept), and the count of values greater than b's at
 * the same place (b NULL: none). Returns -1 when some value is NaN, below lo or above
 * SS_TRACE_MAX_SECONDS, else the count. One pass over the rows, while they are in the cache. */
static SS_KERNEL long row_extremes_body(const double *v, const double *b, long n, int G, double lo, double *ex,
                                        int lo_at, int hi_at)
{
    long count = 0;
    int bad = 0;
    for (long r = 0; r < n; r++) {
        const double *x = v + r * G, *y = b ? b + r * G : v + r * G;
        double mn = x[0], mx = x[0];
        int nan = 0;
        long c = 0;
        if (b) {
#pragma omp simd reduction(min : mn) reduction(max : mx) reduction(| : nan) reduction(+ : c)
            for (int g = 0; g < G; g++) {
                mn = x[g] < mn ? x[g] : mn;
                mx = x[g] > mx ? x[g] : mx;
                nan |= x[g] != x[g];
                c += x[g] > y[g];
            }
        } else {
#pragma omp simd reduction(min : mn) reduction(max : mx) reduction(| : nan)
            for (int g = 0; g < G; g++) {
                mn = x[g] < mn ? x[g] : mn;
                mx = x[g] > mx ? x[g] : mx;
                nan |= x[g] != x[g];
            }
        }
        bad |= nan | !(mn >= lo) | !(mx <= SS_TRACE_MAX_SECONDS);
        count += c;
        if (lo_at >= 0) ex[r * SS_SLAB_NEX + lo_at] = mn;
        if (hi_at >= 0) ex[r * SS_SLAB_NEX + hi_at] = mx;
    }
    return bad ? -1 : count;
}
SS_MULTIVERSION(long, row_extremes,
                (const double *v, const double *b, long n, int G, double lo, double *ex, int lo_at, int hi_at),
                (v, b, n, G, lo, ex, lo_at, hi_at))


/* The first bad value of dataset ds, rows from row0, GPUs [g0, g0+ng), row-major [n][ng]
 * (SS_OK when there is none). */
static ss_status report_bad_value(ss_trace_file *t, int ds, long row0, long n, int g0, int ng, const double *v)
{
    const long m = n * ng;
    for (long x = 0; x < m; x++) {
        const int huge = isfinite(v[x]) && fabs(v[x]) > SS_TRACE_MAX_SECONDS;
        if (isfinite(v[x]) && !huge && (!ds_f64_duration[ds] || v[x] >= 0.0)) continue;
        return ss_fail(SS_EDATA, "%s: dataset /timeline/%s: row %ld, GPU %ld holds %.10g (%s)", t->path,
                       ds_f64_name[ds], row0 + x / ng, g0 + x % ng, v[x],
                       huge ? (ds_f64_duration[ds] ? "a duration of more than 1e9 s, 31 years: no time of a run"
                                                    : "more than 1e9 s, 31 years, from the time origin: no time of a run")
                       : isfinite(v[x]) ? "a negative duration" : "not a finite number");
    }
    return SS_OK;
}

/* Values of dataset ds, rows from row0, GPUs [g0, g0+ng), row-major [n][ng]: finite, and
 * not negative for durations. */
static ss_status check_values(ss_trace_file *t, int ds, long row0, long n, int g0, int ng, const double *v)
{
    /* one branch-free pass (NaN fails both comparisons); the first bad value is looked
     * for only when there is one */
    if (!any_bad(v, n * ng, ds_f64_duration[ds] ? 0.0 : -SS_TRACE_MAX_SECONDS)) return SS_OK;
    return report_bad_value(t, ds, row0, n, g0, ng, v);
}

/* Checks column i of the slab right after its read (as check_values; the stalls with the
 * count of stalls longer than the iteration into *long_stalls) and keeps each row's
 * extremes of the replayed columns (not of train_start, which is only checked). */
/* The cells of the slab whose fetch ends more than LATE_FETCH_S after its step began */
static long late_fetches(const ss_slab *s)
{
    const long n = s->n * (long)s->gpus;
    long late = 0;
    for (long x = 0; x < n; x++) late += s->fetch_start[x] + s->fetch_time[x] - s->train_start[x] > LATE_FETCH_S;
    return late;
}

static ss_status check_column(ss_trace_file *t, ss_slab *s, int i, long *long_stalls, long *late)
{
    const double *v = *slab_f64(s, i);
    const double lo = ds_f64_duration[i] ? 0.0 : -SS_TRACE_MAX_SECONDS;
    long r = 0;
    switch (i) {
    case DS_TRAIN_START: { /* (after the fetch columns, which it is compared with) */
        ss_status st = check_values(t, i, s->row0, s->n, 0, s->gpus, v);
        if (st == SS_OK && ss_trace_meta_has_fetch(&t->meta)) *late = late_fetches(s);
        return st;
    }
    case DS_FETCH_START: r = row_extremes(v, NULL, s->n, s->gpus, lo, s->extremes, SS_EX_START_MIN, SS_EX_START_MAX); break;
    case DS_FETCH_TIME: r = row_extremes(v, NULL, s->n, s->gpus, lo, s->extremes, SS_EX_FETCH_MIN, SS_EX_FETCH_MAX); break;
    case DS_ITER_TIME: r = row_extremes(v, NULL, s->n, s->gpus, lo, s->extremes, -1, SS_EX_ITER_MAX); break;
    case DS_STALL_TIME:
        r = row_extremes(v, s->iteration_time, s->n, s->gpus, lo, s->extremes, SS_EX_STALL_MIN, SS_EX_STALL_MAX);
        if (r >= 0) *long_stalls = r;
        break;
    default: return check_values(t, i, s->row0, s->n, 0, s->gpus, v);
    }
    return r < 0 ? report_bad_value(t, i, s->row0, s->n, 0, s->gpus, v) : SS_OK;
}

static int cmp_rec(const void *a, const void *b)
{
    const long_stall_rec *x = a, *y = b;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Sorts recs[0..n) by row and keeps each row once, merged: a row read without train_start
 * (no late fetches counted) and with it has the larger count of each kind; returns the new
 * count. */
static long unique_rows(long_stall_rec *recs, long n)
{
    if (n > 1) qsort(recs, (size_t)n, sizeof *recs, cmp_rec);
    long m = 0;
    for (long i = 0; i < n; i++) {
        if (m == 0 || recs[i].row != recs[m - 1].row) {
            recs[m++] = recs[i];
            continue;
        }
        long_stall_rec *k = &recs[m - 1];
        if (recs[i].count > k->count) {
            k->count = recs[i].count;
            k->first_gpu = recs[i].first_gpu;
            k->stall = recs[i].stall;
            k->iter = recs[i].iter;
        }
        if (recs[i].late > k->late) {
            k->late = recs[i].late;
            k->late_gpu = recs[i].late_gpu;
            k->late_by = recs[i].late_by;
        }
    }
    return m;
}

/* Records the slab's rows that hold stalls longer than their iteration (count > 0 of
 * them in the slab) or, where late is set, fetches that end after their step began:
 * physically impossible, still replayable, warned about once by ss_trace_report_warnings.
 * A row read again (another scenario's pass) is kept once. */
static void record_long_stalls(ss_trace_file *t, const ss_slab *s, long count, int late)
{
    if (count == 0 && !late) return;
    const double *st = s->stall_time, *it = s->iteration_time;
    const double *fs = s->fetch_start, *ft = s->fetch_time, *ts = s->train_start;
    const int G = s->gpus;
    for (long i = 0; i < s->n; i++) {
        long_stall_rec r = {s->row0 + i, 0, -1, 0, 0, 0, -1, 0};
        for (int g = 0; count && g < G; g++)
            if (st[i * G + g] > it[i * G + g] && r.count++ == 0) {
                r.first_gpu = g;
                r.stall = st[i * G + g];
                r.iter = it[i * G + g];
            }
        for (int g = 0; late && g < G; g++) {
            const double over = fs[i * G + g] + ft[i * G + g] - ts[i * G + g];
            if (over > LATE_FETCH_S && r.late++ == 0) {
                r.late_gpu = g;
                r.late_by = over;
            }
        }
        if (r.count == 0 && r.late == 0) continue;
        if (t->nls == t->cap_ls) { /* full: rows read again go first; mostly new rows: it grows */
            t->nls = unique_rows(t->ls, t->nls);
            if (t->nls >= t->cap_ls / 2 && t->cap_ls < LONG_STALL_ROWS_MAX) {
                long cap = t->cap_ls ? 2 * t->cap_ls : 64;
                long_stall_rec *v = realloc(t->ls, (size_t)cap * sizeof *v);
                if (v) {
                    t->ls = v;
                    t->cap_ls = cap;
                }
            }
        }
        if (t->nls == t->cap_ls) {
            t->ls_overflow = 1;
            return;
        }
        t->ls[t->nls++] = r;
    }
}

ss_status ss_trace_epochs(ss_trace_file *t, long want, int *found, char *list, size_t listsize)
{
    *found = 0;
    if (listsize) list[0] = '\0';
    enum { ROWS = 65536 };
    int32_t *e = malloc(ROWS * sizeof *e);
    if (!e) return ss_fail(SS_ENOMEM, "out of memory");
    ss_status st = SS_OK;
    long distinct = 0;
    int32_t last = 0;
    for (long r0 = 0; st == SS_OK && r0 < t->meta.iterations; r0 += ROWS) {
        long n = t->meta.iterations - r0 < ROWS ? t->meta.iterations - r0 : ROWS;
        st = read_epochs(t, r0, n, e);
        for (long i = 0; st == SS_OK && i < n; i++) {
            if (e[i] == want) *found = 1;
            if ((r0 + i > 0 && e[i] == last) || !listsize) continue;
            last = e[i];
            size_t len = strlen(list);
            if (distinct < 12) snprintf(list + len, listsize - len, "%s%d", distinct ? ", " : "", (int)e[i]);
            else if (distinct == 12) snprintf(list + len, listsize - len, ", ...");
            distinct++;
        }
    }
    free(e);
    return st;
}

void ss_trace_report_warnings(ss_trace_file *t, const ss_comm *c)
{
    t->nls = t->nls ? unique_rows(t->ls, t->nls) : 0; /* each rank sends each row once */
    long_stall_rec *all = t->ls;
    long n = t->nls, overflow = t->ls_overflow;
    void *buf = NULL;
    int *counts = NULL, *displs = NULL;
    if (c->mpi && c->size > 1) {
        long mine[1] = {t->ls_overflow};
        long *ov = NULL;
        int *oc = NULL, *od = NULL;
        if (ss_comm_gather_bytes(c, mine, (long)sizeof mine, (void **)&ov, &oc, &od) == SS_OK && c->rank == 0) {
            overflow = 0;
            for (int r = 0; r < c->size; r++) overflow |= ov[r];
        }
        free(ov);
        free(oc);
        free(od);
        if (ss_comm_gather_bytes(c, t->ls, t->nls * (long)sizeof *t->ls, &buf, &counts, &displs) != SS_OK) return;
        if (c->rank != 0) {
            free(buf);
            free(counts);
            free(displs);
            return;
        }
        all = buf;
        n = 0;
        for (int r = 0; r < c->size; r++) n += counts[r] / (long)sizeof *all;
    }
    /* a row that several ranks read (or one rank read again) counts once; past a rank's
     * LONG_STALL_ROWS_MAX rows the total is a lower bound */
    n = unique_rows(all, n);
    long total = 0, first = -1, late = 0, first_late = -1;
    for (long i = 0; i < n; i++) {
        total += all[i].count;
        late += all[i].late;
        if (all[i].count && first < 0) first = i;
        if (all[i].late && first_late < 0) first_late = i;
    }
    if (total > 0 && first >= 0)
        ss_warn("%s: %s%ld GPU-iteration%s a stall longer than the iteration (first: row %ld, GPU %d: stall %.6g s, "
                "iteration %.6g s): clocks or logs may be off; the replay is still defined",
                t->path, overflow ? "at least " : "", total, total == 1 ? " has" : "s have", all[first].row,
                all[first].first_gpu, all[first].stall, all[first].iter);
    if (t->meta.import_note[0])
        ss_warn("%s: %s: the record was not whole when imported, so its last rows, and the workers' last shutdown, may "
                "be missing%s", t->path, t->meta.import_note,
                strstr(t->meta.import_note, "still ran") ? " (import it again once the job has ended)" : "");
    if (late > 0 && first_late >= 0)
        ss_warn("%s: in %s%ld GPU-iteration%s the fetch ends after the training step began (first: row %ld, GPU %d, "
                "by %.6g s): a step cannot train on a batch that is not there yet, so the loader's and the loop's "
                "clocks or logs may disagree; the replay is still defined",
                t->path, overflow ? "at least " : "", late, late == 1 ? "" : "s", all[first_late].row,
                all[first_late].late_gpu, all[first_late].late_by);
    free(buf);
    free(counts);
    free(displs);
}

/* The sum of each row of v[n][G] in GPU order from 0 (as a plain loop adds them): eight
 * rows at a time, so that eight independent sums share the adder's latency. */
static void row_sums(const double *v, long n, int G, double *out)
{
    long r = 0;
    for (; r + 8 <= n; r += 8) {
        const double *a = v + r * G;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
        for (int g = 0; g < G; g++) {
            s0 += a[g];
            s1 += a[G + g];
            s2 += a[2L * G + g];
            s3 += a[3L * G + g];
            s4 += a[4L * G + g];
            s5 += a[5L * G + g];
            s6 += a[6L * G + g];
            s7 += a[7L * G + g];
        }
        out[r] = s0, out[r + 1] = s1, out[r + 2] = s2, out[r + 3] = s3;
        out[r + 4] = s4, out[r + 5] = s5, out[r + 6] = s6, out[r + 7] = s7;
    }
    for (; r < n; r++) {
        double sum = 0;
        for (int g = 0; g < G; g++) sum += v[r * G + g];
        out[r] = sum;
    }
}

/* The rows' order: within the slab and against the row before it. */
static ss_status check_order_of_slab(ss_trace_file *t, ss_slab *s)
{
    for (long k = 1; k < s->n; k++) {
        ss_status st = check_order(t, s->row0 + k, s->epoch[k - 1], s->index[k - 1], s->epoch[k], s->index[k]);
        if (st != SS_OK) return st;
    }
    ss_status st = SS_OK;
    if (s->row0 > 0 && s->n > 0) {
        int32_t e = t->last_epoch;
        int64_t i = t->last_index;
        if (t->last_row != s->row0 - 1) {
            st = read_epochs(t, s->row0 - 1, 1, &e);
            if (st == SS_OK) st = read_rows(t, t->d_index, "index", H5T_NATIVE_INT64, s->row0 - 1, 1, 0, &i);
        }
        if (st == SS_OK) st = check_order(t, s->row0, e, i, s->epoch[0], s->index[0]);
    }
    if (st == SS_OK && s->n > 0) {
        t->last_row = s->row0 + s->n - 1;
        t->last_epoch = s->epoch[s->n - 1];
        t->last_index = s->index[s->n - 1];
    }
    return st;
}

/* Every column is checked right after it is read, while it is still in the cache (the
 * stalls together with the count of stalls longer than the iteration, train_start with
 * the count of fetches that end after their step began); the order after. */
static ss_status read_slab(ss_trace_file *t, long row0, long n, ss_slab *s, int skip_train_start)
{
    if (row0 < 0 || n < 0 || row0 + n > t->meta.iterations || n > s->cap || s->gpus != t->meta.gpus)
        return ss_fail(SS_EINTERNAL, "%s: bad slab request rows %ld+%ld", t->path, row0, n);
    s->row0 = row0;
    s->n = n;
    if (n == 0) return SS_OK;
    long long_stalls = 0, late = 0;
    ss_status st = read_keys(t, row0, n, s->epoch, s->index);
    for (int i = 0; st == SS_OK && i < DS_NF64; i++) {
        if (skip_train_start && i == DS_TRAIN_START) continue;
        double *v = *slab_f64(s, i);
        st = read_rows(t, t->d_f64[i], ds_f64_name[i], H5T_NATIVE_DOUBLE, row0, n, t->meta.gpus, v);
        if (st != SS_OK) break;
        /* (the stalls come after the iteration times, which they are compared with) */
        st = check_column(t, s, i, &long_stalls, &late);
        if (st == SS_OK && i == DS_FETCH_START) row_sums(v, n, s->gpus, s->sum_fetch_start);
        if (st == SS_OK && i == DS_FETCH_TIME) row_sums(v, n, s->gpus, s->sum_fetch_time);
    }
    if (st == SS_OK) st = check_order_of_slab(t, s);
    /* (late fetches are counted only where the trace has fetch times and train_start was read) */
    if (st == SS_OK) record_long_stalls(t, s, long_stalls, late > 0);
    return st;
}

ss_status ss_trace_read(ss_trace_file *t, long row0, long n, ss_slab *s) { return read_slab(t, row0, n, s, 0); }

ss_status ss_trace_read_cols(ss_trace_file *t, long row0, long n, int train_start, ss_slab *s)
{
    return read_slab(t, row0, n, s, !train_start);
}

static ss_status read_block(ss_trace_file *t, int ds, long row0, long n, int g0, int ng, double *buf)
{
    if (ss_h5_read_block(t->d_f64[ds], H5T_NATIVE_DOUBLE, row0, n, g0, ng, buf) != 0)
        return ss_fail(SS_EIO, "%s: dataset /timeline/%s: cannot read rows %ld..%ld (damaged file?)", t->path,
                       ds_f64_name[ds], row0, row0 + n - 1);
    return check_values(t, ds, row0, n, g0, ng, buf);
}

static int column_request_ok(const ss_trace_file *t, long row0, long n, int g0, int ng)
{
    return row0 >= 0 && n >= 1 && row0 + n <= t->meta.iterations && g0 >= 0 && ng >= 1 && g0 + ng <= t->meta.gpus;
}

ss_status ss_trace_read_fetch_columns(ss_trace_file *t, long row0, long n, int g0, int ng, double *fetch_start,
                                      double *fetch_time, int32_t *epoch)
{
    if (!column_request_ok(t, row0, n, g0, ng)) return ss_fail(SS_EINTERNAL, "%s: bad column request", t->path);
    ss_status st = read_block(t, DS_FETCH_START, row0, n, g0, ng, fetch_start);
    if (st == SS_OK) st = read_block(t, DS_FETCH_TIME, row0, n, g0, ng, fetch_time);
    if (st == SS_OK && epoch) st = read_epochs(t, row0, n, epoch);
    return st;
}

ss_status ss_trace_read_loop_columns(ss_trace_file *t, long row0, long n, int g0, int ng, double *train_start,
                                     double *iteration_time, double *stall_time)
{
    if (!column_request_ok(t, row0, n, g0, ng)) return ss_fail(SS_EINTERNAL, "%s: bad column request", t->path);
    ss_status st = train_start ? read_block(t, DS_TRAIN_START, row0, n, g0, ng, train_start) : SS_OK;
    if (st == SS_OK) st = read_block(t, DS_ITER_TIME, row0, n, g0, ng, iteration_time);
    if (st == SS_OK) st = read_block(t, DS_STALL_TIME, row0, n, g0, ng, stall_time);
    return st;
}

ss_status ss_trace_count_epochs(ss_trace_file *t, long epoch, long warmup, long *rows, long *epochs, long *selected)
{
    const long chunk = 1L << 18;
    long N = t->meta.iterations, n_rows = 0, n_ep = 0, n_sel = 0;
    const size_t m = (size_t)(N < chunk ? N : chunk);
    int32_t *e = malloc(m * sizeof *e), last = 0;
    int64_t *x = selected ? malloc(m * sizeof *x) : NULL;
    ss_status st = e && (x || !selected) ? SS_OK : ss_fail(SS_ENOMEM, "out of memory");
    for (long r0 = 0; st == SS_OK && r0 < N; r0 += chunk) {
        long n = N - r0 < chunk ? N - r0 : chunk;
        st = read_epochs(t, r0, n, e);
        if (st == SS_OK && x) st = read_rows(t, t->d_index, "index", H5T_NATIVE_INT64, r0, n, 0, x);
        if (st == SS_OK && x) st = check_indices(t, r0, n, (const int64_t *)x);
        for (long i = 0; st == SS_OK && i < n; i++) {
            if (epoch != SS_EPOCH_ALL && e[i] != epoch) continue;
            if (n_rows == 0 || e[i] != last) n_ep++;
            last = e[i];
            n_rows++;
            n_sel += x && x[i] >= warmup;
        }
    }
    free(e);
    free(x);
    *rows = n_rows;
    *epochs = n_ep;
    if (selected) *selected = n_sel;
    return st;
}

ss_status ss_trace_check_unchanged(const ss_trace_file *t)
{
    struct stat now;
    if (!t->have_opened) return SS_OK;
    int fd = open(t->path, O_RDONLY);
    if (fd < 0 || fstat(fd, &now) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ss_fail(SS_EIO, "%s: the trace is gone since it was opened (%s): the results, read from it as it "
                       "changed, are not written", t->path, strerror(e));
    }
    close(fd);
    const struct stat *o = &t->opened;
    if (now.st_dev != o->st_dev || now.st_ino != o->st_ino || now.st_size != o->st_size ||
        now.st_mtim.tv_sec != o->st_mtim.tv_sec || now.st_mtim.tv_nsec != o->st_mtim.tv_nsec)
        return ss_fail(SS_EDATA, "%s: the trace changed while it was read (%s): the results, read from it as it "
                       "changed, are not written; run again once it is complete",
                       t->path, now.st_ino != o->st_ino || now.st_dev != o->st_dev ? "another file under its name"
                                : now.st_size != o->st_size ? "its size changed" : "it was written to");
    return SS_OK;
}

void ss_trace_close(ss_trace_file *t)
{
    if (!t) return;
    if (t->d_epoch >= 0) H5Dclose(t->d_epoch);
    if (t->d_index >= 0) H5Dclose(t->d_index);
    for (int i = 0; i < DS_NF64; i++)
        if (t->d_f64[i] >= 0) H5Dclose(t->d_f64[i]);
    if (t->file >= 0) H5Fclose(t->file);
    free(t->meta.loader_workers);
    free(t->meta.pass_start);
    free(t->meta.pass_stop);
    for (size_t i = 0; i < sizeof gpu_arrays / sizeof gpu_arrays[0]; i++) free(*gpu_array_field(&t->meta, &gpu_arrays[i]));
    free(t->ls);
    free(t->key_epoch);
    free(t->key_index);
    free(t);
}

/* ---- writer ---- */

long ss_trace_default_chunk_rows(int gpus, long iterations)
{
    long rows = (1L << 17) / (gpus > 0 ? gpus : 1); /* 128 Ki doubles = 1 MiB */
    if (rows < 1) rows = 1;
    if (iterations > 0 && rows > iterations) rows = iterations;
    return rows;
}

static hid_t create_ds(hid_t grp, const char *name, hid_t type, int rank, long n, int g,
                       long chunk, const char *units)
{
    /* n == 0: a streaming writer, the rows grow as they are appended */
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)g}, cdims[2] = {(hsize_t)chunk, (hsize_t)g};
    hsize_t maxdims[2] = {n > 0 ? (hsize_t)n : H5S_UNLIMITED, (hsize_t)g};
    hid_t sp = H5Screate_simple(rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, cdims);
    /* no chunk cache: rows go to the file as they are written, so that a full disk shows
     * in the append that hit it, not as dirty chunks that no close can ever write */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 0, 0, 1.0);
    hid_t d = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, dcpl, dapl);
    H5Pclose(dapl);
    H5Pclose(dcpl);
    H5Sclose(sp);
    if (d >= 0 && ss_h5_attr_write_string(d, "units", units) != 0) {
        H5Dclose(d);
        return H5I_INVALID_HID;
    }
    return d;
}

/* What a reader would refuse is not written (a batch size read off a file name, a worker
 * count off a command line): each such optional attribute is left out, with a warning.
 * m's loader_workers may be set to NULL (the caller keeps its array). */
static void drop_unreadable(ss_trace_meta *m, const char *path)
{
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        long *x = (long *)((char *)m + attrs[i].offset);
        if (attrs[i].is_string || *x < 0 || (*x >= attrs[i].lo && *x <= attrs[i].hi)) continue;
        ss_warn("%s: %s = %ld is left out of the trace (a reader takes %ld to %ld)", path, attrs[i].name, *x,
                attrs[i].lo, attrs[i].hi);
        *x = -1;
    }
    for (int g = 0; m->loader_workers && g < m->gpus; g++)
        if (m->loader_workers[g] < 0 || m->loader_workers[g] > SS_MAX_WORKERS) {
            ss_warn("%s: loader_workers is left out of the trace: GPU %d's %d is not from 0 to %d", path, g,
                    m->loader_workers[g], SS_MAX_WORKERS);
            m->loader_workers = NULL;
        }
}

static int write_meta(hid_t f, const ss_trace_meta *m)
{
    int rc = ss_h5_attr_write_string(f, "schema", SS_TRACE_SCHEMA);
    long version = SS_TRACE_VERSION, gpus = m->gpus;
    rc |= ss_h5_attr_write_num(f, "schema_version", H5T_STD_I64LE, H5T_NATIVE_LONG, &version, 0);
    rc |= ss_h5_attr_write_num(f, "gpus", H5T_STD_I64LE, H5T_NATIVE_LONG, &gpus, 0);
    rc |= ss_h5_attr_write_num(f, "iterations", H5T_STD_I64LE, H5T_NATIVE_LONG, &m->iterations, 0);
    rc |= ss_h5_attr_write_string(f, "time_origin", m->time_origin);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        const char *field = (const char *)m + attrs[i].offset;
        if (attrs[i].is_string && field[0]) rc |= ss_h5_attr_write_string(f, attrs[i].name, field);
        else if (!attrs[i].is_string && *(const long *)field >= 0)
            rc |= ss_h5_attr_write_num(f, attrs[i].name, H5T_STD_I64LE, H5T_NATIVE_LONG, field, 0);
    }
    if (m->loader_workers)
        rc |= ss_h5_attr_write_num(f, "loader_workers", H5T_STD_I32LE, H5T_NATIVE_INT, m->loader_workers,
                                   (hsize_t)m->gpus);
    for (size_t i = 0; i < sizeof gpu_arrays / sizeof gpu_arrays[0]; i++) {
        const ss_trace_gpu_array *a = &gpu_arrays[i];
        const void *v = *(void *const *)((const char *)m + a->offset);
        if (v)
            rc |= ss_h5_write_array(f, a->name, a->is_float ? H5T_IEEE_F64LE : H5T_STD_I32LE,
                                    a->is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT, v, (hsize_t)m->gpus, a->units);
    }
    if (m->pass_start && m->passes > 0)
        rc |= ss_h5_write_matrix(f, "pass_start_time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->pass_start,
                                 (hsize_t)m->passes, (hsize_t)m->gpus, "s");
    if (m->pass_start && m->pass_stop && m->passes > 0)
        rc |= ss_h5_write_matrix(f, "pass_stop_time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->pass_stop,
                                 (hsize_t)m->passes, (hsize_t)m->gpus, "s");
    return rc;
}

ss_status ss_trace_create(const char *path, const ss_trace_meta *m, ss_trace_writer **out)
{
    *out = NULL;
    if (m->gpus < 1 || m->iterations < 0)
        return ss_fail(SS_EDATA, "%s: a trace needs at least one GPU", path);
    if (held_for_writing(path))
        return held_error(path, "; replacing it now would lose what that process writes");
    ss_trace_writer *w = calloc(1, sizeof *w);
    if (!w) return ss_fail(SS_ENOMEM, "out of memory creating %s", path);
    w->meta = *m;
    w->streaming = m->iterations == 0;
    snprintf(w->path, sizeof w->path, "%s", path);
    ss_status st = ss_atomic_tmpname(path, w->tmp, sizeof w->tmp);
    if (st != SS_OK) {
        free(w);
        return st;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* loader_workers holds 4 bytes per GPU; past 64 KiB an attribute needs the file format of
     * HDF5 1.8 (dense attribute storage), which every reader since 2008 opens */
    hid_t fapl = H5P_DEFAULT;
    if ((size_t)m->gpus * 4 > SS_TRACE_COMPACT_ATTR &&
        ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)) {
        if (fapl >= 0) H5Pclose(fapl);
        free(w);
        return ss_fail(SS_EIO, "%s: cannot ask HDF5 for the file format of 1.8, which %d GPUs' attributes need", path,
                       m->gpus);
    }
    w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (fapl != H5P_DEFAULT) H5Pclose(fapl);
    w->d_epoch = w->d_index = H5I_INVALID_HID;
    for (int i = 0; i < DS_NF64; i++) w->d_f64[i] = H5I_INVALID_HID;
    if (w->file < 0) {
        char dir[SS_PATH_MAX];
        ss_folder_of(path, dir, sizeof dir);
        struct stat ds;
        if (stat(dir, &ds) != 0)
            st = errno == ENOENT ? ss_fail(SS_EIO, "%s: cannot create file: the folder %s does not exist", path, dir)
                                 : ss_fail(SS_EIO, "%s: cannot create file: %s: %s", path, dir, strerror(errno));
        else if (!S_ISDIR(ds.st_mode))
            st = ss_fail(SS_EIO, "%s: cannot create file: %s is not a folder", path, dir);
        else
            st = ss_fail(SS_EIO, "%s: cannot create file (is the folder writable?)", path);
        free(w);
        return st;
    }
    long chunk = ss_trace_default_chunk_rows(m->gpus, m->iterations);
    /* a streaming writer does not know how many rows will come: 128 KiB chunks, so that a
     * short trace does not take whole 1 MiB chunks */
    if (w->streaming && chunk > 1 && chunk / 8 >= 1) chunk /= 8;
    hid_t g = H5Gcreate2(w->file, "timeline", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int ok = g >= 0;
    if (ok) {
        w->d_epoch = create_ds(g, "epoch", H5T_STD_I32LE, 1, m->iterations, 0, chunk, "1");
        w->d_index = create_ds(g, "index", H5T_STD_I64LE, 1, m->iterations, 0, chunk, "1");
        ok = w->d_epoch >= 0 && w->d_index >= 0;
        for (int i = 0; ok && i < DS_NF64; i++) {
            w->d_f64[i] = create_ds(g, ds_f64_name[i], H5T_IEEE_F64LE, 2, m->iterations, m->gpus,
                                    chunk, "s");
            ok = w->d_f64[i] >= 0;
        }
    }
    if (g >= 0) H5Gclose(g);
    if (!ok) {
        ss_trace_abort(w);
        return ss_fail(SS_EIO, "%s: cannot create the timeline datasets", path);
    }
    *out = w;
    return SS_OK;
}

ss_status ss_trace_append(ss_trace_writer *w, const ss_slab *s)
{
    if (s->n == 0) return SS_OK;
    if ((!w->streaming && w->rows_written + s->n > w->meta.iterations) || s->gpus != w->meta.gpus)
        return ss_fail(SS_EINTERNAL, "%s: more rows appended than declared", w->path);
    long r0 = w->rows_written;
    int rc = 0;
    if (w->streaming) {
        hsize_t d1[1] = {(hsize_t)(r0 + s->n)}, d2[2] = {(hsize_t)(r0 + s->n), (hsize_t)s->gpus};
        rc |= H5Dset_extent(w->d_epoch, d1) < 0;
        rc |= H5Dset_extent(w->d_index, d1) < 0;
        for (int i = 0; i < DS_NF64; i++) rc |= H5Dset_extent(w->d_f64[i], d2) < 0;
    }
    rc |= ss_h5_rows(w->d_epoch, H5T_NATIVE_INT32, r0, s->n, 0, s->epoch, 1);
    rc |= ss_h5_rows(w->d_index, H5T_NATIVE_INT64, r0, s->n, 0, s->index, 1);
    double *src[DS_NF64] = {s->fetch_start, s->fetch_time, s->train_start, s->iteration_time, s->stall_time};
    for (int i = 0; i < DS_NF64; i++) rc |= ss_h5_rows(w->d_f64[i], H5T_NATIVE_DOUBLE, r0, s->n, s->gpus, src[i], 1);
    if (rc) return ss_fail(SS_EIO, "%s: cannot write rows %ld..%ld (disk full?)", w->path, r0, r0 + s->n - 1);
    w->rows_written += s->n;
    return SS_OK;
}

/* discard: the file is thrown away, so its space is released first (a full disk must
 * not keep the close from writing the metadata) */
static int writer_close(ss_trace_writer *w, int discard)
{
    if (discard && w->file >= 0) ss_h5_release(w->tmp);
    int rc = 0;
    if (w->d_epoch >= 0) rc |= H5Dclose(w->d_epoch) < 0;
    if (w->d_index >= 0) rc |= H5Dclose(w->d_index) < 0;
    for (int i = 0; i < DS_NF64; i++)
        if (w->d_f64[i] >= 0) rc |= H5Dclose(w->d_f64[i]) < 0;
    if (ss_h5_close_file(w->file) != 0) {
        ss_atomic_note_unclosable();
        rc = 1;
    }
    w->file = w->d_epoch = w->d_index = H5I_INVALID_HID;
    for (int i = 0; i < DS_NF64; i++) w->d_f64[i] = H5I_INVALID_HID;
    return rc;
}

ss_status ss_trace_finish_with(ss_trace_writer *w, const ss_trace_meta *m)
{
    ss_status st = SS_OK;
    /* fewer rows than declared where the caller says so (m->iterations): an import whose
     * ranks were cut off unevenly keeps the rows every rank has; the datasets shrink */
    if (!w->streaming && w->rows_written < w->meta.iterations && m->iterations == w->rows_written &&
        w->rows_written > 0) {
        hsize_t d1[1] = {(hsize_t)w->rows_written}, d2[2] = {(hsize_t)w->rows_written, (hsize_t)w->meta.gpus};
        int rc = H5Dset_extent(w->d_epoch, d1) < 0;
        rc |= H5Dset_extent(w->d_index, d1) < 0;
        for (int i = 0; i < DS_NF64; i++) rc |= H5Dset_extent(w->d_f64[i], d2) < 0;
        if (rc) st = ss_fail(SS_EIO, "%s: cannot shorten the timeline to %ld rows", w->path, w->rows_written);
        else w->meta.iterations = w->rows_written;
    }
    if (st == SS_OK && !w->streaming && w->rows_written != w->meta.iterations)
        st = ss_fail(SS_EINTERNAL, "%s: %ld rows written of %ld declared", w->path, w->rows_written,
                     w->meta.iterations);
    else if (st == SS_OK && m->gpus != w->meta.gpus)
        st = ss_fail(SS_EINTERNAL, "%s: the GPU count changed while writing", w->path);
    if (st == SS_OK) {
        ss_trace_meta fin = *m;
        fin.iterations = w->rows_written;
        drop_unreadable(&fin, w->path);
        if (w->rows_written < 1) st = ss_fail(SS_EDATA, "%s: a trace needs at least one iteration", w->path);
        else if (write_meta(w->file, &fin) != 0) st = ss_fail(SS_EIO, "%s: cannot write the attributes", w->path);
    }
    if (writer_close(w, st != SS_OK) != 0 && st == SS_OK) st = ss_fail(SS_EIO, "%s: cannot finish writing (disk full?)", w->path);
    if (st == SS_OK) st = ss_atomic_commit(w->tmp, w->path);
    else ss_atomic_discard(w->tmp);
    free(w);
    return st;
}

ss_status ss_trace_finish(ss_trace_writer *w) { return ss_trace_finish_with(w, &w->meta); }

void ss_trace_abort(ss_trace_writer *w)
{
    if (!w) return;
    writer_close(w, 1);
    ss_atomic_discard(w->tmp);
    free(w);
}
