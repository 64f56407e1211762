/* ss_import_dftracer.c - the DFTracer importer: DLIO benchmark traces (.pfw JSON lines, one
 * file per rank, plain or gzip), read rank by rank in step with one another, one step of
 * look-ahead per rank: memory does not grow with the trace. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ss_gzline.h"
#include "ss_impfiles.h"
#include "ss_import.h"
#include "ss_jsonev.h"

#define MAX_READS (1L << 20) /* read events kept until their step's loop.iter (16 MB) */
#define MAX_OTHER_ITERS 4    /* names of other loops' *.iter events kept for a message */
#define MAX_LOOP_NAME 200    /* --iter NAME */
#define SHARE_STEPS 65536    /* under mpirun: steps on their way to rank 0, over all files */

/* the training loop's event names: the wait (ts = the ask, dur = the stall) and its body */
typedef struct {
    char wait[MAX_LOOP_NAME + 8], body[MAX_LOOP_NAME + 8]; /* --iter NAME: NAME.iter, NAME.yield */
    int named;                                               /* 0: loop.iter, fetch.iter and theirs */
} loopnames;

/* a read event waiting for its step's loop.iter (µs) */
typedef struct {
    long long pid, tid, step;
    double t0, t1;
    int has_step;
} rread;

/* one finished step of one rank */
typedef struct {
    long long epoch, step;
    double ask, stall, iter, fstart, ftime; /* µs, ask absolute */
    int has_reads;
    long line; /* of its loop.iter */
} dstep;

typedef struct dft_state dft_state;

/* a step as the rank that reads its file hands it to rank 0, with the line the file was at
 * and whether the file's end warnings come with it (the read that gave it reached the end) */
typedef struct {
    dstep s;
    long at_line;
    int warn;
} sstep;

typedef struct {
    const char *path;
    const loopnames *loop;
    dft_state *d;
    ss_gzline *r;
    ss_jsonev *j;
    int eof;
    long line; /* current line */
    /* the loop.iter waiting for its loop.yield and the next loop.iter */
    int open;
    dstep cur;
    double cur_yield_end;
    int cur_has_yield;
    long long epoch_ordinal;
    /* finished steps (at most one per event) */
    dstep ready[4];
    int nready;
    rread *reads;
    long nreads, capreads;
    double first_ts;
    int has_first;
    long read_threads, epochs, batch;
    char workload[64];
    long nsteps, nreads_missing;
    long long loop_pid; /* the process of its loop.iter events (-1: none seen yet) */
    long loop_pid_line;
    long long events;   /* events read (metadata included) */
    char other_iter[MAX_OTHER_ITERS][64]; /* other *.iter event names (a loop of its own name) */
    int nother_iter;
    long nbroken, first_broken; /* lines passed over: not valid JSON and no loop event */
    long last_broken;           /* the last of them, and whether it was cut short */
    int last_broken_cut;
    double span0, span1;        /* its steps' time span (µs): the first ask to the last end */
    /* evaluation passes: steps that start again from a lower step inside the same epoch
     * (DLIO's eval loop runs through the same iterator): left out of the timeline, counted */
    int in_eval;
    long eval_passes, eval_steps;
    double eval_stall; /* µs, the waits of their steps summed */
    long long eval_epoch_lo, eval_epoch_hi;
    /* under mpirun, on rank 0: another rank reads the file (remote), and its steps wait in
     * q; qend: its end came (1: the file's end, 2: an error, qstatus and qmsg; 3: handed out);
     * the warnings of its end (qwarn, NUL-separated), printed with the step or the end that
     * they came with, as reading it here would */
    int remote;
    sstep *q;
    long qhead, qn;
    int qend, qstatus;
    char *qmsg, *qwarn;
    long qwarn_n;
    /* on the rank that reads it for rank 0: the warnings of its end, kept to be sent */
    int capture;
    char *warns;
    long nwarns;
} drank;

struct dft_state {
    ss_filelist files;
    loopnames loop;
    drank *rk;
    int G;
    int *workers;
    double origin_us;
    int have_origin;
    long rows;
    long long last_epoch; /* of the last row every rank has */
    long missing;
    long steps_with_reads;
    /* under mpirun: the exchange with the ranks that read the other files */
    const ss_comm *share;
    int pending; /* rank 0 asked for chunks it has not gathered yet */
    long chunk;  /* steps per file and chunk */
};

static int is_loop_wait(const loopnames *l, const char *n)
{
    if (l->named) return !strcmp(n, l->wait);
    return !strcmp(n, "loop.iter") || !strcmp(n, "fetch.iter");
}
static int is_loop_body(const loopnames *l, const char *n)
{
    if (l->named) return !strcmp(n, l->body);
    return !strcmp(n, "loop.yield") || !strcmp(n, "fetch.yield") || !strcmp(n, "fetch.block");
}
/* the loop's wait events, for messages: "loop.iter or fetch.iter", or "NAME.iter" */
static const char *wait_names(const loopnames *l) { return l->named ? l->wait : "loop.iter or fetch.iter"; }
static const char *body_names(const loopnames *l) { return l->named ? l->body : "loop.yield/fetch.block"; }

/* The loop event a line that is not valid JSON names as a string ("loop.iter"), or NULL. */
static const char *loop_event_in(const loopnames *l, const char *line)
{
    static const char *const fixed[] = {"loop.iter", "fetch.iter", "loop.yield", "fetch.yield", "fetch.block"};
    const char *named[] = {l->wait, l->body};
    const char *const *names = l->named ? named : fixed;
    const int n = l->named ? 2 : 5;
    for (int i = 0; i < n; i++) {
        const size_t len = strlen(names[i]);
        for (const char *p = strstr(line, names[i]); p; p = strstr(p + 1, names[i]))
            if (p > line && p[-1] == '"' && p[len] == '"') return names[i];
    }
    return NULL;
}

