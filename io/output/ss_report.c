/* ss_report.c - summary.csv, the terminal table and JSON. */
#include "ss_report.h"

#include "ss_columns.h"
#include "ss_cpushare.h"
#include "ss_limits.h"
#include "ss_model.h"
#include "ss_number.h"
#include "ss_parts.h"
#include "ss_rank.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void ss_report_csv_text(FILE *f, const char *t)
{
    if (!strpbrk(t, ",\"\r\n")) {
        fputs(t, f);
        return;
    }
    fputc('"', f);
    for (; *t; t++) {
        if (*t == '"') fputc('"', f);
        fputc(*t, f);
    }
    fputc('"', f);
}

/* One CSV cell of column c for row j (GPU g): full precision (%.17g), empty where the
 * column does not apply. */
static void csv_cell(FILE *f, const ss_column *c, const ss_summary *s, int j, int g)
{
    ss_colval v;
    if (!ss_column_get(c, s, j, g, &v)) return;
    switch (c->type) {
    case SS_COL_STR: ss_report_csv_text(f, v.str); break;
    case SS_COL_LONG:
    case SS_COL_INT: fprintf(f, "%ld", v.l); break;
    case SS_COL_F64: fprintf(f, "%.17g", v.d); break;
    }
}

ss_status ss_report_write_csv(const ss_summary *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return ss_fail(SS_EIO, "%s: cannot write: %s", path, strerror(errno));
    int nc;
    const ss_column *cols = ss_columns(&nc);
    for (int k = 0; k < nc; k++) {
        if (!(cols[k].flags & SS_COLF_PER_GPU)) fprintf(f, "%s%s", k ? "," : "", cols[k].name);
        else
            for (int g = 0; g < s->gpus; g++) fprintf(f, ",%s_gpu%d", cols[k].name, g);
    }
    fputc('\n', f);
    for (int j = 0; j < s->nsc; j++) {
        for (int k = 0; k < nc; k++) {
            int per_gpu = (cols[k].flags & SS_COLF_PER_GPU) != 0;
            for (int g = 0; g < (per_gpu ? s->gpus : 1); g++) {
                if (k) fputc(',', f);
                csv_cell(f, &cols[k], s, j, g);
            }
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) return ss_fail(SS_EIO, "%s: write failed (disk full?)", path);
    return SS_OK;
}

static void pm(char *buf, size_t n, const ss_partial *p, int m)
{
    if (p->n == 0) snprintf(buf, n, "-");
    else if (p->n < 2) snprintf(buf, n, "%.4f", p->mean[m]);
    else snprintf(buf, n, "%.4f±%.4f", p->mean[m], ss_partial_std(p, m));
}

/* A run that would need more than all of its cores cannot run as predicted: it waits for
 * them. CPU sharing keeps most predictions below 100 %; one that still needs more is
 * marked. */
#define CPU_BUSY_PCT SS_RANK_OVER_PCT
/* Above this share of the cores the model's contention grows too slowly, so real runs come
 * out slower than predicted (the "near saturation" class; sim/models/DECISIONS.md). Said
 * once, and marked in the ranking. */
#define CPU_NEAR_PCT 85.0
/* The class of the rows above CPU_NEAR_PCT where no earlier class applies (the synchronous
 * classes come first, with intervals of their own) */
#define NEAR_CLASS "near saturation"
/* A pipeline baseline replay further than this (%) from the measured run gets a note: the
 * model then does not describe the run (datasets/VALIDATION.md gives the baselines). */
#define FIDELITY_NOTE_PCT 5.0
/* Below this share of the iteration time, the stalls are too small for the slowest loader
 * to matter (a slow training step, not a loader, then sets the pace). */
#define STALL_MINOR_PCT 10.0
/* The measured run's slowest loader (*g, its share *top of the iterations in which it alone
 * had the largest stall, the next GPU's *next): -1 when no GPU ever had the largest stall
 * alone (or one GPU), else whether it stands out (ss_report_stands_out). */
static int slowest_loader(const ss_summary *s, int *g, double *top, double *next)
{
    *g = s->gpus > 1 ? ss_summary_slowest_gpu(s, ss_summary_measured(s), next) : -1;
    if (*g < 0 || s->p[ss_summary_measured(s)].n <= 0) return -1;
    *top = ss_summary_straggler_share(s, ss_summary_measured(s), *g);
    return ss_report_stands_out(s, *g, *top);
}

/* 1 when model m's cuts are among those ranked (all models', unless another model's were set
 * aside for one that ranks alone: ss_rank.c) */
static int ranked_model(const ss_ranking *r, ss_model m) { return r->n_other == 0 || ss_model_get(m)->ranks_alone; }

/* 1 when the heal gains of model m are listed: a model that ranks alone hides the others'. */
static int heal_listed(const ss_ranking *r, ss_model m)
{
    int alone = 0;
    for (int i = 0; i < r->nheal; i++) alone |= ss_model_get(r->heal[i].model)->ranks_alone;
    return !alone || ss_model_get(m)->ranks_alone;
}

/* The floor a gain must pass: SS_RANK_MIN_PCT or the largest baseline error of the ranked
 * models, in % of the mean iteration time. */
static double gain_floor(const ss_summary *s)
{
    double f = SS_RANK_MIN_PCT;
    for (int m = 0; s->rank && m < SS_NMODELS; m++)
        if (!isnan(s->rank->error_pct[m]) && s->rank->error_pct[m] > f) f = s->rank->error_pct[m];
    return f;
}

int ss_report_stands_out(const ss_summary *s, int g, double top)
{
    const ss_ranking *r = s->rank;
    if (r && r->nheal > 0) { /* the sweep heals GPUs one at a time: its ranking decides */
        for (int i = 0; i < r->nheal; i++)
            if (r->heal[i].gpu == g && r->heal[i].ranked && heal_listed(r, r->heal[i].model) &&
                !r->heal_alike[r->heal[i].model])
                return 1;
        return 0;
    }
    const ss_partial *m = &s->p[ss_summary_measured(s)];
    if (s->gpus < 2 || m->n <= 0 || !(m->mean[SS_M_ITER] > 0)) return 0;
    /* in most iterations (more than all other GPUs together), and far above a fair share:
     * 1/N plus three standard errors of a share over n iterations */
    const double fair = 1.0 / s->gpus;
    if (!(top > 0.5) || !(top > fair + 3.0 * sqrt(fair * (1.0 - fair) / (double)m->n))) return 0;
    /* and the others' wait for it (the mean delay) could gain more than the floor */
    const double floor = gain_floor(s);
    if (!(100.0 * m->mean[SS_M_DELAY] / m->mean[SS_M_ITER] > floor)) return 0;
    /* and, where the calibration measured each GPU's fetches, its own take longer than the
     * others' by as much: a loader whose batches come later at the same pace is not slow */
    const double *f = s->has_calib ? s->calib.fetch_med_gpu : NULL;
    double *scratch = f ? malloc((size_t)s->gpus * sizeof *scratch) : NULL;
    if (!scratch) return 1;
    const ss_healset alone = {.n = 1, .lo = {g}, .hi = {g}};
    const double med = ss_median_unhealed(f, s->gpus, &alone, scratch);
    free(scratch);
    return 100.0 * (f[g] - med) / m->mean[SS_M_ITER] > floor;
}

/* The table's labels: each row's model label without the settings that every row of its
 * model shares (said once under the table), where the model has two rows or more. */
#define LABEL_LEN SS_LABEL_MAX
typedef struct {
    char (*row)[LABEL_LEN]; /* [nsc], or NULL (out of memory: the full labels) */
    char common[SS_NMODELS][LABEL_LEN]; /* the shared "key=value" settings, "" none */
} labels;

static void labels_make(const ss_summary *s, labels *L)
{
    memset(L->common, 0, sizeof L->common);
    const size_t n = (size_t)(s->nsc > 0 ? s->nsc : 1);
    L->row = malloc(n * sizeof *L->row);
    const char **group = malloc(n * sizeof *group);
    if (!L->row || !group) {
        free(L->row);
        L->row = NULL;
        free(group);
        return;
    }
    for (int j = 0; j < s->nsc; j++) ss_model_get(s->sc[j].model)->label_of(&s->sc[j], L->row[j], LABEL_LEN);
    for (int m = 0; m < SS_NMODELS; m++) { /* each model's rows: the "key=value" settings all of them have */
        int ng = 0;
        for (int j = 0; j < s->nsc; j++)
            if ((int)s->sc[j].model == m && j != ss_summary_measured(s)) group[ng++] = L->row[j];
        ss_parts_shared(group, ng, ' ', 1, L->common[m], LABEL_LEN);
        for (int j = 0; L->common[m][0] && j < s->nsc; j++) {
            if ((int)s->sc[j].model != m || j == ss_summary_measured(s)) continue;
            char out[LABEL_LEN];
            ss_parts_drop(L->row[j], L->common[m], ' ', out, sizeof out);
            memcpy(L->row[j], out, LABEL_LEN);
        }
    }
    free(group);
}

static const char *label_of(const labels *L, const ss_summary *s, int j, char *buf)
{
    if (L->row) return L->row[j];
    ss_model_get(s->sc[j].model)->label_of(&s->sc[j], buf, LABEL_LEN);
    return buf;
}

/* Rows of one model whose labels are the same (their settings resolve alike: prefetch =
 * auto and the number it gives, workers = auto and the calibrated count) are named under
 * the table, at most three such groups, so that two equal rows are not read as two results.
 * The table's labels serve (a model's rows lose the same shared parts, so equal labels
 * stay equal and different ones different); the full label is printed. */
typedef struct {
    int model, j;
    const char *lab;
} same_key;

static int cmp_same(const void *a, const void *b)
{
    const same_key *x = a, *y = b;
    int c = x->model - y->model;
    if (!c) c = strcmp(x->lab, y->lab);
    return c ? c : x->j - y->j;
}

static void print_same_settings(const ss_summary *s, const labels *L, FILE *out)
{
    same_key *v = L->row ? malloc((size_t)(s->nsc > 0 ? s->nsc : 1) * sizeof *v) : NULL;
    if (!v) return; /* (a note only: nothing is lost without it) */
    int m = 0;
    for (int j = 0; j < s->nsc; j++)
        if (j != ss_summary_measured(s)) v[m++] = (same_key){(int)s->sc[j].model, j, L->row[j]};
    qsort(v, (size_t)m, sizeof *v, cmp_same);
    int groups = 0, more = 0;
    for (int a = 0; a < m;) {
        int b = a + 1;
        while (b < m && v[b].model == v[a].model && !strcmp(v[b].lab, v[a].lab)) b++;
        if (b - a > 1 && groups < 3) {
            char full[LABEL_LEN];
            ss_model_get(s->sc[v[a].j].model)->label_of(&s->sc[v[a].j], full, sizeof full);
            fprintf(out, "same settings: %d scenarios are all \"%s\" here (", b - a, full);
            for (int i = a; i < b && i < a + 3; i++) fprintf(out, "%s%s", i > a ? ", " : "", s->sc[v[i].j].name);
            /* workers = auto*F of a trace that loads synchronously: every F gives 0; and
             * with no workers, no prefetch factor counts */
            int sync_auto = 1, sync = 1;
            for (int i = a; i < b; i++) {
                const ss_scenario *sc = &s->sc[v[i].j];
                const ss_model_ops *ops = ss_model_get(sc->model);
                const unsigned h = ops->hints ? ops->hints(sc, NULL) : 0;
                sync_auto &= (h & SS_HINT_NO_WORKERS_AUTO) != 0;
                sync &= (h & SS_HINT_NO_WORKERS) != 0;
            }
            fprintf(out, "%s): %s, so their rows are one result%s\n", b - a > 3 ? ", ..." : "",
                    sync && !sync_auto ? "with no workers (W = 0) the prefetch factor means nothing"
                                       : "an auto value gives what the number gives",
                    sync_auto ? " (the trace loads synchronously, W = 0, and auto times any factor is 0: give "
                                "worker counts as numbers, workers = 0, 1, 2, 4)" : "");
            groups++;
        } else if (b - a > 1) {
            more++;
        }
        a = b;
    }
    if (more) fprintf(out, "same settings: %d more such groups (summary.csv names each scenario)\n", more);
    free(v);
}

/* The rows a ranking left out, as its parenthesis ends: the first SS_RANK_TOP of n (j[])
 * with their change ("vs *" where it is against a quiet host's baseline replay, not the
 * measured run), "; ..." for the rest, and the closing parenthesis */
static void print_rows_left(const ss_summary *s, const ss_ranking *r, const labels *L, const int *j, int n, FILE *out)
{
    for (int k = 0; k < n && k < SS_RANK_TOP; k++) {
        char buf[LABEL_LEN];
        fprintf(out, "%s %s %+.2f%%%s", k ? ";" : "", label_of(L, s, j[k], buf), ss_summary_ref_change_pct(s, j[k], r->by_run),
                ss_summary_ref(s, j[k]) != ss_summary_measured(s) ? " vs *" : "");
    }
    fprintf(out, "%s)\n", n > SS_RANK_TOP ? "; ..." : "");
}

int ss_report_change_interval(const ss_summary *s, int j, int by_run, double *lo, double *hi)
{
    const int m = ss_summary_ref(s, j);
    const double base = by_run ? ss_summary_run_time(s, m) : (s->p[m].n > 0 ? s->p[m].mean[SS_M_ITER] : NAN);
    const double a = by_run ? (s->run_lo ? s->run_lo[j] : NAN) : (s->iter_lo ? s->iter_lo[j] : NAN);
    const double b = by_run ? (s->run_hi ? s->run_hi[j] : NAN) : (s->iter_hi ? s->iter_hi[j] : NAN);
    if (!(base > 0.0) || isnan(a)) return 0;
    *lo = 100.0 * (a / base - 1.0);
    /* a lower end without an upper one: the upper bound's denominator was not positive (a
     * noisy base: MODELS-pipeline.md, "Intervals"), so the interval is open above */
    *hi = isnan(b) ? INFINITY : 100.0 * (b / base - 1.0);
    return 1;
}

/* " (lo … hi%)": row j's interval as changes against its reference (ss_report_change_interval),
 * or "" where it has none */
static const char *interval_text(const ss_summary *s, int j, int by_run, char *iv, size_t n)
{
    double lo, hi;
    iv[0] = '\0';
    if (!ss_report_change_interval(s, j, by_run, &lo, &hi)) return iv;
    if (isinf(hi)) snprintf(iv, n, " (%+.1f%% … no bound)", lo);
    else snprintf(iv, n, " (%+.1f … %+.1f%%)", lo, hi);
    return iv;
}

/* How many ranked cuts, from the first, are as good as the best: within SS_RANK_MIN_PCT of
 * it (real runs of one setting differ by about that much), and on the same side of the
 * cores' limit (ss_rank_over); the cheapest of them comes first (ss_ranking.ntied) */
static int tied_count(const ss_ranking *r) { return r->ntied > 1 ? r->ntied : 1; }

/* What the ranked cuts are changes against: the measured run, or on a quiet host the
 * baseline replay of the first cut's model (ss_summary_ref: the job alone) */
static const char *ref_name(const ss_summary *s, const ss_ranking *r)
{
    return r->ntop > 0 && ss_summary_ref(s, r->top[0].j) != ss_summary_measured(s)
               ? "the job alone on its cores: the baseline replay *, quiet_host"
               : "the measured run";
}

/* The measure the ranking cuts: the whole run's time or the mean iteration time. */
static const char *ranked_measure(const ss_ranking *r)
{
    return r->by_run ? "the whole run's time" : "the mean iteration time";
}

/* "NAME " of the model ranked alone where other models' cuts were set aside, else "" */
static const char *alone_prefix(const ss_summary *s, const ss_ranking *r)
{
    static char buf[64];
    buf[0] = '\0';
    for (int j = 0; j < s->nsc && r->n_other && !buf[0]; j++)
        if (ss_model_get(s->sc[j].model)->ranks_alone) snprintf(buf, sizeof buf, "%s ", ss_model_get(s->sc[j].model)->name);
    return buf;
}

/* 1 when row j keeps more than CPU_NEAR_PCT of its cores busy (but not more than all) and
 * is of the class NEAR_CLASS: likely optimistic, as that class's real runs were. A row of
 * an earlier class takes that class's interval, skewed or not; a row without a class (a
 * model without intervals) is not judged. */
static int near_row(const ss_summary *s, int j)
{
    const double x = ss_summary_cpu_load_pct(s, j, NULL);
    if (!(x > CPU_NEAR_PCT) || x > CPU_BUSY_PCT) return 0;
    return s->cls && s->cls[j] && !strcmp(s->cls[j]->name, NEAR_CLASS);
}

/* The rows by the share of the cores they keep busy: over all of them (busy, every row);
 * and, of the scenario rows (the measured row and baseline replays aside), those with
 * near_row (near) and those above CPU_NEAR_PCT of another class (other, that class in
 * other_class: NULL where they are of several) */
typedef struct {
    int busy, near, other;
    const char *other_class;
} cpu_rows;

static cpu_rows cpu_rows_of(const ss_summary *s)
{
    cpu_rows c = {0, 0, 0, NULL};
    for (int j = 0; j < s->nsc; j++) {
        const double x = ss_summary_cpu_load_pct(s, j, NULL);
        c.busy += x > CPU_BUSY_PCT;
        if (!(x > CPU_NEAR_PCT) || x > CPU_BUSY_PCT || j == ss_summary_measured(s) || s->sc[j].baseline) continue;
        if (near_row(s, j)) c.near++;
        else if (!s->cls || !s->cls[j]) continue; /* (a model without classes) */
        else if (c.other++ == 0) c.other_class = s->cls[j]->name;
        else if (strcmp(c.other_class, s->cls[j]->name)) c.other_class = NULL; /* (several classes) */
    }
    return c;
}

/* The ranked answer for people: at most three short paragraphs. */
/* The ranked cuts, one line each; *ahead receives the model of the cuts flagged loaders
 * ahead (NULL: none), *ahead_heal how many of those heal a GPU. */
static void print_top_cuts(const ss_summary *s, const ss_ranking *r, const labels *L, const ss_model_ops **ahead,
                           int *ahead_heal, FILE *out)
{
    for (int k = 0; k < r->ntop; k++) {
        char buf[LABEL_LEN];
        const ss_scenario *sc = &s->sc[r->top[k].j];
        const char *lab = label_of(L, s, r->top[k].j, buf);
        double err = r->error_pct[sc->model];
        double cpu = ss_summary_cpu_load_pct(s, r->top[k].j, NULL);
        char busy[64] = "";
        if (cpu > CPU_BUSY_PCT) snprintf(busy, sizeof busy, "; needs %.0f%% of the cores: optimistic", cpu);
        else if (near_row(s, r->top[k].j))
            snprintf(busy, sizeof busy, "; %.0f%% of the cores: likely optimistic", cpu);
        else if (r->top[k].loaders_ahead) {
            snprintf(busy, sizeof busy, "; loaders now ahead: less certain");
            *ahead = ss_model_get(sc->model);
            *ahead_heal += sc->heal.n > 0;
        }
        char base[64];
        if (isnan(err)) snprintf(base, sizeof base, "no baseline scenario in the sweep to measure the model's error");
        else if (ss_summary_ref(s, r->top[k].j) != ss_summary_measured(s))
            snprintf(base, sizeof base, "model baseline error not measured: quiet_host");
        else snprintf(base, sizeof base, "model baseline error %.2f%%", err);
        char iv[48];
        interval_text(s, r->top[k].j, r->by_run, iv, sizeof iv);
        const int place = k < tied_count(r) ? 1 : k + 1; /* (as the short answer numbers them) */
        if (!r->by_run) {
            fprintf(out, "  %d. %-44s %+7.2f%%%s (%+.4f s per iteration; %s%s)\n", place, lab, r->top[k].change_pct,
                    iv, r->top[k].change_s, base, busy);
            continue;
        }
        char pay[64] = "";
        if (!isnan(r->top[k].payoff_rows))
            snprintf(pay, sizeof pay, ", gains only up to ~%.0f batches/epoch", r->top[k].payoff_rows);
        fprintf(out, "  %d. %-44s %+7.2f%%%s whole run (steady state %+.2f%%%s; %s%s)\n", place, lab,
                r->top[k].change_pct, iv, r->top[k].steady_pct, pay, base, busy);
    }
}

static int interval_reaches_none(const ss_summary *s, int j, int by_run);

/* Where the first ranked cuts tie: how many, and how many of the sweep's scenarios lie as
 * close to the best without being listed */
static void print_tie_note(const ss_summary *s, const ss_ranking *r, int tied, FILE *out)
{
    /* the whole sweep's count: the list shows at most r->ntop; the best of the tied cuts,
     * which need not come first (the cheapest does) */
    double best = r->top[0].change_pct;
    for (int k = 1; k < tied; k++) best = fmin(best, r->top[k].change_pct);
    int near_all = 0;
    for (int j = 0; j < s->nsc; j++)
        near_all += j != ss_summary_measured(s) && ranked_model(r, s->sc[j].model) &&
                    ss_rank_over(s, j) == r->top[0].over &&
                    ss_summary_ref_change_pct(s, j, r->by_run) - best <
                        SS_RANK_MIN_PCT;
    char more[160] = "";
    if (near_all > tied && ss_summary_ref(s, r->top[0].j) != ss_summary_measured(s))
        snprintf(more, sizeof more, "; %d of the sweep's scenarios lie that close to the best, %d of them not "
                                    "listed here (against the baseline replay *)",
                 near_all, near_all - tied);
    else if (near_all > tied)
        snprintf(more, sizeof more, "; %d of the sweep's scenarios lie that close to the best, %d of them not "
                                    "listed here (summary.csv's %s)",
                 near_all, near_all - tied, r->by_run ? "run_change_pct" : "change_pct");
    if (tied > 1)
        fprintf(out, "  (the first %d differ by less than %.0f point%s%s: as good as equal, as real runs of one "
                     "setting differ by 1-2 %%; take the cheapest)\n",
                tied, SS_RANK_MIN_PCT, SS_RANK_MIN_PCT == 1.0 ? "" : "s", more);
}

static void print_ranking(const ss_summary *s, const ss_ranking *r, const labels *L, FILE *out)
{
    if (r->ntop > 0) {
        fprintf(out, "largest predicted cuts of the %s (against %s):\n",
                r->by_run ? "whole run's time, every epoch's start included" : "mean iteration time", ref_name(s, r));
        const ss_model_ops *ahead = NULL; /* the model of the cuts flagged loaders ahead */
        int ahead_heal = 0;
        print_top_cuts(s, r, L, &ahead, &ahead_heal, out);
        for (int k = 0; k < r->nsingle; k++) {
            char buf[LABEL_LEN], iv[64];
            const int j = r->single[k].j;
            interval_text(s, j, r->by_run, iv, sizeof iv);
            fprintf(out, "  one setting alone: %s %+.2f%%%s (%s %+.2f%%)\n", label_of(L, s, j, buf), r->single[k].change_pct, iv, r->by_run ? "steady state" : "whole run",
                    r->by_run ? r->single[k].steady_pct : r->single[k].run_pct);
        }
        if (r->n_same)
            fprintf(out, "  (%d more cut%s the same scenario as one ranked, %s settings resolving alike: not ranked "
                         "again)\n",
                    r->n_same, r->n_same == 1 ? "" : "s", r->n_same == 1 ? "its" : "their");
        if (r->n_one)
            fprintf(out, "  (%d more cut%s exactly the time of one kept before it in the table, from which %s in one "
                         "setting, which there changes nothing: not ranked)\n",
                    r->n_one, r->n_one == 1 ? " predicts" : "s predict", r->n_one == 1 ? "it differs" : "each differs");
        const int tied = tied_count(r);
        print_tie_note(s, r, tied, out);
        /* cuts the same to 1e-9: the model's floor, where every loader keeps ahead */
        int same = 1;
        const double tie = 1e-9 * fabs(s->p[ss_summary_measured(s)].mean[SS_M_ITER]);
        const ss_model_ops *first = ss_model_get(s->sc[r->top[0].j].model);
        if (first->same_time_note)
            while (same < r->ntop && s->sc[r->top[same].j].model == s->sc[r->top[0].j].model &&
                   (r->by_run ? fabs(ss_summary_run_time(s, r->top[same].j) - ss_summary_run_time(s, r->top[0].j)) <=
                                    1e-9 * ss_summary_run_time(s, ss_summary_measured(s))
                              : fabs(r->top[same].change_s - r->top[0].change_s) <= tie))
                same++;
        if (same > 1)
            fprintf(out, "  (the first %d predict the same %s: %s)\n", same,
                    r->by_run ? "whole run's time" : "mean iteration time", first->same_time_note);
        if (ahead && ahead->ahead_note) fprintf(out, "  (%s)\n", ahead->ahead_note);
        if (ahead && ahead_heal && ahead->ahead_heal_note) fprintf(out, "  (%s)\n", ahead->ahead_heal_note);
    }
    for (int k = 0; k < r->n_payoff && k < 2; k++) {
        char buf[LABEL_LEN], pay[64] = "";
        const int j = r->payoff_j[k];
        if (!isnan(r->payoff_rows[k])) snprintf(pay, sizeof pay, ": pays off beyond ~%.0f batches/epoch", r->payoff_rows[k]);
        fprintf(out, "not ranked: %s cuts the steady state %+.2f%% but costs the whole run %+.2f%% (every epoch's "
                     "start)%s\n", label_of(L, s, j, buf), ss_summary_ref_change_pct(s, j, 0), ss_summary_ref_change_pct(s, j, 1),
                pay);
    }
    if (r->n_payoff > 2) fprintf(out, "not ranked: %d more such cuts (rank_by = steady ranks them)\n", r->n_payoff - 2);
    int known = 0; /* a model in the sweep whose baseline error is measured */
    for (int j = 0; j < s->nsc; j++) /* (of the ranked models only, where some rank alone) */
        known |= j != ss_summary_measured(s) && !isnan(r->error_pct[s->sc[j].model]) &&
                 ranked_model(r, s->sc[j].model);
    if (r->ntop == 0 && s->nsc > 1) {
        if (known)
            fprintf(out, "no %sscenario cuts %s by more than its model's baseline error or %.0f%%\n",
                    alone_prefix(s, r), ranked_measure(r), SS_RANK_MIN_PCT);
        else
            fprintf(out, "no %sscenario cuts %s by more than %.0f%% (the sweep has no %sbaseline "
                         "scenario, so the model's own error is not known)\n",
                    alone_prefix(s, r), ranked_measure(r), SS_RANK_MIN_PCT, alone_prefix(s, r));
    }
    if (r->n_within > 0) {
        if (known)
            fprintf(out, "  (%d scenario%s with a smaller cut than %s model's baseline error or %.0f%% not ranked:",
                    r->n_within, r->n_within == 1 ? "" : "s", r->n_within == 1 ? "its" : "their", SS_RANK_MIN_PCT);
        else
            fprintf(out, "  (%d scenario%s with a smaller cut than %.0f%% not ranked:", r->n_within,
                    r->n_within == 1 ? "" : "s", SS_RANK_MIN_PCT);
        print_rows_left(s, r, L, r->within_j, r->n_within, out);
    }
    if (r->n_alike_heal > 0)
        fprintf(out, "  (%d heal%s not ranked: no GPU stands out, see \"GPUs to fix first\")\n", r->n_alike_heal,
                r->n_alike_heal == 1 ? "" : "s");
    if (r->n_other > 0) {
        fprintf(out, "  (%d cut%s of the independent model not ranked beside the pipeline model's: it keeps each GPU's "
                     "measured steps and loaders, so it misses the load a fix adds to the cores and a stall hidden under "
                     "a larger one, so its slow-rank heals are optimistic:",
                r->n_other, r->n_other == 1 ? "" : "s");
        print_rows_left(s, r, L, r->other_j, r->n_other, out);
    }
    if (r->n_twin > 0) {
        fprintf(out, "  (%d healed scenario%s left out, %s heal adding no more than %s%.0f%% to the same scenario "
                     "without it, which stands for %s:",
                r->n_twin, r->n_twin == 1 ? "" : "s", r->n_twin == 1 ? "its" : "each one's",
                known ? "the model's baseline error or " : "", SS_RANK_MIN_PCT, r->n_twin == 1 ? "it" : "them");
        print_rows_left(s, r, L, r->twin_j, r->n_twin, out);
    }
    /* as with the cuts: where a model that ranks alone has heal gains, the others' are left
     * to --json (the independent model's heals are optimistic: see ss_rank.c) */
    int alone = 0, others = 0;
    for (int i = 0; i < r->nheal; i++) alone |= ss_model_get(r->heal[i].model)->ranks_alone;
    for (int i = 0; i < r->nheal;) {
        ss_model m = r->heal[i].model;
        int n = 0, within = 0;
        if (alone && !ss_model_get(m)->ranks_alone) {
            while (i < r->nheal && r->heal[i].model == m) i++;
            others = 1;
            continue;
        }
        char err[64]; /* (a quiet host's baseline error is not measured: its gains pass at the floor) */
        if (ss_summary_quiet(s, m)) snprintf(err, sizeof err, "not measured: quiet_host");
        else snprintf(err, sizeof err, "%.2f%%", r->error_pct[m]);
        fprintf(out, "GPUs to fix first, %s model (healed one at a time; gains under its baseline error %s "
                     "or %.0f%% not ranked):\n ",
                ss_model_name(m), err, SS_RANK_MIN_PCT);
        for (; i < r->nheal && r->heal[i].model == m; i++) {
            if (!r->heal[i].ranked) {
                within++;
                continue;
            }
            if (n < 8)
                fprintf(out, " GPU %d %+.2f%% (saves %.4g s per epoch%s);", r->heal[i].gpu, -r->heal[i].gain_pct,
                        r->heal[i].gain_s_epoch,
                        interval_reaches_none(s, r->heal[i].j, r->by_run) ? "; unsure: its interval reaches no change"
                                                                           : "");
            n++;
        }
        if (n > 8) fprintf(out, " ... %d more;", n - 8);
        if (n == 0) fprintf(out, " none stands out;");
        if (within == 0) fprintf(out, " no other GPU\n");
        else fprintf(out, " %d %sGPU%s gain%s less than the error, or lose%s\n", within, n > 0 ? "other " : "",
                     within == 1 ? "" : "s", within == 1 ? "s" : "", within == 1 ? "s" : "");
        if (r->heal_alike[m] && n > 0)
            fprintf(out, "  (no GPU stands out: healing any one gains about as much, within %.0f point; the gain is the "
                         "iterations' spread, as each iteration waits for its slowest GPU, not one slow GPU)\n",
                    SS_RANK_MIN_PCT);
    }
    if (others)
        fprintf(out, "  (the independent model's gains per GPU are not listed beside the pipeline model's, as its cuts "
                     "are not ranked; --json has them)\n");
}

/* Which optional columns the table has: the share of the cores each row keeps busy
 * (where the trace records CPU times), CPU sharing's stretch and storage sharing's factor
 * on the reads (where some row replays with them). */
typedef struct {
    int cpu, stretch, reads;
} table_cols;

static table_cols table_cols_of(const ss_summary *s)
{
    table_cols t = {!isnan(ss_summary_cpu_load_pct(s, ss_summary_measured(s), NULL)), 0, 0};
    for (int j = 0; s->cpu_stretch && j < s->nsc; j++) t.stretch |= !isnan(s->cpu_stretch[j]);
    for (int j = 0; s->read_stretch && j < s->nsc; j++) t.reads |= !isnan(s->read_stretch[j]);
    return t;
}

int ss_report_cols(const char *t, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n && t[i]; i++) c += ((unsigned char)t[i] & 0xC0) != 0x80;
    return c;
}

