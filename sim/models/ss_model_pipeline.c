/* ss_model_pipeline.c - the pipeline model's entry in the model table: its options, names
 * and labels, the resolution of a scenario's settings, and the replay of one scenario
 * through the recurrence (ss_pipeline_recurrence.c). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_ablate.h"
#include "ss_limits.h"
#include "ss_number.h"
#include "ss_pipeline_internal.h"

/* [pipeline]: the model's options (registered into the scenario file's option table) */
#define O(x) offsetof(ssp_options, x)
static const ss_option options_rows[] = {
    {"worker_gap", SS_OPT_SECONDS_AUTO, O(worker_gap), "auto", 0, 1e9,
     "a worker's pause between two batches, seconds, or auto (calibrated per GPU)"},
    {"refill_gap", SS_OPT_SECONDS_AUTO, O(refill_gap), "auto", 0, 1e9,
     "delay of handing a freed prefetch slot its next batch, seconds, or auto (calibrated per GPU)"},
    {"delivery", SS_OPT_SECONDS_AUTO, O(delivery), "auto", 0, 1e9,
     "time from a ready batch to the training loop having it (part of every stall), seconds, or auto"},
    {"fetch_cpu", SS_OPT_SECONDS_AUTO, O(fetch_cpu), "auto", 0, 1e9,
     "the CPU part of a fetch (decoding, collating), which fetch_scale leaves as it is, seconds, or auto (the "
     "trace's recorded fetch CPU time per GPU; 0 when it has none: the whole fetch scales), auto*F"},
    {"delivery_per_batch", SS_OPT_BOOL, O(delivery_per_batch), "true", 0, 0,
     "delivery = auto replays each batch's measured delivery (true) or each GPU's median (false)"},
    {"cpu_sharing", SS_OPT_BOOL, O(cpu_sharing), "true", 0, 0,
     "on traces that record CPU times and pools of cores: the CPU part of fetches and steps takes longer "
     "(or less long) as the scenario's threads contend more (or less) for the cores than the trace's did"},
    {"quiet_host", SS_OPT_BOOL, O(quiet_host), "false", 0, 0,
     "true: every scenario, the baseline too, as on a host where only the job runs: on traces that record "
     "other processes' share of the cores (/host_cpu_busy) and with CPU sharing on, the trace's CPU work loses "
     "the waits for a core that those processes caused (the model's stretch with them, at the trace's load); "
     "false: every scenario keeps the load they made"},
    {"storage_parallel", SS_OPT_PARALLEL, O(storage_parallel), "0", 1, 1e9,
     "the storage's most throughput with many reads in flight, in reads at a time (its throughput then over "
     "that of one read at a time): with n reads always in flight each takes 1 + (n - 1) / this as long, so a "
     "scenario with more reads in flight than the trace reads slower; 0: no limit (reads never slow down)"},
    {"step_gap", SS_OPT_SECONDS, O(step_gap), "0", 0, 1e9, "time between taking a batch and starting the step, seconds"},
    {"sync_every", SS_OPT_COUNT, O(sync_every), "1", 0, 1e18,
     "the ranks all-reduce every this many steps (gradient accumulation under DDP's no_sync); between two, "
     "each GPU steps on its own time; 1 (or 0): every step. Needs a trace whose asks the replay keeps. "
     "The training loop's alone: [trace] eval_path's loader replays with 1"},
};
#undef O
static const ss_option_section options = {"pipeline", options_rows, (int)(sizeof options_rows / sizeof options_rows[0]),
                                          sizeof(ssp_options)};

const ssp_options *ssp_options_of(const ss_config *c)
{
    const ssp_options *o = ss_config_options(c, options.name);
    if (!o) { /* a program that reads scenario files registers the models' options first */
        fprintf(stderr, "stallsim: internal error: [%s] options not registered (ss_models_register_options)\n",
                options.name);
        abort();
    }
    return o;
}

/* The evaluation loop steps no optimizer: it all-reduces no gradients, so its GPUs step on
 * their own times, as the recorded asks show (sync_every 1 replays them; MODELS-pipeline.md,
 * "The job's evaluation loader") */
static void for_eval_loader(ss_config *c)
{
    ssp_options *o = ss_config_options_mut(c, options.name);
    if (o) o->sync_every = 1;
}

int ssp_cpu_sharing_on(const ssp_options *o)
{
    return o->cpu_sharing && o->fetch_cpu.is_auto && o->fetch_cpu.value == 1.0;
}

int ssp_quiet_host(const ss_config *c, const ss_calib *cal)
{
    const ssp_options *o = ssp_options_of(c);
    if (!o->quiet_host) return 0;
    return ssp_cpu_sharing_on(o) && cal && cal->share && cal->share->s0_others && !ssp_off(SSP_RULE_CPU_SHARING)
               ? 1
               : -1;
}


/* persistent_workers in a name or label, after `prefix`: "" where it is auto (as in the
 * trace). The text lives until the next call. */
static const char *persist_text(const ss_scenario *s, const char *prefix)
{
    static char buf[24];
    if (s->persistent == SS_PERSIST_AUTO) return "";
    snprintf(buf, sizeof buf, "%s%s", prefix, s->persistent ? "true" : "false");
    return buf;
}

static void pipe_name(const ss_scenario *s, char *buf, size_t n)
{
    char w[48], fs[32], cs[32], pf[24], heal[SS_HEAL_TEXT_MAX + 8] = "", set[SS_HEAL_TEXT_MAX];
    ss_autoval_format(&s->workers, w, sizeof w);
    ss_format_number(s->fetch_scale, fs, sizeof fs);
    ss_format_number(s->compute_scale, cs, sizeof cs);
    if (s->prefetch == SS_PREFETCH_AUTO) snprintf(pf, sizeof pf, "auto");
    else snprintf(pf, sizeof pf, "%ld", s->prefetch);
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(heal, sizeof heal, "_heal-%s", set);
    snprintf(buf, n, "pipeline_fetch-%s_start-%s_w-%s_p%s_fs%s_cs%s%s%s", ss_align_name(s->fetch_align),
             ss_align_name(s->start_align), w, pf, fs, cs, persist_text(s, "_pw-"), heal);
}

