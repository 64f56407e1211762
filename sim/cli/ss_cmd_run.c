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

#include "ss_isa.h"
#include "ss_atomic.h"
#include "ss_calibrate.h"
#include "ss_cmd.h"
#include "ss_limits.h"
#include "ss_config.h"
#include "ss_number.h"
#include "ss_parts.h"
#include "ss_rank.h"
#include "ss_report.h"
#include "ss_results.h"
#include "ss_scenario.h"
#include "ss_sweep.h"
#include "ss_trace.h"

static const char run_usage[] =
    "usage: stallsim run CONFIG.ini [--set SECTION.KEY=VALUE]... [--out DIR] [--json] [--quiet] [--timing]\n"
    "                    [--progress]\n"
    "\n"
    "Replays the trace named in CONFIG.ini under every scenario of its sweep and writes\n"
    "DIR/summary.csv and DIR/results.h5 (DIR: [output] dir, or --out). Prints the summary\n"
    "table (or, with --json, the summary as JSON) on standard output.\n"
    "\n"
    "  --set S.K=V   override key K of section S (repeatable), e.g.\n"
    "                --set scenarios.fetch_align=min,avg --set trace.epoch=1\n"
    "  --out DIR     write results to DIR (relative to the current folder)\n"
    "  --json        print the summary as JSON instead of the table\n"
    "  --quiet       print nothing on success (with --json: the JSON only)\n"
    "  --timing      print per-rank time (read, replay, calibration), throughput and peak\n"
    "                memory on stderr\n"
    "  --progress    a progress line on stderr even when it is not a terminal (as under\n"
    "                mpirun, which pipes the ranks' output): one line per tenth of rank 0's\n"
    "                replay (rows times scenarios)\n"
    "\n"
    "Run it alone or under mpirun -np N: the summary is the same for every N.\n";

typedef struct {
    const char *config;
    char **sets;
    int nsets;
    const char *out;
    int json, quiet, help, timing, progress;
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
        else if (!strcmp(s, "--quiet") || !strcmp(s, "-q")) a->quiet = 1;
        else if (!strcmp(s, "--set") || !strcmp(s, "--out") || !strcmp(s, "-o")) {
            if (i + 1 >= argc) return ss_fail(SS_EUSAGE, "%s needs a value (see stallsim run --help)", s);
            if (!strcmp(s, "--set")) a->sets[a->nsets++] = argv[++i];
            else a->out = argv[++i];
        } else if (!strncmp(s, "--set=", 6)) a->sets[a->nsets++] = (char *)s + 6;
        else if (!strncmp(s, "--out=", 6)) a->out = s + 6;
        else if (s[0] == '-' && s[1]) return ss_fail(SS_EUSAGE, "run: unknown option '%s' (see stallsim run --help)", s);
        else if (!a->config) a->config = s;
        else return ss_fail(SS_EUSAGE, "run: unexpected argument '%s' (one CONFIG.ini)", s);
    }
    if (!a->help && !a->config) return ss_fail(SS_EUSAGE, "run: missing CONFIG.ini (see stallsim run --help)");
    return SS_OK;
}

/* The notes below concern the pipeline model's scenarios. */
static int is_pipeline(const ss_scenario *s) { return !strcmp(ss_model_get(s->model)->name, "pipeline"); }

/* A scenario as the notes name it: its label as the table under them names its row,
 * without the settings every row of its model has ("pipe W=1 fs=1" where every pipe row
 * has f=none s=none P=2 cs=1). The text lives until the next call. */
static const char *label_of(const ss_scenario *sc, int nsc, const ss_scenario *s)
{
    static char buf[SS_LABEL_MAX];
    char shared[SS_LABEL_MAX] = "", row[SS_LABEL_MAX];
    int rows = 0; /* the "key=value" parts every row of the model has, one row at a time */
    for (int j = 0; j < nsc && (rows == 0 || shared[0]); j++) {
        if (sc[j].model != s->model || sc[j].model == SS_MODEL_MEASURED) continue;
        ss_model_get(sc[j].model)->label_of(&sc[j], row, sizeof row);
        if (rows++ == 0) {
            const char *self[2] = {row, row};
            ss_parts_shared(self, 2, ' ', 1, shared, sizeof shared);
        } else {
            ss_parts_keep(shared, row, ' ');
        }
    }
    ss_model_get(s->model)->label_of(s, row, sizeof row);
    ss_parts_drop(row, rows > 1 ? shared : "", ' ', buf, sizeof buf);
    return buf;
}

