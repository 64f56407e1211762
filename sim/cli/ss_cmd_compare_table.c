/* ss_cmd_compare.c - `stallsim compare`: measured traces and sweep results side by side,
 * with differences against the first row (MODELS-independent.md figures). Runs on rank 0. */
#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ss_atomic.h"
#include "ss_calibrate.h"
#include "ss_columns.h"
#include "ss_cmd.h"
#include "ss_config.h"
#include "ss_number.h"
#include "ss_limits.h"
#include "ss_parts.h"
#include "ss_results.h"
#include "ss_scenario.h"
#include "ss_sweep.h"
#include "ss_trace.h"

/* compare RESULTS... REAL.h5 lists at most this many predictions' errors, a line each */
#define COMPARE_PRED_LINES 100

static const char compare_usage[] =
    "usage: stallsim compare A [B ...] [--csv FILE] [--warmup N] [--threshold S] [--epoch E] [--match] [--spread]\n"
    "\n"
    "Puts measured runs and predictions side by side (one results folder alone: its\n"
    "scenarios against its measured row). Each argument is a results folder\n"
    "(or its results.h5: one row per scenario) or a trace file (one row: the measured run,\n"
    "summarised as the results folders given beside it were, or with --warmup, --threshold\n"
    "and --epoch). Every row is compared with the\n"
    "first row of the first argument: differences in mean iteration time, stall, delay\n"
    "(absolute and %) and in effective-delay %.\n"
    "\n"
    "  --csv FILE     also write the table as CSV\n"
    "  --warmup N     warmup_iterations for traces (11)\n"
    "  --threshold S  effective_delay_threshold for traces, seconds (0.030)\n"
    "  --epoch E      summarise only epoch E of traces (all)\n"
    "  --match        also set each trace (a real run) beside the pipeline prediction of its\n"
    "                 recorded loader (workers and prefetch factor, as the trace records them;\n"
    "                 of the rows without alignment, fetch_scale, compute_scale or heal), with\n"
    "                 the error, and their mean: `compare results w0.h5 w1.h5 w4.h5 --match`;\n"
    "                 a run with the base trace's own loader is set beside the baseline\n"
    "                 replay and left out of the mean; a loader recorded more than once is\n"
    "                 also set against the mean of its runs; a match whose loader the folder\n"
    "                 also predicts with a fetch_scale, compute_scale or heal is marked (a real\n"
    "                 run of other storage or a rank fixed cannot be told from its trace)\n"
    "                 (with several results folders: beside each folder's, a mean per folder)\n"
    "  --spread       also, for every scenario that two or more of the results folders hold\n"
    "                 (one scenario file run on several base runs of one setting, with\n"
    "                 --set trace.path=...; matched by label), the least and largest\n"
    "                 predicted mean iteration time and their spread: how much the prediction\n"
    "                 rests on which run was recorded, the least error to expect\n"
    "                 (`compare res-a res-b res-c --spread`); needs two folders of different\n"
    "                 base runs\n"
    "\n"
    "Typical use: the trace measured before a change, the sweep that predicted the change,\n"
    "and the trace measured after it; the last rows then show the prediction error. To read\n"
    "each prediction's error directly, put the real run first: `compare after.h5 results`\n"
    "gives every scenario's diff% against it (prediction / real - 1).\n";

typedef struct {
    char source[256];
    ss_results_row r;
    int trace; /* the measured run of a trace (not a results folder's row) */
    /* a trace's recorded loader: its workers (the same on every GPU) and prefetch factor;
     * -1 where it records none (or its GPUs differ), -2 for workers that differ by GPU */
    int workers, prefetch;
    /* a results folder's base trace's calibrated loader: its largest W, and W and P where
     * every GPU has the same (-1: unknown, or they differ) */
    struct {
        long workers;
        int w, p;
    } base;
    /* a trace's file, and a results folder's base trace (as its run named it, found from
     * here), by device and inode; 0 0: unknown */
    dev_t dev;
    ino_t ino;
} cmp_row;

typedef struct {
    cmp_row *v;
    int n, cap;
    int gpus;  /* of the first input */
    int match; /* --match: each real run gets its own prediction (print_matches) */
} cmp_table;

static ss_status push(cmp_table *t, const char *source, const ss_results_row *r)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        cmp_row *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v) return ss_fail(SS_ENOMEM, "out of memory");
        t->v = v;
        t->cap = cap;
    }
    snprintf(t->v[t->n].source, sizeof t->v[t->n].source, "%s", source);
    t->v[t->n].trace = 0;
    t->v[t->n].workers = t->v[t->n].prefetch = -1;
    t->v[t->n].base.workers = t->v[t->n].base.w = t->v[t->n].base.p = -1;
    t->v[t->n].dev = 0;
    t->v[t->n].ino = 0;
    t->v[t->n++].r = *r;
    return SS_OK;
}

/* The measured run of a trace, summarised as `run` would. */
static ss_status summarise_trace(const char *path, const ss_config *opts, ss_results_row *row, int *gpus,
                                 int *workers, int *prefetch)
{
    ss_comm self;
    ss_comm_self(&self);
    ss_config cfg = *opts;
    cfg.text = NULL;
    cfg.n_models = 0; /* the measured row only */
    ss_scenario *sc = NULL;
    int nsc = 0;
    ss_trace_file *t = NULL;
    ss_summary sum;
    memset(&sum, 0, sizeof sum);
    ss_status st = ss_scenarios_build(&cfg, &sc, &nsc);
    if (st == SS_OK) st = ss_trace_open(path, &self, &t);
    if (st == SS_OK) st = ss_sweep_run(&self, &cfg, t, sc, nsc, NULL, 0, &sum, NULL);
    if (st == SS_OK) ss_trace_report_warnings(t, &self);
    /* a trace that records its CPU times: the measured run's cpu_load_pct, which needs
     * each GPU's worker count (the calibration's) */
    const ss_trace_meta *m = st == SS_OK ? ss_trace_meta_of(t) : NULL;
    *workers = *prefetch = -1;
    if (m && m->loader_workers && m->gpus > 0) {
        *workers = m->loader_workers[0];
        for (int g = 1; g < m->gpus; g++)
            if (m->loader_workers[g] != *workers) *workers = -2;
    }
    if (m && m->prefetch_factor >= 1 && m->prefetch_factor <= SS_MAX_PREFETCH) *prefetch = (int)m->prefetch_factor;
    if (st == SS_OK && ss_trace_meta_has_cpu(m)) {
        ss_calib cal;
        if (ss_calibrate(t, SS_CALIB_ROWS, &cal) != SS_OK || ss_summary_adopt_calib(&sum, &cal, m) != SS_OK)
            ss_clear(); /* the load is then not shown; the comparison goes on */
    }
    if (st == SS_OK) st = ss_cmd_check_selection(sum.p[ss_summary_measured(&sum)].n, &cfg, path, t, "--epoch", "--warmup");
    if (st == SS_OK) {
        /* the measured row as results.h5 would hold it */
        memset(row, 0, sizeof *row);
        int nc, ntext = 0;
        const ss_column *cols = ss_columns(&nc);
        for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS; k++) {
            ss_colval v;
            if (!(cols[k].flags & SS_COLF_COMPARE)) continue;
            int has = ss_column_get(&cols[k], &sum, 0, 0, &v);
            if (cols[k].type == SS_COL_STR && ntext < SS_RESULTS_MAX_TEXT)
                snprintf(row->text[ntext++], sizeof row->text[0], "%s", has ? v.str : "");
            else if (cols[k].type == SS_COL_F64) row->num[k] = has ? v.d : NAN;
            else if (cols[k].type != SS_COL_STR) row->num[k] = has ? (double)v.l : NAN;
        }
        *gpus = sum.gpus;
    }
    if (t) ss_trace_close(t);
    ss_summary_free(&sum);
    free(sc);
    return st;
}

