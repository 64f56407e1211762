/* ss_scenario.c - sweep expansion and naming. */
#include "ss_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        {"heal", c->n_heal, c->heal, sizeof c->heal[0]},
        {"persistent_workers", c->n_persistent, c->persistent, sizeof c->persistent[0]},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (int i = 0; i < lists[l].n; i++)
            for (int j = i + 1; j < lists[l].n; j++)
                if (lists[l].v == c->workers ? (c->workers[i].is_auto == c->workers[j].is_auto &&
                                                c->workers[i].value == c->workers[j].value)
                                             : !memcmp((const char *)lists[l].v + i * lists[l].size,
                                                       (const char *)lists[l].v + j * lists[l].size, lists[l].size))
                    return ss_fail(SS_ECONFIG, "%s: scenarios.%s lists the same value twice (items %d and %d)",
                                   ss_config_origin(c, "scenarios", lists[l].key),
                                   lists[l].key, i + 1, j + 1);
    return SS_OK;
}

/* The axes in the order of the sweep's nested loops, outermost first. */
enum {
    AX_HEAL, AX_WORKERS, AX_PERSIST, AX_PREFETCH, AX_FETCH_SCALE, AX_COMPUTE_SCALE, AX_FETCH_ALIGN, AX_START_ALIGN,
    AX_N
};
static const unsigned axis_bit[AX_N] = {SS_AXIS_HEAL,         SS_AXIS_WORKERS,       SS_AXIS_PERSISTENT,
                                        SS_AXIS_PREFETCH,     SS_AXIS_FETCH_SCALE,   SS_AXIS_COMPUTE_SCALE,
                                        SS_AXIS_FETCH_ALIGN,  SS_AXIS_START_ALIGN};
static const char *const axis_key[AX_N] = {"heal",        "workers",       "persistent_workers", "prefetch",
                                           "fetch_scale", "compute_scale", "fetch_align",        "start_align"};

static int in_sweep(const ss_config *c, ss_model m)
{
    for (int i = 0; i < c->n_models; i++)
        if (c->models[i] == m) return 1;
    return 0;
}

/* A [scenarios] list or a key of a model's own section ([pipeline]) set to other than its
 * default where no model of the sweep takes it would be left out without a word
 * (workers = 2, 4 under the default model = independent reads as "no gain"): SS_ECONFIG
 * naming the models that take it. (A file that lists every key at its default is fine.) */
static ss_status check_unused(const ss_config *c)
{
    for (int a = 0; a < AX_N; a++) {
        if (!ss_config_changed(c, "scenarios", axis_key[a])) continue;
        char takers[128] = "";
        int used = 0;
        for (int m = 0; m < SS_NMODELS; m++) {
            const ss_model_ops *ops = ss_model_get((ss_model)m);
            if (!(ops->axes & axis_bit[a])) continue;
            used |= in_sweep(c, (ss_model)m);
            size_t l = strlen(takers);
            snprintf(takers + l, sizeof takers - l, "%s%s", l ? ", " : "", ops->name);
        }
        if (!used)
            return ss_fail(SS_ECONFIG, "%s: [scenarios] %s is set, but no model of the sweep takes it (it applies to "
                           "model = %s): add that model to [scenarios] model, or leave %s out (the loader "
                           "models need a trace with fetch times: `stallsim info` says whether it has them)",
                           ss_config_origin(c, "scenarios", axis_key[a]), axis_key[a], takers, axis_key[a]);
    }
    for (int m = 0; m < SS_NMODELS; m++) {
        const char *name = ss_model_get((ss_model)m)->name;
        if (ss_config_changed(c, name, NULL) && !in_sweep(c, (ss_model)m))
            return ss_fail(SS_ECONFIG, "%s: [%s] %s is set, but the %s model that takes it is not in the sweep: add it to "
                           "[scenarios] model (model = %s), or leave [%s] out",
                           ss_config_origin(c, name, ss_config_changed_key(c, name)), name,
                           ss_config_changed_key(c, name), name, name, name);
    }
    return SS_OK;
}

