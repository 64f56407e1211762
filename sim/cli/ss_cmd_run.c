/* ss_cmd_run.c - `stallsim run`: config -> trace -> calibration -> sweep -> gather ->
 * summary.csv, results.h5 and the table. Collective over the job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "ss_atomic.h"
#include "ss_calibrate.h"
#include "ss_cmd.h"
#include "ss_cmd_run_eval.h"
#include "ss_config.h"
#include "ss_drift.h"
#include "ss_ownwork.h"
#include "ss_isa.h"
#include "ss_limits.h"
#include "ss_number.h"
#include "ss_parts.h"
#include "ss_rank.h"
#include "ss_report.h"
#include "ss_results.h"
#include "ss_scenario.h"
#include "ss_screen.h"
#include "ss_suggest.h"
#include "ss_sweep.h"
#include "ss_trace.h"

/* The most rows for which run looks for a level change itself. */
#define SS_DRIFT_RUN_ROWS 2000000L

static const char run_usage[] =
    "usage: stallsim run CONFIG.ini [--set SECTION.KEY=VALUE]... [--out DIR] [--json] [--quiet]\n"
    "                    [--explain] [--verbose] [--timing] [--progress]\n"
    "\n"
    "Replays the trace named in CONFIG.ini under every scenario of its sweep and writes\n"
    "DIR/summary.csv and DIR/results.h5 (DIR: [output] dir, or --out). Prints the summary\n"
    "table (its first 40 rows) and the answer on one screen under it (or, with --json, the\n"
    "summary as JSON) on standard output. Warnings about the input are printed always.\n"
    "\n"
    "  --set S.K=V   override key K of section S (repeatable), e.g.\n"
    "                --set scenarios.fetch_align=min,avg --set trace.epoch=1\n"
    "  --out DIR     write results to DIR (relative to the current folder)\n"
    "  --json        print the summary as JSON instead of the table\n"
    "  --quiet       print nothing on success (with --json: the JSON only), --explain and\n"
    "                --verbose included; --progress still prints its lines\n"
    "  --explain     the long form: the models' notes before the table, every row, and every\n"
    "                legend, finding and caveat in full after it (sim/cli/ANSWER.md)\n"
    "  --verbose     print the calibration's lines (as `stallsim info --verbose` does)\n"
    "  --timing      print per-rank time (read, replay, calibration), throughput and peak\n"
    "                memory on stderr\n"
    "  --progress    a progress line on stderr even when it is not a terminal (as under\n"
    "                mpirun, which pipes the ranks' output): one line per tenth of rank 0's\n"
    "                replay (rows times scenarios), with the time taken and the time left\n"
    "\n"
    "Run it alone or under mpirun -np N: the summary is the same for every N.\n";

typedef struct {
    const char *config;
    char **sets;
    int nsets;
    const char *out;
    int json, quiet, help, timing, progress, explain, verbose;
} run_args;