/* W and P in the terminal label: the value, or "lo-hi" when GPUs differ */
static void range_label(const ss_scenario *s, int prefetch, char *buf, size_t n)
{
    const ssp_params *p = ssp_params_of(s);
    const int gpus = ((const ssp_settings *)(const void *)s->settings)->gpus;
    if (!(prefetch ? p->prefetch_gpu : p->workers_gpu) || gpus < 1) {
        snprintf(buf, n, "%d", prefetch ? p->prefetch : p->workers);
        return;
    }
    int lo = 0, hi = 0;
    for (int g = 0; g < gpus; g++) {
        ssp_loader l = ssp_loader_of(p, g);
        int v = prefetch ? l.prefetch : l.workers;
        lo = g == 0 || v < lo ? v : lo;
        hi = g == 0 || v > hi ? v : hi;
    }
    if (lo == hi) snprintf(buf, n, "%d", lo);
    else snprintf(buf, n, "%d-%d", lo, hi);
}

static void pipe_label(const ss_scenario *s, char *buf, size_t n)
{
    char w[32], p[32], heal[SS_HEAL_TEXT_MAX + 8] = "", set[SS_HEAL_TEXT_MAX], fs[40], cs[40];
    ss_format_number(s->fetch_scale, fs, sizeof fs); /* as in the name: values that differ read apart */
    ss_format_number(s->compute_scale, cs, sizeof cs);
    range_label(s, 0, w, sizeof w);
    range_label(s, 1, p, sizeof p);
    if (!strcmp(w, "0")) snprintf(p, sizeof p, "-"); /* synchronous loading has no prefetch */
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(heal, sizeof heal, " heal=%s", set);
    snprintf(buf, n, "pipe f=%s s=%s W=%s P=%s fs=%s cs=%s%s%s", ss_align_name(s->fetch_align),
             ss_align_name(s->start_align), w, p, fs, cs, persist_text(s, " pw="), heal);
}

static int pipe_baseline(const ss_scenario *s)
{
    return s->fetch_align == SS_ALIGN_NONE && s->start_align == SS_ALIGN_NONE && s->fetch_scale == 1.0 &&
           s->compute_scale == 1.0 && s->workers.is_auto && s->workers.value == 1.0 && s->heal.n == 0 &&
           s->persistent == SS_PERSIST_AUTO;
}

/* An auto setting, and the asks' lags of sync_every, come from the calibration; so do
 * the trace's figures for CPU sharing (a trace with CPU data) and storage sharing, even
 * when every loader setting is given; and a trace's pools of cores with loader workers (the
 * calibration's share), whose start-up factor scales an epoch's start and the stops between
 * passes whether or not another scenario of the sweep asks for auto; and a trace's probe of
 * one worker, which a scenario with workers takes from the calibration. */
static int pipe_needs_calibration(const ss_scenario *s, const ss_config *c, const ss_trace_meta *m)
{
    const ssp_options *o = ssp_options_of(c);
    return s->workers.is_auto || s->prefetch == SS_PREFETCH_AUTO || o->worker_gap.is_auto || o->refill_gap.is_auto ||
           o->delivery.is_auto || o->sync_every > 1 || (m && ssp_cpu_sharing_on(o) && ss_trace_meta_has_cpu(m)) ||
           o->storage_parallel > 0.0 || (m && m->cpu_pool && m->loader_workers) || (m && m->probe_lead);
}

/* 1 when the resolved scenario changes nothing: no align, scale or heal, and every GPU's
 * loader as the trace's (its calibrated W; P as calibrated where the trace records it or
 * the scenario asks for auto, so that a default prefetch = 2 against a recorded 4 is not
 * taken for the measured run; workers = 1 on a 1-worker trace is). */
static int replays_own_loaders(const ss_scenario *s, const ss_calib *cal, int ignore_heal)
{
    if (s->fetch_align != SS_ALIGN_NONE || s->start_align != SS_ALIGN_NONE || s->fetch_scale != 1.0 ||
        s->compute_scale != 1.0 || (s->heal.n > 0 && !ignore_heal) || s->persistent != SS_PERSIST_AUTO)
        return 0;
    const int check_p = s->prefetch == SS_PREFETCH_AUTO || cal->recorded_prefetch;
    for (int g = 0; g < cal->gpus; g++) {
        ssp_loader l = ssp_loader_of(ssp_params_of(s), g);
        if (l.workers != cal->workers_gpu[g]) return 0;
        if (check_p && l.workers > 0 && cal->prefetch_gpu && l.prefetch != cal->prefetch_gpu[g]) return 0;
    }
    return 1;
}

/* An auto setting takes each GPU's calibrated value (times the factor: workers = auto*2 is
 * each GPU's W times 2, rounded, at least 1 where the calibrated W is); a number is the
 * same for every GPU. pipe.workers and pipe.prefetch receive the largest over GPUs. */