static void print_calibration(const ss_calib *cal, const ss_config *cfg, FILE *out)
{
    ss_calib_print(cal, out);
    if (cfg->storage_parallel > 0.0 && cal->fetch_med_gpu && !cal->no_fetch)
        fprintf(out, "calibration: storage sharing ([pipeline] storage_parallel = %g): the trace's period T0 = %.6g s "
                     "and step C = %.6g s (medians over the calibration rows of the slowest GPU's iteration time and "
                     "of that minus the largest stall)\n",
                cfg->storage_parallel, cal->period, cal->step);
    if (!cal->share) return;
    if (ss_config_cpu_sharing_on(cfg))
        fprintf(out, "calibration: CPU sharing is on ([pipeline] cpu_sharing = true): each scenario's CPU work is "
                     "stretched to its own load\n");
    else
        fprintf(out, "calibration: CPU sharing is off (%s): every scenario keeps the trace's contention\n",
                !cfg->cpu_sharing ? "[pipeline] cpu_sharing = false" : "[pipeline] fetch_cpu is not auto");
}

/* Pipeline scenarios need the calibration for CPU sharing on a trace with CPU data, and for
 * storage sharing (the trace's fetches and period), even when every loader setting is
 * given. */
static int share_needs_calibration(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_trace_meta *m)
{
    if (!(ss_config_cpu_sharing_on(cfg) && ss_trace_meta_has_cpu(m)) && !(cfg->storage_parallel > 0.0)) return 0;
    for (int i = 0; i < nsc; i++)
        if (is_pipeline(&sc[i])) return 1;
    return 0;
}

/* A synchronous trace (W = 0) shows no delivery cost, the time a batch made by a worker
 * takes to reach the loop (queue, unpickling): pipeline scenarios that give such a GPU
 * workers, with delivery = auto, assume none. Says so once, with what to do. */
static void note_sync_delivery(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    if (!cfg->delivery.is_auto || !cal->workers_gpu) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i])) continue;
        int first = -1, n = 0;
        for (int g = 0; g < cal->gpus; g++)
            if (cal->workers_gpu[g] == 0 && ssp_loader_of(&sc[i].pipe, g).workers > 0) {
                if (first < 0) first = g;
                n++;
            }
        if (n == 0) continue;
        char who[64];
        if (n == cal->gpus) snprintf(who, sizeof who, "%s", n == 1 ? "the GPU" : "every GPU");
        else if (n == 1) snprintf(who, sizeof who, "GPU %d", first);
        else snprintf(who, sizeof who, "GPU %d and %d more", first, n - 1);
        fprintf(out, "note: %s loads synchronously in the trace (W = 0), so the trace cannot show the delivery cost "
                     "that a loader with workers adds to every batch (queue, unpickling, and the waits for a core on "
                     "busy cores: 0.7-10 ms per batch on the README's real runs, the busier the cores the longer); "
                     "scenarios that give workers to it, such as %s, assume none and are optimistic by it (7-33 %% "
                     "on the real runs where it set the pace): to include it, sweep them with [pipeline] delivery = "
                     "SECONDS (which then applies to synchronous GPUs too: keep the baseline from delivery = auto)\n",
                who, label_of(sc, nsc, &sc[i]));
        return;
    }
}

/* The first pipeline scenario of sc[0..nsc) that gives some GPU other workers than the
 * trace's (calibrated) loader, or NULL */
static const ss_scenario *other_workers(const ss_scenario *sc, int nsc, const ss_calib *cal)
{
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++)
            if (ssp_loader_of(&sc[i].pipe, g).workers != cal->workers_gpu[g]) return &sc[i];
    }
    return NULL;
}

/* A storage part of the trace's fetches below this share of the median fetch is not worth
 * a note on storage sharing: a quarter of the fetch or more must be reads */
#define STORAGE_NOTE_SHARE 0.25
/* With storage sharing on a trace of gen's, says that its reads had no storage behind them.
 * Without storage sharing (storage_parallel = 0) every read keeps its measured time: where
 * a quarter or more of the trace's fetches is not CPU work (the part the replay takes as reads) and a
 * pipeline scenario changes the workers (so the reads in flight), says once that storage
 * that slows down with more reads at once makes such predictions wrong, and what to set.
 * Not for gen's traces (their fetches are drawn, not read). */
