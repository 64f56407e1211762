/* ss_import_pytorch.c - the PyTorch recorder importer: merges the per-rank record files of
 * scripts/stallsim_record.py (PREFIX.rank<R>.csv and PREFIX.rank<R>.worker<W>.csv) into one
 * stalltrace, one GPU column per rank, reading all ranks in lockstep (memory per rank and
 * worker, not per iteration). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "ss_import.h"
#include "ss_impfiles.h"
#include "ss_limits.h"
#include "ss_timefmt.h"

#define PT_LINE 4096
#define PT_PATH 4200
#define PT_FIELDS 8

/* One record file read line by line, split at commas. */
typedef struct {
    FILE *f;
    char *path;
    long line;
    char buf[PT_LINE];
    char *field[PT_FIELDS];
    int nfield;
    int pushed; /* the current line is to be returned again */
    int version; /* the record format: 1, 2 (fetch records carry the fetch's CPU time), 3
                  * (and the waits for a core) or 4 (a pass the loop left ends with 'left') */
    int left; /* the current record is a 'left' (read as PT_END) */
} pt_file;

typedef enum { PT_EOF, PT_META, PT_EPOCH, PT_BATCH, PT_END, PT_FETCH } pt_kind;

/* A fetch record at the head of one fetch source (a worker file, or the rank file when
 * the loader had no workers). */
typedef struct {
    pt_file file;
    int valid; /* head holds a record */
    int eof;
    long p, k;
    int worker;
    int64_t start, ready;
    int64_t cpu; /* CPU time of the fetching thread, ns; -1 not recorded (format 1) */
    int64_t wait; /* its wait for a core, ns; -1 not recorded (formats 1, 2, or no schedstat) */
    long line;
    int seen;  /* a record was read: p, k and line are the last one's */
} pt_fetch;

typedef struct {
    long p, k;
    int64_t ask, got;
    int64_t cpu; /* the training process's CPU time at ask, ns; -1 not recorded (format 1) */
    int64_t wait; /* the loop thread's total wait for a core at ask, ns; -1 not recorded */
    long line;
} pt_batch;

/* the kinds of time per batch or iteration whose per-rank medians the trace keeps */
enum { PT_CPU_FETCH, PT_CPU_LOOP, PT_WAIT_FETCH, PT_WAIT_LOOP, PT_KINDS };

/* CPU times per batch or iteration: a histogram for their median (PT_CPU_BINS bins of 1 %
 * from PT_CPU_LO seconds; bin 0 holds everything shorter), and how many had none. */
typedef struct {
    int32_t *bins;
    long n, missing;
} pt_hist;

/* Passes of one rank's record that the import leaves out (--skip-pass R:P, repeatable). */
#define PT_SKIP_MAX 64
typedef struct {
    int n;
    long rank[PT_SKIP_MAX], pass[PT_SKIP_MAX];
    int used[PT_SKIP_MAX]; /* the pass was found and left out */
} pt_state_skips;

/* The index of rank's pass among those listed to be left out, or -1 */
static int pt_skip_index(const pt_state_skips *k, long rank, long pass)
{
    for (int i = 0; k && i < k->n; i++)
        if (k->rank[i] == rank && k->pass[i] == pass) return i;
    return -1;
}

/* 1 when rank's pass is listed to be left out */
static int pt_skip_listed(const pt_state_skips *k, long rank, long pass) { return pt_skip_index(k, rank, pass) >= 0; }

/* 1 when rank's pass is to be left out; marks it found */
static int pt_skipped(pt_state_skips *k, long rank, long pass)
{
    const int i = pt_skip_index(k, rank, pass);
    if (i >= 0) k->used[i] = 1;
    return i >= 0;
}

typedef struct {
    int rank;
    pt_file main;
    pt_fetch *src;
    int nsrc;
    long workers, prefetch, batch_size, world;
    long per_epoch; /* meta batches_per_epoch (len(loader)), -1 unknown */
    long persistent; /* meta persistent_workers (0 or 1), -1 unknown */
    int iterable;    /* meta dataset: 1 iterable (its fetches' batch numbers may skip), 0 map-style */
    /* in the pass being read (trk_pass; -1 before the first): each worker's last batch that
     * the loop took (last_k, -1 none), and the batches the loop took (trk_n) */
    long *last_k;
    long trk_pass, trk_n;
    int64_t pass_t0; /* the pass being read: its 'epoch' record's time */
    int64_t offset;
    int no_offset; /* meta clock_offset_source none: the offset was not measured */
    char host[256], torch[64];
    int64_t first_epoch_ns;
    /* the fetches' CPU times and the loop's per iteration (PT_CPU_FETCH, PT_CPU_LOOP), and
     * their waits for a core (PT_WAIT_*): histograms for their medians, and the rows
     * without one */
    pt_hist cpu[PT_KINDS];
    /* the waits for a core of each pass's first W·P fetches (those the loader sends out at
     * once when a pass starts): their sum (s) and count, and how many had none */
    double start_wait;
    long start_n, start_missing;
    long cpus;             /* meta cpus: cores the rank may run on (-1: not recorded) */
    char cpu_set[256];     /* meta cpu_set: their list */
    /* the loop state */
    long pass, epoch, npass;
    long last_p; /* the pass of the last row pt_next read of this rank */
    int have_cur;
    int cut; /* its file ended within a batch (no next ask: the run crashed or was killed) */
    pt_batch cur;
    int *warned_open; /* the import's: such a pass was warned about (once for all ranks) */
    pt_state_skips *skips; /* the passes --skip-pass leaves out (every rank's) */
    int skipping;     /* the pass being read is left out: its records are passed over */
    int any_skipped;  /* a pass of this rank was left out */
    long raw_label;   /* the label the file gave the pass before (-1 before the first) */
    int nraw;         /* passes read, left out or not */
} pt_rank;

typedef struct {
    char prefix[PT_PATH];
    long nfiles; /* files opened so far (for the descriptor limit) */
    pt_rank **r; /* [G] */
    int G;
    char **inputs;
    int ninputs;
    int *loader_workers;
    double *fetch_cpu; /* [G] each rank's median fetch CPU time (the trace's /fetch_cpu_time) */
    double *loop_cpu;  /* [G] each rank's median CPU per iteration of its training process */
    double *fetch_wait, *loop_wait; /* [G] their medians of the waits for a core (format 3) */
    double *fetch_wait_start; /* [G] the mean wait for a core of the passes' first W·P fetches */
    int *cpu_pool, *cpu_pool_cores; /* [G] the first rank on the same host and cores, their cores */
    int64_t origin_ns;
    long rows, epochs, last_epoch;
    long epoch_rows; /* rows of the epoch being read */
    long left_rows;  /* batches at which the loop left a pass (no step time): not in the trace */
    int done;
    int warned_open; /* a pass without an 'end' record was warned about */
    /* workers of an IterableDataset that ran out early: how many (per worker and pass), and
     * the first: rank, worker, pass, its last batch, the pass's batches */
    long early_n;
    long early[5];
    /* from each pass's start to its first fetch's start (the workers starting), over the
     * ranks with workers and their passes: the sum (ns) and count; the longest, its rank */
    double startup_sum;
    long startup_n, startup_rank;
    int64_t startup_max;
    pt_state_skips skips; /* --skip-pass R:P */
} pt_state;

/* ns: a fetch's ready time may lie this much after the loop got its batch (the worker and
 * its training process read one host's clock: the batch is ready before it is sent) */
#define PT_READY_SLACK_NS 1000000
#define PT_CPU_LO 1e-7   /* seconds: the histogram's first bin holds shorter CPU times */
#define PT_CPU_BINS 2560 /* of 1 % each from PT_CPU_LO: up to 1e4 s */

/* Counts one CPU time (ns; < 0: none recorded) into h. */
static void pt_cpu_add(pt_hist *h, int64_t ns)
{
    if (ns < 0) {
        h->missing++;
        return;
    }
    double sec = (double)ns * 1e-9;
    long b = sec < PT_CPU_LO ? 0 : 1 + (long)floor(log(sec / PT_CPU_LO) / log(1.01));
    if (b >= PT_CPU_BINS) b = PT_CPU_BINS - 1;
    h->bins[b]++;
    h->n++;
}

/* The median of h's CPU times, to 0.5 %: the geometric middle of the bin that holds it (0
 * when it is below PT_CPU_LO). */
static double pt_cpu_median(const pt_hist *h)
{
    long half = (h->n + 1) / 2, seen = 0;
    for (long b = 0; b < PT_CPU_BINS; b++) {
        seen += h->bins[b];
        if (seen >= half) return b == 0 ? 0.0 : PT_CPU_LO * pow(1.01, (double)b - 0.5);
    }
    return 0.0;
}

static ss_status pt_open_file(pt_file *f, const char *path)
{
    f->path = strdup(path);
    if (!f->path) return ss_fail(SS_ENOMEM, "out of memory");
    f->f = fopen(path, "rb");
    if (!f->f && errno == EMFILE)
        return ss_fail(SS_EIO, "%s: cannot open: %s (the import reads every rank's and worker's file at once: raise "
                       "the limit, e.g. ulimit -n 65536)", path, strerror(errno));
    if (!f->f) return ss_fail(SS_EIO, "%s: cannot open: %s", path, strerror(errno));
    return SS_OK;
}

static void pt_close_file(pt_file *f)
{
    if (f->f) fclose(f->f);
    free(f->path);
}