static ss_status pipe_resolve(ss_scenario *s, const ss_config *c, const ss_calib *cal, const int *trace_workers)
{
    const ssp_options *o = ssp_options_of(c);
    const ss_status ablate = ssp_ablation_check(); /* STALLSIM_PIPELINE_OFF: unknown names */
    if (ablate != SS_OK) return ablate;
    ssp_settings *set = ssp_settings_of(s);
    memset(set, 0, sizeof *set);
    ssp_params *p = &set->p;
    set->gpus = cal ? cal->gpus : 0;
    /* the [pipeline] keys that change the replay of the trace's own loaders (cpu_sharing,
     * fetch_cpu and storage_parallel change nothing there: each scales by the scenario's
     * load over the trace's) */
    static const char *const replay_keys[] = {"worker_gap", "refill_gap", "delivery", "delivery_per_batch", "step_gap",
                                              "quiet_host"};
    set->own_model = o->sync_every <= 1; /* (0 is 1) */
    for (size_t i = 0; i < sizeof replay_keys / sizeof replay_keys[0]; i++)
        set->own_model &= !ss_config_changed(c, "pipeline", replay_keys[i]);
    p->workers = 1;
    p->prefetch = 2;
    if (s->workers.is_auto && cal && cal->workers_gpu) {
        p->workers_gpu = cal->workers_gpu;
        p->workers_factor = s->workers.value;
        p->workers = 0;
        double wmax = 0;
        for (int g = 0; g < cal->gpus; g++) {
            double w = ssp_worker_count(cal->workers_gpu[g], s->workers.value);
            wmax = w > wmax ? w : wmax;
        }
        if (wmax > SS_MAX_WORKERS) {
            char spec[48];
            ss_autoval_format(&s->workers, spec, sizeof spec);
            return ss_fail(SS_ECONFIG, "%s: scenarios.workers = %s gives %.0f workers per GPU (calibrated: up to %d); at most %d",
                           ss_config_origin(c, "scenarios", "workers"), spec, wmax, cal->workers, SS_MAX_WORKERS);
        }
        p->workers = (int)wmax;
    } else if (s->workers.is_auto) {
        double w = ssp_worker_count(1, s->workers.value);
        p->workers = w > SS_MAX_WORKERS ? SS_MAX_WORKERS : (int)w;
    } else {
        p->workers = (int)s->workers.value;
    }
    if (s->prefetch == SS_PREFETCH_AUTO && cal && cal->prefetch_gpu) {
        p->prefetch_gpu = cal->prefetch_gpu;
        p->prefetch = 1;
        for (int g = 0; g < cal->gpus; g++) p->prefetch = cal->prefetch_gpu[g] > p->prefetch ? cal->prefetch_gpu[g] : p->prefetch;
    } else if (s->prefetch != SS_PREFETCH_AUTO) {
        p->prefetch = (int)s->prefetch;
    }
    const ss_autoval *gaps[3] = {&o->worker_gap, &o->refill_gap, &o->delivery};
    const double *cal_gpu[3] = {cal ? cal->gap_gpu : NULL, cal ? cal->refill_gpu : NULL, cal ? cal->delivery_gpu : NULL};
    double *value[3] = {&p->worker_gap, &p->refill_gap, &p->delivery};
    const double **per_gpu[3] = {&p->worker_gap_gpu, &p->refill_gap_gpu, &p->delivery_gpu};
    double *factor[3] = {&p->worker_gap_factor, &p->refill_gap_factor, &p->delivery_factor};
    for (int i = 0; i < 3; i++) {
        *value[i] = gaps[i]->is_auto ? 0.0 : gaps[i]->value;
        if (gaps[i]->is_auto && cal_gpu[i]) {
            *per_gpu[i] = cal_gpu[i];
            *factor[i] = gaps[i]->value;
        }
    }
    p->ask_lags = cal && !ssp_off(SSP_RULE_ASK_LAGS) ? cal->ask_lags : 0;
    /* the trace's loaders: calibrated, else as the trace records them (so that a scenario's
     * replay does not depend on whether another scenario of the sweep calibrated) */
    p->trace_workers_gpu = cal ? cal->workers_gpu : trace_workers;
    for (int i = 0; i < SSP_PROBE_COUNT && cal && cal->probe_gpu; i++) /* (a second pass only where recorded) */
        if (i < SSP_PROBE_NEXT_LEAD || cal->probe_next) p->probe_gpu[i] = cal->probe_gpu + (size_t)i * (size_t)cal->gpus;
    if (cal && cal->pass_start_gpu) {
        p->pass_start_gpu = cal->pass_start_gpu;
        p->pass_stop_gpu = cal->pass_stop_gpu;
        p->passes = cal->passes;
    }
    if (o->delivery.is_auto && o->delivery_per_batch && !ssp_off(SSP_RULE_DELIVERY_BATCH)) p->delivery_measured = ssp_factor_of(o->delivery.value);
    /* the CPU part of a fetch that fetch_scale keeps: recorded per GPU (auto; none
     * recorded: 0, the whole fetch scales), or a number of seconds (times the factor of
     * auto*F) */
    if (!o->fetch_cpu.is_auto) p->fetch_cpu = o->fetch_cpu.value;
    else if (cal && cal->fetch_cpu_gpu) {
        p->fetch_cpu_gpu = cal->fetch_cpu_gpu;
        p->fetch_cpu_factor = ssp_factor_of(o->fetch_cpu.value);
    }
    if (ssp_cpu_sharing_on(o) && cal && cal->share && !ssp_off(SSP_RULE_CPU_SHARING)) {
        p->share = cal->share;
        p->quiet_host = ssp_quiet_host(c, cal) > 0;
    }
    if (cal && cal->share) p->pools = cal->share;
    if (o->storage_parallel > 0.0 && cal && cal->fetch_med_gpu && !ssp_off(SSP_RULE_STORAGE)) {
        p->storage_parallel = o->storage_parallel;
        p->trace_fetch_med = cal->fetch_med_gpu;
        p->trace_gap_gpu = cal->gap_gpu;
        p->trace_delivery_gpu = cal->delivery_gpu;
        p->trace_period = cal->period;
        p->trace_step = cal->step;
        p->trace_delivery_rows = ssp_off(SSP_RULE_DELIVERY_ROWS) ? 0.0 : cal->delivery_rows;
    }
    p->step_gap = o->step_gap;
    p->sync_every = o->sync_every;
    if (o->sync_every > 1 && !(cal && cal->ask_lags))
        return ss_fail(SS_ECONFIG,
                       "%s: [pipeline] sync_every = %ld needs a trace whose GPUs ask for their batches at their own "
                       "times, as the recorder's traces show (train_start and stall_time consistent with "
                       "iteration_time on 99 %% of the rows); this trace's asks are %s",
                       ss_config_origin(c, "pipeline", "sync_every"), o->sync_every,
                       cal && cal->asks_consistent ? "simultaneous" : "not consistent");
    p->fetch_scale = s->fetch_scale;
    p->compute_scale = s->compute_scale;
    p->fetch_align = s->fetch_align;
    p->start_align = s->start_align;
    if (cal && cal->workers_gpu) {
        s->baseline = replays_own_loaders(s, cal, 0);
        /* the loaders as resolved, the healed GPU's own (heal_loaders replaces them in init) */
        s->baseline_but_heal = s->heal_gpu >= 0 && replays_own_loaders(s, cal, 1);
    }
    return SS_OK;
}

/* The median of v[0..gpus) over the GPUs not in h, to the nearest whole number: a healed
 * GPU's workers or prefetch factor. v holds 2 gpus doubles (the second half scratch). */
static int median_rounded(double *v, int gpus, const ss_healset *h)
{
    return (int)floor(ss_median_unhealed(v, gpus, h, v + gpus) + 0.5);
}