static void note_storage(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal,
                         const ss_trace_meta *m, FILE *out)
{
    const int synthetic = ss_trace_meta_is_synthetic(m);
    if (cfg->storage_parallel > 0.0) {
        if (synthetic)
            fprintf(out, "note: the trace is one that stallsim gen made: its fetch times were drawn, with no storage "
                         "behind them, and storage sharing ([pipeline] storage_parallel = %g) slows or speeds its "
                         "scenarios' reads by its own rule alone (the read_stretch column)\n",
                    cfg->storage_parallel);
        return;
    }
    if (!cal->workers_gpu || !cal->fetch_med_gpu || cal->no_fetch) return;
    const ss_scenario *which = other_workers(sc, nsc, cal);
    if (!which || synthetic) return;
    double *v = malloc((size_t)cal->gpus * sizeof *v);
    if (!v) return;
    size_t n = 0;
    int known = 0;
    for (int g = 0; g < cal->gpus; g++) {
        const double f = cal->fetch_med_gpu[g], c = ssp_trace_cpu_part(&which->pipe, g);
        known |= c > 0.0;
        if (!(f > 0.0)) continue;
        v[n++] = f > c ? (f - c) / f : 0.0;
    }
    double share = 0.0;
    if (n > 0) {
        gsl_sort(v, 1, n);
        share = gsl_stats_median_from_sorted_data(v, 1, n);
    }
    free(v);
    if (share < STORAGE_NOTE_SHARE) return;
    fprintf(out, "note: %.0f %% of the trace's median fetch is %s; the scenarios replay it at its measured time "
                 "(times fetch_scale), so on storage that slows down with more reads at once (a disk, a busy shared "
                 "file system) scenarios with other worker counts than the trace, such as %s, are off: more workers "
                 "optimistic, fewer pessimistic (fewer workers from a real 2-worker trace on a local disk: +10 to "
                 "+46 %%): set [pipeline] storage_parallel (scripts/storage_probe.py measures it on the dataset's "
                 "files); leave it 0 for storage that does not slow down\n",
            100.0 * share,
            known ? "not its CPU part (recorded CPU time and wait for a core, or [pipeline] fetch_cpu): reads, or "
                    "waits for them"
                  : "taken as reads, as the trace records no CPU time of its fetches ([pipeline] fetch_cpu sets one)",
            label_of(sc, nsc, which));
}

/* What fetch_scale scales, when a scenario scales fetches: the recorded CPU part kept
 * (auto), a set one, or (no CPU recorded) the whole fetch. Says it once. */
/* Both models end every step with all GPUs together (the all-reduce). Ranks that step
 * together ask for their next batch within a few milliseconds of each other: on every real
 * run committed with the project the median spread of the asks is at most 0.18 of the step
 * period. Ranks that synchronise only every few steps (gradient accumulation under DDP's
 * no_sync) drift apart in between: 1.5 and 4.2 of the period on a real 2-rank run with one
 * slow rank, whose healing was then predicted 215 % too slow (datasets/pytorch-accum). */
#define NOT_LOCKSTEP_SPREAD 0.5
/* 1 when a scenario of another model than the pipeline (which alone has sync_every) is swept */
static int other_models(const ss_scenario *sc, int nsc)
{
    for (int i = 0; i < nsc; i++)
        if (!is_pipeline(&sc[i]) && sc[i].model != SS_MODEL_MEASURED) return 1;
    return 0;
}
static void note_not_lockstep(double spread, double period, double together_every, long sync_every, int other_models,
                              FILE *out)
{
    if (!(period > 0.0) || !(spread > NOT_LOCKSTEP_SPREAD * period)) return;
    if (sync_every > 1) {
        if (other_models)
            fprintf(out, "note: the GPUs' loops ask for their batches %.4f s apart (median over iterations), %.1f times "
                         "the step period: [pipeline] sync_every = %ld replays the pipeline rows with an all-reduce "
                         "every %ld steps, but the other models' rows still take every step as synchronised\n",
                    spread, spread / period, sync_every, sync_every);
        return;
    }
    char every[96] = "", set[96] = "";
    if (together_every >= 1.5) {
        snprintf(every, sizeof every, "; they ask together once every %.1f iterations", together_every);
        snprintf(set, sizeof set, " ([pipeline] sync_every = %.0f, if they all-reduce that often)", floor(together_every + 0.5));
    }
    fprintf(out, "note: the GPUs' loops ask for their batches %.4f s apart (median over iterations), %.1f times the "
                 "step period (%.4f s%s): the ranks do not step together, as if they synchronised only every few "
                 "steps (gradient accumulation under DDP's no_sync) or ran as separate jobs. Unless told, both "
                 "models end every step with all GPUs together, and their predictions can be far off (README, How "
                 "far to trust the predictions: a real 2-rank run with gradient accumulation over 4 steps and one "
                 "slow rank: that rank healed predicted +215 %%, 4 workers +64 %%; datasets/pytorch-accum); the "
                 "pipeline model replays the all-reduce every N steps with [pipeline] sync_every = N%s\n",
            spread, spread / period, period, every, set);
}