/* Reads the next non-empty line into fields; *kind receives its record type. */
static ss_status pt_read(pt_file *f, pt_kind *kind)
{
    if (f->pushed) {
        f->pushed = 0;
    } else {
        for (;;) {
            if (!fgets(f->buf, sizeof f->buf, f->f)) {
                if (ferror(f->f)) return ss_fail(SS_EIO, "%s:%ld: read error", f->path, f->line + 1);
                *kind = PT_EOF;
                return SS_OK;
            }
            f->line++;
            size_t n = strlen(f->buf);
            if (n == sizeof f->buf - 1 && f->buf[n - 1] != '\n')
                return ss_fail(SS_EDATA, "%s:%ld: line longer than %d characters", f->path, f->line, PT_LINE - 2);
            if (n && f->buf[n - 1] != '\n' && !feof(f->f))
                return ss_fail(SS_EDATA, "%s:%ld: line holds a NUL byte", f->path, f->line);
            if (n && f->buf[n - 1] != '\n') {
                /* a last line without its newline: the writer was cut off mid-line */
                *kind = PT_EOF;
                return SS_OK;
            }
            while (n && (f->buf[n - 1] == '\n' || f->buf[n - 1] == '\r')) f->buf[--n] = '\0';
            if (n) break;
        }
        f->nfield = 0;
        char *s = f->buf;
        for (;;) {
            if (f->nfield == PT_FIELDS) { /* more than any record has: count the rest for the message */
                f->nfield++;
                for (const char *c = s; (c = strchr(c, ',')) != NULL; c++) f->nfield++;
                break;
            }
            f->field[f->nfield++] = s;
            char *c = strchr(s, ',');
            if (!c) break;
            /* a meta value keeps its commas */
            if (f->nfield == 3 && !strcmp(f->field[0], "meta")) break;
            *c = '\0';
            s = c + 1;
        }
    }
    const char *t = f->field[0];
    static const struct {
        const char *name;
        pt_kind kind;
        int nfield;
    } kinds[] = {{"meta", PT_META, 3},  {"epoch", PT_EPOCH, 4}, {"batch", PT_BATCH, 5},
                 {"end", PT_END, 4},    {"fetch", PT_FETCH, 6},  {"left", PT_END, 4}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(t, kinds[i].name) && (kinds[i].kind != PT_END || t[0] == 'e' || f->version >= 4)) {
            /* format 2 adds a CPU time to fetch, batch and end records, format 3 a wait; format 4
             * ends a left pass with 'left' (read as an end, f->left set) */
            int timed = kinds[i].kind == PT_FETCH || kinds[i].kind == PT_BATCH || kinds[i].kind == PT_END;
            int want = kinds[i].nfield + (timed ? (f->version >= 3 ? 2 : f->version >= 2) : 0);
            if (f->nfield != want)
                return ss_fail(SS_EDATA, "%s:%ld: a '%s' record has %d fields, expected %d", f->path, f->line, t,
                               f->nfield, want);
            *kind = kinds[i].kind;
            f->left = t[0] == 'l'; /* a pass the loop left ('left', format 4) */
            return SS_OK;
        }
    if (!strcmp(t, "stallsim-record"))
        return ss_fail(SS_EDATA, "%s:%ld: a second 'stallsim-record' header (two runs in one file?)", f->path,
                       f->line);
    return ss_fail(SS_EDATA, "%s:%ld: unknown record type '%.40s'", f->path, f->line, t);
}

/* Field i of the current line as a 64-bit integer. */
static ss_status pt_int(const pt_file *f, int i, const char *what, int64_t *out)
{
    const char *s = f->field[i];
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno)
        return ss_fail(SS_EDATA, "%s:%ld: %s is '%.40s', not an integer", f->path, f->line, what, s);
    *out = (int64_t)v;
    return SS_OK;
}

/* Times are nanoseconds since 1970 up to PT_TIME_MAX (the year 2096) and clock offsets at
 * most PT_OFFSET_MAX (31 years) either way, so that no sum or difference overflows. */
#define PT_TIME_MAX 4000000000000000000LL
#define PT_OFFSET_MAX 1000000000000000000LL

static ss_status pt_range(const pt_file *f, int i, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    ss_status st = pt_int(f, i, what, out);
    if (st == SS_OK && (*out < lo || *out > hi))
        return ss_fail(SS_EDATA, "%s:%ld: %s is %lld, expected %lld to %lld", f->path, f->line, what, (long long)*out,
                       (long long)lo, (long long)hi);
    return st;
}

static ss_status pt_time(const pt_file *f, int i, const char *what, int64_t *out)
{
    return pt_range(f, i, what, 0, PT_TIME_MAX, out);
}

static ss_status pt_long(const pt_file *f, int i, const char *what, long lo, long hi, long *out)
{
    int64_t v = 0;
    ss_status st = pt_range(f, i, what, lo, hi, &v);
    if (st == SS_OK) *out = (long)v;
    return st;
}

/* Checks the first line of a record file. */
static ss_status pt_header(pt_file *f)
{
    if (!fgets(f->buf, sizeof f->buf, f->f)) {
        if (ferror(f->f)) return ss_fail(SS_EIO, "%s:1: read error", f->path);
        return ss_fail(SS_EDATA, "%s:1: empty file (expected the line 'stallsim-record,4')", f->path);
    }
    f->line = 1;
    size_t n = strlen(f->buf);
    while (n && (f->buf[n - 1] == '\n' || f->buf[n - 1] == '\r')) f->buf[--n] = '\0';
    if (strncmp(f->buf, "stallsim-record,", 16))
        return ss_fail(SS_EDATA, "%s:1: not a stallsim PyTorch record (expected 'stallsim-record,4')", f->path);
    if (strcmp(f->buf + 16, "1") && strcmp(f->buf + 16, "2") && strcmp(f->buf + 16, "3") && strcmp(f->buf + 16, "4"))
        return ss_fail(SS_EDATA, "%s:1: record format version '%.20s'; this stallsim reads versions 1 to 4", f->path,
                       f->buf + 16);
    f->version = f->buf[16] - '0';
    return SS_OK;
}

/* Reads a rank file's meta lines and its first epoch line (pushed back). */
static ss_status pt_rank_header(pt_rank *R)
{
    pt_file *f = &R->main;
    ss_status st = pt_header(f);
    if (st != SS_OK) return st;
    long rank = -1;
    int have_offset = 0;
    R->workers = R->prefetch = R->batch_size = R->world = R->cpus = R->per_epoch = R->persistent = -1;
    for (;;) {
        pt_kind k;
        if ((st = pt_read(f, &k)) != SS_OK) return st;
        if (k == PT_EOF)
            return ss_fail(SS_EDATA, "%s:%ld: no 'epoch' record: the loop never iterated the recorded loader on this "
                           "rank (a loader that one rank iterates alone, as validation on rank 0, is recorded with "
                           "Recorder(PREFIX, world_size=1) on that rank)", f->path, f->line);
        if (k != PT_META) {
            if (k != PT_EPOCH)
                return ss_fail(SS_EDATA, "%s:%ld: a '%s' record before the first 'epoch' record", f->path, f->line,
                               f->field[0]);
            f->pushed = 1;
            break;
        }
        const char *key = f->field[1];
        if (!strcmp(key, "rank")) st = pt_long(f, 2, "meta rank", 0, SS_MAX_GPUS - 1, &rank);
        else if (!strcmp(key, "world_size")) st = pt_long(f, 2, "meta world_size", 1, SS_MAX_GPUS, &R->world);
        else if (!strcmp(key, "num_workers")) st = pt_long(f, 2, "meta num_workers", 0, SS_MAX_WORKERS, &R->workers);
        else if (!strcmp(key, "prefetch_factor"))
            st = pt_long(f, 2, "meta prefetch_factor", -1, SS_MAX_PREFETCH, &R->prefetch);
        else if (!strcmp(key, "batch_size")) st = pt_long(f, 2, "meta batch_size", -1, LONG_MAX, &R->batch_size);
        else if (!strcmp(key, "clock_offset_ns")) {
            st = pt_range(f, 2, "meta clock_offset_ns", -PT_OFFSET_MAX, PT_OFFSET_MAX, &R->offset);
            have_offset = 1;
        } else if (!strcmp(key, "clock_offset_source")) R->no_offset = !strcmp(f->field[2], "none");
        else if (!strcmp(key, "host")) snprintf(R->host, sizeof R->host, "%s", f->field[2]);
        else if (!strcmp(key, "torch")) snprintf(R->torch, sizeof R->torch, "%s", f->field[2]);
        else if (!strcmp(key, "cpus")) st = pt_long(f, 2, "meta cpus", 1, 1L << 20, &R->cpus);
        else if (!strcmp(key, "batches_per_epoch"))
            st = pt_long(f, 2, "meta batches_per_epoch", -1, LONG_MAX, &R->per_epoch); /* -1: no len(loader) */
        else if (!strcmp(key, "cpu_set")) snprintf(R->cpu_set, sizeof R->cpu_set, "%s", f->field[2]);
        else if (!strcmp(key, "persistent_workers")) st = pt_long(f, 2, "meta persistent_workers", 0, 1, &R->persistent);
        else if (!strcmp(key, "dataset")) {
            R->iterable = !strcmp(f->field[2], "iterable");
            if (!R->iterable && strcmp(f->field[2], "map"))
                st = ss_fail(SS_EDATA, "%s:%ld: meta dataset is '%s', expected 'map' or 'iterable'", f->path, f->line,
                             f->field[2]);
        }
        if (st != SS_OK) return st;
    }
    if (rank < 0) return ss_fail(SS_EDATA, "%s: no 'meta,rank' line", f->path);
    if (rank != R->rank)
        return ss_fail(SS_EDATA, "%s: meta rank is %ld, but the file name says rank %d", f->path, rank, R->rank);
    if (R->world < 0) return ss_fail(SS_EDATA, "%s: no 'meta,world_size' line", f->path);
    if (!have_offset) return ss_fail(SS_EDATA, "%s: no 'meta,clock_offset_ns' line", f->path);
    if (R->workers < 0)
        return ss_fail(SS_EDATA, "%s: no 'meta,num_workers' line (was the loader wrapped with Recorder.wrap?)",
                       f->path);
    /* the first epoch record: its time is the rank's earliest */
    pt_kind k;
    if ((st = pt_read(f, &k)) != SS_OK) return st;
    if ((st = pt_time(f, 3, "the epoch's start time", &R->first_epoch_ns)) != SS_OK) return st;
    f->pushed = 1;
    R->pass = -1;
    return SS_OK;
}