/* The healed GPUs take the median of the other GPUs' loader settings (W and P rounded). */
static ss_status heal_loaders(pipe_state *st, ssp_params *p, int gpus)
{
    const size_t G = (size_t)gpus;
    st->wg = malloc(G * sizeof *st->wg);
    st->pg = malloc(G * sizeof *st->pg);
    st->gg = malloc(G * sizeof *st->gg);
    st->rg = malloc(G * sizeof *st->rg);
    st->dg = malloc(G * sizeof *st->dg);
    double *v = malloc(2 * G * sizeof *v);
    if (!st->wg || !st->pg || !st->gg || !st->rg || !st->dg || !v) {
        free(v);
        return ss_fail(SS_ENOMEM, "out of memory for a healed scenario");
    }
    for (int g = 0; g < gpus; g++) {
        ssp_loader l = ssp_loader_of(p, g);
        st->wg[g] = l.workers;
        st->pg[g] = l.prefetch;
        st->gg[g] = l.worker_gap;
        st->rg[g] = l.refill_gap;
        st->dg[g] = l.delivery;
    }
    const ss_healset *h = &st->heals;
    if (gpus > 1) {
        for (int g = 0; g < gpus; g++) v[g] = st->wg[g];
        const int w = median_rounded(v, gpus, h);
        for (int g = 0; g < gpus; g++) v[g] = st->pg[g];
        const int pf = median_rounded(v, gpus, h);
        for (int g = 0; g < gpus; g++)
            if (ss_healset_has(h, g)) st->wg[g] = w, st->pg[g] = pf;
        double *arr[3] = {st->gg, st->rg, st->dg};
        for (int a = 0; a < 3; a++) ss_copy_healed(arr[a], arr[a], gpus, h, v);
    }
    free(v);
    p->workers_gpu = st->wg;
    p->prefetch_gpu = st->pg;
    p->worker_gap_gpu = st->gg;
    p->refill_gap_gpu = st->rg;
    /* (a delivery the scenario file gives in seconds stays a constant: the same for every
     * GPU, and not stretched with the load) */
    if (p->delivery_gpu) p->delivery_gpu = st->dg;
    p->workers_factor = p->worker_gap_factor = p->refill_gap_factor = p->delivery_factor = 1.0;
    return SS_OK;
}

static void pipe_state_free(pipe_state *st)
{
    free(st->fetch_buf);
    free(st->start_buf);
    free(st->sort_buf);
    free(st->heal_ask);
    free(st->heal_tmp);
    free(st->heal_a0);
    free(st->wg);
    free(st->pg);
    free(st->gg);
    free(st->rg);
    free(st->dg);
    free(st->cg);
    free(st->share_buf);
    free(st->window_rows);
    free(st->ready);
    free(st->trace_round);
    free(st->first_hold);
    free(st->boot);
    free(st->boots);
    free(st->probe_up);
    free(st->ask_scale);
    free(st->healed);
    free(st);
}

/* The trace's first rounds and the rows whose measured starts they replace (first_rows,
 * pipe_state); after ssp_init. Nothing to do when the trace's loaders are not known
 * (neither calibrated nor recorded) or no GPU has more workers than its trace's. */
static ss_status first_round_init(pipe_state *st, const int *trace_w, int gpus)
{
    if (!trace_w || ssp_off(SSP_RULE_FIRST_ROUND)) return SS_OK;
    long rows = 0;
    st->trace_round = malloc((size_t)gpus * sizeof *st->trace_round);
    double *v = malloc(2 * (size_t)gpus * sizeof *v);
    if (!st->trace_round || !v) {
        free(v);
        return ss_fail(SS_ENOMEM, "out of memory for a pipeline scenario");
    }
    for (int g = 0; g < gpus; g++) v[g] = trace_w[g] > 1 ? trace_w[g] : 1;
    /* a healed GPU's measured starts are the others' (pipe_replay): so is its round */
    const double healed = st->heals.n > 0 && gpus > 1 ? median_rounded(v, gpus, &st->heals) : 0;
    for (int g = 0; g < gpus; g++) {
        st->trace_round[g] = ss_healset_has(&st->heals, g) && healed >= 1 ? (int)healed : (int)v[g];
        const long w = st->ps.ld[g].workers;
        if (w > st->trace_round[g]) rows = w > rows ? w : rows;
    }
    free(v);
    if (rows == 0) return SS_OK;
    st->first_hold = calloc((size_t)gpus, sizeof *st->first_hold);
    if (!st->first_hold) return ss_fail(SS_ENOMEM, "out of memory for a pipeline scenario");
    st->first_rows = rows;
    return SS_OK;
}

/* The first asks (MODELS-pipeline.md, "The first asks"): each loop starts its workers one
 * after another before it asks for the epoch's first batch, so the lead of a GPU's first
 * ask over the earliest scales with the workers it starts: W' / W (0 where the scenario
 * loads synchronously, 1 where the trace did). Later epochs keep theirs where the
 * scenario's workers persist. Nothing where every factor is 1. */