/* A warning about rank k's file: printed, or kept to be sent to rank 0 (capture). */
static void dwarn(drank *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dwarn(drank *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *w = n >= 0 ? realloc(k->warns, (size_t)k->nwarns + (size_t)n + 1) : NULL;
    if (!w) {
        va_start(ap, fmt);
        char buf[1024];
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        ss_warn("%s", buf); /* cannot be kept: printed here */
        return;
    }
    k->warns = w;
    va_start(ap, fmt);
    vsnprintf(w + k->nwarns, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (!k->capture) {
        ss_warn("%s", w + k->nwarns);
        return;
    }
    k->nwarns += n + 1;
}

/* A step of an evaluation pass (first: its first step): counted, and its wait summed. */
static ss_status eval_step(drank *k, const ss_jev *e, int first)
{
    if (first) {
        if (!k->eval_passes) k->eval_epoch_lo = e->epoch;
        k->eval_passes++;
        k->eval_epoch_hi = e->epoch;
        k->in_eval = 1;
    } else if (e->step <= k->cur.step) { /* another pass in the same epoch */
        k->eval_passes++;
    }
    k->cur.step = e->step;
    k->eval_steps++;
    k->eval_stall += e->dur;
    return SS_OK;
}

/* Keeps the name of another loop's wait event (NAME.iter, as dft_fn.iter(..., name=NAME)
 * writes), for the message when the file has no step. */
static void note_other_iter(drank *k, const char *n)
{
    const size_t l = strlen(n);
    if (l <= 5 || l >= sizeof k->other_iter[0] || strcmp(n + l - 5, ".iter") || k->nother_iter == MAX_OTHER_ITERS)
        return;
    for (int i = 0; i < k->nother_iter; i++)
        if (!strcmp(k->other_iter[i], n)) return;
    memcpy(k->other_iter[k->nother_iter++], n, l + 1);
}
static int is_read(const char *n)
{
    size_t l = strlen(n);
    return (l > 12 && !strcmp(n + l - 12, ".__getitem__")) || (l > 11 && !strcmp(n + l - 11, ".read_index")) ||
           !strcmp(n, "item");
}

static ss_status finish_open(drank *k, int epoch_ends, double next_ask)
{
    dstep s = k->cur;
    if (!epoch_ends) {
        s.iter = next_ask - s.ask;
    } else {
        if (!k->cur_has_yield)
            return ss_fail(SS_EDATA, "%s:%ld: the last step (%lld) of epoch %lld has no %s event: its end is unknown",
                           k->path, s.line, s.step, s.epoch, body_names(k->loop));
        s.iter = k->cur_yield_end - s.ask;
    }
    if (s.iter < s.stall)
        return ss_fail(SS_EDATA, "%s:%ld: step %lld of epoch %lld: the next step begins %.0f µs after this one asked for its batch, before the wait (%.0f µs) ended",
                       k->path, s.line, s.step, s.epoch, s.iter, s.stall);
    k->ready[k->nready++] = s;
    k->open = 0;
    return SS_OK;
}

static ss_status on_event(void *user, const ss_jev *e)
{
    drank *k = user;
    k->events++;
    if (e->has_ts && (!k->has_first || e->ts < k->first_ts)) {
        k->first_ts = e->ts;
        k->has_first = 1;
    }
    if (e->ph[0] == 'M') {
        long v;
        if ((v = ss_cmdline_long(e->argname, "read_threads=")) >= 0) k->read_threads = v;
        if ((v = ss_cmdline_long(e->argname, "train.epochs=")) >= 0) k->epochs = v;
        if ((v = ss_cmdline_long(e->argname, "reader.batch_size=")) >= 0) k->batch = v;
        const char *w = strstr(e->argname, "workload=");
        if (w && (w == e->argname || w[-1] == ';' || w[-1] == ' ')) {
            size_t n = strcspn(w + 9, "; ");
            if (n >= sizeof k->workload) n = sizeof k->workload - 1;
            memcpy(k->workload, w + 9, n);
            k->workload[n] = '\0';
        }
        return SS_OK;
    }
    if (e->has_dur && e->dur < 0)
        return ss_fail(SS_EDATA, "%s:%ld: event '%s' has a negative dur (%g)", k->path, k->line, e->name, e->dur);
    if (is_read(e->name) && e->has_ts && e->has_dur) {
        if (k->nreads == k->capreads) {
            if (k->capreads == MAX_READS)
                return ss_fail(SS_EDATA, "%s:%ld: more than %ld read events without their loop.iter (is this a DLIO trace with loop.iter/fetch.iter events?)",
                               k->path, k->line, MAX_READS);
            long nc = k->capreads ? k->capreads * 2 : 1024;
            rread *nr = realloc(k->reads, (size_t)nc * sizeof *nr);
            if (!nr) return ss_fail(SS_ENOMEM, "%s:%ld: out of memory", k->path, k->line);
            k->reads = nr;
            k->capreads = nc;
        }
        k->reads[k->nreads++] = (rread){e->has_pid ? e->pid : -1, e->has_tid ? e->tid : -1, e->step, e->ts,
                                        e->ts + e->dur, e->has_step};
        return SS_OK;
    }
    if (is_loop_body(k->loop, e->name)) {
        /* the body that follows the open wait (DLIO gives both the same args.step) */
        if (k->open && e->has_ts && e->has_dur && e->ts >= k->cur.ask) {
            k->cur_yield_end = e->ts + e->dur;
            k->cur_has_yield = 1;
        }
        return SS_OK;
    }
    if (!is_loop_wait(k->loop, e->name)) {
        note_other_iter(k, e->name);
        return SS_OK;
    }
    if (!e->has_ts || !e->has_dur || !e->has_step)
        return ss_fail(SS_EDATA, "%s:%ld: %s event without a numeric ts, dur or args.step", k->path, k->line, e->name);
    if (e->has_pid) { /* one training loop per file: a merged file holds several ranks' */
        if (k->loop_pid < 0) {
            k->loop_pid = e->pid;
            k->loop_pid_line = k->line;
        } else if (e->pid != k->loop_pid) {
            return ss_fail(SS_EDATA, "%s:%ld: %s of process %lld, but line %ld has one of process %lld: the file holds "
                           "the training loops of several ranks (a merged trace?); give one file per rank, as DFTracer "
                           "writes them (trace-R-of-N.pfw)", k->path, k->line, e->name, e->pid, k->loop_pid_line,
                           k->loop_pid);
        }
    }
    int new_epoch = k->open ? e->step <= k->cur.step : 1;
    long long epoch = e->has_epoch ? e->epoch : (new_epoch ? k->epoch_ordinal + 1 : k->epoch_ordinal);
    /* steps that start again inside the epoch they belong to (its args.epoch): an
     * evaluation pass, which ends where the epoch changes */
    if (e->has_epoch && k->in_eval && epoch == k->epoch_ordinal) return eval_step(k, e, 0);
    if (e->has_epoch && k->open && e->step <= k->cur.step && epoch == k->cur.epoch) {
        ss_status st = finish_open(k, 1, e->ts); /* the training pass ends here */
        if (st != SS_OK) return st;
        k->open = 0;
        return eval_step(k, e, 1);
    }
    k->in_eval = 0;
    if (k->open) {
        if (e->has_epoch) new_epoch = epoch != k->cur.epoch;
        if (!new_epoch && e->step <= k->cur.step)
            return ss_fail(SS_EDATA, "%s:%ld: step %lld of epoch %lld follows step %lld (line %ld): steps must grow within an epoch",
                           k->path, k->line, e->step, epoch, k->cur.step, k->cur.line);
        if (e->ts < k->cur.ask)
            return ss_fail(SS_EDATA, "%s:%ld: %s of step %lld starts before the one of step %lld (line %ld)", k->path,
                           k->line, e->name, e->step, k->cur.step, k->cur.line);
        ss_status st = finish_open(k, new_epoch, e->ts);
        if (st != SS_OK) return st;
    }
    if (new_epoch) k->epoch_ordinal = e->has_epoch ? e->epoch : k->epoch_ordinal + 1;
    dstep *s = &k->cur;
    memset(s, 0, sizeof *s);
    s->epoch = epoch;
    s->step = e->step;
    s->ask = e->ts;
    s->stall = e->dur;
    s->line = k->line;
    /* The batch's reads: those of the loop's own thread inside the wait (read_threads = 0),
     * else those of other threads (loader workers) with the same args.step. Reads of the
     * loop's thread are dropped here; other threads' ones when they are used, or at a new
     * epoch when they began before its first ask (the epoch's last batch has no loop.iter
     * in DLIO traces, its reads are never used). */
    long long pid = e->has_pid ? e->pid : -1, tid = e->has_tid ? e->tid : -1;
    double end = e->ts + e->dur, t0 = 0, t1 = 0;
    int n = 0;
    long w = 0;
    if (new_epoch) {
        for (long i = 0; i < k->nreads; i++)
            if (k->reads[i].t0 >= e->ts) k->reads[w++] = k->reads[i];
        k->nreads = w;
    }
    for (long i = 0; i < k->nreads; i++) {
        const rread *x = &k->reads[i];
        if (x->pid != pid || x->tid != tid || x->t0 < e->ts || x->t1 > end) continue;
        if (!n || x->t0 < t0) t0 = x->t0;
        if (!n || x->t1 > t1) t1 = x->t1;
        n++;
    }
    for (long i = 0; !n && i < k->nreads; i++) {
        const rread *x = &k->reads[i];
        if ((x->pid == pid && x->tid == tid) || !x->has_step || x->step != e->step || x->t0 > end) continue;
        if (!n || x->t0 < t0) t0 = x->t0;
        if (!n || x->t1 > t1) t1 = x->t1;
        n++;
    }
    w = 0;
    for (long i = 0; i < k->nreads; i++) {
        const rread *x = &k->reads[i];
        int drop = (x->pid == pid && x->tid == tid) || (x->has_step && x->step == e->step && x->t0 <= end);
        if (!drop) k->reads[w++] = *x;
    }
    k->nreads = w;
    if (n) {
        s->fstart = t0;
        s->ftime = t1 - t0;
        s->has_reads = 1;
    }
    k->open = 1;
    k->cur_has_yield = 0;
    k->nsteps++;
    return SS_OK;
}

/* A line of the loop's own events that is not valid JSON (its message recorded), at line
 * `at`: refused, naming the line as "line N of M" (the rest of the file is counted; more:
 * a line was read past it; readable: the file could be read past it). */
static ss_status broken_loop_event(drank *k, const char *loop, long at, int more, int readable)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "%s", ss_errmsg());
    ss_clear();
    long total = at + (more ? 1 : 0);
    int counted = readable;
    for (char *l = NULL; more;) {
        size_t n;
        if (ss_gzline_next(k->r, &l, &n) != SS_OK) {
            ss_clear();
            counted = 0;
            break;
        }
        if (!l) break;
        total = ss_gzline_lineno(k->r);
    }
    return ss_fail(SS_EDATA, "%s: line %ld of %s%ld holds a %s event: a step of the training loop is lost; mend or "
                   "remove the line", msg, at, counted ? "" : "at least ", total, loop);
}

