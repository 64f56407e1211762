/* ss_summary.c - figures derived from the merged partials. */
#include "ss_summary.h"

#include <gsl/gsl_sort.h>

#include <math.h>
#include <stdlib.h>

void ss_summary_free(ss_summary *s)
{
    free(s->p);
    free(s->straggler);
    free(s->cpu_stretch);
    s->cpu_stretch = NULL;
    free(s->cpu_loop);
    s->cpu_loop = s->cpu_fetch = s->cpu_fetch_sorted = NULL;
    free(s->cpu_pool_of);
    s->cpu_pool_of = s->cpu_cores_of = NULL;
    free(s->cpu_pool_need);
    s->cpu_pool_need = NULL;
    free(s->cpu_pool_head);
    s->cpu_pool_head = NULL;
    if (s->has_calib) ss_calib_free(&s->calib);
    s->p = NULL;
    s->straggler = NULL;
    s->has_calib = 0;
    s->has_cpu = 0;
}

ss_status ss_summary_adopt_calib(ss_summary *s, ss_calib *cal, const ss_trace_meta *m)
{
    s->calib = *cal;
    s->has_calib = 1;
    const int *w = s->calib.workers_gpu;
    s->has_cpu = 0;
    if (!ss_trace_meta_has_cpu(m) || !w || m->gpus != s->calib.gpus) return SS_OK;
    /* each pool's CPU per iteration, at its first GPU (pools name their first GPU) */
    double *need = calloc((size_t)m->gpus, sizeof *need);
    if (!need) return ss_fail(SS_ENOMEM, "out of memory for the CPU load of %d GPUs", m->gpus);
    for (int g = 0; g < m->gpus; g++) need[m->cpu_pool[g]] += m->loop_cpu[g] + (w[g] > 0 ? m->fetch_cpu[g] : 0.0);
    double best = -1.0;
    s->cpu_pools = 0;
    for (int p = 0; p < m->gpus; p++) s->cpu_pools += m->cpu_pool[p] == p;
    for (int p = 0; p < m->gpus; p++)
        if (m->cpu_pool[p] == p && need[p] / m->cpu_pool_cores[p] > best) {
            best = need[p] / m->cpu_pool_cores[p];
            s->cpu_pool = p;
            s->cpu_pool_cores = m->cpu_pool_cores[p];
        }
    s->cpu_pool_need = malloc((size_t)s->cpu_pools * sizeof *s->cpu_pool_need);
    s->cpu_pool_head = malloc((size_t)s->cpu_pools * sizeof *s->cpu_pool_head);
    for (int p = 0, k = 0; s->cpu_pool_need && s->cpu_pool_head && p < m->gpus; p++)
        if (m->cpu_pool[p] == p) {
            s->cpu_pool_need[k] = need[p];
            s->cpu_pool_head[k++] = p;
        }
    free(need);
    s->cpu_per_core = best;
    s->has_cpu = 1;
    const size_t G = (size_t)m->gpus;
    s->cpu_loop = malloc(3 * G * sizeof *s->cpu_loop);
    s->cpu_pool_of = malloc(2 * G * sizeof *s->cpu_pool_of);
    if (!s->cpu_loop || !s->cpu_pool_of || !s->cpu_pool_need || !s->cpu_pool_head)
        return SS_OK; /* healed rows then count the trace's CPU */
    s->cpu_fetch = s->cpu_loop + G;
    s->cpu_fetch_sorted = s->cpu_fetch + G;
    s->cpu_cores_of = s->cpu_pool_of + G;
    for (size_t g = 0; g < G; g++) {
        s->cpu_loop[g] = m->loop_cpu[g];
        s->cpu_fetch[g] = s->cpu_fetch_sorted[g] = w[g] > 0 ? m->fetch_cpu[g] : 0.0;
        s->cpu_pool_of[g] = m->cpu_pool[g];
        s->cpu_cores_of[g] = m->cpu_pool_cores[g];
    }
    gsl_sort(s->cpu_fetch_sorted, 1, G);
    return SS_OK;
}

/* The median of the loaders' CPU per batch without GPU h's (as healing gives h). */
static double fetch_median_without(const ss_summary *s, int h)
{
    const int G = s->gpus, m = G - 1;
    const double *v = s->cpu_fetch_sorted;
    int pos = 0; /* a place of h's value in the sorted list (equal values stand for each other) */
    while (pos < G - 1 && v[pos] != s->cpu_fetch[h]) pos++;
    int a = (m - 1) / 2, b = m / 2;
    double x = v[a < pos ? a : a + 1], y = v[b < pos ? b : b + 1];
    return (x + y) / 2;
}

/* The busiest pool's CPU per iteration per core of a row that heals GPU h: h's loader
 * takes the others' median CPU per batch, in h's pool. */
static double healed_per_core(const ss_summary *s, int h, int *pool)
{
    const double dh = fetch_median_without(s, h) - s->cpu_fetch[h];
    double best = -1.0;
    for (int k = 0; k < s->cpu_pools; k++) {
        const int p = s->cpu_pool_head[k];
        const double x = (s->cpu_pool_need[k] + (s->cpu_pool_of[h] == p ? dh : 0.0)) / s->cpu_cores_of[p];
        if (x > best) {
            best = x;
            if (pool) *pool = p;
        }
    }
    return best;
}

double ss_summary_cpu_load_pct(const ss_summary *s, int j, int *pool)
{
    if (!s->has_cpu || s->p[j].n == 0 || !(s->p[j].mean[SS_M_ITER] > 0)) return NAN;
    const int h = s->sc ? s->sc[j].heal_gpu : -1;
    if (h >= 0 && h < s->gpus && s->gpus > 1 && s->cpu_loop)
        return 100.0 * healed_per_core(s, h, pool) / s->p[j].mean[SS_M_ITER];
    if (pool) *pool = s->cpu_pool;
    return 100.0 * s->cpu_per_core / s->p[j].mean[SS_M_ITER];
}

int ss_summary_cpu_heavy_gpu(const ss_summary *s, double *own, double *others)
{
    if (!s->has_cpu || !s->cpu_loop || s->gpus < 2) return -1;
    int h = 0;
    for (int g = 1; g < s->gpus; g++) h = s->cpu_fetch[g] > s->cpu_fetch[h] ? g : h;
    const double med = fetch_median_without(s, h);
    int shared = 0;
    for (int g = 0; g < s->gpus; g++) shared |= g != h && s->cpu_pool_of[g] == s->cpu_pool_of[h];
    if (!shared || !(s->cpu_fetch[h] >= 1.5 * med) || !(med > 0)) return -1;
    *own = s->cpu_fetch[h];
    *others = med;
    return h;
}

int ss_summary_measured(const ss_summary *s)
{
    (void)s;
    return 0;
}

double ss_summary_change_pct(const ss_summary *s, int j)
{
    const ss_partial *m = &s->p[ss_summary_measured(s)];
    /* (a measured mean of 0, a trace of zero durations, leaves the change undefined) */
    if (j == ss_summary_measured(s) || m->n == 0 || s->p[j].n == 0 || !(m->mean[SS_M_ITER] > 0)) return NAN;
    return 100.0 * (s->p[j].mean[SS_M_ITER] / m->mean[SS_M_ITER] - 1.0);
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

int ss_summary_slowest_gpu(const ss_summary *s, int j)
{
    int best = -1;
    long most = 0;
    for (int g = 0; g < s->gpus; g++) {
        long v = s->straggler[(long)j * s->gpus + g];
        if (v > most) {
            most = v;
            best = g;
        }
    }
    return best;
}