static ss_status ask_scale_init(pipe_state *st, const ss_scenario *s, const int *trace_w, int gpus)
{
    if (ssp_off(SSP_RULE_ASK_SPREAD)) return SS_OK;
    double *t = malloc(2 * (size_t)gpus * sizeof *t);
    if (!t) return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    for (int g = 0; g < gpus; g++) t[g] = trace_w[g];
    /* a healed GPU's workers are the others' median, as its loader's are */
    if (st->heals.n > 0 && gpus > 1) {
        const double med = median_rounded(t, gpus, &st->heals);
        for (int g = 0; g < gpus; g++)
            if (ss_healset_has(&st->heals, g)) t[g] = med;
    }
    int change = 0;
    for (int g = 0; g < gpus; g++) change |= st->ps.ld[g].workers != t[g] && t[g] >= 1;
    if (change) st->ask_scale = malloc(2 * (size_t)gpus * sizeof *st->ask_scale);
    if (change && !st->ask_scale) {
        free(t);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    for (int g = 0; change && g < gpus; g++) {
        const double w = st->ps.ld[g].workers;
        st->ask_scale[g] = t[g] >= 1 ? w / t[g] : 1.0;
        /* persistent workers start once; a synchronous loop starts none in any epoch */
        st->ask_scale[gpus + g] = st->persistent == 1 && w >= 1 ? 1.0 : st->ask_scale[g];
    }
    free(t);
    st->ask_scale_now = st->ask_scale;
    return SS_OK;
}

/* The start-up factor beta of each GPU g's pool of cores, in k[g] (MODELS-pipeline.md, "An
 * epoch's start"): the workers of every GPU of a pool start, and stop, together and share
 * its cores, so N of them on C cores take max(1, N / C) times as long as one alone; N1 sums
 * w1 (the scenario's workers, a healed GPU's the others' median) over the pool's GPUs, N0
 * sums w0 (the trace's own; a probed GPU's one, its probe's worker: ssp_probed). 1 for every
 * GPU without the trace's pools (p->pools NULL or of other GPUs), without w0, or with the
 * rule ablated. */
static ss_status pool_factors(const ssp_params *p, const double *w1, const int *w0, int gpus, double *k)
{
    const ss_share *sh = p->pools;
    for (int g = 0; g < gpus; g++) k[g] = 1.0;
    if (!sh || sh->gpus != gpus || !w0 || ssp_off(SSP_RULE_BOOT_FACTOR)) return SS_OK;
    const int pools = sh->pools;
    double *n = calloc(2 * (size_t)pools, sizeof *n); /* per pool: the scenario's, the trace's workers */
    if (!n) return ss_fail(SS_ENOMEM, "out of memory for the workers' start-up factors of %d GPUs", gpus);
    for (int g = 0; g < gpus; g++) {
        n[sh->pool_of[g]] += w1[g];
        /* a probed GPU's costs were measured with one worker per GPU, the probes side by side */
        n[pools + sh->pool_of[g]] += ssp_probed(p, (int)w1[g], g) ? 1 : w0[g];
    }
    for (int g = 0; g < gpus; g++) {
        const int q = sh->pool_of[g];
        const double c = sh->cores[q] > 0 ? sh->cores[q] : 1, a = n[q] / c, b = n[pools + q] / c;
        k[g] = (a > 1.0 ? a : 1.0) / (b > 1.0 ? b : 1.0);
    }
    free(n);
    return SS_OK;
}

/* The probe's figure for a later epoch (SSP_PROBE_NEXT_LEAD or _STARTUP): its second pass's,
 * else (none, or the rule probe_next ablated) the first pass's. */
static const double *probe_later(const ssp_params *p, int next)
{
    const int first = next == SSP_PROBE_NEXT_LEAD ? SSP_PROBE_LEAD : SSP_PROBE_STARTUP;
    return p->probe_gpu[next] && !ssp_off(SSP_RULE_PROBE_NEXT) ? p->probe_gpu[next] : p->probe_gpu[first];
}

/* Between passes (MODELS-pipeline.md, "Between passes"): per GPU, k[g] on its time from
 * iter(loader) to its first ask and k[G + g] on its shutdown of the pass before.
 * iter(loader) starts the workers one after another, so the lead scales with the workers
 * the GPU starts: W' / W. The last next() of a pass signals every worker at once and then
 * joins them, so they stop together, sharing their pool's cores: the stop scales by the
 * pool's start-up factor beta (pool_factors). Both are 0 where the scenario loads
 * synchronously, or keeps its workers from the epoch before where the trace started them
 * anew; as measured where the trace's GPU loaded synchronously (nothing tells what its
 * workers cost) or kept its workers too. In W' / W a healed GPU's workers, in the trace and
 * in the scenario, are the others' medians, computed once for every GPU; beta counts the
 * trace's own. */
static ss_status pipe_lead_factors(const ss_scenario *s, const ss_trace_meta *m, int first, double *k)
{
    const int G = m->gpus;
    for (int g = 0; g < 4 * G; g++) k[g] = g < 2 * G ? 1.0 : 0.0;
    if (ssp_off(SSP_RULE_PASS_LEAD) || !m->loader_workers) return SS_OK;
    const ssp_params *p = ssp_params_of(s);
    double *v = malloc(2 * (size_t)G * sizeof *v), *beta = v + G;
    if (!v) return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    double t_healed = 0.0, w_healed = 0.0; /* the others' median workers, in the trace and in the scenario */
    if (s->heal.n > 0 && G > 1) {
        for (int g = 0; g < G; g++) v[g] = m->loader_workers[g];
        t_healed = median_rounded(v, G, &s->heal);
        for (int g = 0; g < G; g++) v[g] = ssp_loader_of(p, g).workers;
        w_healed = median_rounded(v, G, &s->heal);
    }
    for (int g = 0; g < G; g++)
        v[g] = ss_healset_has(&s->heal, g) && G > 1 ? w_healed : ssp_loader_of(p, g).workers;
    ss_status st = pool_factors(p, v, p->trace_workers_gpu, G, beta);
    const int trace_keeps = m->persistent_workers == 1;
    const int persistent = s->persistent == 1 && ssp_off(SSP_RULE_PERSISTENT) ? 0 : s->persistent;
    const int keeps = persistent == SS_PERSIST_AUTO ? trace_keeps : persistent == 1;
    for (int g = 0; st == SS_OK && g < G; g++) {
        const int healed = ss_healset_has(&s->heal, g) && G > 1;
        const double t = healed ? t_healed : m->loader_workers[g], w = v[g];
        double lead = 1.0, stop = 1.0; /* as measured where the trace loaded synchronously */
        if (t < 1 && !healed && ssp_probed(p, (int)w, g) && (first || !keeps)) {
            /* its loop starts w workers one after another, each the probe's lead (its second
             * pass's after the first epoch), and (after the first epoch) stops those of the
             * pass before, side by side, as the probe's */
            k[2 * G + g] = w * (first ? p->probe_gpu[SSP_PROBE_LEAD] : probe_later(p, SSP_PROBE_NEXT_LEAD))[g];
            k[3 * G + g] = first ? 0.0 : beta[g] * p->probe_gpu[SSP_PROBE_STOP][g];
        }
        if (t >= 1) {
            if (w == 0) lead = stop = 0.0;
            else if (!first && keeps) lead = stop = trace_keeps ? 1.0 : 0.0;
            else if (!first && trace_keeps) lead = stop = 1.0; /* its later passes started no workers */
            else {
                lead = w / t;
                stop = beta[g];
            }
        }
        k[g] = lead;
        k[G + g] = stop;
    }
    free(v);
    return st;
}

/* An epoch's start (MODELS-pipeline.md, "An epoch's start"): after ssp_init and
 * first_round_init. Each GPU's factor on its workers' start-up: the workers of every GPU
 * of a pool of cores start together at the epoch's start and share its cores, so with N
 * of them on C cores each start-up takes max(1, N / C) times as long as alone: the
 * scenario's over the trace's (1 without the trace's pools of cores). Nothing to do when
 * every factor is 1, every GPU starts workers where the trace did, and the workers do not
 * persist where the trace's started anew. */
static ss_status boot_init(pipe_state *st, const ss_scenario *s, const int *trace_w, int gpus)
{
    st->persistent = s->persistent == 1 && ssp_off(SSP_RULE_PERSISTENT) ? 0 : s->persistent;
    st->first_epoch = 1;
    if (!trace_w) return SS_OK;
    const size_t G = (size_t)gpus;
    ss_status rc = ask_scale_init(st, s, trace_w, gpus);
    if (rc != SS_OK) return rc;
    st->boot = malloc(5 * G * sizeof *st->boot);
    st->boots = malloc(G);
    if (!st->boot || !st->boots) return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    st->ask0 = st->boot + G;
    st->boot_start = st->boot + 2 * G;
    st->ask1 = st->boot + 3 * G;
    st->lead = st->boot + 4 * G;
    double *w1 = malloc((size_t)gpus * sizeof *w1);
    int probed = 0;
    for (int g = 0; w1 && g < gpus; g++) {
        w1[g] = st->ps.ld[g].workers;
        probed |= ssp_probed(&st->ps.p, st->ps.ld[g].workers, g);
    }
    if (probed && w1) st->probe_up = malloc(2 * (size_t)gpus * sizeof *st->probe_up);
    rc = !w1 || (probed && !st->probe_up) ? ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name)
                                          : pool_factors(&st->ps.p, w1, trace_w, gpus, st->boot);
    for (int g = 0; rc == SS_OK && probed && g < gpus; g++) { /* (the probed GPUs' start-up, first and later epochs) */
        const int on = ssp_probed(&st->ps.p, st->ps.ld[g].workers, g);
        st->probe_up[g] = on ? st->ps.p.probe_gpu[SSP_PROBE_STARTUP][g] : NAN;
        st->probe_up[gpus + g] = on ? probe_later(&st->ps.p, SSP_PROBE_NEXT_STARTUP)[g] : NAN;
    }
    free(w1);
    if (rc != SS_OK) return rc;
    int change = st->persistent == 1 || st->ask_scale != NULL || probed;
    long rows = 0;
    for (int g = 0; g < gpus; g++) {
        const long w = st->ps.ld[g].workers;
        st->boots[g] = !(w == 0 && trace_w[g] >= 1) || ssp_off(SSP_RULE_SYNC_START);
        const double k = st->boot[g];
        change |= k != 1.0 || !st->boots[g];
        const long r = w > 1 ? w : 1;
        rows = r > rows ? r : rows;
    }
    st->boot_rows = change ? rows : 0;
    return SS_OK;
}