/* results.h5 records the digest of the summary.csv written with it: a summary.csv of
 * another run (or edited) beside it is reported. */
static void check_pair(const char *dir, const char *results)
{
    char want[17], got[17], csv[4200];
    snprintf(csv, sizeof csv, "%s/summary.csv", dir);
    if (ss_results_csv_digest(results, want) != 0) return; /* results of an older stallsim */
    if (ss_atomic_file_digest(csv, got) != 0)
        ss_warn("%s: no summary.csv beside results.h5", dir);
    else if (strcmp(want, got) != 0)
        ss_warn("%s: summary.csv is not the one written with results.h5 (edited, or from another run); "
                "the table below is results.h5's",
                dir);
}

/* An epoch as the messages say it: its number, or "all". */
static void epoch_text(long e, char *buf, size_t n)
{
    if (e == SS_EPOCH_ALL) snprintf(buf, n, "all");
    else snprintf(buf, n, "%ld", e);
}

/* Results inputs carry the selection they were summarised with: traces are summarised the
 * same way unless an option says otherwise (then with a warning), and results that
 * disagree with each other are refused. explicit[3]: --warmup, --threshold, --epoch given. */
static ss_status align_settings(char **inputs, int n, ss_config *opts, const int explicit_[3])
{
    ss_results_settings first = {0}, cur;
    const char *first_arg = NULL;
    for (int i = 0; i < n; i++) {
        char path[4200];
        struct stat sb;
        if (stat(inputs[i], &sb) != 0) continue; /* reported by add_input */
        if (S_ISDIR(sb.st_mode)) snprintf(path, sizeof path, "%s/results.h5", inputs[i]);
        else snprintf(path, sizeof path, "%s", inputs[i]);
        if (stat(path, &sb) != 0 || ss_trace_is_trace(path)) continue;
        if (ss_results_read_settings(path, &cur) != SS_OK) {
            ss_clear();
            continue;
        }
        if (!cur.known) continue;
        if (!first_arg) {
            first = cur;
            first_arg = inputs[i];
        } else if (cur.warmup_iterations != first.warmup_iterations || cur.epoch != first.epoch ||
                   cur.threshold != first.threshold) {
            char ec[32], ef[32];
            epoch_text(cur.epoch, ec, sizeof ec);
            epoch_text(first.epoch, ef, sizeof ef);
            return ss_fail(SS_EDATA,
                           "%s was summarised with warmup %ld, epoch %s, threshold %g but %s with warmup %ld, "
                           "epoch %s, threshold %g: the rows are not comparable",
                           inputs[i], cur.warmup_iterations, ec, cur.threshold, first_arg,
                           first.warmup_iterations, ef, first.threshold);
        }
    }
    if (!first_arg) return SS_OK;
    if (!explicit_[0]) opts->warmup_iterations = first.warmup_iterations;
    else if (opts->warmup_iterations != first.warmup_iterations)
        ss_warn("traces are summarised with --warmup %ld, but %s used %ld", opts->warmup_iterations, first_arg,
                first.warmup_iterations);
    if (!explicit_[1]) opts->effective_delay_threshold = first.threshold;
    else if (opts->effective_delay_threshold != first.threshold)
        ss_warn("traces are summarised with --threshold %g, but %s used %g", opts->effective_delay_threshold,
                first_arg, first.threshold);
    long e = opts->epoch_all ? SS_EPOCH_ALL : opts->epoch;
    if (!explicit_[2]) {
        opts->epoch_all = first.epoch == SS_EPOCH_ALL;
        opts->epoch = first.epoch == SS_EPOCH_ALL ? 0 : first.epoch;
    } else if (e != first.epoch) {
        char ee[32];
        epoch_text(e, ee, sizeof ee);
        ss_warn("traces are summarised with --epoch %s, but %s used %s", ee, first_arg,
                first.epoch == SS_EPOCH_ALL ? "every epoch" : "another epoch");
    }
    return SS_OK;
}

static ss_status add_input(cmp_table *t, const char *arg, const ss_config *opts)
{
    char path[4200];
    struct stat sb;
    if (stat(arg, &sb) != 0) return ss_fail(SS_EIO, "%s: no such file or folder", arg);
    int is_dir = S_ISDIR(sb.st_mode);
    if (is_dir) snprintf(path, sizeof path, "%s/results.h5", arg);
    else snprintf(path, sizeof path, "%s", arg);
    if (is_dir && stat(path, &sb) != 0)
        return ss_fail(SS_EIO, "%s: folder holds no results.h5 (not a stallsim results folder)", arg);
    size_t la = strlen(arg);
    if (!is_dir && la >= 4 && !strcmp(arg + la - 4, ".csv"))
        return ss_fail(SS_EUSAGE, "%s: a CSV file; compare reads results folders (or their results.h5) and traces",
                       arg);
    if (is_dir) check_pair(arg, path);
    int gpus = 0;
    ss_status st;
    if (ss_trace_is_trace(path)) {
        ss_results_row row;
        int w, p;
        if ((st = summarise_trace(path, opts, &row, &gpus, &w, &p)) != SS_OK) return st;
        if ((st = push(t, arg, &row)) != SS_OK) return st;
        t->v[t->n - 1].trace = 1;
        t->v[t->n - 1].workers = w;
        t->v[t->n - 1].prefetch = p;
        struct stat ts;
        if (stat(path, &ts) == 0) {
            t->v[t->n - 1].dev = ts.st_dev;
            t->v[t->n - 1].ino = ts.st_ino;
        }
    } else {
        ss_results_row *rows;
        ss_results_settings rs;
        int n;
        if ((st = ss_results_read_summary(path, &rows, &n, &gpus)) != SS_OK) return st;
        (void)ss_results_read_settings(path, &rs); /* unreadable: the base unknown */
        struct stat bs;
        const int base_known = rs.trace[0] && stat(rs.trace, &bs) == 0;
        for (int i = 0; st == SS_OK && i < n; i++) {
            st = push(t, arg, &rows[i]);
            if (st == SS_OK) {
                cmp_row *row = &t->v[t->n - 1];
                row->base.workers = rs.base_workers;
                row->base.w = rs.base_w;
                row->base.p = rs.base_p;
                if (base_known) {
                    row->dev = bs.st_dev;
                    row->ino = bs.st_ino;
                }
            }
        }
        free(rows);
        if (st != SS_OK) return st;
    }
    if (t->gpus == 0) t->gpus = gpus;
    else if (gpus != t->gpus)
        return ss_fail(SS_EDATA, "%s has %d %s but %s has %d: the runs are not comparable", arg, gpus,
                       ss_plural(gpus, "GPU", "GPUs"),
                       t->v[0].source, t->gpus);
    return SS_OK;
}

