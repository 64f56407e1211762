/* ss_cmd_compare_match.c - `stallsim compare --match` and `--spread`: real runs and predictions paired. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_cmd.h"
#include "ss_columns.h"
#include "ss_limits.h"
#include "ss_model.h"
#include "ss_model_ids.h"
#include "ss_report.h"
#include "ss_results.h"
#include "ss_cmd_compare.h"

/* 1 when rows a and b hold the same compared numbers (ss_columns.h, SS_COLF_COMPARE), bit
 * for bit */
static int same_bits(const ss_results_row *a, const ss_results_row *b)
{
    int nc;
    const ss_column *cols = ss_columns(&nc);
    for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS; k++)
        if ((cols[k].flags & SS_COLF_COMPARE) && cols[k].type != SS_COL_STR &&
            memcmp(&a->num[k], &b->num[k], sizeof a->num[k]))
            return 0;
    return 1;
}

void cmp_folders_free(cmp_folders *f)
{
    free(f->src);
    free(f->fold);
    free(f->meas);
    free(f->rep);
    memset(f, 0, sizeof *f);
}

ss_status cmp_folders_of(const cmp_table *t, cmp_folders *f)
{
    const size_t n = (size_t)(t->n > 0 ? t->n : 1);
    memset(f, 0, sizeof *f);
    f->src = malloc(n * sizeof *f->src);
    f->fold = malloc(n * sizeof *f->fold);
    f->meas = malloc(n * sizeof *f->meas);
    f->rep = malloc(n * sizeof *f->rep);
    if (!f->src || !f->fold || !f->meas || !f->rep) {
        cmp_folders_free(f);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < t->n; i++) {
        f->fold[i] = -1;
        if (t->v[i].kind == CMP_TRACE) continue;
        for (int a = 0; a < f->n && f->fold[i] < 0; a++)
            if (!strcmp(t->v[f->src[a]].source, t->v[i].source)) f->fold[i] = a;
        if (f->fold[i] < 0) {
            f->fold[i] = f->n;
            f->src[f->n] = i;
            f->meas[f->n] = -1;
            f->rep[f->n++] = -1;
        }
        if (f->meas[f->fold[i]] < 0 && t->v[i].kind == CMP_MEASURED) f->meas[f->fold[i]] = i;
    }
    for (int a = 0; a < f->n; a++)
        for (int b = 0; b < a && f->rep[a] < 0 && f->meas[a] >= 0; b++)
            if (f->rep[b] < 0 && f->meas[b] >= 0 && same_bits(&t->v[f->meas[a]].r, &t->v[f->meas[b]].r))
                f->rep[a] = b;
    return SS_OK;
}

/* 1 when row i counts for --spread: a results folder's row, not one that replays another
 * folder's base run again */
static int spread_row(const cmp_folders *f, int i) { return f->fold[i] >= 0 && f->rep[f->fold[i]] < 0; }

const char *cmp_checked_model(void)
{
    for (int m = 0; m < SS_NMODELS; m++)
        if (ss_model_get((ss_model)m)->ranks_alone) return ss_model_get((ss_model)m)->name;
    return NULL;
}

/* A real run's recorded loader, as --match pairs it: W, P (< 1: any) and persistent_workers
 * (pw: 1, 0, or -1 unknown, which matches either) */
typedef struct {
    int w, p, pw;
} loader_key;

static loader_key key_of_trace(const cmp_row *r) { return (loader_key){r->workers, r->prefetch, r->persistent}; }

/* 1 when persistent_workers a and b (-1: unknown) may be the same; with no workers it means nothing */
static int same_pw(int w, int a, int b) { return w == 0 || a < 0 || b < 0 || a == b; }

/* Row r's persistent_workers: as its scenario set it, else its base trace's; auto on a
 * synchronous base trace starts the scenario's workers at every epoch (0); -1 unknown */
static int row_pw(const cmp_row *r)
{
    if (r->set.persistent >= 0) return r->set.persistent;
    return r->base.pw >= 0 ? r->base.pw : r->base.w == 0 ? 0 : -1;
}

/* 1 when row r is a prediction of loader k (its workers and prefetch columns, and its
 * persistent_workers: as its scenario set it, else its base trace's) without alignment,
 * whatever its scales and heal, by the model whose predictions are checked against real runs */