/* The epoch's leads (MODELS-pipeline.md, "The first asks"): each GPU's time from its pass
 * start to its first ask (ask0, set), into st->lead; a healed GPU's is the others' median.
 * 0 where the trace records no pass starts, the epoch has no row of them, or a pass start
 * comes after its GPU's ask (the epochs are not numbered one after another). */
static int epoch_leads(pipe_state *st, int G)
{
    const ssp_params *p = &st->ps.p;
    if (!p->pass_start_gpu || st->epoch < 0 || st->epoch >= p->passes || ssp_off(SSP_RULE_PASS_ANCHOR)) return 0;
    const double *ps = p->pass_start_gpu + (size_t)st->epoch * (size_t)G;
    for (int g = 0; g < G; g++) {
        const int healed = st->ps.healed && st->ps.healed[g];
        if (!healed && !(isfinite(ps[g]) && ps[g] <= st->ask0[g] + 1e-9)) return 0;
        st->lead[g] = healed ? 0.0 : st->ask0[g] - ps[g];
    }
    if (st->ps.healed && G > 1) {
        const double med = ss_median_unhealed(st->lead, G, &st->heals, st->boot_start);
        for (int g = 0; g < G; g++)
            if (st->ps.healed[g]) st->lead[g] = med;
    }
    return 1;
}

/* The healed GPUs' first asks of the epoch (MODELS-pipeline.md, "Healing a GPU") into
 * st->heal_ask, every GPU's measured one into st->heal_a0; NULL where the row has no
 * train_start. Where every GPU's pass start of the epoch is known and comes before its first
 * ask, a healed GPU's first ask is its own pass start, less its shutdown of the pass before
 * plus the others' median one (with pass stops, epochs after the first), plus the others'
 * median time from pass start to first ask (st->heal_own = 1): its loop's own work before
 * the pass (an evaluation, a checkpoint) stays, its loader's part is the others'. Otherwise
 * it is the others' median first ask. */
static const double *healed_first_asks(pipe_state *st, const ss_row *row, int G)
{
    st->heal_own = 0;
    if (!row->train_start) return NULL;
    for (int g = 0; g < G; g++) st->heal_a0[g] = row->train_start[g] - row->stall_time[g];
    const double med = ss_median_unhealed(st->heal_a0, G, &st->heals, st->heal_tmp);
    for (int g = 0; g < G; g++) st->heal_ask[g] = st->ps.healed[g] ? med : NAN;
    const ssp_params *p = &st->ps.p;
    if (!p->pass_start_gpu || st->epoch < 0 || st->epoch >= p->passes || ssp_off(SSP_RULE_HEAL_OWN_WORK) ||
        ssp_off(SSP_RULE_PASS_ANCHOR))
        return st->heal_ask;
    const double *ps = p->pass_start_gpu + (size_t)st->epoch * (size_t)G;
    const double *q = p->pass_stop_gpu && st->epoch >= 1 ? p->pass_stop_gpu + (size_t)(st->epoch - 1) * (size_t)G : NULL;
    double *lead = st->heal_tmp, *scratch = st->heal_tmp + G;
    for (int g = 0; g < G; g++) {
        const double a = st->heal_a0[g];
        if (!(isfinite(ps[g]) && isfinite(a) && ps[g] <= a + 1e-9) || (q && !isfinite(q[g]))) return st->heal_ask;
        lead[g] = a - ps[g];
    }
    const double l = ss_median_unhealed(lead, G, &st->heals, scratch);
    const double qm = q ? ss_median_unhealed(q, G, &st->heals, scratch) : 0.0;
    if (!isfinite(l) || !isfinite(qm)) return st->heal_ask;
    for (int g = 0; g < G; g++)
        if (st->ps.healed[g]) st->heal_ask[g] = ps[g] - (q ? q[g] - qm : 0.0) + l;
    st->heal_own = 1;
    return st->heal_ask;
}

/* The measured starts of an epoch's first batches as the scenario starts its workers
 * (boot_init): each GPU's start-up after its loop's first ask (ask0) times its factor;
 * none after the first epoch where the workers persist; the loop's ask where the GPU
 * loads synchronously but the trace's had workers. Starts before the ask (workers that
 * persisted in the trace, already fetching) stay. */