static void note_fetch_cpu(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    int scaled = 0;
    for (int i = 0; i < nsc; i++)
        scaled |= is_pipeline(&sc[i]) && sc[i].fetch_scale != 1.0;
    if (!scaled) return;
    char v[48];
    ss_autoval_format(&cfg->fetch_cpu, v, sizeof v);
    if (!cfg->fetch_cpu.is_auto && cfg->fetch_cpu.value == 0.0)
        fprintf(out, "note: fetch_scale scales whole fetches (pipeline.fetch_cpu = 0)\n");
    else if (!cfg->fetch_cpu.is_auto)
        fprintf(out, "note: fetch_scale keeps %s s of every fetch (pipeline.fetch_cpu = %s) and scales the rest\n", v, v);
    else if (cal->fetch_cpu_gpu && cfg->fetch_cpu.value != 1.0 && cfg->fetch_cpu.value != 0.0)
        fprintf(out, "note: fetch_scale keeps the recorded CPU part of every fetch times %g (pipeline.fetch_cpu = %s) "
                     "and scales the rest\n", cfg->fetch_cpu.value, v);
    else if (!cal->fetch_cpu_gpu)
        fprintf(out, "note: the trace does not record the fetches' CPU time, so fetch_scale scales whole fetches, "
                     "decoding and collating included: for \"faster storage\" that is optimistic where the loader does "
                     "CPU work (record again with the current scripts/stallsim_record.py, format 2 or later, or set "
                     "[pipeline] fetch_cpu = SECONDS)\n");
}

/* Scenarios whose prefetch factor differs from the one the trace records (the default
 * prefetch = 2 against a loader's 4): says so once, as they are then no baseline. */
static void note_prefetch(const ss_scenario *sc, int nsc, const ss_calib *cal, FILE *out)
{
    if (!cal->recorded_prefetch || !cal->prefetch_gpu || !cal->workers_gpu) return;
    /* a sweep that also keeps the recorded factor changes it on purpose: nothing to say */
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i])) continue;
        int keeps = sc[i].prefetch == SS_PREFETCH_AUTO;
        for (int g = 0; !keeps && g < cal->gpus; g++)
            if (cal->workers_gpu[g] > 0 && sc[i].prefetch == cal->prefetch_gpu[g]) keeps = 1;
        if (keeps) return;
    }
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i]) || sc[i].prefetch == SS_PREFETCH_AUTO) continue;
        for (int g = 0; g < cal->gpus; g++) {
            if (cal->workers_gpu[g] == 0 || ssp_loader_of(&sc[i].pipe, g).workers == 0 ||
                sc[i].prefetch == cal->prefetch_gpu[g])
                continue;
            fprintf(out, "note: the trace records the loaders' prefetch factor (%d on GPU %d), and every pipeline "
                         "scenario changes it (to prefetch = %ld%s), so none of them is the baseline replay: "
                         "sweep prefetch = auto to keep the recorded one\n",
                    cal->prefetch_gpu[g], g, sc[i].prefetch, sc[i].prefetch == 2 ? ", the default" : "");
            return;
        }
    }
}

/* A trace recorded with its cores very busy, or whose measured contention the model does
 * not match. Without measured waits for a core (recorder formats 1, 2), the fetches also
 * hold waits that are not CPU time (after each sample's read), which the model takes for
 * storage time. With them (format 3) the split is measured, but the model's change of
 * stretch is least certain there. Says so once when a scenario changes the workers or the
 * storage (README, "How far to trust": 1 worker predicted from a busy 3-worker trace was
 * 40-60 % too slow). */
#define BUSY_TRACE_STRETCH 2.0
#define MODEL_MISS 0.25 /* |model / measured - 1| above which the trace's contention is "not matched" */
/* How far pool p's model stretch is from the measured ones: the larger of |s0 / measured - 1|
 * for the fetches and the steps (0 without measured waits). */
static double model_miss(const ss_share *sh, int p)
{
    if (!sh->s0m) return 0.0;
    double x = fabs(sh->s0[p] / sh->s0m[p] - 1.0), y = fabs(sh->s0[p] / sh->s0m_step[p] - 1.0);
    return y > x ? y : x;
}