static int key_less(long p1, long k1, long p2, long k2) { return p1 < p2 || (p1 == p2 && k1 < k2); }

/* Moves fetch source s's head to its next fetch record (or EOF). */
static ss_status pt_fetch_advance(pt_fetch *s)
{
    pt_file *f = &s->file;
    s->valid = 0;
    for (;;) {
        pt_kind k;
        ss_status st = pt_read(f, &k);
        if (st != SS_OK) return st;
        if (k == PT_EOF) {
            s->eof = 1;
            return SS_OK;
        }
        if (k != PT_FETCH) continue; /* meta lines; the rank file's loop records */
        long w = 0, p0 = s->p, k0 = s->k;
        if ((st = pt_long(f, 1, "the fetch's pass", 0, LONG_MAX, &s->p)) != SS_OK) return st;
        if ((st = pt_long(f, 2, "the fetch's batch", 0, LONG_MAX, &s->k)) != SS_OK) return st;
        /* a fetch of an earlier pass after a later pass's: a kept iterator's workers went on
         * prefetching after the loop left that pass, so the loop never took the batch */
        if (s->seen && s->p < p0) {
            s->p = p0;
            s->k = k0;
            continue;
        }
        /* a file's fetches come in batch order (the importer reads each file once, in step) */
        if (s->seen && !key_less(p0, k0, s->p, s->k))
            return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld comes after batch %ld of pass %ld (line %ld): a "
                           "file's fetch records must be in the order they were written",
                           f->path, f->line, s->k, s->p, k0, p0, s->line);
        s->seen = 1;
        if ((st = pt_long(f, 3, "the fetch's worker", -1, SS_MAX_WORKERS - 1, &w)) != SS_OK) return st;
        if ((st = pt_time(f, 4, "the fetch's start time", &s->start)) != SS_OK) return st;
        if ((st = pt_time(f, 5, "the fetch's ready time", &s->ready)) != SS_OK) return st;
        if (s->ready < s->start)
            return ss_fail(SS_EDATA, "%s:%ld: the batch was ready before its fetch started", f->path, f->line);
        s->cpu = s->wait = -1;
        if (f->version >= 2 && (st = pt_range(f, 6, "the fetch's CPU time", 0, PT_TIME_MAX, &s->cpu)) != SS_OK)
            return st;
        if (f->version >= 3 && (st = pt_range(f, 7, "the fetch's wait for a core", -1, PT_TIME_MAX, &s->wait)) != SS_OK)
            return st;
        s->worker = (int)w;
        s->line = f->line;
        s->valid = 1;
        return SS_OK;
    }
}

/* An IterableDataset's batch k of pass p: the loader hands batch numbers out to its workers
 * in turn and returns the batches in that order, but a worker whose iterator is exhausted
 * returns nothing for the numbers it still gets, so the loop's k-th batch is the pass's
 * fetch with the k-th smallest number: the smallest left (each source is in batch order,
 * the batches before were consumed, and the pass's fetches the loop never took, after it
 * left the pass, are passed over with the pass). */
static ss_status pt_find_fetch_iterable(pt_rank *R, long p, long k, long line, pt_fetch **out)
{
    pt_fetch *best = NULL;
    for (int i = 0; i < R->nsrc; i++) {
        pt_fetch *s = &R->src[i];
        while (!s->eof && (!s->valid || s->p < p)) {
            ss_status st = pt_fetch_advance(s);
            if (st != SS_OK) return st;
        }
        if (s->valid && s->p == p && (!best || s->k < best->k)) best = s;
    }
    if (best) {
        *out = best;
        return SS_OK;
    }
    return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record left in rank %d's %s (an "
                   "IterableDataset's: the pass's fetches are taken in order)", R->main.path, line, k, p,
                   R->rank, R->workers == 0 ? "file" : "worker files");
}

/* The fetch record of batch (p, k) of rank R: the head of one source, after skipping
 * batches that were fetched but never taken by the loop (each source is in batch order). */
static ss_status pt_find_fetch(pt_rank *R, long p, long k, long line, pt_fetch **out)
{
    if (R->iterable) return pt_find_fetch_iterable(R, p, k, line, out);
    for (int i = 0; i < R->nsrc; i++) {
        pt_fetch *s = &R->src[i];
        while (!s->eof && (!s->valid || key_less(s->p, s->k, p, k))) {
            ss_status st = pt_fetch_advance(s);
            if (st != SS_OK) return st;
        }
        if (s->valid && s->p == p && s->k == k) {
            *out = s;
            return SS_OK;
        }
    }
    if (R->workers == 0)
        return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record in this file", R->main.path,
                       line, k, p);
    for (int i = 0; i < R->nsrc; i++) /* a later batch ahead of it: the records may be out of order */
        if (R->src[i].valid)
            return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record in any of rank %d's %d worker "
                           "files before their next ones (%s:%ld is batch %ld of pass %ld): a file's records out of order?",
                           R->main.path, line, k, p, R->rank, R->nsrc, R->src[i].file.path, R->src[i].line,
                           R->src[i].k, R->src[i].p);
    return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record in any of rank %d's %d worker files "
                   "(%s and the others)", R->main.path, line, k, p, R->rank, R->nsrc, R->src[0].file.path);
}

/* Fields i and i + 1 of a batch or end record: the training process's CPU time in ns
 * (format 2) and its loop thread's wait for a core (format 3; -1 where the recorder could
 * not read it), or -1. */
static ss_status pt_loop_cpu(const pt_file *f, int i, int64_t *out, int64_t *wait)
{
    *out = *wait = -1;
    ss_status st = f->version >= 2 ? pt_range(f, i, "the process's CPU time", 0, PT_TIME_MAX, out) : SS_OK;
    if (st == SS_OK && f->version >= 3) st = pt_range(f, i + 1, "the loop's wait for a core", -1, PT_TIME_MAX, wait);
    return st;
}

typedef struct {
    long epoch, p, k;
    int64_t ask, got, next_ask;
    int64_t ask_cpu, next_cpu; /* the training process's CPU time at the two asks, ns (-1: none) */
    int64_t ask_wait, next_wait; /* the loop thread's wait for a core at the two asks, ns (-1: none) */
    long line;
    /* the last batch of a pass the loop left before its end (a break, an exception, a
     * script that ended mid-epoch): its 'end' came when the loop left, not when the step
     * of this batch ended, so the batch has no step time (left out of the trace) */
    int left;
} pt_row;

/* 1 when a pass's last batch (n batches) has no step end in the record: the loop left the
 * pass ('left', format 4) before its end (a map-style pass of len(loader) batches taken
 * whole, as a step-based loop does, ends its last step where it leaves). Formats 1-3 do
 * not tell a left pass from an ended one: their last rows are kept. */
static int pt_left_early(const pt_rank *R, int left, long n)
{
    return left && (R->iterable || R->per_epoch <= 0 || n < R->per_epoch);
}