static const double *boot_starts(pipe_state *st, const ss_row *row, const double *fs, int G)
{
    if (st->ps.k == 0) {
        for (int g = 0; g < G; g++)
            st->ask0[g] = row->train_start ? row->train_start[g] - row->stall_time[g] : NAN;
        const double *k = st->ask_scale_now;
        /* a healed GPU's first ask as in the recurrence (also where no ask scales) */
        for (int g = 0; st->ps.healed_asks && g < G; g++)
            if (st->ps.healed[g]) st->ask0[g] = st->ps.healed_asks[g];
        int e = 0; /* the GPU that asks first */
        for (int g = 1; g < G; g++) e = st->ask0[g] < st->ask0[e] ? g : e;
        const double lo = st->ask0[e];
        /* each loop reaches its first ask after starting its workers, one by one */
        if (k && isfinite(lo) && epoch_leads(st, G)) {
            /* from its own pass start: each GPU's time in iter(loader) scales, and the
             * earliest's change is the time between passes' (B'), before the row */
            const double shift = (k[e] - 1.0) * st->lead[e];
            for (int g = 0; g < G; g++) st->ask1[g] = fmax(lo, st->ask0[g] + (k[g] - 1.0) * st->lead[g] - shift);
        } else {
            for (int g = 0; g < G; g++) st->ask1[g] = k && isfinite(lo) ? lo + k[g] * (st->ask0[g] - lo) : st->ask0[g];
        }
        st->ps.first_asks = k && isfinite(lo) ? st->ask1 : NULL;
    }
    for (int g = 0; g < G; g++) {
        const double a = st->ask0[g], u = fs[g] - a, a1 = st->ask1[g];
        double v = fs[g] + (a1 - a); /* (also where the ask is not known, u is NaN) */
        if (!isfinite(v)) v = fs[g];
        /* persistent workers start nothing after the first epoch; a GPU without workers has none */
        const int kept = st->persistent == 1 && !st->first_epoch && st->ps.ld[g].workers >= 1;
        /* a probed GPU's workers (the trace had none) start the probe's start-up after the ask */
        const double up = st->probe_up ? st->probe_up[st->first_epoch ? g : G + g] : NAN;
        if (!isnan(up) && isfinite(a1)) v = a1 + (kept ? 0.0 : st->boot[g] * up);
        else if (u > 0.0 && (!st->boots[g] || kept)) v = a1;
        else if (u > 0.0 && st->boot[g] != 1.0) v = a1 + st->boot[g] * u;
        st->boot_start[g] = v;
    }
    return st->boot_start;
}

static ss_status pipe_init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    (void)c;
    pipe_state *st = calloc(1, sizeof *st);
    if (st && s->heal.n > 0) {
        st->fetch_buf = malloc((size_t)gpus * sizeof *st->fetch_buf);
        st->start_buf = malloc((size_t)gpus * sizeof *st->start_buf);
        st->sort_buf = malloc((size_t)gpus * sizeof *st->sort_buf);
        st->heal_ask = malloc((size_t)gpus * sizeof *st->heal_ask);
        st->heal_tmp = malloc(2 * (size_t)gpus * sizeof *st->heal_tmp);
        st->heal_a0 = malloc((size_t)gpus * sizeof *st->heal_a0);
    }
    if (!st || (s->heal.n > 0 && (!st->fetch_buf || !st->start_buf || !st->sort_buf || !st->heal_ask || !st->heal_tmp ||
                                  !st->heal_a0))) {
        if (st) pipe_state_free(st);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    st->heal = s->heal_gpu;
    st->heals = s->heal;
    st->cpu_stretch = st->delivery_factor = NAN;
    st->read_factor = st->reads_trace = NAN;
    ssp_params p = *ssp_params_of(s);
    ss_status rc = SS_OK;
    const ssp_params *q = ssp_params_of(s);
    const int healing = st->heals.n > 0 && st->heals.lo[0] < gpus;
    if (healing && (q->workers_gpu || q->prefetch_gpu || q->worker_gap_gpu || q->refill_gap_gpu || q->delivery_gpu))
        rc = heal_loaders(st, &p, gpus);
    if (rc == SS_OK && healing && q->fetch_cpu_gpu && gpus > 1) {
        st->cg = malloc(2 * (size_t)gpus * sizeof *st->cg);
        if (!st->cg) rc = ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
        else {
            ss_copy_healed(st->cg, q->fetch_cpu_gpu, gpus, &st->heals, st->cg + gpus);
            p.fetch_cpu_gpu = st->cg;
        }
    }
    if (rc == SS_OK) rc = ssp_store_init(st, &p, q, s, gpus);
    if (rc == SS_OK && p.share) rc = ssp_share_init(st, &p, s, gpus);
    if (rc == SS_OK) rc = ssp_init(&st->ps, &p, gpus);
    if (rc != SS_OK) {
        pipe_state_free(st);
        return rc;
    }
    for (int i = 0; i < st->heals.n; i++)
        for (int g = st->heals.lo[i]; g <= st->heals.hi[i] && g < gpus; g++) {
            const long w = st->ps.ld[g].workers > 1 ? st->ps.ld[g].workers : 1;
            st->heal_first = w > st->heal_first ? w : st->heal_first;
        }
    rc = first_round_init(st, q->trace_workers_gpu, gpus);
    if (rc == SS_OK) rc = boot_init(st, s, q->trace_workers_gpu, gpus);
    if (rc == SS_OK && healing) { /* the healed GPUs, whose first asks of an epoch are the others' ("Healing a GPU") */
        st->healed = calloc((size_t)gpus, 1);
        if (!st->healed) rc = ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
        for (int g = 0; st->healed && g < gpus; g++) st->healed[g] = (unsigned char)ss_healset_has(&st->heals, g);
        st->ps.healed = ssp_off(SSP_RULE_HEAL_ASK) ? NULL : st->healed;
    }
    if (rc != SS_OK) {
        ssp_free(&st->ps);
        pipe_state_free(st);
        return rc;
    }
    *state = st;
    return SS_OK;
}

static void pipe_epoch_start(void *state, int first, long epoch)
{
    pipe_state *st = state;
    ssp_epoch_start(&st->ps);
    st->first_epoch = first;
    st->epoch = epoch;
    if (st->ask_scale) st->ask_scale_now = st->ask_scale + (first ? 0 : st->ps.gpus);
}

/* The measured starts of the epoch's first batches as the scenario's loaders take them
 * (first_rows, pipe_state): batch k of GPU g keeps its own where the trace's fresh
 * workers started it (k below the trace's round), else the round's last start */
static const double *first_round_starts(pipe_state *st, const double *fs, int G)
{
    const long k = st->ps.k;
    for (int g = 0; g < G; g++)
        if (k < st->trace_round[g]) st->first_hold[g] = fs[g];
    return st->first_hold;
}

