/* ss_dsa_import.c - the DS-Analyzer importer: read, validate and pair the CSV trio. */
#include "ss_import_dsanalyzer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_csv.h"
#include "ss_import.h"
#include "ss_impfiles.h"
#include "ss_timefmt.h"

typedef struct {
    long epoch, key; /* key: index (fetch/start) or step (step log) */
    int gpu;
    long row;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->epoch != y->epoch) return x->epoch < y->epoch ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return 0;
}

static ss_status need_col(const ss_csv *c, const char *name, int *col)
{
    *col = ss_csv_col(c, name);
    if (*col < 0) return ss_fail(SS_EDATA, "%s: column '%s' is missing", c->path, name);
    return SS_OK;
}

static ss_status cell_long(const ss_csv *c, long row, int col, long *out)
{
    double v;
    ss_status st = ss_csv_number(c, row, col, &v);
    if (st != SS_OK) return st;
    /* epochs, indices, steps and GPU numbers: whole numbers that fit an int32 */
    if (!(fabs(v) <= 2147483647.0) || v != floor(v))
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', not a whole number from -2^31 to 2^31-1", c->path,
                       c->line[row], c->header[col], ss_csv_cell(c, row, col));
    *out = (long)v;
    return SS_OK;
}

/* Finds the per-GPU columns PREFIX<g> for g = 0..G-1 and checks that there are no others. */
static ss_status gpu_columns(const ss_csv *c, const char *prefix, int **cols, int *gpus)
{
    int n = 0;
    size_t pl = strlen(prefix);
    for (int i = 0; i < c->ncols; i++) n += !strncmp(c->header[i], prefix, pl);
    if (n == 0) return ss_fail(SS_EDATA, "%s: no '%s<g>' columns (per-GPU data) found", c->path, prefix);
    *cols = malloc((size_t)n * sizeof **cols);
    if (!*cols) return ss_fail(SS_ENOMEM, "out of memory");
    char name[160];
    for (int g = 0; g < n; g++) {
        snprintf(name, sizeof name, "%s%d", prefix, g);
        (*cols)[g] = ss_csv_col(c, name);
        if ((*cols)[g] < 0)
            return ss_fail(SS_EDATA, "%s: column '%s' is missing (GPU columns must be numbered 0..%d)", c->path,
                           name, n - 1);
    }
    *gpus = n;
    return SS_OK;
}

/* Sorted (epoch, index) keys of a fetch or start table; duplicates are errors. */
static ss_status table_keys(const ss_csv *c, keyed **out)
{
    int ce, ci;
    ss_status st = need_col(c, "Epoch", &ce);
    if (st == SS_OK) st = need_col(c, "Index number", &ci);
    if (st != SS_OK) return st;
    keyed *k = calloc((size_t)c->nrows, sizeof *k);
    if (!k) return ss_fail(SS_ENOMEM, "out of memory");
    *out = k;
    for (long r = 0; r < c->nrows; r++) {
        if ((st = cell_long(c, r, ce, &k[r].epoch)) != SS_OK) return st;
        if ((st = cell_long(c, r, ci, &k[r].key)) != SS_OK) return st;
        k[r].row = r;
    }
    qsort(k, (size_t)c->nrows, sizeof *k, cmp_keyed);
    for (long r = 1; r < c->nrows; r++)
        if (k[r].epoch == k[r - 1].epoch && k[r].key == k[r - 1].key)
            return ss_fail(SS_EDATA, "%s:%ld: duplicate (Epoch %ld, Index number %ld), first on line %ld", c->path,
                           c->line[k[r].row], k[r].epoch, k[r].key, c->line[k[r - 1].row]);
    return SS_OK;
}

typedef struct {
    ss_csv step, fetch, start;
    keyed *fk, *sk, *stepk;
    int *fcols, *scols;
    int64_t *start_ns, *train_ns; /* [N][G] */
} loader;

static void loader_free(loader *L)
{
    ss_csv_free(&L->step);
    ss_csv_free(&L->fetch);
    ss_csv_free(&L->start);
    free(L->fk);
    free(L->sk);
    free(L->stepk);
    free(L->fcols);
    free(L->scols);
    free(L->start_ns);
    free(L->train_ns);
}

