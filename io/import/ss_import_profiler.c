/* ss_import_profiler.c - the PyTorch profiler importer: Kineto / Chrome trace JSON (plain
 * or .gz; the {"traceEvents": [...]} object or the bare list the legacy profiler writes),
 * one file per rank. Each file is parsed with yajl's streaming parser and only its steps
 * and waits are kept (about 40 bytes per step), never its events. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_gzline.h"
#include "ss_impfiles.h"
#include "ss_import.h"
#include "ss_jsonev.h"

#define MAX_WAIT_NAMES 8

typedef struct {
    double ts, dur;
    long long n, seq; /* ProfilerStep#n; event number (waits: n unused) */
} span;

typedef struct {
    char *path;
    long rank, world;
    int is_list;
    int relative; /* its times count from its profiler's start, not from 1970 (below) */
    span *steps, *waits;
    long nsteps, nwaits, capsteps, capwaits;
    long nowait, nowait_first; /* steps without a wait inside them (ask NAN): count, the first */
    int told;                  /* its rank came from distributedInfo, its name or --rank */
    /* per step after matching: the ask (µs) and the wait, both from its first wait on; its
     * outermost waits, and the first one's length and the second one's start (a step that
     * begins an epoch asks at its second wait: prof_next) */
    double *ask, *stall;
    int *nw;
    double *first_dur, *second_ts;
} pfile;

typedef struct {
    ss_filelist files;
    pfile *f; /* by GPU (rank order) */
    int G;
    const char *wait_names[MAX_WAIT_NAMES];
    int nwait_names;
    double origin_us;
    long rows; /* the steps every rank has a wait in */
    long next; /* next step to hand out */
    unsigned char *bound; /* per step: 1 where it begins an epoch after the first (find_epochs) */
    long epoch, epoch_at; /* prof_next: the epoch handed out, and the step that began it */
    long outlast; /* prof_next: waits that outlast their step (past the next ask) */
    long long outlast_step; /* the first such step (ProfilerStep#N) */
    int outlast_rank;
    double outlast_by; /* the first's excess, µs */
} prof_state;

static int is_gpu_side(const ss_jev *e) { return !strncmp(e->cat, "gpu", 3) || !strcmp(e->cat, "kernel"); }

static int step_number(const char *name, long long *n)
{
    static const char pre[] = "ProfilerStep#";
    if (strncmp(name, pre, sizeof pre - 1)) return 0;
    const char *p = name + sizeof pre - 1;
    long long v = 0;
    int k = 0;
    while (p[k] >= '0' && p[k] <= '9' && k < 15) v = v * 10 + (p[k++] - '0');
    if (k == 0 || p[k]) return 0;
    *n = v;
    return 1;
}

typedef struct {
    prof_state *d;
    pfile *f;
} collect_ctx;

static int is_wait(const prof_state *d, const char *name)
{
    if (d->nwait_names) {
        for (int i = 0; i < d->nwait_names; i++)
            if (!strcmp(name, d->wait_names[i])) return 1;
        return 0;
    }
    return (!strncmp(name, "enumerate(DataLoader)", 21) && strstr(name, "__next__")) || !strcmp(name, "## data_load ##");
}