/* The next (batch, next ask) of rank R's loop; *got = 0 at the end of the file. */
static ss_status pt_next_row(pt_rank *R, pt_row *row, int *got)
{
    pt_file *f = &R->main;
    ss_status st;
    pt_kind k;
    *got = 0;
    while (!R->have_cur) {
        if ((st = pt_read(f, &k)) != SS_OK) return st;
        if (k == PT_EOF) return SS_OK;
        if (k == PT_META || k == PT_FETCH) continue;
        const long line = f->line;
        if (k == PT_EPOCH) {
            long p, e;
            if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
            if ((st = pt_long(f, 2, "the epoch", INT32_MIN, INT32_MAX, &e)) != SS_OK) return st;
            if ((st = pt_time(f, 3, "the pass's start time", &R->pass_t0)) != SS_OK) return st;
            if (p != R->pass + 1)
                return ss_fail(SS_EDATA, "%s:%ld: pass %ld follows pass %ld", f->path, line, p, R->pass);
            /* the recorder labels a pass one more than the pass before unless set_epoch gave its
             * label: such a default label follows a left-out pass's, and is taken as the label it
             * would have had without that pass (one more than the last pass kept, 0 for the first) */
            const int dflt = R->nraw > 0 && e == R->raw_label + 1;
            R->raw_label = e;
            R->nraw++;
            R->skipping = pt_skipped(R->skips, R->rank, p);
            if (R->skipping) { /* as if the pass were not in the record: no label, no rows */
                ss_warn("%s:%ld: rank %d's pass %ld (labelled epoch %ld) is left out (--skip-pass %d:%ld)", f->path,
                        line, R->rank, p, e, R->rank, p);
                R->pass = p;
                R->any_skipped = 1;
                continue;
            }
            if (R->any_skipped && dflt) e = R->npass > 0 ? R->epoch + 1 : 0;
            if (R->npass > 0 && e <= R->epoch) {
                /* a pass labelled like the one before (the loader iterated twice in an epoch, or
                 * a batch taken with next(iter(loader)) before the loop, with set_epoch): the
                 * trace's epochs must increase, so it becomes the next label (every rank alike) */
                if (R->rank == 0)
                    ss_warn("%s:%ld: pass %ld is labelled epoch %ld after epoch %ld (the loader was iterated "
                            "again within an epoch, e.g. next(iter(loader)) before the loop, with "
                            "Recorder.set_epoch): it becomes epoch %ld",
                            f->path, line, p, e, R->epoch, R->epoch + 1);
                e = R->epoch + 1;
            }
            R->pass = p;
            R->epoch = e;
            R->npass++;
            continue;
        }
        if (k == PT_END) continue; /* an empty pass (or the end after a batch already closed) */
        if (R->skipping) continue; /* a batch of a pass left out */
        /* a batch that opens a pass */
        pt_batch b;
        if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &b.p)) != SS_OK) return st;
        if ((st = pt_long(f, 2, "the batch", 0, LONG_MAX, &b.k)) != SS_OK) return st;
        if ((st = pt_time(f, 3, "the ask time", &b.ask)) != SS_OK) return st;
        if ((st = pt_time(f, 4, "the got time", &b.got)) != SS_OK) return st;
        if ((st = pt_loop_cpu(f, 5, &b.cpu, &b.wait)) != SS_OK) return st;
        if (b.p != R->pass || b.k != 0)
            return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld, expected batch 0 of pass %ld", f->path,
                           f->line, b.k, b.p, R->pass);
        b.line = f->line;
        R->cur = b;
        R->have_cur = 1;
    }
    if (R->cur.got < R->cur.ask)
        return ss_fail(SS_EDATA, "%s:%ld: the loop got the batch before it asked for it", f->path, R->cur.line);
    /* the next record closes the current batch (an 'end' of an earlier pass, which an
     * iterator kept alive may write late, closes nothing) */
    for (;;) {
        if ((st = pt_read(f, &k)) != SS_OK) return st;
        if (k == PT_META || k == PT_FETCH) continue;
        if (k == PT_END) {
            long p;
            if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
            if (p < R->cur.p) continue;
        }
        break;
    }
    row->epoch = R->epoch;
    row->p = R->cur.p;
    row->k = R->cur.k;
    row->ask = R->cur.ask;
    row->got = R->cur.got;
    row->line = R->cur.line;
    if (k == PT_EOF) { /* cut off (a crash): the last batch has no step end */
        R->cut = 1;
        return SS_OK;
    }
    long p, kk;
    int64_t t = 0;
    if (k == PT_EPOCH) {
        /* a pass without an 'end' record: the loop kept its iterator and started the next
         * pass (a step-based loop that calls next() len(loader) times, a peek iterator kept
         * beside the epochs'); recorders before format 3's pass ending wrote its 'end' only
         * when the iterator went away, later. It ends where the next pass starts. */
        if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
        if ((st = pt_time(f, 3, "the pass's start time", &t)) != SS_OK) return st;
        if (t < R->cur.ask)
            return ss_fail(SS_EDATA, "%s:%ld: time goes backwards (pass %ld starts before the step of line %ld)",
                           f->path, f->line, p, R->cur.line);
        if (!*R->warned_open)
            ss_warn("%s:%ld: pass %ld has no 'end' record before pass %ld starts (the loop kept the pass's iterator: "
                    "a step-based loop, or a peek with next(iter(loader)) kept beside the epochs; a recorder of "
                    "this version ends such a pass itself): its last batch ends where the next pass starts",
                    f->path, f->line, R->pass, p);
        *R->warned_open = 1;
        f->pushed = 1; /* the record starts the next pass as well: read again for the next row */
        R->have_cur = 0;
        row->next_ask = t;
        row->ask_cpu = R->cur.cpu;
        row->ask_wait = R->cur.wait;
        row->next_cpu = row->next_wait = -1;
        *got = 1;
        return SS_OK;
    }
    if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
    if ((st = pt_long(f, 2, k == PT_END ? "the batch count" : "the batch", 0, LONG_MAX, &kk)) != SS_OK) return st;
    if ((st = pt_time(f, 3, k == PT_END ? "the end time" : "the ask time", &t)) != SS_OK) return st;
    if (p != R->cur.p || kk != R->cur.k + 1)
        return ss_fail(SS_EDATA, "%s:%ld: %s %ld of pass %ld follows batch %ld of pass %ld", f->path, f->line,
                       k == PT_END ? "end after batch count" : "batch", kk, p, R->cur.k, R->cur.p);
    if (t < R->cur.ask)
        return ss_fail(SS_EDATA, "%s:%ld: time goes backwards (the step of line %ld ends before it starts)", f->path,
                       f->line, R->cur.line);
    row->next_ask = t;
    row->ask_cpu = R->cur.cpu;
    row->ask_wait = R->cur.wait;
    if ((st = pt_loop_cpu(f, k == PT_END ? 4 : 5, &row->next_cpu, &row->next_wait)) != SS_OK) return st;
    if (row->ask_cpu >= 0 && row->next_cpu >= 0 && row->next_cpu < row->ask_cpu)
        return ss_fail(SS_EDATA, "%s:%ld: the process's CPU time goes backwards (%lld ns, line %ld had %lld ns)",
                       f->path, f->line, (long long)row->next_cpu, R->cur.line, (long long)row->ask_cpu);
    if (k == PT_END) {
        R->have_cur = 0;
        row->left = pt_left_early(R, f->left, kk);
    } else {
        pt_batch b = {.p = p, .k = kk, .ask = t, .cpu = row->next_cpu, .wait = row->next_wait, .line = f->line};
        if ((st = pt_time(f, 4, "the got time", &b.got)) != SS_OK) return st;
        R->cur = b;
    }
    *got = 1;
    return SS_OK;
}

static void pt_free(pt_state *S)
{
    if (!S) return;
    if (S->r)
        for (int g = 0; g < S->G; g++) {
            pt_rank *R = S->r[g];
            if (!R) continue;
            pt_close_file(&R->main);
            for (int i = 0; i < R->nsrc; i++) pt_close_file(&R->src[i].file);
            free(R->src);
            free(R->last_k);
            for (int j = 0; j < PT_KINDS; j++) free(R->cpu[j].bins);
            free(R);
        }
    free(S->r);
    free(S->inputs);
    free(S->loader_workers);
    free(S->fetch_cpu);
    free(S->loop_cpu);
    free(S->fetch_wait);
    free(S->loop_wait);
    free(S->fetch_wait_start);
    free(S->cpu_pool);
    free(S->cpu_pool_cores);
    free(S);
}

/* The rows the import will write when it succeeds: rank 0's batches that have a step end
 * (a batch closed by the next batch, by the end of its pass or, without one, by the start
 * of the next pass; an earlier pass's late 'end' closes nothing). Knowing it up front lets
 * the writer size its chunks to the trace. */
static ss_status pt_count_rows(const char *path, const pt_state_skips *skips, long *rows)
{
    pt_file f = {0};
    ss_status st = pt_open_file(&f, path);
    if (st == SS_OK) st = pt_header(&f);
    int open_batch = 0, skipping = 0;
    long pass = -1, p = 0;
    *rows = 0;
    while (st == SS_OK) {
        pt_kind k;
        if ((st = pt_read(&f, &k)) != SS_OK || k == PT_EOF) break;
        if (k == PT_END && (st = pt_long(&f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) break;
        if (k == PT_END && p < pass) continue;
        if (k == PT_EPOCH && (st = pt_long(&f, 1, "the pass", 0, LONG_MAX, &pass)) != SS_OK) break;
        if (k == PT_EPOCH) skipping = pt_skip_listed(skips, 0, pass);
        if ((k == PT_BATCH || k == PT_END) && skipping) continue; /* a pass left out (rank 0's) */
        if (k == PT_BATCH || k == PT_END || k == PT_EPOCH) *rows += open_batch;
        if (k == PT_BATCH || k == PT_END || k == PT_EPOCH) open_batch = k == PT_BATCH;
    }
    pt_close_file(&f);
    return st;
}

/* Enough file descriptors for every rank and worker file (raises the soft limit). */
static void pt_raise_fd_limit(long need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || (rlim_t)need < rl.rlim_cur) return;
    rlim_t want = (rlim_t)need + 64;
    if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max) want = rl.rlim_max;
    rl.rlim_cur = want;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
}

static ss_status pt_open_rank(pt_state *S, int g)
{
    pt_rank *R = S->r[g];
    char path[PT_PATH + 64];
    R->rank = g;
    snprintf(path, sizeof path, "%s.rank%d.csv", S->prefix, g);
    ss_status st = pt_open_file(&R->main, path);
    if (st == SS_OK) st = pt_rank_header(R);
    if (st != SS_OK) return st;
    int nsrc = R->workers > 0 ? (int)R->workers : 1;
    R->src = calloc((size_t)nsrc, sizeof *R->src);
    R->last_k = calloc((size_t)nsrc, sizeof *R->last_k);
    R->trk_pass = -1;
    int bins_ok = R->last_k != NULL;
    for (int j = 0; j < PT_KINDS; j++) bins_ok = (R->cpu[j].bins = calloc(PT_CPU_BINS, sizeof *R->cpu[j].bins)) && bins_ok;
    if (!R->src || !bins_ok) return ss_fail(SS_ENOMEM, "out of memory");
    R->nsrc = nsrc; /* only now: pt_free closes nsrc sources */
    /* every rank's files stay open together: rank 0 sizes the limit for the world it
     * announces, and a rank with more workers than rank 0 raises it further */
    S->nfiles += 1 + (R->workers > 0 ? nsrc : 0);
    long need = S->nfiles + 16;
    if (g == 0 && R->world > 0) need += (R->world - 1) * (1 + (R->workers > 0 ? nsrc : 0));
    pt_raise_fd_limit(need);
    for (int i = 0; i < R->nsrc; i++) {
        pt_fetch *s = &R->src[i];
        /* synchronous loading: the fetch records are in the rank file */
        if (R->workers > 0) snprintf(path, sizeof path, "%s.rank%d.worker%d.csv", S->prefix, g, i);
        else snprintf(path, sizeof path, "%s", R->main.path);
        struct stat sb;
        if (R->workers > 0 && stat(path, &sb) != 0 && errno == ENOENT)
            return ss_fail(SS_EDATA, "%s: missing: rank %d's loader worker %d never started (each worker makes its file "
                           "as it starts). Did the loader fail before its first batch, as when spawn cannot pickle the "
                           "dataset or collate_fn, or were the files copied without it?", path, g, i);
        if ((st = pt_open_file(&s->file, path)) != SS_OK) return st;
        if ((st = pt_header(&s->file)) != SS_OK) return st;
    }
    return SS_OK;
}