/* The values of scenarios.heal with `each` expanded to every GPU: sets of GPUs (n = 0:
 * none). */
typedef struct {
    int n;
    ss_healset *set;
} heal_list;

static ss_status heal_values(const ss_config *c, int gpus, heal_list *h)
{
    long n = 0;
    for (int i = 0; i < c->n_heal; i++) n += c->heal[i].each ? (gpus > 0 ? gpus : 1) : 1;
    h->set = calloc((size_t)(n > 0 ? n : 1), sizeof *h->set);
    if (!h->set) return ss_fail(SS_ENOMEM, "out of memory");
    h->n = 0;
    const char *where = ss_config_origin(c, "scenarios", "heal");
    for (int i = 0; i < c->n_heal; i++) {
        int one = ss_healset_single(&c->heal[i].gpus);
        if (one >= 0)
            for (int j = 0; j < c->n_heal; j++)
                if (c->heal[j].each)
                    return ss_fail(SS_ECONFIG, "%s: scenarios.heal lists GPU %d beside each, which heals it already",
                                   where, one);
    }
    for (int i = 0; i < c->n_heal; i++) {
        const ss_heal_item *v = &c->heal[i];
        const long count = ss_healset_count(&v->gpus);
        char text[SS_HEAL_TEXT_MAX], names[40] = "";
        ss_healset_format(&v->gpus, text, sizeof text);
        if (count > 1) snprintf(names, sizeof names, " names GPU %d", ss_healset_max(&v->gpus));
        if ((count > 0 || v->each) && gpus == 1)
            return ss_fail(SS_ECONFIG, "%s: scenarios.heal: the trace has 1 GPU, and healing one replaces its fetch times "
                           "by the other GPUs' median: it needs 2 or more", where);
        if (count > 0 && gpus > 0 && ss_healset_max(&v->gpus) >= gpus)
            return ss_fail(SS_ECONFIG, "%s: scenarios.heal = %s%s, but the trace has %d GPU%s (0 to %d)", where, text,
                           names, gpus, gpus == 1 ? "" : "s", gpus - 1);
        if (count > 1 && gpus > 0 && count >= gpus)
            return ss_fail(SS_ECONFIG, "%s: scenarios.heal = %s heals every GPU of the trace: the healed GPUs take the "
                           "median of the GPUs not healed, so at least one must be left out", where, text);
        if (v->each)
            for (int g = 0; g < (gpus > 0 ? gpus : 1); g++) ss_healset_add(&h->set[h->n++], g); /* (one GPU: never fails) */
        else h->set[h->n++] = v->gpus;
    }
    return SS_OK;
}

/* The number of values of each axis for model ops (1 for axes it is not swept over). */
static void axis_counts(const ss_config *c, const heal_list *h, const ss_model_ops *ops, int n[AX_N])
{
    const int listed[AX_N] = {h->n,           c->n_workers,       c->n_persistent, c->n_prefetch,
                              c->n_fetch_scale, c->n_compute_scale, c->n_fetch,      c->n_start};
    for (int a = 0; a < AX_N; a++) n[a] = (ops->axes & axis_bit[a]) ? listed[a] : 1;
}

