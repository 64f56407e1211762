/* ss_cmd_compare_table.c - `stallsim compare`'s table: rows side by side, and their CSV. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ss_atomic.h"
#include "ss_columns.h"
#include "ss_cmd.h"
#include "ss_model.h"
#include "ss_parts.h"
#include "ss_report.h"
#include "ss_results.h"
#include "ss_cmd_compare.h"

/* compare RESULTS... REAL.h5 lists at most this many predictions' errors, a line each */
#define COMPARE_PRED_LINES 100

double cmp_pct(double v, double ref) { return ref != 0 ? 100.0 * (v / ref - 1.0) : NAN; }

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

int cmp_column(const char *name)
{
    int nc;
    const ss_column *cols = ss_columns(&nc), *c = ss_column_find(name);
    return c && c - cols < SS_RESULTS_MAX_COLUMNS ? (int)(c - cols) : -1;
}

int cmp_iter_column(void) { return cmp_column("iter_time_mean"); }
int cmp_run_column(void) { return cmp_column("run_time"); }
int cmp_rows_column(void) { return cmp_column("iterations"); }

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
const char *cmp_shown_source(const cmp_table *t, int i)
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
    else if (!strcmp(st, "epoch_start")) snprintf(h, n, "start (s)"); /* (10 characters at most) */
    else if (!strcmp(c->unit, "s")) snprintf(h, n, "%s (s)", st);
    else if (l > 4 && !strcmp(st + l - 4, "_pct")) snprintf(h, n, "%.*s%%", (int)(l - 4), st);
    else snprintf(h, n, "%s", st);
}

/* Row i's scenario as run's table labels it (the model's short label, then settings such as
 * "W=2 fs=0.5", parts apart by spaces), or
 * its summary.csv name (parts apart by '_') where the file has no labels (an older
 * stallsim's); *sep receives the separator */
static const char *row_name(const cmp_table *t, int i, char *sep)
{
    const ss_results_row *r = &t->v[i].r;
    *sep = r->text[2][0] ? ' ' : '_';
    return r->text[2][0] ? r->text[2] : r->text[0];
}

/* What the labels' abbreviations mean: once for each model with a row in the table (its
 * label first, as run's table names them), and what heal=G means where a row heals one */
static void print_label_legends(const cmp_table *t, FILE *out)
{
    int any_set = 0; /* (what a set of GPUs healed means is said once, after every model's legend) */
    for (int m = 0; m < SS_NMODELS; m++) {
        const ss_model_ops *o = ss_model_get((ss_model)m);
        const size_t n = strlen(o->label);
        int seen = 0, heal = 0, heal_set = 0;
        for (int i = 0; i < t->n; i++) {
            char sep;
            const char *name = row_name(t, i, &sep);
            if (sep != ' ' || strncmp(name, o->label, n) != 0 || (name[n] != ' ' && name[n] != '\0')) continue;
            seen = 1;
            const char *h = strstr(name, " heal=");
            const int one = h && strcspn(h + 6, "+- ") == strcspn(h + 6, " ");
            heal |= one;
            heal_set |= h && !one;
        }
        if (seen && o->legend) fprintf(out, "%s: %s\n", o->label, o->legend);
        if (seen && heal) fprintf(out, "%s\n", ss_model_heal_legend(o));
        any_set |= seen && heal_set;
    }
    if (any_set) fprintf(out, "%s\n", ss_model_heal_set_legend);
}

/* 1 when rows i and j are replay rows of the same source and model (the first part of their
 * names, told apart alike), for the table's display */
static int same_group(const cmp_table *t, int i, int j)
{
    char si, sj;
    const char *a = row_name(t, i, &si), *b = row_name(t, j, &sj);
    const char set[2] = {si, '\0'};
    size_t la = strcspn(a, set);
    return si == sj && t->v[i].kind == CMP_REPLAY && t->v[j].kind == CMP_REPLAY &&
           !strcmp(t->v[i].source, t->v[j].source) && la == strcspn(b, set) && !strncmp(a, b, la);
}

