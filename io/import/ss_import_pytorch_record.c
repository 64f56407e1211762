/* ss_import_pytorch_record.c - the PyTorch recorder importer's record reader. */
/* One record file read line by line into fields, its header and a rank file's meta lines,
 * and the fetch records of one fetch source (a worker file, or the rank file). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ss_import_pytorch.h"
#include "ss_limits.h"

ss_status pt_open_file(pt_file *f, const char *path)
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

void pt_close_file(pt_file *f)
{
    if (f->f) fclose(f->f);
    free(f->path);
}

/* Reads the next non-empty line into fields; *kind receives its record type. */
ss_status pt_read(pt_file *f, pt_kind *kind)
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
             * ends a left pass with 'left' (read as an end, f->left set); format 5 adds to an end
             * the time it was written (after the ending next() returned) */
            int timed = kinds[i].kind == PT_FETCH || kinds[i].kind == PT_BATCH || kinds[i].kind == PT_END;
            int want = kinds[i].nfield + (timed ? (f->version >= 3 ? 2 : f->version >= 2) : 0) +
                       (kinds[i].kind == PT_END && f->version >= 5);
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

static ss_status pt_range(const pt_file *f, int i, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    ss_status st = pt_int(f, i, what, out);
    if (st == SS_OK && (*out < lo || *out > hi))
        return ss_fail(SS_EDATA, "%s:%ld: %s is %lld, expected %lld to %lld", f->path, f->line, what, (long long)*out,
                       (long long)lo, (long long)hi);
    return st;
}

ss_status pt_time(const pt_file *f, int i, const char *what, int64_t *out)
{
    return pt_range(f, i, what, 0, PT_TIME_MAX, out);
}

ss_status pt_long(const pt_file *f, int i, const char *what, long lo, long hi, long *out)
{
    int64_t v = 0;
    ss_status st = pt_range(f, i, what, lo, hi, &v);
    if (st == SS_OK) *out = (long)v;
    return st;
}

/* Checks the first line of a record file. */
ss_status pt_header(pt_file *f)
{
    if (!fgets(f->buf, sizeof f->buf, f->f)) {
        if (ferror(f->f)) return ss_fail(SS_EIO, "%s:1: read error", f->path);
        return ss_fail(SS_EDATA, "%s:1: empty file (expected the line 'stallsim-record,5')", f->path);
    }
    f->line = 1;
    size_t n = strlen(f->buf);
    while (n && (f->buf[n - 1] == '\n' || f->buf[n - 1] == '\r')) f->buf[--n] = '\0';
    if (strncmp(f->buf, "stallsim-record,", 16))
        return ss_fail(SS_EDATA, "%s:1: not a stallsim PyTorch record (expected 'stallsim-record,5')", f->path);
    if (strcmp(f->buf + 16, "1") && strcmp(f->buf + 16, "2") && strcmp(f->buf + 16, "3") && strcmp(f->buf + 16, "4") &&
        strcmp(f->buf + 16, "5"))
        return ss_fail(SS_EDATA, "%s:1: record format version '%.20s'; this stallsim reads versions 1 to 5", f->path,
                       f->buf + 16);
    f->version = f->buf[16] - '0';
    return SS_OK;
}

/* Reads a rank file's meta lines and its first epoch line (pushed back). */
/* 1 when rank R's recording process, by its meta host and pid, still runs here: a Python
 * process of that pid on a host of that name (the pid alone may have been given again). */
static int pt_still_running(const pt_rank *R)
{
    char host[256] = "", path[64], cmd[256];
    if (R->pid <= 0 || !R->host[0] || gethostname(host, sizeof host - 1) != 0 || strcmp(host, R->host)) return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", R->pid);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    const size_t n = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++) cmd[i] = cmd[i] ? cmd[i] : ' ';
    cmd[n] = '\0';
    return strstr(cmd, "python") != NULL;
}

ss_status pt_rank_header(pt_rank *R)
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
        else if (!strcmp(key, "pid")) st = pt_long(f, 2, "meta pid", 1, LONG_MAX, &R->pid);
        else if (!strcmp(key, "torch")) snprintf(R->torch, sizeof R->torch, "%s", f->field[2]);
        else if (!strcmp(key, "cpus")) st = pt_long(f, 2, "meta cpus", 1, 1L << 20, &R->cpus);
        else if (!strcmp(key, "batches_per_epoch"))
            st = pt_long(f, 2, "meta batches_per_epoch", -1, LONG_MAX, &R->per_epoch); /* -1: no len(loader) */
        else if (!strcmp(key, "cpu_set")) snprintf(R->cpu_set, sizeof R->cpu_set, "%s", f->field[2]);
        else if (!strcmp(key, "persistent_workers")) st = pt_long(f, 2, "meta persistent_workers", 0, 1, &R->persistent);
        else if (!strcmp(key, "start_method")) {
            const char *v = f->field[2];
            if (strcmp(v, "fork") && strcmp(v, "spawn") && strcmp(v, "forkserver"))
                st = ss_fail(SS_EDATA, "%s:%ld: meta start_method is '%.40s', expected fork, spawn or forkserver",
                             f->path, f->line, v);
            else snprintf(R->start_method, sizeof R->start_method, "%s", v);
        }
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
    R->running = pt_still_running(R);
    if (R->running)
        ss_warn("%s: rank %d's process (pid %ld) still runs on this host: the job has not ended, so its record is "
                "not whole yet (the last batches and the workers' shutdown are written as it ends); import it once "
                "the job has ended", f->path, R->rank, R->pid);
    /* the first epoch record: its time is the rank's earliest */
    pt_kind k;
    if ((st = pt_read(f, &k)) != SS_OK) return st;
    if ((st = pt_time(f, 3, "the epoch's start time", &R->first_epoch_ns)) != SS_OK) return st;
    f->pushed = 1;
    R->pass = -1;
    R->stop_ns = -1;
    return SS_OK;
}

/* Moves fetch source s's head to its next fetch record (or EOF). */
ss_status pt_fetch_advance(pt_fetch *s)
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
        if (s->seen && !pt_key_less(p0, k0, s->p, s->k))
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

/* Fields i and i + 1 of a batch or end record: the training process's CPU time in ns
 * (format 2) and its loop thread's wait for a core (format 3; -1 where the recorder could
 * not read it), or -1. */
ss_status pt_loop_cpu(const pt_file *f, int i, int64_t *out, int64_t *wait)
{
    *out = *wait = -1;
    ss_status st = f->version >= 2 ? pt_range(f, i, "the process's CPU time", 0, PT_TIME_MAX, out) : SS_OK;
    if (st == SS_OK && f->version >= 3) st = pt_range(f, i + 1, "the loop's wait for a core", -1, PT_TIME_MAX, wait);
    return st;
}
