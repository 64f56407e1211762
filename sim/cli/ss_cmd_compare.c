/* ss_cmd_compare.c - `stallsim compare`: its usage, options and steps. Runs on rank 0. */
/* Measured traces and sweep results side by side, with differences against the first row:
 * the rows (ss_cmd_compare_load.c), the table and CSV (ss_cmd_compare_table.c), --match and
 * --spread (ss_cmd_compare_match.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_atomic.h"
#include "ss_cmd.h"
#include "ss_cmd_compare.h"
#include "ss_config.h"
#include "ss_screen.h"
#include "ss_suggest.h"

/* The usage, around the name of the model whose predictions --match checks (print_usage) */
static const char usage_head[] =
    "usage: stallsim compare A [B ...] [--csv FILE] [--warmup N] [--threshold S] [--epoch E] [--match]\n"
    "                        [--scenario TEXT] [--spread] [--with-eval]\n"
    "\n"
    "Puts measured runs and predictions side by side (one results folder alone: its\n"
    "scenarios against its measured row). Each argument is a results folder\n"
    "(or its results.h5: one row per scenario) or a trace file (one row: the measured run,\n"
    "summarised as the results folders given beside it were, or with --warmup, --threshold\n"
    "and --epoch). Every row is compared with the\n"
    "first row of the first argument: differences in mean iteration time, stall, delay\n"
    "(absolute and %), effective-delay %, the whole run's time (run), an epoch's mean\n"
    "start (start, seconds) and the share of the cores kept busy (cpu%).\n"
    "\n"
    "  --csv FILE     also write the table as CSV; with --match, the match tables too, as\n"
    "                 FILE-match.csv (cmp.csv: cmp-match.csv): one row per real run, measure\n"
    "                 (steady or run) and prediction\n"
    "  --warmup N     warmup_iterations for traces (11)\n"
    "  --threshold S  effective_delay_threshold for traces, seconds (0.030)\n"
    "  --epoch E      summarise only epoch E of traces (all)\n"
    "  --match        also set each trace (a real run) beside the ";
static const char usage_tail[] =
    " prediction of its\n"
    "                 recorded loader (workers, prefetch factor and persistent_workers, as the\n"
    "                 trace records them; of the rows without alignment, fetch_scale,\n"
    "                 compute_scale or heal), with the error (and 'in 90%': inside the\n"
    "                 prediction's 90 % interval or not, its bounds after the prediction),\n"
    "                 and their mean, for the mean iteration time and then the whole\n"
    "                 run's time (of a run as long):\n"
    "                 `compare results w0.h5 w1.h5 w4.h5 --match`;\n"
    "                 a run with the base trace's own loader is set beside the baseline\n"
    "                 replay, with no 'in 90%' (that interval is of the base trace itself),\n"
    "                 and left out of the mean; a loader recorded more than once is\n"
    "                 also set against the mean of its runs; a match whose loader the folder\n"
    "                 also predicts with a fetch_scale, compute_scale or heal is marked (a real\n"
    "                 run of other storage or a rank's loader fixed cannot be told from its trace)\n"
    "                 (with several results folders: beside each folder's, a mean per folder)\n"
    "  --scenario TEXT  with --match: set each real run beside the prediction of its\n"
    "                 loader whose scenario name or label holds TEXT as a whole part\n"
    "                 (heal-1 or heal=1, fs0.5 or fs=0.5; heal-1 is not heal-12), with\n"
    "                 any scale or heal, in place of the plain prediction; for a real run\n"
    "                 recorded with a rank's loader fixed or other storage, given alone:\n"
    "                 `compare res fixed.h5 --match --scenario heal-1`; given more than\n"
    "                 once, the row holds every text (a run with a rank's loader fixed and faster\n"
    "                 storage: --scenario heal-1 --scenario fs0.5); a real run whose trace\n"
    "                 records no loader settings (profiler, table) goes beside any\n"
    "                 model's row that holds the text (the waits model's heal-1)\n"
    "  --spread       also, for every scenario that two or more of the results folders hold\n"
    "                 (one scenario file run on several base runs of one setting, with\n"
    "                 --set trace.path=...; matched by label), the least and largest\n"
    "                 predicted mean iteration time and their spread, then the same for the\n"
    "                 whole run's time: how much the prediction\n"
    "                 rests on which run was recorded, the least error to expect\n"
    "                 (`compare res-a res-b res-c --spread`); needs two folders of different\n"
    "                 base runs\n"
    "  --with-eval    each trace A.h5 comes with its evaluation loader's trace A-eval.h5,\n"
    "                 as results run with [trace] eval_path do: its whole run (run) then\n"
    "                 spans both loaders' passes\n"
    "\n"
    "Typical use: the trace measured before a change, the sweep that predicted the change,\n"
    "and the trace measured after it; the last rows then show the prediction error. To read\n"
    "each prediction's error directly, put the real run first: `compare after.h5 results`\n"
    "gives every scenario's diff% against it (prediction / real - 1).\n";

static void print_usage(FILE *f)
{
    const char *model = cmp_checked_model();
    fputs(usage_head, f);
    fputs(model ? model : "replay", f);
    fputs(usage_tail, f);
}