/* The rows' groups (a source's replay rows of one model; other rows are in none), each
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
        if (t->v[i].kind != CMP_REPLAY) continue;
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

void cmp_print_table(const cmp_table *t, FILE *out)
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
        int a = (int)strlen(cmp_shown_source(t, i)), c = (int)strlen(nm);
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
        fprintf(out, "%-*s %-*s", ws, cmp_shown_source(t, i), wn, nm);
        for (int k = 0; k < ncc; k++) {
            double v = r->num[ci[k]], ref = b->num[ci[k]];
            const int is_pct = (cc[k]->flags & SS_COLF_COMPARE_PCT) != 0;
            if (cc[k]->type != SS_COL_F64) fprintf(out, " %6.0f", v);
            else if (isnan(v)) fprintf(out, " %10s %8s", "-", "-"); /* not recorded (cpu_load_pct of a trace) */
            else if (isnan(ref)) fprintf(out, is_pct ? " %10.4f %8s" : " %10.2f %8s", v, "-");
            else if (is_pct && !isfinite(cmp_pct(v, ref))) fprintf(out, " %10.4f %8s", v, "-"); /* against 0 */
            else if (is_pct) fprintf(out, " %10.4f %+8.2f", v, cmp_pct(v, ref));
            else fprintf(out, " %10.2f %+8.2f", v, v - ref);
        }
        fputc('\n', out);
    }
    print_label_legends(t, out);
    /* the name parts left out, per source and model */
    for (int k = 0; k < ng; k++)
        if (g[k].members >= 2 && g[k].shared[0]) {
            char sep;
            const char *full = row_name(t, g[k].row, &sep);
            if (sep == ' ')
                fprintf(out, "every %.*s row of %s has %s (not repeated in its label; summary.csv: the full labels)\n",
                        (int)strcspn(full, " "), full, cmp_shown_source(t, g[k].row), g[k].shared);
            else
                fprintf(out, "every %.*s scenario of %s also has %s in its name (summary.csv: the full names)\n",
                        (int)strcspn(full, "_"), full, cmp_shown_source(t, g[k].row), g[k].shared);
        }
    fprintf(out, "differences are against the first row (%s, %s)\n", t->v[0].source, b->text[0]);
    /* compare before.h5 results after.h5: each prediction's error against the real run after */
    const cmp_row *last = &t->v[t->n - 1];
    const int it = cmp_iter_column();
    int npred = 0;
    /* only where the last row is the one real run after the change: not with a trace
     * between (several real runs: --match sets each beside its own prediction) */
    int mid_trace = 0;
    for (int i = 1; i < t->n - 1; i++) {
        npred += t->v[i].kind == CMP_REPLAY;
        mid_trace |= t->v[i].kind == CMP_TRACE;
    }
    /* the first input a results folder and the last its own base trace (the same file, or,
     * where its run's name for it does not lead there from here, a measured row the same to
     * the last bit): the rows are predicted changes, not errors */
    int own_base = -1; /* the folder row whose base trace the last input is */
    for (int i = 0; i < t->n - 1 && own_base < 0 && last->kind == CMP_TRACE; i++) {
        const cmp_row *f = &t->v[i];
        if (f->kind == CMP_MEASURED &&
            ((f->ino && f->ino == last->ino && f->dev == last->dev) || (!f->ino && same_numbers(f, last))))
            own_base = i;
    }
    if (own_base == 0 && npred > 0 && !t->match)
        fprintf(out, "the last row (%s) is the trace %s replays: each row's diff%% is a predicted change, not an error "
                     "against another run (compare a real run of the changed setting)\n",
                last->source, cmp_shown_source(t, own_base));
    else if (own_base < 0 && t->n >= 3 && last->kind == CMP_TRACE && !mid_trace && !t->match && it >= 0 && npred > 0 &&
             last->r.num[it] > 0) {
        /* the whole run beside it, where a row has as many iterations as the real run */
        const int run = cmp_run_column(), nrow = cmp_rows_column();
        fprintf(out, "each prediction against the last row (%s, the real run), mean iteration time%s:\n", last->source,
                run >= 0 ? ", whole run" : "");
        /* one line each, the names aligned (at most COMPARE_PRED_LINES rows: a sweep of a few
         * dozen scenarios shows whole, its heal rows too) */
        int shown = 0, width = 0;
        for (int pass = 0; pass < 2; pass++) {
            shown = 0;
            for (int i = 1; i < t->n - 1; i++) {
                if (t->v[i].kind != CMP_REPLAY || isnan(t->v[i].r.num[it])) continue;
                if (shown == COMPARE_PRED_LINES) {
                    if (pass) fprintf(out, "  ... (--csv FILE has every row's iter_time_mean)\n");
                    break;
                }
                shown++;
                shown_name(t, i, gid, g, nm, sizeof nm);
                if (!pass && (int)strlen(nm) > width) width = (int)strlen(nm);
                if (!pass) continue;
                fprintf(out, "  %-*s %+7.1f %%", width, nm, cmp_pct(t->v[i].r.num[it], last->r.num[it]));
                const double er = run >= 0 && (nrow < 0 || t->v[i].r.num[nrow] == last->r.num[nrow])
                                      ? cmp_pct(t->v[i].r.num[run], last->r.num[run])
                                      : NAN;
                if (run >= 0 && !isnan(er)) fprintf(out, " %+7.1f %%", er);
                else if (run >= 0) fprintf(out, " %9s", "-");
                fputc('\n', out);
            }
        }
    }
    else if (mid_trace && last->kind == CMP_TRACE && !t->match && npred > 0)
        fprintf(out, "no prediction errors: a real run stands between the first input and the last (give one real run "
                     "last and none between, or --match to set each beside the prediction of its loader)\n");
    fprintf(out, "diff%%: in %% of the first row's value; diff: in points (eff.dly%%, cpu%%) or seconds (start: an "
                 "epoch's start); --csv FILE writes every column with both\n");
    free(g);
    free(gid);
}

