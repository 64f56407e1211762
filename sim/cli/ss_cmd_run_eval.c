/* ss_cmd_run_eval.c - `stallsim run`'s evaluation loader ([trace] eval_path): its trace
 * replayed under the run's sweep, and what that adds to each row's whole run
 * (sim/models/MODELS-pipeline.md, "The job's evaluation loader"). */
#include "ss_cmd_run_eval.h"

#include <math.h>
#include <stdarg.h>
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

/* The scenario of the evaluation sweep named name, or -1 */
static int named(const eval_sweep *e, const char *name)
{
    for (int k = 0; k < e->nsc; k++)
        if (!strcmp(e->sc[k].name, name)) return k;
    return -1;
}

/* Rank 0: the scenario of the evaluation sweep named as training scenario sc (less its heal,
 * the last part of a name, where the evaluation sweep heals none), or -1. Where an evaluation
 * loader without workers lacks it (persistent_workers = true, which PyTorch refuses without
 * workers), the same scenario with persistent_workers = false, else auto: a loader without
 * workers has none to keep. */
static int counterpart(const eval_sweep *e, const ss_scenario *sc, int no_heal)
{
    char name[sizeof sc->name];
    snprintf(name, sizeof name, "%s", sc->name);
    char *h = no_heal ? strstr(name, "_heal-") : NULL;
    if (h) *h = '\0';
    int k = named(e, name);
    char *pw = strstr(name, "_pw-true");
    if (k >= 0 || !pw || ss_trace_meta_has_workers(ss_trace_meta_of(e->t)) != 0) return k;
    char alt[sizeof name];
    snprintf(alt, sizeof alt, "%.*s_pw-false%s", (int)(pw - name), name, pw + strlen("_pw-true"));
    if ((k = named(e, alt)) >= 0) return k;
    snprintf(alt, sizeof alt, "%.*s%s", (int)(pw - name), name, pw + strlen("_pw-true"));
    return named(e, alt);
}

/* Rank 0: the evaluation trace's start less the training trace's, in seconds, from their
 * time_origin attributes (both with a time zone or both without). */
static ss_status origin_offset(const ss_trace_meta *tm, const ss_trace_meta *em, const char *where,
                               const char *eval_path, double *d)
{
    int64_t a, b;
    int za = 0, zb = 0;
    const int ta = ss_time_parse_zone(tm->time_origin, &a, &za), tb = ss_time_parse_zone(em->time_origin, &b, &zb);
    if (ta != 0 || tb != 0)
        return ss_fail(SS_EDATA, "%s: %s: the %s trace's time_origin (\"%s\") is not an ISO 8601 time, so the "
                                 "evaluation passes cannot be placed beside the training passes",
                       where, eval_path, tb != 0 ? "evaluation" : "training", tb != 0 ? em->time_origin : tm->time_origin);
    if (za != zb)
        return ss_fail(SS_EDATA, "%s: %s: its time_origin (\"%s\") and the training trace's (\"%s\") are not two "
                                 "timestamps of one clock (both with a time zone or both without), so its passes "
                                 "cannot be placed beside the training trace's",
                       where, eval_path, em->time_origin, tm->time_origin);
    *d = (double)(b - a) * 1e-9;
    return SS_OK;
}

/* What the check of one loop's turns reads: the evaluation trace's first GPUs and rows
 * (a wrong pairing shows on any of them), and rows per read. */
enum { TURN_GPUS = 8, TURN_ROWS = 20000, TURN_SLAB = 4096 };
#define TURN_TOL 1e-3 /* s: an ask this close to a wait's ends is not inside it */

/* Rank 0: the training loop's asks on GPU g that fall while the same GPU's loop waited in
 * the evaluation loader's next() (from an evaluation ask to its batch's train_start, d
 * added: the evaluation trace's start less the training trace's). One loop waits in one
 * next() at a time, so a job's two traces have none. *inside receives their count, *at
 * the first one's time in the training trace and *gpu its GPU; *within the evaluation
 * waits that lie between two training asks of one epoch (an evaluation every few steps);
 * *same the training asks whose own wait the evaluation trace holds, of *waits compared
 * (most: its rows are the training loop's). Independent reads. */
