/* ss_cmd.h - the subcommands of the stallsim command line (README: usage). Each returns a
 * process exit status and prints its own errors. */
#ifndef SS_CMD_H
#define SS_CMD_H

#include "ss_comm.h"
#include "ss_config.h"
#include "ss_summary.h"
#include "ss_trace.h"

/* The share of a trace's cores that other processes used while it was recorded from which
 * run and compare name it (the trace's /host_cpu_busy less /host_cpu_job) */
#define SS_CMD_HOST_OTHERS_NAMED SS_TRACE_HOST_OTHERS_NAMED
/* compare --match marks an interval whose upper end is more than this many times its lower
 * end: so wide that "inside" says little (a base run recorded on busy cores) */
#define SS_CMD_WIDE_INTERVAL 2.0

int ss_cmd_run(const ss_comm *c, int argc, char **argv);
int ss_cmd_info(const ss_comm *c, int argc, char **argv);
int ss_cmd_import(const ss_comm *c, int argc, char **argv);
int ss_cmd_gen(const ss_comm *c, int argc, char **argv);
int ss_cmd_compare(const ss_comm *c, int argc, char **argv);
int ss_cmd_doc(const ss_comm *c, int argc, char **argv);

/* Prints "stallsim: <msg>" for st (rank 0 of a size-1 view) and returns the exit code. */
int ss_cmd_fail(ss_status st);

/* The lines of text t that contain word (all of them where word is NULL) on out; returns
 * how many were left out. */
int ss_cmd_print_lines(const char *t, const char *word, FILE *out);

/* A command-line option that stands for a scenario-file key (compare --warmup ->
 * trace.warmup_iterations): sets key = value in cfg, checked as the file's key is; an
 * invalid value is SS_EUSAGE naming the command and the option as typed ("info: --warmup
 * '-1' must be ..."), as is a key that cfg already has ("--warmup is given twice"). */
ss_status ss_cmd_set_option(ss_config *cfg, const char *cmd, const char *opt, const char *key, const char *value);

/* SS_OK when the selection summarises some iteration of trace t (selected: how many;
 * compare: its measured row's count, run: ss_trace_count_epochs' before the sweep); else
 * saying why: the selected epoch is not in the trace (naming its epochs), or no iteration
 * of the selection is past the warm-up. A value the user gave is a usage error for an
 * option (epoch_opt "--epoch") and a configuration error, naming the key's line, for a
 * scenario-file key ("trace.epoch"); a default the trace cannot meet is a data error. */
ss_status ss_cmd_check_selection(long selected, const ss_config *cfg, const char *trace, ss_trace_file *t,
                                 const char *epoch_opt, const char *warmup_opt);

#endif