static ss_status pair_fetch_start(loader *L, long N)
{
    if (L->start.nrows != N) {
        /* find the first key present in one table and not the other */
        long i = 0;
        while (i < N && i < L->start.nrows && L->fk[i].epoch == L->sk[i].epoch && L->fk[i].key == L->sk[i].key) i++;
        const keyed *k = i < N ? &L->fk[i] : &L->sk[i];
        return ss_fail(SS_EDATA, "%s and %s do not list the same iterations: %ld rows vs %ld (first difference at Epoch %ld, Index number %ld)",
                       L->fetch.path, L->start.path, N, L->start.nrows, k->epoch, k->key);
    }
    for (long i = 0; i < N; i++)
        if (L->fk[i].epoch != L->sk[i].epoch || L->fk[i].key != L->sk[i].key)
            return ss_fail(SS_EDATA, "%s:%ld: (Epoch %ld, Index number %ld) has no matching row in %s",
                           L->fetch.path, L->fetch.line[L->fk[i].row], L->fk[i].epoch, L->fk[i].key, L->start.path);
    return SS_OK;
}

/* Step-log rows sorted by (epoch, GPU, step), checked against the iterations. */
static ss_status step_keys(loader *L, int G, int *cols /* epoch, step, gpu */)
{
    ss_csv *c = &L->step;
    L->stepk = calloc((size_t)c->nrows, sizeof *L->stepk);
    if (!L->stepk) return ss_fail(SS_ENOMEM, "out of memory");
    ss_status st;
    for (long r = 0; r < c->nrows; r++) {
        long gpu = 0;
        keyed *k = &L->stepk[r];
        if ((st = cell_long(c, r, cols[0], &k->epoch)) != SS_OK) return st;
        if ((st = cell_long(c, r, cols[1], &k->key)) != SS_OK) return st;
        if ((st = cell_long(c, r, cols[2], &gpu)) != SS_OK) return st;
        if (gpu < 0 || gpu >= G)
            return ss_fail(SS_EDATA, "%s:%ld: GPU %ld, but the fetch files have %d GPU columns (0..%d)", c->path,
                           c->line[r], gpu, G, G - 1);
        k->gpu = (int)gpu;
        k->row = r;
    }
    qsort(L->stepk, (size_t)c->nrows, sizeof *L->stepk, cmp_keyed);
    for (long r = 1; r < c->nrows; r++) {
        const keyed *a = &L->stepk[r - 1], *b = &L->stepk[r];
        if (a->epoch == b->epoch && a->gpu == b->gpu && a->key == b->key)
            return ss_fail(SS_EDATA, "%s:%ld: duplicate Step %ld for GPU %d in epoch %ld", c->path, c->line[b->row],
                           b->key, b->gpu, b->epoch);
    }
    return SS_OK;
}

/* Index of the first step row of (epoch, gpu), and how many there are. */
static long step_range(const loader *L, long epoch, int gpu, long *count)
{
    long n = L->step.nrows, lo = 0, hi = n;
    keyed probe = {epoch, -0x7fffffffffffffffL, gpu, 0};
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (cmp_keyed(&L->stepk[mid], &probe) < 0) lo = mid + 1;
        else hi = mid;
    }
    long e = lo;
    while (e < n && L->stepk[e].epoch == epoch && L->stepk[e].gpu == gpu) e++;
    *count = e - lo;
    return lo;
}

static ss_status parse_time(const ss_csv *c, long row, int col, int64_t *ns)
{
    if (ss_time_parse(ss_csv_cell(c, row, col), ns) != 0)
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', not a timestamp like 2021-09-01 19:48:46.728082 (years 1678 to 2261)",
                       c->path, c->line[row], c->header[col], ss_csv_cell(c, row, col));
    return SS_OK;
}

static ss_status nonneg(const ss_csv *c, long row, int col, double v)
{
    if (v < 0)
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds %s, a negative duration", c->path, c->line[row],
                       c->header[col], ss_csv_cell(c, row, col));
    return SS_OK;
}

/* Every step-log row must belong to an epoch of the fetch files (the rows of those epochs
 * were already matched GPU by GPU). */