/* v right-aligned (left where left) in a field of w shown characters, after one space
 * (none for the first column). */
static void put_cell(FILE *out, const char *v, int w, int left, int first)
{
    const int pad = w - ss_report_cols(v, SIZE_MAX);
    if (!first) fputc(' ', out);
    if (left) fputs(v, out);
    for (int i = 0; i < pad; i++) fputc(' ', out);
    if (!left) fputs(v, out);
}

/* The table's columns, each as wide as its header or its widest cell. */
enum { TC_MARK, TC_LABEL, TC_ITERS, TC_ITER, TC_STALL, TC_DELAY, TC_EFF, TC_CHANGE, TC_RUN, TC_CPU, TC_STRETCH,
       TC_READS, TC_N };
#define TC_CELL 48

/* Row j's cells; the label's is left empty (label_of gives it, and it may be longer). */
static void row_cells(const ss_summary *s, int j, table_cols t, char (*v)[TC_CELL])
{
    const ss_partial *p = &s->p[j];
    snprintf(v[TC_MARK], TC_CELL, "%s", j == ss_summary_measured(s) ? "M" : s->sc[j].baseline ? "*" : "");
    v[TC_LABEL][0] = '\0';
    snprintf(v[TC_ITERS], TC_CELL, "%ld", (long)p->n);
    pm(v[TC_ITER], TC_CELL, p, SS_M_ITER);
    pm(v[TC_STALL], TC_CELL, p, SS_M_STALL);
    pm(v[TC_DELAY], TC_CELL, p, SS_M_DELAY);
    snprintf(v[TC_EFF], TC_CELL, "%.2f", ss_summary_effective_delay_pct(s, j));
    const double ch = ss_summary_change_pct(s, j), rc = ss_summary_run_change_pct(s, j);
    snprintf(v[TC_CHANGE], TC_CELL, isnan(ch) ? "-" : "%+.2f", ch);
    snprintf(v[TC_RUN], TC_CELL, isnan(rc) ? "-" : "%+.2f", rc);
    const double cl = t.cpu ? ss_summary_cpu_load_pct(s, j, NULL) : NAN;
    snprintf(v[TC_CPU], TC_CELL, isnan(cl) ? "-" : "%.0f", cl);
    const double cs = t.stretch ? s->cpu_stretch[j] : NAN, rs = t.reads ? s->read_stretch[j] : NAN;
    snprintf(v[TC_STRETCH], TC_CELL, isnan(cs) ? "-" : "%.2fx", cs);
    snprintf(v[TC_READS], TC_CELL, isnan(rs) ? "-" : "%.2fx", rs);
}

