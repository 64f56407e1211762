/* ss_rank.c - top scenarios and the per-GPU heal ranking. */
#include "ss_rank.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ss_model.h"

static double mean_iter(const ss_summary *s, int j) { return s->p[j].n > 0 ? s->p[j].mean[SS_M_ITER] : NAN; }

/* What a ranking compares: the whole run's time (by_run) or the mean iteration time, and
 * its change against the row's reference (the measured run, or on a quiet host its model's
 * baseline replay: ss_summary_ref) in %. */
static double rank_value(const ss_summary *s, int j, int by_run)
{
    return by_run ? ss_summary_run_time(s, j) : mean_iter(s, j);
}
static double rank_change(const ss_summary *s, int j, int by_run)
{
    return ss_summary_ref_change_pct(s, j, by_run);
}

/* Where the steady change and the whole run's disagree in sign: the batches per epoch n*
 * at which they balance. Per epoch the whole run changes by the start's change D plus n
 * times the steady change d per batch, D + n d, which is 0 at n* = -D / d (d in wall
 * time: the change of the mean iteration times their wall ratio; D from the trace's rows
 * per epoch n0: D = its run's change per epoch - n0 d). NaN where they agree,
 * where the steady change is below SS_RANK_MIN_PCT (no change: persistent workers keep the
 * steady state but for rounding), or where n* is not positive. */
static double payoff_rows(const ss_summary *s, int j)
{
    const int m = ss_summary_ref(s, j);
    const double E = ss_run_epochs(&s->p[m].run), steady = rank_change(s, j, 0), run = rank_change(s, j, 1);
    if (!(E >= 1) || !(steady * run < 0.0) || !(fabs(steady) >= SS_RANK_MIN_PCT)) return NAN;
    const double n0 = s->p[m].run.rows / E, d = ss_summary_wall(s, mean_iter(s, j) - mean_iter(s, m));
    const double D = (ss_summary_run_time(s, j) - ss_summary_run_time(s, m)) / E - n0 * d;
    const double n = d != 0.0 ? -D / d : NAN;
    return n > 0.0 ? n : NAN;
}

/* The model's baseline row, or -1. */
static int baseline_of(const ss_summary *s, ss_model m)
{
    for (int j = 0; j < s->nsc; j++)
        if (s->sc[j].model == m && s->sc[j].baseline) return j;
    return -1;
}

/* A cut or a heal's gain is ranked only above its model's baseline error and above
 * SS_RANK_MIN_PCT (ss_rank.h): an independent model's error is 0 by construction, which
 * would rank a 0.2 % gain as a fix. */
/* A change smaller than this is no change: a scenario whose run equals the measured one
 * (a loader already ahead, made faster) differs from it only by rounding, 1e-14 %, either
 * way; it is neither a cut nor counted among the cuts not ranked. */
#define SS_RANK_NO_CHANGE_PCT 1e-9
static double floor_of(double err) { return err > SS_RANK_MIN_PCT ? err : SS_RANK_MIN_PCT; }

/* Orders scenarios by what a heal's twin shares with it: model and every setting but the
 * heal (0 where they share them all) */
static int cmp_twin_settings(const ss_scenario *a, const ss_scenario *b)
{
#define SS_CMP_FIELD(f) \
    if (a->f != b->f) return a->f < b->f ? -1 : 1;
    SS_CMP_FIELD(model)
    SS_CMP_FIELD(fetch_align)
    SS_CMP_FIELD(start_align)
    SS_CMP_FIELD(workers.is_auto)
    SS_CMP_FIELD(workers.value)
    SS_CMP_FIELD(prefetch)
    SS_CMP_FIELD(fetch_scale)
    SS_CMP_FIELD(compute_scale)
    SS_CMP_FIELD(persistent)
#undef SS_CMP_FIELD
    return 0;
}

/* An unhealed scenario k of the sweep, for sorting by settings */
typedef struct {
    const ss_scenario *sc;
    int k;
} unhealed_sc;