/* Scenario s of model m at axis positions pos[]; neutral values on the model's other axes. */
static void make_scenario(ss_scenario *s, const ss_config *c, const heal_list *h, ss_model m, const int pos[AX_N])
{
    const ss_model_ops *ops = ss_model_get(m);
    memset(s, 0, sizeof *s);
    s->model = m;
    if (ops->axes & SS_AXIS_HEAL) s->heal = h->set[pos[AX_HEAL]];
    s->heal_gpu = ss_healset_single(&s->heal);
    s->fetch_align = (ops->axes & SS_AXIS_FETCH_ALIGN) ? c->fetch_align[pos[AX_FETCH_ALIGN]] : SS_ALIGN_NONE;
    s->start_align = (ops->axes & SS_AXIS_START_ALIGN) ? c->start_align[pos[AX_START_ALIGN]] : SS_ALIGN_NONE;
    s->workers = (ops->axes & SS_AXIS_WORKERS) ? c->workers[pos[AX_WORKERS]] : (ss_autoval){0, 0};
    s->prefetch = (ops->axes & SS_AXIS_PREFETCH) ? c->prefetch[pos[AX_PREFETCH]] : 0;
    s->persistent = (ops->axes & SS_AXIS_PERSISTENT) ? c->persistent[pos[AX_PERSIST]] : SS_PERSIST_AUTO;
    s->fetch_scale = (ops->axes & SS_AXIS_FETCH_SCALE) ? c->fetch_scale[pos[AX_FETCH_SCALE]] : 1.0;
    s->compute_scale = (ops->axes & SS_AXIS_COMPUTE_SCALE) ? c->compute_scale[pos[AX_COMPUTE_SCALE]] : 1.0;
    s->baseline = ops->is_baseline(s);
    ss_scenario unhealed = *s;
    memset(&unhealed.heal, 0, sizeof unhealed.heal);
    unhealed.heal_gpu = -1;
    s->baseline_but_heal = s->heal_gpu >= 0 && ops->is_baseline(&unhealed);
    ops->name_of(s, s->name, sizeof s->name);
}

/* 1 when scenario s's workers are none: workers = 0 as listed, or auto (auto*F) on a
 * synchronous trace (sync) */
static int no_workers(const ss_autoval *w, int sync)
{
    return w->is_auto ? sync : w->value == 0.0;
}

/* 1 when PyTorch refuses scenario s: persistent workers without workers (no_workers,
 * persistent_workers = true); the sweep leaves it out where other_pw, another
 * persistent_workers value, gives those workers their scenario */
static int refused(const ss_scenario *s, int other_pw, int sync)
{
    return other_pw && no_workers(&s->workers, sync) && s->persistent == 1;
}

/* sweep = each: the scenarios of model m (every list at its first value, then each other value
 * of one list alone), less those PyTorch refuses, into out[0 ..) where out is not NULL (room
 * for max of them); returns their count */
static long each_scenarios(const ss_config *c, const heal_list *h, ss_model m, const int cnt[AX_N], int other_pw,
                           int sync, ss_scenario *out, long max)
{
    long n = 0;
    int pos[AX_N] = {0};
    for (int a = -1; a < AX_N; a++)
        for (int v = a < 0 ? 0 : 1; v < (a < 0 ? 1 : cnt[a]); v++) {
            if (a >= 0) pos[a] = v;
            ss_scenario one;
            make_scenario(&one, c, h, m, pos);
            if (!refused(&one, other_pw, sync) && n++ < max && out) out[n - 1] = one;
            if (a >= 0) pos[a] = 0;
        }
    return n;
}

ss_status ss_scenarios_build(const ss_config *c, ss_scenario **out, int *n)
{
    return ss_scenarios_build_gpus(c, 0, out, n);
}

ss_status ss_scenarios_build_gpus(const ss_config *c, int gpus, ss_scenario **out, int *n)
{
    return ss_scenarios_build_trace(c, gpus, 0, out, n);
}