static ss_status parse_args(int argc, char **argv, run_args *a)
{
    memset(a, 0, sizeof *a);
    a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
    if (!a->sets) return ss_fail(SS_ENOMEM, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) a->help = 1;
        else if (!strcmp(s, "--json")) a->json = 1;
        else if (!strcmp(s, "--timing")) a->timing = 1;
        else if (!strcmp(s, "--progress")) a->progress = 1;
        else if (!strcmp(s, "--explain")) a->explain = 1;
        else if (!strcmp(s, "--verbose") || !strcmp(s, "-v")) a->verbose = 1;
        else if (!strcmp(s, "--quiet") || !strcmp(s, "-q")) a->quiet = 1;
        else if (!strcmp(s, "--set") || !strcmp(s, "--out") || !strcmp(s, "-o")) {
            if (i + 1 >= argc) return ss_fail(SS_EUSAGE, "%s needs a value (see stallsim run --help)", s);
            if (!strcmp(s, "--set")) a->sets[a->nsets++] = argv[++i];
            else if (a->out) return ss_fail(SS_EUSAGE, "run: %s is given twice: give it once", s);
            else a->out = argv[++i];
        } else if (!strncmp(s, "--set=", 6)) a->sets[a->nsets++] = (char *)s + 6;
        else if (!strncmp(s, "--out=", 6)) {
            if (a->out) return ss_fail(SS_EUSAGE, "run: --out is given twice: give it once");
            a->out = s + 6;
        }
        else if (s[0] == '-' && s[1]) {
            static const char *const known[] = {"--help", "--json", "--timing", "--progress", "--explain",
                                                "--verbose", "--quiet", "--set", "--out"};
            char near[96];
            ss_suggest_option(s, known, (int)(sizeof known / sizeof *known), near, sizeof near);
            return ss_fail(SS_EUSAGE, "run: unknown option '%s'%s (see stallsim run --help)", s, near);
        }
        else if (!a->config) a->config = s;
        else return ss_fail(SS_EUSAGE, "run: unexpected argument '%s' (one CONFIG.ini)", s);
    }
    if (!a->help && !a->config) return ss_fail(SS_EUSAGE, "run: missing CONFIG.ini (see stallsim run --help)");
    return SS_OK;
}

/* The calibration, and what each model of the sweep makes of it. */
static void print_calibration(const ss_scenario *sc, int nsc, const ss_calib *cal, const ss_config *cfg, FILE *out)
{
    ss_calib_print(cal, out);
    for (int m = 0; m < SS_NMODELS; m++) {
        const ss_model_ops *ops = ss_model_get((ss_model)m);
        int in = 0;
        for (int i = 0; i < nsc && !in; i++) in = sc[i].model == (ss_model)m;
        if (in && ops->calib_notes) ops->calib_notes(cfg, cal, out);
    }
}

/* Every model's notes on the sweep (ss_model_ops.notes), in table order. */
static ss_status print_notes(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal,
                             ss_trace_file *t, FILE *out)
{
    for (int m = 0; m < SS_NMODELS; m++) {
        const ss_model_ops *ops = ss_model_get((ss_model)m);
        if (!ops->notes) continue;
        ss_notes_in in = {cfg, sc, nsc, 0, cal, t, ss_trace_meta_of(t)};
        for (int i = 0; i < nsc && !in.in_sweep; i++) in.in_sweep = sc[i].model == (ss_model)m;
        ss_status st = ops->notes(&in, out);
        if (st != SS_OK) return st;
    }
    return SS_OK;
}

static int is_summary_csv(const char *path) { return ss_atomic_starts_with(path, "scenario,"); }

/* Rank 0, before any work: results.h5 and summary.csv may replace earlier results only,
 * never an input (the scenario file, the trace) or a file of another kind; temporaries of
 * runs that were killed are removed. */
static ss_status check_outputs(const ss_config *cfg, const char *config_file)
{
    static const char *const names[] = {"results.h5", "summary.csv"};
    ss_atomic_sweep_stale(cfg->out_dir, names, 2);
    const char *inputs[] = {config_file, cfg->trace_path, cfg->eval_path[0] ? cfg->eval_path : cfg->trace_path};
    /* the names are the run's, not the user's: say which folder to change */
    char path[SS_PATH_MAX + 16], advice[SS_PATH_MAX + 128];
    snprintf(advice, sizeof advice, "the output folder %s cannot take this run's results; choose another with --out "
             "or [output] dir", cfg->out_dir);
    snprintf(path, sizeof path, "%s/results.h5", cfg->out_dir);
    ss_status st = ss_atomic_check_output_advised(path, inputs, 3, ss_results_is_results,
                                                  "stallsim results file (with a /summary table)", advice);
    snprintf(path, sizeof path, "%s/summary.csv", cfg->out_dir);
    if (st == SS_OK) st = ss_atomic_check_output_advised(path, inputs, 3, is_summary_csv, "stallsim summary.csv", advice);
    return st;
}

/* Collective: rank 0 prints every rank's sweep figures, calibration time (calib_seconds,
 * 0: none) and peak resident memory. */