static int predicts_loader(const cmp_row *r, loader_key k)
{
    if (r->kind != CMP_REPLAY || r->model < 0 || !ss_model_get((ss_model)r->model)->ranks_alone || !r->set.unaligned)
        return 0;
    return r->set.workers == k.w && (k.w == 0 || k.p < 1 || r->set.prefetch == k.p) && same_pw(k.w, k.pw, row_pw(r));
}

/* 1 when row r is the plain prediction of loader k: predicts_loader, at fetch_scale and
 * compute_scale 1, healing no GPU */
static int plain_prediction(const cmp_row *r, loader_key k)
{
    return predicts_loader(r, k) && r->set.fetch_scale == 1.0 && r->set.compute_scale == 1.0 && !r->set.healed;
}

/* 1 when a real run of loader k has the loader of results folder row b's base trace
 * (calibrated, the same on every GPU): its matched prediction is then the baseline replay */
static int base_loader(const cmp_row *b, loader_key k)
{
    return b->base.w >= 0 && k.w == b->base.w && (k.w == 0 || (b->base.p >= 1 && k.p == b->base.p)) &&
           same_pw(k.w, k.pw, b->base.pw);
}

/* A trace's recorded loader as the --match table shows it */
static const char *loader_name(loader_key k, char *buf, size_t n)
{
    const char *pw = k.w > 0 && k.pw == 1 ? " pw" : "";
    if (k.w == -1) snprintf(buf, n, "-");
    else if (k.w == -2) snprintf(buf, n, "per GPU");
    else if (k.w == 0) snprintf(buf, n, "W=0");
    else if (k.p >= 1) snprintf(buf, n, "W=%d P=%d%s", k.w, k.p, pw);
    else snprintf(buf, n, "W=%d%s", k.w, pw);
    return buf;
}

/* 1 when row r's persistent_workers (as its scenario set it, else its base's) is known and
 * is k's */
static int exact_pw(const cmp_row *r, loader_key k)
{
    return k.w == 0 || (k.pw >= 0 && row_pw(r) == k.pw);
}

/* 1 when text occurs in s as whole parts: after its start, '_' or ' ' and before its end,
 * '_' or ' ' (heal-1 is in ..._heal-1 and ..._heal-1_x, not in ..._heal-12) */
static int holds_parts(const char *s, const char *text)
{
    const size_t n = strlen(text);
    for (const char *p = strstr(s, text); p; p = strstr(p + 1, text)) {
        const int before = p == s || p[-1] == '_' || p[-1] == ' ', after = !p[n] || p[n] == '_' || p[n] == ' ';
        if (before && after) return 1;
    }
    return 0;
}

/* 1 when row r's scenario name or label holds text as whole parts (--scenario) */
static int row_holds(const cmp_row *r, const char *text)
{
    return holds_parts(r->r.text[0], text) || holds_parts(r->r.text[2], text);
}

/* 1 when row r holds every --scenario text (row_holds) */
static int row_holds_all(const cmp_table *t, const cmp_row *r)
{
    int all = t->nscenario > 0;
    for (int i = 0; i < t->nscenario && all; i++) all = row_holds(r, t->scenario[i]);
    return all;
}

/* The --scenario texts as messages give them: heal-1 and fs0.5 (quoted: 'heal-1' and 'fs0.5') */
static const char *scenario_texts(const cmp_table *t, int quoted, char *buf, size_t n)
{
    const char *q = quoted ? "'" : "";
    buf[0] = '\0';
    for (int i = 0; i < t->nscenario; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s%s%s", i == 0 ? "" : i + 1 < t->nscenario ? ", " : " and ",
                 q, t->scenario[i], q);
    return buf;
}

/* 1 when row r is the prediction --match sets beside a real run of loader k: the plain
 * one, or with --scenario one of that loader that holds every text (row_holds_all); a run
 * whose trace records no loader (k.w = -1) goes beside any replay row that holds them */
static int matches(const cmp_table *t, const cmp_row *r, loader_key k)
{
    if (k.w == -1) return t->nscenario && r->kind == CMP_REPLAY && row_holds_all(t, r);
    return t->nscenario ? predicts_loader(r, k) && row_holds_all(t, r) : plain_prediction(r, k);
}

/* How far row r departs from the plain prediction: a fetch_scale, a compute_scale, a heal
 * and a persistent_workers set, one each */