/* The table's header and one line per scenario: a first pass over the rows sizes the
 * columns, a second prints them. */
/* The table shows at most this many rows on the short answer (--explain: every row) */
#define TABLE_ROWS_SHOWN 40

/* The table's header and rows: every row, or the first `limit` (> 0) with a line saying
 * how many more summary.csv holds. */
static void print_rows(const ss_summary *s, const labels *Lp, table_cols t, int limit, FILE *out)
{
    static const char *const head[TC_N] = {"", "scenario", "iters", "iter_time (s)", "stall (s)", "delay (s)",
                                           "eff.dly%", "steady%", "run%", "cpu%", "stretch", "reads"};
    const int on[TC_N] = {1, 1, 1, 1, 1, 1, 1, 1, 1, t.cpu, t.stretch, t.reads};
    int w[TC_N];
    for (int c = 0; c < TC_N; c++) w[c] = ss_report_cols(head[c], SIZE_MAX);
    w[TC_MARK] = 2;
    char v[TC_N][TC_CELL], lab[LABEL_LEN];
    for (int j = 0; j < s->nsc; j++) {
        row_cells(s, j, t, v);
        const int l = ss_report_cols(label_of(Lp, s, j, lab), SIZE_MAX);
        w[TC_LABEL] = l > w[TC_LABEL] ? l : w[TC_LABEL];
        for (int c = 0; c < TC_N; c++) {
            const int n = ss_report_cols(v[c], SIZE_MAX);
            w[c] = n > w[c] ? n : w[c];
        }
    }
    for (int c = 0; c < TC_N; c++)
        if (on[c]) put_cell(out, head[c], w[c], c <= TC_LABEL, c == 0);
    fputc('\n', out);
    const int shown = limit > 0 && s->nsc > limit ? limit : s->nsc;
    for (int j = 0; j < shown; j++) {
        row_cells(s, j, t, v);
        const char *l = label_of(Lp, s, j, lab);
        for (int c = 0; c < TC_N; c++)
            if (on[c]) put_cell(out, c == TC_LABEL ? l : v[c], w[c], c <= TC_LABEL, c == 0);
        fputc('\n', out);
    }
    if (shown < s->nsc)
        fprintf(out, "... %d more rows: summary.csv has every row, and --explain prints them all\n", s->nsc - shown);
}

/* What the marks, labels and columns mean. */
/* What heal=G means, once per model with a single-GPU heal in the sweep (its
 * ss_model_ops.heal_legend, or the loader models' sentence): into said[SS_NMODELS], their
 * count returned. */
static int heal_legends(const ss_summary *s, const char **said)
{
    int n = 0;
    for (int j = 0; j < s->nsc; j++) {
        if (s->sc[j].heal_gpu < 0) continue;
        const char *h = ss_model_heal_legend(ss_model_get(s->sc[j].model));
        int seen = 0;
        for (int i = 0; i < n; i++) seen |= said[i] == h;
        if (!seen && n < SS_NMODELS) said[n++] = h;
    }
    return n;
}

static void print_legends(const ss_summary *s, const labels *Lp, table_cols t, FILE *out)
{
    int any_baseline = 0;
    for (int j = 0; j < s->nsc; j++) any_baseline |= s->sc[j].baseline;
    fprintf(out, "M = the measured run; %ssteady%% (the summarised iterations) and run%% (the whole run, every "
                 "epoch's start included) are against M.\n",
            any_baseline ? "* = baseline replay (nothing changed); " : "");
    /* what the labels' abbreviations mean: each model in the table says it once */
    int heal = 0, heal_set = 0;
    unsigned char said[SS_NMODELS] = {0};
    for (int j = 0; j < s->nsc; j++) {
        heal |= s->sc[j].heal_gpu >= 0;
        heal_set |= s->sc[j].heal.n > 0 && s->sc[j].heal_gpu < 0;
        const ss_model_ops *o = ss_model_get(s->sc[j].model);
        const int seen = said[s->sc[j].model];
        said[s->sc[j].model] = 1;
        if (!seen && o->legend) fprintf(out, "%s: %s\n", o->label, o->legend);
        if (!seen && Lp->common[s->sc[j].model][0])
            fprintf(out, "%s: every %s row has %s (not repeated in its label)\n", o->label, o->label,
                    Lp->common[s->sc[j].model]);
    }
    const char *hl[SS_NMODELS];
    for (int i = 0, n = heal ? heal_legends(s, hl) : 0; i < n; i++) fprintf(out, "%s\n", hl[i]);
    if (heal_set)
        fprintf(out, "%s\n", ss_model_heal_set_legend);
    print_same_settings(s, Lp, out);
    fprintf(out, "values are mean±std over the summarised iterations; eff.dly%% = the share of them whose delay "
                 "(largest minus smallest stall) exceeds %g s\n",
            s->effective_delay_threshold);
    if (t.cpu && cpu_rows_of(s).near)
        fprintf(out, "cpu%% = the share of the %s the row's run keeps busy (cpu_load_pct; above %.0f %% predictions "
                     "of the class '%s' are likely optimistic)\n",
                s->cpu_pools > 1 ? "busiest pool's cores" : "cores", CPU_NEAR_PCT, NEAR_CLASS);
    else if (t.cpu)
        fprintf(out, "cpu%% = the share of the %s the row's run keeps busy (cpu_load_pct)\n",
                s->cpu_pools > 1 ? "busiest pool's cores" : "cores");
    if (t.stretch)
        fprintf(out, "stretch = how many times longer CPU work takes than with a core to itself at the row's load "
                     "(cpu_stretch, CPU sharing%s; a row replays the trace's CPU parts x its stretch / the stretch "
                     "at the trace's own load, the calibration's)\n",
                s->cpu_pools > 1 ? ": the largest over the pools" : "");
    if (t.reads)
        fprintf(out, "reads = how many times as long as in the trace each read of a fetch takes at the row's reads in "
                     "flight (read_stretch, storage sharing: [pipeline] storage_parallel = %g; the trace kept %.4g reads "
                     "in flight on average)\n",
                s->storage_parallel, s->reads_trace);
}