/* 1 when s[0..n) is one or more digits */
static int all_digits(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* PREFIX.rank<R>.csv or PREFIX.rank<R>.worker<W>.csv -> PREFIX (in place) */
static void strip_record_suffix(char *p)
{
    size_t n = strlen(p);
    if (n < 4 || strcmp(p + n - 4, ".csv")) return;
    size_t end = n - 4; /* p[0..end) without ".csv" */
    char *dot = NULL;
    for (size_t i = end; i-- > 0;)
        if (p[i] == '.') {
            dot = p + i;
            break;
        }
    if (dot && !strncmp(dot, ".worker", 7) && all_digits(dot + 7, (size_t)(p + end - dot - 7))) {
        end = (size_t)(dot - p);
        dot = NULL;
        for (size_t i = end; i-- > 0;)
            if (p[i] == '.') {
                dot = p + i;
                break;
            }
    }
    if (dot && !strncmp(dot, ".rank", 5) && all_digits(dot + 5, (size_t)(p + end - dot - 5))) *dot = '\0';
}

/* The runs in folder `path` (their PREFIX.rank0.csv files): their count, the first three
 * names into found */
static int runs_in(const char *path, char found[3][256])
{
    int nfound = 0;
    DIR *dir = opendir(path);
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l > 10 && !strcmp(e->d_name + l - 10, ".rank0.csv")) {
            if (nfound < 3) snprintf(found[nfound], 256, "%.*s", (int)(l - 10), e->d_name);
            nfound++;
        }
    }
    if (dir) closedir(dir);
    return nfound;
}

/* A PREFIX with no PREFIX.rank0.csv whose folder holds other runs (a slip: out/rn for
 * out/run): says which */
static ss_status pt_check_missing(const char *prefix)
{
    char path[SS_PATH_MAX + 16], folder[SS_PATH_MAX], found[3][256];
    snprintf(path, sizeof path, "%s.rank0.csv", prefix);
    struct stat sb;
    if (stat(path, &sb) == 0) return SS_OK;
    const char *slash = strrchr(prefix, '/');
    if (slash) snprintf(folder, sizeof folder, "%.*s", (int)(slash - prefix + 1), prefix);
    else snprintf(folder, sizeof folder, ".");
    int n = runs_in(folder, found);
    const char *at = slash ? folder : "";
    if (n == 1)
        return ss_fail(SS_EIO, "import pytorch: %s: no record files %s.rank0.csv ...; the folder %s holds the run "
                       "%s%s: try `stallsim import pytorch %s%s -o TRACE.h5`", prefix, prefix, folder, at, found[0],
                       at, found[0]);
    if (n > 1)
        return ss_fail(SS_EIO, "import pytorch: %s: no record files %s.rank0.csv ...; the folder %s holds %d runs "
                       "(%s%s, %s%s%s); give one run's PREFIX", prefix, prefix, folder, n, at, found[0], at, found[1],
                       n > 2 ? ", ..." : "");
    return SS_OK;
}

/* A folder given as PREFIX: says which runs it holds (their PREFIX.rank0.csv files). */
static ss_status pt_check_dir(const char *prefix)
{
    struct stat sb;
    if (stat(prefix, &sb) != 0 || !S_ISDIR(sb.st_mode)) return SS_OK;
    char found[3][256];
    int nfound = runs_in(prefix, found);
    const char *sep = prefix[strlen(prefix) - 1] == '/' ? "" : "/";
    if (nfound == 0)
        return ss_fail(SS_EIO, "import pytorch: %s is a folder without record files (PREFIX.rank0.csv); give the "
                       "PREFIX that Recorder(PREFIX) was given", prefix);
    if (nfound == 1)
        return ss_fail(SS_EIO, "import pytorch: %s is a folder; it holds the run %s%s%s: try `stallsim import "
                       "pytorch %s%s%s -o TRACE.h5`", prefix, prefix, sep, found[0], prefix, sep, found[0]);
    return ss_fail(SS_EIO, "import pytorch: %s is a folder of %d runs (%s%s%s, %s%s%s%s); give one run's PREFIX",
                   prefix, nfound, prefix, sep, found[0], prefix, sep, found[1], nfound > 2 ? ", ..." : "");
}

static ss_status pt_open(void **state, int argc, char **argv, ss_import_info *info)
{
    /* every rank's and worker's file is open at once (lockstep): as many as the hard limit
     * allows (128 ranks x 8 workers are 1,152 files, past the usual soft limit of 1,024) */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    pt_state *S = calloc(1, sizeof *S);
    if (!S) return ss_fail(SS_ENOMEM, "out of memory");
    *state = S;
    /* --skip-pass R:P (or --skip-pass=R:P), repeatable; the one PREFIX */
    const char *prefix = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--skip-pass")) {
            if (i + 1 >= argc) return ss_fail(SS_EUSAGE, "import pytorch: --skip-pass needs RANK:PASS, e.g. --skip-pass 0:0");
            v = argv[++i];
        } else if (!strncmp(argv[i], "--skip-pass=", 12)) {
            v = argv[i] + 12;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return ss_fail(SS_EUSAGE, "import pytorch: unknown option '%s' (see stallsim import pytorch --help)", argv[i]);
        } else if (prefix) {
            return ss_fail(SS_EUSAGE, "import pytorch: expected one PREFIX (see stallsim import pytorch --help)");
        } else {
            prefix = argv[i];
            continue;
        }
        long r, p;
        char *e1, *e2;
        errno = 0;
        r = strtol(v, &e1, 10);
        p = *e1 == ':' ? strtol(e1 + 1, &e2, 10) : -1;
        if (errno || e1 == v || *e1 != ':' || e2 == e1 + 1 || *e2 || r < 0 || p < 0 || r > INT_MAX)
            return ss_fail(SS_EUSAGE, "import pytorch: --skip-pass %s: expected RANK:PASS (whole numbers, the pass as "
                           "numbered in that rank's file: its 'epoch,PASS,...' line), e.g. --skip-pass 0:0", v);
        if (S->skips.n == PT_SKIP_MAX)
            return ss_fail(SS_EUSAGE, "import pytorch: more than %d --skip-pass options", PT_SKIP_MAX);
        S->skips.rank[S->skips.n] = r;
        S->skips.pass[S->skips.n++] = p;
    }
    if (!prefix) return ss_fail(SS_EUSAGE, "import pytorch: expected one PREFIX (see stallsim import pytorch --help)");
    if (strlen(prefix) >= sizeof S->prefix - 64)
        return ss_fail(SS_EUSAGE, "import pytorch: PREFIX is too long");
    /* a profiler or DLIO trace given to the recorder's importer */
    const char *what = NULL, *other = ss_import_looks_like(prefix, &what);
    if (other && strcmp(other, "pytorch"))
        return ss_fail(SS_EUSAGE,
                       "import pytorch: %s looks like a %s trace; this importer reads the files of "
                       "scripts/stallsim_record.py (PREFIX.rank0.csv, ...): try `stallsim import %s %s -o TRACE.h5`",
                       prefix, what, other, prefix);
    snprintf(S->prefix, sizeof S->prefix, "%s", prefix);
    /* any of the run's files names the run: "run.rank1.csv", "run.rank0.worker2.csv" */
    strip_record_suffix(S->prefix);
    ss_status dst = pt_check_dir(S->prefix);
    if (dst == SS_OK) dst = pt_check_missing(S->prefix);
    if (dst != SS_OK) return dst;
    /* rank 0 says how many ranks there are (the ranks are not moved once open: their
     * fields point into their own line buffers) */
    pt_rank *r0 = calloc(1, sizeof *r0);
    S->r = calloc(1, sizeof *S->r);
    if (!r0 || !S->r) {
        free(r0);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    S->r[0] = r0;
    r0->warned_open = &S->warned_open;
    r0->skips = &S->skips;
    S->G = 1;
    ss_status st = pt_open_rank(S, 0);
    if (st != SS_OK) return st;
    long world = r0->world;
    pt_rank **grown = realloc(S->r, (size_t)world * sizeof *S->r);
    if (!grown) return ss_fail(SS_ENOMEM, "out of memory");
    S->r = grown;
    for (int g = 1; g < world; g++) {
        S->r[g] = calloc(1, sizeof *S->r[g]);
        if (!S->r[g]) return ss_fail(SS_ENOMEM, "out of memory");
        S->r[g]->warned_open = &S->warned_open;
        S->r[g]->skips = &S->skips;
        S->G = g + 1;
        if ((st = pt_open_rank(S, g)) != SS_OK) return st;
        if (S->r[g]->world != world)
            return ss_fail(SS_EDATA, "%s: world_size %ld, but %s says %ld", S->r[g]->main.path, S->r[g]->world,
                           r0->main.path, world);
    }
    /* a rank whose Recorder measured no clock offset (made before init_process_group) on
     * another host than rank 0: its times are off by the two clocks' difference */
    for (int g = 1; g < S->G; g++)
        if (S->r[g]->no_offset && strcmp(S->r[g]->host, r0->host)) {
            ss_warn("%s: rank %d ran on host %s and rank 0 on %s, but its clock was not compared with rank 0's "
                    "(clock_offset_source none: the Recorder was made before init_process_group): its times are "
                    "off by the two clocks' difference; make the Recorder after init_process_group",
                    S->r[g]->main.path, g, S->r[g]->host, r0->host);
            break;
        }
    for (int i = 0; i < S->skips.n; i++)
        if (S->skips.rank[i] >= world)
            return ss_fail(SS_EUSAGE, "import pytorch: --skip-pass %ld:%ld: the run has ranks 0 to %ld", S->skips.rank[i],
                           S->skips.pass[i], world - 1);
    /* the inputs (so that -o cannot overwrite one), loader workers, origin */
    long nin = 0;
    for (int g = 0; g < S->G; g++) nin += 1 + (S->r[g]->workers > 0 ? S->r[g]->nsrc : 0);
    S->inputs = malloc((size_t)nin * sizeof *S->inputs);
    S->loader_workers = malloc((size_t)S->G * sizeof *S->loader_workers);
    if (!S->inputs || !S->loader_workers) return ss_fail(SS_ENOMEM, "out of memory");
    int64_t origin = INT64_MAX;
    long total_workers = 0, prefetch = S->r[0]->prefetch, batch = S->r[0]->batch_size;
    for (int g = 0; g < S->G; g++) {
        pt_rank *R = S->r[g];
        S->inputs[S->ninputs++] = R->main.path;
        if (R->workers > 0)
            for (int i = 0; i < R->nsrc; i++) S->inputs[S->ninputs++] = R->src[i].file.path;
        S->loader_workers[g] = (int)R->workers;
        total_workers += R->workers;
        if (R->prefetch != prefetch) prefetch = -1;
        if (R->batch_size != batch) batch = -1;
        int64_t t = R->first_epoch_ns + R->offset;
        if (t < origin) origin = t;
    }
    if (origin < 0)
        return ss_fail(SS_EDATA, "%s: with the clock offsets the run starts before 1970 (check meta,clock_offset_ns)",
                       r0->main.path);
    S->origin_ns = origin - origin % 1000; /* whole microseconds */
    info->inputs = S->inputs;
    info->ninputs = S->ninputs;
    ss_trace_meta *m = &info->meta;
    m->gpus = S->G;
    if ((st = pt_count_rows(r0->main.path, &S->skips, &m->iterations)) != SS_OK) return st;
    ss_time_format_iso(S->origin_ns, m->time_origin, sizeof m->time_origin);
    snprintf(m->log_type, sizeof m->log_type, "pytorch");
    snprintf(m->source, sizeof m->source, "stallsim_record.py %.300s (torch %.60s, host %.100s)", S->prefix,
             S->r[0]->torch, S->r[0]->host);
    m->batch_size = batch;
    m->workers = total_workers;
    m->prefetch_factor = prefetch > 0 ? prefetch : -1;
    snprintf(m->fetch_times, sizeof m->fetch_times, "measured");
    m->loader_workers = S->loader_workers;
    return SS_OK;
}