static double pct(double v, double ref) { return ref != 0 ? 100.0 * (v / ref - 1.0) : NAN; }

/* 1 when rows a and b hold the same numbers in every compared column (NaN alike) */
static int same_numbers(const cmp_row *a, const cmp_row *b)
{
    int nc;
    const ss_column *cols = ss_columns(&nc);
    for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS; k++) {
        if (!(cols[k].flags & SS_COLF_COMPARE) || cols[k].type == SS_COL_STR) continue;
        const double x = a->r.num[k], y = b->r.num[k];
        if (!(x == y || (isnan(x) && isnan(y)))) return 0;
    }
    return 1;
}

/* The mean iteration time's index in a results row's num[], or -1 */
static int iter_column(void)
{
    int nc;
    const ss_column *cols = ss_columns(&nc), *c = ss_column_find("iter_time_mean");
    return c && c - cols < SS_RESULTS_MAX_COLUMNS ? (int)(c - cols) : -1;
}

/* The numeric compare columns (ss_columns.h, SS_COLF_COMPARE), iterations first. */
static int compare_columns(const ss_column **out, int *index)
{
    int nc, n = 0;
    const ss_column *cols = ss_columns(&nc);
    for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS; k++)
        if ((cols[k].flags & SS_COLF_COMPARE) && cols[k].type != SS_COL_STR) {
            out[n] = &cols[k];
            index[n++] = k;
        }
    return n;
}

/* "iter_time_mean" -> "iter_time": the stem that the difference columns are named from. */
static void stem(const char *name, char *buf, size_t n)
{
    size_t len = strlen(name);
    if (len > 5 && !strcmp(name + len - 5, "_mean")) len -= 5;
    snprintf(buf, n, "%.*s", (int)len, name);
}

/* The last `parts` components of path ('/'-separated), or the whole path. */
static const char *path_tail(const char *path, int parts)
{
    const char *p = path + strlen(path);
    while (p > path && p[-1] == '/') p--; /* a trailing slash is not a component */
    for (const char *q = p; q > path; q--)
        if (q[-1] == '/' && q < p && --parts == 0) return q;
    return path;
}

/* Row i's source as the table shows it: its file name, with as many of its folders as
 * tell it from the other rows' sources (traces named alike in different folders, e.g.
 * base/run.h5 and w4/run.h5) */
static const char *shown_source(const cmp_table *t, int i)
{
    const char *me = t->v[i].source;
    for (int parts = 1;; parts++) {
        const char *tail = path_tail(me, parts);
        int clash = 0;
        for (int j = 0; j < t->n && !clash; j++)
            clash = strcmp(t->v[j].source, me) && !strcmp(path_tail(t->v[j].source, parts), tail);
        if (!clash || tail == me) return tail;
    }
}

/* A column's short header: "iter (s)", "stall (s)", "eff.dly%", "cpu%" */
static void short_header(const ss_column *c, char *h, size_t n)
{
    char st[64];
    stem(c->name, st, sizeof st);
    size_t l = strlen(st);
    if (l > 5 && !strcmp(st + l - 5, "_time")) st[l -= 5] = '\0';
    if (!strcmp(st, "effective_delay_pct")) snprintf(h, n, "eff.dly%%");
    else if (!strcmp(st, "cpu_load_pct")) snprintf(h, n, "cpu%%");
    else if (!strcmp(c->unit, "s")) snprintf(h, n, "%s (s)", st);
    else if (l > 4 && !strcmp(st + l - 4, "_pct")) snprintf(h, n, "%.*s%%", (int)(l - 4), st);
    else snprintf(h, n, "%s", st);
}

/* Row i's scenario as run's table labels it ("pipe W=2 fs=0.5", parts apart by spaces), or
 * its summary.csv name (parts apart by '_') where the file has no labels (an older
 * stallsim's); *sep receives the separator */
static const char *row_name(const cmp_table *t, int i, char *sep)
{
    const ss_results_row *r = &t->v[i].r;
    *sep = r->text[2][0] ? ' ' : '_';
    return r->text[2][0] ? r->text[2] : r->text[0];
}

/* 1 when rows i and j are scenarios of the same source and model (the first part of their
 * names, told apart alike; a measured row is none) */
static int same_group(const cmp_table *t, int i, int j)
{
    char si, sj;
    const char *a = row_name(t, i, &si), *b = row_name(t, j, &sj);
    const char set[2] = {si, '\0'};
    size_t la = strcspn(a, set);
    return si == sj && strcmp(t->v[i].r.text[0], "measured") && strcmp(t->v[j].r.text[0], "measured") &&
           !strcmp(t->v[i].source, t->v[j].source) && la == strcspn(b, set) && !strncmp(a, b, la);
}

/* The rows' groups (a source's scenarios of one model; a measured row is in none), each
 * with the name parts that all of its scenarios share past the model's */
typedef struct {
    int row, members; /* its first row, its rows */
    char shared[256];
} name_group;

/* gid[i]: row i's group in *groups (-1: none); returns the number of groups, -1 out of memory */
static int name_groups(const cmp_table *t, int *gid, name_group **groups)
{
    int ng = 0, cap = 0;
    name_group *g = NULL;
    for (int i = 0; i < t->n; i++) {
        gid[i] = -1;
        if (!strcmp(t->v[i].r.text[0], "measured")) continue;
        for (int k = 0; k < ng && gid[i] < 0; k++)
            if (same_group(t, g[k].row, i)) gid[i] = k;
        if (gid[i] < 0) {
            if (ng == cap) {
                name_group *ng2 = realloc(g, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *g);
                if (!ng2) {
                    free(g);
                    return -1;
                }
                g = ng2;
            }
            g[ng] = (name_group){.row = i};
            gid[i] = ng++;
        }
        g[gid[i]].members++;
    }
    const char **names = malloc((size_t)(t->n > 0 ? t->n : 1) * sizeof *names);
    if (!names) {
        free(g);
        return -1;
    }
    for (int k = 0; k < ng; k++) {
        int m = 0;
        char sep = '_';
        for (int i = 0; i < t->n; i++)
            if (gid[i] == k) names[m++] = row_name(t, i, &sep);
        /* labels: their key=value settings, as run's table drops them */
        ss_parts_shared(names, m, sep, sep == ' ', g[k].shared, sizeof g[k].shared);
    }
    free(names);
    *groups = g;
    return ng;
}

