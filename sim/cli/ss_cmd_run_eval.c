/* ss_cmd_run_eval.c - `stallsim run`'s evaluation loader ([trace] eval_path): its trace
 * replayed under the run's sweep, and what that adds to each row's whole run
 * (sim/models/MODELS-pipeline.md, "The job's evaluation loader"). */
#include "ss_cmd_run_eval.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ss_calibrate.h"
#include "ss_sweep.h"
#include "ss_timefmt.h"

/* The evaluation trace's sweep: the training sweep's scenarios on the other trace. */
typedef struct {
    ss_config cfg; /* a shallow copy of the run's, for the other trace: never freed */
    ss_trace_file *t;
    ss_scenario *sc;
    int nsc;
    ss_calib cal;
    int have_cal;
    ss_summary sum;
    int one_gpu; /* the evaluation loader of rank 0 alone beside a training trace of several GPUs */
} eval_sweep;

static void eval_free(eval_sweep *e)
{
    if (e->t) ss_trace_close(e->t);
    if (e->have_cal) ss_calib_free(&e->cal);
    ss_summary_free(&e->sum);
    free(e->sc);
}

/* The sweep's scenarios for the evaluation trace, as `run` builds them for the training
 * trace (heal lists need its GPUs; a trace without workers takes workers = auto as 0). */
static ss_status build_scenarios(eval_sweep *e)
{
    const ss_trace_meta *m = ss_trace_meta_of(e->t);
    const int sync = ss_trace_meta_has_workers(m) == 0;
    return ss_scenarios_build_trace(&e->cfg, m->gpus, sync, &e->sc, &e->nsc);
}

/* Rank 0: the scenario of the evaluation sweep named as training scenario sc (less its heal,
 * the last part of a name, where the evaluation sweep heals none), or -1. */
static int counterpart(const eval_sweep *e, const ss_scenario *sc, int no_heal)
{
    char name[sizeof sc->name];
    snprintf(name, sizeof name, "%s", sc->name);
    char *h = no_heal ? strstr(name, "_heal-") : NULL;
    if (h) *h = '\0';
    for (int k = 0; k < e->nsc; k++)
        if (!strcmp(e->sc[k].name, name)) return k;
    return -1;
}

/* Rank 0: the evaluation trace's start less the training trace's, in seconds, from their
 * time_origin attributes (both with a time zone or both without). */
static ss_status origin_offset(const ss_trace_meta *tm, const ss_trace_meta *em, const char *eval_path, double *d)
{
    int64_t a, b;
    int za = 0, zb = 0;
    if (ss_time_parse_zone(tm->time_origin, &a, &za) != 0 || ss_time_parse_zone(em->time_origin, &b, &zb) != 0 ||
        za != zb)
        return ss_fail(SS_EDATA, "%s: its time_origin (\"%s\") and the training trace's (\"%s\") are not two timestamps "
                                 "of one clock (both with a time zone or both without), so its passes cannot be placed "
                                 "beside the training trace's", eval_path, em->time_origin, tm->time_origin);
    *d = (double)(b - a) * 1e-9;
    return SS_OK;
}

/* Rank 0: sum->other_loader from the evaluation sweep (MODELS-pipeline.md, "The job's
 * evaluation loader"). */
static ss_status combine(const ss_config *cfg, const char *where, const ss_trace_meta *tm, const ss_scenario *sc,
                         int nsc, ss_summary *sum, eval_sweep *e)
{
    const ss_trace_meta *em = ss_trace_meta_of(e->t);
    double d = 0.0;
    ss_status st = origin_offset(tm, em, cfg->eval_path, &d);
    if (st != SS_OK) return st;
    const int mt = ss_summary_measured(sum), me = ss_summary_measured(&e->sum);
    const double Rt = ss_summary_run_time(sum, mt), Re = ss_summary_run_time(&e->sum, me);
    const double st0 = sum->run_start, se0 = e->sum.run_start + d;
    if (!isfinite(Rt) || !isfinite(Re) || !isfinite(st0) || !isfinite(se0))
        return ss_fail(SS_EDATA, "%s: the whole run of the training or the evaluation trace is not known (a trace "
                                 "without rows?)", cfg->eval_path);
    if (fabs(se0 - st0) < 1e-6 && fabs(Re - Rt) < 1e-6)
        return ss_fail(SS_ECONFIG, "%s: %s holds the training trace's own run (the same passes at the same times); "
                                   "name the evaluation loader's trace, recorded with a Recorder of its own prefix",
                       where, cfg->eval_path);
    /* the two loaders of one job take turns: an evaluation after every epoch lies between the
     * training passes, and at most one pass (a last evaluation, or one before training) outside */
    const double gap = fmax(se0 - (st0 + Rt), st0 - (se0 + Re));
    const long eval_epochs = em->epochs > 0 ? em->epochs : 1;
    if (gap > Rt || (gap > 0.0 && eval_epochs > 1))
        fprintf(stderr, "stallsim: warning: %s: the evaluation trace's %ld passes lie %.1f s %s the training trace's "
                        "run, none between its epochs; were they recorded in the same job?\n",
                cfg->eval_path, eval_epochs, gap, se0 > st0 ? "after" : "before");
    const double span = fmax(st0 + Rt, se0 + Re) - fmin(st0, se0);
    sum->other_loader = malloc((size_t)nsc * sizeof *sum->other_loader);
    if (!sum->other_loader) return ss_fail(SS_ENOMEM, "out of memory for the evaluation loader");
    for (int j = 0; j < nsc; j++) {
        const int k = j == mt ? me : counterpart(e, &sc[j], e->one_gpu);
        const double r = k >= 0 ? ss_summary_run_time(&e->sum, k) : NAN;
        if (!isfinite(r)) {
            free(sum->other_loader);
            sum->other_loader = NULL;
            if (k < 0 && ss_trace_meta_has_workers(em) == 0)
                return ss_fail(SS_ECONFIG, "%s: the evaluation loader has no workers, so its sweep has no scenario %s "
                                           "(PyTorch refuses persistent workers without workers): give "
                                           "persistent_workers = true only with a number of workers",
                               where, sc[j].name);
            return ss_fail(SS_EDATA, "%s: scenario %s has no whole run on the evaluation trace", cfg->eval_path,
                           sc[j].name);
        }
        sum->other_loader[j] = span - Rt + (r - Re);
    }
    /* what neither loader's replay holds: the job's span less each loader's own time
     * (its rows, starts and stops) */
    sum->kept_between = fmax(0.0, span - (Rt - sum->kept_between) - (Re - e->sum.kept_between));
    sum->eval_own = Re - e->sum.kept_between;
    sum->eval_trace = cfg->eval_path;
    return SS_OK;
}