static int compare_main(int argc, char **argv)
{
    ss_config opts;
    ss_config_defaults(&opts);
    const char *csv = NULL;
    int explicit_[3] = {0, 0, 0}, spread = 0;
    cmp_table t = {0};
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int ninputs = 0;
    if (!inputs) return ss_cmd_fail(ss_fail(SS_ENOMEM, "out of memory"));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_usage(stdout);
            free(inputs);
            return 0;
        }
        if (!strcmp(a, "--match")) {
            t.match = 1;
            continue;
        }
        if (!strcmp(a, "--scenario")) {
            const char *why = i + 1 >= argc || !argv[i + 1][0] || !strncmp(argv[i + 1], "--", 2)
                                  ? "needs a text (a part of a scenario's name or label, such as heal-1)"
                              : t.nscenario >= CMP_SCENARIO_MAX ? "is given too often (every text it gives must hold)"
                                                                : NULL;
            if (why) {
                free(inputs);
                return ss_cmd_fail(ss_fail(SS_EUSAGE, "compare: --scenario %s", why));
            }
            t.scenario[t.nscenario++] = argv[++i];
            continue;
        }
        if (!strcmp(a, "--spread")) {
            spread = 1;
            continue;
        }
        if (!strcmp(a, "--with-eval")) {
            t.with_eval = 1;
            continue;
        }
        if (!strcmp(a, "--csv") || !strcmp(a, "--warmup") || !strcmp(a, "--threshold") || !strcmp(a, "--epoch")) {
            if (i + 1 >= argc) {
                free(inputs);
                return ss_cmd_fail(ss_fail(SS_EUSAGE, "compare: %s needs a value", a));
            }
            const char *v = argv[++i];
            ss_status st = SS_OK;
            if (!strcmp(a, "--csv") && csv) st = ss_fail(SS_EUSAGE, "compare: --csv is given twice: give it once");
            else if (!strcmp(a, "--csv")) csv = v;
            else {
                explicit_[!strcmp(a, "--warmup") ? 0 : !strcmp(a, "--threshold") ? 1 : 2] = 1;
                st = ss_cmd_set_option(&opts, "compare", a, !strcmp(a, "--warmup") ? "trace.warmup_iterations"
                                                            : !strcmp(a, "--epoch") ? "trace.epoch"
                                                                                    : "summary.effective_delay_threshold",
                                       v);
            }
            if (st != SS_OK) {
                free(inputs);
                ss_config_free(&opts);
                return ss_cmd_fail(st);
            }
        } else if (a[0] == '-' && a[1]) {
            static const char *const known[] = {"--help", "--csv", "--epoch", "--match", "--scenario",
                                                "--spread", "--threshold", "--warmup", "--with-eval"};
            char near[96];
            ss_suggest_option(a, known, (int)(sizeof known / sizeof *known), near, sizeof near);
            free(inputs);
            return ss_cmd_fail(
                ss_fail(SS_EUSAGE, "compare: unknown option '%s'%s (see stallsim compare --help)", a, near));
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (ninputs < 1) {
        free(inputs);
        print_usage(stderr);
        return 2;
    }
    if (t.nscenario && !t.match) {
        free(inputs);
        return ss_cmd_fail(ss_fail(SS_EUSAGE, "compare: --scenario chooses --match's predictions: give --match too"));
    }
    cmp_folders folders = {0};
    char mcsv[4200] = "", mtmp[4300] = ""; /* --match's CSV beside --csv's */
    if (csv && t.match) cmp_match_csv_path(csv, mcsv, sizeof mcsv);
    ss_status st = csv ? cmp_check_csv_output(csv, inputs, ninputs) : SS_OK;
    if (st == SS_OK && mcsv[0]) st = cmp_check_csv_output(mcsv, inputs, ninputs);
    if (st == SS_OK) st = cmp_align_settings(inputs, ninputs, &opts, explicit_, t.with_eval, &t.runs_apart);
    for (int i = 0; st == SS_OK && i < ninputs; i++) st = cmp_add_input(&t, inputs[i], &opts);
    if (st == SS_OK && t.match) st = cmp_check_match(&t);
    if (st == SS_OK && (t.match || spread)) st = cmp_folders_of(&t, &folders);
    if (st == SS_OK && spread) st = cmp_check_spread(&t, &folders, inputs, ninputs);
    if (st == SS_OK && csv) ss_atomic_sweep_stale_beside(csv);
    if (st == SS_OK) ss_screen_begin(); /* prose wraps on a terminal */
    FILE *mf = NULL;
    if (st == SS_OK && mcsv[0]) st = cmp_csv_open(mcsv, mtmp, sizeof mtmp, &mf);
    if (st == SS_OK) {
        cmp_print_table(&t, stdout);
        cmp_print_waits(&t, stdout);
        if (t.match) cmp_print_matches(&t, &folders, stdout, mf);
        if (spread) cmp_print_spread(&t, &folders, stdout);
        if (csv) st = cmp_write_csv(&t, csv);
    }
    if (mf) {
        st = cmp_csv_close(mf, mtmp, mcsv, st);
        if (st == SS_OK) printf("wrote %s (the match tables: each real run beside its prediction)\n", mcsv);
    }
    cmp_folders_free(&folders);
    free(t.v);
    free(inputs);
    ss_config_free(&opts);
    return st == SS_OK ? 0 : ss_cmd_fail(st);
}

int ss_cmd_compare(const ss_comm *c, int argc, char **argv)
{
    int rc = c->rank == 0 ? compare_main(argc, argv) : 0;
    if (c->mpi) MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm);
    return rc;
}