static void report_timing(const ss_comm *c, const ss_sweep_timing *tm, double calib_seconds, double wall)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mine[9] = {tm->read_seconds, tm->replay_seconds, tm->evaluations, tm->rows_read,
                      (double)ru.ru_maxrss / 1024.0, tm->read_ahead_seconds, tm->node_wait_seconds,
                      (double)tm->warmup_rows, calib_seconds};
    void *all = NULL;
    int *counts = NULL, *displs = NULL;
    if (ss_comm_gather_bytes(c, mine, (long)sizeof mine, &all, &counts, &displs) == SS_OK && c->rank == 0) {
        const double *v = all;
        double evals = 0, warm = 0;
        for (int r = 0; r < c->size; r++, v += 9) {
            warm = v[7] > warm ? v[7] : warm;
            fprintf(stderr, "timing: rank %d: read %.3f s (%.0f rows), replay %.3f s, %.4g GPU-iteration-scenario "
                            "evaluations = %.4g per second of replay, peak RSS %.1f MB, read ahead %.3f s",
                    r, v[0], v[3], v[1], v[2], v[1] > 0 ? v[2] / v[1] : 0.0, v[4], v[5]);
            if (v[6] > 0) fprintf(stderr, ", of the read waiting for the node's other ranks %.3f s", v[6]);
            if (v[8] > 0) fprintf(stderr, ", calibration %.3f s", v[8]);
            fputc('\n', stderr);
            evals += v[2];
        }
        fprintf(stderr, "timing: %d rank(s), wall %.3f s, %.4g evaluations, %.4g per second per rank overall\n",
                c->size, wall, evals, evals / wall / c->size);
        fprintf(stderr, "timing: vector instructions of the hot loops: %s (STALLSIM_ISA=generic|avx2|avx512 "
                        "lowers it)\n", ss_isa_name(ss_isa()));
        if (tm->stateful_split == 1 && tm->replayers < c->size)
            fprintf(stderr, "timing: stateful scenarios: whole scenarios on the first %d of the %d ranks (the others "
                            "read more of each shared slab: every rank that replays prepares every row)\n",
                    tm->replayers, c->size);
        else if (tm->stateful_split == 1)
            fprintf(stderr, "timing: stateful scenarios: whole scenarios spread over the ranks\n");
        else if (tm->stateful_split == 2)
            fprintf(stderr, "timing: stateful scenarios: every one split over the ranks by blocks of iterations, each "
                            "rank replaying from the start of the epoch that holds its first block (at most %.0f rows "
                            "replayed ahead of a rank's blocks)\n", warm);
    }
    free(all);
    free(counts);
    free(displs);
}

static ss_status series_to_results(void *ctx, int j, long row0, long n, const int32_t *epoch, const int64_t *index,
                                   const double *iter_time, const double *stall, const double *delay,
                                   const double *fetch_diff, const double *start_diff, const double *stall_time)
{
    return ss_results_write_rows(ctx, j, row0, n, epoch, index, iter_time, stall, delay, fetch_diff, start_diff,
                                 stall_time);
}

/* Text written to a memory stream, kept for the answer and the JSON. */
typedef struct {
    char *text;
    size_t len;
} kept_text;

/* One run's state, from the arguments to the outputs. */
typedef struct {
    run_args a;
    ss_config cfg;
    ss_trace_file *t;
    ss_scenario *sc;
    int nsc;
    ss_summary sum;
    ss_calib cal;
    int have_cal;
    ss_results *res;
    ss_ranking ranking;
    long sel_rows, sel_epochs; /* the rows and epochs the summaries take (rank 0) */
    kept_text calib, notes;    /* the calibration's lines and the models' notes (rank 0) */
    ss_drift level;            /* where the measured run changes level (rank 0) */
    ss_ownwork own;            /* one GPU's pauses between steps (rank 0) */
    int have_level;            /* level was looked for */
    long short_epochs;         /* the default warm-up that left no row to summarise, so every row is
                                * summarised (0: not so) */
    unsigned quiet_mask;       /* the models that take a quiet host (ss_models_quiet_mask), once resolved */
    int quiet_asked;           /* a model was asked to, but can take nothing out */
    ss_sweep_timing timing;
} run_job;

