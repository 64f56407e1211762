/* ss_scenario.h - the points of a sweep: the cartesian product of the [scenarios] lists
 * (less workers = 0 with persistent_workers = true, which PyTorch refuses, where another
 * persistent_workers value is listed), with the measured run first, each model swept over
 * the axes its table entry names. */
#ifndef SS_SCENARIO_H
#define SS_SCENARIO_H

#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_limits.h"
#include "ss_model.h"

/* Builds the sweep from the configuration (malloc'd array, caller frees). SS_ECONFIG when
 * a list repeats a value or the sweep exceeds SS_MAX_SCENARIOS. */
ss_status ss_scenarios_build(const ss_config *c, ss_scenario **out, int *n);

/* ss_scenarios_build for a trace of `gpus` GPUs: scenarios.heal = each gives one value per
 * GPU, and GPU numbers are checked against the count (gpus = 0: not known yet). */
ss_status ss_scenarios_build_gpus(const ss_config *c, int gpus, ss_scenario **out, int *n);

/* ss_scenarios_build_gpus for a trace whose every GPU loaded synchronously (sync = 1): there
 * workers = auto is 0, so it gets no persistent_workers = true scenario either, as a listed
 * 0 does not (PyTorch refuses persistent workers without workers). */
ss_status ss_scenarios_build_trace(const ss_config *c, int gpus, int sync, ss_scenario **out, int *n);

/* 1 when a scenario heals a GPU. */
int ss_scenarios_want_heal(const ss_scenario *sc, int n);

/* 1 when a scenario's model needs the calibration (a setting is auto, or the model reads
 * the trace's figures); m: the trace's metadata (NULL: not known yet). */
int ss_scenarios_need_calibration(const ss_scenario *sc, int n, const ss_config *c, const ss_trace_meta *m);

/* Resolves every scenario through its model (ss_model_ops.resolve), taking auto settings
 * from the calibration (which may be NULL when nothing is auto) and, without one, what
 * the trace records of its loaders (trace_workers: the per-GPU loader_workers, or NULL). */
ss_status ss_scenarios_resolve(ss_scenario *sc, int n, const ss_config *c, const ss_calib *cal,
                                const int *trace_workers);

/* 1 when any scenario asks for the median fetch alignment. */
int ss_scenarios_want_median(const ss_scenario *sc, int n);

#endif
