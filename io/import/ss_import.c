/* ss_import.c - the import driver: open the importer's inputs, stream its slabs into the
 * stalltrace writer, commit the file only when every row is written. */
#include "ss_import.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ss_atomic.h"
#include "ss_limits.h"
#include "ss_number.h"

long ss_import_slab_rows(int gpus)
{
    long rows = (long)((32L << 20) / ss_slab_row_bytes(gpus > 0 ? gpus : 1));
    if (rows > 65536) rows = 65536;
    return rows < 1 ? 1 : rows;
}

/* SS_EUSAGE when out_path is one of the inputs (same device and inode) or an existing
 * file that is not a stalltrace. */
static ss_status check_not_input(const ss_import_info *info, const char *out_path)
{
    return ss_atomic_check_output(out_path, (const char *const *)info->inputs, info->ninputs, ss_trace_is_trace,
                                  "stalltrace file");
}

/* s with each control character as '?': a trace's text, shown in a message */
static void shown(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

/* A trace already at out_path is replaced only by an import of the same input (its
 * `source` the same): a recording cannot be made again, and a mistyped -o must not lose it. */
static ss_status check_same_source(const ss_import_info *info, const char *out_path)
{
    char had[sizeof info->meta.source];
    if (ss_trace_source_of(out_path, had, sizeof had) != 0 || !strcmp(had, info->meta.source)) return SS_OK;
    char now[sizeof info->meta.source];
    snprintf(now, sizeof now, "%s", info->meta.source);
    shown(had);
    shown(now);
    return ss_fail(SS_EUSAGE, "%s: a trace of another source is there (%.200s; this import's: %.200s), and an import "
                   "replaces only a trace of the same source: give another -o, or remove that file first",
                   out_path, had, now);
}

static int ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && !strcmp(s + a - b, end);
}

const char *ss_import_looks_like(const char *path, const char **what)
{
    static const struct {
        const char *importer, *what;
    } kinds[] = {{"pytorch", "stallsim_record.py"}, {"dftracer", "DFTracer (DLIO)"}, {"profiler", "PyTorch profiler"}};
    char head[16] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(head, 1, sizeof head - 1, f);
        head[n] = '\0';
        fclose(f);
    }
    int k = -1;
    if (!strncmp(head, "stallsim-record", 15)) k = 0;
    else if (ends_with(path, ".pfw") || ends_with(path, ".pfw.gz")) k = 1;
    else if (ends_with(path, ".json") || ends_with(path, ".json.gz")) k = 2;
    if (k < 0) return NULL;
    if (what) *what = kinds[k].what;
    return kinds[k].importer;
}

/* A data error of one importer on an input that looks like another's: says which */
static ss_status hint_other(const ss_importer *imp, int argc, char **argv, ss_status st)
{
    if (st != SS_EDATA || argc < 1) return st;
    const char *what = NULL, *other = ss_import_looks_like(argv[0], &what);
    if (!other || !strcmp(other, imp->name)) return st;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ss_errmsg());
    ss_clear(); /* the first message recorded wins: this one replaces it, with the hint */
    return ss_fail(st, "%s (%s looks like a %s file: try `stallsim import %s`)", msg, argv[0], what, other);
}

/* Suspicious but possible values, counted over the imported rows (sim/cli/COMMANDS.md,
 * "Warnings"): a fetch that ends more than 1 ms after its step started, a stall longer than
 * the iteration. */
typedef struct {
    long late, long_stall, cells;
    double worst;
} suspicious;

static void count_suspicious(suspicious *c, const ss_slab *s, int with_fetch)
{
    const long n = s->n * (long)s->gpus;
    for (long x = 0; x < n; x++) {
        double over = s->fetch_start[x] + s->fetch_time[x] - s->train_start[x];
        if (with_fetch && over > 1e-3) {
            c->late++;
            c->worst = over > c->worst ? over : c->worst;
        }
        c->long_stall += s->stall_time[x] > s->iteration_time[x];
    }
    c->cells += n;
}