static ss_status asks_inside(ss_trace_file *t, ss_trace_file *et, double d, long *inside, double *at, int *gpu,
                             long *within, long *same, long *waits)
{
    const ss_trace_meta *tm = ss_trace_meta_of(t), *em = ss_trace_meta_of(et);
    const int ng = em->gpus < TURN_GPUS ? em->gpus : TURN_GPUS;
    const long ne = em->iterations < TURN_ROWS ? em->iterations : TURN_ROWS;
    *inside = *within = *same = *waits = 0;
    *at = NAN;
    *gpu = -1;
    if (ng < 1 || ne < 1 || tm->iterations < 1) return SS_OK;
    const long slab = TURN_SLAB;
    double *lo = malloc((size_t)ne * (size_t)ng * sizeof *lo), *hi = malloc((size_t)ne * (size_t)ng * sizeof *hi);
    /* (both traces' reads take at most ng columns) */
    double *ts = malloc((size_t)slab * (size_t)ng * sizeof *ts), *it = malloc((size_t)slab * (size_t)ng * sizeof *it),
           *sl = malloc((size_t)slab * (size_t)ng * sizeof *sl);
    long *nw = calloc((size_t)ng, sizeof *nw), *p = calloc((size_t)ng, sizeof *p);
    double *prev = malloc((size_t)ng * sizeof *prev); /* each GPU's last training ask, and its epoch */
    int32_t *pe = malloc((size_t)ng * sizeof *pe), *ep = malloc((size_t)slab * sizeof *ep);
    ss_status st = lo && hi && ts && it && sl && nw && p && prev && pe && ep ? SS_OK : ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; st == SS_OK && g < ng; g++) prev[g] = -INFINITY, pe[g] = INT32_MIN;
    /* the evaluation loop's waits of more than twice the tolerance, per GPU, in time order */
    for (long r0 = 0; st == SS_OK && r0 < ne; r0 += slab) {
        const long n = ne - r0 < slab ? ne - r0 : slab;
        st = ss_trace_read_loop_columns(et, r0, n, 0, ng, ts, it, sl);
        for (long r = 0; st == SS_OK && r < n; r++)
            for (int g = 0; g < ng; g++) {
                const double a = ts[r * ng + g] - sl[r * ng + g] + d, b = ts[r * ng + g] + d;
                if (b - a > 2.0 * TURN_TOL) {
                    lo[g * ne + nw[g]] = a;
                    hi[g * ne + nw[g]++] = b;
                }
            }
    }
    /* the training loop's asks on the same GPUs, walked beside them until every GPU's
     * evaluation waits are passed */
    const int tg = ng < tm->gpus ? ng : tm->gpus;
    int left = 0;
    for (int g = 0; g < tg; g++) left += nw[g] > 0, *waits += nw[g];
    for (long r0 = 0; st == SS_OK && left > 0 && r0 < tm->iterations; r0 += slab) {
        const long n = tm->iterations - r0 < slab ? tm->iterations - r0 : slab;
        st = ss_trace_read_loop_columns(t, r0, n, 0, tg, ts, it, sl);
        if (st == SS_OK) st = ss_trace_read_epochs(t, r0, n, ep);
        left = 0;
        for (long r = 0; st == SS_OK && r < n; r++)
            for (int g = 0; g < tg; g++) {
                const double ask = ts[r * tg + g] - sl[r * tg + g];
                for (; p[g] < nw[g] && hi[g * ne + p[g]] - TURN_TOL <= ask; p[g]++)
                    *within += pe[g] == ep[r] && lo[g * ne + p[g]] > prev[g]; /* (after this epoch's ask before) */
                prev[g] = ask;
                pe[g] = ep[r];
                /* a wait that begins at a training ask and ends at its batch, both to the
                 * nanosecond, is that ask's own wait: the evaluation trace holds the
                 * training loop's rows (where most of its waits are such) */
                if (p[g] < nw[g] && fabs(lo[g * ne + p[g]] - ask) < 1e-9 &&
                    fabs(hi[g * ne + p[g]] - ts[r * tg + g]) < 1e-9)
                    (*same)++;
                else if (p[g] < nw[g] && lo[g * ne + p[g]] + TURN_TOL < ask) {
                    if (!(*inside)++ || ask < *at) {
                        *at = ask;
                        *gpu = g;
                    }
                }
            }
        for (int g = 0; g < tg; g++) left += p[g] < nw[g];
    }
    free(lo);
    free(hi);
    free(ts);
    free(it);
    free(sl);
    free(nw);
    free(p);
    free(prev);
    free(pe);
    free(ep);
    return st;
}

