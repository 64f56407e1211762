/* ss_summary.c - figures derived from the merged partials. */
#include "ss_summary.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ss_row.h"

void ss_summary_free(ss_summary *s)
{
    free(s->p);
    free(s->straggler);
    free(s->cpu_stretch);
    free(s->read_stretch);
    free(s->delivery_factor);
    free(s->between);
    free(s->tail);
    free(s->other_loader);
    s->between = s->tail = s->other_loader = NULL;
    free(s->cpu_fetch);
    free(s->cls);
    free(s->iter_lo);
    s->cls = NULL;
    s->iter_lo = s->iter_hi = s->run_lo = s->run_hi = NULL;
    free(s->cpu_pool_index);
    free(s->cpu_pool_need);
    free(s->cpu_pool_head);
    s->cpu_stretch = s->read_stretch = s->delivery_factor = s->cpu_fetch = s->cpu_fetch_sorted = s->cpu_pool_need = NULL;
    s->cpu_pool_index = s->cpu_pool_head = s->cpu_pool_ncores = NULL;
    if (s->has_calib) ss_calib_free(&s->calib);
    s->p = NULL;
    s->straggler = NULL;
    s->has_calib = 0;
    s->has_cpu = 0;
}

/* The busiest pool's CPU per iteration per core, with the loaders of the GPUs of h (NULL:
 * none) at the other GPUs' median CPU per batch, as healing gives it; *pool (may be NULL)
 * receives that pool's first GPU and *cores its cores. NaN when out of memory. */
static double busiest_per_core(const ss_summary *s, const ss_healset *h, int *pool, int *cores)
{
    const int one = h ? ss_healset_single(h) : -1, G = s->gpus;
    const int several = h && h->n > 0 && one < 0;
    double *extra = NULL; /* several: per pool, what healing adds to its CPU */
    if (several) {
        double *scratch = malloc((size_t)G * sizeof *scratch);
        extra = calloc((size_t)s->cpu_pools, sizeof *extra);
        if (!scratch || !extra) {
            free(scratch);
            free(extra);
            return NAN;
        }
        const double med = ss_median_unhealed(s->cpu_fetch, G, h, scratch);
        for (int g = 0; g < G; g++)
            if (ss_healset_has(h, g)) extra[s->cpu_pool_index[g]] += med - s->cpu_fetch[g];
        free(scratch);
    }
    const double dh = one >= 0 && one < G ? ss_median_without(s->cpu_fetch_sorted, G, s->cpu_fetch[one]) - s->cpu_fetch[one]
                                          : 0.0;
    double best = -1.0;
    for (int k = 0; k < s->cpu_pools; k++) {
        const double add = several ? extra[k] : one >= 0 && one < G && s->cpu_pool_index[one] == k ? dh : 0.0;
        const double x = (s->cpu_pool_need[k] + add) / s->cpu_pool_ncores[k];
        if (x > best) {
            best = x;
            if (pool) *pool = s->cpu_pool_head[k];
            if (cores) *cores = s->cpu_pool_ncores[k];
        }
    }
    free(extra);
    return best;
}

ss_status ss_summary_adopt_calib(ss_summary *s, ss_calib *cal, const ss_trace_meta *m)
{
    s->calib = *cal;
    s->has_calib = 1;
    const int *w = s->calib.workers_gpu;
    s->has_cpu = 0;
    if (!ss_trace_meta_has_cpu(m) || !w || m->gpus != s->calib.gpus) return SS_OK;
    /* per GPU its loader's CPU per batch (0 where synchronous: that fetch is in the loop's
     * CPU) and its pool; per pool (pools name their first GPU) its CPU per iteration */
    const size_t G = (size_t)m->gpus;
    s->cpu_fetch = malloc(2 * G * sizeof *s->cpu_fetch);
    s->cpu_pool_index = malloc(G * sizeof *s->cpu_pool_index);
    s->cpu_pool_need = calloc(G, sizeof *s->cpu_pool_need);
    s->cpu_pool_head = malloc(2 * G * sizeof *s->cpu_pool_head);
    if (!s->cpu_fetch || !s->cpu_pool_index || !s->cpu_pool_need || !s->cpu_pool_head)
        return ss_fail(SS_ENOMEM, "out of memory for the CPU load of %d GPUs", m->gpus);
    s->cpu_fetch_sorted = s->cpu_fetch + G;
    s->cpu_pool_ncores = s->cpu_pool_head + G;
    s->cpu_pools = 0;
    for (size_t g = 0; g < G; g++) {
        if (m->cpu_pool[g] == (int)g) { /* a pool's first GPU comes before its others */
            s->cpu_pool_head[s->cpu_pools] = (int)g;
            s->cpu_pool_ncores[s->cpu_pools++] = m->cpu_pool_cores[g];
        }
        int k = 0;
        while (s->cpu_pool_head[k] != m->cpu_pool[g]) k++;
        s->cpu_pool_index[g] = k;
        s->cpu_fetch[g] = s->cpu_fetch_sorted[g] = w[g] > 0 ? m->fetch_cpu[g] : 0.0;
        s->cpu_pool_need[k] += m->loop_cpu[g] + s->cpu_fetch[g];
    }
    gsl_sort(s->cpu_fetch_sorted, 1, G);
    busiest_per_core(s, NULL, &s->cpu_pool, &s->cpu_pool_cores);
    s->has_cpu = 1;
    return SS_OK;
}