static int departures(const cmp_row *r)
{
    return (r->set.fetch_scale != 1.0) + (r->set.compute_scale != 1.0) + (r->set.healed != 0) + (r->set.persistent >= 0);
}

/* The row of results folder a's prediction of loader k (matches), -1 when none: of the rows
 * that depart least from the plain prediction (with --scenario: fs=1 heal=1 before fs=0.5
 * heal=1), the first whose persistent_workers is known to be k's, else the first that may
 * be; *more: how many other rows match too */
static int match_row(const cmp_table *t, const cmp_folders *f, int a, loader_key k, int *more)
{
    int hit = -1, exact = -1, least = 1 << 20;
    *more = 0;
    for (int j = f->src[a]; j < t->n; j++)
        if (f->fold[j] == a && matches(t, &t->v[j], k)) {
            const int d = departures(&t->v[j]);
            if (hit >= 0) (*more)++;
            if (d < least) {
                least = d;
                hit = j;
                exact = -1;
            }
            if (d == least && exact < 0 && exact_pw(&t->v[j], k)) exact = j;
        }
    return exact >= 0 ? exact : hit;
}

/* 1 when row hit, the prediction of loader k set beside a real run, is results folder a's
 * baseline replay: the plain prediction of the base trace's own loader, its
 * persistent_workers the base's (or not set) */
static int is_baseline_match(const cmp_table *t, const cmp_folders *f, int a, int hit, loader_key k)
{
    const cmp_row *h = &t->v[hit], *b = &t->v[f->src[a]];
    return base_loader(b, k) && plain_prediction(h, k) && (h->set.persistent < 0 || h->set.persistent == b->base.pw);
}

/* How many rows of results folder a predict loader k with a fetch_scale, compute_scale or
 * heal (predicts_loader, not plain_prediction): a real run of that loader may be one of
 * those (other storage, a rank fixed), which its trace does not say */
static int match_others(const cmp_table *t, const cmp_folders *f, int a, loader_key k)
{
    int n = 0;
    for (int j = f->src[a]; j < t->n; j++) {
        if (f->fold[j] == a && !plain_prediction(&t->v[j], k)) n += predicts_loader(&t->v[j], k);
    }
    return n;
}

/* 1 when real runs x and r recorded the same loader (--match's means) */
static int same_loader(const cmp_row *x, const cmp_row *r)
{
    return x->workers == r->workers && (r->workers <= 0 || x->prefetch == r->prefetch) &&
           same_pw(r->workers, x->persistent, r->persistent);
}

/* Real runs of one loader further apart than this share of their mean (more than repeats
 * of one setting on an idle machine differ) may differ in more than the loader: the mean
 * line says so */
#define MATCH_APART 0.15

/* --match, a loader recorded more than once: each prediction of it against the mean of its
 * real runs (they differ from run to run: one run is one draw) in column col; not the
 * base's own loader, whose runs are set beside the baseline replay */
static void print_match_means(const cmp_table *t, const cmp_folders *f, int col, FILE *out)
{
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if (r->kind != CMP_TRACE || r->workers < 0) continue;
        int first = 1, n = 0, busy = 0;
        double s = 0.0, lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < t->n; k++) {
            const cmp_row *x = &t->v[k];
            if (x->kind != CMP_TRACE || !same_loader(x, r)) continue;
            if (k < i) first = 0;
            n++;
            busy += x->others >= SS_CMD_HOST_OTHERS_NAMED;
            s += x->r.num[col];
            lo = x->r.num[col] < lo ? x->r.num[col] : lo;
            hi = x->r.num[col] > hi ? x->r.num[col] : hi;
        }
        if (!first || n < 2) continue;
        const double mean = s / n;
        const loader_key k = key_of_trace(r);
        int shown = 0;
        for (int a = 0; a < f->n; a++) {
            int more, hit = match_row(t, f, a, k, &more);
            if (hit < 0 || is_baseline_match(t, f, a, hit, k)) continue;
            char loader[32];
            if (!shown++)
                fprintf(out, "%s, against the mean of its %d real runs (%.4f s, %.1f %% apart%s):",
                        loader_name(k, loader, sizeof loader), n, mean, 100.0 * (hi - lo) / mean,
                        !(hi - lo > MATCH_APART * mean) ? ""
                        : busy ? ": more than real runs of one setting differ; other processes took the cores in "
                                 "some (below)"
                               : ": more than real runs of one setting differ; are they one setting? "
                                 "--match pairs by the loader alone");
            fprintf(out, "%s %s %+.1f %%", shown > 1 ? "," : "", cmp_shown_source(t, f->src[a]),
                    cmp_pct(t->v[hit].r.num[col], mean));
        }
        if (shown) fprintf(out, "\n");
    }
}