static ss_status check_all_steps_used(const loader *L, long N)
{
    for (long r = 0; r < L->step.nrows; r++) {
        const keyed *k = &L->stepk[r];
        long lo = 0, hi = N;
        while (lo < hi) {
            long mid = (lo + hi) / 2;
            if (L->fk[mid].epoch < k->epoch) lo = mid + 1;
            else hi = mid;
        }
        if (lo == N || L->fk[lo].epoch != k->epoch)
            return ss_fail(SS_EDATA, "%s:%ld: step row of epoch %ld, which %s does not list", L->step.path,
                           L->step.line[k->row], k->epoch, L->fetch.path);
    }
    return SS_OK;
}

/* Fills the slab rows: epoch, index, fetch times, and for every GPU its step rows paired
 * by position with the iterations of the epoch. Timestamps go to start_ns/train_ns. */
static ss_status fill_rows(loader *L, int G, long N, ss_slab *s, const int *stepcols)
{
    ss_status st;
    for (long i = 0; i < N; i++) {
        const keyed *fk = &L->fk[i], *sk = &L->sk[i];
        s->epoch[i] = (int32_t)fk->epoch;
        s->index[i] = fk->key;
        for (int g = 0; g < G; g++) {
            double v;
            if ((st = ss_csv_number(&L->fetch, fk->row, L->fcols[g], &v)) != SS_OK) return st;
            if ((st = nonneg(&L->fetch, fk->row, L->fcols[g], v)) != SS_OK) return st;
            s->fetch_time[i * G + g] = v;
            if ((st = parse_time(&L->start, sk->row, L->scols[g], &L->start_ns[i * G + g])) != SS_OK) return st;
        }
    }
    for (long i0 = 0; i0 < N;) {
        long e = L->fk[i0].epoch, i1 = i0;
        while (i1 < N && L->fk[i1].epoch == e) i1++;
        for (int g = 0; g < G; g++) {
            long cnt, first = step_range(L, e, g, &cnt);
            if (cnt != i1 - i0)
                return ss_fail(SS_EDATA, "%s: epoch %ld has %ld step rows for GPU %d but %ld iterations in %s",
                               L->step.path, e, cnt, g, i1 - i0, L->fetch.path);
            for (long k = 0; k < cnt; k++) {
                long r = L->stepk[first + k].row, i = i0 + k;
                double it, stl;
                if ((st = ss_csv_number(&L->step, r, stepcols[4], &it)) != SS_OK) return st;
                if ((st = nonneg(&L->step, r, stepcols[4], it)) != SS_OK) return st;
                if ((st = ss_csv_number(&L->step, r, stepcols[5], &stl)) != SS_OK) return st;
                if ((st = nonneg(&L->step, r, stepcols[5], stl)) != SS_OK) return st;
                s->iteration_time[i * G + g] = it;
                s->stall_time[i * G + g] = stl;
                if ((st = parse_time(&L->step, r, stepcols[3], &L->train_ns[i * G + g])) != SS_OK) return st;
            }
        }
        i0 = i1;
    }
    return check_all_steps_used(L, N);
}

/* time 0 = the earliest timestamp, floored to the whole second */
static void set_times(loader *L, long NG, ss_slab *s, ss_trace_meta *m)
{
    int64_t lo = L->start_ns[0];
    for (long i = 0; i < NG; i++) {
        if (L->start_ns[i] < lo) lo = L->start_ns[i];
        if (L->train_ns[i] < lo) lo = L->train_ns[i];
    }
    int64_t origin = lo - ((lo % 1000000000LL) + 1000000000LL) % 1000000000LL;
    /* origin is not after any timestamp: the unsigned differences are exact */
    for (long i = 0; i < NG; i++) {
        s->fetch_start[i] = (double)((uint64_t)L->start_ns[i] - (uint64_t)origin) * 1e-9;
        s->train_start[i] = (double)((uint64_t)L->train_ns[i] - (uint64_t)origin) * 1e-9;
    }
    ss_time_format_iso(origin, m->time_origin, sizeof m->time_origin);
}