/* *warn, where it holds none yet: the "warning: " line printf makes of fmt (malloc'd; left
 * NULL without memory) */
static void set_warning(char **warn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_warning(char **warn, const char *fmt, ...)
{
    if (*warn) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(*warn = malloc((size_t)n + 1))) return;
    va_start(ap, fmt);
    vsnprintf(*warn, (size_t)n + 1, fmt, ap);
    va_end(ap);
}

/* Rank 0: sum->other_loader from the evaluation sweep (MODELS-pipeline.md, "The job's
 * evaluation loader"). */
static ss_status combine(const ss_config *cfg, const char *where, ss_trace_file *t, const ss_scenario *sc,
                         int nsc, ss_summary *sum, eval_sweep *e, char **warn)
{
    const ss_trace_meta *tm = ss_trace_meta_of(t), *em = ss_trace_meta_of(e->t);
    double d = 0.0;
    ss_status st = origin_offset(tm, em, where, cfg->eval_path, &d);
    if (st != SS_OK) return st;
    const int mt = ss_summary_measured(sum), me = ss_summary_measured(&e->sum);
    const double Rt = ss_summary_run_time(sum, mt), Re = ss_summary_run_time(&e->sum, me);
    const double st0 = sum->run_start, se0 = e->sum.run_start + d;
    if (!isfinite(Rt) || !isfinite(Re) || !isfinite(st0) || !isfinite(se0))
        return ss_fail(SS_EDATA, "%s: %s: the whole run of the training or the evaluation trace is not known (a "
                                 "trace without rows?)", where, cfg->eval_path);
    if (fabs(se0 - st0) < 1e-6 && fabs(Re - Rt) < 1e-6)
        return ss_fail(SS_ECONFIG, "%s: %s holds the training trace's own run (the same passes at the same times); "
                                   "name the evaluation loader's trace, recorded with a Recorder of its own prefix",
                       where, cfg->eval_path);
    /* the two loaders of one job take turns: an evaluation after every epoch lies between the
     * training passes, and at most one pass (a last evaluation, or one before training) outside */
    const double gap = fmax(se0 - (st0 + Rt), st0 - (se0 + Re));
    if (gap > Rt)
        return ss_fail(SS_EDATA, "%s: %s: its passes lie %.1f s %s the training trace's run, farther than that run "
                                 "lasts (%.1f s): it is another job's evaluation loader, or the two traces' "
                                 "time_origin attributes disagree",
                       where, cfg->eval_path, gap, se0 > st0 ? "after" : "before", Rt);
    if (gap > 0.0) { /* (one pass outside is a last evaluation; several, none between the epochs) */
        long rows = 0, eval_epochs = 0;
        st = ss_trace_count_epochs(e->t, SS_EPOCH_ALL, 0, &rows, &eval_epochs, NULL);
        if (st != SS_OK) return st;
        if (eval_epochs > 1)
            set_warning(warn, "warning: %s: the evaluation trace's %ld passes lie %.1f s %s the training trace's run, "
                              "none between its epochs; were they recorded in the same job?\n",
                        cfg->eval_path, eval_epochs, gap, se0 > st0 ? "after" : "before");
    }
    long inside = 0, within = 0, same = 0, waits = 0;
    double at = NAN;
    int gpu = -1;
    st = asks_inside(t, e->t, d, &inside, &at, &gpu, &within, &same, &waits);
    if (st != SS_OK) return st;
    if (same > 0 && 2 * same > waits)
        return ss_fail(SS_ECONFIG, "%s: %s holds rows of the training trace (%ld of its %ld waits are a training ask's "
                                   "own, to the nanosecond); name the evaluation loader's trace, recorded with a Recorder "
                                   "of its own prefix",
                       where, cfg->eval_path, same, waits);
    if (inside == 0 && within > 0) /* an evaluation every few steps, inside the epochs */
        set_warning(warn, "warning: %s: the evaluation loader ran inside training epochs (an evaluation every few "
                          "steps): the training iterations that hold it keep it as measured compute, so the "
                          "steady-state figures (steady%%) miss its changes; the whole run (run%%) replays it\n",
                    cfg->eval_path);
    if (inside > 0)
        return ss_fail(SS_EDATA, "%s: %s: GPU %d's training loop asked for a batch while it waited for an evaluation "
                                 "batch (%ld such asks, the first %.3f s after the training trace's time_origin); one "
                                 "loop waits in one loader at a time, so this is not the job's evaluation loader, or "
                                 "the two traces' time_origin attributes disagree",
                       where, cfg->eval_path, gpu, inside, at);
    const double span = fmax(st0 + Rt, se0 + Re) - fmin(st0, se0);
    sum->other_loader = malloc((size_t)nsc * sizeof *sum->other_loader);
    if (!sum->other_loader) return ss_fail(SS_ENOMEM, "out of memory for the evaluation loader");
    for (int j = 0; j < nsc; j++) {
        const int k = j == mt ? me : counterpart(e, &sc[j], e->one_gpu);
        const double r = k >= 0 ? ss_summary_run_time(&e->sum, k) : NAN;
        if (!isfinite(r)) { /* (counterpart finds every scenario the sweeps share: a safety net) */
            free(sum->other_loader);
            sum->other_loader = NULL;
            return ss_fail(SS_EDATA, "%s: %s: scenario %s has no whole run on the evaluation trace", where,
                           cfg->eval_path, sc[j].name);
        }
        sum->other_loader[j] = span - Rt + (r - Re);
    }
    /* what neither loader's replay holds: the job's span less each loader's own time
     * (its rows, starts and stops); an evaluation inside the epochs lies in training rows */
    sum->kept_between = fmax(0.0, span - (Rt - sum->kept_between) - (within > 0 ? 0.0 : Re - e->sum.kept_between));
    sum->eval_own = Re - e->sum.kept_between;
    sum->eval_trace = cfg->eval_path;
    return SS_OK;
}

ss_status ss_run_eval_loader(const ss_comm *c, const ss_config *cfg, const char *origin, ss_trace_file *t,
                             const ss_scenario *sc, int nsc, ss_summary *sum, ss_status st, int report, char **warn)
{
    if (warn) *warn = NULL;
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
    ss_models_for_eval_loader(&e.cfg); /* (the training loop's own settings stay its own) */
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
        st = ss_comm_any_failed(c, st);
        if (st == SS_OK && report) ss_trace_report_warnings(e.t, c); /* (collective: every rank is here alike) */
    }
    char *w = NULL;
    if (st == SS_OK && c->rank == 0) st = combine(cfg, where, t, sc, nsc, sum, &e, &w);
    if (w && warn) *warn = w;
    else if (w) {
        fprintf(stderr, "stallsim: %s", w);
        free(w);
    }
    st = ss_comm_any_failed(c, st);
    eval_free(&e);
    return st;
}