/* One --match table: each trace beside the prediction of its recorded loader in column
 * col, the errors, the means of repeated loaders and the mean |error| over the what-ifs
 * per results folder (cnt, sum: scratch of t->n); *nown and *nother count the footnotes' cases */
/* One pair of the match tables as a row of --match's CSV (NaN and NULL: an empty field) */
static void match_csv(FILE *csv, const cmp_table *t, int i, int whole, const char *loader, int hit, double pred,
                      double e, const char *in, double lo, double hi, int own, const char *note)
{
    if (!csv) return;
    ss_report_csv_text(csv, cmp_shown_source(t, i));
    fprintf(csv, ",%s,%s", whole ? "run" : "steady", loader);
    cmp_csv_num(csv, t->v[i].r.num[whole ? cmp_run_column() : cmp_iter_column()]);
    cmp_csv_num(csv, pred);
    cmp_csv_num(csv, e);
    fprintf(csv, ",%s", in && in[0] != '-' ? in : "");
    cmp_csv_num(csv, lo);
    cmp_csv_num(csv, hi);
    fputc(',', csv);
    if (hit >= 0) ss_report_csv_text(csv, cmp_shown_source(t, hit));
    fputc(',', csv);
    if (hit >= 0) ss_report_csv_text(csv, t->v[hit].r.text[2]);
    fprintf(csv, ",%d,", own);
    if (note) ss_report_csv_text(csv, note);
    fputc('\n', csv);
}