void ss_dsa_meta_from_name(const char *prefix, ss_trace_meta *m)
{
    const char *base = strrchr(prefix, '/');
    base = base ? base + 1 : prefix;
    char buf[512], *parts[16];
    snprintf(buf, sizeof buf, "%s", base);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, "_", &save); t && n < 16; t = strtok_r(NULL, "_", &save)) parts[n++] = t;
    if (n != 8) return;
    long e, b, w, th;
    char tail;
    if (sscanf(parts[4], "epoch%ld%c", &e, &tail) != 1 || sscanf(parts[5], "b%ld%c", &b, &tail) != 1 ||
        sscanf(parts[6], "worker%ld%c", &w, &tail) != 1 || sscanf(parts[7], "thread%ld%c", &th, &tail) != 1)
        return;
    snprintf(m->log_type, sizeof m->log_type, "%s", parts[0]);
    snprintf(m->dataset, sizeof m->dataset, "%s", parts[1]);
    snprintf(m->augmentation, sizeof m->augmentation, "%s", parts[2]);
    snprintf(m->model, sizeof m->model, "%s", parts[3]);
    m->epochs = e;
    m->batch_size = b;
    m->workers = w;
    m->threads = th;
}

ss_status ss_dsa_load(const char *prefix, ss_trace_meta *meta, ss_slab *rows)
{
    loader L;
    memset(&L, 0, sizeof L);
    memset(rows, 0, sizeof *rows);
    char p1[4200], p2[4200], p3[4200];
    snprintf(p1, sizeof p1, "%s.csv", prefix);
    snprintf(p2, sizeof p2, "%s_simp_fetchdifftime.csv", prefix);
    snprintf(p3, sizeof p3, "%s_simp_fetchstartdifftime.csv", prefix);
    int G = 0, Gs = 0, stepcols[6];
    static const char *const step_names[6] = {"Epoch", "Step", "GPU", "Time", "Iteration time (sec)",
                                              "Training stall time (sec)"};
    ss_status st = ss_csv_read(p1, &L.step);
    if (st == SS_OK) st = ss_csv_read(p2, &L.fetch);
    if (st == SS_OK) st = ss_csv_read(p3, &L.start);
    for (int i = 0; st == SS_OK && i < 6; i++) st = need_col(&L.step, step_names[i], &stepcols[i]);
    if (st == SS_OK) st = gpu_columns(&L.fetch, "Fetch time (sec)_gpu", &L.fcols, &G);
    if (st == SS_OK) st = gpu_columns(&L.start, "Start time_gpu", &L.scols, &Gs);
    if (st == SS_OK && G != Gs)
        st = ss_fail(SS_EDATA, "GPU counts disagree: %s has %d GPU columns, %s has %d", p2, G, p3, Gs);
    if (st == SS_OK) st = table_keys(&L.fetch, &L.fk);
    if (st == SS_OK) st = table_keys(&L.start, &L.sk);
    long N = L.fetch.nrows;
    if (st == SS_OK) st = pair_fetch_start(&L, N);
    if (st == SS_OK) st = step_keys(&L, G, stepcols);
    if (st == SS_OK) {
        L.start_ns = malloc((size_t)N * (size_t)G * sizeof *L.start_ns);
        L.train_ns = malloc((size_t)N * (size_t)G * sizeof *L.train_ns);
        if (!L.start_ns || !L.train_ns) st = ss_fail(SS_ENOMEM, "out of memory importing %s", prefix);
    }
    if (st == SS_OK) st = ss_slab_alloc(rows, N, G);
    if (st == SS_OK) st = fill_rows(&L, G, N, rows, stepcols);
    if (st == SS_OK) {
        rows->n = N;
        ss_trace_meta_init(meta);
        meta->gpus = G;
        meta->iterations = N;
        set_times(&L, N * G, rows, meta);
        ss_dsa_meta_from_name(prefix, meta);
        snprintf(meta->source, sizeof meta->source, "dsanalyzer:%s", prefix);
    } else {
        ss_slab_free(rows);
    }
    loader_free(&L);
    return st;
}

extern const ss_importer ss_importer_dsanalyzer;

ss_status ss_dsa_import(const char *prefix, const char *out_path, long *rows_out, int *gpus_out)
{
    char *args[1] = {(char *)prefix};
    return ss_import_run(&ss_importer_dsanalyzer, 1, args, out_path, rows_out, gpus_out, NULL);
}