double ss_summary_cpu_load_pct(const ss_summary *s, int j, int *pool)
{
    if (!s->has_cpu || s->p[j].n == 0 || !(s->p[j].mean[SS_M_ITER] > 0)) return NAN;
    const ss_healset *h = s->sc && s->gpus > 1 ? &s->sc[j].heal : NULL;
    return 100.0 * busiest_per_core(s, h, pool, NULL) / s->p[j].mean[SS_M_ITER];
}

int ss_summary_cpu_heavy_gpu(const ss_summary *s, double *own, double *others)
{
    if (!s->has_cpu || s->gpus < 2) return -1;
    int h = 0;
    for (int g = 1; g < s->gpus; g++) h = s->cpu_fetch[g] > s->cpu_fetch[h] ? g : h;
    const double med = ss_median_without(s->cpu_fetch_sorted, s->gpus, s->cpu_fetch[h]);
    int shared = 0;
    for (int g = 0; g < s->gpus; g++) shared |= g != h && s->cpu_pool_index[g] == s->cpu_pool_index[h];
    if (!shared || !(s->cpu_fetch[h] >= 1.5 * med) || !(med > 0)) return -1;
    *own = s->cpu_fetch[h];
    *others = med;
    return h;
}

/* A loader this many times slower than the usual GPU's is a slow one (the two-slow-rank
 * runs: 3x and 2x; per-GPU noise on the grids stays within 1.2x). */
#define SLOW_LOADER_FACTOR 1.5

int ss_summary_slow_loaders(const ss_summary *s, ss_healset *set, double *med)
{
    memset(set, 0, sizeof *set);
    const int G = s->gpus;
    if (!s->has_calib || s->calib.no_fetch || !s->calib.fetch_med_gpu || G < 3 || s->calib.gpus != G) return 0;
    double *v = malloc((size_t)G * sizeof *v);
    if (!v) return 0; /* (a hint only) */
    memcpy(v, s->calib.fetch_med_gpu, (size_t)G * sizeof *v);
    gsl_sort(v, 1, (size_t)G);
    /* the usual fetch time: the lower quartile (the median would count the slow GPUs when
     * they are half of them) */
    *med = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)G, 0.25);
    free(v);
    if (!(*med > 0)) return 0;
    int n = 0;
    for (int g = 0; g < G; g++) {
        if (!(s->calib.fetch_med_gpu[g] >= SLOW_LOADER_FACTOR * *med)) continue;
        if (++n > G / 2 || ss_healset_add(set, g) != 0) { /* more than half, or too many to name */
            n = 0;
            break;
        }
    }
    if (n < 2) {
        memset(set, 0, sizeof *set);
        return 0;
    }
    return n;
}

int ss_summary_measured(const ss_summary *s)
{
    (void)s;
    return 0;
}

void ss_summary_set_quiet(ss_summary *s, unsigned mask)
{
    s->quiet_models = mask;
    for (int m = 0; m < 32; m++) {
        s->quiet_ref[m] = ss_summary_measured(s);
        for (int b = 0; (mask >> m & 1u) && b < s->nsc; b++)
            if (b != ss_summary_measured(s) && (int)s->sc[b].model == m && s->sc[b].baseline) {
                s->quiet_ref[m] = b;
                break;
            }
    }
}

