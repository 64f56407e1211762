/* ss_cpushare.c - CPU sharing: the stretch of CPU work in a pool of cores at the trace's
 * load and at a scenario's (defined in sim/models/MODELS-pipeline.md, "CPU sharing"). */
#include "ss_cpushare.h"
#include "ss_ablate.h"
#include "ss_period.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bisection steps: the bracket [1, n / cores] shrinks below 1e-15 of itself. */
#define SHARE_BISECT 64
/* Pools whose threads x cores exceed this take P(N = m) from the normal law (the exact
 * distribution costs threads x cores per evaluation). */
#define SHARE_EXACT_WORK 2e6
/* Rounds of solving one pool after another (pools meet only through the step time). */
#define SHARE_ROUNDS 30

/* P(m) of a count of mean mu and standard deviation sd by the normal law */
static double normal_mass(int m, double mu, double sd)
{
    if (!(sd > 0.0)) return fabs(m - mu) < 0.5 ? 1.0 : 0.0;
    return gsl_cdf_gaussian_P(m + 0.5 - mu, sd) - gsl_cdf_gaussian_P(m - 0.5 - mu, sd);
}

/* Independent threads of the same demand: a GPU's W workers (u CPU seconds per second
 * each, when alone). */
typedef struct {
    double u;
    long n;
} group;

/* R(s) - s from N's mean en (> 0), variance var and P(N = m) for m < cores (prob):
 * R = (E[N^2] / K + sum over m < K of m (1 - m/K) P(N = m)) / E[N]. */
static double ratio_excess(const double *prob, int cores, double en, double var, double s)
{
    const double K = (double)cores;
    double num = (var + en * en) / K;
    for (int m = 1; m < cores; m++) num += m * (1.0 - m / K) * prob[m];
    return num / en - s;
}

/* R(s) - s for a gang of `gang` threads of demand gu each (runnable all together or not
 * at all) and the groups w[0..ng) of independent threads (nw threads in all) on `cores`
 * cores (ss_share_stretch); prob is scratch of `cores` doubles. R(s) = E[N max(1, N/K)] /
 * E[N] = (E[N^2] / K + sum over m < K of m (1 - m/K) P(N = m)) / E[N], so only P(N = m)
 * for m < K is needed. With bg.n > 0 threads of other processes (each of demand bg.u) the
 * job's threads J share the cores with them, X: N = J + X, and R(s) = E[J max(1, N/K)] /
 * E[J], the stretch of the job's threads alone; prob is then scratch of 2 `cores`. */
static double excess(int gang, double gu, const group *w, int ng, long nw, int cores, double s, double *prob,
                     group bg)
{
    double ew = 0.0, vw = 0.0, pg = 0.0;
    if (gang > 0) {
        pg = gu * s;
        pg = pg < 1.0 ? pg : 1.0;
    }
    for (int j = 0; j < ng; j++) {
        double p = w[j].u * s;
        p = p < 1.0 ? p : 1.0;
        ew += (double)w[j].n * p;
        vw += (double)w[j].n * p * (1.0 - p);
    }
    const double en = ew + gang * pg, var = vw + (double)gang * gang * pg * (1.0 - pg);
    if ((double)nw * cores > SHARE_EXACT_WORK) {
        /* a pool this large: the workers' count is a sum of many small parts, its P(m) from
         * the normal law of their mean and variance; the gang adds its size or not */
        double sd = sqrt(vw);
        for (int m = 0; m < cores; m++) {
            double pw = normal_mass(m, ew, sd), pw_gang = m >= gang ? normal_mass(m - gang, ew, sd) : 0.0;
            prob[m] = gang > 0 ? (1.0 - pg) * pw + pg * pw_gang : pw;
        }
    } else {
        for (int m = 0; m < cores; m++) prob[m] = 0.0;
        prob[0] = 1.0;
        if (gang > 0) {
            if (gang < cores) prob[gang] = pg;
            prob[0] = 1.0 - pg;
        }
        for (int j = 0; j < ng; j++) {
            double p = w[j].u * s;
            p = p < 1.0 ? p : 1.0;
            /* one thread at a time; a count only grows, so the states >= cores can go */
            for (long t = 0; t < w[j].n; t++) {
                for (int m = cores - 1; m >= 1; m--) prob[m] = prob[m] * (1.0 - p) + prob[m - 1] * p;
                prob[0] *= 1.0 - p;
            }
        }
    }
    if (!(en > 0.0)) return 1.0 - s;
    if (bg.n < 1) return ratio_excess(prob, cores, en, var, s);
    /* P(X = b) for b < K, one thread at a time; E[J N] = E[J^2] + E[J] E[X] (independent);
     * E[J 1{N = m}] = sum over a <= m of a P(J = a) P(X = m - a) */
    double *px = prob + cores, pb = bg.u * s;
    pb = pb < 1.0 ? pb : 1.0;
    for (int m = 0; m < cores; m++) px[m] = 0.0;
    px[0] = 1.0;
    for (long t = 0; t < bg.n; t++) {
        for (int m = cores - 1; m >= 1; m--) px[m] = px[m] * (1.0 - pb) + px[m - 1] * pb;
        px[0] *= 1.0 - pb;
    }
    const double K = (double)cores;
    double num = (var + en * en + en * (double)bg.n * pb) / K;
    for (int m = 1; m < cores; m++) {
        double joint = 0.0;
        for (int a = 1; a <= m; a++) joint += a * prob[a] * px[m - a];
        num += (1.0 - m / K) * joint;
    }
    return num / en - s;
}