/* ---- the importer table's entry: the whole trio is joined in memory (its rows must be
 * paired by key across three files), then handed out in slabs ---- */

typedef struct {
    char prefix[4096];
    char *paths[3];
    char buf[3][4200];
    ss_slab all;
    long next;
} dsa_state;

static ss_status dsa_open(void **state, int argc, char **argv, ss_import_info *info)
{
    ss_status ost = ss_import_no_options("dsanalyzer", argc, argv);
    if (ost != SS_OK) return ost;
    if (argc != 1)
        return ss_fail(SS_EUSAGE, "import dsanalyzer: expected one PREFIX (see stallsim import dsanalyzer --help)");
    dsa_state *d = calloc(1, sizeof *d);
    if (!d) return ss_fail(SS_ENOMEM, "out of memory");
    *state = d;
    snprintf(d->prefix, sizeof d->prefix, "%s", argv[0]);
    const size_t an = strlen(argv[0]);
    if (an > 3 && !strcmp(argv[0] + an - 3, ".gz"))
        return ss_fail(SS_EIO, "import dsanalyzer: %s: the trio is read as plain CSV files: gunzip them first (the "
                       "DFTracer, profiler and table importers read .gz)", argv[0]);
    /* "run.csv" names the trio by its first file: the prefix is "run" */
    size_t n = strlen(d->prefix);
    if (n > 4 && !strcmp(d->prefix + n - 4, ".csv")) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s.csv", d->prefix);
        FILE *f = fopen(probe, "rb");
        if (f) fclose(f);
        else d->prefix[n - 4] = '\0';
    }
    snprintf(d->buf[0], sizeof d->buf[0], "%s.csv", d->prefix);
    snprintf(d->buf[1], sizeof d->buf[1], "%s_simp_fetchdifftime.csv", d->prefix);
    snprintf(d->buf[2], sizeof d->buf[2], "%s_simp_fetchstartdifftime.csv", d->prefix);
    for (int i = 0; i < 3; i++) d->paths[i] = d->buf[i];
    info->inputs = d->paths;
    info->ninputs = 3;
    return ss_dsa_load(d->prefix, &info->meta, &d->all);
}

static ss_status dsa_next(void *state, ss_slab *s, ss_import_info *info)
{
    dsa_state *d = state;
    const int G = d->all.gpus;
    long n = d->all.n - d->next < s->cap ? d->all.n - d->next : s->cap;
    long r = d->next;
    memcpy(s->epoch, d->all.epoch + r, (size_t)n * sizeof *s->epoch);
    memcpy(s->index, d->all.index + r, (size_t)n * sizeof *s->index);
    size_t bytes = (size_t)n * (size_t)G * sizeof(double);
    memcpy(s->fetch_start, d->all.fetch_start + r * G, bytes);
    memcpy(s->fetch_time, d->all.fetch_time + r * G, bytes);
    memcpy(s->train_start, d->all.train_start + r * G, bytes);
    memcpy(s->iteration_time, d->all.iteration_time + r * G, bytes);
    memcpy(s->stall_time, d->all.stall_time + r * G, bytes);
    s->n = n;
    d->next += n;
    (void)info;
    return SS_OK;
}

static void dsa_close(void *state)
{
    dsa_state *d = state;
    if (!d) return;
    ss_slab_free(&d->all);
    free(d);
}

const ss_importer ss_importer_dsanalyzer = {
    .name = "dsanalyzer",
    .summary = "DS-Analyzer's parsed CSV trio (PREFIX.csv, PREFIX_simp_fetchdifftime.csv, ...)",
    .usage = "PREFIX",
    .help = "Reads the DS-Analyzer parsed CSV trio PREFIX.csv, PREFIX_simp_fetchdifftime.csv and\n"
            "PREFIX_simp_fetchstartdifftime.csv (PREFIX.csv itself may be named instead of PREFIX)\n"
            "and writes them as one stalltrace HDF5 file. The three tables are joined by (epoch,\n"
            "index), so this importer holds them in memory; see io/import/IMPORTERS.md.\n",
    .open = dsa_open,
    .next = dsa_next,
    .close = dsa_close,
};