/* A recorded epoch with fewer rows than the loader's batches per epoch (rank 0's meta
 * batches_per_epoch): the run ended early (killed) or the loop left the epoch. Not for an
 * IterableDataset, whose len(loader) is only its len(dataset)'s guess. */
static void pt_check_epoch(const pt_state *S)
{
    const pt_rank *R = S->r[0];
    if (!R->iterable && R->per_epoch > 0 && S->epoch_rows < R->per_epoch)
        ss_warn("%s: epoch %ld has %ld of its %ld batches (meta batches_per_epoch): the run ended early (killed?) or "
                "the loop left the epoch (a break, an exception); the trace keeps what was recorded%s",
                R->main.path, S->last_epoch, S->epoch_rows, R->per_epoch,
                R->main.version >= 4 ? ", but not the batch at which the loop left, whose step has no end in the record"
                                     : " (a recording of format 3 or older: the last batch's step may end where the "
                                       "loop left, not where the step did)");
}

/* The per-rank medians of one kind of CPU time (or wait) into *out (and the trace's meta
 * field *field) when every row of every rank had one (format 2, or 3 for the waits, files
 * throughout). */
static ss_status pt_cpu_medians(pt_state *S, int kind, double **out, double **field)
{
    int with = 0, without = -1;
    for (int g = 0; g < S->G; g++) {
        const pt_hist *h = &S->r[g]->cpu[kind];
        if (h->missing || h->n == 0) {
            if (without < 0) without = g;
        } else {
            with++;
        }
    }
    if (without >= 0) {
        if (with > 0 && kind == PT_CPU_FETCH) /* once, for the first kind of CPU time that is short */
            ss_warn("%s: %d of %d ranks recorded CPU times, but rank %d (record format 1?) did not: the trace gets "
                    "no CPU datasets (fetch_scale then scales whole fetches; no cpu_load_pct)",
                    S->r[without]->main.path, with, S->G, without);
        return SS_OK;
    }
    *out = malloc((size_t)S->G * sizeof **out);
    if (!*out) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; g < S->G; g++) (*out)[g] = pt_cpu_median(&S->r[g]->cpu[kind]);
    *field = *out;
    return SS_OK;
}

/* The batches a rank's loader sends out at once as a pass starts: W x P (P 2, PyTorch's
 * default, where the record has none); 0 without workers */
static long pt_window(const pt_rank *R) { return R->workers > 0 ? R->workers * (R->prefetch > 0 ? R->prefetch : 2) : 0; }

/* A first window's mean wait this much above the median (seconds) is a start-up crush
 * worth a warning: on 2 cores, 16 worker processes gave 25-47 ms, 8 gave 2-11 ms. */
#define START_CRUSH_S 0.010
/* A window of at most this many fetches (2 workers x the default prefetch_factor 2) of at
 * most 2 persistent workers: no warning for its rank (nothing smaller is worth recording). */
#define START_SMALL_WINDOW 4

/* At the end, with the waits' medians (S->fetch_wait): /fetch_wait_start_time, each rank's
 * mean wait for a core over its passes' first W·P fetches (the loader sends them out at once as a pass
 * starts, with the workers it starts then: the start-up crush), when every rank with workers
 * recorded all of them; 0 for a synchronous rank. */
static ss_status pt_start_waits(pt_state *S, ss_trace_meta *m)
{
    for (int g = 0; g < S->G; g++) {
        const pt_rank *R = S->r[g];
        if (R->workers > 0 && (R->start_missing || R->start_n == 0)) return SS_OK;
    }
    S->fetch_wait_start = malloc((size_t)S->G * sizeof *S->fetch_wait_start);
    if (!S->fetch_wait_start) return ss_fail(SS_ENOMEM, "out of memory");
    /* the rank with the largest start-up excess, of those with something to change: persistent
     * workers with a window of at most START_SMALL_WINDOW fetches start only in the first epoch,
     * and nothing smaller is worth recording instead (a warning with nothing to act on read as
     * a fault to a new user) */
    int worst = -1;
    for (int g = 0; g < S->G; g++) {
        const pt_rank *R = S->r[g];
        S->fetch_wait_start[g] = R->workers > 0 ? R->start_wait / (double)R->start_n : 0.0;
        double ex = S->fetch_wait_start[g] - S->fetch_wait[g];
        const int small = R->persistent == 1 && R->workers <= 2 && pt_window(R) <= START_SMALL_WINDOW;
        if (!small && ex > START_CRUSH_S && (worst < 0 || ex > S->fetch_wait_start[worst] - S->fetch_wait[worst]))
            worst = g;
    }
    m->fetch_wait_start = S->fetch_wait_start;
    if (worst >= 0) { /* a start-up crush: say so once, with what avoids it */
        const pt_rank *R = S->r[worst];
        const char *advice =
            R->persistent != 1 ? "persistent_workers=True, or with fewer workers, if the job can use them"
                               : "fewer workers or a smaller prefetch_factor (its workers persist already), if the job "
                                 "can use them";
        ss_warn("%s: each epoch's first %ld fetches (workers x prefetch_factor, all requested as the epoch starts) "
                "waited %.0f ms for a core on average, the later ones %.1f ms (rank %d, %ld workers per rank). stallsim "
                "scales this start-up wait to each scenario's workers (README, \"The first window of an epoch\"); a "
                "base trace recorded without it predicts more steadily: record one with %s",
                R->main.path, pt_window(R), 1e3 * S->fetch_wait_start[worst], 1e3 * S->fetch_wait[worst], R->rank,
                R->workers, advice);
    }
    return SS_OK;
}

/* At the end: the trace's CPU datasets. The ranks whose processes run on the same host and
 * the same set of cores (meta host, cpu_set) form one pool of meta cpus cores. */
static ss_status pt_cpu_meta(pt_state *S, ss_trace_meta *m)
{
    ss_status st = pt_cpu_medians(S, PT_CPU_FETCH, &S->fetch_cpu, &m->fetch_cpu);
    if (st == SS_OK && m->fetch_cpu) st = pt_cpu_medians(S, PT_CPU_LOOP, &S->loop_cpu, &m->loop_cpu);
    if (st != SS_OK || !m->fetch_cpu || !m->loop_cpu) return st; /* pools serve the CPU times only */
    /* the waits for a core (format 3 throughout, where the kernel reports them) */
    if ((st = pt_cpu_medians(S, PT_WAIT_FETCH, &S->fetch_wait, &m->fetch_wait)) != SS_OK) return st;
    if (m->fetch_wait && (st = pt_cpu_medians(S, PT_WAIT_LOOP, &S->loop_wait, &m->loop_wait)) != SS_OK) return st;
    if (!m->loop_wait) m->fetch_wait = NULL;
    if (m->fetch_wait && (st = pt_start_waits(S, m)) != SS_OK) return st;
    for (int g = 0; g < S->G; g++)
        if (S->r[g]->cpus < 1 || !S->r[g]->cpu_set[0]) return SS_OK;
    S->cpu_pool = malloc((size_t)S->G * sizeof *S->cpu_pool);
    S->cpu_pool_cores = malloc((size_t)S->G * sizeof *S->cpu_pool_cores);
    if (!S->cpu_pool || !S->cpu_pool_cores) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; g < S->G; g++) {
        const pt_rank *R = S->r[g];
        int p = 0;
        while (p < g && (strcmp(S->r[p]->host, R->host) || strcmp(S->r[p]->cpu_set, R->cpu_set))) p++;
        S->cpu_pool[g] = p;
        S->cpu_pool_cores[g] = (int)S->r[p]->cpus;
    }
    m->cpu_pool = S->cpu_pool;
    m->cpu_pool_cores = S->cpu_pool_cores;
    return SS_OK;
}