/* How far each baseline replay is from the measured run. */
static void print_fidelity(const ss_summary *s, FILE *out)
{
    for (int j = 0; j < s->nsc; j++) {
        double e = ss_summary_fidelity_err_pct(s, j);
        if (isnan(e)) continue;
        if (ss_summary_ref(s, j) != ss_summary_measured(s)) { /* (every baseline row of the model) */
            fprintf(out, "fidelity of the baseline replay (the * row, %s): not measured: with [pipeline] quiet_host "
                         "it replays the job alone on its cores, %+.2f%% from the measured run, which shared them; "
                         "the ranked cuts are changes against it\n",
                    s->sc[j].name, e);
            continue;
        }
        fprintf(out, "fidelity of the baseline replay (the * row, %s): mean iteration time %+.2f%% vs measured, "
                     "mean |error| per iteration (MAPE) %.2f%%\n",
                s->sc[j].name, e, ss_summary_fidelity_mape_pct(s, j));
        if (fabs(e) > FIDELITY_NOTE_PCT)
            fprintf(out, "note: that baseline replay is %.1f%% off the measured run, so the model does not describe "
                         "this run and its what-ifs are off by about as much or more: what it misses may be a loader "
                         "whose workers change within a pass (an IterableDataset whose workers ran out at different "
                         "times: `import pytorch` says so), ranks that all-reduce only every few steps "
                         "([pipeline] sync_every), or worker start-up inside the summarised iterations "
                         "(warmup_iterations); README, \"How far to trust the predictions\"\n",
                    fabs(e));
    }
}

/* The CPU the measured run and the scenarios keep busy (traces with CPU times). */
static void print_cpu(const ss_summary *s, FILE *out)
{
    int pool = 0;
    double cpu = ss_summary_cpu_load_pct(s, ss_summary_measured(s), &pool);
    if (!isnan(cpu)) {
        const cpu_rows c = cpu_rows_of(s);
        const int busy = c.busy, near = c.near, other = c.other;
        const char *other_class = c.other_class;
        if (s->cpu_pools > 1)
            fprintf(out, "CPU (recorded): the measured steady state kept %.0f%% of its busiest pool's %d %s busy (the pool of "
                         "GPU %d); ",
                    cpu, s->cpu_pool_cores, ss_plural(s->cpu_pool_cores, "core", "cores"), pool);
        else
            fprintf(out, "CPU (recorded): the measured steady state kept %.0f%% of its %d %s busy; ", cpu, s->cpu_pool_cores,
                    ss_plural(s->cpu_pool_cores, "core", "cores"));
        if (busy == 0) fprintf(out, "no scenario would need more than all of them (cpu_load_pct in summary.csv)");
        else
            fprintf(out, "%d scenario%s would need more than all of them: such a run waits for cores and gains less "
                         "than predicted (cpu_load_pct in summary.csv)",
                    busy, busy == 1 ? "" : "s");
        if (near > 0)
            fprintf(out, "; %d scenario%s would keep more than %.0f%% of them busy: their predictions are of the "
                         "'%s' class, likely optimistic",
                    near, near == 1 ? "" : "s", CPU_NEAR_PCT, NEAR_CLASS);
        if (other > 0)
            fprintf(out, "; %d%s scenario%s would keep more than %.0f%% of them busy, of %s%s%s, which come%s first: "
                         "their intervals are %s",
                    other, near > 0 ? " more" : "", other == 1 ? "" : "s", CPU_NEAR_PCT,
                    other_class ? "the class '" : "classes", other_class ? other_class : "", other_class ? "'" : "",
                    other_class ? "s" : "", other_class ? "that class's" : "their classes'");
        fputc('\n', out);
    }
}

/* The GPU whose loader most often set the stall, when one stands out. */
static void print_slowest_loader(const ss_summary *s, FILE *out)
{
    {
        const ss_partial *m = &s->p[ss_summary_measured(s)];
        double next = 0.0, top = 0.0;
        int g;
        const int named = slowest_loader(s, &g, &top, &next);
        if (named >= 0) {
            /* the stall's share of the iteration says whether the loaders matter at all */
            double it = m->mean[SS_M_ITER], share = it > 0 ? 100.0 * m->mean[SS_M_STALL] / it : 0.0;
            /* a GPU is named only when it stands out */
            if (named)
                fprintf(out, "slowest loader (measured): GPU %d alone had the largest stall in %.1f%% of iterations; ", g,
                        100.0 * top);
            else if (top > 0.5) /* most often last, yet not slow enough to be worth a fix */
                fprintf(out, "slowest loader (measured): none worth fixing (GPU %d alone had the largest stall in %.1f%% of "
                             "iterations, but fixing its loader would gain less than %.3g%%); ",
                        g, 100.0 * top, gain_floor(s));
            else
                fprintf(out, "slowest loader (measured): none stands out (GPU %d alone had the largest stall in %.1f%% of "
                             "iterations, the next GPU in %.1f%%); ",
                        g, 100.0 * top, 100.0 * next);
            fprintf(out, "the largest stall is %.1f%% of the iteration time%s\n", share,
                    share < STALL_MINOR_PCT ? ": data loading hardly limits this run (a GPU slow in its training step "
                                              "does not show here)"
                                            : "");
        }
    }
}

/* The measured stall in the rows the summary leaves out (each epoch's warm-up, epochs not
 * selected), when it is more than SS_STALL_OUTSIDE_SHARE of the run's, with the whole run's
 * figure that includes it. */
static void print_stall_outside(const ss_summary *s, FILE *out)
{
    const ss_partial *m = &s->p[ss_summary_measured(s)];
    const double all = m->run.stall, in = m->n * m->mean[SS_M_STALL];
    if (!(all > 0.0) || !(m->run.time > 0.0) || !((all - in) / all > SS_STALL_OUTSIDE_SHARE)) return;
    fprintf(out, "stall outside the summary (measured): %.0f%% of the run's stall lies in the rows the summary leaves "
                 "out (each epoch's rows of index below %ld, epochs not selected); with them the stall is %.1f%% of the whole run's "
                 "time (run_time), against %.1f%% of the summarised iterations'\n",
            100.0 * (all - in) / all, s->warmup_iterations, 100.0 * ss_summary_wall(s, all) / ss_summary_run_time(s, ss_summary_measured(s)),
            m->n > 0 && m->mean[SS_M_ITER] > 0 ? 100.0 * m->mean[SS_M_STALL] / m->mean[SS_M_ITER] : 0.0);
}

/* The share of the measured whole run that every row keeps as measured between epochs
 * (kept_between), where it is more than SS_KEPT_BETWEEN_SHARE; else 0. */
static double kept_between_share(const ss_summary *s)
{
    const double whole = ss_summary_run_time(s, ss_summary_measured(s));
    return whole > 0.0 && s->kept_between > SS_KEPT_BETWEEN_SHARE * whole ? s->kept_between / whole : 0.0;
}

/* What that time holds besides the loop's own work, by ss_summary.kept_with: short (the
 * answer) and in full (--explain). */
/* (a trace without pass starts is not the recorder's, whose evaluation loader eval_path replays) */
static const char *const kept_short[] = {"evaluation (see eval_path), checkpoints",
                                         "workers' starts, evaluation, checkpoints",
                                         "workers' stops, evaluation (see eval_path)"};
static const char *const kept_full[] = {"", " and, as the trace records no pass starts, the workers' starts and stops",
                                        " and, as the trace records no pass stops, the workers' stops"};

/* That time, said in full (--explain). */
static void print_kept_between(const ss_summary *s, FILE *out)
{
    const double kept = kept_between_share(s);
    if (!(kept > 0.0)) return;
    if (s->eval_own > 0.0)
        fprintf(out, "between epochs (measured): %.3f s, %.0f%% of the whole run, lies between epochs in the loop's own "
                     "work besides the evaluation loader (checkpoints, logging)%s; every row keeps it as measured\n",
                s->kept_between, 100.0 * kept, kept_full[s->kept_with]);
    else
        fprintf(out, "between epochs (measured): %.3f s, %.0f%% of the whole run, lies between epochs in the loop's own "
                     "work (evaluation, checkpoints)%s; every row keeps it as measured, so a row's whole-run change falls "
                     "short of its steady one, and a change that also speeds that work up (an evaluation loader with the "
                     "same settings) gains more than predicted. Record an evaluation loader with a Recorder of its own "
                     "and name its trace in [trace] eval_path: its passes then change with each scenario\n",
                s->kept_between, 100.0 * kept, kept_full[s->kept_with]);
}

/* The share of the measured whole run by which loops began their passes late (late_passes),
 * where it is more than SS_KEPT_BETWEEN_SHARE and no evaluation loader is replayed; else 0. */
static double late_passes_share(const ss_summary *s)
{
    const double whole = ss_summary_run_time(s, ss_summary_measured(s));
    return s->late_gpu >= 0 && !(s->eval_own > 0.0) && whole > 0.0 && s->late_passes > SS_KEPT_BETWEEN_SHARE * whole
               ? s->late_passes / whole
               : 0.0;
}

/* The evaluation loader's own share of the measured whole run ([trace] eval_path), or 0. */
static double eval_share(const ss_summary *s)
{
    const double whole = ss_summary_run_time(s, ss_summary_measured(s));
    return s->eval_own > 0.0 && whole > 0.0 ? s->eval_own / whole : 0.0;
}

/* Loops that began their passes late (late_passes_share), said in full (--explain). */
static void print_late_passes(const ss_summary *s, FILE *out)
{
    const double late = late_passes_share(s);
    if (!(late > 0.0)) return;
    fprintf(out, "late passes (measured): %.3f s, %.0f%% of the whole run, by which the last GPU's loop began each "
                 "epoch's pass after the first's (GPU %d in most epochs): its own work before iter(loader), such as "
                 "rank 0 evaluating or saving a checkpoint alone; every row keeps it as measured, a heal of that GPU "
                 "too (a heal fixes its loader, not its loop), and the other GPUs wait for it in their first step. An "
                 "evaluation loader of that rank, recorded with a Recorder of world_size=1 and named in [trace] "
                 "eval_path, then changes with each row\n",
            s->late_passes, 100.0 * late, s->late_gpu);
}

/* The evaluation loader's share of the measured whole run (eval_share), said in full
 * (--explain). */
static void print_eval_loader(const ss_summary *s, FILE *out)
{
    const double share = eval_share(s);
    if (!(share > 0.0)) return;
    fprintf(out, "evaluation loader (measured): %.3f s, %.0f%% of the whole run, in its passes, its workers' starts and "
                 "stops; every row replays them from its own trace under the row's loader settings, and the whole run "
                 "spans both loaders' passes\n",
            s->eval_own, 100.0 * share);
}

/* A measured run whose iteration times jump or drift: where it changes level (ss_drift,
 * lv: NULL when not looked for), and a quarter of its rows much slower or faster than the
 * others (ss_summary_uneven), which widens the intervals. */
static void print_uneven(const ss_summary *s, const ss_drift *lv, FILE *out)
{
    char line[320];
    if (lv) ss_drift_line(lv, line, sizeof line);
    if (lv && line[0]) fprintf(out, "level change (measured): %s; every scenario replays both levels\n", line);
    double d = 0.0;
    const int q = ss_summary_uneven(s, &d);
    if (q < 0) return;
    const long rows = (long)s->p[ss_summary_measured(s)].run.rows;
    fprintf(out, "uneven run (measured): the iterations past the warm-up in rows %ld-%ld (its %s quarter) took %+.0f%% against "
                 "the median quarter: the run changed speed (other processes on its cores, a slow phase); predictions "
                 "take it as one run, and their intervals widen with the halves' difference (%.1f%%)\n",
            (q * rows + 3) / 4, ((q + 1) * rows + 3) / 4 - 1, q == 0 ? "first" : q == 1 ? "second" : q == 2 ? "third" : "last",
            100.0 * d, 100.0 * ss_summary_variability(s));
}

/* What sets the intervals' width (--explain): per class in the sweep, its model error m
 * and the trace's noise v (its halves' difference and other processes' share of its cores),
 * combined as s = sqrt(m^2 + v^2) (MODELS-pipeline.md, "Intervals"); the rows without a
 * class have no interval. */
static void print_interval_scales(const ss_summary *s, FILE *out)
{
    if (!s->cls) return;
    const double v = ss_summary_trace_noise(s);
    int any = 0, none = 0;
    for (int j = 0; j < s->nsc; j++) {
        const ss_error_class *c = s->cls[j];
        if (j == ss_summary_measured(s)) continue;
        if (!c) {
            none++;
            continue;
        }
        int seen = 0;
        for (int i = 0; i < j && !seen; i++) seen = s->cls[i] == c;
        if (seen) continue;
        if (!any++) {
            char others[96];
            if (isnan(s->host_others)) snprintf(others, sizeof others, "other processes' use of its cores is not recorded");
            else snprintf(others, sizeof others, "other processes used %.1f%% of its cores", 100.0 * s->host_others);
            fprintf(out, "interval width: the trace's halves differ by %.1f%% and %s, v = %.1f%% together; each "
                         "class's model error m and v give the scale s = sqrt(m^2 + v^2) of its errors, and its "
                         "interval spans its 5%% and 95%% scaled errors times s; where its errors lean one way, so does "
                         "its interval\n",
                    100.0 * ss_summary_variability(s), others, 100.0 * v);
        }
        fprintf(out, "  %-32s m = %.1f%% steady, %.1f%% whole run: s = %.1f%%, %.1f%%", c->name,
                100.0 * c->model_error[0], 100.0 * c->model_error[1], 100.0 * hypot(c->model_error[0], v),
                100.0 * hypot(c->model_error[1], v));
        /* where the real value lies against the prediction: the interval's ends, which lean
         * where the class's errors lean */
        const int base = !strcmp(c->name, "baseline"); /* its real value is the measured run itself */
        for (int k = 0; k < 2; k++) {
            double lo, hi; /* of a prediction of 1 */
            ss_summary_class_interval(1.0, c, k, v, &lo, &hi);
            if (!isnan(lo) && !isnan(hi))
                fprintf(out, "%s %+.1f … %+.1f%%%s", k ? "," : base ? "; the measured run" : "; the real value",
                        100.0 * (lo - 1.0), 100.0 * (hi - 1.0),
                        k ? (base ? " (whole run) of the replay: its fidelity; a repeat of the run differs more "
                                    "(compare --spread)"
                                  : " (whole run) of the prediction")
                          : " (steady)");
        }
        fputc('\n', out);
    }
    if (none)
        fprintf(out, "%d row%s without an interval: %s model has no table of errors on real runs\n", none,
                none == 1 ? "" : "s", none == 1 ? "its" : "their");
}