/* The scenario file (rank 0 reads it for all: under mpirun only rank 0 has the job's
 * standard input, `stallsim run /dev/stdin < my.ini`), the sweep, and the output folder's
 * checks before any work. Collective. */
static ss_status load_config(const ss_comm *c, run_job *j, ss_status st)
{
    char *text = NULL;
    int regular = 1;
    if (st == SS_OK && c->rank == 0) st = ss_config_read(j->a.config, &text, &regular);
    st = ss_comm_bcast_text(c, st, &text, &regular);
    if (st == SS_OK) st = ss_config_load_text(&j->cfg, j->a.config, text, regular, j->a.nsets, j->a.sets);
    else free(text);
    if (st == SS_OK && j->a.out && strlen(j->a.out) >= sizeof j->cfg.out_dir)
        st = ss_fail(SS_EUSAGE, "--out: folder name too long");
    else if (st == SS_OK && j->a.out) snprintf(j->cfg.out_dir, sizeof j->cfg.out_dir, "%s", j->a.out);
    if (st == SS_OK) st = ss_scenarios_build(&j->cfg, &j->sc, &j->nsc);
    /* the output folder is checked before any work starts, and made only when the results
     * are opened (a rank killed outright meanwhile leaves no empty folder) */
    if (st == SS_OK && c->rank == 0) st = ss_check_dir(j->cfg.out_dir);
    if (st == SS_OK && c->rank == 0) st = check_outputs(&j->cfg, j->a.config);
    return ss_comm_any_failed(c, st);
}

/* A sweep whose per-iteration series would be larger than this is warned about */
#define PER_ITERATION_WARN_BYTES 1e9
/* A slab of fewer iterations than this (and than the trace) is warned about: too small to read fast */
#define SLAB_WARN_ROWS 64

/* Warnings, on stderr, of a sweep that will be slow or large for its settings: a slab of a
 * few iterations, per-iteration series of more than PER_ITERATION_WARN_BYTES. */
static void warn_sweep_size(const ss_config *cfg, const ss_trace_meta *m, int nsc)
{
    const long slab = ss_sweep_slab_rows(cfg, m->gpus, nsc);
    if (slab < SLAB_WARN_ROWS && slab < m->iterations) {
        ss_config d; /* the default slab, for these GPUs and scenarios */
        ss_config_defaults(&d);
        d.per_iteration = cfg->per_iteration;
        fprintf(stderr, "stallsim: warning: a slab holds %ld iteration%s (%s): the trace is read and replayed in "
                        "many small pieces, which is slow. The default, [run] slab_mb = %g, holds %ld\n",
                slab, slab == 1 ? "" : "s", cfg->slab_iterations > 0 ? "[run] slab_iterations" : "[run] slab_mb",
                d.slab_mb, ss_sweep_slab_rows(&d, m->gpus, nsc));
        ss_config_free(&d);
    }
    /* every scenario's series: 7 per iteration and a stall per GPU, 8 bytes each */
    const double bytes = (double)nsc * (double)m->iterations * (7.0 + (double)m->gpus) * 8.0;
    if (cfg->per_iteration && bytes > PER_ITERATION_WARN_BYTES)
        fprintf(stderr, "stallsim: warning: [output] per_iteration = true writes every scenario's series: about "
                        "%.1f GB into results.h5 for %d scenarios of %ld iterations. Writing them takes memory "
                        "and time. Set it false unless the sweep needs them\n",
                bytes / 1e9, nsc, m->iterations);
}

/* The trace, the sweep for its GPUs, and the iterations the summaries take: none is an
 * error before any work (rank 0 reads the trace's epoch and index columns; their rows per
 * epoch serve the ranking). Collective. */