static void pipe_replay(void *state, const ss_row *row, double *stall, ss_step *out)
{
    pipe_state *st = state;
    const int G = row->gpus;
    const int first = st->ps.k < st->first_rows, boot = st->ps.k < st->boot_rows;
    if (st->heals.n == 0 && !first && !boot) {
        ssp_replay_row(&st->ps, row, stall, out);
        return;
    }
    ss_row healed = *row;
    if (st->heal >= 0) ss_row_heal(row, st->heal, &healed, st->fetch_buf);
    else if (st->heals.n > 0) ss_row_heal_set(row, &st->heals, &healed, st->fetch_buf, st->sort_buf);
    /* the measured starts serve the epoch's first batches, max(W, 1) of them: a healed
     * GPU's loader starts them like the others (the median of their starts), as its own
     * may belong to a loader with fewer workers */
    if (st->ps.k == 0 && st->ps.healed) st->ps.healed_asks = healed_first_asks(st, row, G);
    if (G > 1 && st->heals.n > 0 && st->ps.k < st->heal_first && !ssp_off(SSP_RULE_HEAL_STARTS)) {
        ss_copy_healed(st->start_buf, row->fetch_start, G, &st->heals, st->sort_buf);
        if (st->heal_own) { /* the others' median start after the ask, after its own ask */
            double *d = st->heal_tmp;
            for (int g = 0; g < G; g++) d[g] = row->fetch_start[g] - st->heal_a0[g];
            const double u = ss_median_unhealed(d, G, &st->heals, st->heal_tmp + G);
            for (int g = 0; g < G; g++)
                if (st->ps.healed[g]) st->start_buf[g] = st->ps.healed_asks[g] + u;
        }
        healed.fetch_start = st->start_buf;
    }
    if (boot) healed.fetch_start = boot_starts(st, row, healed.fetch_start, G);
    if (first) healed.fetch_start = first_round_starts(st, healed.fetch_start, G);
    ssp_replay_row_from(&st->ps, &healed, row, stall, out);
}

static double pipe_cpu_stretch(const void *state) { return ((const pipe_state *)state)->cpu_stretch; }
static double pipe_delivery_factor(const void *state) { return ((const pipe_state *)state)->delivery_factor; }

static void pipe_read_stretch(const void *state, double out[3])
{
    const pipe_state *st = state;
    out[0] = st->read_factor;
    out[1] = st->reads_trace;
    out[2] = st->ps.p.storage_parallel > 0.0 ? st->ps.p.storage_parallel : NAN;
}

static void pipe_free(void *state)
{
    pipe_state *st = state;
    if (!st) return;
    ssp_free(&st->ps);
    pipe_state_free(st);
}


/* The largest of the GPUs' resolved workers or prefetch factor. */
static long pipe_setting_of(const ss_scenario *s, unsigned axis)
{
    const ssp_params *p = ssp_params_of(s);
    return axis == SS_AXIS_WORKERS ? p->workers : axis == SS_AXIS_PREFETCH ? p->prefetch : 0;
}

/* The range of W or P over the GPUs, as range_label shows it. */
static void range_of(const ss_scenario *s, int prefetch, double *lo, double *hi)
{
    const ssp_params *p = ssp_params_of(s);
    const int gpus = ((const ssp_settings *)(const void *)s->settings)->gpus;
    if (!(prefetch ? p->prefetch_gpu : p->workers_gpu) || gpus < 1) {
        *lo = *hi = prefetch ? p->prefetch : p->workers;
        return;
    }
    for (int g = 0; g < gpus; g++) {
        ssp_loader l = ssp_loader_of(p, g);
        double v = prefetch ? l.prefetch : l.workers;
        *lo = g == 0 || v < *lo ? v : *lo;
        *hi = g == 0 || v > *hi ? v : *hi;
    }
}

/* The loaders' parts: W's range, then P's (none where every GPU loads synchronously,
 * where the prefetch factor means nothing). */
static void pipe_key_of(const ss_scenario *s, ss_setting_key *k)
{
    range_of(s, 0, &k->lo[0], &k->hi[0]);
    range_of(s, 1, &k->lo[1], &k->hi[1]);
    if (k->lo[0] == 0.0 && k->hi[0] == 0.0) k->lo[1] = k->hi[1] = -1.0;
    k->lo[2] = k->hi[2] = s->persistent;
    k->n = 3;
}

const ss_model_ops ss_model_pipeline = {
    .name = "pipeline",
    .label = "pipe",
    .legend = "the pipeline model; f= fetch_align, s= start_align, W= workers, P= prefetch, fs= fetch_scale, "
              "cs= compute_scale, pw= persistent_workers",
    .stateful = 1,
    .epochs_independent = 1, /* ssp_epoch_start: k = 0, and batch 0 reads only its row */
    .axes = SS_AXIS_HEAL | SS_AXIS_WORKERS | SS_AXIS_PREFETCH | SS_AXIS_FETCH_SCALE | SS_AXIS_COMPUTE_SCALE | SS_AXIS_FETCH_ALIGN |
            SS_AXIS_START_ALIGN | SS_AXIS_PERSISTENT,
    .reports_fidelity = 1,
    .reads_train_start = 1,
    .lead_factors = pipe_lead_factors,
    .ranks_alone = 1, /* the independent model keeps each GPU's measured steps and loaders */
    .options = &options,
    .same_time_note = "in the model their loaders keep ahead, so the step alone sets it and more workers, a deeper "
                      "prefetch or faster storage gain nothing more; real runs of such settings still differ, as "
                      "their intervals say",
    .ahead_note = "loaders now ahead: the trace's loaders were behind and these scenarios' keep ahead, so the "
                  "prediction rests on the trace's steps and deliveries, which grow with the load; check one real "
                  "run before acting",
    .ahead_heal_note = "a healed GPU among them: against the real run without the slow GPU, the healed run's load, "
                       "which sets its steps' and deliveries' waits for a core, is the model's, not a measurement",
    .name_of = pipe_name,
    .label_of = pipe_label,
    .is_baseline = pipe_baseline,
    .needs_calibration = pipe_needs_calibration,
    .resolve = pipe_resolve,
    .init = pipe_init,
    .epoch_start = pipe_epoch_start,
    .replay_row = pipe_replay,
    .free = pipe_free,
    .cpu_stretch = pipe_cpu_stretch,
    .read_stretch = pipe_read_stretch,
    .delivery_factor = pipe_delivery_factor,
    .setting_of = pipe_setting_of,
    .key_of = pipe_key_of,
    .hints = ssp_hints,
    .error_class = ssp_error_class,
    .calib_notes = ssp_calib_notes,
    .notes = ssp_notes,
    .quiet_host = ssp_quiet_host,
    .for_eval_loader = for_eval_loader,
};