int ss_summary_quiet(const ss_summary *s, ss_model m)
{
    return (unsigned)m < 32 && (s->quiet_models >> (unsigned)m & 1u);
}

int ss_summary_ref(const ss_summary *s, int j)
{
    return ss_summary_quiet(s, s->sc[j].model) ? s->quiet_ref[s->sc[j].model] : ss_summary_measured(s);
}

/* Row j's change against row r in % (by_run: of the whole run's time, else of the mean
 * iteration time); NaN for r itself, or where either value is missing or r's is not
 * positive (a trace of zero durations leaves the change undefined) */
static double change_against(const ss_summary *s, int j, int r, int by_run)
{
    const double b = by_run ? ss_summary_run_time(s, r) : s->p[r].n > 0 ? s->p[r].mean[SS_M_ITER] : NAN;
    const double v = by_run ? ss_summary_run_time(s, j) : s->p[j].n > 0 ? s->p[j].mean[SS_M_ITER] : NAN;
    if (j == r || !(b > 0) || isnan(v)) return NAN;
    return 100.0 * (v / b - 1.0);
}

double ss_summary_ref_change_pct(const ss_summary *s, int j, int by_run)
{
    return change_against(s, j, ss_summary_ref(s, j), by_run);
}

double ss_summary_change_pct(const ss_summary *s, int j) { return change_against(s, j, ss_summary_measured(s), 0); }

double ss_summary_wall(const ss_summary *s, double x) { return (s->wall_ratio > 0.0 ? s->wall_ratio : 1.0) * x; }

double ss_summary_run_time(const ss_summary *s, int j)
{
    if (!(s->p[j].run.rows > 0)) return NAN;
    return ss_summary_wall(s, s->p[j].run.time) + (s->between ? s->between[j] : 0.0) + (s->tail ? s->tail[j] : 0.0) +
           (s->other_loader ? s->other_loader[j] : 0.0);
}

double ss_summary_run_change_pct(const ss_summary *s, int j) { return change_against(s, j, ss_summary_measured(s), 1); }

double ss_summary_epoch_start(const ss_summary *s, int j)
{
    const double e = ss_run_epochs(&s->p[j].run);
    return ss_run_start_mean(&s->p[j].run) + (s->between && e > 0 ? s->between[j] / e : 0.0);
}

double ss_summary_fidelity_err_pct(const ss_summary *s, int j)
{
    if (!ss_model_get(s->sc[j].model)->reports_fidelity || !s->sc[j].baseline) return NAN;
    return ss_summary_change_pct(s, j);
}

double ss_summary_fidelity_mape_pct(const ss_summary *s, int j)
{
    if (!ss_model_get(s->sc[j].model)->reports_fidelity || !s->sc[j].baseline || s->p[j].n == 0) return NAN;
    return s->p[j].mean[SS_M_APE];
}

double ss_summary_effective_delay_pct(const ss_summary *s, int j)
{
    return s->p[j].n > 0 ? s->p[j].eff / s->p[j].n * 100.0 : NAN;
}

double ss_summary_straggler_share(const ss_summary *s, int j, int g)
{
    return s->p[j].n > 0 ? (double)s->straggler[(long)j * s->gpus + g] / s->p[j].n : NAN;
}

int ss_summary_slowest_gpu(const ss_summary *s, int j, double *next)
{
    int best = -1;
    long most = 0, second = 0;
    for (int g = 0; g < s->gpus; g++) {
        long v = s->straggler[(long)j * s->gpus + g];
        if (v > most) {
            second = most;
            most = v;
            best = g;
        } else if (v > second) {
            second = v;
        }
    }
    *next = s->p[j].n > 0 ? (double)second / s->p[j].n : 0.0;
    return best;
}

unsigned ss_summary_hints(const ss_summary *s, int j)
{
    const ss_model_ops *ops = ss_model_get(s->sc[j].model);
    if (!ops->hints) return 0;
    const int m = ss_summary_measured(s);
    const double k = s->delivery_factor ? s->delivery_factor[j] : NAN;
    const ss_hint_in in = {s->p[m].n > 0 ? s->p[m].mean[SS_M_STALL] : NAN,
                           s->p[j].n > 0 ? s->p[j].mean[SS_M_STALL] : NAN, isfinite(k) && k > 0.0 ? k : 1.0,
                           s->has_calib ? &s->calib : NULL, s->gpus,
                           s->trace_persistent == 1 && s->trace_epochs >= 2};
    return ops->hints(&s->sc[j], &in);
}