/* A trace with the waits for a core but without the first window's (imported before
 * /fetch_wait_start_time existed) whose workers outnumber a pool's cores, swept to fewer
 * workers: its start-up waits then count as storage time. */
static void note_start_window(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    const ss_share *sh = cal->share;
    if (!sh || !sh->fetch_wait || sh->start_wait || !ss_config_cpu_sharing_on(cfg) || !ss_share_start_crowded(sh))
        return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++)
            if (ssp_loader_of(&sc[i].pipe, g).workers < cal->workers_gpu[g]) {
                fprintf(out, "note: the trace has the waits for a core but not /fetch_wait_start_time (imported by an "
                             "older stallsim): its loaders' workers outnumber the cores, so each epoch's first fetches "
                             "waited long for one, and those waits count as storage time here; scenarios with fewer "
                             "workers may come out too slow. Import the record files again to add it\n");
                return;
            }
    }
}

/* An epoch start longer than SS_STARTUP_NOTE_S and this many step periods is the loader's
 * workers starting. */
#define STARTUP_NOTE_PERIODS 5.0

/* Where each epoch's first batch came long after the loop asked for it (the loader's workers
 * starting, again at every epoch when they do not persist), a scenario that changes the
 * workers predicts the iterations after that start-up, not an epoch's time. Says it once. */
static void note_startup(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    if (cal->startup_epochs < 1 || !(cal->startup > SS_STARTUP_NOTE_S) ||
        !(cal->startup > STARTUP_NOTE_PERIODS * cal->ask_period))
        return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++)
            if (ssp_loader_of(&sc[i].pipe, g).workers != cal->workers_gpu[g]) {
                fprintf(out, "note: each epoch's first batch came %.2f s after the loop asked for it (mean over the %ld "
                             "epoch%s the calibration read; a step takes %.4f s): the loader starting, its workers and "
                             "its first fetches. The "
                             "summaries leave each epoch's first %ld iterations out (warmup_iterations), and that "
                             "start-up with them, so a scenario with other workers, such as %s, predicts the "
                             "iterations after it; an epoch's time also has the start-up, which grows with the "
                             "workers unless they persist (persistent_workers=True starts them once)\n",
                        cal->startup, cal->startup_epochs, cal->startup_epochs == 1 ? "" : "s", cal->ask_period,
                        cfg->warmup_iterations, label_of(sc, nsc, &sc[i]));
                return;
            }
    }
}

/* A trace without the CPU times of its fetches and loops (another recorder, an importer
 * other than pytorch, the recorder's format 1): CPU sharing cannot run, and scenarios that
 * change the load keep the trace's contention. Says so once, where a pipeline scenario
 * changes the workers, the storage or compute speed, or heals, with what it cost on the
 * validation grids (their traces with those datasets removed, datasets/VALIDATION.md).
 * Not for gen's traces (no CPU behind them) nor with cpu_sharing = false. */
static void note_no_cpu(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal,
                        const ss_trace_meta *m, FILE *out)
{
    if (!cfg->cpu_sharing || ss_trace_meta_has_cpu(m) || ss_trace_meta_is_synthetic(m) || !cal->workers_gpu) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipeline(&sc[i]) || ssp_same_load(&sc[i].pipe, &sc[i], cal->workers_gpu, cal->gpus)) continue;
        fprintf(out, "note: the trace records no CPU times of its fetches and training loops (the recorder's "
                     "/fetch_cpu_time, /loop_cpu_time, /cpu_pool and /cpu_pool_cores, from its format 2), so CPU "
                     "sharing is off: scenarios that change the load, such as %s, keep the trace's contention for the "
                     "cores (on busy cores, more workers or faster storage come out optimistic, fewer workers "
                     "pessimistic; on the 4-rank validation grids with those datasets removed the mean error went "
                     "from 1.2-5.2 %% to 2.9-6.8 %%, fewer workers on 66 %%-busy cores +8 to +16 %%, a slow rank "
                     "healed -18.5 %% where it was -7.3 %%): record with scripts/stallsim_record.py where you can\n",
                label_of(sc, nsc, &sc[i]));
        return;
    }
}