static ss_status open_trace(const ss_comm *c, run_job *j, ss_status st)
{
    const ss_config *cfg = &j->cfg;
    if (st == SS_OK) {
        st = ss_trace_open(cfg->trace_path, c, &j->t);
        if (st != SS_OK) {
            /* a relative path in the file is taken from the file's folder: say so when it
             * is missing (wl/base.h5 in wl/my.ini is wl/wl/base.h5) */
            const char *origin = ss_config_origin(cfg, "trace", "path");
            ss_errprefix("%s: [trace] path%s", origin,
                         cfg->trace_path_from_folder && access(cfg->trace_path, F_OK) != 0
                             ? " (a relative path in a scenario file is taken from the file's folder)"
                             : "");
        }
    }
    st = ss_comm_any_failed(c, st);
    int waits_only = 1; /* every scenario's model replays from the waits alone */
    for (int i = 0; i < j->nsc; i++) waits_only &= ss_model_get(j->sc[i].model)->waits_only;
    if (st == SS_OK && !waits_only && !ss_trace_meta_has_fetch(ss_trace_meta_of(j->t)))
        st = ss_fail(SS_ECONFIG, /* the trace is sound; the scenario file asks what it cannot give */
                     "%s: the trace has no fetch timings (fetch_times = absent: it shows only when each rank waited), "
                     "so the loader models cannot replay it. `model = %s` with `heal = each` asks what each rank "
                     "would give if it waited like the others; record the run with scripts/stallsim_record.py and "
                     "`stallsim import pytorch` for the loader what-ifs.",
                     cfg->trace_path, ss_model_waits_only_name());
    const ss_trace_meta *tm = st == SS_OK ? ss_trace_meta_of(j->t) : NULL;
    const int sync = tm && ss_trace_meta_has_workers(tm) == 0; /* there workers = auto is 0 */
    if (st == SS_OK && (cfg->n_heal > 1 || cfg->heal[0].each || cfg->heal[0].gpus.n > 0 || sync)) {
        /* heal = each and GPU numbers need the trace's GPU count; a synchronous trace, its
         * workers */
        free(j->sc);
        j->sc = NULL;
        st = ss_scenarios_build_trace(cfg, tm->gpus, sync, &j->sc, &j->nsc);
    }
    long fallback = 0; /* rank 0: epochs shorter than the default warm-up summarise every row */
    if (st == SS_OK && c->rank == 0) {
        long selected = 0;
        const long epoch = cfg->epoch_all ? SS_EPOCH_ALL : cfg->epoch;
        st = ss_trace_count_epochs(j->t, epoch, cfg->warmup_iterations, &j->sel_rows, &j->sel_epochs, &selected);
        if (st == SS_OK && selected == 0 && !ss_config_given(cfg, "trace", "warmup_iterations") && j->sel_rows > 0) {
            fallback = cfg->warmup_iterations; /* (rows with an index below it: every one) */
            st = ss_trace_count_epochs(j->t, epoch, 0, &j->sel_rows, &j->sel_epochs, &selected);
        }
        if (st == SS_OK)
            st = ss_cmd_check_selection(selected, cfg, cfg->trace_path, j->t, "trace.epoch", "trace.warmup_iterations");
        if (st == SS_OK && !j->a.quiet) warn_sweep_size(cfg, ss_trace_meta_of(j->t), j->nsc);
    }
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK) st = ss_comm_sum_long(c, &fallback, 1); /* (only rank 0's is not 0) */
    if (st == SS_OK && fallback > 0) {
        j->short_epochs = fallback;
        j->cfg.warmup_iterations = 0;
    }
    return ss_comm_any_failed(c, st);
}

/* Other processes' load on the job's cores, where the trace measured it and it was not
 * negligible: the replay keeps the measured times, so every scenario inherits that load.
 * The note in full on full, in short on brief (NULL: none). */