/* Row i's scenario as the table shows it: its label (or name) without the parts that every
 * scenario of its group shares (said once under the table) */
static void shown_name(const cmp_table *t, int i, const int *gid, const name_group *g, char *buf, size_t n)
{
    char sep;
    const char *name = row_name(t, i, &sep);
    ss_parts_drop(name, gid && gid[i] >= 0 ? g[gid[i]].shared : "", sep, buf, n);
}

static void print_table(const cmp_table *t, FILE *out)
{
    const ss_column *cc[SS_RESULTS_MAX_COLUMNS];
    int ci[SS_RESULTS_MAX_COLUMNS];
    int ncc = compare_columns(cc, ci);
    const ss_results_row *b = &t->v[0].r;
    char h[64], nm[256];
    /* without memory for the groups, the names are shown whole */
    int *gid = malloc((size_t)(t->n > 0 ? t->n : 1) * sizeof *gid);
    name_group *g = NULL;
    int ng = gid ? name_groups(t, gid, &g) : -1;
    if (ng < 0) {
        free(gid);
        gid = NULL;
    }
    /* the source and scenario columns as wide as their longest entries (names differ only
     * at their ends: cutting them would make rows look alike) */
    int ws = 6, wn = 8;
    for (int i = 0; i < t->n; i++) {
        shown_name(t, i, gid, g, nm, sizeof nm);
        int a = (int)strlen(shown_source(t, i)), c = (int)strlen(nm);
        ws = a > ws ? a : ws;
        wn = c > wn ? c : wn;
    }
    /* per column: its value and, against the first row, the difference in % where the
     * column has one (iteration, stall, delay), else in its own unit (points of a share) */
    fprintf(out, "%-*s %-*s", ws, "source", wn, "scenario");
    for (int k = 0; k < ncc; k++) {
        if (cc[k]->type != SS_COL_F64) {
            fprintf(out, " %6s", "iters");
            continue;
        }
        short_header(cc[k], h, sizeof h);
        fprintf(out, " %10.10s %8s", h, cc[k]->flags & SS_COLF_COMPARE_PCT ? "diff%" : "diff");
    }
    fputc('\n', out);
    for (int i = 0; i < t->n; i++) {
        const ss_results_row *r = &t->v[i].r;
        shown_name(t, i, gid, g, nm, sizeof nm);
        fprintf(out, "%-*s %-*s", ws, shown_source(t, i), wn, nm);
        for (int k = 0; k < ncc; k++) {
            double v = r->num[ci[k]], ref = b->num[ci[k]];
            const int is_pct = (cc[k]->flags & SS_COLF_COMPARE_PCT) != 0;
            if (cc[k]->type != SS_COL_F64) fprintf(out, " %6.0f", v);
            else if (isnan(v)) fprintf(out, " %10s %8s", "-", "-"); /* not recorded (cpu_load_pct of a trace) */
            else if (isnan(ref)) fprintf(out, is_pct ? " %10.4f %8s" : " %10.2f %8s", v, "-");
            else if (is_pct && !isfinite(pct(v, ref))) fprintf(out, " %10.4f %8s", v, "-"); /* against 0 */
            else if (is_pct) fprintf(out, " %10.4f %+8.2f", v, pct(v, ref));
            else fprintf(out, " %10.2f %+8.2f", v, v - ref);
        }
        fputc('\n', out);
    }
    /* the name parts left out, per source and model */
    for (int k = 0; k < ng; k++)
        if (g[k].members >= 2 && g[k].shared[0]) {
            char sep;
            const char *full = row_name(t, g[k].row, &sep);
            if (sep == ' ')
                fprintf(out, "every %.*s row of %s has %s (not repeated in its label; summary.csv: the full labels)\n",
                        (int)strcspn(full, " "), full, shown_source(t, g[k].row), g[k].shared);
            else
                fprintf(out, "every %.*s scenario of %s also has %s in its name (summary.csv: the full names)\n",
                        (int)strcspn(full, "_"), full, shown_source(t, g[k].row), g[k].shared);
        }
    fprintf(out, "differences are against the first row (%s, %s)\n", t->v[0].source, b->text[0]);
    /* compare before.h5 results after.h5: each prediction's error against the real run after */
    const cmp_row *last = &t->v[t->n - 1];
    const int it = iter_column();
    int npred = 0;
    /* only where the last row is the one real run after the change: not with a trace
     * between (several real runs: --match sets each beside its own prediction) */
    int mid_trace = 0;
    for (int i = 1; i < t->n - 1; i++) {
        npred += !t->v[i].trace && strcmp(t->v[i].r.text[0], "measured");
        mid_trace |= t->v[i].trace;
    }
    /* the first input a results folder and the last its own base trace (the same file, or,
     * where its run's name for it does not lead there from here, a measured row the same to
     * the last bit): the rows are predicted changes, not errors */
    int own_base = -1; /* the folder row whose base trace the last input is */
    for (int i = 0; i < t->n - 1 && own_base < 0 && last->trace; i++) {
        const cmp_row *f = &t->v[i];
        if (!f->trace && !strcmp(f->r.text[0], "measured") &&
            ((f->ino && f->ino == last->ino && f->dev == last->dev) || (!f->ino && same_numbers(f, last))))
            own_base = i;
    }
    if (own_base == 0 && npred > 0 && !t->match)
        fprintf(out, "the last row (%s) is the trace %s replays: each row's diff%% is a predicted change, not an error "
                     "against another run (compare a real run of the changed setting)\n",
                last->source, shown_source(t, own_base));
    else if (own_base < 0 && t->n >= 3 && last->trace && !mid_trace && !t->match && it >= 0 && npred > 0 &&
             last->r.num[it] > 0) {
        fprintf(out, "each prediction against the last row (%s, the real run), mean iteration time:\n", last->source);
        /* one line each, the names aligned (at most COMPARE_PRED_LINES rows: a sweep of a few
         * dozen scenarios shows whole, its heal rows too) */
        int shown = 0, width = 0;
        for (int pass = 0; pass < 2; pass++) {
            shown = 0;
            for (int i = 1; i < t->n - 1; i++) {
                if (t->v[i].trace || !strcmp(t->v[i].r.text[0], "measured") || isnan(t->v[i].r.num[it])) continue;
                if (shown == COMPARE_PRED_LINES) {
                    if (pass) fprintf(out, "  ... (--csv FILE has every row's iter_time_mean)\n");
                    break;
                }
                shown++;
                shown_name(t, i, gid, g, nm, sizeof nm);
                if (!pass && (int)strlen(nm) > width) width = (int)strlen(nm);
                if (pass) fprintf(out, "  %-*s %+7.1f %%\n", width, nm, pct(t->v[i].r.num[it], last->r.num[it]));
            }
        }
    }
    fprintf(out, "diff%%: in %% of the first row's value; diff (eff.dly%%, cpu%%): in points; --csv FILE writes every "
                 "column with both\n");
    free(g);
    free(gid);
}

