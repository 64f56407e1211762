/* ss_rank.c - top scenarios and the per-GPU heal ranking. */
#include "ss_rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ss_model.h"

static double mean_iter(const ss_summary *s, int j) { return s->p[j].n > 0 ? s->p[j].mean[SS_M_ITER] : NAN; }

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


/* A trace whose loaders were behind: the measured run's mean stall is more than this many
 * times the median delivery cost (the part of a stall that remains with the batch ready). */
#define BEHIND_STALLS 3.0
/* A pipeline prediction whose loaders keep ahead: its mean stall is less than this many
 * times the median delivery cost (the largest of the GPUs' deliveries is about 1.5-2 times
 * their median), times the scenario's delivery factor (delivery_factor). */
#define AHEAD_STALLS 2.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the calibrated delivery costs into *med (0 without a calibration). */
static ss_status median_delivery(const ss_summary *s, double *med)
{
    *med = 0.0;
    if (!s->has_calib || !s->calib.delivery_gpu || s->calib.gpus < 1) return SS_OK;
    const int G = s->calib.gpus;
    double *d = malloc((size_t)G * sizeof *d);
    if (!d) return ss_fail(SS_ENOMEM, "out of memory ranking (%d GPUs)", G);
    memcpy(d, s->calib.delivery_gpu, (size_t)G * sizeof *d);
    qsort(d, (size_t)G, sizeof *d, cmp_double);
    *med = (d[(G - 1) / 2] + d[G / 2]) / 2;
    free(d);
    return SS_OK;
}

/* The largest factor scenario j replays its GPUs' deliveries with (CPU sharing,
 * MODELS-pipeline.md: its s1 / s0 where a GPU's batches waited for its loop in the trace),
 * 1 where none applies. */
static double delivery_factor(const ss_summary *s, int j)
{
    const double k = s->delivery_factor ? s->delivery_factor[j] : NAN;
    return isfinite(k) && k > 0.0 ? k : 1.0;
}

/* 1 when pipeline row j predicts loaders that keep ahead of the trace's, which were behind
 * (med: the median calibrated delivery cost): on the idle grids with the cores under a
 * third busy the real runs of such predictions came out about 4 % slower on average (up to
 * 13 %), the runs of one setting 7-10 % apart; with the cores about 80 % busy (grid I) 4-16 %
 * faster, the two-fault runs' 4 workers 3-9 % faster (datasets/VALIDATION.md). */
static int loaders_ahead_of_behind(const ss_summary *s, int j, double med)
{
    const int m = ss_summary_measured(s);
    return s->sc[j].model == SS_MODEL_PIPELINE && med > 0.0 && s->p[m].n > 0 && s->p[j].n > 0 &&
           s->p[m].mean[SS_M_STALL] > BEHIND_STALLS * med &&
           s->p[j].mean[SS_M_STALL] < AHEAD_STALLS * med * delivery_factor(s, j);
}

/* The scenario that is j without its heal (same model and other settings, no GPU healed),
 * or -1. */
