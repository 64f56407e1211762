/* ss_import_pytorch.c - the PyTorch recorder importer: its registry entry and lockstep merge. */
/* Merges the per-rank record files of scripts/stallsim_record.py (PREFIX.rank<R>.csv and
 * PREFIX.rank<R>.worker<W>.csv) into one stalltrace, one GPU column per rank, reading all ranks
 * in lockstep (memory per rank and worker, not per iteration). The record reader is
 * ss_import_pytorch_record.c, each rank's state machine ss_import_pytorch_rank.c, the
 * statistics ss_import_pytorch_stats.c. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "ss_import_pytorch.h"
#include "ss_impfiles.h"
#include "ss_limits.h"
#include "ss_timefmt.h"

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
    free(S->host_busy);
    free(S->host_job);
    free(S->probe);
    free(S->pass_start);
    free(S->pass_stop);
    free(S);
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
        return ss_fail(SS_EUSAGE, "import pytorch: %s is a folder without record files (PREFIX.rank0.csv); give the "
                       "PREFIX that Recorder(PREFIX) was given", prefix);
    if (nfound == 1)
        return ss_fail(SS_EUSAGE, "import pytorch: %s is a folder; it holds the run %s%s%s: try `stallsim import "
                       "pytorch %s%s%s -o TRACE.h5`", prefix, prefix, sep, found[0], prefix, sep, found[0]);
    return ss_fail(SS_EUSAGE, "import pytorch: %s is a folder of %d runs (%s%s%s, %s%s%s%s); give one run's PREFIX",
                   prefix, nfound, prefix, sep, found[0], prefix, sep, found[1], nfound > 2 ? ", ..." : "");
}

/* The options: --skip-pass R:P (or --skip-pass=R:P), repeatable, into S->skips; the one
 * PREFIX into *prefix. */
static ss_status pt_args(pt_state *S, int argc, char **argv, const char **prefix_out)
{
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
    *prefix_out = prefix;
    return SS_OK;
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
    const char *prefix = NULL;
    ss_status ast = pt_args(S, argc, argv, &prefix);
    if (ast != SS_OK) return ast;
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
    int g_origin = 0; /* the rank whose start sets the origin */
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
        if (t < origin) {
            origin = t;
            g_origin = g;
        }
    }
    if (origin < 0)
        return ss_fail(SS_EDATA, "%s: with its clock offset the run starts before 1970 (check meta,clock_offset_ns)",
                       S->r[g_origin]->main.path);
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
    int running = 0;
    for (int g = 0; g < S->G; g++) running |= S->r[g]->running;
    if (running) snprintf(m->import_note, sizeof m->import_note, "imported while the job still ran");
    m->batch_size = batch;
    m->workers = total_workers;
    m->prefetch_factor = prefetch > 0 ? prefetch : -1;
    snprintf(m->fetch_times, sizeof m->fetch_times, "measured");
    m->loader_workers = S->loader_workers;
    /* the workers' start, as rank 0's loader had it (every rank wraps the same loader) */
    snprintf(m->start_method, sizeof m->start_method, "%s", r0->workers > 0 ? r0->start_method : "");
    m->persistent_workers = r0->workers > 0 ? r0->persistent : -1;
    return SS_OK;
}

/* Rank R's row is at another epoch or batch than rank 0's (r0): the error, naming a pass that
 * one rank may have made alone. */