static void csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (!isnan(v)) fprintf(f, "%.17g", v);
}

/* A CSV field, quoted when it holds a comma, a quote or a line end. */
static void csv_text(FILE *f, const char *v)
{
    if (!strpbrk(v, ",\"\r\n")) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"') fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

static int is_compare_csv(const char *path) { return ss_atomic_starts_with(path, "source,scenario,"); }

/* The CSV may replace an earlier compare CSV only: never one of the files read (a trace,
 * a folder's results.h5 or summary.csv), nor a file of another kind (`--csv` typed before
 * the inputs takes the first input as its value). */
static ss_status check_csv_output(const char *csv, char **inputs, int ninputs)
{
    const char **files = calloc((size_t)ninputs * 3 + 1, sizeof *files);
    char(*names)[4200] = calloc((size_t)ninputs * 2 + 1, sizeof *names);
    if (!files || !names) {
        free(files);
        free(names);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    int n = 0, m = 0;
    for (int i = 0; i < ninputs; i++) {
        files[n++] = inputs[i];
        snprintf(names[m], sizeof names[m], "%s/results.h5", inputs[i]);
        files[n++] = names[m++];
        snprintf(names[m], sizeof names[m], "%s/summary.csv", inputs[i]);
        files[n++] = names[m++];
    }
    ss_status st = ss_atomic_check_output(csv, files, n, is_compare_csv, "stallsim compare CSV");
    free(files);
    free(names);
    return st;
}

static ss_status write_csv(const cmp_table *t, const char *path)
{
    char tmp[4300];
    ss_status st = ss_atomic_tmpname(path, tmp, sizeof tmp);
    if (st != SS_OK) return st;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        ss_atomic_discard(tmp);
        return ss_fail(SS_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    const ss_column *cc[SS_RESULTS_MAX_COLUMNS];
    int ci[SS_RESULTS_MAX_COLUMNS];
    int ncc = compare_columns(cc, ci);
    char h[64];
    fputs("source,scenario,model,label", f);
    for (int k = 0; k < ncc; k++) {
        fprintf(f, ",%s", cc[k]->name);
        if (cc[k]->type != SS_COL_F64) continue;
        stem(cc[k]->name, h, sizeof h);
        fprintf(f, ",%s_diff", h);
        if (cc[k]->flags & SS_COLF_COMPARE_PCT) fprintf(f, ",%s_diff_pct", h);
    }
    fputc('\n', f);
    const ss_results_row *b = &t->v[0].r;
    for (int i = 0; i < t->n; i++) {
        const ss_results_row *r = &t->v[i].r;
        csv_text(f, t->v[i].source);
        fprintf(f, ",%s,%s,", r->text[0], r->text[1]);
        csv_text(f, r->text[2]);
        for (int k = 0; k < ncc; k++) {
            double v = r->num[ci[k]], ref = b->num[ci[k]];
            if (cc[k]->type != SS_COL_F64) {
                fprintf(f, ",%.0f", v);
                continue;
            }
            csv_num(f, v);
            csv_num(f, v - ref);
            if (cc[k]->flags & SS_COLF_COMPARE_PCT) csv_num(f, pct(v, ref));
        }
        fputc('\n', f);
    }
    int bad = ferror(f) | (fclose(f) != 0);
    if (bad) {
        ss_atomic_discard(tmp);
        return ss_fail(SS_EIO, "%s: write failed", path);
    }
    return ss_atomic_commit(tmp, path);
}

/* The results folders among a table's rows (not from a trace), each once: src[a] is the
 * first row of folder a, fold[i] row i's folder (-1: a trace), meas[a] the folder's
 * measured row (-1: none), rep[a] the earlier folder whose base run folder a replays
 * again (its measured row bit for bit that folder's: the same results.h5 named twice, or
 * the scenario file run again on the same trace), -1 for none. */
typedef struct {
    int n;
    int *src, *fold, *meas, *rep;
} cmp_folders;

static void folders_free(cmp_folders *f)
{
    free(f->src);
    free(f->fold);
    free(f->meas);
    free(f->rep);
    memset(f, 0, sizeof *f);
}

static ss_status folders_of(const cmp_table *t, cmp_folders *f)
{
    const size_t n = (size_t)(t->n > 0 ? t->n : 1);
    memset(f, 0, sizeof *f);
    f->src = malloc(n * sizeof *f->src);
    f->fold = malloc(n * sizeof *f->fold);
    f->meas = malloc(n * sizeof *f->meas);
    f->rep = malloc(n * sizeof *f->rep);
    if (!f->src || !f->fold || !f->meas || !f->rep) {
        folders_free(f);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < t->n; i++) {
        f->fold[i] = -1;
        if (t->v[i].trace) continue;
        for (int a = 0; a < f->n && f->fold[i] < 0; a++)
            if (!strcmp(t->v[f->src[a]].source, t->v[i].source)) f->fold[i] = a;
        if (f->fold[i] < 0) {
            f->fold[i] = f->n;
            f->src[f->n] = i;
            f->meas[f->n] = -1;
            f->rep[f->n++] = -1;
        }
        if (f->meas[f->fold[i]] < 0 && !strcmp(t->v[i].r.text[0], "measured")) f->meas[f->fold[i]] = i;
    }
    for (int a = 0; a < f->n; a++)
        for (int b = 0; b < a && f->rep[a] < 0 && f->meas[a] >= 0; b++)
            if (f->rep[b] < 0 && f->meas[b] >= 0 &&
                !memcmp(t->v[f->meas[a]].r.num, t->v[f->meas[b]].r.num, sizeof t->v[0].r.num))
                f->rep[a] = b;
    return SS_OK;
}

/* 1 when row i counts for --spread: a results folder's row, not one that replays another
 * folder's base run again */
static int spread_row(const cmp_folders *f, int i) { return f->fold[i] >= 0 && f->rep[f->fold[i]] < 0; }

/* 1 when the pipeline row's full label (text[2], "pipe f=none s=none W=4 P=2 fs=1 cs=1")
 * is a row without alignment of a loader of w workers and prefetch p (p < 1: any),
 * whatever its scales and heal */
static int label_loader(const char *label, int w, int p)
{
    char want_w[32], want_p[32];
    snprintf(want_w, sizeof want_w, " W=%d ", w);
    if (w == 0) snprintf(want_p, sizeof want_p, " P=- ");
    else if (p >= 1) snprintf(want_p, sizeof want_p, " P=%d ", p);
    else snprintf(want_p, sizeof want_p, " P=");
    char lab[SS_NAME_MAX + 2];
    snprintf(lab, sizeof lab, "%s ", label);
    return !strncmp(lab, "pipe f=none s=none ", 19) && strstr(lab, want_w) && strstr(lab, want_p);
}

/* 1 when the label is the plain prediction of loader (w, p): label_loader, and no scale or
 * heal */
static int label_matches(const char *label, int w, int p)
{
    char lab[SS_NAME_MAX + 2];
    snprintf(lab, sizeof lab, "%s ", label);
    return label_loader(label, w, p) && strstr(lab, " fs=1 ") && strstr(lab, " cs=1 ") && !strstr(lab, " heal=");
}

/* 1 when a real run of loader (w, p) has the loader of results folder row b's base trace
 * (calibrated, the same on every GPU): its matched prediction is then the baseline replay */
static int base_loader(const cmp_row *b, int w, int p)
{
    return b->base.w >= 0 && w == b->base.w && (w == 0 || (b->base.p >= 1 && p == b->base.p));
}

/* A trace's recorded loader as the --match table shows it */
static const char *loader_name(int w, int p, char *buf, size_t n)
{
    if (w == -1) snprintf(buf, n, "-");
    else if (w == -2) snprintf(buf, n, "per GPU");
    else if (w == 0) snprintf(buf, n, "W=0");
    else if (p >= 1) snprintf(buf, n, "W=%d P=%d", w, p);
    else snprintf(buf, n, "W=%d", w);
    return buf;
}

/* The row of results folder a's prediction of loader (w, p) (label_matches), -1 when none;
 * *more: how many other rows match too */
static int match_row(const cmp_table *t, const cmp_folders *f, int a, int w, int p, int *more)
{
    int hit = -1;
    *more = 0;
    for (int j = f->src[a]; j < t->n; j++)
        if (f->fold[j] == a && label_matches(t->v[j].r.text[2], w, p)) {
            if (hit < 0) hit = j;
            else (*more)++;
        }
    return hit;
}

/* How many pipeline rows of results folder a predict loader (w, p) with a fetch_scale,
 * compute_scale or heal (no alignment): a real run of that loader may be one of those (other
 * storage, a rank fixed), which its trace does not say */
static int match_others(const cmp_table *t, const cmp_folders *f, int a, int w, int p)
{
    int n = 0;
    for (int j = f->src[a]; j < t->n; j++) {
        if (f->fold[j] == a && !label_matches(t->v[j].r.text[2], w, p)) n += label_loader(t->v[j].r.text[2], w, p);
    }
    return n;
}

/* Real runs of one loader further apart than this share of their mean (real runs of one
 * setting on an idle machine: up to 10 %, README "How far to trust the predictions") may
 * differ in more than the loader: the mean line says so */
#define MATCH_APART 0.15

/* --match, a loader recorded more than once: each prediction of it against the mean of its
 * real runs (they differ from run to run: one run is one draw); not the base's own loader,
 * whose runs are set beside the baseline replay */
static void print_match_means(const cmp_table *t, const cmp_folders *f, int it, FILE *out)
{
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if (!r->trace || r->workers < 0) continue;
        int first = 1, n = 0;
        double s = 0.0, lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < t->n; k++) {
            const cmp_row *x = &t->v[k];
            if (!x->trace || x->workers != r->workers || (r->workers > 0 && x->prefetch != r->prefetch)) continue;
            if (k < i) first = 0;
            n++;
            s += x->r.num[it];
            lo = x->r.num[it] < lo ? x->r.num[it] : lo;
            hi = x->r.num[it] > hi ? x->r.num[it] : hi;
        }
        if (!first || n < 2) continue;
        const double mean = s / n;
        int shown = 0;
        for (int a = 0; a < f->n; a++) {
            int more, hit = match_row(t, f, a, r->workers, r->prefetch, &more);
            if (hit < 0 || base_loader(&t->v[f->src[a]], r->workers, r->prefetch)) continue;
            char loader[32];
            if (!shown++)
                fprintf(out, "%s, against the mean of its %d real runs (%.4f s, %.1f %% apart%s):",
                        loader_name(r->workers, r->prefetch, loader, sizeof loader), n, mean, 100.0 * (hi - lo) / mean,
                        hi - lo > MATCH_APART * mean ? ": more than real runs of one setting differ; are they one setting? "
                                                       "--match pairs by the loader alone" : "");
            fprintf(out, "%s %s %+.1f %%", shown > 1 ? "," : "", shown_source(t, f->src[a]), pct(t->v[hit].r.num[it], mean));
        }
        if (shown) fprintf(out, "\n");
    }
}

/* --match: each trace beside the prediction of its recorded loader (label_matches), the
 * error of the mean iteration time, and the mean |error| over the what-ifs (a real run with
 * the base's own loader is set beside the baseline replay, shown and left out of it) */
static void print_matches(const cmp_table *t, const cmp_folders *f, FILE *out)
{
    const int it = iter_column();
    if (it < 0) return;
    int wsrc = 8, ntr = 0;
    for (int i = 0; i < t->n; i++)
        if (t->v[i].trace) {
            int l = (int)strlen(shown_source(t, i));
            wsrc = l > wsrc ? l : wsrc;
            ntr++;
        }
    if (ntr == 0) {
        fprintf(out, "--match: no trace among the inputs (a real run to set beside its prediction)\n");
        return;
    }
    /* each real run is set beside each results folder's prediction, and each folder gets
     * its own mean */
    int nown = 0, nother = 0;
    int *cnt = calloc((size_t)t->n, sizeof *cnt);
    double *sum = calloc((size_t)t->n, sizeof *sum);
    if (!cnt || !sum) {
        free(cnt);
        free(sum);
        return;
    }
    fprintf(out, "\neach real run beside the prediction of its recorded loader (pipeline rows without alignment, "
                 "fetch_scale, compute_scale or heal), mean iteration time:\n");
    fprintf(out, "%-*s %-10s %10s %10s %8s  %s\n", wsrc, "real run", "loader", "real (s)", "pred (s)", "error", "prediction");
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if (!r->trace) continue;
        char loader[32];
        loader_name(r->workers, r->prefetch, loader, sizeof loader);
        int any = 0;
        for (int a = 0; a < f->n && r->workers >= 0; a++) {
            int more, hit = match_row(t, f, a, r->workers, r->prefetch, &more);
            if (hit < 0) continue;
            const double e = pct(t->v[hit].r.num[it], r->r.num[it]);
            const int own = base_loader(&t->v[f->src[a]], r->workers, r->prefetch);
            if (own) {
                nown++;
            } else {
                sum[a] += fabs(e);
                cnt[a]++;
            }
            char more_txt[160] = "", alike[32] = "";
            if (more) snprintf(alike, sizeof alike, "; +%d more alike", more);
            const int others = match_others(t, f, a, r->workers, r->prefetch);
            nother += others > 0;
            if (own) snprintf(more_txt, sizeof more_txt, " (the base's own loader: the baseline replay, not in the mean%s)",
                              alike);
            else if (more) snprintf(more_txt, sizeof more_txt, " (+%d more alike)", more);
            if (others)
                snprintf(more_txt + strlen(more_txt), sizeof more_txt - strlen(more_txt), " [+%d with fetch_scale, "
                         "compute_scale or heal]", others);
            fprintf(out, "%-*s %-10s %10.4f %10.4f %+7.1f%%  %s: %s%s\n", wsrc, any ? "" : shown_source(t, i),
                    any ? "" : loader, r->r.num[it], t->v[hit].r.num[it], e, shown_source(t, hit), t->v[hit].r.text[2],
                    more_txt);
            any = 1;
        }
        if (!any)
            fprintf(out, "%-*s %-10s %10.4f %10s %8s  %s\n", wsrc, shown_source(t, i), loader, r->r.num[it], "-", "-",
                    r->workers == -1   ? "the trace records no loader settings"
                    : r->workers == -2 ? "its GPUs' workers differ: set it beside a row yourself"
                                       : "no such prediction among the inputs");
    }
    print_match_means(t, f, it, out);
    if (nother)
        fprintf(out, "[+N with ...]: the results folder also predicts that loader with other storage, compute or a GPU "
                     "healed, which a real run's trace does not show: a run recorded so is set here beside the plain "
                     "prediction, and its error (and the mean below) is not the model's; set it beside its own "
                     "scenario without --match\n");
    if (nown)
        fprintf(out, "a real run with its base trace's own loader settings is set beside the baseline replay: if it "
                     "differs from the base in what the loader settings do not show (a rank fixed, other storage), "
                     "set it beside the scenario that says so (heal, fetch_scale) without --match\n");
    for (int a = 0; a < f->n; a++) {
        if (cnt[a] == 0) continue;
        fprintf(out, "mean |error| over the %d matched real run%s", cnt[a], cnt[a] == 1 ? "" : "s");
        if (f->n > 1) fprintf(out, ", predicted by %s", shown_source(t, f->src[a]));
        fprintf(out, ": %.1f %%\n", sum[a] / cnt[a]);
    }
    free(cnt);
    free(sum);
}