double ss_summary_variability(const ss_summary *s)
{
    const ss_run_part *r = &s->p[ss_summary_measured(s)].run;
    const double na = r->part_rows[0] + r->part_rows[1], nb = r->part_rows[2] + r->part_rows[3];
    if (!(na > 0) || !(nb > 0)) return 0.0;
    const double a = (r->part_time[0] + r->part_time[1]) / na, b = (r->part_time[2] + r->part_time[3]) / nb;
    return a + b > 0.0 ? fabs(a - b) / ((a + b) / 2.0) : 0.0;
}

double ss_summary_trace_noise(const ss_summary *s)
{
    return hypot(ss_summary_variability(s), isnan(s->host_others) ? 0.0 : s->host_others);
}

void ss_summary_class_interval(double P, const ss_error_class *c, int run, double v, double *lo, double *hi)
{
    /* the measure's scale of errors: the class's model error and the trace's noise */
    const double s = hypot(c->model_error[run != 0], v), *e = run ? c->run : c->steady;
    const double a = 1.0 + e[1] * s, b = 1.0 + e[0] * s;
    *lo = c->n > 0 && a > 0.0 && isfinite(P) ? P / a : NAN;
    *hi = c->n > 0 && b > 0.0 && isfinite(P) ? P / b : NAN;
}

int ss_summary_persistent(const ss_summary *s, const ss_scenario *sc)
{
    return sc->persistent == SS_PERSIST_AUTO ? s->trace_persistent == 1 : sc->persistent == 1;
}

int ss_summary_run_unpriced(const ss_summary *s, int j)
{
    return (ss_summary_hints(s, j) & SS_HINT_RUN_UNPRICED) != 0;
}

ss_status ss_summary_intervals(ss_summary *s)
{
    const int n = s->nsc;
    s->cls = calloc((size_t)n, sizeof *s->cls);
    s->iter_lo = malloc(4 * (size_t)n * sizeof *s->iter_lo);
    if (!s->cls || !s->iter_lo) return ss_fail(SS_ENOMEM, "out of memory for the intervals of %d scenarios", n);
    s->iter_hi = s->iter_lo + n;
    s->run_lo = s->iter_hi + n;
    s->run_hi = s->run_lo + n;
    const double v = ss_summary_trace_noise(s);
    const double trace_load = ss_summary_cpu_load_pct(s, ss_summary_measured(s), NULL);
    for (int j = 0; j < n; j++) {
        s->iter_lo[j] = s->iter_hi[j] = s->run_lo[j] = s->run_hi[j] = NAN;
        const ss_model_ops *ops = ss_model_get(s->sc[j].model);
        if (j == ss_summary_measured(s) || !ops->error_class) continue;
        const ss_class_in in = {ss_summary_cpu_load_pct(s, j, NULL), trace_load, ss_summary_hints(s, j),
                                s->has_calib ? &s->calib : NULL};
        const ss_error_class *c = s->cls[j] = ops->error_class(&s->sc[j], &in);
        if (!c) continue;
        ss_summary_class_interval(s->p[j].n > 0 ? s->p[j].mean[SS_M_ITER] : NAN, c, 0, v, &s->iter_lo[j],
                                  &s->iter_hi[j]);
        if (!ss_summary_run_unpriced(s, j))
            ss_summary_class_interval(ss_summary_run_time(s, j), c, 1, v, &s->run_lo[j], &s->run_hi[j]);
    }
    return SS_OK;
}

int ss_summary_uneven(const ss_summary *s, double *change)
{
    const ss_run_part *r = &s->p[ss_summary_measured(s)].run;
    double m[4], sorted[4];
    for (int q = 0; q < 4; q++) {
        if (!(r->part_rows[q] > 0)) return -1;
        m[q] = sorted[q] = r->part_time[q] / r->part_rows[q];
    }
    gsl_sort(sorted, 1, 4);
    const double med = (sorted[1] + sorted[2]) / 2;
    int at = -1;
    double worst = SS_UNEVEN_SHARE;
    for (int q = 0; q < 4 && med > 0; q++) {
        const double d = m[q] / med - 1.0;
        if (fabs(d) > worst) {
            worst = fabs(d);
            at = q;
            *change = d;
        }
    }
    return at;
}