/* The warnings at the end of a rank's file (last: its last line): the lines it passed
 * over, and its evaluation passes. */
static void warn_broken(drank *k, long last)
{
    if (k->eval_passes) {
        char ep[64];
        if (k->eval_epoch_lo == k->eval_epoch_hi) snprintf(ep, sizeof ep, "epoch %lld", k->eval_epoch_lo);
        else snprintf(ep, sizeof ep, "epochs %lld to %lld", k->eval_epoch_lo, k->eval_epoch_hi);
        dwarn(k, "%s: %ld evaluation pass%s (steps starting again inside %s, as DLIO's eval loop does): %ld steps left "
                "out of the timeline, not counted as epochs; their waits add up to %.3f s", k->path, k->eval_passes,
                k->eval_passes == 1 ? "" : "es", ep, k->eval_steps, 1e-6 * k->eval_stall);
    }
    long n = k->nbroken;
    if (!k->events) return; /* no JSON at all: not a DFTracer trace, which the error says */
    if (n && k->last_broken == last && k->last_broken_cut) {
        dwarn(k, "%s:%ld: the last line is cut short (the job was killed while writing it?): passed over", k->path,
              last);
        n--;
    }
    if (n)
        dwarn(k, "%s: %ld %s not valid JSON and %s no loop event: passed over (the first: line %ld; DFTracer writes "
                "file names raw, and a name with a line break in it breaks its event in two)", k->path, n,
                n == 1 ? "line is" : "lines are", n == 1 ? "names" : "name", k->first_broken);
}

static ss_status pull_remote(drank *k, dstep *out, int *got);
extern const ss_importer ss_importer_dftracer;

/* Parses rank k's lines until one step is finished or the file ends. */
static ss_status pull(drank *k, dstep *out, int *got)
{
    if (k->remote) return pull_remote(k, out, got);
    *got = 0;
    while (!k->nready && !k->eof) {
        char *line;
        size_t len;
        ss_status st = ss_gzline_next(k->r, &line, &len);
        if (st != SS_OK && ss_gzline_truncated(k->r)) {
            /* a .pfw.gz cut off (the job killed while writing it): what is there, as for a
             * .pfw whose last line is cut short */
            ss_clear();
            dwarn(k, "%s: the compressed file is cut off after line %ld (the job was killed while writing it?): the "
                    "lines before are read", k->path, ss_gzline_lineno(k->r) - 1);
            line = NULL;
        } else if (st != SS_OK) {
            return st;
        }
        if (!line) {
            k->eof = 1;
            warn_broken(k, ss_gzline_lineno(k->r));
            if (k->open) {
                k->line = ss_gzline_lineno(k->r);
                if ((st = finish_open(k, 1, 0.0)) != SS_OK) return st;
            }
            break;
        }
        k->line = ss_gzline_lineno(k->r);
        size_t a = 0;
        while (a < len && (line[a] == ' ' || line[a] == '\t')) a++;
        /* the file may open with '[' (and close with ']'), lines carry no commas */
        if (a < len && line[a] == '[' && k->line == 1) a++;
        while (a < len && (line[a] == ' ' || line[a] == '\t')) a++;
        if (a == len || (line[a] == ']' && len - a == 1)) continue;
        /* a last line cut short (a job killed mid-write: no closing brace) is passed over */
        size_t e = len;
        while (e > a && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == ',')) e--;
        const int cut = e > a && line[e - 1] != '}';
        if ((st = ss_jsonev_line(k->j, line + a, len - a, k->line)) != SS_OK) {
            if (!ss_jsonev_line_broken(k->j)) return st;
            const char *loop = loop_event_in(k->loop, line + a);
            if (!loop) {
                /* not a loop event (a file name with a line break in it breaks an open event
                 * in two): passed over, counted */
                ss_clear();
                if (!k->nbroken++) k->first_broken = k->line;
                k->last_broken = k->line;
                k->last_broken_cut = cut;
                continue;
            }
            /* the loop's own event: its step is lost, unless the line is the last, cut short */
            char *next;
            size_t nlen;
            const long at = k->line;
            ss_status nst = ss_gzline_next(k->r, &next, &nlen);
            if (cut && nst == SS_OK && !next) {
                ss_clear();
                warn_broken(k, at);
                dwarn(k, "%s:%ld: the last line is cut short (the job was killed while writing it?): passed over",
                      k->path, at);
                k->eof = 1;
                if (k->open && (st = finish_open(k, 1, 0.0)) != SS_OK) return st;
                break;
            }
            return broken_loop_event(k, loop, at, nst == SS_OK && next, nst == SS_OK);
        }
    }
    if (k->nready) {
        *out = k->ready[0];
        memmove(k->ready, k->ready + 1, (size_t)(k->nready - 1) * sizeof *k->ready);
        k->nready--;
        *got = 1;
    }
    return SS_OK;
}