static void print_match_table(const cmp_table *t, const cmp_folders *f, int col, int whole, const char *what, int wsrc,
                              int *cnt, double *sum, int *nown, int *nother, int *matched, int *nwide, FILE *out,
                              FILE *csv)
{
    const int nrow = cmp_rows_column();
    /* the prediction's 90 % interval of that column (COLUMNS.md) */
    const int lo_col = cmp_column(whole ? "run_time_lo" : "iter_time_lo"),
              hi_col = cmp_column(whole ? "run_time_hi" : "iter_time_hi");
    const char *model = cmp_checked_model();
    memset(cnt, 0, (size_t)t->n * sizeof *cnt);
    memset(sum, 0, (size_t)t->n * sizeof *sum);
    char rows[CMP_SCENARIO_MAX * (SS_NAME_MAX + 8) + 40] = " whose scenario holds ", texts[CMP_SCENARIO_MAX * (SS_NAME_MAX + 8)];
    if (t->nscenario) snprintf(rows + strlen(rows), sizeof rows - strlen(rows), "%s", scenario_texts(t, 1, texts, sizeof texts));
    else snprintf(rows, sizeof rows, ", fetch_scale, compute_scale or heal");
    fprintf(out, "\neach real run beside the prediction of its recorded loader (%s rows without alignment%s), %s:\n",
            model ? model : "replay", rows, what);
    fprintf(out, "%-*s %-12s %10s %10s %8s %6s  %s\n", wsrc, "real run", "loader", "real (s)", "pred (s)", "error",
            "in 90%", "prediction");
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if (r->kind != CMP_TRACE) continue;
        const loader_key k = key_of_trace(r);
        char loader[32];
        loader_name(k, loader, sizeof loader);
        int any = 0;
        /* a real run whose loader is not recorded is set beside a row by --scenario alone */
        const int by_text = r->workers == -1 && t->nscenario > 0;
        for (int a = 0; a < f->n && (r->workers >= 0 || by_text); a++) {
            int more, hit = match_row(t, f, a, k, &more);
            if (hit < 0) continue;
            const double e = cmp_pct(t->v[hit].r.num[col], r->r.num[col]);
            const int own = !by_text && is_baseline_match(t, f, a, hit, k);
            /* a whole run is comparable only with one of as many iterations */
            if (isnan(e) || (whole && nrow >= 0 && t->v[hit].r.num[nrow] != r->r.num[nrow])) {
                fprintf(out, "%-*s %-12s %10.4f %10s %8s %6s  %s: %s (%s)\n", wsrc, any ? "" : cmp_shown_source(t, i),
                        any ? "" : loader, r->r.num[col], "-", "-", "-", cmp_shown_source(t, hit), t->v[hit].r.text[2],
                        isnan(e) ? "no value to compare" : "other iterations: not the same run's length");
                match_csv(csv, t, i, whole, loader, hit, NAN, NAN, NULL, NAN, NAN, 0,
                          isnan(e) ? "no value to compare" : "other iterations: not the same run's length");
                any = 1;
                continue;
            }
            if (own) {
                (*nown)++;
            } else {
                sum[a] += fabs(e);
                cnt[a]++;
            }
            char more_txt[160] = "", alike[32] = "";
            if (more && !t->nscenario) snprintf(alike, sizeof alike, "; +%d more alike", more);
            const int others = t->nscenario ? 0 : match_others(t, f, a, k);
            *nother += others > 0;
            if (own) snprintf(more_txt, sizeof more_txt, " (the base's own loader: the baseline replay, not in the mean%s)",
                              alike);
            else if (more && t->nscenario)
                snprintf(more_txt, sizeof more_txt, " (+%d other row%s of %s hold%s %.80s)", more, more == 1 ? "" : "s",
                         by_text ? "the results" : "this loader", more == 1 ? "s" : "", t->nscenario > 1 ? "them all" : texts);
            else if (more) snprintf(more_txt, sizeof more_txt, " (+%d more alike)", more);
            if (others)
                snprintf(more_txt + strlen(more_txt), sizeof more_txt - strlen(more_txt), " [+%d fs/cs/heal]", others);
            const double lo = lo_col >= 0 ? t->v[hit].r.num[lo_col] : NAN,
                         hi0 = hi_col >= 0 ? t->v[hit].r.num[hi_col] : NAN;
            /* a lower end alone: the interval is open above (a noisy base), and so wide */
            const double hi = isnan(hi0) && !isnan(lo) ? INFINITY : hi0;
            /* the baseline's interval is of its own trace's replay, not of another run */
            const int inside = lo <= r->r.num[col] && r->r.num[col] <= hi;
            /* an interval spanning more than a factor SS_CMD_WIDE_INTERVAL says little: marked */
            const int wide = !(hi <= SS_CMD_WIDE_INTERVAL * lo);
            const char *in = own || isnan(lo) || isnan(hi) ? "-"
                             : wide                        ? (inside ? "yes*" : "no*")
                             : inside                      ? "yes"
                                                           : "no";
            *nwide += in[0] != '-' && wide;
            char bounds[64] = ""; /* the interval itself, where it is the one judged */
            if (in[0] != '-' && isinf(hi)) snprintf(bounds, sizeof bounds, " (90%%: %.4f … no bound)", lo);
            else if (in[0] != '-') snprintf(bounds, sizeof bounds, " (90%%: %.4f … %.4f)", lo, hi);
            fprintf(out, "%-*s %-12s %10.4f %10.4f %+7.1f%% %6s  %s: %s%s%s\n", wsrc, any ? "" : cmp_shown_source(t, i),
                    any ? "" : loader, r->r.num[col], t->v[hit].r.num[col], e, in, cmp_shown_source(t, hit),
                    t->v[hit].r.text[2], bounds, more_txt);
            match_csv(csv, t, i, whole, loader, hit, t->v[hit].r.num[col], e, in[0] == '-' ? in : inside ? "yes" : "no",
                      in[0] != '-' ? lo : NAN, in[0] != '-' ? hi0 : NAN, own,
                      in[0] != '-' && wide ? "the interval spans more than a factor of 2: it says little"
                      : more_txt[0] == ' ' ? more_txt + 1
                      : more_txt[0]        ? more_txt
                                           : NULL);
            any = 1;
        }
        if (matched) *matched += any;
        if (!any) {
            const char *why = by_text            ? "no row of the results holds every text"
                              : r->workers == -1 ? "the trace records no loader settings: give --scenario TEXT to set it "
                                                   "beside a row (heal-1)"
                              : r->workers == -2 ? "its GPUs' workers differ: set it beside a row yourself"
                              : t->nscenario     ? "no prediction of its loader whose scenario holds every text"
                                                 : "no such prediction among the inputs";
            fprintf(out, "%-*s %-12s %10.4f %10s %8s %6s  %s\n", wsrc, cmp_shown_source(t, i), loader, r->r.num[col], "-",
                    "-", "-", why);
            match_csv(csv, t, i, whole, loader, -1, NAN, NAN, NULL, NAN, NAN, 0, why);
        }
    }
    print_match_means(t, f, col, out);
    for (int a = 0; a < f->n; a++) {
        if (cnt[a] == 0) continue;
        fprintf(out, "mean |error| over the %d matched real run%s", cnt[a], cnt[a] == 1 ? "" : "s");
        if (f->n > 1) fprintf(out, ", predicted by %s", cmp_shown_source(t, f->src[a]));
        fprintf(out, ": %.1f %%\n", sum[a] / cnt[a]);
    }
}