static void print_host_load(const ss_trace_meta *m, int quiet, int quiet_base, FILE *full, FILE *brief)
{
    int g;
    double other, job;
    if (quiet < 0) { /* asked for, but nothing to take out */
        const char *n = "note: quiet_host takes nothing out here: it needs CPU sharing on, the trace's pools of "
                        "cores, and other processes' load in its host shares (/host_cpu_busy above /host_cpu_job); "
                        "every scenario keeps the recorded load\n";
        fputs(n, full);
        if (brief) fputs(n, brief);
        return;
    }
    if (!ss_trace_meta_host_others(m, &g, &other, &job) || other < SS_CMD_HOST_OTHERS_NAMED) return;
    char line[256];
    ss_trace_meta_host_line(m, line, sizeof line);
    if (quiet) {
        fprintf(full, "note: %s; [pipeline] quiet_host: the pipeline rows take the job as if it ran alone (the "
                      "model's waits for a core that those processes caused taken out); the baseline replay shows "
                      "what that alone changes; the table's changes against the measured run hold it%s\n", line,
                quiet_base ? ", the ranked cuts are against the baseline replay" : ", and so do the ranked cuts");
        if (brief)
            fprintf(brief, "note: other processes used %.0f %% of the job's cores while it was recorded; quiet_host: "
                           "the pipeline rows as if the job ran alone; the baseline replay (*) shows what that alone "
                           "changes; the table's steady%% and run%% hold it%s\n", 100 * other,
                    quiet_base ? ", the ranked cuts are against *" : "");
        return;
    }
    fprintf(full, "note: %s; every scenario keeps that load\n", line);
    if (brief)
        fprintf(brief, "note: other processes used %.0f %% of the job's cores while it was recorded; every "
                       "scenario keeps that load: for a quiet machine, record the base again on quiet cores, "
                       "or set [pipeline] quiet_host = true\n",
                100 * other);
}

/* Where the measured run changes level (ss_drift.c) and where one GPU's loop pauses between
 * steps (ss_ownwork.c), for the answer and the JSON: rank 0, for traces of at most
 * SS_DRIFT_RUN_ROWS rows (larger ones are left to info, so that run does not read a large
 * trace again). */
static ss_status find_level_change(run_job *j)
{
    if (ss_trace_meta_of(j->t)->iterations > SS_DRIFT_RUN_ROWS) return SS_OK;
    ss_status st = ss_drift_find(j->t, j->cfg.warmup_iterations, &j->level);
    if (st == SS_OK) st = ss_ownwork_find(j->t, &j->own);
    j->have_level = st == SS_OK;
    return st;
}

/* The calibration where a scenario needs it, the scenarios resolved, and the models'
 * notes. The calibration's lines print with --verbose (its warnings always), the notes
 * with --explain; both are kept for the answer and the JSON. Collective. */
static ss_status prepare(const ss_comm *c, run_job *j, ss_status st)
{
    FILE *notes = j->a.json ? stderr : stdout;
    if (st == SS_OK && ss_scenarios_need_calibration(j->sc, j->nsc, &j->cfg, ss_trace_meta_of(j->t))) {
        st = ss_calibrate_comm(c, j->t, SS_CALIB_ROWS, &j->cal);
        j->have_cal = st == SS_OK;
        FILE *m = j->have_cal && c->rank == 0 ? open_memstream(&j->calib.text, &j->calib.len) : NULL;
        if (m) {
            print_calibration(j->sc, j->nsc, &j->cal, &j->cfg, m);
            fclose(m);
            if (!j->a.quiet) ss_cmd_print_lines(j->calib.text, j->a.verbose ? NULL : "warning:", notes);
        }
    }
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK) {
        const ss_calib *cal = j->have_cal ? &j->cal : NULL;
        st = ss_scenarios_resolve(j->sc, j->nsc, &j->cfg, cal, ss_trace_meta_of(j->t)->loader_workers);
        j->quiet_mask = ss_models_quiet_mask(&j->cfg, cal, &j->quiet_asked);
        FILE *m = st == SS_OK && c->rank == 0 ? open_memstream(&j->notes.text, &j->notes.len) : NULL;
        if (m) {
            FILE *brief = j->a.quiet || j->a.explain ? NULL : notes;
            st = print_notes(j->sc, j->nsc, &j->cfg, cal, j->t, m);
            int quiet_base = 0; /* a baseline replay of a model on a quiet host: the cuts' reference */
            for (int i = 0; i < j->nsc; i++) quiet_base |= j->sc[i].baseline && (j->quiet_mask >> j->sc[i].model & 1u);
            print_host_load(ss_trace_meta_of(j->t), j->quiet_mask ? 1 : j->quiet_asked ? -1 : 0, quiet_base, m, brief);
            if (j->short_epochs > 0) { /* the default warm-up would leave nothing to summarise */
                const char *n = "note: every summarised epoch is shorter than the default warm-up "
                                "(warmup_iterations = %ld), so the summary takes every iteration (warmup_iterations "
                                "= 0): the steady-state figures hold each epoch's start\n";
                fprintf(m, n, j->short_epochs);
                if (brief) fprintf(brief, n, j->short_epochs);
            }
            fclose(m);
            if (!j->a.quiet) ss_cmd_print_lines(j->notes.text, j->a.explain ? NULL : "warning:", notes);
        }
    }
    if (st == SS_OK && c->rank == 0) st = find_level_change(j);
    if (st == SS_OK && c->rank == 0) st = ss_ensure_dir(j->cfg.out_dir);
    return ss_comm_any_failed(c, st);
}