static int cmp_unhealed(const void *a, const void *b)
{
    const unhealed_sc *x = a, *y = b;
    const int c = cmp_twin_settings(x->sc, y->sc);
    return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* The scenarios without a heal, sorted by their settings (then their order), into u;
 * their count */
static int sort_unhealed(const ss_summary *s, unhealed_sc *u)
{
    int n = 0;
    for (int k = 0; k < s->nsc; k++)
        if (s->sc[k].heal.n == 0) u[n++] = (unhealed_sc){&s->sc[k], k};
    qsort(u, (size_t)n, sizeof *u, cmp_unhealed);
    return n;
}

/* The scenario that is j without its heal (same model and other settings, no GPU healed;
 * the first in the sweep's order where several are), or -1: a search of the n sorted
 * unhealed scenarios u (sort_unhealed). */
static int unhealed_twin(const ss_summary *s, int j, const unhealed_sc *u, int n)
{
    const ss_scenario *a = &s->sc[j];
    if (a->heal.n == 0) return -1;
    int lo = 0, hi = n; /* the first whose settings are not below j's */
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (cmp_twin_settings(u[mid].sc, a) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && !cmp_twin_settings(u[lo].sc, a) ? u[lo].k : -1;
}

static int cmp_top(const void *a, const void *b)
{
    const ss_rank_top *x = a, *y = b;
    if (x->change_pct != y->change_pct) return x->change_pct < y->change_pct ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static int cmp_heal(const void *a, const void *b)
{
    const ss_rank_heal *x = a, *y = b;
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    if (x->gain_pct != y->gain_pct) return x->gain_pct > y->gain_pct ? -1 : 1;
    return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* A cut of a run of equal predicted change, with its resolved settings as numbers: the
 * sweep's axes that every model keeps as given, then the model's own parts (key_of) */
#define CUT_PARTS (4 + SS_KEY_PARTS)
typedef struct {
    int model, j, at; /* at: its place in the candidates */
    double mean, run; /* its mean iteration time and whole run */
    int n;            /* parts */
    double lo[CUT_PARTS], hi[CUT_PARTS];
    const ss_healset *heal;
} cut_key;

static void key_of(const ss_scenario *sc, cut_key *k)
{
    const double generic[4] = {sc->fetch_align, sc->start_align, sc->fetch_scale, sc->compute_scale};
    for (int i = 0; i < 4; i++) k->lo[i] = k->hi[i] = generic[i];
    ss_setting_key own = {0};
    const ss_model_ops *ops = ss_model_get(sc->model);
    if (ops->key_of) ops->key_of(sc, &own);
    for (int i = 0; i < own.n; i++) k->lo[4 + i] = own.lo[i], k->hi[4 + i] = own.hi[i];
    k->n = 4 + own.n;
    k->heal = &sc->heal;
}

static int cmp_heal_set(const ss_healset *a, const ss_healset *b)
{
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = 0; i < a->n; i++) {
        if (a->lo[i] != b->lo[i]) return a->lo[i] < b->lo[i] ? -1 : 1;
        if (a->hi[i] != b->hi[i]) return a->hi[i] < b->hi[i] ? -1 : 1;
    }
    return 0;
}

/* Orders the settings of x and y (0: the same scenario) */
static int cmp_settings(const cut_key *x, const cut_key *y)
{
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    for (int i = 0; i < x->n; i++) {
        if (x->lo[i] != y->lo[i]) return x->lo[i] < y->lo[i] ? -1 : 1;
        if (x->hi[i] != y->hi[i]) return x->hi[i] < y->hi[i] ? -1 : 1;
    }
    return cmp_heal_set(x->heal, y->heal);
}

static int cmp_cut_key(const void *a, const void *b)
{
    const cut_key *x = a, *y = b;
    int c = cmp_settings(x, y);
    if (c) return c;
    return x->j < y->j ? -1 : x->j > y->j;
}

/* 1 when x and y, of one model, differ in exactly one setting (a heal set counts as one
 * setting where both heal; a cut that heals and one that does not are further apart) */
static int one_part_apart(const cut_key *x, const cut_key *y)
{
    if ((x->heal->n > 0) != (y->heal->n > 0) || x->n != y->n) return 0;
    int diff = cmp_heal_set(x->heal, y->heal) != 0;
    for (int i = 0; i < x->n; i++) diff += x->lo[i] != y->lo[i] || x->hi[i] != y->hi[i];
    return diff == 1;
}

/* How many settings scenarios a and b of one model differ in, as they are replayed: the
 * aligns and scales, a heal set (as one), the workers, and where both have workers the
 * prefetch factor and persistent_workers (auto as the trace's) */
static int settings_apart(const ss_summary *s, const ss_scenario *a, const ss_scenario *b)
{
    const ss_model_ops *ops = ss_model_get(a->model);
    int d = (a->fetch_align != b->fetch_align) + (a->start_align != b->start_align) +
            (a->fetch_scale != b->fetch_scale) + (a->compute_scale != b->compute_scale) +
            (cmp_heal_set(&a->heal, &b->heal) != 0);
    if (!ops->setting_of || !(ops->axes & SS_AXIS_WORKERS)) return d;
    const long wa = ops->setting_of(a, SS_AXIS_WORKERS), wb = ops->setting_of(b, SS_AXIS_WORKERS);
    d += wa != wb;
    if (wa < 1 || wb < 1) return d; /* without workers, prefetch and persistence mean nothing */
    if (ops->axes & SS_AXIS_PREFETCH)
        d += ops->setting_of(a, SS_AXIS_PREFETCH) != ops->setting_of(b, SS_AXIS_PREFETCH);
    return d + ((ops->axes & SS_AXIS_PERSISTENT) && ss_summary_persistent(s, a) != ss_summary_persistent(s, b));
}

/* Where the first ranked cut changes two settings or more of its model's baseline row b:
 * the best candidates of that model that change one alone, a heal among them (ss_ranking.single) */
static void note_singles(const ss_summary *s, const ss_rank_top *cand, int nc, int b, ss_ranking *out)
{
    if (out->ntop == 0 || b < 0) return;
    if (settings_apart(s, &s->sc[b], &s->sc[out->top[0].j]) < 2) return;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nc && out->nsingle < SS_RANK_SINGLE; i++) {
            const ss_scenario *sc = &s->sc[cand[i].j];
            if (cand[i].over != pass || sc->model != s->sc[b].model) continue;
            if (settings_apart(s, &s->sc[b], sc) == 1) out->single[out->nsingle++] = cand[i];
        }
}

/* The cuts as good as the best first cut (ss_ranking.ntied), the cheapest first: fewest
 * settings changed from their model's baseline row (base_row, -1: none), then in rank order.
 * Returns their count. */
static int cheapest_first(const ss_summary *s, ss_ranking *out, const int *base_row)
{
    if (out->ntop == 0) return 0;
    int t = 1;
    while (t < out->ntop && out->top[t].over == out->top[0].over &&
           out->top[t].change_pct - out->top[0].change_pct < SS_RANK_MIN_PCT)
        t++;
    int apart[SS_RANK_TOP];
    for (int k = 0; k < t; k++) {
        const ss_scenario *sc = &s->sc[out->top[k].j];
        const int b = base_row[sc->model];
        apart[k] = b >= 0 ? settings_apart(s, &s->sc[b], sc) : INT_MAX; /* (no baseline: not the cheapest) */
    }
    for (int k = 1; k < t; k++) /* (stable: equals keep their rank order) */
        for (int i = k; i > 0 && apart[i] < apart[i - 1]; i--) {
            const ss_rank_top x = out->top[i];
            out->top[i] = out->top[i - 1];
            out->top[i - 1] = x;
            const int a = apart[i];
            apart[i] = apart[i - 1];
            apart[i - 1] = a;
        }
    return t;
}

/* The loaders-ahead flag of each of n cuts */
static void mark_ahead(const ss_summary *s, ss_rank_top *t, int n)
{
    for (int k = 0; k < n; k++) t[k].loaders_ahead = (ss_summary_hints(s, t[k].j) & SS_HINT_LOADERS_AHEAD) != 0;
}

/* Runs of equal predicted time longer than this are not searched for cuts one setting
 * apart (a comparison of every pair) */
#define ONE_APART_RUN_MAX 4096

/* 1 when two whole runs are the same (both unknown too) */
static int same_run(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Drops from the sorted candidates every cut that is the same scenario as an earlier one
 * in table order: the same model and resolved settings (cut_key: per-GPU worker counts as a
 * range, which different settings can share) and the same mean iteration time to the last
 * bit. Such cuts lie together after the sort (equal change), and within each run the keys
 * are sorted so that equal ones meet: n log n, not a comparison of every pair. Counts them
 * into *n_same. Then, within each such run, a cut of the same model that differs in one
 * setting from a cut kept before it in table order (prefetch 4 beside prefetch 2, where
 * the window no longer matters) changes nothing that cut does not, where its whole run is
 * the same too (ranked by the steady state, persistent workers change only the whole run):
 * it is dropped too and counted into *n_one. */
static ss_status drop_same(const ss_summary *s, ss_rank_top *cand, int *nc, int *n_same, int *n_one)
{
    int out = 0;
    for (int a = 0; a < *nc;) {
        int b = a + 1;
        while (b < *nc && cand[b].change_pct == cand[a].change_pct) b++;
        if (b - a > 1) {
            cut_key *k = malloc((size_t)(b - a) * sizeof *k);
            if (!k) return ss_fail(SS_ENOMEM, "out of memory ranking %d scenarios", b - a);
            for (int i = a; i < b; i++) {
                const ss_scenario *sc = &s->sc[cand[i].j];
                k[i - a] = (cut_key){.model = (int)sc->model, .j = cand[i].j, .at = i, .mean = mean_iter(s, cand[i].j),
                                     .run = ss_summary_run_time(s, cand[i].j)};
                key_of(sc, &k[i - a]);
            }
            qsort(k, (size_t)(b - a), sizeof *k, cmp_cut_key);
            for (int i = 1; i < b - a; i++)
                if (!cmp_settings(&k[i], &k[i - 1]) && k[i].mean == k[i - 1].mean) {
                    cand[k[i].at].j = -1; /* the later in table order goes */
                    ++*n_same;
                }
            if (b - a <= ONE_APART_RUN_MAX) {
                const cut_key **at = malloc((size_t)(b - a) * sizeof *at); /* the run's keys in table order */
                if (!at) {
                    free(k);
                    return ss_fail(SS_ENOMEM, "out of memory ranking %d scenarios", b - a);
                }
                for (int i = 0; i < b - a; i++) at[k[i].at - a] = &k[i];
                for (int i = 0; i < b - a; i++) {
                    if (cand[a + i].j < 0) continue;
                    for (int q = 0; q < i; q++)
                        if (cand[a + q].j >= 0 && at[q]->model == at[i]->model && at[q]->mean == at[i]->mean &&
                            same_run(at[q]->run, at[i]->run) && one_part_apart(at[q], at[i])) {
                            cand[a + i].j = -1;
                            ++*n_one;
                            break;
                        }
                }
                free(at);
            }
            free(k);
        }
        for (int i = a; i < b; i++)
            if (cand[i].j >= 0) cand[out++] = cand[i];
        a = b;
    }
    *nc = out;
    return SS_OK;
}

/* The steady-state cuts that the whole run loses by (rank_by = run): the largest steady
 * cuts of the models ranked, with the batches per epoch beyond which they pay off. */
static void note_payoffs(const ss_summary *s, int alone, ss_ranking *out)
{
    for (int j = 0; j < s->nsc; j++) {
        if (j == ss_summary_measured(s) || (alone && !ss_model_get(s->sc[j].model)->ranks_alone)) continue;
        const double steady = rank_change(s, j, 0), run = rank_change(s, j, 1);
        if (!(steady < -SS_RANK_MIN_PCT) || !(run > 0.0)) continue;
        int at = out->n_payoff < SS_RANK_TOP ? out->n_payoff : SS_RANK_TOP;
        while (at > 0 && rank_change(s, out->payoff_j[at - 1], 0) > steady) {
            if (at < SS_RANK_TOP) {
                out->payoff_j[at] = out->payoff_j[at - 1];
                out->payoff_rows[at] = out->payoff_rows[at - 1];
            }
            at--;
        }
        if (at < SS_RANK_TOP) {
            out->payoff_j[at] = j;
            out->payoff_rows[at] = payoff_rows(s, j);
        }
        out->n_payoff++;
    }
}

int ss_rank_over(const ss_summary *s, int j) { return ss_summary_cpu_load_pct(s, j, NULL) > SS_RANK_OVER_PCT; }

/* Twice the standard error of the difference of two heals' mean iteration times (rows a and
 * b), taken as independent, in % of the measured mean: a spread of gains within it is the
 * rows' noise, not a GPU that stands out (two GPUs alike whose waits differ by chance). NaN
 * where either row has fewer than two iterations. */
static double heal_noise_pct(const ss_summary *s, int a, int b)
{
    const double meas = mean_iter(s, ss_summary_measured(s)), sa = ss_partial_std(&s->p[a], SS_M_ITER),
                 sb = ss_partial_std(&s->p[b], SS_M_ITER);
    if (!(meas > 0.0) || isnan(sa) || isnan(sb)) return NAN;
    return 200.0 * sqrt(sa * sa / s->p[a].n + sb * sb / s->p[b].n) / meas;
}

/* The per-GPU heal ranking (ss_ranking.heal, heal_alike): each GPU healed alone against its
 * model's baseline row (base_row). */
static ss_status rank_heals(const ss_summary *s, double iterations_per_epoch, int by_run, const int *base_row,
                            ss_ranking *out)
{
    int nh = 0;
    for (int j = 0; j < s->nsc; j++) nh += s->sc[j].baseline_but_heal; /* a heal whose other settings are the baseline's */
    if (nh == 0) return SS_OK;
    out->heal = calloc((size_t)nh, sizeof *out->heal);
    /* the GPUs whose heal each model has an entry for */
    unsigned char *seen = calloc((size_t)SS_NMODELS * (size_t)s->gpus, 1);
    if (!out->heal || !seen) {
        free(seen);
        return ss_fail(SS_ENOMEM, "out of memory ranking %d heal scenarios", nh);
    }
    const double epochs = ss_run_epochs(&s->p[ss_summary_measured(s)].run);
    for (int j = 0; j < s->nsc; j++) {
        if (!s->sc[j].baseline_but_heal) continue;
        int b = base_row[s->sc[j].model];
        if (b < 0) continue;
        /* one entry per model and GPU: settings that resolve alike (workers = auto, auto*2
         * on a trace that loads synchronously: both 0) give the same heal twice */
        unsigned char *seen_at = &seen[(size_t)s->sc[j].model * (size_t)s->gpus + (size_t)s->sc[j].heal_gpu];
        if (*seen_at) continue;
        *seen_at = 1;
        double base = rank_value(s, b, by_run), v = rank_value(s, j, by_run);
        ss_rank_heal *h = &out->heal[out->nheal++];
        h->gpu = s->sc[j].heal_gpu;
        h->j = j;
        h->model = s->sc[j].model;
        h->gain_pct = base > 0 ? 100.0 * (base - v) / base : 0.0;
        h->gain_s_epoch = by_run ? (epochs >= 1 ? (base - v) / epochs : 0.0) : (base - v) * iterations_per_epoch;
        h->ranked = h->gain_pct > floor_of(out->error_pct[h->model]);
    }
    free(seen);
    qsort(out->heal, (size_t)out->nheal, sizeof *out->heal, cmp_heal);
    for (int i = 0; i < out->nheal;) {
        const ss_model m = out->heal[i].model;
        int n = 0, first = i, last = i;
        double hi = out->heal[i].gain_pct, lo = hi;
        for (; i < out->nheal && out->heal[i].model == m; i++, n++)
            if (out->heal[i].gain_pct < lo) lo = out->heal[i].gain_pct, last = i;
        out->heal_alike[m] = n == s->gpus && n >= 2 &&
                             (hi - lo < SS_RANK_MIN_PCT || hi - lo < heal_noise_pct(s, out->heal[first].j, out->heal[last].j));
    }
    return SS_OK;
}

ss_status ss_rank(const ss_summary *s, double iterations_per_epoch, int by_run, ss_ranking *out)
{
    memset(out, 0, sizeof *out);
    out->iterations_per_epoch = iterations_per_epoch;
    out->by_run = by_run;
    int base_row[SS_NMODELS]; /* each model's baseline row, looked up once */
    for (int m = 0; m < SS_NMODELS; m++) {
        const int b = base_row[m] = baseline_of(s, (ss_model)m);
        double e = b >= 0 ? ss_summary_fidelity_err_pct(s, b) : NAN;
        if (b >= 0 && by_run && ss_model_get((ss_model)m)->reports_fidelity) e = ss_summary_run_change_pct(s, b);
        /* a model without a fidelity figure gives the measured run back as its baseline; one
         * on a quiet host has none (its baseline replay is the job alone, the reference of
         * its changes: ss_summary_ref), and its cuts pass at SS_RANK_MIN_PCT */
        if (b >= 0 && ss_summary_ref(s, b) == b) e = NAN;
        out->error_pct[m] = b < 0 ? NAN : isnan(e) ? 0.0 : fabs(e);
    }
    /* the heals first: a model whose heals gain alike (no GPU stands out) ranks none of them among the cuts */
    ss_status hst = rank_heals(s, iterations_per_epoch, by_run, base_row, out);
    if (hst != SS_OK) return hst;
    ss_rank_top *cand = malloc((size_t)s->nsc * sizeof *cand);
    unhealed_sc *unhealed = malloc((size_t)s->nsc * sizeof *unhealed);
    if (!cand || !unhealed) {
        free(cand);
        free(unhealed);
        return ss_fail(SS_ENOMEM, "out of memory ranking %d scenarios", s->nsc);
    }
    const int nu = sort_unhealed(s, unhealed);
    int nc = 0;
    for (int j = 0; j < s->nsc; j++) {
        if (j == ss_summary_measured(s)) continue;
        double ch = rank_change(s, j, by_run);
        if (isnan(ch) || ch > -SS_RANK_NO_CHANGE_PCT || (by_run && ss_summary_run_unpriced(s, j))) continue;
        const double err = out->error_pct[s->sc[j].model];
        if (s->sc[j].heal.n > 0 && out->heal_alike[s->sc[j].model] && fabs(ch) > floor_of(isnan(err) ? 0.0 : err)) {
            out->n_alike_heal++; /* the iterations' spread, not a GPU's fault (a smaller cut is within, below) */
            continue;
        }
        if (!(fabs(ch) > floor_of(isnan(err) ? 0.0 : err))) {
            if (!s->sc[j].baseline) { /* a baseline's own error is not a cut */
                if (out->n_within < SS_RANK_TOP) out->within_j[out->n_within] = j;
                out->n_within++;
            }
            continue;
        }
        /* a heal that adds less than the floor to the same scenario without it ranks that one,
         * not itself (heal = each crossed with workers listed "W=4 heal=3" beside "W=4",
         * as though fixing a healthy GPU helped) */
        int twin = unhealed_twin(s, j, unhealed, nu);
        if (twin >= 0) {
            double t = rank_value(s, twin, by_run), v = rank_value(s, j, by_run);
            if (t > 0 && !(100.0 * (t - v) / t > floor_of(isnan(err) ? 0.0 : err))) {
                if (out->n_twin < SS_RANK_TOP) out->twin_j[out->n_twin] = j;
                out->n_twin++;
                continue;
            }
        }
        cand[nc++] = (ss_rank_top){j, ch, mean_iter(s, j) - mean_iter(s, ss_summary_ref(s, j)), rank_change(s, j, 0),
                                   rank_change(s, j, 1), payoff_rows(s, j), 0, ss_rank_over(s, j)};
    }
    free(unhealed);
    qsort(cand, (size_t)nc, sizeof *cand, cmp_top);
    /* a sweep with a model that ranks alone (the pipeline model) ranks its cuts only, the
     * others set aside before drop_same, whose rules are for the cuts ranked: the independent
     * model keeps every GPU's measured steps and loaders, so its heals of a slow rank are
     * optimistic where the pipeline model replays the loader (sim/models/DECISIONS.md); a
     * list that mixed them put those first */
    int alone = 0;
    for (int j = 0; j < s->nsc && !alone; j++) alone = ss_model_get(s->sc[j].model)->ranks_alone;
    if (alone) {
        int kept = 0;
        for (int i = 0; i < nc; i++) {
            if (ss_model_get(s->sc[cand[i].j].model)->ranks_alone) {
                cand[kept++] = cand[i];
                continue;
            }
            if (out->n_other < SS_RANK_TOP) out->other_j[out->n_other] = cand[i].j;
            out->n_other++;
        }
        nc = kept;
    }
    if (by_run) note_payoffs(s, alone, out);
    ss_status dst = drop_same(s, cand, &nc, &out->n_same, &out->n_one);
    if (dst != SS_OK) {
        free(cand);
        return dst;
    }
    /* the cuts that need more than all the cores rank after the others, each part in order */
    out->ntop = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nc && out->ntop < SS_RANK_TOP; i++)
            if (cand[i].over == pass) out->top[out->ntop++] = cand[i];
    out->ntied = cheapest_first(s, out, base_row);
    if (out->ntop > 0) note_singles(s, cand, nc, base_row[s->sc[out->top[0].j].model], out);
    mark_ahead(s, out->top, out->ntop);
    mark_ahead(s, out->single, out->nsingle);
    free(cand);
    return SS_OK;
}

void ss_ranking_free(ss_ranking *r)
{
    free(r->heal);
    r->heal = NULL;
    r->nheal = 0;
}