/* A pool with more cores than this is taken to have no contention (the distribution
 * would need a state per core). */
#define SHARE_MAX_CORES 65536

/* A pool with more cores than this keeps s0 on a quiet host: the exact law of the job's
 * threads beside the others' costs cores^2 per step of the root's bisection. */
#define SHARE_QUIET_MAX_CORES 1024

/* The root of f(s) = R(s) - s in [1, all / cores] by bisection, all the pool's real
 * threads (1 when they are no more than the cores: no contention) */
static double root_of(long all, int cores, double (*f)(double s, void *ctx), void *ctx)
{
    if (all <= cores || cores < 1 || cores > SHARE_MAX_CORES) return 1.0;
    double lo = 1.0, hi = (double)all / cores;
    if (f(hi, ctx) >= 0.0) return hi;
    for (int i = 0; i < SHARE_BISECT; i++) {
        double mid = 0.5 * (lo + hi);
        if (f(mid, ctx) >= 0.0) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* A gang and groups of independent threads given directly (ss_share_stretch) */
typedef struct {
    int gang, ng, cores;
    double gu;
    const group *w;
    double *prob;
} given_pool;

static double given_excess(double s, void *ctx)
{
    const given_pool *g = ctx;
    return excess(g->gang, g->gu, g->w, g->ng, g->ng, g->cores, s, g->prob, (group){0.0, 0});
}

double ss_share_stretch(int gang, double gang_u, const double *u, int n, int cores)
{
    if (gang + n <= cores || cores < 1 || cores > SHARE_MAX_CORES) return 1.0;
    double *prob = malloc((size_t)cores * sizeof *prob);
    group *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    double s = 1.0;
    if (prob && w) {
        for (int j = 0; j < n; j++) w[j] = (group){u[j], 1};
        given_pool gp = {gang, n, cores, gang_u, w, prob};
        s = root_of(gang + (long)n, cores, given_excess, &gp);
    }
    free(prob);
    free(w);
    return s;
}

void ss_share_free(ss_share *sh)
{
    free(sh->pool_of);
    free(sh->cores);
    free(sh->fetch_cpu);
    free(sh->step_cpu);
    free(sh->fetch_med);
    free(sh->fetch_wait);
    free(sh->step_wait);
    free(sh->s0m);
    free(sh->s0m_step);
    free(sh->workers);
    free(sh->gap);
    free(sh->delivery);
    free(sh->s0);
    free(sh->s0_others);
    free(sh->align_trace);
    free(sh->align_ahead);
    free(sh->start_wait);
    free(sh->start_rows);
    free(sh->start_excess);
    free(sh->ready);
    memset(sh, 0, sizeof *sh);
}

ss_status ss_share_set_start(ss_share *sh, const double *start_wait, const int *prefetch, const double *start_excess)
{
    const size_t G = (size_t)sh->gpus;
    sh->start_wait = malloc(G * sizeof *sh->start_wait);
    sh->start_rows = malloc(G * sizeof *sh->start_rows);
    sh->start_excess = start_excess ? malloc(G * sizeof *sh->start_excess) : NULL;
    if (!sh->start_wait || !sh->start_rows || (start_excess && !sh->start_excess)) {
        free(sh->start_wait);
        free(sh->start_rows);
        free(sh->start_excess);
        sh->start_wait = NULL;
        sh->start_rows = NULL;
        sh->start_excess = NULL;
        return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", sh->gpus);
    }
    for (size_t g = 0; g < G && start_excess; g++) sh->start_excess[g] = start_excess[g] > 0.0 ? start_excess[g] : 0.0;
    for (size_t g = 0; g < G; g++) {
        sh->start_wait[g] = start_wait[g] > 0.0 ? start_wait[g] : 0.0;
        sh->start_rows[g] = sh->workers[g] > 0 ? (long)sh->workers[g] * (prefetch[g] > 0 ? prefetch[g] : 1) : 0;
    }
    return SS_OK;
}

/* n[p]: pool p's worker processes, sum over its GPUs of workers[g] */
static void pool_workers(const ss_share *sh, const int *workers, long *n)
{
    for (int p = 0; p < sh->pools; p++) n[p] = 0;
    for (int g = 0; g < sh->gpus; g++) n[sh->pool_of[g]] += workers[g];
}

int ss_share_start_crowded(const ss_share *sh)
{
    long *n = malloc((size_t)sh->pools * sizeof *n);
    int crowded = 0;
    if (n) pool_workers(sh, sh->workers, n);
    for (int p = 0; n && p < sh->pools && !crowded; p++) crowded = n[p] > sh->cores[p];
    free(n);
    return crowded;
}

/* R(s) - s of the first window's gangs (one per GPU: its workers, of demand u each, all
 * runnable or none) on `cores` cores; prob is scratch of `cores` doubles. As excess, with
 * P(N = m) for m < K over the gangs one at a time, or from the normal law of N where the
 * gangs x cores exceed SHARE_EXACT_WORK. */
static double gangs_excess(const group *w, int ng, int cores, double s, double *prob)
{
    double en = 0.0, var = 0.0;
    for (int j = 0; j < ng; j++) {
        double p = w[j].u * s;
        p = p < 1.0 ? p : 1.0;
        en += (double)w[j].n * p;
        var += (double)w[j].n * (double)w[j].n * p * (1.0 - p);
    }
    if (!(en > 0.0)) return 1.0 - s;
    if ((double)ng * cores > SHARE_EXACT_WORK) {
        for (int m = 0; m < cores; m++) prob[m] = normal_mass(m, en, sqrt(var));
    } else {
        for (int m = 0; m < cores; m++) prob[m] = 0.0;
        prob[0] = 1.0;
        for (int j = 0; j < ng; j++) {
            double p = w[j].u * s;
            p = p < 1.0 ? p : 1.0;
            for (int m = cores - 1; m >= 0; m--) /* a count only grows: states >= cores can go */
                prob[m] = prob[m] * (1.0 - p) + (m >= w[j].n ? prob[m - w[j].n] * p : 0.0);
        }
    }
    return ratio_excess(prob, cores, en, var, s);
}

typedef struct {
    const group *w;
    int ng, cores;
    double *prob;
} gangs_pool;

static double gangs_excess_at(double s, void *ctx)
{
    const gangs_pool *g = ctx;
    return gangs_excess(g->w, g->ng, g->cores, s, g->prob);
}

ss_status ss_share_window_stretch(const ss_share *sh, const int *workers, const double *c, const double *alone,
                                  double *s)
{
    int maxc = 1;
    for (int p = 0; p < sh->pools; p++)
        if (sh->cores[p] > maxc && sh->cores[p] <= SHARE_MAX_CORES) maxc = sh->cores[p];
    group *w = malloc((size_t)sh->gpus * sizeof *w);
    double *prob = malloc((size_t)maxc * sizeof *prob);
    if (!w || !prob) {
        free(w);
        free(prob);
        return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", sh->gpus);
    }
    for (int p = 0; p < sh->pools; p++) {
        int ng = 0;
        long all = 0;
        for (int g = 0; g < sh->gpus; g++)
            if (sh->pool_of[g] == p && workers[g] > 0) {
                w[ng++] = (group){alone[g] > 0.0 ? c[g] / alone[g] : 0.0, workers[g]};
                all += workers[g];
            }
        gangs_pool gp = {w, ng, sh->cores[p], prob};
        s[p] = root_of(all, sh->cores[p], gangs_excess_at, &gp);
    }
    free(w);
    free(prob);
    return SS_OK;
}

/* The per-GPU inputs of one evaluation: the scenario's loaders, its fetch medians and CPU
 * parts (healed), its scales. */
typedef struct {
    const ss_share *sh;
    const int *W;
    const double *gap, *delivery, *c, *f, *q;
    const unsigned char *ready; /* the scenario's delivery flags, or NULL: none */
    double fs, cs, dfac;
    /* [pools] other processes on the pool's cores (ss_share_set_others): threads that the
     * job's share with but that do not count in its stretch; NULL: none */
    const group *others;
    /* scratch */
    group *w;     /* [GPUs of the largest pool] */
    double *prob; /* [cores of the largest pool that has more threads than cores; twice that with others] */
    int *order, *first; /* GPUs by pool: order[first[p] .. first[p + 1]) */
} share_eval;

/* The terms of the steady-state period (MODELS-pipeline.md, "CPU sharing") that a set of
 * GPUs contributes at the stretches s[pools]: the largest loader period (W >= 1), delivery
 * (W >= 1) and fetch of a synchronous GPU, and the largest change of the step, L * (s - s0)
 * with L at most the share of the median step that can be CPU work at the trace's stretch
 * (-INFINITY: none). The period's max over GPUs is the max over these. */
typedef struct {
    double lo, dmax, fsync, delta, dfac;
} terms;

static const terms no_terms = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};

static void add_gpu(const share_eval *e, int g, const double *s, terms *t)
{
    const ss_share *sh = e->sh;
    int p = sh->pool_of[g];
    /* the step's CPU part as the trace's contention stretched it (L s0, or L and its
     * measured wait), at most the step, times r - 1 */
    double x, r = s[p] / sh->s0[p];
    if (sh->step_wait) {
        double Lw = sh->step_cpu[g] + sh->step_wait[g];
        x = (Lw < sh->compute_med ? Lw : sh->compute_med) * (r - 1.0);
    } else {
        double L = sh->step_cpu[g], cap = sh->compute_med / sh->s0[p];
        x = (L < cap ? L : cap) * (s[p] - sh->s0[p]);
    }
    if (ssp_off(SSP_RULE_STEP_STRETCH)) x = 0.0;
    t->delta = x > t->delta ? x : t->delta;
    double c0 = ss_share_cpu_wall(sh, g, e->c[g], e->q ? e->q[g] : 0.0), f = e->f[g];
    double fp = f > c0 ? c0 * r + e->fs * (f - c0) : f * r;
    if (e->W[g] > 0) {
        double lo = (fp + e->gap[g]) / e->W[g];
        t->lo = lo > t->lo ? lo : t->lo;
        /* its delivery, stretched where its batches waited for its loop in the trace */
        const double k = ss_share_delivery_factor(e->ready, g, s[p], sh->s0[p]), d = e->delivery[g] * k;
        t->dmax = d > t->dmax ? d : t->dmax;
        t->dfac = k > t->dfac ? k : t->dfac;
    } else {
        t->fsync = fp > t->fsync ? fp : t->fsync;
    }
}

/* The step's change: max over GPUs of L * (s - s0) (0 without GPUs). */
static double delta_of_terms(const terms *t) { return t->delta > -INFINITY ? t->delta : 0.0; }

/* 1 when the evaluation's delivery term is a row's largest delivery (delivery_term): the
 * trace's own period and regime are then a0 and bound0, else a0_med and bound0_med */
static int rows_mode(const share_eval *e) { return e->dfac > 0.0 && e->sh->delivery_rows > 0.0; }

/* The delivery term of the period: the largest delivery of a row, where the scenario
 * replays the measured ones (F times the trace's median over rows of each row's largest,
 * times the largest of the GPUs' delivery factors), else the largest of the GPUs'
 * deliveries times their factors; -INFINITY without a GPU that has workers. */
static double delivery_term(const share_eval *e, const terms *t)
{
    return t->dmax > -INFINITY && rows_mode(e) ? e->dfac * e->sh->delivery_rows * t->dfac : t->dmax;
}

/* The period: max over GPUs of (W >= 1 ? max(loader period, step + delivery) : fetch + step). */
static double period_of(const share_eval *e, const terms *t)
{
    double step = e->cs * e->sh->compute_med + delta_of_terms(t);
    step = step > 0.0 ? step : 0.0;
    return ss_steady_period(step, t->lo, delivery_term(e, t), t->fsync);
}

/* Every GPU's terms at the stretches s */
static terms all_terms(const share_eval *e, const double *s)
{
    terms t = no_terms;
    for (int g = 0; g < e->sh->gpus; g++) add_gpu(e, g, s, &t);
    return t;
}

/* The threads of pool p at period T: the GPUs' training processes, one gang (they step
 * together) whose demand *gu is the mean of their steps' CPU, and each GPU's W workers (a
 * fetch's CPU per W periods each), one group per GPU into w. A GPU that loads
 * synchronously (W = 0) fetches in its training process between two steps, on its own
 * time, not with the others: that fetch phase is one more independent thread of demand c /
 * T in w (a process is never in both phases at once; counting them as independent adds
 * little where either is small). Returns the groups' count; *gang the training
 * processes', *nw the independent threads'. */
static int demands(const share_eval *e, int p, double T, int together, int *gang, double *gu, group *w, long *nw)
{
    const ss_share *sh = e->sh;
    int ng = 0;
    double sum = 0.0;
    *gang = together ? e->first[p + 1] - e->first[p] : 0;
    *nw = 0;
    const int apart = !ssp_off(SSP_RULE_SYNC_THREAD); /* off: a synchronous fetch is its process's */
    for (int i = e->first[p]; i < e->first[p + 1]; i++) {
        int g = e->order[i], W = e->W[g];
        if (W == 0 && !apart) {
            const double u = (sh->step_cpu[g] + e->c[g]) / T;
            if (together) sum += u;
            else w[ng++] = (group){u, 1}, *nw += 1;
            continue;
        }
        w[ng++] = (group){e->c[g] / ((double)(W > 0 ? W : 1) * T), W > 0 ? W : 1};
        *nw += W > 0 ? W : 1;
        if (together) {
            sum += sh->step_cpu[g] / T;
        } else { /* each training process on its own */
            w[ng++] = (group){sh->step_cpu[g] / T, 1};
            *nw += 1;
        }
    }
    *gu = *gang > 0 ? sum / *gang : 0.0;
    return ng;
}

/* 1 when the loaders (or a synchronous fetch) set the period at the terms t, 0 when the
 * steps and deliveries do (the loaders keep ahead) */
static int regime_bound(const share_eval *e, const terms *t)
{
    double step = e->cs * e->sh->compute_med + delta_of_terms(t);
    step = step > 0.0 ? step : 0.0;
    double d = delivery_term(e, t);
    return t->fsync > -INFINITY || t->lo > step + (d > -INFINITY ? d : 0.0);
}

/* The share of the time pool p's training processes step together at a scenario's terms
 * t (MODELS-pipeline.md, "CPU sharing"): in the trace's own regime as often as in the
 * trace; where the loaders keep ahead of a trace whose loaders were behind, as often as
 * the trace's asks plus each batch's delivery came together (every GPU then has its batch
 * one delivery after it asks); where the
 * loaders fall behind those of a trace that kept ahead, never (each GPU steps when its
 * own batch arrives). 1 without the trace's alignment. */
static double together_share(const share_eval *e, int p, const terms *t)
{
    const ss_share *sh = e->sh;
    if (!sh->align_trace) return 1.0;
    if (ssp_off(SSP_RULE_REGIME)) return sh->align_trace[p];
    int bound = regime_bound(e, t);
    if (bound == (rows_mode(e) ? sh->bound0 : sh->bound0_med)) return sh->align_trace[p];
    return bound ? 0.0 : sh->align_ahead[p];
}

static long threads_of(const share_eval *e, int p)
{
    long n = e->others ? e->others[p].n : 0;
    for (int i = e->first[p]; i < e->first[p + 1]; i++) n += 1 + (long)e->W[e->order[i]];
    return n;
}

/* R(s) - s of pool p at period T with its training processes stepping together a share
 * gamma of the time and apart otherwise: the distribution of N is that mixture, and R is
 * linear in it (E[N] is the same either way) */
static double mixed_excess(share_eval *e, int p, double T, double gamma, double s)
{
    const int k = e->sh->cores[p];
    int gang;
    double gu, x = 0.0;
    long nw;
    const group bg = e->others ? e->others[p] : (group){0.0, 0};
    if (gamma > 0.0) {
        int ng = demands(e, p, T, 1, &gang, &gu, e->w, &nw);
        x += gamma * excess(gang, gu, e->w, ng, nw, k, s, e->prob, bg);
    }
    if (gamma < 1.0) {
        int ng = demands(e, p, T, 0, &gang, &gu, e->w, &nw);
        x += (1.0 - gamma) * excess(gang, gu, e->w, ng, nw, k, s, e->prob, bg);
    }
    return x;
}

/* mixed_excess of one pool at a fixed period and share (root_of's function) */
typedef struct {
    share_eval *e;
    int p;
    double T, gamma;
} mixed_pool;

static double mixed_excess_at(double s, void *ctx)
{
    mixed_pool *m = ctx;
    return mixed_excess(m->e, m->p, m->T, m->gamma, s);
}

/* The root of mixed_excess in [1, threads / cores] */
static double stretch_mixed(share_eval *e, int p, double T, double gamma)
{
    mixed_pool m = {e, p, T, gamma};
    return root_of(threads_of(e, p), e->sh->cores[p], mixed_excess_at, &m);
}

/* Pool p's stretch at the scenario's own load: the root x of R(x) - x where the period
 * (and so every demand) follows from the stretches s with s[p] = x. */
static double solve_pool(share_eval *e, int p, double *s)
{
    const ss_share *sh = e->sh;
    const long n = threads_of(e, p);
    const int k = sh->cores[p];
    if (n <= k || k < 1 || k > SHARE_MAX_CORES) return 1.0;
    /* the other pools' GPUs' terms stay while p's stretch moves: gathered once */
    terms rest = no_terms;
    for (int q = 0; q < sh->pools; q++)
        if (q != p)
            for (int i = e->first[q]; i < e->first[q + 1]; i++) add_gpu(e, e->order[i], s, &rest);
    double lo = 1.0, hi = (double)n / k;
    for (int i = 0; i < SHARE_BISECT; i++) {
        double mid = 0.5 * (lo + hi);
        s[p] = mid;
        terms t = rest;
        for (int j = e->first[p]; j < e->first[p + 1]; j++) add_gpu(e, e->order[j], s, &t);
        double T = sh->iter_mean * period_of(e, &t) / (rows_mode(e) ? sh->a0 : sh->a0_med);
        if (!(T > 0.0)) return 1.0;
        if (mixed_excess(e, p, T, together_share(e, p, &t), mid) >= 0.0) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* An evaluation of sh under the loaders, fetches and scales of sc. */
static ss_status eval_alloc(share_eval *e, const ss_share *sh, const ss_share_scenario *sc)
{
    memset(e, 0, sizeof *e);
    e->sh = sh;
    e->W = sc->workers;
    e->gap = sc->gap;
    e->delivery = sc->delivery;
    e->c = sc->fetch_cpu;
    e->f = sc->fetch_med;
    e->q = sh->fetch_wait ? (sc->fetch_wait ? sc->fetch_wait : sh->fetch_wait) : NULL;
    e->fs = sc->fetch_scale;
    e->cs = sc->compute_scale;
    e->dfac = sc->delivery_rows_factor;
    e->ready = sc->ready ? sc->ready : sh->ready;
    e->order = malloc((size_t)sh->gpus * sizeof *e->order);
    e->first = calloc((size_t)sh->pools + 1, sizeof *e->first);
    if (!e->order || !e->first) return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", sh->gpus);
    for (int g = 0; g < sh->gpus; g++) e->first[sh->pool_of[g] + 1]++;
    for (int p = 0; p < sh->pools; p++) e->first[p + 1] += e->first[p];
    int *next = malloc((size_t)sh->pools * sizeof *next);
    if (!next) return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", sh->gpus);
    memcpy(next, e->first, (size_t)sh->pools * sizeof *next);
    for (int g = 0; g < sh->gpus; g++) e->order[next[sh->pool_of[g]]++] = g;
    free(next);
    /* the distribution is only needed where a pool has more threads than cores */
    int gmax = 1, kmax = 1;
    for (int p = 0; p < sh->pools; p++) {
        int gp = e->first[p + 1] - e->first[p];
        gmax = gp > gmax ? gp : gmax;
        if (threads_of(e, p) > sh->cores[p] && sh->cores[p] <= SHARE_MAX_CORES && sh->cores[p] > kmax) kmax = sh->cores[p];
    }
    e->w = malloc((size_t)(2 * gmax) * sizeof *e->w);
    e->prob = malloc((size_t)kmax * sizeof *e->prob);
    if (!e->w || !e->prob) return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs in a pool)", gmax);
    return SS_OK;
}

static void eval_free(share_eval *e)
{
    free(e->w);
    free(e->prob);
    free(e->order);
    free(e->first);
}

double ss_share_cpu_wall(const ss_share *sh, int g, double c, double q)
{
    return sh->fetch_wait ? c + q : c * sh->s0[sh->pool_of[g]];
}

/* The measured stretches per pool: (sum of cpu + wait) / (sum of cpu) over its GPUs (1
 * where the CPU time is 0) */
static void measured_stretch(const ss_share *sh, const double *cpu, const double *wait, double *out)
{
    for (int p = 0; p < sh->pools; p++) {
        double a = 0.0, b = 0.0;
        for (int g = 0; g < sh->gpus; g++)
            if (sh->pool_of[g] == p) {
                a += cpu[g];
                b += cpu[g] + wait[g];
            }
        out[p] = a > 0.0 ? b / a : 1.0;
    }
}

int ss_share_pool_ids(int gpus, const int *pool_first, int *pool_of)
{
    int pools = 0;
    for (int g = 0; g < gpus; g++) {
        int q = pool_first[g];
        pool_of[g] = (q == g || q < 0 || q >= gpus || q > g) ? pools++ : pool_of[q];
    }
    return pools;
}

/* The trace's stretch s0 (with_stretch) at its measured period, its steps together as
 * often as they were; then, at s0, its regime and its steady-state period from its own
 * loaders, fetches and speeds, in both delivery modes: with the largest of its GPUs'
 * median deliveries (a0_med, bound0_med) and with a row's largest (a0, bound0; the same
 * while delivery_rows is 0). Nothing is set when it fails (SS_ENOMEM). */
static ss_status trace_period(ss_share *sh, int with_stretch)
{
    ss_share_scenario own = {sh->workers, sh->gap, sh->delivery, sh->fetch_cpu, sh->fetch_med, sh->fetch_wait,
                             1.0, 1.0, 0.0, NULL};
    share_eval e;
    ss_status st = eval_alloc(&e, sh, &own);
    if (st == SS_OK) {
        for (int p = 0; with_stretch && p < sh->pools; p++)
            sh->s0[p] = sh->iter_mean > 0.0
                            ? stretch_mixed(&e, p, sh->iter_mean, sh->align_trace ? sh->align_trace[p] : 1.0)
                            : 1.0;
        const terms t = all_terms(&e, sh->s0);
        sh->bound0_med = regime_bound(&e, &t);
        sh->a0_med = period_of(&e, &t);
        e.dfac = 1.0; /* the trace's deliveries as measured */
        sh->bound0 = regime_bound(&e, &t);
        sh->a0 = period_of(&e, &t);
    }
    eval_free(&e);
    return st;
}

ss_status ss_share_build(ss_share *sh, int gpus, const double *fetch_cpu, const double *loop_cpu,
                         const double *fetch_wait, const double *loop_wait, const int *pool_first,
                         const int *pool_cores, const double *fetch_med, const int *workers, const double *gap,
                         const double *delivery, double iter_mean, double compute_med, const double *align)
{
    memset(sh, 0, sizeof *sh);
    const size_t G = (size_t)gpus;
    sh->gpus = gpus;
    sh->pool_of = malloc(G * sizeof *sh->pool_of);
    sh->cores = malloc(G * sizeof *sh->cores);
    sh->fetch_cpu = malloc(G * sizeof *sh->fetch_cpu);
    sh->step_cpu = malloc(G * sizeof *sh->step_cpu);
    sh->fetch_med = malloc(G * sizeof *sh->fetch_med);
    sh->workers = malloc(G * sizeof *sh->workers);
    sh->gap = malloc(G * sizeof *sh->gap);
    sh->delivery = malloc(G * sizeof *sh->delivery);
    sh->s0 = malloc(G * sizeof *sh->s0);
    const int waits = fetch_wait && loop_wait;
    if (align) {
        sh->align_trace = malloc(G * sizeof *sh->align_trace);
        sh->align_ahead = malloc(G * sizeof *sh->align_ahead);
        if (!sh->align_trace || !sh->align_ahead) {
            ss_share_free(sh);
            return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", gpus);
        }
    }
    if (waits) {
        sh->fetch_wait = malloc(G * sizeof *sh->fetch_wait);
        sh->step_wait = malloc(G * sizeof *sh->step_wait);
        sh->s0m = malloc(G * sizeof *sh->s0m);
        sh->s0m_step = malloc(G * sizeof *sh->s0m_step);
    }
    if (!sh->pool_of || !sh->cores || !sh->fetch_cpu || !sh->step_cpu || !sh->fetch_med || !sh->workers || !sh->gap ||
        !sh->delivery || !sh->s0 || (waits && (!sh->fetch_wait || !sh->step_wait || !sh->s0m || !sh->s0m_step))) {
        ss_share_free(sh);
        return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", gpus);
    }
    sh->pools = ss_share_pool_ids(gpus, pool_first, sh->pool_of);
    for (int g = 0, opened = 0; g < gpus; g++) {
        if (sh->pool_of[g] == opened) /* the GPU that opens its pool gives its cores */
            sh->cores[opened++] = pool_cores[g] > 0 ? pool_cores[g] : 1;
        if (align) { /* a pool's values, given on each of its GPUs */
            sh->align_trace[sh->pool_of[g]] = align[2 * g];
            sh->align_ahead[sh->pool_of[g]] = align[2 * g + 1];
        }
    }
    for (int g = 0; g < gpus; g++) {
        sh->fetch_cpu[g] = fetch_cpu[g];
        double L = loop_cpu[g] - (workers[g] == 0 ? fetch_cpu[g] : 0.0);
        sh->step_cpu[g] = L > 0.0 ? L : 0.0;
        sh->fetch_med[g] = fetch_med[g];
        sh->workers[g] = workers[g];
        sh->gap[g] = gap ? gap[g] : 0.0;
        sh->delivery[g] = delivery ? delivery[g] : 0.0;
        if (waits) {
            double q = fetch_wait[g] > 0.0 ? fetch_wait[g] : 0.0;
            double qs = loop_wait[g] - (workers[g] == 0 ? q : 0.0);
            sh->fetch_wait[g] = q;
            sh->step_wait[g] = qs > 0.0 ? qs : 0.0;
        }
    }
    if (waits) {
        measured_stretch(sh, sh->fetch_cpu, sh->fetch_wait, sh->s0m);
        measured_stretch(sh, sh->step_cpu, sh->step_wait, sh->s0m_step);
    }
    sh->iter_mean = iter_mean;
    sh->compute_med = compute_med;
    ss_status st = trace_period(sh, 1);
    if (st != SS_OK) ss_share_free(sh);
    return st;
}

ss_status ss_share_set_others(ss_share *sh, const double *others)
{
    free(sh->s0_others);
    sh->s0_others = NULL;
    if (!others || sh->pools < 1) return SS_OK;
    group *bg = calloc((size_t)sh->pools, sizeof *bg);
    double *o = calloc((size_t)sh->pools, sizeof *o);
    if (!bg || !o) {
        free(bg);
        free(o);
        return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d pools)", sh->pools);
    }
    for (int g = 0; g < sh->gpus; g++) {
        const double v = others[g] > 0.0 ? (others[g] < 1.0 ? others[g] : 1.0) : 0.0;
        o[sh->pool_of[g]] = v > o[sh->pool_of[g]] ? v : o[sh->pool_of[g]];
    }
    int any = 0, kmax = 1;
    for (int p = 0; p < sh->pools; p++) {
        const double demand = o[p] * sh->cores[p];
        if (!(demand > 0.0) || sh->cores[p] > SHARE_QUIET_MAX_CORES) continue;
        bg[p].n = (long)ceil(demand - 1e-12);
        bg[p].u = demand / (double)bg[p].n;
        kmax = sh->cores[p] > kmax ? sh->cores[p] : kmax;
        any = 1;
    }
    ss_status st = SS_OK;
    if (any) {
        ss_share_scenario own = {sh->workers, sh->gap, sh->delivery, sh->fetch_cpu, sh->fetch_med, sh->fetch_wait,
                                 1.0, 1.0, 0.0, NULL};
        share_eval e;
        sh->s0_others = malloc((size_t)sh->pools * sizeof *sh->s0_others);
        st = sh->s0_others ? eval_alloc(&e, sh, &own)
                           : ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d pools)", sh->pools);
        if (sh->s0_others && st == SS_OK) { /* P(J = m) and P(X = m) for m below each pool's cores */
            double *prob = realloc(e.prob, 2 * (size_t)kmax * sizeof *prob);
            if (prob) e.prob = prob;
            else st = ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d cores)", kmax);
        }
        if (sh->s0_others && st == SS_OK) {
            e.others = bg;
            for (int p = 0; p < sh->pools; p++)
                sh->s0_others[p] = bg[p].n > 0 && sh->iter_mean > 0.0
                                       ? stretch_mixed(&e, p, sh->iter_mean, sh->align_trace ? sh->align_trace[p] : 1.0)
                                       : sh->s0[p];
        }
        if (sh->s0_others) eval_free(&e);
        if (st != SS_OK) {
            free(sh->s0_others);
            sh->s0_others = NULL;
        }
    }
    free(bg);
    free(o);
    return st;
}

