/* ss_columns.c - the summary column table and its evaluator. */
#include "ss_columns.h"

#include <math.h>
#include <string.h>

#include "ss_model.h"

#define MEAN(n, m, unit, help) {n "_mean", SS_COL_F64, unit, "every row", help, SS_CV_MEAN, m, SS_COLF_H5, 0}
#define MEAN_CMP(n, m, unit, help) \
    {n "_mean", SS_COL_F64, unit, "every row", help, SS_CV_MEAN, m, SS_COLF_H5 | SS_COLF_COMPARE | SS_COLF_COMPARE_PCT, 0}
#define STD(n, m, unit, help) {n "_std", SS_COL_F64, unit, "rows of 2 or more iterations", help, SS_CV_STD, m, SS_COLF_H5, 0}
static const ss_column columns[] = {
    {"scenario", SS_COL_STR, "", "every row", "the scenario's unique name; the first row is measured", SS_CV_SCENARIO, 0, SS_COLF_H5 | SS_COLF_COMPARE, SS_NAME_MAX},
    {"model", SS_COL_STR, "", "every row", "measured for the trace's own row, else the replay model", SS_CV_MODEL, 0, SS_COLF_H5 | SS_COLF_COMPARE, 16},
    {"label", SS_COL_STR, "", "every row", "the scenario as run's table labels it (its model and settings, in full)",
     SS_CV_LABEL, 0, SS_COLF_H5 | SS_COLF_COMPARE, SS_LABEL_MAX},
    {"fetch_align", SS_COL_STR, "", "replay rows", "how the GPUs' fetch times of an iteration were aligned (none: as measured)", SS_CV_FETCH_ALIGN, 0, SS_COLF_H5, 8},
    {"start_align", SS_COL_STR, "", "replay rows", "how the GPUs' loader starts of an iteration were aligned (none: as measured)", SS_CV_START_ALIGN, 0, SS_COLF_H5, 8},
    {"iterations", SS_COL_LONG, "1", "every row", "iterations summarised: those of the selected epochs past the warm-up",
     SS_CV_ITERATIONS, 0, SS_COLF_H5 | SS_COLF_COMPARE, 0},
    MEAN_CMP("iter_time", SS_M_ITER, "s", "mean iteration time, the stall included"),
    STD("iter_time", SS_M_ITER, "s", "sample standard deviation (n - 1) of the iteration time"),
    MEAN_CMP("stall", SS_M_STALL, "s", "mean stall: the largest stall over GPUs per iteration"),
    STD("stall", SS_M_STALL, "s", "sample standard deviation (n - 1) of the stall"),
    MEAN_CMP("delay", SS_M_DELAY, "s", "mean delay: largest minus smallest stall over GPUs"),
    STD("delay", SS_M_DELAY, "s", "sample standard deviation (n - 1) of the delay"),
    {"effective_delay_pct", SS_COL_F64, "%", "every row", "share of iterations whose delay exceeds [summary] effective_delay_threshold",
     SS_CV_EFFECTIVE_DELAY, 0, SS_COLF_H5 | SS_COLF_COMPARE, 0},
    MEAN("start_diff", SS_M_START, "s", "mean spread of the loader starts over GPUs (max - min)"),
    STD("start_diff", SS_M_START, "s", "sample standard deviation (n - 1) of the start spread"),
    MEAN("fetch_diff", SS_M_FETCH, "s", "mean spread of the fetch times over GPUs (max - min)"),
    STD("fetch_diff", SS_M_FETCH, "s", "sample standard deviation (n - 1) of the fetch spread"),
    {"iter_time_change_pct", SS_COL_F64, "%", "every row but the measured one",
     "100 x (iter_time_mean / the measured row's - 1)", SS_CV_CHANGE, 0, SS_COLF_H5, 0},
    {"error_class", SS_COL_STR, "", "rows of models with intervals (pipeline)",
     "the class of prediction whose errors set the row's interval (sim/models/MODELS-pipeline.md, "
     "\"Intervals\")", SS_CV_ERROR_CLASS, 0, SS_COLF_H5, 32},
    {"iter_time_lo", SS_COL_F64, "s", "rows of models with intervals",
     "lower bound of the 90 % interval of the real iter_time_mean. The class's scaled error quantiles set "
     "it, times the class's model error and the trace's own noise in quadrature", SS_CV_ITER_LO, 0, SS_COLF_H5, 0},
    {"iter_time_hi", SS_COL_F64, "s", "rows of models with intervals", "upper bound of the 90 % interval of the real iter_time_mean", SS_CV_ITER_HI, 0, SS_COLF_H5,
     0},
    {"run_time", SS_COL_F64, "s", "every row",
     "the whole run: the iteration times of every row of every epoch summed, in wall time, with the time "
     "between the epochs' passes and, with pass stops, the last pass's shutdown (MODELS-pipeline.md, \"Between "
     "passes\"). Warm-up and unselected epochs count too. A row's iteration time is its longest over the GPUs; "
     "where the GPUs' loops ask apart, those summed exceed the passes' wall time, and every row's sum takes the "
     "measured ratio of the two (\"The rows in wall time\"), so that the measured row's run_time is the trace's wall "
     "time, from its first pass's start to the job's end (where the trace's asks follow on from its iterations, "
     "as a recorder's do)", SS_CV_RUN_TIME, 0, SS_COLF_H5 | SS_COLF_COMPARE | SS_COLF_COMPARE_PCT, 0},
    {"run_time_lo", SS_COL_F64, "s", "rows of models with intervals", "lower bound of the 90 % interval of the real run_time",
     SS_CV_RUN_LO, 0, SS_COLF_H5, 0},
    {"run_time_hi", SS_COL_F64, "s", "rows of models with intervals", "upper bound of the 90 % interval of the real run_time", SS_CV_RUN_HI, 0, SS_COLF_H5, 0},
    {"run_change_pct", SS_COL_F64, "%", "every row but the measured one", "100 x (run_time / the measured row's - 1)",
     SS_CV_RUN_CHANGE, 0, SS_COLF_H5, 0},
    {"epoch_start_time", SS_COL_F64, "s", "every row",
     "an epoch's start, mean over the epochs: its time between passes (MODELS-pipeline.md, \"Between passes\") "
     "and the largest stall of its first row. It is the old workers stopping, the loop's own work between epochs, "
     "the new workers starting and the first fetches", SS_CV_EPOCH_START, 0, SS_COLF_H5 | SS_COLF_COMPARE, 0},
    {"workers", SS_COL_INT, "1", "models swept over workers", "loader workers per GPU, with auto resolved to a number", SS_CV_WORKERS, 0,
     SS_COLF_H5 | SS_COLF_JSON_OMIT, 0},
    {"persistent_workers", SS_COL_STR, "", "models swept over persistent_workers, rows with workers",
     "true where the row's workers are kept across epochs, false where they start anew at every epoch; auto "
     "resolved to the trace's (false where the trace had no workers or does not say)", SS_CV_PERSISTENT, 0, SS_COLF_H5 | SS_COLF_JSON_OMIT, 8},
    {"prefetch", SS_COL_INT, "1", "models swept over prefetch", "prefetch factor: batches in flight per worker", SS_CV_PREFETCH, 0,
     SS_COLF_H5 | SS_COLF_JSON_OMIT, 0},
    {"fetch_scale", SS_COL_F64, "1", "models swept over fetch_scale", "the scenario's fetch_scale: factor on the storage part of every fetch", SS_CV_FETCH_SCALE,
     0, SS_COLF_H5 | SS_COLF_JSON_OMIT, 0},
    {"compute_scale", SS_COL_F64, "1", "models swept over compute_scale", "the scenario's compute_scale: factor on every compute time",
     SS_CV_COMPUTE_SCALE, 0, SS_COLF_H5 | SS_COLF_JSON_OMIT, 0},
    {"fidelity_iter_time_err_pct", SS_COL_F64, "%", "baseline rows of models that report fidelity",
     "how far the replay of the trace as it ran is from it: 100 x (replayed / measured iter_time_mean - 1)", SS_CV_FIDELITY_ERR, 0, SS_COLF_H5, 0},
    {"fidelity_iter_time_mape_pct", SS_COL_F64, "%", "baseline rows of models that report fidelity",
     "mean over the iterations of 100 x |replayed - measured| / measured iteration time", SS_CV_FIDELITY_MAPE, 0, SS_COLF_H5, 0},
    {"heal_gpu", SS_COL_INT, "1", "rows that heal one GPU",
     "the healed GPU. Its fetch times (pipeline: and loader settings) became the other GPUs' median",
     SS_CV_HEAL_GPU, 0, SS_COLF_H5 | SS_COLF_JSON_OMIT, 0},
    {"heal_gpus", SS_COL_STR, "", "rows that heal GPUs",
     "the healed GPUs as scenarios.heal writes them: G, G+H or G-H. GPUs healed together each take the "
     "median of the GPUs not healed",
     SS_CV_HEAL_GPUS, 0, SS_COLF_H5 | SS_COLF_JSON_OMIT, SS_HEAL_TEXT_MAX},
    {"cpu_load_pct", SS_COL_F64, "%", "traces that record the CPU times and pools of cores",
     "CPU the run would keep busy, in % of its cores. It is the busiest pool's recorded CPU per iteration "
     "(loaders and training processes) over its cores x iter_time_mean. Above 100 % the prediction is optimistic", SS_CV_CPU_LOAD, 0, SS_COLF_H5 | SS_COLF_COMPARE, 0},
    {"cpu_stretch", SS_COL_F64, "1", "pipeline rows with CPU sharing",
     "CPU sharing's stretch: how many times longer CPU work takes than with a core to itself, at the row's "
     "load. The largest over the pools of cores", SS_CV_CPU_STRETCH, 0, SS_COLF_H5, 0},
    {"read_stretch", SS_COL_F64, "1", "pipeline rows with storage sharing ([pipeline] storage_parallel)",
     "storage sharing's factor on the storage part of each fetch, at the row's reads in flight. 1: as in the "
     "trace", SS_CV_READ_STRETCH, 0, SS_COLF_H5, 0},
    {"straggler_share", SS_COL_F64, "1", "every row",
     "per GPU: share of iterations in which that GPU alone had the largest stall, from 0 to 1. Ties count "
     "for no GPU", SS_CV_STRAGGLER, 0,
     SS_COLF_PER_GPU, 0},
};
#undef MEAN
#undef MEAN_CMP
#undef STD