/* The real runs, and the results folders' base runs, recorded while other processes took
 * SS_CMD_HOST_OTHERS_NAMED of their cores or more: their times hold that load, and a
 * prediction holds its base run's */
static void say_busy_runs(const cmp_table *t, FILE *out)
{
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if ((r->kind != CMP_TRACE && r->kind != CMP_MEASURED) || !(r->others >= SS_CMD_HOST_OTHERS_NAMED)) continue;
        if (n++ == 0)
            fprintf(out, "busy while recorded (other processes' share of the cores; `info` says more):");
        fprintf(out, "%s %s%s %.0f%%", n > 1 ? "," : "", r->kind == CMP_MEASURED ? "the base run of " : "",
                cmp_shown_source(t, i), 100.0 * r->others);
    }
    if (n)
        fprintf(out, "; such a run is slower than the same run alone, and the errors above hold that (a prediction "
                     "holds its base run's): record them again on quiet cores\n");
}

/* The real runs recorded with another batch size than the base run of each results folder
 * (both known): most likely another job, whose error, in the tables and their means, says
 * nothing of these predictions */
static void say_other_batch(const cmp_table *t, const cmp_folders *f, FILE *out)
{
    for (int a = 0; a < f->n; a++) {
        const long base = t->v[f->src[a]].batch;
        int n = 0;
        for (int i = 0; base > 0 && i < t->n; i++) {
            const cmp_row *r = &t->v[i];
            if (r->kind != CMP_TRACE || !(r->batch > 0) || r->batch == base) continue;
            if (n++ == 0)
                fprintf(out, "warning: other batch size than the base run of %s (%ld):", cmp_shown_source(t, f->src[a]),
                        base);
            fprintf(out, "%s %s %ld", n > 1 ? "," : "", cmp_shown_source(t, i), r->batch);
        }
        if (n) fprintf(out, "; a run of another job (or batch) is not what the base predicts: its error above, and the means that hold it, are not the model's\n");
    }
}

ss_status cmp_check_match(const cmp_table *t)
{
    int ntr = 0, held = 0, nres = 0;
    for (int i = 0; i < t->n; i++) {
        ntr += t->v[i].kind == CMP_TRACE;
        nres += t->v[i].kind != CMP_TRACE;
        held |= t->v[i].kind == CMP_REPLAY && row_holds_all(t, &t->v[i]);
    }
    if (nres == 0)
        return ss_fail(SS_EUSAGE, "compare: --match needs a results folder among the inputs: the predictions to set "
                                  "each real run beside (compare RESULTS run.h5 --match)");
    if (ntr == 0)
        return ss_fail(SS_EUSAGE, "compare: --match needs a trace among the inputs: a real run to set beside its "
                                  "prediction (compare RESULTS run.h5 --match)");
    /* a text that no row holds is most likely mistyped */
    char texts[CMP_SCENARIO_MAX * (SS_NAME_MAX + 8)];
    if (t->nscenario && !held)
        return ss_fail(SS_EUSAGE, "compare: --scenario %s: no row of the results holds %s as a whole part of its "
                                  "scenario name (such as heal-1, fs0.5) or label (heal=1, fs=0.5)",
                       scenario_texts(t, 0, texts, sizeof texts), t->nscenario > 1 ? "them all" : "it");
    return SS_OK;
}

/* --match: each trace beside the prediction of its recorded loader (plain_prediction), for
 * the mean iteration time and then the whole run's time, and the mean |error| over the
 * what-ifs (a real run with the base's own loader is set beside the baseline replay, shown
 * and left out of it) */