static void note_busy_trace(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    const ss_share *sh = cal->share;
    if (!sh || !ss_config_cpu_sharing_on(cfg)) return;
    /* the pool whose model stretch is furthest from a measured one (fetches' or steps'), or
     * the busiest (measured where the trace has the waits, else by the model) */
    int q = 0;
    for (int p = 1; p < sh->pools; p++) {
        double mp = model_miss(sh, p), mq = model_miss(sh, q);
        if (sh->s0m ? mp > mq || (mq == 0.0 && mp == 0.0 && sh->s0m[p] > sh->s0m[q]) : sh->s0[p] > sh->s0[q]) q = p;
    }
    const double s0 = sh->s0[q], miss = model_miss(sh, q), m0 = sh->s0m ? sh->s0m[q] : 0.0,
                 ms = sh->s0m ? sh->s0m_step[q] : 0.0;
    if (sh->s0m ? !(m0 > BUSY_TRACE_STRETCH || miss > MODEL_MISS) : !(s0 > BUSY_TRACE_STRETCH)) return;
    int changes = other_workers(sc, nsc, cal) != NULL;
    for (int i = 0; i < nsc; i++) changes |= is_pipeline(&sc[i]) && sc[i].fetch_scale != 1.0;
    if (!changes) return;
    if (sh->s0m)
        fprintf(out, "note: the trace's fetches took %.2fx their CPU time in CPU work and waits for a core, "
                     "its steps %.2fx; CPU sharing's model puts the contention at %.2fx (its stretch of CPU work "
                     "while the training processes step together). Scenarios keep the measured times and scale "
                     "them by the model's change of contention, so only that change is modelled; where the two "
                     "figures are this far apart, check a prediction that changes the CPU load a lot (many more "
                     "workers, much faster storage) against one real run (README, \"How far to trust the "
                     "predictions\")\n",
                m0, ms, s0);
    else
        fprintf(out, "note: the trace was recorded with its cores busy (its CPU work took %.2fx as long as alone): "
                     "its fetches also hold waits for a core that are not CPU time (one after each sample's read), "
                     "which the model keeps as storage time, so scenarios with fewer workers or slower storage may "
                     "come out too slow and those with more workers too fast; a trace recorded with fewer workers "
                     "(the cores less busy), or with the recorder's format 3 (which measures those waits), is the "
                     "better base\n",
                s0);
}

static int is_summary_csv(const char *path) { return ss_atomic_starts_with(path, "scenario,"); }

/* Rank 0, before any work: results.h5 and summary.csv may replace earlier results only,
 * never an input (the scenario file, the trace) or a file of another kind; temporaries of
 * runs that were killed are removed. */
