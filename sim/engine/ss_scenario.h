/* ss_scenario.h - the points of a sweep: the cartesian product of the [scenarios] lists,
 * with the measured run first; names, baselines, and calibrated pipeline settings. */
#ifndef SS_SCENARIO_H
#define SS_SCENARIO_H

#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_model_pipeline.h"

typedef struct {
    char name[160];
    ss_model model;
    ss_align fetch_align, start_align;
    ss_autoval workers;       /* pipeline: as configured */
    long prefetch;
    double fetch_scale, compute_scale;
    int baseline;             /* nothing changed: independent none/none, pipeline W=auto... */
    ssp_params pipe;          /* pipeline: resolved by ss_scenarios_resolve */
} ss_scenario;

/* Builds the sweep from the configuration (malloc'd array, caller frees). SS_ECONFIG when
 * a list repeats a value or the sweep exceeds SS_MAX_SCENARIOS. */
ss_status ss_scenarios_build(const ss_config *c, ss_scenario **out, int *n);

/* 1 when a pipeline scenario needs the calibration (a setting is auto). */
int ss_scenarios_need_calibration(const ss_scenario *sc, int n, const ss_config *c);

/* Fills every pipeline scenario's ssp_params, taking auto settings from the calibration
 * (which may be NULL when nothing is auto). workers = max(1, round(W_cal * factor));
 * SS_ECONFIG when that exceeds SS_MAX_WORKERS. */
ss_status ss_scenarios_resolve(ss_scenario *sc, int n, const ss_config *c, const ss_calib *cal);

/* 1 when any scenario asks for the median fetch alignment. */
int ss_scenarios_want_median(const ss_scenario *sc, int n);

#endif