ss_status ss_share_set_delivery_rows(ss_share *sh, double delivery_rows)
{
    const double before = sh->delivery_rows;
    sh->delivery_rows = delivery_rows > 0.0 ? delivery_rows : 0.0;
    ss_status st = trace_period(sh, 0);
    if (st != SS_OK) sh->delivery_rows = before; /* (a0 and bound0 unchanged) */
    return st;
}

ss_status ss_share_set_ready(ss_share *sh, const double *ready_share)
{
    unsigned char *r = malloc((size_t)sh->gpus);
    if (!r) return ss_fail(SS_ENOMEM, "out of memory for CPU sharing (%d GPUs)", sh->gpus);
    for (int g = 0; g < sh->gpus; g++) r[g] = ready_share[g] >= SS_SHARE_READY_SHARE;
    free(sh->ready);
    sh->ready = r;
    return SS_OK;
}

ss_status ss_share_solve(const ss_share *sh, const ss_share_scenario *sc, double *s1, double *delta)
{
    for (int p = 0; p < sh->pools; p++) s1[p] = sh->s0[p];
    *delta = 0.0;
    if (!(sh->a0 > 0.0) || !(sh->a0_med > 0.0) || !(sh->iter_mean > 0.0)) return SS_OK;
    share_eval e;
    ss_status st = eval_alloc(&e, sh, sc);
    if (st == SS_OK) {
        for (int round = 0; round < SHARE_ROUNDS; round++) {
            double change = 0.0;
            for (int p = 0; p < sh->pools; p++) {
                double before = s1[p];
                s1[p] = solve_pool(&e, p, s1);
                double d = fabs(s1[p] - before);
                change = d > change ? d : change;
            }
            if (change < 1e-12 || sh->pools == 1) break;
        }
        const terms t = all_terms(&e, s1);
        *delta = delta_of_terms(&t);
    }
    eval_free(&e);
    return st;
}

/* How far pool p's model stretch is from the measured ones (0 without measured waits). */
static double model_miss(const ss_share *sh, int p)
{
    if (!sh->s0m) return 0.0;
    double x = fabs(sh->s0[p] / sh->s0m[p] - 1.0), y = fabs(sh->s0[p] / sh->s0m_step[p] - 1.0);
    return y > x ? y : x;
}

int ss_share_contention_pool(const ss_share *sh, double *miss)
{
    int q = 0;
    for (int p = 1; p < sh->pools; p++) {
        double mp = model_miss(sh, p), mq = model_miss(sh, q);
        if (sh->s0m ? mp > mq || (mq == 0.0 && mp == 0.0 && sh->s0m[p] > sh->s0m[q]) : sh->s0[p] > sh->s0[q]) q = p;
    }
    *miss = model_miss(sh, q);
    return q;
}