static ss_status check_outputs(const ss_config *cfg, const char *config_file)
{
    static const char *const names[] = {"results.h5", "summary.csv"};
    ss_atomic_sweep_stale(cfg->out_dir, names, 2);
    const char *inputs[] = {config_file, cfg->trace_path};
    /* the names are the run's, not the user's: say which folder to change */
    char path[SS_PATH_MAX + 16], advice[SS_PATH_MAX + 128];
    snprintf(advice, sizeof advice, "the output folder %s cannot take this run's results; choose another with --out "
             "or [output] dir", cfg->out_dir);
    snprintf(path, sizeof path, "%s/results.h5", cfg->out_dir);
    ss_status st = ss_atomic_check_output_advised(path, inputs, 2, ss_results_is_results,
                                                  "stallsim results file (with a /summary table)", advice);
    snprintf(path, sizeof path, "%s/summary.csv", cfg->out_dir);
    if (st == SS_OK) st = ss_atomic_check_output_advised(path, inputs, 2, is_summary_csv, "stallsim summary.csv", advice);
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

int ss_cmd_run(const ss_comm *c, int argc, char **argv)
{
    double t_start = ss_wtime();
    ss_sweep_timing timing;
    memset(&timing, 0, sizeof timing);
    run_args a;
    ss_config cfg;
    ss_config_defaults(&cfg);
    ss_trace_file *t = NULL;
    ss_scenario *sc = NULL;
    int nsc = 0;
    ss_summary sum;
    memset(&sum, 0, sizeof sum);
    ss_calib cal;
    memset(&cal, 0, sizeof cal);
    int have_cal = 0;
    ss_results *res = NULL;

    ss_status st = parse_args(argc, argv, &a);
    if (st == SS_OK && a.help) {
        if (c->rank == 0) {
            fputs(run_usage, stdout);
            fprintf(stdout, "\nScenario file keys (default, then what it does); lists are comma separated, at most %d items\n(the sweep is their product, at most %d scenarios):\n\n", SS_LIST_MAX, SS_MAX_SCENARIOS);
            ss_config_print_keys(stdout);
        }
        free(a.sets);
        return 0;
    }
    /* rank 0 reads the file for all: under mpirun only rank 0 has the job's standard input
     * (`stallsim run /dev/stdin < my.ini`) */
    char *text = NULL;
    int regular = 1;
    if (st == SS_OK && c->rank == 0) st = ss_config_read(a.config, &text, &regular);
    st = ss_comm_bcast_text(c, st, &text, &regular);
    if (st == SS_OK) st = ss_config_load_text(&cfg, a.config, text, regular, a.nsets, a.sets);
    else free(text);
    if (st == SS_OK && a.out && strlen(a.out) >= sizeof cfg.out_dir) st = ss_fail(SS_EUSAGE, "--out: folder name too long");
    else if (st == SS_OK && a.out) snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", a.out);
    if (st == SS_OK) st = ss_scenarios_build(&cfg, &sc, &nsc);
    /* the output folder is checked before any work starts, and made only when the results
     * are opened (a rank killed outright meanwhile leaves no empty folder) */
    if (st == SS_OK && c->rank == 0) st = ss_check_dir(cfg.out_dir);
    if (st == SS_OK && c->rank == 0) st = check_outputs(&cfg, a.config);
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK) {
        st = ss_trace_open(cfg.trace_path, c, &t);
        if (st != SS_OK) {
            /* a relative path in the file is taken from the file's folder: say so when it
             * is missing (wl/base.h5 in wl/my.ini is wl/wl/base.h5) */
            const char *origin = ss_config_origin(&cfg, "trace", "path");
            ss_errprefix("%s: [trace] path%s", origin,
                         cfg.trace_path_from_folder && access(cfg.trace_path, F_OK) != 0
                             ? " (a relative path in a scenario file is taken from the file's folder)"
                             : "");
        }
    }
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK && !ss_trace_meta_has_fetch(ss_trace_meta_of(t)))
        st = ss_fail(SS_EDATA,
                     "%s: the trace has no fetch timings (fetch_times = absent: a profiler trace shows only when each "
                     "rank waited), so the what-if models cannot replay it; `stallsim info` and `stallsim compare` "
                     "read it. Record the run with scripts/stallsim_record.py and `stallsim import pytorch` to get "
                     "fetch times.",
                     cfg.trace_path);
    if (st == SS_OK && (cfg.n_heal > 1 || cfg.heal[0].each || cfg.heal[0].gpus.n > 0)) {
        /* heal = each and GPU numbers need the trace's GPU count */
        free(sc);
        sc = NULL;
        st = ss_scenarios_build_gpus(&cfg, ss_trace_meta_of(t)->gpus, &sc, &nsc);
    }
    /* the iterations the summaries take: none is an error before any work (rank 0 reads
     * the trace's epoch and index columns; their rows per epoch serve the ranking) */
    long sel_rows = 0, sel_epochs = 0;
    if (st == SS_OK && c->rank == 0) {
        long selected = 0;
        st = ss_trace_count_epochs(t, cfg.epoch_all ? SS_EPOCH_ALL : cfg.epoch, cfg.warmup_iterations, &sel_rows,
                                   &sel_epochs, &selected);
        if (st == SS_OK)
            st = ss_cmd_check_selection(selected, &cfg, cfg.trace_path, t, "trace.epoch", "trace.warmup_iterations");
    }
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK && (ss_scenarios_need_calibration(sc, nsc, &cfg) ||
                        share_needs_calibration(sc, nsc, &cfg, ss_trace_meta_of(t)))) {
        st = ss_calibrate_comm(c, t, SS_CALIB_ROWS, &cal);
        have_cal = st == SS_OK;
        if (have_cal && c->rank == 0 && !a.quiet) print_calibration(&cal, &cfg, a.json ? stderr : stdout);
    }
    if (st == SS_OK && !have_cal && c->rank == 0 && !a.quiet && ss_trace_meta_of(t)->gpus > 1) {
        /* a sweep that does not calibrate still says when the ranks do not step together */
        double spread, period, every;
        st = ss_calib_asks(t, SS_CALIB_MIN_ROWS, &spread, &period, &every);
        if (st == SS_OK)
            note_not_lockstep(spread, period, every, cfg.sync_every, other_models(sc, nsc), a.json ? stderr : stdout);
    }
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK) {
        st = ss_scenarios_resolve(sc, nsc, &cfg, have_cal ? &cal : NULL, ss_trace_meta_of(t)->loader_workers);
        if (st == SS_OK && have_cal && c->rank == 0 && !a.quiet) {
            note_not_lockstep(cal.ask_spread, cal.ask_period, cal.ask_together_every, cfg.sync_every,
                              other_models(sc, nsc), a.json ? stderr : stdout);
            note_sync_delivery(sc, nsc, &cfg, &cal, a.json ? stderr : stdout);
            note_fetch_cpu(sc, nsc, &cfg, &cal, a.json ? stderr : stdout);
            note_prefetch(sc, nsc, &cal, a.json ? stderr : stdout);
            note_busy_trace(sc, nsc, &cfg, &cal, a.json ? stderr : stdout);
            note_start_window(sc, nsc, &cfg, &cal, a.json ? stderr : stdout);
            note_startup(sc, nsc, &cfg, &cal, a.json ? stderr : stdout);
            note_storage(sc, nsc, &cfg, &cal, ss_trace_meta_of(t), a.json ? stderr : stdout);
            note_no_cpu(sc, nsc, &cfg, &cal, ss_trace_meta_of(t), a.json ? stderr : stdout);
        }
    }
    if (st == SS_OK && c->rank == 0) st = ss_ensure_dir(cfg.out_dir);
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK) {
        const ss_trace_meta *m = ss_trace_meta_of(t);
        st = ss_results_open(c, cfg.out_dir, sc, nsc, m->iterations, m->gpus, cfg.per_iteration, &res);
    }
    ss_series_sink sink = {res, series_to_results};
    if (st == SS_OK)
        st = ss_sweep_run(c, &cfg, t, sc, nsc, res && ss_results_per_iteration(res) ? &sink : NULL,
                          a.quiet ? 0 : a.progress ? 2 : 1, &sum,
                          &timing);
    ss_ranking ranking;
    memset(&ranking, 0, sizeof ranking);
    if (st == SS_OK && c->rank == 0) {
        if (have_cal) { /* before the ranking, which reads the calibrated delivery costs (sum owns cal now) */
            st = ss_summary_adopt_calib(&sum, &cal, ss_trace_meta_of(t));
            have_cal = 0;
        }
        if (st == SS_OK) st = ss_rank(&sum, sel_epochs > 0 ? (double)sel_rows / (double)sel_epochs : 0.0, &ranking);
        if (st == SS_OK) sum.rank = &ranking;
    }
    /* a trace written to while it was read (a recording still being imported, a copy over
     * it) gives numbers of no one run: nothing is written then */
    if (st == SS_OK && t) st = ss_trace_check_unchanged(t);
    st = ss_comm_any_failed(c, st);
    /* summary.csv under a temporary name first; it is renamed into place with results.h5 */
    char csv_path[SS_PATH_MAX + 16], csv_tmp[SS_PATH_MAX + 64];
    csv_tmp[0] = '\0';
    snprintf(csv_path, sizeof csv_path, "%s/summary.csv", cfg.out_dir);
    if (st == SS_OK && c->rank == 0) st = ss_atomic_tmpname(csv_path, csv_tmp, sizeof csv_tmp);
    if (st == SS_OK && c->rank == 0) st = ss_report_write_csv(&sum, csv_tmp);
    st = ss_comm_any_failed(c, st);
    if (res) st = ss_results_finish(res, st, c->rank == 0 ? &sum : NULL, cfg.text, cfg.trace_path,
                                    csv_tmp[0] ? csv_tmp : NULL, csv_path);
    else if (csv_tmp[0]) ss_atomic_discard(csv_tmp);
    if (st == SS_OK && c->rank == 0) {
        if (a.json) ss_report_print_json(&sum, stdout);
        else if (!a.quiet) {
            ss_report_print_table(&sum, stdout);
            printf("wrote %s/summary.csv and %s/results.h5%s\n", cfg.out_dir, cfg.out_dir,
                   ss_atomic_commit_replaced() ? " (replacing an earlier run's)" : "");
        }
    }
    st = ss_comm_agree(c, st);
    if (c->rank == 0) { /* an output folder made for a run that wrote nothing goes again */
        if (st == SS_OK) ss_atomic_keep_new_dirs();
        else ss_atomic_remove_new_dirs();
    }
    if (t && st == SS_OK && !a.quiet) ss_trace_report_warnings(t, c);
    if (t) ss_trace_close(t);
    if (st == SS_OK && a.timing) report_timing(c, &timing, cal.seconds, ss_wtime() - t_start);
    if (have_cal) ss_calib_free(&cal);
    ss_ranking_free(&ranking);
    ss_summary_free(&sum);
    free(sc);
    free(a.sets);
    ss_config_free(&cfg);
    return ss_exit_code(st);
}