static void warn_suspicious(const suspicious *c, int argc, char **argv)
{
    char what[4200];
    if (argc > 1) snprintf(what, sizeof what, "%s (and %d more)", argv[0], argc - 1);
    else snprintf(what, sizeof what, "%s", argv[0]);
    if (c->late)
        ss_warn("%s: in %ld of %ld GPU-iterations the fetch finished after the training step started "
                "(by up to %.3f s): clocks of the loader and training logs may differ",
                what, c->late, c->cells, c->worst);
    if (c->long_stall)
        ss_warn("%s: in %ld of %ld GPU-iterations the stall is longer than the iteration time", what, c->long_stall,
                c->cells);
}

/* What every command checks when it reads a trace (ss_trace.c), checked as it is written:
 * an import never writes a trace that nothing reads (an iteration index below 0, a time
 * or duration beyond SS_TRACE_MAX_SECONDS, NaN, a negative duration). */
static ss_status check_slab(const ss_importer *imp, const ss_import_info *info, const ss_slab *s)
{
    const char *what = info->ninputs > 0 ? info->inputs[0] : "the input";
    for (long r = 0; r < s->n; r++) {
        if (s->index[r] < 0)
            return ss_fail(SS_EDATA, "%s: %s import: iteration %ld of epoch %d has index %lld: an iteration's index in "
                           "its epoch is 0 or more", what, imp->name, s->row0 + r, (int)s->epoch[r],
                           (long long)s->index[r]);
        for (int g = 0; g < s->gpus; g++) {
            const size_t x = (size_t)r * (size_t)s->gpus + (size_t)g;
            const double t[5] = {s->fetch_start[x], s->fetch_time[x], s->train_start[x], s->iteration_time[x],
                                 s->stall_time[x]};
            static const char *const name[5] = {"fetch_start", "fetch_time", "train_start", "iteration_time",
                                                "stall_time"};
            for (int k = 0; k < 5; k++)
                if (!(fabs(t[k]) <= SS_TRACE_MAX_SECONDS) || ((k & 1) && t[k] < 0))
                    return ss_fail(SS_EDATA, "%s: %s import: iteration %ld (epoch %d, index %lld), GPU %d: %s = %g s, "
                                   "%s", what, imp->name, s->row0 + r, (int)s->epoch[r], (long long)s->index[r], g,
                                   name[k], t[k],
                                   t[k] < 0 && (k & 1) ? "a negative duration"
                                   : k == 0 || k == 2  ? "more than 1e9 s from the trace's time origin (times of "
                                                         "different clocks, or of a clock's start and of 1970?)"
                                                       : "not a duration of a run");
        }
    }
    return SS_OK;
}

ss_status ss_import_run(const ss_importer *imp, int argc, char **argv, const char *out_path, long *rows_out,
                        int *gpus_out, int *fetch_out)
{
    ss_import_info info;
    memset(&info, 0, sizeof info);
    ss_trace_meta_init(&info.meta);
    void *state = NULL;
    ss_trace_writer *w = NULL;
    ss_slab s;
    memset(&s, 0, sizeof s);
    long rows = 0;
    suspicious odd = {0, 0, 0, 0.0};
    ss_status st = imp->open(&state, argc, argv, &info);
    if (st == SS_OK && (info.meta.gpus < 1 || info.meta.gpus > SS_MAX_GPUS))
        st = ss_fail(SS_EDATA, "%s import: %d %s found; expected 1 to %d", imp->name, info.meta.gpus,
                       ss_plural(info.meta.gpus, "GPU", "GPUs"), SS_MAX_GPUS);
    if (st == SS_OK) st = check_not_input(&info, out_path);
    struct stat before;
    const int replaces = st == SS_OK && stat(out_path, &before) == 0 && before.st_size > 0;
    if (replaces) st = check_same_source(&info, out_path);
    if (st == SS_OK) st = ss_slab_alloc(&s, ss_import_slab_rows(info.meta.gpus), info.meta.gpus);
    if (st == SS_OK) st = ss_trace_create(out_path, &info.meta, &w);
    while (st == SS_OK) {
        s.n = 0;
        s.row0 = rows;
        st = imp->next(state, &s, &info);
        if (st != SS_OK || s.n == 0) break;
        st = check_slab(imp, &info, &s);
        if (st == SS_OK) st = ss_trace_append(w, &s);
        count_suspicious(&odd, &s, ss_trace_meta_has_fetch(&info.meta));
        rows += s.n;
    }
    if (st == SS_OK && rows == 0)
        st = ss_fail(SS_EDATA, "%s%s: %s import found no iterations in it", info.ninputs > 0 ? info.inputs[0] : "the input",
                     info.ninputs > 1 ? " (and the other inputs)" : "", imp->name);
    if (st == SS_OK) {
        info.meta.iterations = rows;
        st = ss_trace_finish_with(w, &info.meta);
        if (st == SS_OK && replaces) ss_warn("%s: replaced the trace that was there", out_path);
        if (st == SS_OK && argc > 0) warn_suspicious(&odd, argc, argv);
    } else if (w) {
        ss_trace_abort(w);
    }
    if (rows_out) *rows_out = rows;
    if (gpus_out) *gpus_out = info.meta.gpus;
    if (fetch_out) *fetch_out = ss_trace_meta_has_fetch(&info.meta);
    ss_slab_free(&s);
    if (imp->close) imp->close(state);
    return hint_other(imp, argc, argv, st);
}