/* ---- under mpirun: the files split over the ranks ----
 * Rank 0 reads the first files, the other ranks the rest (contiguous shares of about the
 * same bytes), each in chunks of d->chunk steps per file. Rank 0 merges the steps as it
 * does alone: a file's steps, its end, its end's warnings and its error come in the order
 * its own reading would give them, so the trace and the messages are the same. Rank 0 asks
 * for the next chunks (a broadcast of the files it wants) as soon as it has gathered the
 * last ones: the others read while it merges. Each round is a broadcast and a gather, on
 * every rank, until rank 0 broadcasts the end (errors included). */

/* what rank 0 sends the other ranks */
typedef struct {
    int32_t G, named;
    long chunk;
    char wait[MAX_LOOP_NAME + 8], body[MAX_LOOP_NAME + 8];
} sopen;

/* one file's part of a chunk: then nsteps sstep, warn_bytes of warnings (the file's end's,
 * read in this chunk), msg_bytes of message */
typedef struct {
    int32_t g, nsteps, end, status; /* end: 0 more to come, 1 the file's end, 2 an error */
    long warn_bytes, msg_bytes, line;
    long nsteps_total, read_threads, epochs, batch;
    long long events;
    int32_t nother_iter;
    char other_iter[MAX_OTHER_ITERS][64];
    char workload[64];
} shead;

/* Rank 0 asks for the next chunk of every remote file whose queue is short (none: nothing). */
static void share_want(dft_state *d)
{
    int32_t *cmd = calloc((size_t)d->G + 1, sizeof *cmd);
    int any = 0;
    for (int g = 0; cmd && g < d->G; g++) {
        const drank *k = &d->rk[g];
        cmd[g + 1] = k->remote && !k->qend && k->qn <= d->chunk; /* room for a chunk more */
        any |= cmd[g + 1];
    }
    if (!cmd || !any) { /* no memory: the chunks are asked for when a queue is empty */
        free(cmd);
        return;
    }
    cmd[0] = 1;
    MPI_Bcast(cmd, d->G + 1, MPI_INT32_T, 0, d->share->comm);
    d->pending = 1;
    free(cmd);
}

/* Rank 0 gathers the chunks it asked for into the files' queues, and asks for the next. */
static ss_status share_round(dft_state *d)
{
    if (!d->pending) share_want(d);
    if (!d->pending) return ss_fail(SS_ENOMEM, "out of memory");
    void *all;
    int *cnt, *dsp;
    ss_status st = ss_comm_gather_bytes(d->share, NULL, 0, &all, &cnt, &dsp);
    d->pending = 0;
    if (st != SS_OK) return st;
    const char *p = all, *end = p + dsp[d->share->size - 1] + cnt[d->share->size - 1];
    while (st == SS_OK && p < end) {
        shead h;
        if ((size_t)(end - p) < sizeof h) {
            st = ss_fail(SS_EINTERNAL, "import dftracer: a chunk from another rank is cut short");
            break;
        }
        memcpy(&h, p, sizeof h);
        p += sizeof h;
        const long body = (long)h.nsteps * (long)sizeof(sstep) + h.warn_bytes + h.msg_bytes;
        if (h.g < 0 || h.g >= d->G || !d->rk[h.g].remote || h.nsteps < 0 || h.warn_bytes < 0 || h.msg_bytes < 0 ||
            body > end - p) {
            st = ss_fail(SS_EINTERNAL, "import dftracer: a chunk from another rank does not fit");
            break;
        }
        drank *k = &d->rk[h.g];
        if (k->qhead + k->qn + h.nsteps > 2 * d->chunk) { /* room at the queue's start */
            memmove(k->q, k->q + k->qhead, (size_t)k->qn * sizeof *k->q);
            k->qhead = 0;
        }
        if (k->qn + h.nsteps > 2 * d->chunk) {
            st = ss_fail(SS_EINTERNAL, "import dftracer: more steps from another rank than asked for");
            break;
        }
        memcpy(k->q + k->qhead + k->qn, p, (size_t)h.nsteps * sizeof(sstep));
        k->qn += h.nsteps;
        p += (size_t)h.nsteps * sizeof(sstep);
        if (h.warn_bytes) {
            char *w = realloc(k->qwarn, (size_t)(k->qwarn_n + h.warn_bytes));
            if (!w) {
                st = ss_fail(SS_ENOMEM, "out of memory");
                break;
            }
            k->qwarn = w;
            memcpy(w + k->qwarn_n, p, (size_t)h.warn_bytes);
            k->qwarn_n += h.warn_bytes;
        }
        if (h.end) {
            k->qend = h.end;
            k->qstatus = h.status;
            k->qmsg = malloc((size_t)h.msg_bytes + 1);
            if (!k->qmsg) {
                st = ss_fail(SS_ENOMEM, "out of memory");
                break;
            }
            memcpy(k->qmsg, p + h.warn_bytes, (size_t)h.msg_bytes);
            k->qmsg[h.msg_bytes] = '\0';
            /* the file's state at its end: what the messages and the metadata read */
            k->line = h.line;
            k->nsteps = h.nsteps_total;
            k->read_threads = h.read_threads;
            k->epochs = h.epochs;
            k->batch = h.batch;
            k->events = h.events;
            k->nother_iter = h.nother_iter;
            memcpy(k->other_iter, h.other_iter, sizeof k->other_iter);
            memcpy(k->workload, h.workload, sizeof k->workload);
        }
        p += h.warn_bytes + h.msg_bytes;
    }
    free(all);
    free(cnt);
    free(dsp);
    if (st == SS_OK) share_want(d); /* read on while rank 0 merges */
    return st;
}

/* Rank 0: the warnings of a remote file's end, once. */
static void remote_warnings(drank *k)
{
    for (long i = 0; i < k->qwarn_n; i += (long)strlen(k->qwarn + i) + 1) ss_warn("%s", k->qwarn + i);
    k->qwarn_n = 0;
}

/* Rank 0: the next step of a file another rank reads. */
static ss_status pull_remote(drank *k, dstep *out, int *got)
{
    *got = 0;
    while (k->qn == 0 && !k->qend) {
        ss_status st = share_round(k->d);
        if (st != SS_OK) return st;
    }
    if (k->qn) {
        const sstep *x = &k->q[k->qhead++];
        if (!--k->qn) k->qhead = 0;
        if (x->warn) remote_warnings(k);
        *out = x->s;
        k->line = x->at_line;
        *got = 1;
        return SS_OK;
    }
    if (k->qend == 3) return SS_OK;
    remote_warnings(k);
    const int err = k->qend == 2;
    k->qend = 3;
    k->eof = 1;
    if (err) return ss_fail(k->qstatus, "%s", k->qmsg);
    return SS_OK;
}