/* A row's key for --spread: its label as the tables show it (the same resolved settings
 * whether the scenario file said workers = auto or 2), its summary.csv name where the file
 * has no labels */
static const char *spread_key(const cmp_row *r) { return r->r.text[2][0] ? r->r.text[2] : r->r.text[0]; }

/* --spread: every scenario (by its label) that two or more results folders hold, with the
 * least and largest mean iteration time and their spread, (largest - least) / their mean;
 * the median and the largest spread over the predictions. The measured rows are the base
 * runs themselves. Folders that repeat another's base run (spread_sources) are left out
 * and said so. */
static void print_spread(const cmp_table *t, const cmp_folders *f, FILE *out)
{
    const int it = iter_column();
    double *spreads = malloc((size_t)(t->n > 0 ? t->n : 1) * sizeof *spreads);
    if (it < 0 || !spreads) {
        free(spreads);
        return;
    }
    int nuse = 0;
    for (int a = 0; a < f->n; a++) {
        if (f->rep[a] < 0) {
            nuse++;
            continue;
        }
        fprintf(out, "\n--spread: %s replayed the same base run as %s (their measured rows are identical), so it is "
                     "left out: run the scenario file on another recording (--set trace.path=...)",
                t->v[f->src[a]].source, t->v[f->src[f->rep[a]]].source);
    }
    if (nuse < f->n) fprintf(out, "\n");
    /* base runs of different loaders: a spread across settings, not across runs of one */
    for (int a = 0, first = -1; a < f->n; a++) {
        const cmp_row *r = &t->v[f->src[a]];
        if (f->rep[a] >= 0 || r->base.workers < 0) continue;
        if (first < 0) first = f->src[a];
        else if (r->base.workers != t->v[first].base.workers) {
            fprintf(out, "\n--spread: the base runs' loaders differ (%s: %ld workers, %s: %ld): this spread is across "
                         "settings, not across runs of one setting\n",
                    t->v[first].source, t->v[first].base.workers, r->source, r->base.workers);
            break;
        }
    }
    int nsp = 0, left = 0, shown = 0, worst = -1, wname = 8;
    char nm[SS_NAME_MAX + 24], worst_nm[SS_NAME_MAX] = "", left_txt[512] = "";
    for (int i = 0; i < t->n; i++) {
        if (!spread_row(f, i)) continue;
        int l = (int)strlen(spread_key(&t->v[i]));
        if (!strcmp(t->v[i].r.text[0], "measured")) l += (int)strlen(" (the base runs)");
        wname = l > wname ? l : wname;
    }
    wname = wname < 60 ? wname : 60;
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if (!spread_row(f, i)) continue;
        int first = 1;
        for (int j = 0; j < i && first; j++) first = !spread_row(f, j) || strcmp(spread_key(&t->v[j]), spread_key(r));
        if (!first) continue;
        int n = 0;
        double lo = INFINITY, hi = -INFINITY, sum = 0.0;
        for (int j = i; j < t->n; j++) {
            const cmp_row *q = &t->v[j];
            if (!spread_row(f, j) || strcmp(spread_key(q), spread_key(r)) || !isfinite(q->r.num[it])) continue;
            n++;
            sum += q->r.num[it];
            lo = q->r.num[it] < lo ? q->r.num[it] : lo;
            hi = q->r.num[it] > hi ? q->r.num[it] : hi;
        }
        if (n < 2) {
            if (left++ < 6) { /* named, as many as fit */
                char one[SS_NAME_MAX + sizeof r->source + 8];
                snprintf(one, sizeof one, "%s%s (%s)", left > 1 ? ", " : "", spread_key(r), r->source);
                size_t u = strlen(left_txt), l = strlen(one);
                if (u + l < sizeof left_txt) memcpy(left_txt + u, one, l + 1);
            }
            continue;
        }
        const int measured = !strcmp(r->r.text[0], "measured");
        const double mean = sum / n, sp = mean > 0.0 ? 100.0 * (hi - lo) / mean : NAN;
        if (shown++ == 0) {
            fprintf(out, "\nthe same scenarios from %d results folders (each from its own base run), mean iteration "
                         "time:\n", nuse);
            fprintf(out, "%-*s %4s %10s %10s %8s\n", wname, "scenario", "n", "least (s)", "most (s)", "spread");
        }
        snprintf(nm, sizeof nm, "%s%s", spread_key(r), measured ? " (the base runs)" : "");
        fprintf(out, "%-*s %4d %10.4f %10.4f %7.1f%%\n", wname, nm, n, lo, hi, sp);
        if (!measured && isfinite(sp)) {
            if (worst < 0 || sp > spreads[worst]) {
                worst = nsp;
                snprintf(worst_nm, sizeof worst_nm, "%s", spread_key(r));
            }
            spreads[nsp++] = sp;
        }
    }
    if (shown == 0 || nsp == 0)
        fprintf(out, "--spread: no prediction is in two of the results folders (scenarios are matched by their "
                     "labels: the same settings)\n");
    if (nsp > 0) {
        const double w = spreads[worst];
        gsl_sort(spreads, 1, (size_t)nsp);
        fprintf(out, "spread = (most - least) / their mean: over the %d prediction%s median %.1f %%, largest %.1f %% "
                     "(%s). The least error to expect: a real run also differs from the next by its own noise, "
                     "and the model has its own biases (README, \"How far to trust the predictions\")\n",
                nsp, nsp == 1 ? "" : "s", gsl_stats_median_from_sorted_data(spreads, 1, (size_t)nsp), w, worst_nm);
    }
    if (left > 0)
        fprintf(out, "left out, in only one results folder (%d): %s%s\n", left, left_txt, left > 6 ? ", ..." : "");
    free(spreads);
}