const ss_column *ss_columns(int *n)
{
    *n = (int)(sizeof columns / sizeof columns[0]);
    return columns;
}

const ss_column *ss_column_find(const char *name)
{
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
        if (!strcmp(columns[i].name, name)) return &columns[i];
    return NULL;
}

/* A number that is NaN does not apply. */
static int num(double x, ss_colval *v)
{
    v->d = x;
    return !isnan(x);
}

int ss_column_get(const ss_column *c, const ss_summary *s, int j, int g, ss_colval *v)
{
    const ss_scenario *sc = &s->sc[j];
    const ss_partial *p = &s->p[j];
    const ss_model_ops *ops = ss_model_get(sc->model);
    memset(v, 0, sizeof *v);
    switch (c->value) {
    case SS_CV_SCENARIO: v->str = sc->name; return 1;
    case SS_CV_MODEL: v->str = ss_model_name(sc->model); return 1;
    case SS_CV_LABEL:
        ops->label_of(sc, v->buf, sizeof v->buf);
        v->str = v->buf;
        return 1;
    case SS_CV_FETCH_ALIGN:
        v->str = ss_align_name(sc->fetch_align);
        return sc->model != ss_model_measured_id();
    case SS_CV_START_ALIGN:
        v->str = ss_align_name(sc->start_align);
        return sc->model != ss_model_measured_id();
    case SS_CV_ITERATIONS: v->l = (long)p->n; return 1;
    case SS_CV_MEAN: return num(p->n > 0 ? p->mean[c->metric] : NAN, v);
    case SS_CV_STD: return num(ss_partial_std(p, c->metric), v);
    case SS_CV_EFFECTIVE_DELAY: return num(ss_summary_effective_delay_pct(s, j), v);
    case SS_CV_CHANGE: return num(ss_summary_change_pct(s, j), v);
    case SS_CV_WORKERS:
        v->l = ops->setting_of ? ops->setting_of(sc, SS_AXIS_WORKERS) : 0;
        return (ops->axes & SS_AXIS_WORKERS) != 0;
    case SS_CV_PERSISTENT: {
        /* PyTorch keeps no workers where there are none: the key means nothing there */
        const long w = ops->setting_of ? ops->setting_of(sc, SS_AXIS_WORKERS) : 0;
        v->str = ss_summary_persistent(s, sc) ? "true" : "false";
        return (ops->axes & SS_AXIS_PERSISTENT) && w >= 1;
    }
    case SS_CV_PREFETCH:
        v->l = ops->setting_of ? ops->setting_of(sc, SS_AXIS_PREFETCH) : 0;
        return (ops->axes & SS_AXIS_PREFETCH) != 0;
    case SS_CV_FETCH_SCALE: v->d = sc->fetch_scale; return (ops->axes & SS_AXIS_FETCH_SCALE) != 0;
    case SS_CV_COMPUTE_SCALE: v->d = sc->compute_scale; return (ops->axes & SS_AXIS_COMPUTE_SCALE) != 0;
    case SS_CV_HEAL_GPU: v->l = sc->heal_gpu; return sc->heal_gpu >= 0;
    case SS_CV_HEAL_GPUS:
        ss_healset_format(&sc->heal, v->buf, sizeof v->buf);
        v->str = v->buf;
        return sc->heal.n > 0;
    case SS_CV_FIDELITY_ERR: return num(ss_summary_fidelity_err_pct(s, j), v);
    case SS_CV_FIDELITY_MAPE: return num(ss_summary_fidelity_mape_pct(s, j), v);
    case SS_CV_CPU_LOAD: return num(ss_summary_cpu_load_pct(s, j, NULL), v);
    case SS_CV_CPU_STRETCH: return num(s->cpu_stretch ? s->cpu_stretch[j] : NAN, v);
    case SS_CV_READ_STRETCH: return num(s->read_stretch ? s->read_stretch[j] : NAN, v);
    case SS_CV_STRAGGLER: return num(ss_summary_straggler_share(s, j, g), v);
    case SS_CV_RUN_TIME: return num(ss_summary_run_time(s, j), v);
    case SS_CV_RUN_CHANGE: return num(ss_summary_run_change_pct(s, j), v);
    case SS_CV_EPOCH_START: return num(ss_summary_epoch_start(s, j), v);
    case SS_CV_ERROR_CLASS:
        v->str = s->cls && s->cls[j] ? s->cls[j]->name : "";
        return s->cls && s->cls[j] != NULL;
    case SS_CV_ITER_LO: return num(s->iter_lo ? s->iter_lo[j] : NAN, v);
    case SS_CV_ITER_HI: return num(s->iter_hi ? s->iter_hi[j] : NAN, v);
    case SS_CV_RUN_LO: return num(s->run_lo ? s->run_lo[j] : NAN, v);
    case SS_CV_RUN_HI: return num(s->run_hi ? s->run_hi[j] : NAN, v);
    }
    return 0;
}