/* The sweep, gathered on rank 0, and its ranking. Collective. */
static ss_status sweep(const ss_comm *c, run_job *j, ss_status st)
{
    if (st == SS_OK) {
        const ss_trace_meta *m = ss_trace_meta_of(j->t);
        st = ss_results_open(c, j->cfg.out_dir, j->sc, j->nsc, m->iterations, m->gpus, j->cfg.per_iteration, &j->res);
    }
    ss_series_sink sink = {j->res, series_to_results};
    if (st == SS_OK)
        st = ss_sweep_run(c, &j->cfg, j->t, j->sc, j->nsc, j->res && ss_results_per_iteration(j->res) ? &sink : NULL,
                          j->a.progress ? 2 : j->a.quiet ? 0 : 1, &j->sum, &j->timing);
    char *warn = NULL;
    st = ss_run_eval_loader(c, &j->cfg, NULL, j->t, j->sc, j->nsc, &j->sum, st, !j->a.quiet, &warn);
    if (warn) { /* with the notes' warnings: printed now, and in the JSON */
        if (!j->a.quiet) fputs(warn, j->a.json ? stderr : stdout);
        const size_t n = strlen(warn);
        char *text = realloc(j->notes.text, j->notes.len + n + 1);
        if (text) {
            memcpy(text + j->notes.len, warn, n + 1);
            j->notes.text = text;
            j->notes.len += n;
        }
        free(warn);
    }
    if (st == SS_OK && c->rank == 0) {
        /* the models whose changes the answer takes against their baseline replay: where
         * others used enough of the cores for run to name them (below that, the baseline
         * replay stays a replay of the measured run, and its fidelity is measured) */
        if (j->sum.host_others >= SS_CMD_HOST_OTHERS_NAMED)
            ss_summary_set_quiet(&j->sum, j->quiet_mask);
        if (j->have_cal) { /* before the ranking, which reads the calibrated delivery costs (sum owns cal now) */
            st = ss_summary_adopt_calib(&j->sum, &j->cal, ss_trace_meta_of(j->t));
            j->have_cal = 0;
        }
        if (st == SS_OK) st = ss_summary_intervals(&j->sum);
        const double per_epoch = j->sel_epochs > 0 ? (double)j->sel_rows / (double)j->sel_epochs : 0.0;
        if (st == SS_OK) st = ss_rank(&j->sum, per_epoch, !j->cfg.rank_steady, &j->ranking);
        if (st == SS_OK) j->sum.rank = &j->ranking;
    }
    /* a trace written to while it was read (a recording still being imported, a copy over
     * it) gives numbers of no one run: nothing is written then */
    if (st == SS_OK && j->t) st = ss_trace_check_unchanged(j->t);
    return ss_comm_any_failed(c, st);
}