/* --spread needs two results folders of different base runs: a usage error otherwise,
 * before anything is printed, naming the traces (which --spread does not use) and the
 * folders that repeat another's base run */
static ss_status check_spread(const cmp_table *t, const cmp_folders *f, char **inputs, int ninputs)
{
    int ntrace = 0, nuse = 0;
    char rep[2 * sizeof t->v[0].source + 64] = "", tr[sizeof t->v[0].source + 64] = "";
    for (int a = 0; a < f->n; a++) {
        if (f->rep[a] < 0) nuse++;
        else if (!rep[0])
            snprintf(rep, sizeof rep, "; %s replayed the same base run as %s", t->v[f->src[a]].source,
                     t->v[f->src[f->rep[a]]].source);
    }
    for (int i = 0; i < t->n; i++)
        if (t->v[i].trace && ntrace++ == 0)
            snprintf(tr, sizeof tr, "; %s is a trace (--spread compares results folders)", t->v[i].source);
    for (int i = 1; i < ninputs && !rep[0]; i++)
        for (int j = 0; j < i && !rep[0]; j++)
            if (!strcmp(inputs[i], inputs[j])) snprintf(rep, sizeof rep, "; %.*s is named twice", 256, inputs[i]);
    if (nuse >= 2) return SS_OK;
    return ss_fail(SS_EUSAGE,
                   "compare --spread: needs two or more results folders of different base runs, has %d%s%s (run the "
                   "scenario file on each recording: stallsim run scen.ini --set trace.path=base-2.h5 --out res-2)",
                   nuse, rep, tr);
}