static int unhealed_twin(const ss_summary *s, int j)
{
    const ss_scenario *a = &s->sc[j];
    if (a->heal.n == 0) return -1;
    for (int k = 0; k < s->nsc; k++) {
        const ss_scenario *b = &s->sc[k];
        if (k == j || b->model != a->model || b->heal.n != 0) continue;
        if (b->fetch_align == a->fetch_align && b->start_align == a->start_align &&
            b->workers.is_auto == a->workers.is_auto && b->workers.value == a->workers.value &&
            b->prefetch == a->prefetch && b->fetch_scale == a->fetch_scale && b->compute_scale == a->compute_scale)
            return k;
    }
    return -1;
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

/* A cut of a run of equal predicted change, with its label (its resolved settings) */
typedef struct {
    int model, j, at; /* at: its place in the candidates */
    double mean;
    char label[SS_LABEL_MAX];
} cut_key;

static int cmp_cut_key(const void *a, const void *b)
{
    const cut_key *x = a, *y = b;
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    int c = strcmp(x->label, y->label);
    if (c) return c;
    return x->j < y->j ? -1 : x->j > y->j;
}

/* 1 when labels x and y have as many space-separated parts and differ in exactly one */
static int one_part_apart(const char *x, const char *y)
{
    int diff = 0;
    while (*x || *y) {
        size_t lx = strcspn(x, " "), ly = strcspn(y, " ");
        if (!*x || !*y) return 0; /* more parts on one side */
        diff += lx != ly || strncmp(x, y, lx) != 0;
        x += lx + (x[lx] == ' ');
        y += ly + (y[ly] == ' ');
    }
    return diff == 1;
}

/* Runs of equal predicted time longer than this are not searched for cuts one setting
 * apart (a comparison of every pair) */
#define ONE_APART_RUN_MAX 4096

/* Drops from the sorted candidates every cut that is the same scenario as an earlier one
 * in table order: the same model and label and the same mean iteration time to the last
 * bit (a label shows per-GPU worker counts as a range, which different settings can
 * share). Such cuts lie together after the sort (equal change), and within each run the
 * labels are sorted so that equal ones meet: n log n, not a comparison of every pair.
 * Counts them into *n_same. Then, within each such run, a cut of the same model whose
 * label differs in one setting from a cut kept before it in table order (prefetch 4
 * beside prefetch 2, where the window no longer matters) changes nothing that cut does not:
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
                k[i - a] = (cut_key){(int)sc->model, cand[i].j, i, mean_iter(s, cand[i].j), ""};
                ss_model_get(sc->model)->label_of(sc, k[i - a].label, sizeof k[i - a].label);
            }
            qsort(k, (size_t)(b - a), sizeof *k, cmp_cut_key);
            for (int i = 1; i < b - a; i++)
                if (k[i].model == k[i - 1].model && !strcmp(k[i].label, k[i - 1].label) && k[i].mean == k[i - 1].mean) {
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
                            one_part_apart(at[q]->label, at[i]->label)) {
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

ss_status ss_rank(const ss_summary *s, double iterations_per_epoch, ss_ranking *out)
{
    memset(out, 0, sizeof *out);
    out->iterations_per_epoch = iterations_per_epoch;
    int base_row[SS_NMODELS]; /* each model's baseline row, looked up once */
    for (int m = 0; m < SS_NMODELS; m++) {
        const int b = base_row[m] = baseline_of(s, (ss_model)m);
        double e = b >= 0 ? ss_summary_fidelity_err_pct(s, b) : NAN;
        /* a model without a fidelity figure gives the measured run back as its baseline */
        out->error_pct[m] = b < 0 ? NAN : isnan(e) ? 0.0 : fabs(e);
    }
    const double meas = mean_iter(s, ss_summary_measured(s));
    ss_rank_top *cand = malloc((size_t)s->nsc * sizeof *cand);
    if (!cand) return ss_fail(SS_ENOMEM, "out of memory ranking %d scenarios", s->nsc);
    int nc = 0;
    for (int j = 0; j < s->nsc; j++) {
        if (j == ss_summary_measured(s)) continue;
        double ch = ss_summary_change_pct(s, j);
        if (isnan(ch) || ch > -SS_RANK_NO_CHANGE_PCT) continue;
        double err = out->error_pct[s->sc[j].model];
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
        int twin = unhealed_twin(s, j);
        if (twin >= 0) {
            double t = mean_iter(s, twin), v = mean_iter(s, j);
            if (t > 0 && !(100.0 * (t - v) / t > floor_of(isnan(err) ? 0.0 : err))) {
                if (out->n_twin < SS_RANK_TOP) out->twin_j[out->n_twin] = j;
                out->n_twin++;
                continue;
            }
        }
        cand[nc++] = (ss_rank_top){j, ch, mean_iter(s, j) - meas, 0};
    }
    qsort(cand, (size_t)nc, sizeof *cand, cmp_top);
    /* a sweep with a model that ranks alone (the pipeline model) ranks its cuts only, the
     * others set aside before drop_same, whose rules are for the cuts ranked: the independent
     * model keeps every GPU's measured steps and loaders, and on real runs its heals of a slow
     * rank came out up to 48 % optimistic where the pipeline model's stayed within 12 %
     * (README, How far to trust the predictions); a list that mixed them put those first */
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
    ss_status dst = drop_same(s, cand, &nc, &out->n_same, &out->n_one);
    if (dst != SS_OK) {
        free(cand);
        return dst;
    }
    out->ntop = nc < SS_RANK_TOP ? nc : SS_RANK_TOP;
    memcpy(out->top, cand, (size_t)out->ntop * sizeof *cand);
    double med;
    ss_status st = median_delivery(s, &med);
    if (st != SS_OK) {
        free(cand);
        return st;
    }
    for (int k = 0; k < out->ntop; k++) out->top[k].loaders_ahead = loaders_ahead_of_behind(s, out->top[k].j, med);
    free(cand);
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
    for (int j = 0; j < s->nsc; j++) {
        if (!s->sc[j].baseline_but_heal) continue;
        int b = base_row[s->sc[j].model];
        if (b < 0) continue;
        /* one entry per model and GPU: settings that resolve alike (workers = auto, auto*2
         * on a trace that loads synchronously: both 0) give the same heal twice */
        unsigned char *seen_at = &seen[(size_t)s->sc[j].model * (size_t)s->gpus + (size_t)s->sc[j].heal_gpu];
        if (*seen_at) continue;
        *seen_at = 1;
        double base = mean_iter(s, b), v = mean_iter(s, j);
        ss_rank_heal *h = &out->heal[out->nheal++];
        h->gpu = s->sc[j].heal_gpu;
        h->j = j;
        h->model = s->sc[j].model;
        h->gain_pct = base > 0 ? 100.0 * (base - v) / base : 0.0;
        h->gain_s_epoch = (base - v) * iterations_per_epoch;
        h->ranked = h->gain_pct > floor_of(out->error_pct[h->model]);
    }
    free(seen);
    qsort(out->heal, (size_t)out->nheal, sizeof *out->heal, cmp_heal);
    return SS_OK;
}

void ss_ranking_free(ss_ranking *r)
{
    free(r->heal);
    r->heal = NULL;
    r->nheal = 0;
}