static ss_status pt_pass_mismatch(const pt_state *S, const pt_rank *R, const pt_row *row, const pt_row *r0)
{
    /* one rank has started a new pass where the other goes on with its pass: the
     * first rank's pass before may be one that it made alone */
    char why[900] = "";
    const pt_rank *z = S->r[0];
    if (R->per_epoch >= 0 && z->per_epoch >= 0 && R->per_epoch != z->per_epoch) /* uneven data, len(loader) says */
        snprintf(why, sizeof why,
                 "; rank %d's loader has %ld batches per epoch and rank %d's %ld (their len(loader)): the ranks' "
                 "data are uneven (no DistributedSampler, or DDP's join()), and stallsim replays ranks that step "
                 "together; give every rank the same number of batches (a DistributedSampler pads them, "
                 "drop_last=True trims them)",
                 R->rank, R->per_epoch, z->rank, z->per_epoch);
    else if ((row->k == 0) != (r0->k == 0) &&
        !pt_skip_listed(&S->skips, row->k == 0 ? R->rank : S->r[0]->rank, (row->k == 0 ? row->p : r0->p) - 1)) {
        const pt_rank *a = row->k == 0 ? R : S->r[0], *o = row->k == 0 ? S->r[0] : R;
        const long ap = row->k == 0 ? row->p : r0->p, op = row->k == 0 ? r0->p : row->p,
                   n = row->k == 0 ? r0->k : row->k;
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
                   "ranks do not have the same iteration counts per epoch%s", R->main.path, row->line,
                   row->epoch, row->k, S->r[0]->main.path, r0->line, r0->epoch, r0->k, why);
}

/* Each rank's stop of the pass before (how long its ending next() took, format 5) as row e
 * of /pass_stop_time, and forgets it; stops_known = 0 where a rank's is not recorded. */
static void pt_pass_stops(pt_state *S, long e)
{
    for (int g = 0; g < S->G; g++) {
        pt_rank *R = S->r[g];
        S->stops_known &= R->stop_ns >= 0;
        S->pass_stop[e * S->G + g] = R->stop_ns >= 0 ? 1e-9 * (double)R->stop_ns : 0.0;
        R->stop_ns = -1;
    }
}

/* As the trace's next epoch starts: each rank's start of the pass that its first row
 * comes from (the 'epoch' record just read before that row's batch), on the trace's clock,
 * and the stop of the pass before. */
static ss_status pt_pass_start(pt_state *S)
{
    const int G = S->G;
    if (S->epochs >= S->pass_cap) {
        long cap = S->pass_cap > 0 ? 2 * S->pass_cap : 16;
        double *v = realloc(S->pass_start, (size_t)cap * (size_t)G * sizeof *v);
        if (v) S->pass_start = v;
        double *u = v ? realloc(S->pass_stop, (size_t)cap * (size_t)G * sizeof *u) : NULL;
        if (!v || !u) return ss_fail(SS_ENOMEM, "out of memory");
        S->pass_stop = u;
        S->pass_cap = cap;
    }
    if (S->epochs == 0) S->stops_known = 1;
    else pt_pass_stops(S, S->epochs - 1);
    for (int g = 0; g < G; g++) {
        const pt_rank *R = S->r[g];
        S->pass_start[S->epochs * G + g] = 1e-9 * (double)(R->pass_t0 + R->offset - S->origin_ns);
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
                if (b->cut || b->running || a->running) /* (the trace says so: run and info warn of it) */
                    snprintf(S->cut_note, sizeof S->cut_note, "%s after %ld rows",
                             b->running || a->running ? "imported while the job still ran, cut" : "cut off", S->rows);
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
                return pt_pass_mismatch(S, R, &row, &r0);
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
            if ((st = pt_host_meta(S, &info->meta)) != SS_OK) return st;
            if ((st = pt_probe_meta(S, &info->meta)) != SS_OK) return st;
            info->meta.pass_start = S->pass_start;
            info->meta.passes = S->epochs;
            int known = S->stops_known; /* the last pass's own stop ends no gap: kept where known */
            for (int g = 0; g < G; g++) known &= S->r[g]->main.version >= 5;
            pt_pass_stops(S, S->epochs - 1);
            info->meta.pass_stop = known ? S->pass_stop : NULL;
            if (S->cut_note[0]) /* (known once the rows are read) */
                snprintf(info->meta.import_note, sizeof info->meta.import_note, "%s", S->cut_note);
            break;
        }
        if (nleft > 0) { /* a rank left the pass after this batch: its step has no end, the row goes (a rank
                          * that ended its pass there instead, in next(), as under a Ctrl-C, agrees on it) */
            S->left_rows++;
            continue;
        }
        if (S->rows > 0 && r0.epoch != S->last_epoch) pt_check_epoch(S);
        if (S->rows == 0 || r0.epoch != S->last_epoch) {
            if ((st = pt_pass_start(S)) != SS_OK) return st;
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