void cmp_print_matches(const cmp_table *t, const cmp_folders *f, FILE *out, FILE *csv)
{
    const int it = cmp_iter_column(), run = cmp_run_column();
    if (it < 0) return;
    int wsrc = 8, ntr = 0;
    for (int i = 0; i < t->n; i++)
        if (t->v[i].kind == CMP_TRACE) {
            int l = (int)strlen(cmp_shown_source(t, i));
            wsrc = l > wsrc ? l : wsrc;
            ntr++;
        }
    if (ntr == 0) return; /* (cmp_check_match refused it) */
    /* each real run is set beside each results folder's prediction, and each folder gets
     * its own mean */
    int nown = 0, nother = 0, nown_run = 0, nother_run = 0;
    int *cnt = calloc((size_t)t->n, sizeof *cnt);
    double *sum = calloc((size_t)t->n, sizeof *sum);
    if (!cnt || !sum) {
        free(cnt);
        free(sum);
        return;
    }
    if (csv)
        fputs(CMP_MATCH_CSV_HEAD "loader,real,predicted,error_pct,in_90,lo,hi,prediction_source,prediction,"
              "baseline_replay,note\n", csv);
    int matched = 0, nwide = 0; /* real runs set beside a prediction (the same in both tables); wide intervals */
    print_match_table(t, f, it, 0, "mean iteration time", wsrc, cnt, sum, &nown, &nother, &matched, &nwide, out, csv);
    if (run >= 0 && t->runs_apart)
        fprintf(out, "the whole run's time (run_time): not set beside the predictions: the results and the traces do "
                     "not count the same loaders (see the warning above)\n");
    else if (run >= 0)
        print_match_table(t, f, run, 1, "the whole run's time (run_time)", wsrc, cnt, sum, &nown_run, &nother_run, NULL,
                          &nwide, out, csv);
    if (nwide)
        fprintf(out, "*: an interval whose upper end is more than %g times its lower end (%d here): inside or not, it "
                     "says little; its base run varied within itself or was recorded on busy cores (run --explain "
                     "says which): record the base again on quiet cores\n",
                SS_CMD_WIDE_INTERVAL, nwide);
    if (nother)
        fprintf(out, "[+N fs/cs/heal]: the results folder also predicts that loader with other storage (fs), compute (cs) or a GPU "
                     "healed, which a real run's trace does not show: a run recorded so is set here beside the plain "
                     "prediction, and its error (and the mean below) is not the model's; set such a run beside its "
                     "own scenario by giving it alone with --scenario: `compare RESULTS fixed.h5 --match --scenario "
                     "heal-1`\n");
    if (nown)
        fprintf(out, "a real run with its base trace's own loader settings is set beside the baseline replay, with "
                     "no 'in 90%%': the baseline's interval is of its own trace, and another run of the setting differs "
                     "from it as repeats do (--spread); if the run differs from the base in what the loader settings "
                     "do not show (a rank's loader fixed, other storage), set it beside the scenario that says so by giving "
                     "it alone with --scenario: `compare RESULTS fixed.h5 --match --scenario heal-1`\n");
    char texts[CMP_SCENARIO_MAX * (SS_NAME_MAX + 8)];
    int unknown = 0; /* real runs whose trace records no loader settings */
    for (int i = 0; i < t->n; i++) unknown += t->v[i].kind == CMP_TRACE && t->v[i].workers == -1;
    if (t->nscenario && unknown)
        fprintf(out, "a real run whose trace records no loader settings (%d here) is set beside the row of any model "
                     "whose scenario holds %s\n", unknown, scenario_texts(t, 0, texts, sizeof texts));
    if (t->nscenario && ntr > 1 && matched > 0)
        fprintf(out, "--scenario %s set %s%d real runs beside a prediction that holds %s: each should be a "
                     "run recorded so (for a heal: with that rank fixed); compare the others without --scenario\n",
                scenario_texts(t, 0, texts, sizeof texts), matched == ntr ? "each of the " : "", matched,
                t->nscenario > 1 ? "them all" : "it");
    say_busy_runs(t, out);
    say_other_batch(t, f, out);
    free(cnt);
    free(sum);
}

/* A row's key for --spread: its label as the tables show it (the same resolved settings
 * whether the scenario file said workers = auto or 2), its summary.csv name where the file
 * has no labels */
static const char *spread_key(const cmp_row *r) { return r->r.text[2][0] ? r->r.text[2] : r->r.text[0]; }