static ss_status push_span(span **a, long *n, long *cap, span s, const char *path)
{
    if (*n == *cap) {
        long nc = *cap ? *cap * 2 : 256;
        span *na = realloc(*a, (size_t)nc * sizeof *na);
        if (!na) return ss_fail(SS_ENOMEM, "%s: out of memory", path);
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = s;
    return SS_OK;
}

static ss_status collect(void *user, const ss_jev *e)
{
    collect_ctx *c = user;
    pfile *f = c->f;
    if (strcmp(e->ph, "X") || is_gpu_side(e)) return SS_OK;
    long long n = 0;
    int step = step_number(e->name, &n), wait = !step && is_wait(c->d, e->name);
    if (!step && !wait) return SS_OK;
    if (e->has_ts && isfinite(e->ts) && fabs(e->ts) >= 9.0e15) /* 2255 in µs; today in ns is 1.7e18 */
        return ss_fail(SS_EDATA, "%s: event %lld (%s) has ts %.0f, too large for µs: the file's times look like "
                       "nanoseconds (the profiler's JSON has µs)", f->path, e->seq, e->name, e->ts);
    if (!e->has_ts || !e->has_dur || e->dur < 0 || !(fabs(e->ts) < 9.0e15))
        return ss_fail(SS_EDATA, "%s: event %lld (%s) has no valid ts and dur (µs)", f->path, e->seq, e->name);
    span s = {e->ts, e->dur, step ? n : 0, e->seq};
    if (step) return push_span(&f->steps, &f->nsteps, &f->capsteps, s, f->path);
    return push_span(&f->waits, &f->nwaits, &f->capwaits, s, f->path);
}

static int cmp_n(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts ? 1 : (x->seq > y->seq) - (x->seq < y->seq);
}

/* A schedule without wait and warmup makes PyTorch 1.13 label its first two steps alike
 * (the one from the profiler's start to the first prof.step(), then the next): where only
 * the first number repeats, one after the other, the steps are numbered by their order. */
static void renumber_first_twice(pfile *f)
{
    if (f->nsteps < 2 || f->steps[0].n != f->steps[1].n) return;
    if (f->nsteps > 2 && f->steps[2].n != f->steps[1].n + 1) return;
    if (f->steps[1].ts < f->steps[0].ts + f->steps[0].dur - 1.0) return;
    for (long i = 1; i < f->nsteps; i++) f->steps[i].n++;
    ss_warn("%s: ProfilerStep#%lld appears twice, one after the other (events %lld and %lld), as PyTorch labels the "
            "first steps of a schedule without wait and warmup: the steps are numbered by their order from #%lld",
            f->path, f->steps[0].n, f->steps[0].seq, f->steps[1].seq, f->steps[0].n);
}
static int cmp_ts(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts ? 1 : (x->seq > y->seq) - (x->seq < y->seq);
}

static ss_status read_file(prof_state *d, pfile *f)
{
    ss_gzline *r = NULL;
    ss_jsonev *j = NULL;
    collect_ctx c = {d, f};
    char *buf = malloc(1 << 20);
    if (!buf) return ss_fail(SS_ENOMEM, "out of memory");
    ss_status st = ss_gzline_open(f->path, &r);
    if (st == SS_OK) st = ss_jsonev_new(0, f->path, collect, &c, &j);
    size_t got = 1;
    while (st == SS_OK && got) {
        st = ss_gzline_read(r, buf, 1 << 20, &got);
        if (st == SS_OK && got) st = ss_jsonev_feed(j, buf, got);
    }
    if (st == SS_OK) st = ss_jsonev_finish(j);
    if (st == SS_OK && ss_jsonev_events(j) == 0 && !f->nsteps)
        st = ss_fail(SS_EDATA, "%s: no trace events (expected {\"traceEvents\": [...]} or a list of events)", f->path);
    if (st == SS_OK) {
        f->rank = ss_jsonev_rank(j);
        f->world = ss_jsonev_world_size(j);
        f->is_list = ss_jsonev_is_list(j);
        /* Kineto since PyTorch 2.4 counts ts from baseTimeNanoseconds (a Unix time in ns,
         * the time Kineto read rounded down to a fixed period: the same on every rank, not
         * each process's start); before, and in Chrome traces, ts is µs since 1970 already, except the
         * legacy profiler's, which count from its own start: told apart by their size
         * (1e14 µs is 1973-03-03, far longer than any profiler runs) */
        long long base = ss_jsonev_base_ns(j);
        if (base > 0) {
            double add = (double)(base / 1000) + (double)(base % 1000) * 1e-3;
            for (long i = 0; i < f->nsteps; i++) f->steps[i].ts += add;
            for (long i = 0; i < f->nwaits; i++) f->waits[i].ts += add;
        }
        double lo = INFINITY;
        for (long i = 0; i < f->nsteps; i++) lo = f->steps[i].ts < lo ? f->steps[i].ts : lo;
        f->relative = f->nsteps > 0 && lo < 1e14;
    }
    ss_jsonev_free(j);
    ss_gzline_close(r);
    free(buf);
    return st;
}

/* Steps in order, consecutive and not overlapping; each step's outermost waits. */
static ss_status match_steps(prof_state *d, pfile *f)
{
    if (f->nsteps == 0)
        return ss_fail(SS_EDATA, "%s: no ProfilerStep#N events: profile with a schedule (torch.profiler.schedule) and "
                       "call prof.step() every iteration; without a schedule PyTorch records no steps",
                       f->path);
    if (f->nwaits == 0)
        return ss_fail(SS_EDATA, "%s: no DataLoader events (enumerate(DataLoader)#...__next__ or '## data_load ##' annotations%s): the wait for data is unknown",
                       f->path, d->nwait_names ? ", or the --wait names" : "; name others with --wait NAME");
    qsort(f->steps, (size_t)f->nsteps, sizeof *f->steps, cmp_n);
    renumber_first_twice(f);
    qsort(f->waits, (size_t)f->nwaits, sizeof *f->waits, cmp_ts);
    for (long i = 1; i < f->nsteps; i++) {
        const span *a = &f->steps[i - 1], *b = &f->steps[i];
        if (b->n == a->n)
            return ss_fail(SS_EDATA, "%s: ProfilerStep#%lld appears twice (events %lld and %lld)", f->path, b->n, a->seq,
                           b->seq);
        if (b->n == a->n + 2)
            return ss_fail(SS_EDATA, "%s: ProfilerStep#%lld is missing (between events %lld and %lld)", f->path, a->n + 1,
                           a->seq, b->seq);
        if (b->n != a->n + 1)
            return ss_fail(SS_EDATA, "%s: ProfilerStep#%lld to #%lld are missing (between events %lld and %lld)", f->path,
                           a->n + 1, b->n - 1, a->seq, b->seq);
        if (b->ts < a->ts + a->dur - 1.0)
            return ss_fail(SS_EDATA, "%s: ProfilerStep#%lld (event %lld) begins before ProfilerStep#%lld (event %lld) ends: steps overlap",
                           f->path, b->n, b->seq, a->n, a->seq);
    }
    f->ask = malloc((size_t)f->nsteps * sizeof *f->ask);
    f->stall = calloc((size_t)f->nsteps, sizeof *f->stall);
    f->nw = calloc((size_t)f->nsteps, sizeof *f->nw);
    f->first_dur = malloc((size_t)f->nsteps * sizeof *f->first_dur);
    f->second_ts = malloc((size_t)f->nsteps * sizeof *f->second_ts);
    if (!f->ask || !f->stall || !f->nw || !f->first_dur || !f->second_ts)
        return ss_fail(SS_ENOMEM, "out of memory");
    long w = 0;
    for (long i = 0; i < f->nsteps; i++) {
        const span *s = &f->steps[i];
        double end = s->ts + s->dur, last_end = -INFINITY;
        int n = 0;
        while (w < f->nwaits && f->waits[w].ts < s->ts) w++;
        for (; w < f->nwaits && f->waits[w].ts <= end; w++) {
            const span *x = &f->waits[w];
            if (x->ts < last_end) continue; /* nested in the previous wait */
            if (!n) f->ask[i] = x->ts, f->first_dur[i] = x->dur;
            if (n == 1) f->second_ts[i] = x->ts;
            f->stall[i] += x->dur;
            last_end = x->ts + x->dur;
            n++;
        }
        f->nw[i] = n;
        if (!n) { /* no wait: the step is left out (of every rank's rows) */
            f->ask[i] = NAN;
            if (!f->nowait++) f->nowait_first = i;
        }
    }
    if (f->nowait == f->nsteps)
        return ss_fail(SS_EDATA, "%s: no ProfilerStep#N (of #%lld to #%lld) has a %s inside it: the wait for data is "
                       "unknown", f->path, f->steps[0].n, f->steps[f->nsteps - 1].n,
                       d->nwait_names ? "wait event of the --wait names" : "DataLoader wait");
    if (f->nowait)
        ss_warn("%s: %ld of %ld steps have no %s inside them (the first: ProfilerStep#%lld, event %lld): they are "
                "left out%s", f->path, f->nowait, f->nsteps,
                d->nwait_names ? "wait event of the --wait names" : "DataLoader wait", f->steps[f->nowait_first].n,
                f->steps[f->nowait_first].seq, d->G > 1 ? " of every rank's rows" : "");
    return SS_OK;
}

static void prof_close(void *state)
{
    prof_state *d = state;
    if (!d) return;
    for (int g = 0; d->f && g < d->G; g++) {
        free(d->f[g].steps);
        free(d->f[g].waits);
        free(d->f[g].ask);
        free(d->f[g].stall);
        free(d->f[g].nw);
        free(d->f[g].first_dur);
        free(d->f[g].second_ts);
    }
    free(d->f);
    free(d->bound);
    ss_filelist_free(&d->files);
    free(d);
}

/* files by base name in natural order ("worker2" before "worker10"), then by path */
static int cmp_name(const void *a, const void *b)
{
    const char *x = ((const pfile *)a)->path, *y = ((const pfile *)b)->path;
    const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
    int c = ss_name_cmp(bx ? bx + 1 : x, by ? by + 1 : y);
    return c ? c : strcmp(x, y);
}

/* The length of the worker name in a file name of tensorboard_trace_handler,
 * <worker name>.<time>.pt.trace.json[.gz] (the worker name, host_pid by default, may hold
 * dots: a qualified host name); 0 where the name is not of that form */
static size_t worker_name_len(const char *name)
{
    const char *end = strstr(name, ".pt.trace.json");
    if (!end || (strcmp(end, ".pt.trace.json") && strcmp(end, ".pt.trace.json.gz"))) return 0;
    const char *dot = end;
    while (dot > name && dot[-1] >= '0' && dot[-1] <= '9') dot--;
    return dot < end && dot > name + 1 && dot[-1] == '.' ? (size_t)(dot - 1 - name) : 0;
}

/* 1 when files a and b are named by tensorboard_trace_handler for one process: the same
 * worker name before .<time>.pt.trace.json */
static int same_worker(const char *a, const char *b)
{
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    ba = ba ? ba + 1 : a;
    bb = bb ? bb + 1 : b;
    const size_t la = worker_name_len(ba), lb = worker_name_len(bb);
    return la > 0 && la == lb && !strncmp(ba, bb, la);
}

/* The error for two files of one process: a schedule that repeats writes a file per cycle */
static ss_status cycles_fail(const pfile *a, const pfile *b)
{
    return ss_fail(SS_EDATA, "%s and %s come from one process (tensorboard_trace_handler names a file per cycle of "
                   "the schedule, and this schedule repeats): import one file per rank, from the same cycle, or "
                   "profile with repeat=1", a->path, b->path);
}

static int cmp_rank(const void *a, const void *b)
{
    const pfile *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The ranks of one job run at one time: each file's span, from its first ask to its last
 * step's end, must overlap the others' (ss_check_spans). */
static ss_status check_spans(const prof_state *d)
{
    double *t0 = malloc((size_t)d->G * sizeof *t0), *t1 = malloc((size_t)d->G * sizeof *t1);
    char **paths = malloc((size_t)d->G * sizeof *paths);
    ss_status st = t0 && t1 && paths ? SS_OK : ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; st == SS_OK && g < d->G; g++) {
        const pfile *f = &d->f[g];
        t0[g] = INFINITY;
        for (long i = 0; i < f->nsteps; i++) t0[g] = f->ask[i] < t0[g] ? f->ask[i] : t0[g];
        t1[g] = f->steps[f->nsteps - 1].ts + f->steps[f->nsteps - 1].dur;
        paths[g] = f->path;
    }
    if (st == SS_OK) st = ss_check_spans("profiler", paths, t0, t1, d->G);
    free(t0);
    free(t1);
    free(paths);
    return st;
}

/* The usual count of outermost waits in a step of f: the one more steps have than any other
 * (at least 1); 0 where none is (no step has a wait, or two counts tie) */
static int usual_waits(const pfile *f)
{
    enum { MAXW = 64 };
    long cnt[MAXW] = {0};
    for (long i = 0; i < f->nsteps; i++)
        if (f->nw[i] >= 1 && f->nw[i] < MAXW) cnt[f->nw[i]]++;
    int k = 1;
    for (int c = 2; c < MAXW; c++)
        if (cnt[c] > cnt[k]) k = c;
    for (int c = 1; c < MAXW; c++)
        if (c != k && cnt[c] == cnt[k]) return 0;
    return cnt[k] > 0 ? k : 0;
}

/* Epochs. A loop `for batch in loader` ends its pass with a next() that raises StopIteration
 * (and shuts the workers down), then iter(loader) starts the next pass, whose first next()
 * waits for its first batch: a step that spans the two holds one wait more than the usual
 * k. Where such steps fall at the same steps on every rank, each begins an epoch (d->bound;
 * prof_next: its first wait is the pass's end, the row asks at its second wait, and the
 * row before ends at the first). Nothing changes where the ranks differ. */
static ss_status find_epochs(prof_state *d)
{
    const long N = d->f[0].nsteps;
    long nb = 0, first = -1, differ = -1;
    int *k = malloc((size_t)d->G * sizeof *k), ok = 1;
    if (!k) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; ok && g < d->G; g++) ok = (k[g] = usual_waits(&d->f[g])) >= 1;
    if (ok && !(d->bound = calloc((size_t)N, 1))) {
        free(k);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    if (!ok) {
        free(k);
        return SS_OK;
    }
    for (long i = 1; i < N; i++) {
        int any = 0, all = 1;
        for (int g = 0; g < d->G; g++) {
            const int b = d->f[g].nw[i] == k[g] + 1;
            any |= b;
            all &= b;
        }
        if (all && !d->bound[i - 1]) {
            d->bound[i] = 1;
            nb++;
            if (first < 0) first = i;
        } else if (any && !(all && d->bound[i - 1]) && differ < 0) { /* (right after a boundary: none) */
            differ = i;
        }
    }
    free(k);
    if (differ >= 0) {
        if (nb) ss_warn("import profiler: ProfilerStep#%lld holds one DataLoader wait more than usual on some ranks "
                        "only: no epochs are told apart (one epoch)", d->f[0].steps[differ].n);
        memset(d->bound, 0, (size_t)N);
        return SS_OK;
    }
    if (nb)
        ss_warn("import profiler: %ld step%s (the first: ProfilerStep#%lld) hold%s one DataLoader wait more than the "
                "others, on every rank: a pass's last next() and the next pass's first. Each begins an epoch, "
                "%ld in all; the time between their two waits is the time between the epochs",
                nb, nb == 1 ? "" : "s", d->f[0].steps[first].n, nb == 1 ? "s" : "", nb + 1);
    return SS_OK;
}

static ss_status prof_open(void **state, int argc, char **argv, ss_import_info *info)
{
    static const char *const suffixes[] = {".json", ".json.gz", NULL};
    prof_state *d = calloc(1, sizeof *d);
    if (!d) return ss_fail(SS_ENOMEM, "out of memory");
    *state = d;
    long opt_rank = -1;
    ss_status st = SS_OK;
    for (int i = 0; i < argc && st == SS_OK; i++) {
        if (!strcmp(argv[i], "--rank") || !strcmp(argv[i], "--wait")) {
            if (i + 1 >= argc) return ss_fail(SS_EUSAGE, "import profiler: %s needs a value", argv[i]);
            if (argv[i][2] == 'r') {
                char *end;
                opt_rank = strtol(argv[++i], &end, 10);
                if (*end || end == argv[i] || opt_rank < 0 || opt_rank > 1000000)
                    return ss_fail(SS_EUSAGE, "import profiler: --rank '%s' is not a rank (0, 1, ...)", argv[i]);
            } else {
                if (d->nwait_names == MAX_WAIT_NAMES)
                    return ss_fail(SS_EUSAGE, "import profiler: at most %d --wait names", MAX_WAIT_NAMES);
                d->wait_names[d->nwait_names++] = argv[++i];
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return ss_fail(SS_EUSAGE, "import profiler: unknown option '%s' (see stallsim import profiler --help)", argv[i]);
        } else {
            st = ss_filelist_add(&d->files, argv[i], suffixes);
        }
    }
    if (st != SS_OK) return st;
    if (d->files.n == 0) return ss_fail(SS_EUSAGE, "import profiler: no trace files given");
    if (opt_rank >= 0 && d->files.n != 1)
        return ss_fail(SS_EUSAGE, "import profiler: --rank applies to one file; %d given", d->files.n);
    d->G = d->files.n;
    info->inputs = d->files.path;
    info->ninputs = d->files.n;
    d->f = calloc((size_t)d->G, sizeof *d->f);
    if (!d->f) return ss_fail(SS_ENOMEM, "out of memory");
    int relative = 0; /* files whose times count from their profiler's start */
    for (int g = 0; g < d->G && st == SS_OK; g++) {
        pfile *f = &d->f[g];
        f->path = d->files.path[g];
        st = read_file(d, f);
        if (st == SS_OK) st = match_steps(d, f);
        if (st != SS_OK) break;
        long r, of;
        const char *told = f->rank >= 0 ? "distributedInfo.rank" : NULL;
        if (f->rank < 0 && ss_rank_from_name(f->path, &r, &of)) {
            f->rank = r;
            f->world = of;
            told = "its name";
        }
        if (opt_rank >= 0 && told && f->rank != opt_rank)
            return ss_fail(SS_EUSAGE, "%s: --rank %ld, but %s says rank %ld: leave --rank out (it is for a file that "
                           "tells no rank)", f->path, opt_rank, told, f->rank);
        if (f->rank < 0 && opt_rank >= 0) f->rank = opt_rank;
        f->told = f->rank >= 0;
        if (f->rank < 0 && d->G == 1) f->rank = 0;
        relative += f->relative;
    }
    if (st != SS_OK) return st;
    int untold = 0;
    for (int g = 0; g < d->G; g++) untold += !d->f[g].told;
    if (untold && untold < d->G) {
        const pfile *u = d->f, *k = d->f;
        while (u->told) u++;
        while (!k->told) k++;
        return ss_fail(SS_EDATA, "%s: the rank is unknown (no distributedInfo, no rank in the file name like rank3 or "
                       "rank-3), unlike %s's; import it alone with --rank R", u->path, k->path);
    }
    if (untold > 1) {
        /* no file tells its rank (Kineto's own names, worker0.<time>.pt.trace.json): GPU g
         * is the g-th file by name */
        qsort(d->f, (size_t)d->G, sizeof *d->f, cmp_name);
        for (int g = 1; g < d->G; g++)
            if (same_worker(d->f[g - 1].path, d->f[g].path)) return cycles_fail(&d->f[g - 1], &d->f[g]);
        for (int g = 0; g < d->G; g++) d->f[g].rank = g;
        ss_warn("import profiler: no file tells its rank (no distributedInfo, no rank in the file name like rank3): "
                "GPU g is the g-th file by name (GPU 0 %s, GPU %d %s); give files that tell their ranks if the ranks "
                "are in another order", d->f[0].path, d->G - 1, d->f[d->G - 1].path);
    }
    qsort(d->f, (size_t)d->G, sizeof *d->f, cmp_rank);
    for (int g = 1; g < d->G; g++) {
        const pfile *a = &d->f[0], *p = &d->f[g - 1], *b = &d->f[g];
        if (b->rank == p->rank && same_worker(p->path, b->path)) return cycles_fail(p, b);
        if (b->rank == p->rank) return ss_fail(SS_EDATA, "%s and %s: both are rank %ld", p->path, b->path, b->rank);
        if (a->world > 0 && b->world > 0 && a->world != b->world)
            return ss_fail(SS_EDATA, "%s is rank %ld of %ld, but %s is rank %ld of %ld: the files come from different jobs",
                           a->path, a->rank, a->world, b->path, b->rank, b->world);
        if (b->nsteps != a->nsteps || b->steps[0].n != a->steps[0].n)
            return ss_fail(SS_EDATA, "%s has ProfilerStep#%lld to #%lld, but %s has #%lld to #%lld: the ranks must cover the same steps",
                           a->path, a->steps[0].n, a->steps[a->nsteps - 1].n, b->path, b->steps[0].n,
                           b->steps[b->nsteps - 1].n);
    }
    for (int g = 0; g < d->G; g++)
        if (d->f[g].world > 0 && d->f[g].rank >= d->f[g].world)
            return ss_fail(SS_EDATA, "%s: rank %ld of a world of %ld", d->f[g].path, d->f[g].rank, d->f[g].world);
    {
        long *r = malloc((size_t)d->G * sizeof *r);
        if (!r) return ss_fail(SS_ENOMEM, "out of memory");
        for (int g = 0; g < d->G; g++) r[g] = d->f[g].rank;
        ss_check_ranks("profiler", r, d->G, d->f[0].world);
        free(r);
    }
    if ((st = find_epochs(d)) != SS_OK) return st;
    /* time 0: the whole second before the earliest ask (times that count from each rank's
     * profiler start: the origin is 1970-01-01 and the ranks are not aligned) */
    double lo = INFINITY;
    for (int g = 0; g < d->G; g++)
        for (long i = 0; i < d->f[g].nsteps; i++) lo = d->f[g].ask[i] < lo ? d->f[g].ask[i] : lo;
    if (relative) lo = 0.0;
    /* the steps every rank has a wait in: the rows */
    for (long i = 0; i < d->f[0].nsteps; i++) {
        int all = 1;
        for (int g = 0; g < d->G && all; g++) all = !isnan(d->f[g].ask[i]);
        d->rows += all;
    }
    if (d->rows == 0)
        return ss_fail(SS_EDATA, "%s ...: no ProfilerStep#N has a wait inside it on every rank: no row is left",
                       d->f[0].path);
    if (!relative && (st = check_spans(d)) != SS_OK) return st;
    if (ss_origin_from_us(lo, info->meta.time_origin, sizeof info->meta.time_origin, &d->origin_us) != 0)
        return ss_fail(SS_EDATA, "%s: a wait begins at %.0f µs, not a time from 1970 to 2255", d->f[0].path, lo);
    for (int g = 0; relative && g < d->G; g++)
        if (d->f[g].relative) {
            if (d->G > 1)
                ss_warn("%s: its times count from its profiler's start (ts below 1e14 µs, no baseTimeNanoseconds), not "
                        "from 1970: the ranks' timelines are not aligned (%d of %d files are so)",
                        d->f[g].path, relative, d->G);
            break;
        }
    ss_trace_meta *m = &info->meta;
    m->gpus = d->G;
    m->iterations = 0;
    snprintf(m->fetch_times, sizeof m->fetch_times, "absent");
    snprintf(m->log_type, sizeof m->log_type, "%s", SS_LOG_TYPE_PROFILER);
    snprintf(m->source, sizeof m->source, "profiler:%s%s (%s", d->f[0].path, d->G > 1 ? " ..." : "",
             d->G > 1 ? "ranks" : "rank");
    for (int g = 0; g < d->G; g++) {
        size_t l = strlen(m->source);
        if (l + 24 < sizeof m->source) snprintf(m->source + l, sizeof m->source - l, "%s%ld", g ? "," : " ", d->f[g].rank);
    }
    size_t l = strlen(m->source);
    if (d->f[0].world > 0) snprintf(m->source + l, sizeof m->source - l, " of %ld)", d->f[0].world);
    else snprintf(m->source + l, sizeof m->source - l, ")");
    return SS_OK;
}

static ss_status prof_next(void *state, ss_slab *s, ss_import_info *info)
{
    prof_state *d = state;
    const int G = d->G;
    const long N = d->f[0].nsteps;
    s->n = 0;
    while (s->n < s->cap && d->next < N) {
        long i = d->next++, r = s->n;
        int all = 1; /* a step without a wait on some rank is no row */
        for (int g = 0; g < G && all; g++) all = !isnan(d->f[g].ask[i]);
        if (!all) continue;
        s->n++;
        if (d->bound && d->bound[i]) d->epoch++, d->epoch_at = i;
        s->epoch[r] = d->epoch;
        /* the first epoch counts from the profiler's steps; a later one from its first */
        s->index[r] = d->epoch ? i - d->epoch_at : d->f[0].steps[i].n;
        const int begins = d->bound && d->bound[i]; /* its first wait ended the pass before */
        for (int g = 0; g < G; g++) {
            const pfile *f = &d->f[g];
            double ask = begins ? f->second_ts[i] : f->ask[i], stall = f->stall[i] - (begins ? f->first_dur[i] : 0.0);
            /* the next step's first wait: the next ask, or the next() that ended the pass; the
             * last step, or one before a step without a wait: to its end */
            double next = i + 1 < N && !isnan(f->ask[i + 1]) ? f->ask[i + 1] : f->steps[i].ts + f->steps[i].dur;
            size_t at = (size_t)r * G + g;
            double it = next - ask;
            if (it < stall) { /* a wait past the next step's: the events overlap (a last step's may) */
                if (i + 1 < N && !isnan(f->ask[i + 1]) && d->outlast++ == 0) {
                    d->outlast_step = f->steps[i].n;
                    d->outlast_rank = (int)f->rank;
                    d->outlast_by = stall - it;
                }
                it = stall;
            }
            s->train_start[at] = (ask + stall - d->origin_us) * 1e-6;
            s->stall_time[at] = stall * 1e-6;
            s->iteration_time[at] = it * 1e-6;
            /* no fetch times in a profiler trace: the placeholder is the wait itself */
            s->fetch_start[at] = (ask - d->origin_us) * 1e-6;
            s->fetch_time[at] = stall * 1e-6;
        }
    }
    if (d->next >= N && d->outlast > 0) {
        ss_warn("import profiler: %ld DataLoader wait%s outlast%s %s (the first: ProfilerStep#%lld on rank %d, by "
                "%.0f µs past the next step's first wait): each such row's iteration_time is stretched to "
                "its wait, so the whole run comes out longer than the profiled steps; check the --wait names",
                d->outlast, d->outlast == 1 ? "" : "s", d->outlast == 1 ? "s" : "", d->outlast == 1 ? "its step" : "their steps",
                d->outlast_step, d->outlast_rank, d->outlast_by);
        d->outlast = 0; /* said once */
    }
    (void)info;
    return SS_OK;
}

const ss_importer ss_importer_profiler = {
    .name = "profiler",
    .summary = "PyTorch profiler traces (Kineto/Chrome JSON, .json or .json.gz, one file per rank)",
    .usage = "FILE|DIR... [--rank R] [--wait NAME]...",
    .help =
        "Reads PyTorch profiler traces (Kineto JSON {\"traceEvents\": [...]}, or the bare event\n"
        "list of the legacy profiler), plain or gzip-compressed, one file per rank; a folder\n"
        "stands for its *.json and *.json.gz files. GPU g is the g-th rank: distributedInfo.rank,\n"
        "else the rank in the file name (rank3, rank-3, rank_3of8), else --rank R (one file);\n"
        "where no file tells its rank (worker0.<time>.pt.trace.json), the g-th file by name\n"
        "(warned). The ranks' times must overlap (more than a minute apart: refused).\n"
        "CPU-side complete events (ph X) only:\n"
        "  ProfilerStep#N            one row per step: epoch = 0, index = N; steps must be\n"
        "                            consecutive, not overlap, and the same on every rank\n"
        "                            (N counts the steps since the profiler began: run's\n"
        "                            warm-up, trace.warmup_iterations, leaves out N below it)\n"
        "                            a step with one wait more than the usual count, on every\n"
        "                            rank, begins an epoch (a pass's last next(), then the next\n"
        "                            pass's first): its row asks at the second wait; a later\n"
        "                            epoch's index counts its steps from 0\n"
        "  wait events               enumerate(DataLoader)#...__next__ and '## data_load ##'\n"
        "                            (or the --wait NAME names): the outermost ones starting\n"
        "                            inside the step; ask = the first one's ts; a step\n"
        "                            without one is left out, on every rank (warned)\n"
        "  stall_time                = the sum of the step's wait durations\n"
        "  train_start               = ask + stall_time\n"
        "  iteration_time            = the next step's ask - ask (last step: its end - ask)\n"
        "  fetch_start, fetch_time   = ask, stall_time: placeholders, the trace has no fetch\n"
        "                              times (attribute fetch_times = absent); info, compare\n"
        "                              and the measured row use the trace, the what-if models\n"
        "                              need fetch times (record with scripts/stallsim_record.py,\n"
        "                              then `stallsim import pytorch`)\n"
        "Times are µs in the file: from baseTimeNanoseconds where the file has it (Kineto of\n"
        "PyTorch 2.4 and later: a Unix time rounded down to a fixed period, the same on every\n"
        "rank, not each process's start), else Unix µs; a legacy profiler list\n"
        "that counts from its own start (ts below 1e14) gets the origin 1970-01-01 and its\n"
        "ranks are not aligned (a warning says so). Only steps and waits are kept in memory.\n",
    .open = prof_open,
    .next = prof_next,
    .close = prof_close,
};