ss_status ss_run_eval_loader(const ss_comm *c, const ss_config *cfg, const char *origin, ss_trace_file *t,
                             const ss_scenario *sc, int nsc, ss_summary *sum, ss_status st)
{
    if (st != SS_OK || !cfg->eval_path[0]) return st;
    char where[SS_PATH_MAX + 64];
    if (origin) snprintf(where, sizeof where, "%s", origin);
    else snprintf(where, sizeof where, "%s: [trace] eval_path", ss_config_origin(cfg, "trace", "eval_path"));
    eval_sweep e;
    memset(&e, 0, sizeof e);
    e.cfg = *cfg;
    snprintf(e.cfg.trace_path, sizeof e.cfg.trace_path, "%s", cfg->eval_path);
    e.cfg.warmup_iterations = 0; /* only its whole run counts: no selection to meet */
    e.cfg.epoch_all = 1;
    e.cfg.per_iteration = 0;
    st = ss_trace_open(e.cfg.trace_path, c, &e.t);
    if (st != SS_OK) ss_errprefix("%s", where);
    st = ss_comm_any_failed(c, st);
    const ss_trace_meta *tm = ss_trace_meta_of(t), *em = st == SS_OK ? ss_trace_meta_of(e.t) : NULL;
    /* an evaluation loader of rank 0 alone (a Recorder of world_size 1) has one GPU: its
     * sweep heals none (the other GPUs' median has no GPU to come from) */
    e.one_gpu = st == SS_OK && em->gpus == 1 && tm->gpus > 1;
    if (e.one_gpu) {
        e.cfg.n_heal = 1;
        memset(&e.cfg.heal[0], 0, sizeof e.cfg.heal[0]);
    } else if (st == SS_OK && em->gpus != tm->gpus)
        st = ss_fail(SS_ECONFIG, "%s: %s has %d GPUs, the training trace %d: record the evaluation loader on every "
                                 "rank that iterates it (a Recorder of its own prefix on each), or on rank 0 alone "
                                 "with world_size=1",
                     where, cfg->eval_path, em->gpus, tm->gpus);
    if (st == SS_OK && !ss_trace_meta_has_fetch(em))
        st = ss_fail(SS_ECONFIG, "%s: %s has no fetch timings (it shows only when each rank waited), so its loader "
                                 "cannot be replayed: record it with scripts/stallsim_record.py",
                     where, cfg->eval_path);
    /* (the checks above read the trace's metadata, the same on every rank: all come here alike) */
    if (st == SS_OK) { /* the evaluation sweep itself; its errors say which trace */
        st = build_scenarios(&e);
        if (st == SS_OK && ss_scenarios_need_calibration(e.sc, e.nsc, &e.cfg, em)) {
            st = ss_calibrate_comm(c, e.t, SS_CALIB_ROWS, &e.cal);
            e.have_cal = st == SS_OK;
        }
        st = ss_comm_any_failed(c, st);
        if (st == SS_OK)
            st = ss_scenarios_resolve(e.sc, e.nsc, &e.cfg, e.have_cal ? &e.cal : NULL, em->loader_workers);
        st = ss_comm_any_failed(c, st);
        if (st == SS_OK) st = ss_sweep_run(c, &e.cfg, e.t, e.sc, e.nsc, NULL, 0, &e.sum, NULL);
        if (st == SS_OK) st = ss_trace_check_unchanged(e.t);
        if (st != SS_OK) ss_errprefix("%s (the evaluation loader's trace %s)", where, cfg->eval_path);
    }
    if (st == SS_OK && c->rank == 0) st = combine(cfg, where, tm, sc, nsc, sum, &e);
    st = ss_comm_any_failed(c, st);
    eval_free(&e);
    return st;
}