/* A GPU whose fetches take far more CPU than the others', and several slow loaders. */
static void print_loaders(const ss_summary *s, FILE *out)
{
    double own, others;
    const int heavy = ss_summary_cpu_heavy_gpu(s, &own, &others);
    if (heavy >= 0)
        fprintf(out, "CPU-heavy loader (recorded): GPU %d's fetches take %.1fx the CPU of the other GPUs' median (%.4f "
                     "against %.4f s per batch); it slows the GPUs that share its cores, which no stall shows: heal=%d "
                     "with the pipeline model replays it with the others' CPU\n",
                heavy, own / others, own, others, heavy);
    ss_healset slow;
    double med = 0.0;
    const int nslow = ss_summary_slow_loaders(s, &slow, &med);
    if (nslow >= 2) { /* several slow loaders: the per-GPU ranking heals one at a time */
        char text[SS_HEAL_TEXT_MAX];
        ss_healset_format(&slow, text, sizeof text);
        int swept = 0;
        for (int j = 0; j < s->nsc; j++) swept |= !memcmp(&s->sc[j].heal, &slow, sizeof slow);
        char gpus[256] = "", times[256] = "";
        size_t ug = 0, ut = 0;
        for (int i = 0, k = 0; i < slow.n; i++)
            for (int g = slow.lo[i]; g <= slow.hi[i]; g++, k++) {
                const char *sep = k == 0 ? "" : k == nslow - 1 ? " and " : ", ";
                if (ug < sizeof gpus) ug += (size_t)snprintf(gpus + ug, sizeof gpus - ug, "%s%d", sep, g);
                if (ut < sizeof times)
                    ut += (size_t)snprintf(times + ut, sizeof times - ut, "%s%.1fx", sep, s->calib.fetch_med_gpu[g] / med);
            }
        fprintf(out, "slow loaders (calibration): GPUs %s take %s the usual fetch time (the lower quartile over GPUs, "
                     "%.4f s): fixing one may gain nothing while another still holds every step back; heal = %s "
                     "replays them fixed together%s\n", gpus, times, med, text, swept ? " (in this sweep)" : "");
    }
}

/* ---- The answer on one screen (sim/cli/ANSWER.md): the lines after the table, each at
 * most SS_ANSWER_WIDTH characters, at most SS_ANSWER_LINES of them; --explain prints the
 * long form above instead. ---- */


/* t cut to at most w characters, ending in "…" where it was cut (in place: t has room). */
static void ucut(char *t, int w)
{
    if (ss_report_cols(t, strlen(t)) <= w) return;
    size_t i = 0;
    for (int c = 0; t[i] && c < w - 1; c++)
        do i++;
        while (((unsigned char)t[i] & 0xC0) == 0x80);
    strcpy(t + i, "…");
}

/* The lines of the answer, each with a priority: 0 is kept always, higher numbers go
 * first when the screen is full (their text is in --explain). */
#define SCREEN_MAX 64
#define LINE_BYTES 512
typedef struct {
    char text[SCREEN_MAX][LINE_BYTES];
    int prio[SCREEN_MAX];
    int n;
} screen;