/* The pass that rank R's tracking holds ended: an IterableDataset's worker whose last batch
 * of it came more than 2 W batches before the pass's end ran out early (the loader hands
 * batches to its workers in turn, so each worker delivers one of the last W while it has
 * samples), and the loader went on with fewer workers. Counted, the first kept. */
static void pt_pass_end(pt_state *S, pt_rank *R)
{
    if (!R->iterable || R->workers < 2 || R->trk_pass < 0) return;
    for (int w = 0; w < R->nsrc; w++)
        if (R->last_k[w] >= 0 && R->last_k[w] < R->trk_n - 2 * R->workers) {
            if (S->early_n++ == 0) {
                const long e[5] = {R->rank, w, R->trk_pass, R->last_k[w], R->trk_n};
                memcpy(S->early, e, sizeof e);
            }
        }
}

/* The loop took the batch of row from rank R's worker fetch f: the pass's last batch of
 * each worker, and, for the pass's first batch, the workers' start-up (from the pass's start
 * to that fetch's; persistent workers start once: in a later pass the first fetch may wait
 * for fetches queued before the loop left the pass before). */
static void pt_took(pt_state *S, pt_rank *R, const pt_row *row, const pt_fetch *f)
{
    if (R->workers < 1) return;
    if (row->p != R->trk_pass) {
        pt_pass_end(S, R);
        for (int i = 0; i < R->nsrc; i++) R->last_k[i] = -1;
        R->trk_pass = row->p;
    }
    R->last_k[f - R->src] = row->k;
    R->trk_n = row->k + 1;
    if (row->k == 0 && (R->persistent != 1 || R->npass == 1)) {
        const int64_t up = f->start > R->pass_t0 ? f->start - R->pass_t0 : 0;
        S->startup_sum += (double)up;
        S->startup_n++;
        if (up > S->startup_max) {
            S->startup_max = up;
            S->startup_rank = R->rank;
        }
    }
}

/* At the end: workers whose files have no fetch record (an IterableDataset with fewer
 * shards than workers, or fewer batches than workers) did not take part, and the trace's
 * loader_workers counts those that did, with their share of the batches in flight as the
 * prefetch factor (the loader keeps W x P batches out among the workers it still has). */
static ss_status pt_idle_workers(pt_state *S, ss_trace_meta *m)
{
    long total = 0, prefetch = 0, nidle = 0, first = -1, first_n = 0;
    for (int g = 0; g < S->G; g++) {
        pt_rank *R = S->r[g];
        long n = 0, p = R->prefetch;
        for (int w = 0; R->workers > 0 && w < R->nsrc; w++) {
            pt_fetch *src = &R->src[w];
            /* the import reads a worker's file only as far as it needs: one whose batches the
             * loop never took (it left its passes early) may still have fetched */
            if (!src->seen && !src->valid && !src->eof) {
                ss_status st = pt_fetch_advance(src);
                if (st != SS_OK) return st;
            }
            n += src->seen;
        }
        if (R->workers > 0 && n > 0 && n < R->workers) {
            if (nidle++ == 0) {
                first = g;
                first_n = n;
            }
            S->loader_workers[g] = (int)n;
            p = R->prefetch > 0 && (R->workers * R->prefetch) % n == 0 ? R->workers * R->prefetch / n : -1;
        }
        total += S->loader_workers[g];
        if (g == 0) prefetch = p;
        else if (p != prefetch) prefetch = -1;
    }
    if (nidle > 0) {
        m->workers = total;
        m->prefetch_factor = prefetch > 0 ? prefetch : -1;
        const pt_rank *F = S->r[first];
        ss_warn("%s: rank %ld's loader had %ld workers, but only %ld of them fetched a batch%s (the others' files have "
                "no fetch record: an IterableDataset with fewer shards than workers, or fewer batches than workers): the "
                "trace takes the workers that took part (loader_workers %ld, and the %ld batches in flight, workers x "
                "prefetch_factor, shared among them%s); a scenario with more workers gains only where the dataset "
                "gives them work",
                F->main.path, first, F->workers, first_n, nidle > 1 ? ", and the same on other ranks" : "", first_n,
                F->workers * F->prefetch,
                F->prefetch > 0 && (F->workers * F->prefetch) % first_n == 0
                    ? ""
                    : ": not evenly, so the trace has no prefetch_factor and the calibration fits one");
    }
    return SS_OK;
}

/* At the end: says how long the workers took to start, when long (pt_took measured it), and
 * the workers that ran out early within a pass (pt_pass_end counted them). */
static void pt_say_workers(pt_state *S)
{
    for (int g = 0; g < S->G; g++) pt_pass_end(S, S->r[g]); /* each rank's last pass */
    const double up = S->startup_n > 0 ? 1e-9 * S->startup_sum / (double)S->startup_n : 0.0;
    if (up > SS_STARTUP_NOTE_S) {
        const pt_rank *R = S->r[S->startup_rank];
        ss_warn("%s: each pass's first fetch started %.2f s after the pass began, on average over the ranks (up to "
                "%.2f s, rank %ld): the loader's %ld worker process%s starting%s. The summaries leave each epoch's "
                "first warmup_iterations out, and with them this start-up, which grows with the workers: what "
                "stallsim predicts is the iterations after it, not an epoch's whole time%s",
                R->main.path, up, 1e-9 * (double)S->startup_max, S->startup_rank, R->workers,
                R->workers == 1 ? "" : "es",
                R->persistent == 0 ? " again at every pass (persistent_workers=False; started by spawn or forkserver?)"
                                   : "",
                R->persistent == 0 ? "; persistent_workers=True starts them once" : "");
    }
    if (S->early_n > 0)
        ss_warn("%s: this worker of rank %ld delivered its last batch of pass %ld as the pass's batch %ld (from 0) "
                "of %ld; %ld time%s in all a worker ran out that early in a pass, this one included (an "
                "IterableDataset whose workers' shards are uneven): from there the loader had fewer workers, which "
                "the models do not follow (they keep every worker to the end of the pass), so the baseline replay "
                "and the what-ifs made from it are off (run's fidelity line says by how much); shards of the same "
                "length per worker avoid it",
                S->r[S->early[0]]->src[S->early[1]].file.path, S->early[0], S->early[2], S->early[3], S->early[4],
                S->early_n, S->early_n == 1 ? "" : "s");
}

/* Where one rank's record has ended and another's goes on in the pass of the last row every
 * rank has: *within stays 1 when every rank's record ends within that pass (each read to
 * its end, its rows in the pass of its last row read, labelled S->last_epoch), else 0 (a
 * rank goes on into later passes: the records do not match). */
static ss_status pt_rest_within(pt_state *S, int *within)
{
    for (int g = 0; g < S->G && *within; g++) {
        pt_rank *R = S->r[g];
        for (;;) {
            pt_row row = {0};
            int got;
            ss_status st = pt_next_row(R, &row, &got);
            if (st != SS_OK) return st;
            if (!got) break;
            if (row.p != R->last_p || row.epoch != S->last_epoch) {
                *within = 0;
                break;
            }
        }
    }
    return SS_OK;
}

