/* ss_summary.c - figures derived from the merged partials. */
#include "ss_summary.h"

#include <math.h>
#include <stdlib.h>

void ss_summary_free(ss_summary *s)
{
    free(s->p);
    free(s->straggler);
    free(s->cpu_stretch);
    s->cpu_stretch = NULL;
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
    free(need);
    s->cpu_per_core = best;
    s->has_cpu = 1;
    return SS_OK;
}

double ss_summary_cpu_load_pct(const ss_summary *s, int j, int *pool)
{
    if (!s->has_cpu || s->p[j].n == 0 || !(s->p[j].mean[SS_M_ITER] > 0)) return NAN;
    if (pool) *pool = s->cpu_pool;
    return 100.0 * s->cpu_per_core / s->p[j].mean[SS_M_ITER];
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