static void say(screen *sc, int prio, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(screen *sc, int prio, const char *fmt, ...)
{
    if (sc->n >= SCREEN_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->text[sc->n], LINE_BYTES - 4, fmt, ap);
    va_end(ap);
    ucut(sc->text[sc->n], SS_ANSWER_WIDTH);
    sc->prio[sc->n++] = prio;
}

/* Drops the lines of the highest priority, last first, until at most max are left. */
static void screen_fit(screen *sc, int max)
{
    for (int p = 9; p > 0 && sc->n > max; p--)
        for (int i = sc->n - 1; i >= 0 && sc->n > max; i--)
            if (sc->prio[i] == p) {
                memmove(&sc->text[i], &sc->text[i + 1], (size_t)(sc->n - i - 1) * sizeof sc->text[0]);
                memmove(&sc->prio[i], &sc->prio[i + 1], (size_t)(sc->n - i - 1) * sizeof sc->prio[0]);
                sc->n--;
            }
}

/* A row's model and label, sorted by both */
typedef struct {
    int model;
    const char *label;
} model_label;

static int cmp_model_label(const void *a, const void *b)
{
    const model_label *x = a, *y = b;
    return x->model != y->model ? (x->model < y->model ? -1 : 1) : strcmp(x->label, y->label);
}

/* Groups of rows of one model with the same label (print_same_settings names them). */
static int same_groups(const ss_summary *s, const labels *L)
{
    if (!L->row) return 0;
    model_label *v = malloc((size_t)s->nsc * sizeof *v);
    if (!v) return 0;
    int n = 0, groups = 0;
    for (int a = 0; a < s->nsc; a++)
        if (a != ss_summary_measured(s)) v[n++] = (model_label){s->sc[a].model, L->row[a]};
    /* sorted, a label held by two rows or more is one run of equal neighbours */
    qsort(v, (size_t)n, sizeof *v, cmp_model_label);
    for (int i = 1; i < n; i++)
        groups += !cmp_model_label(&v[i], &v[i - 1]) && (i < 2 || cmp_model_label(&v[i - 1], &v[i - 2]));
    free(v);
    return groups;
}

/* 1 when a row asks workers = auto*F with F other than 1 of a trace that loads
 * synchronously: it has W = 0, as the trace. */
static int auto_zero_rows(const ss_summary *s)
{
    for (int j = 0; j < s->nsc; j++) {
        const ss_scenario *sc = &s->sc[j];
        const ss_model_ops *ops = ss_model_get(sc->model);
        if (j != ss_summary_measured(s) && sc->workers.is_auto && sc->workers.value != 1.0 && ops->hints &&
            (ops->hints(sc, NULL) & SS_HINT_NO_WORKERS_AUTO))
            return 1;
    }
    return 0;
}

/* The settings every row shares ("f=none cs=1") with the legend's names for their
 * abbreviations ("fetch_align=none compute_scale=1"), into out. */
static void spell_common(const char *legend, const char *common, char *out, size_t n)
{
    size_t u = 0;
    out[0] = '\0';
    for (const char *p = common; *p && u < n;) {
        while (*p == ' ') p++;
        const size_t len = strcspn(p, " "), ab = strcspn(p, "=");
        if (!len) break;
        const char *name = NULL;
        size_t nlen = 0;
        char key[32];
        snprintf(key, sizeof key, "%.*s= ", (int)(ab < len ? ab : len), p);
        for (const char *q = legend ? strstr(legend, key) : NULL; q && !name; q = strstr(q + 1, key))
            if (q == legend || q[-1] == ' ' || q[-1] == ';' || q[-1] == ',') {
                name = q + strlen(key);
                nlen = strcspn(name, ",: ");
            }
        if (name && ab < len)
            u += (size_t)snprintf(out + u, n - u, "%s%.*s%.*s", u ? " " : "", (int)nlen, name, (int)(len - ab), p + ab);
        else
            u += (size_t)snprintf(out + u, n - u, "%s%.*s", u ? " " : "", (int)len, p);
        p += len;
    }
}

/* The model's legend cut to the abbreviations its rows' labels use: "pipe = the pipeline
 * model; W= workers, fs= fetch_scale", then the settings every row shares, spelt out. */
static void say_model_legend(screen *sc, const ss_summary *s, const labels *L, ss_model m)
{
    const ss_model_ops *o = ss_model_get(m);
    char out[LINE_BYTES] = "", item[128];
    const char *semi = o->legend ? strchr(o->legend, ';') : NULL;
    size_t u = (size_t)snprintf(out, sizeof out, "%s = %.*s", o->label,
                                (int)(semi ? (size_t)(semi - o->legend) : o->legend ? strlen(o->legend) : 0),
                                o->legend ? o->legend : "");
    int n = 0;
    for (const char *p = semi ? semi + 1 : NULL; p && *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        p += len;
        char *eq = strchr(item, '=');
        if (!eq) continue;
        char key[32];
        snprintf(key, sizeof key, " %.*s=", (int)(eq - item), item);
        int used = 0;
        for (int j = 0; j < s->nsc && !used; j++) {
            char buf[LABEL_LEN], padded[LABEL_LEN + 2];
            if (s->sc[j].model != m || j == ss_summary_measured(s)) continue;
            snprintf(padded, sizeof padded, " %s", label_of(L, s, j, buf));
            used = strstr(padded, key) != NULL;
        }
        if (used && u < sizeof out) u += (size_t)snprintf(out + u, sizeof out - u, "%s%s", n++ ? ", " : "; ", item);
    }
    /* a legend wider than the screen goes on two lines, split after an item */
    if (ss_report_cols(out, strlen(out)) > SS_ANSWER_WIDTH) {
        char *cut = NULL;
        for (char *q = strstr(out, ", "); q; q = strstr(q + 2, ", "))
            if (ss_report_cols(out, (size_t)(q - out) + 1) <= SS_ANSWER_WIDTH) cut = q;
        if (cut) {
            char rest[sizeof out];
            *cut = '\0';
            say(sc, 1, "%s,", out);
            snprintf(rest, sizeof rest, "  %s", cut + 2);
            memcpy(out, rest, sizeof out);
        }
    }
    /* the settings every row shares: on the line where they fit, else on one of their own */
    char common[LINE_BYTES] = "", spelt[LINE_BYTES - 64], own[LINE_BYTES];
    spell_common(o->legend, L->common[m], spelt, sizeof spelt);
    snprintf(own, sizeof own, "every %s row has %s", o->label, spelt);
    if (ss_report_cols(own, strlen(own)) > SS_ANSWER_WIDTH) { /* too long spelt out even alone: the labels' short form */
        snprintf(spelt, sizeof spelt, "%s", L->common[m]);
        snprintf(own, sizeof own, "every %s row has %s", o->label, spelt);
    }
    if (spelt[0]) snprintf(common, sizeof common, "; every row has %s", spelt);
    if (common[0] && ss_report_cols(out, strlen(out)) + ss_report_cols(common, strlen(common)) > SS_ANSWER_WIDTH) {
        say(sc, 1, "%s", out);
        say(sc, 3, "%s", own);
        return;
    }
    say(sc, 1, "%s%s", out, common);
}

/* What the marks, labels and columns mean, short. */
static void say_legends(screen *sc, const ss_summary *s, const labels *L, table_cols t)
{
    int any_baseline = 0, heal = 0, heal_set = 0;
    for (int j = 0; j < s->nsc; j++) {
        any_baseline |= s->sc[j].baseline;
        heal |= s->sc[j].heal_gpu >= 0;
        heal_set |= s->sc[j].heal.n > 0 && s->sc[j].heal_gpu < 0;
    }
    say(sc, 1, "M = measured run; %ssteady%% (summarised iterations), run%% (whole run): against M",
        any_baseline ? "* = baseline replay; " : "");
    unsigned char said[SS_NMODELS] = {0}; /* each model's legend once */
    for (int j = 0; j < s->nsc; j++) {
        const int seen = said[s->sc[j].model];
        said[s->sc[j].model] = 1;
        if (!seen && ss_model_get(s->sc[j].model)->legend) say_model_legend(sc, s, L, s->sc[j].model);
    }
    const char *hl[SS_NMODELS];
    for (int i = 0, n = heal ? heal_legends(s, hl) : 0; i < n; i++) say(sc, 2, "%s", hl[i]);
    if (heal_set) say(sc, 2, "%s", ss_model_heal_set_legend);
    const int groups = same_groups(s, L);
    if (groups)
        say(sc, 3, "same settings: %d group%s of rows resolve alike, each one result (--explain names them)", groups,
            groups == 1 ? "" : "s");
    if (auto_zero_rows(s)) /* (a sweep that asks nothing of a synchronous trace: said before all else) */
        say(sc, 0, "workers = auto*F is 0 here: the trace loads synchronously (W = 0); give numbers: 0, 1, 2, 4");
    say(sc, 3, "values: mean±std over the summarised iterations; eff.dly%% = share with a delay above %g s",
        s->effective_delay_threshold);
    if (t.cpu && cpu_rows_of(s).near)
        say(sc, 3, "cpu%% = share of the %s the row keeps busy; above %.0f%% likely optimistic",
            s->cpu_pools > 1 ? "busiest pool's cores" : "cores", CPU_NEAR_PCT);
    else if (t.cpu) say(sc, 3, "cpu%% = share of the %s the row keeps busy", s->cpu_pools > 1 ? "busiest pool's cores" : "cores");
    if (t.stretch) say(sc, 3, "stretch = how many times longer CPU work takes than on a core of its own");
    if (t.reads) say(sc, 3, "reads = how many times longer each read takes at the row's reads in flight");
}

/* The findings on the measured run and the baseline replays, short. */
/* Whether row j is its model's first baseline replay (the rows after it replay alike). */
static int first_baseline(const ss_summary *s, int j)
{
    if (isnan(ss_summary_fidelity_err_pct(s, j))) return 0;
    for (int k = 0; k < j; k++)
        if (s->sc[k].model == s->sc[j].model && !isnan(ss_summary_fidelity_err_pct(s, k))) return 0;
    return 1;
}

/* 1 when scenario x keeps every GPU's workers of the trace: auto, or the calibrated count */
static int keeps_workers(const ss_summary *s, const ss_scenario *x)
{
    if (x->workers.is_auto) return x->workers.value == 1.0;
    if (!s->has_calib) return 0;
    for (int g = 0; g < s->calib.gpus; g++)
        if (s->calib.workers_gpu[g] != (int)x->workers.value) return 0;
    return 1;
}

/* 1 when scenario x keeps the trace's prefetch factor: auto, the calibrated one, or any
 * where the trace does not record it (a baseline replay then takes the given one) */
static int keeps_prefetch(const ss_summary *s, const ss_scenario *x)
{
    if (x->prefetch == SS_PREFETCH_AUTO) return 1;
    if (!s->has_calib || !s->calib.recorded_prefetch || !s->calib.prefetch_gpu) return !s->has_calib ? 0 : 1;
    for (int g = 0; g < s->calib.gpus; g++)
        if (s->calib.workers_gpu[g] > 0 && s->calib.prefetch_gpu[g] != x->prefetch) return 0;
    return 1;
}

/* The swept keys of the models that replay a baseline whose lists lack the trace's own
 * value, as "KEY = VALUE" joined by ", " (a baseline replay needs every one of them). */
static void missing_trace_values(const ss_summary *s, char *out, size_t size)
{
    enum { K_WORKERS, K_PREFETCH, K_PERSIST, K_FETCH, K_COMPUTE, K_FALIGN, K_SALIGN, K_HEAL, K_N };
    static const char *const text[K_N] = {"workers = auto", "prefetch = auto", "persistent_workers = auto",
                                          "fetch_scale = 1", "compute_scale = 1", "fetch_align = none",
                                          "start_align = none", "heal = none"};
    static const unsigned axis[K_N] = {SS_AXIS_WORKERS, SS_AXIS_PREFETCH, SS_AXIS_PERSISTENT, SS_AXIS_FETCH_SCALE,
                                       SS_AXIS_COMPUTE_SCALE, SS_AXIS_FETCH_ALIGN, SS_AXIS_START_ALIGN, SS_AXIS_HEAL};
    int swept[K_N] = {0}, has[K_N] = {0};
    for (int j = 0; j < s->nsc; j++) {
        const ss_scenario *x = &s->sc[j];
        const ss_model_ops *ops = ss_model_get(x->model);
        if (j == ss_summary_measured(s) || !ops->reports_fidelity) continue;
        const int at[K_N] = {keeps_workers(s, x), keeps_prefetch(s, x),
                             x->persistent == SS_PERSIST_AUTO, x->fetch_scale == 1.0, x->compute_scale == 1.0,
                             x->fetch_align == SS_ALIGN_NONE, x->start_align == SS_ALIGN_NONE, x->heal.n == 0};
        for (int k = 0; k < K_N; k++) {
            swept[k] |= (ops->axes & axis[k]) != 0;
            has[k] |= (ops->axes & axis[k]) && at[k];
        }
    }
    out[0] = '\0';
    for (int k = 0; k < K_N; k++) {
        const size_t n = strlen(out);
        if (swept[k] && !has[k]) snprintf(out + n, size - n, "%s%s", n ? ", " : "", text[k]);
    }
}

static void say_findings(screen *sc, const ss_summary *s, const ss_drift *lv, const ss_ownwork *ow)
{
    int nb = 0;
    for (int j = 0; j < s->nsc; j++) nb += first_baseline(s, j);
    for (int j = 0; j < s->nsc; j++) {
        if (!first_baseline(s, j)) continue;
        const double e = ss_summary_fidelity_err_pct(s, j);
        if (ss_summary_ref(s, j) != ss_summary_measured(s)) { /* a quiet host's baseline: the job alone, on purpose */
            say(sc, 1, "fidelity%s%s%s: not measured (quiet_host: * is the job alone, %+.2f%% from M)",
                nb > 1 ? " (" : "", nb > 1 ? ss_model_get(s->sc[j].model)->label : "", nb > 1 ? ")" : "", e);
            continue;
        }
        say(sc, 1, "fidelity%s%s%s: the baseline replay is %+.2f%% off the measured run (mean |error| per iteration %.2f%%)",
            nb > 1 ? " (" : "", nb > 1 ? ss_model_get(s->sc[j].model)->label : "", nb > 1 ? ")" : "", e,
            ss_summary_fidelity_mape_pct(s, j));
        if (fabs(e) > FIDELITY_NOTE_PCT)
            say(sc, 0, "warning: that is more than %.0f%%: the model does not describe this run (--explain)",
                FIDELITY_NOTE_PCT);
    }
    int fid = 0; /* a model that measures its error by a baseline replay, with none in the sweep */
    for (int j = 0; j < s->nsc && nb == 0; j++) fid |= ss_model_get(s->sc[j].model)->reports_fidelity;
    if (fid) {
        char keys[256];
        missing_trace_values(s, keys, sizeof keys);
        say(sc, 1, "fidelity: no baseline replay; add %s", keys[0] ? keys : "each swept key's trace value (auto, 1, none)");
    }
    int pool = 0;
    const double cpu = ss_summary_cpu_load_pct(s, ss_summary_measured(s), &pool);
    if (!isnan(cpu)) {
        const cpu_rows c = cpu_rows_of(s);
        const int busy = c.busy, near = c.near;
        char tail[96];
        if (busy) snprintf(tail, sizeof tail, "%d scenario%s would need more: optimistic", busy, busy == 1 ? "" : "s");
        else snprintf(tail, sizeof tail, "none needs more");
        say(sc, 2, "CPU (recorded): steady state %.0f%% of %s%d %s busy; %s%s", cpu,
            s->cpu_pools > 1 ? "the busiest pool's " : "", s->cpu_pool_cores,
            ss_plural(s->cpu_pool_cores, "core", "cores"), tail, near ? "; some >85%: likely optimistic" : "");
        /* the measured contention that the model does not match, where a row changes the load
         * (the note of it in full: --explain) */
        const ss_share *sh = s->has_calib ? s->calib.share : NULL;
        double miss = 0.0;
        const int q = sh && sh->s0m ? ss_share_contention_pool(sh, &miss) : -1;
        int moves = 0;
        for (int j = 0; q >= 0 && j < s->nsc && !moves; j++)
            moves = fabs(ss_summary_cpu_load_pct(s, j, NULL) - cpu) > 1.0;
        if (q >= 0 && (miss > SS_SHARE_MODEL_MISS || sh->s0m[q] > SS_SHARE_BUSY_STRETCH) && moves) {
            /* the measure furthest from the model: the fetches' or the steps' */
            const int steps = fabs(sh->s0[q] / sh->s0m_step[q] - 1.0) > fabs(sh->s0[q] / sh->s0m[q] - 1.0);
            say(sc, 2, "contention (recorded): %s took %.2fx their CPU time, the model %.2fx: load changes less sure",
                steps ? "steps" : "fetches", steps ? sh->s0m_step[q] : sh->s0m[q], sh->s0[q]);
        }
    }
    double top = 0.0, next = 0.0;
    int g;
    const ss_partial *m = &s->p[ss_summary_measured(s)];
    const double stall_pct = m->mean[SS_M_ITER] > 0 ? 100.0 * m->mean[SS_M_STALL] / m->mean[SS_M_ITER] : 0.0;
    const int named = slowest_loader(s, &g, &top, &next);
    if (named == 1)
        say(sc, 1, "slowest loader: GPU %d (largest stall in %.1f%% of iterations); stalls take %.0f%% of the iteration time",
            g, 100.0 * top, stall_pct);
    else if (m->n > 0 && m->mean[SS_M_ITER] > 0) /* (where the time goes, even with no loader to blame) */
        say(sc, 1, "stalls take %.0f%% of the iteration time%s", stall_pct,
            stall_pct < STALL_MINOR_PCT ? ": data loading hardly limits this run"
            : s->gpus > 1               ? "; no GPU's loader stands out"
                                        : "");
    const double all = m->run.stall, in = m->n * m->mean[SS_M_STALL];
    if (all > 0.0 && m->run.time > 0.0 && (all - in) / all > SS_STALL_OUTSIDE_SHARE)
        say(sc, 3, "stall outside the summary: %.0f%% of the run's stall is in rows left out (--explain)",
            100.0 * (all - in) / all);
    const double kept = kept_between_share(s), evals = eval_share(s), late = late_passes_share(s);
    if (evals > 0.0)
        say(sc, 2, "evaluation loader: %.1f s (%.0f%% of the run), replayed under each row's loader settings",
            s->eval_own, 100.0 * evals);
    if (late > 0.0)
        say(sc, 2, "late passes: GPU %d began its passes %.1f s late in all (%.0f%%), kept as measured: see eval_path",
            s->late_gpu, s->late_passes, 100.0 * late);
    if (kept > 0.0 && s->eval_own > 0.0)
        say(sc, 2, "between epochs: %.1f s (%.0f%% of the run) kept as measured in every row: the loop's own work",
            s->kept_between, 100.0 * kept);
    else if (kept > 0.0)
        say(sc, 2, "between epochs: %.1f s (%.0f%%) kept as measured: %s", s->kept_between, 100.0 * kept,
            kept_short[s->kept_with]);
    double d = 0.0;
    const int q = ss_summary_uneven(s, &d);
    if (lv && lv->found && lv->rest > 0)
        say(sc, 2, "level change: epoch %d step %lld to epoch %d step %lld ran %.2fx the rest%s", (int)lv->epoch0,
            (long long)lv->index0, (int)lv->epoch1, (long long)lv->index1, lv->level / lv->rest,
            q >= 0 ? "; intervals widened" : "");
    else if (q >= 0)
        say(sc, 2, "uneven run: rows %ld-%ld took %+.0f%% against the median quarter; intervals widened",
            q * (long)m->run.rows / 4, (q + 1) * (long)m->run.rows / 4 - 1, 100.0 * d);
    double own, others;
    const int heavy = ss_summary_cpu_heavy_gpu(s, &own, &others);
    if (heavy >= 0)
        say(sc, 2, "CPU-heavy loader: GPU %d's fetches take %.1fx the others' CPU; heal=%d replays it with theirs",
            heavy, own / others, heavy);
    ss_healset slow;
    double med = 0.0;
    if (ss_summary_slow_loaders(s, &slow, &med) >= 2) {
        char text[SS_HEAL_TEXT_MAX];
        ss_healset_format(&slow, text, sizeof text);
        say(sc, 2, "slow loaders: GPUs %s each take 1.5x the usual fetch time or more; heal = %s fixes them together",
            text, text);
    }
    if (ow && ow->found) { /* (the short form of ss_ownwork_line, which --explain prints) */
        char every[40] = "";
        if (ow->every > 0) snprintf(every, sizeof every, ", every ~%ld steps", ow->every);
        say(sc, 1, "own work: GPU %d's loop paused %ld times%s, %.2f s each: no loader change helps", ow->gpu,
            ow->pauses, every, ow->mean_extra);
    }
}

/* The ranked heals per model that the short answer's "GPUs to fix first" line shows */
#define HEAL_SHOWN 2

/* The flags of ranked cut k, and the bits of the legend they need. */
enum { F_TIE = 1, F_AHEAD = 2, F_HEAL = 4, F_SYNC = 8, F_OVER = 16, F_BUSY = 32, F_UNSURE = 64, F_SKEWED = 128,
       F_NFLAGS = 8 };

/* 1 when cut j's 90 % interval of the ranked measure reaches its reference (ss_summary_ref;
 * its upper end a change of 0 or more, or no upper end): the real job may not gain. */
static int interval_reaches_none(const ss_summary *s, int j, int by_run)
{
    const double *lo = by_run ? s->run_lo : s->iter_lo, *hi = by_run ? s->run_hi : s->iter_hi;
    if (!lo || !hi || (isnan(lo[j]) && isnan(hi[j]))) return 0;
    double a, b;
    return !ss_report_change_interval(s, j, by_run, &a, &b) || b >= 0.0;
}

/* 1 when cut j's predicted change of the ranked measure lies outside its own 90 % interval:
 * the class's real runs erred one way, so the real change is likelier inside it. */
static int point_outside(const ss_summary *s, int j, int by_run, double change_pct)
{
    double a, b;
    return ss_report_change_interval(s, j, by_run, &a, &b) && (change_pct < a || change_pct > b);
}

static unsigned cut_flags(const ss_summary *s, const ss_ranking *r, int k, int tied, char *buf, size_t n)
{
    const int j = r->top[k].j;
    const double cpu = ss_summary_cpu_load_pct(s, j, NULL);
    unsigned f = 0;
    f |= tied > 1 && k < tied ? F_TIE : 0;
    f |= cpu > CPU_BUSY_PCT ? F_OVER : near_row(s, j) ? F_BUSY : r->top[k].loaders_ahead ? F_AHEAD : 0;
    f |= s->sc[j].heal.n > 0 && !ss_model_get(s->sc[j].model)->waits_only ? F_HEAL : 0;
    /* (a synchronous trace with the recorder's probe of one worker has a class, and an interval, of its own) */
    f |= s->cls && s->cls[j] && !strcmp(s->cls[j]->name, "from a synchronous trace") ? F_SYNC : 0;
    f |= interval_reaches_none(s, j, r->by_run) ? F_UNSURE : 0;
    f |= point_outside(s, j, r->by_run, r->top[k].change_pct) ? F_SKEWED : 0;
    static const char *const names[F_NFLAGS] = {"tie", "ahead", "heal", "sync", "over", "busy", "unsure", "skewed"};
    size_t u = 0;
    buf[0] = '\0';
    for (int b = 0; b < F_NFLAGS; b++)
        if (f & (1u << b) && u < n) u += (size_t)snprintf(buf + u, n - u, " %s", names[b]);
    if (!isnan(r->top[k].payoff_rows) && u < n)
        snprintf(buf + u, n - u,
                 r->by_run ? "%s only below ~%.0f batches/epoch" : "%s pays off beyond ~%.0f batches/epoch",
                 u ? ";" : "", r->top[k].payoff_rows);
    return f;
}

/* The legend of the flags used: long words where they fit on one line, else short ones
 * (on two lines only where even those do not fit). */
static void say_flag_legend(screen *sc, unsigned used)
{
    static const char *const longer[] = {
        "tie = ≤1 pt from the best: shares 1st, fewest changes listed first", "ahead = loaders ahead: less sure", "heal = healed GPU: load modelled",
        "sync = synchronous trace: wide interval", "over = needs >100% of cores: optimistic",
        "busy = >85% of cores: likely optimistic", "unsure = interval reaches no change",
        "skewed = change outside its interval: trust the interval"};
    static const char *const shorter[] = {"tie: fewest changes first", "ahead: less sure", "heal: load modelled",
                                          "sync: wide", "over: >100% cores", "busy: >85% cores", "unsure: may not gain",
                                          "skewed: trust the interval"};
    if (!used) return;
    for (int pass = 0; pass < 2; pass++) {
        char out[LINE_BYTES] = "flags:", more[LINE_BYTES] = "";
        size_t u = strlen(out), v = 0;
        for (int b = 0; b < F_NFLAGS; b++) {
            if (!(used & (1u << b))) continue;
            const char *w = (pass ? shorter : longer)[b];
            if (pass && ss_report_cols(out, u) + 2 + ss_report_cols(w, strlen(w)) > SS_ANSWER_WIDTH)
                v += (size_t)snprintf(more + v, sizeof more - v, "%s%s", v ? "; " : "       ", w);
            else u += (size_t)snprintf(out + u, sizeof out - u, "%s %s", u > 6 ? ";" : "", w);
            if (u >= sizeof out || v >= sizeof more) break;
        }
        if (ss_report_cols(out, strlen(out)) <= SS_ANSWER_WIDTH || pass) {
            say(sc, 0, "%s", out);
            if (more[0]) say(sc, 0, "%s", more);
            return;
        }
    }
}

/* The ranked cuts, one line each: label, change, interval, the other measure, flags. */
/* Where the first cut changes several settings: the best that change one alone (ranking.single),
 * as many as fit on one line */
static int say_singles(screen *sc, const ss_summary *s, const ss_ranking *r, const labels *L)
{
    static const char head[] = "one setting alone:";
    char line[LINE_BYTES];
    snprintf(line, sizeof line, "%s", head);
    int k = 0;
    for (; k < r->nsingle; k++) {
        char buf[LABEL_LEN], part[LABEL_LEN + 112], iv[64];
        const int j = r->single[k].j;
        interval_text(s, j, r->by_run, iv, sizeof iv);
        snprintf(part, sizeof part, "%s %s %+.1f%%%s%s", k ? ";" : "", label_of(L, s, j, buf), r->single[k].change_pct, iv,
                 interval_reaches_none(s, j, r->by_run) ? " unsure" : "");
        if (k > 0 && ss_report_cols(line, strlen(line)) + ss_report_cols(part, strlen(part)) > SS_ANSWER_WIDTH) {
            /* the rest on a line of its own, under the first */
            say(sc, 1, "%s;", line);
            snprintf(line, sizeof line, "%*s%s", (int)strlen(head), "", part + 1);
            continue;
        }
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s", part);
    }
    if (k > 0) say(sc, 1, "%s", line);
    return k;
}

static void say_cuts(screen *sc, const ss_summary *s, const ss_ranking *r, const labels *L)
{
    int any_iv = 0; /* the interval column only where some cut has one */
    for (int k = 0; k < r->ntop; k++) {
        double lo, hi;
        any_iv |= ss_report_change_interval(s, r->top[k].j, r->by_run, &lo, &hi);
    }
    say(sc, 0, "largest predicted cuts of the %s%s; %s:", r->by_run ? "whole run's time" : "mean iteration time",
        any_iv ? " (90% interval)" : "",
        r->by_run ? "steady = of the mean iteration time" : "run = of the whole run's time");
    if (ss_summary_ref(s, r->top[0].j) != ss_summary_measured(s))
        say(sc, 0, "(quiet_host: each against the baseline replay *, the job alone on its cores, not against M)");
    else if (ss_summary_quiet(s, s->sc[r->top[0].j].model))
        say(sc, 0, "(quiet_host without a baseline replay: each holds the quiet host's own change; add one, as above)");
    const int tied = tied_count(r);
    char num[SS_RANK_TOP][96], flags[SS_RANK_TOP][96], lab[SS_RANK_TOP][LABEL_LEN];
    int wlab = 0, wrest = 0, unsure = 0;
    unsigned used = 0;
    for (int k = 0; k < r->ntop; k++) {
        char buf[LABEL_LEN], iv[64];
        snprintf(lab[k], sizeof lab[k], "%s", label_of(L, s, r->top[k].j, buf));
        interval_text(s, r->top[k].j, r->by_run, iv, sizeof iv);
        const int ivpad = (any_iv ? 18 : 0) - ss_report_cols(iv, strlen(iv));
        snprintf(num[k], sizeof num[k], "%+6.1f%%%s%*s  %s %+6.1f%%", r->top[k].change_pct, iv, ivpad > 0 ? ivpad : 0,
                 "", r->by_run ? "steady" : "run", r->by_run ? r->top[k].steady_pct : r->top[k].run_pct);
        const unsigned f = cut_flags(s, r, k, tied, flags[k], sizeof flags[k]);
        used |= f;
        unsure += (f & F_UNSURE) != 0;
        const int l = ss_report_cols(lab[k], strlen(lab[k])), rest = ss_report_cols(num[k], strlen(num[k])) + ss_report_cols(flags[k], strlen(flags[k]));
        wlab = l > wlab ? l : wlab;
        wrest = rest > wrest ? rest : wrest;
    }
    /* "  1. " and a space: the label gets what the widest line leaves; where a label would
     * be cut, every cut takes two lines, its label whole on the first */
    const int room = SS_ANSWER_WIDTH - 6 - wrest;
    for (int k = 0; k < r->ntop; k++) {
        const int place = k < tied ? 1 : k + 1; /* the tied cuts share the first place */
        if (wlab > room) {
            say(sc, 0, "  %d. %s", place, lab[k]);
            say(sc, 0, "     %s%s%s", num[k], flags[k][0] ? " " : "", flags[k]);
            continue;
        }
        const int pad = wlab - ss_report_cols(lab[k], strlen(lab[k]));
        say(sc, 0, "  %d. %s%*s %s%s%s", place, lab[k], pad > 0 ? pad : 0, "", num[k], flags[k][0] ? " " : "", flags[k]);
    }
    const int singles = say_singles(sc, s, r, L);
    for (int k = 0; k < singles; k++)
        if (interval_reaches_none(s, r->single[k].j, r->by_run)) used |= F_UNSURE;
    /* "GPUs to fix first" shows the first HEAL_SHOWN ranked heals of a listed model, flagged unsure
     * as the cuts are: the legend covers them too */
    for (int i = 0, shown = 0, m = -1; i < r->nheal; i++) {
        if (!heal_listed(r, r->heal[i].model) || !r->heal[i].ranked || r->heal_alike[r->heal[i].model]) continue;
        if ((int)r->heal[i].model != m) m = (int)r->heal[i].model, shown = 0;
        if (shown++ < HEAL_SHOWN && interval_reaches_none(s, r->heal[i].j, r->by_run)) used |= F_UNSURE;
    }
    say_flag_legend(sc, used);
    int pays = 0; /* a cut whose whole run and steady state disagree: what its batch count means */
    for (int k = 0; k < r->ntop; k++) pays |= !isnan(r->top[k].payoff_rows);
    if (pays)
        say(sc, 0, r->by_run ? "only below ~N batches/epoch: in shorter epochs its faster starts outweigh its slower batches"
                             : "pays off beyond ~N batches/epoch: in longer epochs its faster batches outweigh its slower starts");
    if (r->ntop > 0 && unsure == r->ntop && s->host_others >= SS_TRACE_HOST_OTHERS_NAMED)
        say(sc, 0, "none is sure to help: its base shared its cores (%.0f%% others): record it again on quiet cores",
            100.0 * s->host_others);
    else if (r->ntop > 0 && unsure == r->ntop)
        say(sc, 0, "none is sure to help: every interval reaches no change (record the base again: compare --spread)");
}

/* The ranked answer, short: the cuts, what is not ranked, the GPUs to fix first. */
static void say_ranking(screen *sc, const ss_summary *s, const ss_ranking *r, const labels *L)
{
    if (r->ntop > 0) say_cuts(sc, s, r, L);
    if (r->n_payoff > 0) {
        char buf[LABEL_LEN];
        const int j = r->payoff_j[0];
        char pay[64] = "";
        if (!isnan(r->payoff_rows[0])) snprintf(pay, sizeof pay, ": pays off beyond ~%.0f batches/epoch", r->payoff_rows[0]);
        char line[LINE_BYTES];
        snprintf(line, sizeof line, "not ranked: %s steady %+.1f%% but whole run %+.1f%%", label_of(L, s, j, buf),
                 ss_summary_ref_change_pct(s, j, 0), ss_summary_ref_change_pct(s, j, 1));
        if (ss_report_cols(line, strlen(line)) + (int)strlen(pay) <= SS_ANSWER_WIDTH) {
            say(sc, 2, "%s%s", line, pay);
        } else { /* a long label: the pay-off on a line of its own rather than cut off */
            say(sc, 2, "%s", line);
            if (pay[0]) say(sc, 2, "  (%s)", pay + 2);
        }
    }
    int known = 0;
    for (int j = 0; j < s->nsc; j++)
        known |= j != ss_summary_measured(s) && !isnan(r->error_pct[s->sc[j].model]) && ranked_model(r, s->sc[j].model);
    if (r->ntop == 0 && s->nsc > 1) {
        if (r->n_alike_heal > 0) /* (the heals gained, but alike: the line below says so) */
            say(sc, 0, "no %sscenario cuts %s but heals of GPUs alike, which fix no one GPU (below)",
                alone_prefix(s, r), ranked_measure(r));
        else if (known)
            say(sc, 0, "no %sscenario cuts %s by more than its model's baseline error or %.0f%%",
                alone_prefix(s, r), ranked_measure(r), SS_RANK_MIN_PCT);
        else
            say(sc, 0, "no %sscenario cuts %s by more than %.0f%% (no baseline row: error unknown)",
                alone_prefix(s, r), ranked_measure(r), SS_RANK_MIN_PCT);
    }
    for (int i = 0; i < r->nheal;) {
        const ss_model m = r->heal[i].model;
        if (!heal_listed(r, m)) {
            while (i < r->nheal && r->heal[i].model == m) i++;
            continue;
        }
        char out[LINE_BYTES];
        size_t u = (size_t)snprintf(out, sizeof out, "GPUs to fix first (%s):", ss_model_name(m));
        int n = 0, within = 0;
        for (; i < r->nheal && r->heal[i].model == m; i++) {
            if (!r->heal[i].ranked) within++;
            else if (n++ < HEAL_SHOWN && u < sizeof out)
                u += (size_t)snprintf(out + u, sizeof out - u, "%s GPU %d %+.1f%%%s (%.3g s/epoch)", n > 1 ? ";" : "",
                                      r->heal[i].gpu, -r->heal[i].gain_pct,
                                      interval_reaches_none(s, r->heal[i].j, r->by_run) ? " unsure" : "",
                                      r->heal[i].gain_s_epoch);
        }
        if (n > HEAL_SHOWN && u < sizeof out) u += (size_t)snprintf(out + u, sizeof out - u, "; %d more", n - HEAL_SHOWN);
        if (r->heal_alike[m] && n > 0) {
            /* the gains of this model's heals, sorted largest first: the range */
            double hi = r->heal[i - 1].gain_pct, lo = hi;
            for (int k = i - 1; k >= 0 && r->heal[k].model == m; k--) hi = r->heal[k].gain_pct;
            say(sc, 0, "GPUs to fix first (%s): none stands out (each heal %+.1f to %+.1f%%: the iterations' spread)",
                ss_model_name(m), -hi, -lo);
            continue;
        }
        /* the floor: the model's baseline error or SS_RANK_MIN_PCT, the larger */
        const double fl = r->error_pct[m] > SS_RANK_MIN_PCT ? r->error_pct[m] : SS_RANK_MIN_PCT;
        if (n == 0 && u < sizeof out)
            snprintf(out + u, sizeof out - u, " none gains more than %.3g%% (the model's error or %.0f%%)", fl,
                     SS_RANK_MIN_PCT);
        else if (within && u < sizeof out)
            snprintf(out + u, sizeof out - u, "; %d other%s less than %.3g%%", within, within == 1 ? " gains" : "s gain", fl);
        say(sc, 0, "%s", out);
    }
}

/* The answer on one screen: legends, findings, the ranked answer and where the rest is. */
static void print_answer(const ss_summary *s, const labels *L, table_cols t, int notes, const ss_drift *lv,
                         const ss_ownwork *own, FILE *out)
{
    screen *sc = calloc(1, sizeof *sc);
    if (!sc) return;
    say_legends(sc, s, L, t);
    say_findings(sc, s, lv, own);
    if (s->rank) say_ranking(sc, s, s->rank, L);
    char nn[48] = "";
    if (notes > 0) snprintf(nn, sizeof nn, "%d note%s, ", notes, notes == 1 ? "" : "s");
    const ss_ranking *r = s->rank;
    const int unranked = r && r->n_within + r->n_twin + r->n_same + r->n_one + r->n_other + r->n_payoff + r->n_alike_heal > 0;
    int intervals = 0; /* a row with an interval: its model has a table of errors */
    for (int j = 0; s->cls && j < s->nsc && !intervals; j++) intervals = s->cls[j] != NULL;
    say(sc, 0, "more: --explain (%severy caveat%s), --json (every figure%s)", nn, unranked ? ", what was not ranked" : "",
        intervals ? " and interval" : "");
    screen_fit(sc, SS_ANSWER_LINES - 1); /* the caller's "wrote" line is the last */
    for (int i = 0; i < sc->n; i++) fprintf(out, "%s\n", sc->text[i]);
    free(sc);
}

void ss_report_print_table(const ss_summary *s, const ss_report_opts *o, FILE *out)
{
    const table_cols t = table_cols_of(s);
    labels L;
    labels_make(s, &L);
    print_rows(s, &L, t, o && o->explain ? 0 : TABLE_ROWS_SHOWN, out);
    if (!o || !o->explain) {
        print_answer(s, &L, t, o ? o->notes : 0, o ? o->level : NULL, o ? o->own : NULL, out);
        free(L.row);
        return;
    }
    print_legends(s, &L, t, out);
    print_fidelity(s, out);
    print_cpu(s, out);
    print_slowest_loader(s, out);
    print_stall_outside(s, out);
    print_eval_loader(s, out);
    print_late_passes(s, out);
    print_kept_between(s, out);
    print_uneven(s, o->level, out);
    char own[512];
    if (o->own) ss_ownwork_line(o->own, own, sizeof own);
    if (o->own && own[0]) fprintf(out, "%s\n", own);
    print_interval_scales(s, out);
    print_loaders(s, out);
    if (s->rank) print_ranking(s, s->rank, &L, out);
    free(L.row);
}

/* A JSON number: null where it is not finite (JSON has no inf or NaN). */
static void json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x);
    else fputs("null", f);
}