/* Rank 0: the end of the exchange (the last chunks asked for are gathered and dropped). */
static void share_stop(dft_state *d)
{
    if (!d->share) return;
    if (d->pending) {
        void *all;
        int *cnt, *dsp;
        if (ss_comm_gather_bytes(d->share, NULL, 0, &all, &cnt, &dsp) == SS_OK) {
            free(all);
            free(cnt);
            free(dsp);
        }
        d->pending = 0;
    }
    int32_t *cmd = calloc((size_t)d->G + 1, sizeof *cmd);
    int32_t stop[1] = {0};
    MPI_Bcast(cmd ? cmd : stop, cmd ? d->G + 1 : 1, MPI_INT32_T, 0, d->share->comm);
    free(cmd);
    d->share = NULL;
}

/* Another rank: reads the next chunk of file k into *buf (grown; *n its bytes). */
static ss_status serve_chunk(dft_state *d, drank *k, int g, char **buf, long *n, long *cap)
{
    shead h;
    memset(&h, 0, sizeof h);
    h.g = g;
    const long need = *n + (long)sizeof h + d->chunk * (long)sizeof(sstep);
    if (need > *cap) {
        char *nb = realloc(*buf, (size_t)need);
        if (!nb) return ss_fail(SS_ENOMEM, "rank %d: out of memory", d->share->rank);
        *buf = nb;
        *cap = need;
    }
    const long at = *n, warned = k->nwarns;
    /* the records follow one another at any byte: each step is copied in, never addressed
     * in place */
    char *steps = *buf + at + sizeof h;
    char *msg = NULL;
    while (h.nsteps < d->chunk) {
        dstep x;
        int got;
        ss_clear();
        const long before = k->nwarns;
        ss_status st = k->qend ? SS_OK : pull(k, &x, &got);
        if (k->qend || st != SS_OK) {
            h.end = 2;
            h.status = k->qend ? k->qstatus : (int32_t)st;
            msg = strdup(k->qend ? k->qmsg : ss_errmsg());
            ss_clear();
            break;
        }
        if (!got) {
            h.end = 1;
            break;
        }
        sstep one;
        memset(&one, 0, sizeof one);
        one.s = x;
        one.at_line = k->line;
        one.warn = k->nwarns > before;
        memcpy(steps + (size_t)h.nsteps * sizeof one, &one, sizeof one);
        h.nsteps++;
    }
    h.warn_bytes = k->nwarns - warned;
    if (h.end) {
        h.msg_bytes = msg ? (long)strlen(msg) : 0;
        h.line = k->line;
        h.nsteps_total = k->nsteps;
        h.read_threads = k->read_threads;
        h.epochs = k->epochs;
        h.batch = k->batch;
        h.events = k->events;
        h.nother_iter = k->nother_iter;
        memcpy(h.other_iter, k->other_iter, sizeof h.other_iter);
        memcpy(h.workload, k->workload, sizeof h.workload);
    }
    long total = at + (long)sizeof h + h.nsteps * (long)sizeof(sstep) + h.warn_bytes + h.msg_bytes;
    if (total > *cap) {
        char *nb = realloc(*buf, (size_t)total);
        if (!nb) {
            free(msg);
            return ss_fail(SS_ENOMEM, "rank %d: out of memory", d->share->rank);
        }
        *buf = nb;
        *cap = total;
    }
    memcpy(*buf + at, &h, sizeof h);
    char *tail = *buf + at + sizeof h + h.nsteps * (long)sizeof(sstep);
    if (h.warn_bytes) memcpy(tail, k->warns + warned, (size_t)h.warn_bytes);
    if (h.msg_bytes) memcpy(tail + h.warn_bytes, msg, (size_t)h.msg_bytes);
    free(msg);
    *n = total;
    if (h.end) k->qend = 3; /* sent: nothing more from this file */
    return SS_OK;
}

static void dft_close(void *state);

/* Rank g's reading state, fresh: its file's path and the job it belongs to. */
static drank *drank_init(dft_state *d, int g)
{
    drank *k = &d->rk[g];
    k->path = d->files.path[g];
    k->loop = &d->loop;
    k->d = d;
    k->read_threads = k->epochs = k->batch = -1;
    k->loop_pid = -1;
    return k;
}

/* Another rank: reads its share of the files for rank 0 until rank 0 ends the exchange. */
static void dft_serve(const ss_comm *share, const char *msg, long n)
{
    sopen o;
    dft_state *d = calloc(1, sizeof *d);
    int ok = d && n >= (long)sizeof o;
    if (ok) memcpy(&o, msg, sizeof o);
    ok = ok && o.G > 0 && n >= (long)sizeof o + (long)o.G * (long)sizeof(int32_t);
    int32_t *owner = NULL;
    if (ok) {
        d->G = o.G;
        d->chunk = o.chunk;
        d->share = share;
        d->loop.named = o.named;
        memcpy(d->loop.wait, o.wait, sizeof o.wait);
        memcpy(d->loop.body, o.body, sizeof o.body);
        owner = malloc((size_t)o.G * sizeof *owner);
        d->rk = calloc((size_t)o.G, sizeof *d->rk);
        d->files.path = calloc((size_t)o.G, sizeof *d->files.path);
        ok = owner && d->rk && d->files.path;
    }
    if (ok) {
        memcpy(owner, msg + sizeof o, (size_t)o.G * sizeof *owner);
        const char *p = msg + sizeof o + (size_t)o.G * sizeof *owner, *end = msg + n;
        for (int g = 0; ok && g < o.G; g++) {
            const size_t l = strnlen(p, (size_t)(end - p));
            ok = p + l < end && (d->files.path[g] = strdup(p)) != NULL;
            d->files.n = g + 1;
            p += l + 1;
        }
    }
    for (int g = 0; ok && g < d->G; g++) {
        drank *k = drank_init(d, g);
        k->capture = 1;
        if (owner[g] != share->rank) continue;
        ss_clear();
        ss_status st = ss_gzline_open(k->path, &k->r);
        if (st == SS_OK) st = ss_jsonev_new(1, k->path, on_event, k, &k->j);
        if (st != SS_OK) { /* sent as the file's error when rank 0 asks for its steps */
            k->qend = 2;
            k->qstatus = st;
            k->qmsg = strdup(ss_errmsg());
            if (!k->qmsg) k->qstatus = SS_ENOMEM, k->qmsg = strdup("");
            ss_clear();
        }
    }
    /* rank 0's broadcasts and gathers, met one for one whatever happened here */
    char *buf = NULL;
    long cap = 0;
    int32_t *cmd = malloc((size_t)(d ? d->G : 0) * sizeof *cmd + sizeof *cmd);
    const int ncmd = ok ? d->G + 1 : 1;
    if (!ok || !cmd) {
        fprintf(stderr, "stallsim: rank %d: import dftracer: out of memory, or a bad message from rank 0\n",
                share->rank);
        MPI_Abort(share->comm, 1);
    }
    for (;;) {
        MPI_Bcast(cmd, ncmd, MPI_INT32_T, 0, share->comm);
        if (!cmd[0]) break;
        long len = 0;
        ss_status st = SS_OK;
        for (int g = 0; st == SS_OK && g < d->G; g++)
            if (cmd[g + 1] && owner[g] == share->rank) st = serve_chunk(d, &d->rk[g], g, &buf, &len, &cap);
        if (st != SS_OK) len = 0; /* rank 0 then finds a file without its chunk */
        void *all;
        int *cnt, *dsp;
        ss_clear();
        if (ss_comm_gather_bytes(share, buf, len, &all, &cnt, &dsp) != SS_OK) ss_clear();
    }
    free(cmd);
    free(buf);
    free(owner);
    d->share = NULL;
    dft_close(d);
}