/* summary.csv (under a temporary name first, renamed into place with results.h5), the
 * table or JSON. Collective; every rank returns the agreed status. */
static ss_status write_outputs(const ss_comm *c, run_job *j, ss_status st)
{
    char csv_path[SS_PATH_MAX + 16], csv_tmp[SS_PATH_MAX + 64];
    csv_tmp[0] = '\0';
    snprintf(csv_path, sizeof csv_path, "%s/summary.csv", j->cfg.out_dir);
    if (st == SS_OK && c->rank == 0) st = ss_atomic_tmpname(csv_path, csv_tmp, sizeof csv_tmp);
    if (st == SS_OK && c->rank == 0) st = ss_report_write_csv(&j->sum, csv_tmp);
    st = ss_comm_any_failed(c, st);
    if (j->res) st = ss_results_finish(j->res, st, c->rank == 0 ? &j->sum : NULL, j->cfg.text, j->cfg.trace_path,
                                       csv_tmp[0] ? csv_tmp : NULL, csv_path);
    else if (csv_tmp[0]) ss_atomic_discard(csv_tmp);
    if (st == SS_OK && c->rank == 0) {
        int n = 0; /* the notes the answer points to */
        for (const char *p = j->notes.text; p && (p = strstr(p, "note: ")); p++) n += p == j->notes.text || p[-1] == '\n';
        const ss_report_opts o = {j->a.explain, j->a.explain ? 0 : n, j->notes.text, j->calib.text,
                                  j->have_level ? &j->level : NULL, ss_trace_meta_of(j->t),
                                  j->have_level ? &j->own : NULL};
        if (j->a.json) ss_report_print_json(&j->sum, &o, stdout);
        else if (!j->a.quiet) {
            ss_report_print_table(&j->sum, &o, stdout);
            printf("wrote %s/summary.csv and %s/results.h5%s\n", j->cfg.out_dir, j->cfg.out_dir,
                   ss_atomic_commit_replaced() ? " (replacing an earlier run's)" : "");
        }
    }
    st = ss_comm_agree(c, st);
    if (c->rank == 0) { /* an output folder made for a run that wrote nothing goes again */
        if (st == SS_OK) ss_atomic_keep_new_dirs();
        else ss_atomic_remove_new_dirs();
    }
    return st;
}

int ss_cmd_run(const ss_comm *c, int argc, char **argv)
{
    double t_start = ss_wtime();
    run_job j;
    memset(&j, 0, sizeof j);
    ss_config_defaults(&j.cfg);
    ss_status st = parse_args(argc, argv, &j.a);
    if (st == SS_OK && j.a.help) {
        if (c->rank == 0) {
            fputs(run_usage, stdout);
            fprintf(stdout, "\nScenario file keys (default, then what it does); lists are comma separated, at most %d items\n(the sweep is their product, at most %d scenarios):\n\n", SS_LIST_MAX, SS_MAX_SCENARIOS);
            ss_config_print_keys(stdout);
        }
        free(j.a.sets);
        return 0;
    }
    if (st == SS_OK && !j.a.json && c->rank == 0) ss_screen_begin(); /* prose wraps on a terminal */
    st = load_config(c, &j, st);
    st = open_trace(c, &j, st);
    st = prepare(c, &j, st);
    st = sweep(c, &j, st);
    st = write_outputs(c, &j, st);
    if (j.t && st == SS_OK && !j.a.quiet) ss_trace_report_warnings(j.t, c);
    if (j.t) ss_trace_close(j.t);
    if (st == SS_OK && j.a.timing) report_timing(c, &j.timing, j.cal.seconds, ss_wtime() - t_start);
    if (j.have_cal) ss_calib_free(&j.cal);
    ss_ranking_free(&j.ranking);
    free(j.calib.text);
    free(j.notes.text);
    ss_summary_free(&j.sum);
    free(j.sc);
    free(j.a.sets);
    ss_config_free(&j.cfg);
    return ss_exit_code(st);
}