/* One JSON value of column c for row j (GPU g): null where it does not apply. */
static void json_value(FILE *f, const ss_column *c, const ss_summary *s, int j, int g)
{
    ss_colval v;
    if (!ss_column_get(c, s, j, g, &v)) fputs("null", f);
    else if (c->type == SS_COL_STR) fprintf(f, "\"%s\"", v.str);
    else if (c->type == SS_COL_F64) json_num(f, v.d);
    else fprintf(f, "%ld", v.l);
}

/* A JSON string of the n bytes at t. */
static void json_str(FILE *f, const char *t, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)t[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* ", "key": [...]": the lines of text that begin with prefix, each without it. */
static void json_lines(FILE *f, const char *key, const char *text, const char *prefix)
{
    fprintf(f, ",\n\"%s\": [", key);
    int k = 0;
    const size_t np = strlen(prefix);
    for (const char *p = text; p && *p;) {
        const size_t len = strcspn(p, "\n");
        if (len >= np && !strncmp(p, prefix, np)) {
            fputs(k++ ? ",\n  " : "\n  ", f);
            json_str(f, p + np, len - np);
        }
        p += len + (p[len] == '\n');
    }
    fputs("]", f);
}

/* One ranked cut k of the JSON's ranking.top, as an object. */
static void json_cut(FILE *f, const ss_summary *s, const ss_ranking *r, const ss_rank_top *t, int k)
{
    double cpu = ss_summary_cpu_load_pct(s, t->j, NULL);
    const int ref = ss_summary_ref(s, t->j); /* the measured row, or a quiet host's baseline replay */
    fprintf(f, "%s{\"scenario\": \"%s\", \"against\": \"%s\", \"change_pct\": ", k ? ", " : "", s->sc[t->j].name,
            s->sc[ref].name);
    json_num(f, t->change_pct);
    fputs(", \"change_s\": ", f);
    json_num(f, t->change_s);
    fputs(", \"run_change_s\": ", f);
    json_num(f, ss_summary_run_time(s, t->j) - ss_summary_run_time(s, ss_summary_ref(s, t->j)));
    fputs(", \"steady_change_pct\": ", f);
    json_num(f, t->steady_pct);
    fputs(", \"run_change_pct\": ", f);
    json_num(f, t->run_pct);
    fputs(", \"payoff_batches_per_epoch\": ", f);
    json_num(f, t->payoff_rows);
    double lo = NAN, hi = NAN;
    ss_report_change_interval(s, t->j, r->by_run, &lo, &hi);
    fputs(", \"change_lo_pct\": ", f);
    json_num(f, lo);
    fputs(", \"change_hi_pct\": ", f);
    json_num(f, hi);
    if (!isnan(cpu)) {
        fputs(", \"cpu_load_pct\": ", f);
        json_num(f, cpu);
        fprintf(f, ", \"optimistic\": %s, \"likely_optimistic\": %s", cpu > CPU_BUSY_PCT ? "true" : "false",
                near_row(s, t->j) ? "true" : "false");
    }
    const int j = t->j, by = r->by_run;
    fprintf(f, ", \"loaders_ahead\": %s, \"interval_reaches_no_change\": %s, \"change_outside_interval\": %s",
            t->loaders_ahead ? "true" : "false", interval_reaches_none(s, j, by) ? "true" : "false",
            point_outside(s, j, by, t->change_pct) ? "true" : "false");
    fputc('}', f);
}

/* The trace-level findings of the JSON's "findings": where the measured run changed level,
 * and one GPU's own work between steps (each where found). */
static void json_trace_findings(const ss_report_opts *o, FILE *f)
{
    const ss_drift *lv = o ? o->level : NULL; /* where the measured run changed level */
    if (lv && lv->found) {
        fprintf(f, ", \"level_change\": {\"epoch_from\": %d, \"step_from\": %lld, \"epoch_to\": %d, \"step_to\": %lld, "
                   "\"rows\": %ld, \"of_rows\": %ld, \"level\": ",
                (int)lv->epoch0, (long long)lv->index0, (int)lv->epoch1, (long long)lv->index1, lv->row1 - lv->row0,
                lv->rows);
        json_num(f, lv->level);
        fputs(", \"rest\": ", f);
        json_num(f, lv->rest);
        fputc('}', f);
    }
    const ss_ownwork *ow = o ? o->own : NULL; /* one GPU's pauses between steps */
    if (ow && ow->found) {
        fprintf(f, ", \"own_work\": {\"gpu\": %d, \"pauses\": %ld, \"every_steps\": %ld, \"mean_s\": ", ow->gpu,
                ow->pauses, ow->every);
        json_num(f, ow->mean_extra);
        fputs(", \"share\": ", f);
        json_num(f, ow->share);
        fputc('}', f);
    }
}

void ss_report_print_json(const ss_summary *s, const ss_report_opts *o, FILE *f)
{
    int nc;
    const ss_column *cols = ss_columns(&nc);
    fprintf(f, "{\"gpus\": %d, \"scenarios\": [\n", s->gpus);
    for (int j = 0; j < s->nsc; j++) {
        fputs("  {", f);
        int first = 1;
        for (int k = 0; k < nc; k++) {
            const ss_column *c = &cols[k];
            ss_colval v;
            if ((c->flags & SS_COLF_JSON_OMIT) && !ss_column_get(c, s, j, 0, &v)) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", c->name);
            first = 0;
            if (!(c->flags & SS_COLF_PER_GPU)) {
                json_value(f, c, s, j, 0);
                continue;
            }
            fputc('[', f);
            for (int g = 0; g < s->gpus; g++) {
                if (g) fputs(", ", f);
                json_value(f, c, s, j, g);
            }
            fputc(']', f);
        }
        fprintf(f, "}%s\n", j + 1 < s->nsc ? "," : "");
    }
    fputs("]", f);
    const ss_ranking *r = s->rank;
    if (r) {
        fputs(",\n\"ranking\": {\"baseline_error_pct\": {", f);
        int first = 1;
        for (int m = 0; m < SS_NMODELS; m++) {
            if (isnan(r->error_pct[m])) continue;
            fprintf(f, "%s\"%s\": ", first ? "" : ", ", ss_model_name((ss_model)m));
            json_num(f, ss_summary_quiet(s, (ss_model)m) ? NAN : r->error_pct[m]); /* (not measured) */
            first = 0;
        }
        fprintf(f, "}, \"rank_by\": \"%s\",\n  \"top\": [", r->by_run ? "run" : "steady");
        for (int k = 0; k < r->ntop; k++) json_cut(f, s, r, &r->top[k], k);
        fputs("],\n  \"one_setting_alone\": [", f);
        for (int k = 0; k < r->nsingle; k++) json_cut(f, s, r, &r->single[k], k);
        fprintf(f, "],\n  \"not_ranked\": %d, \"healed_left_out\": %d, \"same_left_out\": %d, "
                   "\"one_setting_left_out\": %d, \"independent_left_out\": %d, \"alike_heals_left_out\": %d, "
                   "\"iterations_per_epoch\": ",
                r->n_within, r->n_twin, r->n_same, r->n_one, r->n_other, r->n_alike_heal);
        json_num(f, r->iterations_per_epoch);
        fputs(",\n  \"heal\": [", f);
        for (int k = 0; k < r->nheal; k++) {
            fprintf(f, "%s{\"model\": \"%s\", \"gpu\": %d, \"scenario\": \"%s\", \"gain_pct\": ", k ? ",\n    " : "",
                    ss_model_name(r->heal[k].model), r->heal[k].gpu, s->sc[r->heal[k].j].name);
            json_num(f, r->heal[k].gain_pct);
            fputs(", \"gain_s_per_epoch\": ", f);
            json_num(f, r->heal[k].gain_s_epoch);
            fprintf(f, ", \"ranked\": %s, \"interval_reaches_no_change\": %s}", r->heal[k].ranked ? "true" : "false",
                    interval_reaches_none(s, r->heal[k].j, r->by_run) ? "true" : "false");
        }
        fputs("],\n  \"no_gpu_stands_out\": [", f);
        for (int m = 0, k = 0; m < SS_NMODELS; m++)
            if (r->heal_alike[m]) fprintf(f, "%s\"%s\"", k++ ? ", " : "", ss_model_name((ss_model)m));
        fputs("]}", f);
    }
    /* the lines under the terminal's table that name GPUs */
    int g;
    double top = 0.0, next = 0.0, own, others, med;
    fputs(",\n\"findings\": {\"slowest_loader_gpu\": ", f);
    if (slowest_loader(s, &g, &top, &next) == 1) {
        fprintf(f, "%d, \"slowest_loader_share\": ", g);
        json_num(f, top);
    } else {
        fputs("null", f);
    }
    const int heavy = ss_summary_cpu_heavy_gpu(s, &own, &others);
    if (heavy >= 0) fprintf(f, ", \"cpu_heavy_gpu\": %d", heavy);
    else fputs(", \"cpu_heavy_gpu\": null", f);
    ss_healset slow;
    fputs(", \"slow_loaders\": [", f);
    if (ss_summary_slow_loaders(s, &slow, &med) >= 2)
        for (int i = 0, k = 0; i < slow.n; i++)
            for (int x = slow.lo[i]; x <= slow.hi[i]; x++) fprintf(f, "%s%d", k++ ? ", " : "", x);
    fputs("]", f);
    /* the calibration's warning of a pool of cores that other processes used, only where
     * there is one */
    const ss_calib_finding *d = s->has_calib ? &s->calib.disturbed : NULL;
    if (d && d->found) {
        fprintf(f, ", \"disturbed_pool\": {\"gpu\": %d, \"pool\": %d, \"ratio\": ", d->gpu, d->pool);
        json_num(f, d->ratio);
        fputs(", \"fetch_stretch\": ", f);
        json_num(f, d->fetch_stretch);
        fputs(", \"step_stretch\": ", f);
        json_num(f, d->step_stretch);
        fputs(", \"model_stretch\": ", f);
        json_num(f, d->model_stretch);
        fputs(", \"excess_wait_share\": ", f);
        json_num(f, d->excess_share);
        fputc('}', f);
    }
    int hg; /* what other processes used of the job's cores, where the recorder measured it */
    double other, job;
    if (o && o->meta && ss_trace_meta_host_others(o->meta, &hg, &other, &job)) {
        fprintf(f, ", \"host_cpu\": {\"gpu\": %d, \"other_share\": ", hg);
        json_num(f, other);
        fputs(", \"job_share\": ", f);
        json_num(f, job);
        fputc('}', f);
    }
    json_trace_findings(o, f);
    double ch = 0.0; /* a measured run that changed speed, only where there is one */
    const int q = ss_summary_uneven(s, &ch);
    if (q >= 0) {
        fprintf(f, ", \"uneven_quarter\": %d, \"uneven_change\": ", q);
        json_num(f, ch);
    }
    /* the time between epochs that every row keeps, and the evaluation loader's own, where
     * one was replayed ([trace] eval_path) */
    fputs(", \"kept_between\": ", f);
    json_num(f, s->kept_between);
    fputs(", \"late_passes\": ", f);
    json_num(f, s->late_passes);
    if (s->eval_own > 0.0) {
        fputs(", \"eval_loader\": {\"trace\": ", f);
        json_str(f, s->eval_trace ? s->eval_trace : "", s->eval_trace ? strlen(s->eval_trace) : 0);
        fputs(", \"own_time\": ", f);
        json_num(f, s->eval_own);
        fputc('}', f);
    }
    fputs("}", f);
    json_lines(f, "warnings", o ? o->notes_text : NULL, "warning: ");
    json_lines(f, "notes", o ? o->notes_text : NULL, "note: ");
    json_lines(f, "calibration", o ? o->calib_text : NULL, "calibration: ");
    fputs("}\n", f);
}