static ss_status pt_next(void *state, ss_slab *s, ss_import_info *info)
{
    pt_state *S = state;
    const int G = S->G;
    ss_status st;
    s->n = 0;
    while (!S->done && s->n < s->cap) {
        long i = s->n;
        pt_row r0 = {0};
        int got0 = 0, nleft = 0;
        for (int g = 0; g < G; g++) {
            pt_rank *R = S->r[g];
            pt_row row = {0};
            int got;
            if ((st = pt_next_row(R, &row, &got)) != SS_OK) return st;
            if (got) R->last_p = row.p;
            if (g == 0) {
                r0 = row;
                got0 = got;
            } else if (got != got0) {
                pt_rank *a = got ? R : S->r[0], *b = got ? S->r[0] : R;
                const pt_row *ar = got ? &row : &r0;
                /* b's record has ended; a's goes on in the pass of the last row every rank has: the
                 * job ended in that pass, each rank at its own batch (an error on one rank ends its
                 * loop while the others wait in the all-reduce) */
                int same_pass = S->rows > 0 && ar->k > 0 && ar->epoch == S->last_epoch;
                const long aline = a->main.line; /* (pt_rest_within reads on) */
                if (!b->cut && same_pass && (st = pt_rest_within(S, &same_pass)) != SS_OK) return st;
                if (!b->cut && !same_pass)
                    return ss_fail(SS_EDATA, "%s:%ld: rank %d has more iterations than rank %d, whose file %s ends "
                                   "after %ld rows: the ranks do not have the same iteration counts", a->main.path,
                                   aline, a->rank, b->rank, b->main.path, S->rows);
                /* the rows every rank has */
                if (b->cut) /* a crash: each rank lost its own last few buffered lines */
                    ss_warn("%s: cut off after %ld rows (the run crashed or was killed), where rank %d's file goes on: "
                            "the trace keeps the %ld iterations every rank has", b->main.path, S->rows, a->rank, S->rows);
                else
                    ss_warn("%s: ends after %ld rows, where rank %d's record goes on in the same pass (epoch %ld, to "
                            "its batch %ld at least): the job ended in that pass, each rank at its own batch (an error "
                            "on one rank, such as its loader's, ends its loop while the others wait in the all-reduce; "
                            "or a kill): the trace keeps the %ld iterations every rank has", b->main.path, S->rows,
                            a->rank, ar->epoch, ar->k, S->rows);
                got0 = 0;
                break;
            } else if (got && (row.epoch != r0.epoch || row.k != r0.k)) {
                /* one rank has started a new pass where the other goes on with its pass: the
                 * first rank's pass before may be one that it made alone */
                char why[900] = "";
                if ((row.k == 0) != (r0.k == 0) &&
                    !pt_skip_listed(&S->skips, row.k == 0 ? R->rank : S->r[0]->rank, (row.k == 0 ? row.p : r0.p) - 1)) {
                    const pt_rank *a = row.k == 0 ? R : S->r[0], *o = row.k == 0 ? S->r[0] : R;
                    const long ap = row.k == 0 ? row.p : r0.p, op = row.k == 0 ? r0.p : row.p,
                               n = row.k == 0 ? r0.k : row.k;
                    int w = snprintf(why, sizeof why,
                                     "; rank %d's pass %ld ended after %ld batch%s where rank %d's went on: a pass that "
                                     "rank %d made alone (e.g. a batch taken with next(iter(loader)) on that rank only)? "
                                     "`stallsim import pytorch ... --skip-pass %d:%ld` leaves it out",
                                     a->rank, ap - 1, n, n == 1 ? "" : "es", o->rank, a->rank, a->rank, ap - 1);
                    /* a pass cut short of len(loader): the loader may have raised there, the loop
                     * caught the error and went on unrecorded; that epoch then differs on every rank */
                    if (w > 0 && (size_t)w < sizeof why && a->per_epoch > n)
                        snprintf(why + w, sizeof why - (size_t)w,
                                 ". Or, as it ended %ld batch%s short of its %ld, the loader raised an error there that "
                                 "the loop caught and went on from (a pass's record ends at the error)? Then leave that "
                                 "epoch out on every rank: `--skip-pass %d:%ld --skip-pass %d:%ld`%s",
                                 a->per_epoch - n, a->per_epoch - n == 1 ? "" : "es", a->per_epoch, a->rank, ap - 1,
                                 o->rank, op, S->G > 2 ? " and the same for each other rank's pass of that epoch" : "");
                }
                return ss_fail(SS_EDATA, "%s:%ld: epoch %ld batch %ld, but %s:%ld is at epoch %ld batch %ld: the "
                               "ranks do not have the same iteration counts per epoch%s", R->main.path, row.line,
                               row.epoch, row.k, S->r[0]->main.path, r0.line, r0.epoch, r0.k, why);
            }
            if (!got) continue;
            pt_fetch *f = NULL;
            if ((st = pt_find_fetch(R, row.p, row.k, row.line, &f)) != SS_OK) return st;
            if (R->iterable && f->ready > row.got + PT_READY_SLACK_NS) /* one host's clock: never, unless one is lost */
                return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld: the next fetch record of the pass (%s:%ld) was "
                               "ready %.3f s after the loop got the batch: a fetch record missing from this IterableDataset's "
                               "files?", R->main.path, row.line, row.k, row.p, f->file.path, f->line,
                               1e-9 * (double)(f->ready - row.got));
            const double ns = 1e-9;
            const int64_t off = R->offset - S->origin_ns;
            s->fetch_start[i * G + g] = (double)(f->start + off) * ns;
            s->fetch_time[i * G + g] = (double)(f->ready - f->start) * ns;
            s->train_start[i * G + g] = (double)(row.got + off) * ns;
            s->stall_time[i * G + g] = (double)(row.got - row.ask) * ns;
            s->iteration_time[i * G + g] = (double)(row.next_ask - row.ask) * ns;
            if (row.left) { /* the row is left out (below): the loop took the batch, its step is unknown */
                nleft++;
                pt_took(S, R, &row, f);
                f->valid = 0;
                continue;
            }
            pt_cpu_add(&R->cpu[PT_CPU_FETCH], f->cpu);
            pt_cpu_add(&R->cpu[PT_CPU_LOOP], row.ask_cpu >= 0 && row.next_cpu >= 0 ? row.next_cpu - row.ask_cpu : -1);
            pt_cpu_add(&R->cpu[PT_WAIT_FETCH], f->wait);
            if (row.k < pt_window(R)) {
                if (f->wait < 0) R->start_missing++;
                else {
                    R->start_wait += (double)f->wait * ns;
                    R->start_n++;
                }
            }
            pt_cpu_add(&R->cpu[PT_WAIT_LOOP],
                       row.ask_wait >= 0 && row.next_wait >= row.ask_wait ? row.next_wait - row.ask_wait : -1);
            pt_took(S, R, &row, f);
            f->valid = 0; /* consumed */
        }
        if (!got0) {
            for (int q = 0; q < S->skips.n; q++) /* a --skip-pass that found no pass: a mistyped one */
                if (!S->skips.used[q])
                    return ss_fail(SS_EUSAGE, "import pytorch: --skip-pass %ld:%ld: rank %ld's record has no pass %ld "
                                   "(its passes are 0 to %ld)", S->skips.rank[q], S->skips.pass[q],
                                   S->skips.rank[q], S->skips.pass[q], S->r[S->skips.rank[q]]->pass);
            S->done = 1;
            if (S->rows == 0)
                return ss_fail(SS_EDATA, "%s.rank0.csv: no batch of the record has a step: the loader failed before its "
                               "first batch (the dataset raised?), or the loop left every pass at its first batch",
                               S->prefix);
            if (S->rows > 0) pt_check_epoch(S);
            if ((st = pt_idle_workers(S, &info->meta)) != SS_OK) return st;
            pt_say_workers(S);
            if ((st = pt_cpu_meta(S, &info->meta)) != SS_OK) return st;
            break;
        }
        if (nleft > 0) { /* a rank left the pass after this batch: its step has no end, the row goes (a rank
                          * that ended its pass there instead, in next(), as under a Ctrl-C, agrees on it) */
            S->left_rows++;
            continue;
        }
        if (S->rows > 0 && r0.epoch != S->last_epoch) pt_check_epoch(S);
        if (S->rows == 0 || r0.epoch != S->last_epoch) {
            S->epochs++;
            S->epoch_rows = 0;
        }
        S->epoch_rows++;
        S->last_epoch = r0.epoch;
        s->epoch[i] = (int32_t)r0.epoch;
        s->index[i] = r0.k;
        s->n++;
        S->rows++;
    }
    info->meta.epochs = S->epochs;
    return SS_OK;
}

static void pt_close(void *state) { pt_free(state); }

const ss_importer ss_importer_pytorch = {
    .name = "pytorch",
    .summary = "record files of scripts/stallsim_record.py (PREFIX.rank<R>.csv, PREFIX.rank<R>.worker<W>.csv)",
    .usage = "PREFIX [--skip-pass RANK:PASS]...",
    .help = "Reads the files that scripts/stallsim_record.py wrote for one run: PREFIX.rank<R>.csv for\n"
            "R = 0 .. world_size-1 and, per rank, PREFIX.rank<R>.worker<W>.csv for W = 0 .. num_workers-1\n"
            "(any of those files may be named instead of PREFIX). One GPU column per rank, one row\n"
            "per (epoch, batch index); every rank must have the same batches. Each rank's times are\n"
            "shifted by its recorded clock offset against rank 0; time 0 is the earliest epoch start.\n"
            "fetch_start, fetch_time: the worker's first sample request and collated batch; train_start:\n"
            "the loop got the batch; stall_time: got - asked; iteration_time: next ask - this ask (the\n"
            "last batch of an epoch: the ask that ended the epoch). The files are read in lockstep.\n"
            "Record format 2 adds CPU times: the trace's /fetch_cpu_time holds each rank's median CPU per\n"
            "fetch (the part that fetch_scale keeps, [pipeline] fetch_cpu), /loop_cpu_time its training\n"
            "process's median CPU per iteration, /cpu_pool and /cpu_pool_cores the ranks that share a host's\n"
            "cores and how many (summary.csv's cpu_load_pct). Format 3 adds the waits for a core (the\n"
            "kernel's run delay): /fetch_wait_time per fetch, /loop_wait_time per iteration of the loop's\n"
            "thread (medians per rank), which CPU sharing uses for the trace's own contention, and\n"
            "/fetch_wait_start_time, each rank's mean wait over the first num_workers x prefetch_factor\n"
            "fetches of every pass (sent out at once as the workers start). Format 4 ends a pass the\n"
            "loop left (a break, an exception, the script's end) with 'left': the batch at which it left\n"
            "has no step end and no row, unless the pass was taken whole (len(loader) batches).\n"
            "A pass whose iterator the loop kept (a step-based loop, a kept peek iterator) ends where\n"
            "the next pass starts. --skip-pass RANK:PASS (repeatable) leaves out that rank's pass (as\n"
            "numbered in its file's 'epoch,PASS,...' line): a pass one rank made alone, such as a batch\n"
            "taken with next(iter(loader)) on rank 0 only, which the other ranks do not have.\n"
            "An IterableDataset's fetches (meta dataset iterable) are taken in the order the loader\n"
            "handed the batches out, and a worker that ran out long before its pass ended (uneven\n"
            "shards) is named. Workers that never fetched (fewer shards or batches than workers) are\n"
            "left out of loader_workers; workers slow to start (a pass's first fetch more than 0.5 s\n"
            "after it began, on average) are said.\n",
    .open = pt_open,
    .next = pt_next,
    .close = pt_close,
};
