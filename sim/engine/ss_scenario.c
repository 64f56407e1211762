/* ss_scenario.c - sweep expansion and naming. */
#include "ss_scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void name_scenario(ss_scenario *s)
{
    if (s->model == SS_MODEL_MEASURED) {
        snprintf(s->name, sizeof s->name, "measured");
    } else if (s->model == SS_MODEL_INDEPENDENT) {
        snprintf(s->name, sizeof s->name, "independent_fetch-%s_start-%s", ss_align_name(s->fetch_align),
                 ss_align_name(s->start_align));
    } else {
        char w[48], fs[32], cs[32];
        ss_autoval_format(&s->workers, w, sizeof w);
        ss_format_number(s->fetch_scale, fs, sizeof fs);
        ss_format_number(s->compute_scale, cs, sizeof cs);
        snprintf(s->name, sizeof s->name, "pipeline_fetch-%s_start-%s_w-%s_p%ld_fs%s_cs%s",
                 ss_align_name(s->fetch_align), ss_align_name(s->start_align), w, s->prefetch, fs, cs);
    }
}

/* A value listed twice in one [scenarios] list would make the same scenario twice. */
static ss_status check_repeats(const ss_config *c)
{
    struct {
        const char *key;
        int n;
        const void *v;
        size_t size;
    } lists[] = {
        {"model", c->n_models, c->models, sizeof c->models[0]},
        {"fetch_align", c->n_fetch, c->fetch_align, sizeof c->fetch_align[0]},
        {"start_align", c->n_start, c->start_align, sizeof c->start_align[0]},
        {"workers", c->n_workers, c->workers, sizeof c->workers[0]}, /* compared field by field */
        {"prefetch", c->n_prefetch, c->prefetch, sizeof c->prefetch[0]},
        {"fetch_scale", c->n_fetch_scale, c->fetch_scale, sizeof c->fetch_scale[0]},
        {"compute_scale", c->n_compute_scale, c->compute_scale, sizeof c->compute_scale[0]},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (int i = 0; i < lists[l].n; i++)
            for (int j = i + 1; j < lists[l].n; j++)
                if (lists[l].v == c->workers ? (c->workers[i].is_auto == c->workers[j].is_auto &&
                                                c->workers[i].value == c->workers[j].value)
                                             : !memcmp((const char *)lists[l].v + i * lists[l].size,
                                                       (const char *)lists[l].v + j * lists[l].size, lists[l].size))
                    return ss_fail(SS_ECONFIG, "%s: scenarios.%s lists the same value twice (items %d and %d)", c->file,
                                   lists[l].key, i + 1, j + 1);
    return SS_OK;
}

ss_status ss_scenarios_build(const ss_config *c, ss_scenario **out, int *n)
{
    *out = NULL;
    *n = 0;
    ss_status st = check_repeats(c);
    if (st != SS_OK) return st;
    long total = 1;
    for (int m = 0; m < c->n_models; m++) {
        long per = (long)c->n_fetch * c->n_start;
        if (c->models[m] == SS_MODEL_PIPELINE)
            per *= (long)c->n_workers * c->n_prefetch * c->n_fetch_scale * c->n_compute_scale;
        total += per;
    }
    if (total > SS_MAX_SCENARIOS)
        return ss_fail(SS_ECONFIG, "%s: the sweep has %ld scenarios; at most %d (split it into several runs)", c->file,
                       total, SS_MAX_SCENARIOS);
    ss_scenario *sc = calloc((size_t)total, sizeof *sc);
    if (!sc) return ss_fail(SS_ENOMEM, "out of memory for %ld scenarios", total);
    int k = 0;
    sc[k].model = SS_MODEL_MEASURED;
    sc[k].fetch_scale = sc[k].compute_scale = 1.0;
    name_scenario(&sc[k++]);
    for (int m = 0; m < c->n_models; m++) {
        int pipe = c->models[m] == SS_MODEL_PIPELINE;
        int nw = pipe ? c->n_workers : 1, np = pipe ? c->n_prefetch : 1;
        int nfs = pipe ? c->n_fetch_scale : 1, ncs = pipe ? c->n_compute_scale : 1;
        for (int w = 0; w < nw; w++)
            for (int p = 0; p < np; p++)
                for (int fs = 0; fs < nfs; fs++)
                    for (int cs = 0; cs < ncs; cs++)
                        for (int fa = 0; fa < c->n_fetch; fa++)
                            for (int sa = 0; sa < c->n_start; sa++) {
                                ss_scenario *s = &sc[k++];
                                s->model = c->models[m];
                                s->fetch_align = c->fetch_align[fa];
                                s->start_align = c->start_align[sa];
                                s->workers = pipe ? c->workers[w] : (ss_autoval){0, 0};
                                s->prefetch = pipe ? c->prefetch[p] : 0;
                                s->fetch_scale = pipe ? c->fetch_scale[fs] : 1.0;
                                s->compute_scale = pipe ? c->compute_scale[cs] : 1.0;
                                int aligned = s->fetch_align != SS_ALIGN_NONE || s->start_align != SS_ALIGN_NONE;
                                s->baseline = !aligned && s->fetch_scale == 1.0 && s->compute_scale == 1.0 &&
                                              (!pipe || (s->workers.is_auto && s->workers.value == 1.0));
                                name_scenario(s);
                            }
    }
    *out = sc;
    *n = k;
    return SS_OK;
}

int ss_scenarios_need_calibration(const ss_scenario *sc, int n, const ss_config *c)
{
    for (int i = 0; i < n; i++)
        if (sc[i].model == SS_MODEL_PIPELINE && (sc[i].workers.is_auto || c->worker_gap.is_auto)) return 1;
    return 0;
}

ss_status ss_scenarios_resolve(ss_scenario *sc, int n, const ss_config *c, const ss_calib *cal)
{
    for (int i = 0; i < n; i++) {
        ss_scenario *s = &sc[i];
        if (s->model != SS_MODEL_PIPELINE) continue;
        ssp_params *p = &s->pipe;
        double w = s->workers.is_auto ? floor((cal ? cal->workers : 1) * s->workers.value + 0.5)
                                      : s->workers.value;
        if (w > SS_MAX_WORKERS) {
            char spec[48];
            ss_autoval_format(&s->workers, spec, sizeof spec);
            return ss_fail(SS_ECONFIG, "%s: scenarios.workers = %s gives %.0f workers per GPU (calibrated: %d); at most %d",
                           c->file, spec, w, cal ? cal->workers : 0, SS_MAX_WORKERS);
        }
        p->workers = w < 1 ? 1 : (int)w;
        p->prefetch = (int)s->prefetch;
        p->worker_gap = c->worker_gap.is_auto ? (cal ? cal->worker_gap : 0.0) * c->worker_gap.value
                                              : c->worker_gap.value;
        p->refill_gap = c->refill_gap;
        p->step_gap = c->step_gap;
        p->fetch_scale = s->fetch_scale;
        p->compute_scale = s->compute_scale;
        p->fetch_align = s->fetch_align;
        p->start_align = s->start_align;
    }
    return SS_OK;
}

int ss_scenarios_want_median(const ss_scenario *sc, int n)
{
    for (int i = 0; i < n; i++)
        if (sc[i].fetch_align == SS_ALIGN_MEDIAN) return 1;
    return 0;
}
