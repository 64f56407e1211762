/* ss_cmd_run_eval.h - `stallsim run`'s evaluation loader ([trace] eval_path): its trace
 * replayed under the run's sweep, added to each row's whole run. */
#ifndef SS_CMD_RUN_EVAL_H
#define SS_CMD_RUN_EVAL_H

#include "ss_comm.h"
#include "ss_config.h"
#include "ss_scenario.h"
#include "ss_summary.h"
#include "ss_trace.h"

/* Where cfg names an evaluation trace: replays it under the sweep sc[0 .. nsc) of the
 * training trace t (same scenarios by name, its own calibration), and on rank 0 sets
 * sum->other_loader, kept_between and eval_own: each row's whole run then spans both
 * loaders' passes, the evaluation loader's changed as the scenario changes it
 * (MODELS-pipeline.md, "The job's evaluation loader"). sum is the training sweep's, before
 * its intervals and ranking. Errors begin with origin (NULL: the scenario file's line of
 * [trace] eval_path). Returns st unchanged where st is not SS_OK or there is no evaluation
 * trace. Errors too: passes farther from the training run than it lasts, and a training ask
 * while the same GPU waited for an evaluation batch (one loop waits in one loader at a time).
 * A warning (a "warning: " line, rank 0) goes to *warn, malloc'd (NULL: none), or to stderr
 * where warn is NULL; report = 0 leaves out the evaluation trace's own warnings (odd rows:
 * ss_trace_report_warnings). Collective: every rank returns the agreed status. */
ss_status ss_run_eval_loader(const ss_comm *c, const ss_config *cfg, const char *origin, ss_trace_file *t,
                             const ss_scenario *sc, int nsc, ss_summary *sum, ss_status st, int report, char **warn);

#endif