ss_status ss_scenarios_build_trace(const ss_config *c, int gpus, int sync, ss_scenario **out, int *n)
{
    *out = NULL;
    *n = 0;
    ss_status st = check_repeats(c);
    if (st == SS_OK) st = check_unused(c);
    heal_list h = {0, NULL};
    if (st == SS_OK) st = heal_values(c, gpus, &h);
    if (st != SS_OK) {
        free(h.set);
        return st;
    }
    int other_pw = 0, zeros = 0, trues = 0; /* persistent_workers lists a value besides true */
    for (int i = 0; i < c->n_persistent; i++) {
        other_pw |= c->persistent[i] != 1;
        trues += c->persistent[i] == 1;
    }
    for (int i = 0; i < c->n_workers; i++) zeros += no_workers(&c->workers[i], sync);
    long total = 1;
    int cnt[AX_N];
    for (int m = 0; m < c->n_models; m++) {
        const ss_model_ops *ops = ss_model_get(c->models[m]);
        axis_counts(c, &h, ops, cnt);
        if (c->sweep_each) { /* each list alone: counted as the walk below makes them */
            total += each_scenarios(c, &h, c->models[m], cnt, other_pw, sync, NULL, 0);
            continue;
        }
        long per = 1;
        for (int a = 0; a < AX_N; a++) per *= cnt[a];
        /* less the refused ones: workers = 0 with persistent_workers = true */
        if (other_pw && (ops->axes & SS_AXIS_WORKERS) && (ops->axes & SS_AXIS_PERSISTENT))
            per -= per / ((long)cnt[AX_WORKERS] * cnt[AX_PERSIST]) * zeros * trues;
        total += per;
    }
    if (total - 1 > SS_MAX_SCENARIOS) { /* (the measured run is not the user's) */
        free(h.set);
        return ss_fail(SS_ECONFIG, "%s: the sweep has %ld scenarios; at most %d (split it into several runs)",
                       ss_config_origin(c, "scenarios", NULL),
                       total - 1, SS_MAX_SCENARIOS);
    }
    ss_scenario *sc = calloc((size_t)total, sizeof *sc);
    if (!sc) {
        free(h.set);
        return ss_fail(SS_ENOMEM, "out of memory for %ld scenarios", total);
    }
    int k = 0;
    const int zero[AX_N] = {0};
    make_scenario(&sc[k++], c, &h, ss_model_measured_id(), zero);
    for (int m = 0; m < c->n_models; m++) {
        axis_counts(c, &h, ss_model_get(c->models[m]), cnt);
        int pos[AX_N] = {0};
        if (c->sweep_each) { /* every list's first value, then each list's others alone */
            k += (int)each_scenarios(c, &h, c->models[m], cnt, other_pw, sync, sc + k, total - k);
            continue;
        }
        for (;;) { /* an odometer over the axes, the last axis turning fastest */
            ss_scenario one; /* (a refused last one must not be written past the array) */
            make_scenario(&one, c, &h, c->models[m], pos);
            if (!refused(&one, other_pw, sync) && k++ < total) sc[k - 1] = one;
            int a = AX_N - 1;
            while (a >= 0 && ++pos[a] == cnt[a]) pos[a--] = 0;
            if (a < 0) break;
        }
    }
    free(h.set);
    if (k != total) { /* (the count above and the odometer below skip alike) */
        free(sc);
        return ss_fail(SS_EINTERNAL, "built %d scenarios, counted %ld", k, total);
    }
    *out = sc;
    *n = k;
    return SS_OK;
}

int ss_scenarios_need_calibration(const ss_scenario *sc, int n, const ss_config *c, const ss_trace_meta *m)
{
    for (int i = 0; i < n; i++) {
        const ss_model_ops *ops = ss_model_get(sc[i].model);
        if (ops->needs_calibration && ops->needs_calibration(&sc[i], c, m)) return 1;
    }
    return 0;
}

ss_status ss_scenarios_resolve(ss_scenario *sc, int n, const ss_config *c, const ss_calib *cal,
                                const int *trace_workers)
{
    for (int i = 0; i < n; i++) {
        const ss_model_ops *ops = ss_model_get(sc[i].model);
        ss_status st = ops->resolve ? ops->resolve(&sc[i], c, cal, trace_workers) : SS_OK;
        if (st != SS_OK) return st;
    }
    return SS_OK;
}

int ss_scenarios_want_heal(const ss_scenario *sc, int n)
{
    for (int i = 0; i < n; i++)
        if (sc[i].heal.n > 0) return 1;
    return 0;
}

int ss_scenarios_want_median(const ss_scenario *sc, int n)
{
    for (int i = 0; i < n; i++)
        if (sc[i].fetch_align == SS_ALIGN_MEDIAN) return 1;
    return 0;
}