static int compare_main(int argc, char **argv)
{
    ss_config opts;
    ss_config_defaults(&opts);
    const char *csv = NULL;
    int explicit_[3] = {0, 0, 0}, spread = 0;
    cmp_table t = {0};
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int ninputs = 0;
    if (!inputs) return ss_cmd_fail(ss_fail(SS_ENOMEM, "out of memory"));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(compare_usage, stdout);
            free(inputs);
            return 0;
        }
        if (!strcmp(a, "--match")) {
            t.match = 1;
            continue;
        }
        if (!strcmp(a, "--spread")) {
            spread = 1;
            continue;
        }
        if (!strcmp(a, "--csv") || !strcmp(a, "--warmup") || !strcmp(a, "--threshold") || !strcmp(a, "--epoch")) {
            if (i + 1 >= argc) {
                free(inputs);
                return ss_cmd_fail(ss_fail(SS_EUSAGE, "compare: %s needs a value", a));
            }
            const char *v = argv[++i];
            ss_status st = SS_OK;
            if (!strcmp(a, "--csv")) csv = v;
            else {
                explicit_[!strcmp(a, "--warmup") ? 0 : !strcmp(a, "--threshold") ? 1 : 2] = 1;
                st = ss_cmd_set_option(&opts, "compare", a, !strcmp(a, "--warmup") ? "trace.warmup_iterations"
                                                            : !strcmp(a, "--epoch") ? "trace.epoch"
                                                                                    : "summary.effective_delay_threshold",
                                       v);
            }
            if (st != SS_OK) {
                free(inputs);
                ss_config_free(&opts);
                return ss_cmd_fail(st);
            }
        } else if (a[0] == '-' && a[1]) {
            free(inputs);
            return ss_cmd_fail(ss_fail(SS_EUSAGE, "compare: unknown option '%s' (see stallsim compare --help)", a));
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (ninputs < 1) {
        free(inputs);
        fputs(compare_usage, stderr);
        return 2;
    }
    cmp_folders folders = {0};
    ss_status st = csv ? check_csv_output(csv, inputs, ninputs) : SS_OK;
    if (st == SS_OK) st = align_settings(inputs, ninputs, &opts, explicit_);
    for (int i = 0; st == SS_OK && i < ninputs; i++) st = add_input(&t, inputs[i], &opts);
    if (st == SS_OK && (t.match || spread)) st = folders_of(&t, &folders);
    if (st == SS_OK && spread) st = check_spread(&t, &folders, inputs, ninputs);
    if (st == SS_OK && csv) ss_atomic_sweep_stale_beside(csv);
    if (st == SS_OK) {
        print_table(&t, stdout);
        if (t.match) print_matches(&t, &folders, stdout);
        if (spread) print_spread(&t, &folders, stdout);
        if (csv) st = write_csv(&t, csv);
    }
    folders_free(&folders);
    free(t.v);
    free(inputs);
    ss_config_free(&opts);
    return st == SS_OK ? 0 : ss_cmd_fail(st);
}

int ss_cmd_compare(const ss_comm *c, int argc, char **argv)
{
    int rc = c->rank == 0 ? compare_main(argc, argv) : 0;
    if (c->mpi) MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm);
    return rc;
}