/* One --spread table: every scenario (by its label) that two or more results folders hold,
 * with the least and largest value of column col and their spread, (largest - least) /
 * their mean; then the median and the largest spread over the predictions. The measured
 * rows are the base runs themselves. what names the column in the lines. */
static void spread_table(const cmp_table *t, const cmp_folders *f, FILE *out, int col, const char *what, int nuse,
                         double *spreads)
{
    /* a whole run is comparable only with one of as many iterations (as --match) */
    const int len = col == cmp_run_column() ? cmp_rows_column() : -1;
    int nsp = 0, left = 0, shown = 0, worst = -1, wname = 8, other_len = 0;
    char nm[SS_NAME_MAX + 24], worst_nm[SS_NAME_MAX] = "", left_txt[512] = "";
    for (int i = 0; i < t->n; i++) {
        if (!spread_row(f, i)) continue;
        int l = (int)strlen(spread_key(&t->v[i]));
        if (t->v[i].kind == CMP_MEASURED) l += (int)strlen(" (the base runs)");
        wname = l > wname ? l : wname;
    }
    wname = wname < 60 ? wname : 60;
    for (int i = 0; i < t->n; i++) {
        const cmp_row *r = &t->v[i];
        if (!spread_row(f, i)) continue;
        int first = 1;
        for (int j = 0; j < i && first; j++) first = !spread_row(f, j) || strcmp(spread_key(&t->v[j]), spread_key(r));
        if (!first) continue;
        int n = 0, mixed = 0;
        double lo = INFINITY, hi = -INFINITY, sum = 0.0;
        for (int j = i; j < t->n; j++) {
            const cmp_row *q = &t->v[j];
            if (!spread_row(f, j) || strcmp(spread_key(q), spread_key(r)) || !isfinite(q->r.num[col])) continue;
            mixed |= len >= 0 && q->r.num[len] != r->r.num[len];
            n++;
            sum += q->r.num[col];
            lo = q->r.num[col] < lo ? q->r.num[col] : lo;
            hi = q->r.num[col] > hi ? q->r.num[col] : hi;
        }
        if (n >= 2 && mixed) {
            other_len++;
            continue;
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
        const int measured = r->kind == CMP_MEASURED;
        const double mean = sum / n, sp = mean > 0.0 ? 100.0 * (hi - lo) / mean : NAN;
        if (shown++ == 0) {
            fprintf(out, "\nthe same scenarios from %d results folders (each from its own base run), %s:\n", nuse, what);
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
    if ((shown == 0 || nsp == 0) && other_len == 0)
        fprintf(out, "--spread: no prediction of the %s is in two of the results folders (scenarios are matched by "
                     "their labels: the same settings)\n", what);
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
    if (other_len > 0)
        fprintf(out, "left out, base runs of other lengths (%d scenario%s): their whole runs differ by the iterations "
                     "they hold, not by chance\n", other_len, other_len == 1 ? "" : "s");
}

/* --spread: the spread tables of the mean iteration time and of the whole run's time
 * (spread_table). Folders that repeat another's base run (spread_sources) are left out and
 * said so. */
void cmp_print_spread(const cmp_table *t, const cmp_folders *f, FILE *out)
{
    const int it = cmp_iter_column(), run = cmp_run_column();
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
    /* base runs of other batch sizes: other jobs, not repeats of one */
    for (int a = 0, first = -1; a < f->n; a++) {
        const cmp_row *r = &t->v[f->src[a]];
        if (f->rep[a] >= 0 || !(r->batch > 0)) continue;
        if (first < 0) first = f->src[a];
        else if (r->batch != t->v[first].batch) {
            fprintf(out, "\n--spread: the base runs' batch sizes differ (%s: %ld, %s: %ld): runs of other jobs, whose "
                         "spread is not a repeat's\n",
                    t->v[first].source, t->v[first].batch, r->source, r->batch);
            break;
        }
    }
    spread_table(t, f, out, it, "mean iteration time", nuse, spreads);
    if (run >= 0) spread_table(t, f, out, run, "whole run's time", nuse, spreads);
    free(spreads);
}

/* --spread needs two results folders of different base runs: a usage error otherwise,
 * before anything is printed, naming the traces (which --spread does not use) and the
 * folders that repeat another's base run */
ss_status cmp_check_spread(const cmp_table *t, const cmp_folders *f, char **inputs, int ninputs)
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
        if (t->v[i].kind == CMP_TRACE && ntrace++ == 0)
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