void cmp_csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (!isnan(v)) fprintf(f, "%.17g", v);
}

/* a compare CSV: the table's (source,scenario,...) or --match's (real_run,measure,...) */
static int is_compare_csv(const char *path)
{
    return ss_atomic_starts_with(path, "source,scenario,") || ss_atomic_starts_with(path, CMP_MATCH_CSV_HEAD);
}

void cmp_match_csv_path(const char *csv, char *out, size_t n)
{
    const size_t l = strlen(csv);
    const int ext = l > 4 && !strcmp(csv + l - 4, ".csv");
    snprintf(out, n, "%.*s-match.csv", (int)(ext ? l - 4 : l), csv);
}

ss_status cmp_csv_open(const char *path, char *tmp, size_t n, FILE **f)
{
    *f = NULL;
    ss_status st = ss_atomic_tmpname(path, tmp, n);
    if (st != SS_OK) return st;
    *f = fopen(tmp, "w");
    if (*f) return SS_OK;
    int e = errno;
    ss_atomic_discard(tmp);
    return ss_fail(SS_EIO, "%s: cannot write: %s", path, strerror(e));
}

ss_status cmp_csv_close(FILE *f, const char *tmp, const char *path, ss_status st)
{
    int bad = ferror(f) | (fclose(f) != 0);
    if (st != SS_OK || bad) {
        ss_atomic_discard(tmp);
        return st != SS_OK ? st : ss_fail(SS_EIO, "%s: write failed", path);
    }
    return ss_atomic_commit(tmp, path);
}

/* The CSV may replace an earlier compare CSV only: never one of the files read (a trace,
 * a folder's results.h5 or summary.csv), nor a file of another kind (`--csv` typed before
 * the inputs takes the first input as its value). */
ss_status cmp_check_csv_output(const char *csv, char **inputs, int ninputs)
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
    /* its folder must take the file before the table is printed, not after */
    char dir[4200];
    ss_folder_of(csv, dir, sizeof dir);
    struct stat ds;
    if (st == SS_OK && stat(dir, &ds) != 0)
        st = errno == ENOENT ? ss_fail(SS_EIO, "%s: cannot write: the folder %s does not exist", csv, dir)
                             : ss_fail(SS_EIO, "%s: cannot write: %s: %s", csv, dir, strerror(errno));
    else if (st == SS_OK && !S_ISDIR(ds.st_mode))
        st = ss_fail(SS_EIO, "%s: cannot write: %s is not a folder", csv, dir);
    else if (st == SS_OK && access(dir, W_OK | X_OK) != 0)
        st = ss_fail(SS_EIO, "%s: cannot write: the folder %s is not writable (%s)", csv, dir, strerror(errno));
    return st;
}

ss_status cmp_write_csv(const cmp_table *t, const char *path)
{
    char tmp[4300];
    FILE *f;
    ss_status st = cmp_csv_open(path, tmp, sizeof tmp, &f);
    if (st != SS_OK) return st;
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
        ss_report_csv_text(f, t->v[i].source);
        fprintf(f, ",%s,%s,", r->text[0], r->text[1]);
        ss_report_csv_text(f, r->text[2]);
        for (int k = 0; k < ncc; k++) {
            double v = r->num[ci[k]], ref = b->num[ci[k]];
            if (cc[k]->type != SS_COL_F64) {
                fprintf(f, ",%.0f", v);
                continue;
            }
            cmp_csv_num(f, v);
            cmp_csv_num(f, v - ref);
            if (cc[k]->flags & SS_COLF_COMPARE_PCT) cmp_csv_num(f, cmp_pct(v, ref));
        }
        fputc('\n', f);
    }
    return cmp_csv_close(f, tmp, path, SS_OK);
}