/* Rank 0, at the end of open: when other ranks are there, hands them the files past its
 * share (contiguous shares of about the same bytes; rank 0 keeps at least the first). */
static ss_status share_files(dft_state *d)
{
    const int N = ss_import_share_ranks();
    if (N < 2 || d->G < 2) return SS_OK;
    const int nr = N < d->G ? N : d->G;
    double total = 0, *size = calloc((size_t)d->G, sizeof *size);
    int32_t *owner = calloc((size_t)d->G, sizeof *owner);
    if (!size || !owner) {
        free(size);
        free(owner);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    for (int g = 0; g < d->G; g++) {
        struct stat sb;
        size[g] = stat(d->files.path[g], &sb) == 0 ? (double)sb.st_size + 1 : 1;
        total += size[g];
    }
    double before = 0;
    int remote = 0;
    for (int g = 0; g < d->G; g++) {
        int r = (int)((before + size[g] / 2) * nr / total);
        owner[g] = g == 0 ? 0 : r < nr ? r : nr - 1;
        before += size[g];
        remote |= owner[g] != 0;
    }
    free(size);
    if (!remote) {
        free(owner);
        return SS_OK;
    }
    sopen o;
    memset(&o, 0, sizeof o);
    o.G = d->G;
    o.named = d->loop.named;
    d->chunk = SHARE_STEPS / d->G;
    if (d->chunk > 4096) d->chunk = 4096;
    if (d->chunk < 16) d->chunk = 16;
    o.chunk = d->chunk;
    memcpy(o.wait, d->loop.wait, sizeof o.wait);
    memcpy(o.body, d->loop.body, sizeof o.body);
    long n = (long)sizeof o + (long)d->G * (long)sizeof *owner;
    for (int g = 0; g < d->G; g++) n += (long)strlen(d->files.path[g]) + 1;
    char *msg = malloc((size_t)n);
    for (int g = 0; msg && g < d->G; g++) {
        drank *k = &d->rk[g];
        if (owner[g] == 0) continue;
        k->q = malloc((size_t)(2 * d->chunk) * sizeof *k->q);
        if (!k->q) {
            free(msg);
            msg = NULL;
        }
    }
    if (!msg) { /* rank 0 reads every file itself */
        free(owner);
        return SS_OK;
    }
    memcpy(msg, &o, sizeof o);
    memcpy(msg + sizeof o, owner, (size_t)d->G * sizeof *owner);
    char *p = msg + sizeof o + (size_t)d->G * sizeof *owner;
    for (int g = 0; g < d->G; g++) {
        const size_t l = strlen(d->files.path[g]) + 1;
        memcpy(p, d->files.path[g], l);
        p += l;
    }
    d->share = ss_import_share_start(&ss_importer_dftracer, msg, n);
    free(msg);
    for (int g = 0; d->share && g < d->G; g++) {
        drank *k = &d->rk[g];
        if (owner[g] == 0) continue;
        k->remote = 1; /* rank 0 reads no line of it: its reader is closed */
        ss_gzline_close(k->r);
        ss_jsonev_free(k->j);
        k->r = NULL;
        k->j = NULL;
    }
    free(owner);
    if (d->share) share_want(d); /* the first chunks, read while rank 0 reads its own */
    return SS_OK;
}

static void dft_close(void *state)
{
    dft_state *d = state;
    if (!d) return;
    share_stop(d);
    for (int g = 0; d->rk && g < d->G; g++) {
        ss_gzline_close(d->rk[g].r);
        ss_jsonev_free(d->rk[g].j);
        free(d->rk[g].reads);
        free(d->rk[g].q);
        free(d->rk[g].qmsg);
        free(d->rk[g].qwarn);
        free(d->rk[g].warns);
    }
    free(d->rk);
    free(d->workers);
    ss_filelist_free(&d->files);
    free(d);
}

typedef struct {
    long rank;
    char *path;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Orders the files by the rank in their names ("trace-R-of-N"), or by their names (natural
 * order: "r2" before "r10") when no name has one. */
static ss_status order_by_rank(ss_filelist *l)
{
    int named = 0;
    long n0 = -1;
    ranked *rk = calloc((size_t)l->n, sizeof *rk);
    if (!rk) return ss_fail(SS_ENOMEM, "out of memory");
    for (int i = 0; i < l->n; i++) {
        long r, of;
        rk[i].path = l->path[i];
        rk[i].rank = i;
        if (!ss_rank_from_name(l->path[i], &r, &of)) continue;
        named++;
        rk[i].rank = r;
        if (of > 0 && n0 < 0) n0 = of;
        if (of > 0 && of != n0) {
            free(rk);
            return ss_fail(SS_EDATA, "%s: rank %ld of %ld, but another file is of %ld ranks", l->path[i], r, of, n0);
        }
    }
    if (named && named != l->n) {
        for (int i = 0; i < l->n; i++) {
            long r, of;
            if (!ss_rank_from_name(l->path[i], &r, &of)) {
                ss_status st = ss_fail(SS_EDATA, "%s: no rank in the file name (like trace-R-of-N.pfw), unlike the other files",
                                       l->path[i]);
                free(rk);
                return st;
            }
        }
    }
    if (named) {
        qsort(rk, (size_t)l->n, sizeof *rk, cmp_ranked);
        for (int i = 1; i < l->n; i++)
            if (rk[i].rank == rk[i - 1].rank) {
                ss_status st = ss_fail(SS_EDATA, "%s and %s: both are rank %ld", rk[i - 1].path, rk[i].path, rk[i].rank);
                free(rk);
                return st;
            }
        for (int i = 0; i < l->n; i++) l->path[i] = rk[i].path;
        long *r = malloc((size_t)l->n * sizeof *r);
        if (!r) {
            free(rk);
            return ss_fail(SS_ENOMEM, "out of memory");
        }
        for (int i = 0; i < l->n; i++) r[i] = rk[i].rank;
        ss_check_ranks("dftracer", r, l->n, n0);
        free(r);
        free(rk);
        return SS_OK;
    }
    free(rk);
    ss_filelist_sort(l);
    return SS_OK;
}

static ss_status dft_open(void **state, int argc, char **argv, ss_import_info *info)
{
    static const char *const suffixes[] = {".pfw", ".pfw.gz", NULL};
    dft_state *d = calloc(1, sizeof *d);
    if (!d) return ss_fail(SS_ENOMEM, "out of memory");
    *state = d;
    ss_status st = SS_OK;
    int nfiles = 0;
    const char *first = NULL; /* the first input as given */
    for (int i = 0; i < argc && st == SS_OK; i++) {
        if (!strcmp(argv[i], "--iter") || !strncmp(argv[i], "--iter=", 7)) {
            const char *v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (!v) return ss_fail(SS_EUSAGE, "import dftracer: --iter needs a value (the loop's name: NAME.iter)");
            if (d->loop.named) return ss_fail(SS_EUSAGE, "import dftracer: --iter given twice (one loop is read)");
            const size_t l = strlen(v);
            if (l == 0 || l > MAX_LOOP_NAME || strchr(v, '"'))
                return ss_fail(SS_EUSAGE, "import dftracer: --iter '%s' is not a loop's name (1 to %d characters, "
                               "as in NAME.iter)", v, MAX_LOOP_NAME);
            if (l > 5 && (!strcmp(v + l - 5, ".iter") || (l > 6 && !strcmp(v + l - 6, ".yield"))))
                return ss_fail(SS_EUSAGE, "import dftracer: --iter takes the loop's name without .iter or .yield "
                               "('--iter %.*s')", (int)(l - (v[l - 1] == 'r' ? 5 : 6)), v);
            snprintf(d->loop.wait, sizeof d->loop.wait, "%s.iter", v);
            snprintf(d->loop.body, sizeof d->loop.body, "%s.yield", v);
            d->loop.named = 1;
        } else if ((st = ss_import_no_options("dftracer", 1, &argv[i])) == SS_OK) {
            st = ss_filelist_add(&d->files, argv[i], suffixes);
            if (!nfiles++) first = argv[i];
        }
    }
    if (st == SS_OK && nfiles == 0) return ss_fail(SS_EUSAGE, "import dftracer: no trace files given");
    if (st == SS_OK) st = order_by_rank(&d->files);
    if (st != SS_OK) return st;
    d->G = d->files.n;
    d->rk = calloc((size_t)d->G, sizeof *d->rk);
    d->workers = malloc((size_t)d->G * sizeof *d->workers);
    if (!d->rk || !d->workers) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; g < d->G; g++) {
        drank *k = drank_init(d, g);
        if ((st = ss_gzline_open(k->path, &k->r)) != SS_OK) return st;
        if ((st = ss_jsonev_new(1, k->path, on_event, k, &k->j)) != SS_OK) return st;
    }
    info->meta.gpus = d->G;
    info->meta.iterations = 0;
    snprintf(info->meta.fetch_times, sizeof info->meta.fetch_times, "measured");
    snprintf(info->meta.source, sizeof info->meta.source, "dftracer:%s%s", first, nfiles > 1 ? " ..." : "");
    /* which file each GPU is (a rank whose file is missing, or names without ranks, leave
     * GPU g another rank than g): their names in GPU order, as many as fit */
    char *src = info->meta.source;
    const size_t cap = sizeof info->meta.source;
    size_t l = strlen(src);
    for (int g = 0; g < d->G && l + 16 < cap; g++) {
        const char *slash = strrchr(d->files.path[g], '/'), *name = slash ? slash + 1 : d->files.path[g];
        const size_t need = strlen(name) + 8;
        if (l + need + 8 >= cap) {
            snprintf(src + l, cap - l, ", ...");
            l = strlen(src);
            break;
        }
        snprintf(src + l, cap - l, "%s%s", g ? ", " : " (GPUs: ", name);
        l = strlen(src);
    }
    if (d->G > 0 && l + 2 < cap) snprintf(src + l, cap - l, ")");
    info->inputs = d->files.path;
    info->ninputs = d->files.n;
    return share_files(d);
}

/* Why rank k's file gave no step, into buf: no loop events (naming other loops' *.iter
 * events it has, for --iter), or an empty file. */
static void why_no_steps(const drank *k, char *buf, size_t n)
{
    if (!k->events && k->nbroken) {
        snprintf(buf, n, "no line of it is a JSON event (line %ld is not JSON): not a DFTracer trace (JSON "
                         "lines, or their gzip)", k->first_broken);
        return;
    }
    if (!k->events) {
        snprintf(buf, n, "an empty file");
        return;
    }
    size_t l = (size_t)snprintf(buf, n, "no %s events", wait_names(k->loop));
    if (!k->nother_iter || l >= n) return;
    l += (size_t)snprintf(buf + l, n - l, "; it has ");
    for (int i = 0; i < k->nother_iter && l < n; i++)
        l += (size_t)snprintf(buf + l, n - l, "%s%s", i ? ", " : "", k->other_iter[i]);
    const char *name = k->other_iter[0];
    if (l < n)
        snprintf(buf + l, n - l, " events, of a loop named by the job (dft_fn.iter(..., name=...)): read one with "
                 "--iter %.*s", (int)(strlen(name) - 5), name);
}

/* metadata read from the ranks' command lines (the same on every rank, or unknown) */
static void set_meta(dft_state *d, ss_import_info *info)
{
    ss_trace_meta *m = &info->meta;
    int all_rt = 1;
    for (int g = 0; g < d->G; g++) all_rt &= d->rk[g].read_threads >= 0;
    if (all_rt) {
        for (int g = 0; g < d->G; g++) d->workers[g] = (int)d->rk[g].read_threads;
        m->loader_workers = d->workers;
        m->workers = 0;
        for (int g = 0; g < d->G; g++) m->workers += d->workers[g];
    }
    if (d->rk[0].epochs >= 0) m->epochs = d->rk[0].epochs;
    if (d->rk[0].batch >= 0) m->batch_size = d->rk[0].batch;
    if (d->rk[0].workload[0]) snprintf(m->model, sizeof m->model, "%s", d->rk[0].workload);
    snprintf(m->log_type, sizeof m->log_type, "dlio");
}

/* Where one rank's file has ended and another's goes on: *within stays 1 when every rank's
 * further steps (each file read to its end) lie in the epoch of the last row every rank has
 * or the next, else 0. */
static ss_status rest_within(dft_state *d, int *within)
{
    for (int q = 0; q < d->G && *within; q++)
        for (;;) {
            dstep y;
            int more;
            ss_status st = pull(&d->rk[q], &y, &more);
            if (st != SS_OK) return st;
            if (!more) break;
            if (y.epoch != d->last_epoch && y.epoch != d->last_epoch + 1) {
                *within = 0;
                break;
            }
        }
    return SS_OK;
}

static ss_status dft_next(void *state, ss_slab *s, ss_import_info *info)
{
    dft_state *d = state;
    const int G = d->G;
    ss_status st;
    s->n = 0;
    while (s->n < s->cap) {
        long r = s->n;
        dstep first = {0};
        int got0 = 0;
        for (int g = 0; g < G; g++) {
            dstep x;
            int got;
            if ((st = pull(&d->rk[g], &x, &got)) != SS_OK) return st;
            if (g == 0) got0 = got;
            if (got != got0) {
                const drank *a = &d->rk[got ? 0 : g], *b = &d->rk[got ? g : 0];
                if (a->nsteps == 0) {
                    char why[512];
                    why_no_steps(a, why, sizeof why);
                    return ss_fail(SS_EDATA, "%s holds no steps (%s), but %s has some: give every rank's file", a->path,
                                   why, b->path);
                }
                /* a's file has ended and b's goes on: where every rank's file ends within the epoch
                 * of the last row every rank has or the next (a's may end at an epoch's end), the
                 * job was cut off (killed, out of time), each rank at its own step; the rows every
                 * rank has are kept */
                const long long more_epoch = got ? x.epoch : first.epoch;
                int within = d->rows > 0 && (more_epoch == d->last_epoch || more_epoch == d->last_epoch + 1);
                const long bline = b->line;
                if (within && (st = rest_within(d, &within)) != SS_OK) return st;
                if (within) {
                    ss_warn("%s ends after %ld steps (in epoch %lld), where %s goes on, into that epoch's end or the next "
                            "epoch's and no further: the job was cut off (killed, out of time), each rank at its own "
                            "step; the trace keeps the %ld steps every rank has", a->path, d->rows, d->last_epoch,
                            b->path, d->rows);
                    got0 = 0;
                    break;
                }
                return ss_fail(SS_EDATA, "%s ends after %ld steps, but %s has more (line %ld): the ranks ran different "
                               "steps, or it was cut short", a->path, d->rows, b->path, bline);
            }
            if (!got) continue;
            if (g == 0) first = x;
            else if (x.epoch != first.epoch || x.step != first.step)
                return ss_fail(SS_EDATA, "%s:%ld: step %lld of epoch %lld, but %s:%ld has step %lld of epoch %lld as its step %ld: the ranks ran different steps",
                               d->rk[g].path, x.line, x.step, x.epoch, d->rk[0].path, first.line, first.step,
                               first.epoch, d->rows + 1);
            if (x.epoch < -2147483647LL || x.epoch > 2147483647LL)
                return ss_fail(SS_EDATA, "%s:%ld: epoch %lld out of range", d->rk[g].path, x.line, x.epoch);
            if (!d->have_origin) {
                double lo = x.ask;
                for (int q = 0; q < G; q++)
                    if (d->rk[q].has_first && d->rk[q].first_ts < lo) lo = d->rk[q].first_ts;
                if (ss_origin_from_us(lo, info->meta.time_origin, sizeof info->meta.time_origin, &d->origin_us) != 0)
                    return ss_fail(SS_EDATA, "%s:%ld: timestamp %.0f µs is not a time from 1970 to 2255", d->rk[g].path,
                                   x.line, lo);
                d->have_origin = 1;
            }
            if (!x.has_reads) {
                /* placeholder: the fetch is the wait itself */
                x.fstart = x.ask;
                x.ftime = x.stall;
                d->missing++;
            } else {
                d->steps_with_reads++;
            }
            drank *k = &d->rk[g];
            if (d->rows == 0) k->span0 = x.ask;
            if (d->rows == 0 || x.ask + x.iter > k->span1) k->span1 = x.ask + x.iter;
            size_t at = (size_t)r * G + g;
            s->fetch_start[at] = (x.fstart - d->origin_us) * 1e-6;
            s->fetch_time[at] = x.ftime * 1e-6;
            s->train_start[at] = (x.ask + x.stall - d->origin_us) * 1e-6;
            s->iteration_time[at] = x.iter * 1e-6;
            s->stall_time[at] = x.stall * 1e-6;
        }
        if (!got0) break;
        d->last_epoch = first.epoch;
        s->epoch[r] = (int32_t)first.epoch;
        s->index[r] = first.step;
        s->n++;
        d->rows++;
    }
    if (s->n == 0 && d->rows == 0) { /* no step at all: say of which file, and why */
        const drank *k = &d->rk[0];
        char why[512];
        why_no_steps(k, why, sizeof why);
        return ss_fail(SS_EDATA, "%s%s: %s%s", k->path, G > 1 ? " (and every other file)" : "", why,
                       k->events && !k->nother_iter
                           ? " among its events: the training loop's steps are unknown (a DLIO trace of DLIO 2.0 "
                             "or later, traced by DFTracer, has them; POSIX or other traces do not)"
                           : "");
    }
    if (s->n == 0) {
        /* the end: the ranks' times against one another (files of other runs), metadata and
         * how the fetch columns were filled */
        double *t0 = malloc((size_t)G * sizeof *t0), *t1 = malloc((size_t)G * sizeof *t1);
        if (!t0 || !t1) st = ss_fail(SS_ENOMEM, "out of memory");
        for (int g = 0; t0 && t1 && g < G; g++) {
            t0[g] = d->rk[g].span0;
            t1[g] = d->rk[g].span1;
        }
        if (t0 && t1) st = ss_check_spans("dftracer", d->files.path, t0, t1, G);
        free(t0);
        free(t1);
        if (st != SS_OK) return st;
        set_meta(d, info);
        if (d->rows > 0 && d->steps_with_reads == 0) {
            snprintf(info->meta.fetch_times, sizeof info->meta.fetch_times, "absent");
            ss_warn("%s: no read events (TorchDataset.__getitem__, *.read_index) with args.step: fetch times are absent; fetch columns hold the wait (fetch_start = ask, fetch_time = stall)",
                    d->rk[0].path);
        } else if (d->missing) {
            ss_warn("%s ...: %ld of %ld GPU-steps have no read events; their fetch columns hold the wait (fetch_start = ask, fetch_time = stall)",
                    d->rk[0].path, d->missing, d->rows * G);
        }
    }
    return SS_OK;
}

const ss_importer ss_importer_dftracer = {
    .name = "dftracer",
    .summary = "DFTracer traces of DLIO runs (.pfw/.pfw.gz JSON lines, one file per rank)",
    .usage = "FILE|DIR... [--iter NAME]",
    .help =
        "Reads DFTracer traces of the DLIO benchmark: JSON lines (.pfw, or gzip-compressed\n"
        ".pfw.gz), one file per rank; a folder stands for its *.pfw and *.pfw.gz files. GPU g\n"
        "is the file of rank g (names like trace-R-of-N.pfw), else the g-th file by name\n"
        "(digits by value: r2 before r10); one training process per file (merged files of\n"
        "several ranks are refused); a folder's hidden files are passed over.\n"
        "Per rank and step (events matched by args.step):\n"
        "  loop.iter or fetch.iter   ts = the loop asks for the batch; dur = stall_time\n"
        "  train_start               = ts + dur\n"
        "  iteration_time            = the next step's ask - this ask; for the last step of\n"
        "                              an epoch, the end of its loop.yield/fetch.block - ask\n"
        "  fetch_start, fetch_time   = first start and last end of the batch's reads\n"
        "                              (*.__getitem__, *.read_index, item): those of the\n"
        "                              loop's thread inside the wait (read_threads = 0), else\n"
        "                              those of loader workers with the same args.step\n"
        "  epoch, index              = args.epoch if given, else epochs counted from 1 (a new\n"
        "                              epoch when args.step does not grow); index = args.step\n"
        "  --iter NAME               a loop the job named (dft_fn.iter(..., name=NAME)): its\n"
        "                              NAME.iter and NAME.yield events, in place of the above\n"
        "Every rank must run the same steps, at one time (files whose times are more than a\n"
        "minute apart are of different runs: refused). A step without read events gets\n"
        "fetch_start = ask and fetch_time = stall (warned). read_threads=N on the command line\n"
        "(metadata) sets loader_workers. Lines that are not valid JSON are passed over (warned)\n"
        "unless they hold a loop event; a file cut off (.pfw or .pfw.gz) gives what it has.\n"
        "Rows stream through: memory does not grow with the trace. Under mpirun the files\n"
        "are split over the ranks (rank 0 writes the trace, the same as one process's).\n",
    .open = dft_open,
    .next = dft_next,
    .close = dft_close,
    .serve = dft_serve,
};