/* ---- importers that share their work over the ranks of an mpirun ----
 * Rank 0 runs the command; the others wait on a communicator of their own (a duplicate, so
 * that nothing else is matched against it) for a message: its length (0: the command is
 * over), then the importer's name and what it sends its serve(). */

static ss_comm share;  /* rank 0, while the command runs */
static int share_open; /* ss_import_on_ranks is running on rank 0 */

static void serve_loop(const ss_comm *s)
{
    for (;;) {
        long n = 0;
        MPI_Bcast(&n, 1, MPI_LONG, 0, s->comm);
        if (n <= 0) return;
        char *msg = malloc((size_t)n);
        if (!msg) { /* the message cannot be taken: the job cannot go on */
            fprintf(stderr, "stallsim: rank %d: out of memory for the import's %ld-byte message\n", s->rank, n);
            MPI_Abort(s->comm, 1);
        }
        MPI_Bcast(msg, (int)n, MPI_BYTE, 0, s->comm);
        const size_t name_len = strnlen(msg, (size_t)n);
        const ss_importer *imp = name_len < (size_t)n ? ss_importer_find(msg) : NULL;
        if (!imp || !imp->serve) {
            fprintf(stderr, "stallsim: rank %d: import: no importer shares its work as '%.40s'\n", s->rank, msg);
            MPI_Abort(s->comm, 1);
        }
        imp->serve(s, msg + name_len + 1, n - (long)name_len - 1);
        free(msg);
    }
}

int ss_import_on_ranks(const ss_comm *c, int (*fn)(int, char **), int argc, char **argv)
{
    if (!c->mpi || c->size < 2) return fn(argc, argv);
    ss_comm s = *c;
    if (MPI_Comm_dup(c->comm, &s.comm) != MPI_SUCCESS) {
        fprintf(stderr, "stallsim: import: MPI_Comm_dup failed\n");
        MPI_Abort(c->comm, 1);
    }
    int rc = 0;
    if (c->rank == 0) {
        share = s;
        share_open = 1;
        rc = fn(argc, argv);
        share_open = 0;
        long done = 0;
        MPI_Bcast(&done, 1, MPI_LONG, 0, s.comm);
    } else {
        serve_loop(&s);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, s.comm);
    MPI_Comm_free(&s.comm);
    return rc;
}

const ss_comm *ss_import_share_start(const ss_importer *imp, const void *msg, long n)
{
    if (!share_open || !imp->serve) return NULL;
    const size_t name_len = strlen(imp->name);
    long total = (long)name_len + 1 + n;
    char *buf = malloc((size_t)total);
    if (!buf || total > INT_MAX) {
        free(buf);
        return NULL; /* rank 0 then reads every input itself */
    }
    memcpy(buf, imp->name, name_len + 1);
    if (n) memcpy(buf + name_len + 1, msg, (size_t)n);
    MPI_Bcast(&total, 1, MPI_LONG, 0, share.comm);
    MPI_Bcast(buf, (int)total, MPI_BYTE, 0, share.comm);
    free(buf);
    return &share;
}

int ss_import_share_ranks(void) { return share_open ? share.size : 1; }
