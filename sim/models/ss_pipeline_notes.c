/* ss_pipeline_notes.c - the pipeline model's advice: the notes `run` prints before a sweep
 * (what the trace cannot show, what a setting assumes) and the hints the ranking reads. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_limits.h"
#include "ss_pipeline_internal.h"

extern const ss_model_ops ss_model_pipeline;

/* The notes concern the model's own scenarios. */
static int is_pipe(const ss_scenario *s) { return ss_model_get(s->model) == &ss_model_pipeline; }

/* A synchronous trace (W = 0) shows no delivery cost, the time a batch made by a worker
 * takes to reach the loop (queue, unpickling): pipeline scenarios that give such a GPU
 * workers, with delivery = auto, assume none, unless the trace's probe of one worker tells
 * it. Says so once, with what to do, or what the probe measured. */
static void note_sync_delivery(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    if (!ssp_options_of(cfg)->delivery.is_auto || !cal->workers_gpu) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i])) continue;
        int first = -1, n = 0, probed = 0;
        for (int g = 0; g < cal->gpus; g++) {
            const int w = ssp_loader_of(ssp_params_of(&sc[i]), g).workers;
            if (cal->workers_gpu[g] == 0 && w > 0) {
                if (first < 0) first = g;
                n++;
                probed += ssp_probed(ssp_params_of(&sc[i]), w, g);
            }
        }
        if (n == 0) continue;
        if (probed == n) {
            const size_t G = (size_t)cal->gpus, g = (size_t)first;
            char later[160] = "";
            const double *pg = cal->probe_gpu;
            if (cal->probe_next && sc[i].persistent != 1)
                snprintf(later, sizeof later, "; in a later epoch %.1f ms in iter(loader), %.1f ms to its first fetch",
                         1e3 * pg[SSP_PROBE_NEXT_LEAD * G + g], 1e3 * pg[SSP_PROBE_NEXT_STARTUP * G + g]);
            else if (!cal->probe_next)
                snprintf(later, sizeof later, "; the probe started its worker once (probe file version 1), so later "
                                              "epochs take that start, and a process's first start can be its slowest");
            fprintf(out, "note: the trace loads synchronously (W = 0); scenarios that give it workers, such as %s, "
                         "take what the recorder's probe of one worker cost on GPU %d: %.1f ms in iter(loader), "
                         "%.1f ms to its first fetch, %.2f ms to deliver a ready batch, %.1f ms to shut down%s "
                         "(MODELS-pipeline.md, \"From a synchronous trace\")\n",
                    ss_model_note_label(sc, nsc, &sc[i]), first, 1e3 * pg[SSP_PROBE_LEAD * G + g],
                    1e3 * pg[SSP_PROBE_STARTUP * G + g], 1e3 * pg[SSP_PROBE_DELIVERY * G + g],
                    1e3 * pg[SSP_PROBE_STOP * G + g], later);
            return;
        }
        char who[64];
        if (n == cal->gpus) snprintf(who, sizeof who, "%s", n == 1 ? "the GPU" : "every GPU");
        else if (n == 1) snprintf(who, sizeof who, "GPU %d", first);
        else snprintf(who, sizeof who, "GPU %d and %d more", first, n - 1);
        fprintf(out, "note: %s loads synchronously in the trace (W = 0), so the trace cannot show the delivery cost "
                     "that a loader with workers adds to every batch (queue, unpickling, and the waits for a core on "
                     "busy cores, the busier the cores the longer); scenarios that give workers to it, such as %s, "
                     "assume none and are optimistic by it (their interval is the 'from a synchronous trace' class's): "
                     "to include it, sweep them with [pipeline] delivery = "
                     "SECONDS (which then applies to synchronous GPUs too: keep the baseline from delivery = auto)\n",
                who, ss_model_note_label(sc, nsc, &sc[i]));
        return;
    }
}

/* The first pipeline scenario of sc[0..nsc) that gives some GPU other workers than the
 * trace's (calibrated) loader, or NULL */
static const ss_scenario *other_workers(const ss_scenario *sc, int nsc, const ss_calib *cal)
{
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++)
            if (ssp_loader_of(ssp_params_of(&sc[i]), g).workers != cal->workers_gpu[g]) return &sc[i];
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
    if (ssp_options_of(cfg)->storage_parallel > 0.0) {
        if (synthetic)
            fprintf(out, "note: the trace is one that stallsim gen made: its fetch times were drawn, with no storage "
                         "behind them, and storage sharing ([pipeline] storage_parallel = %g) slows or speeds its "
                         "scenarios' reads by its own rule alone (the read_stretch column)\n",
                    ssp_options_of(cfg)->storage_parallel);
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
        const double f = cal->fetch_med_gpu[g], c = ssp_trace_cpu_part(ssp_params_of(which), g);
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
                 "optimistic, fewer pessimistic: set [pipeline] storage_parallel (scripts/storage_probe.py measures it on the dataset's "
                 "files); leave it 0 for storage that does not slow down\n",
            100.0 * share,
            known ? "not its CPU part (recorded CPU time and wait for a core, or [pipeline] fetch_cpu): reads, or "
                    "waits for them"
                  : "taken as reads, as the trace records no CPU time of its fetches ([pipeline] fetch_cpu sets one)",
            ss_model_note_label(sc, nsc, which));
}

/* What fetch_scale scales, when a scenario scales fetches: the recorded CPU part kept
 * (auto), a set one, or (no CPU recorded) the whole fetch. Says it once. */
/* Both models end every step with all GPUs together (the all-reduce). Ranks that step
 * together ask for their next batch within a small part of a step of each other. Ranks
 * that synchronise only every few steps (gradient accumulation under DDP's no_sync) drift
 * apart in between by more than a step, and a replay that ends every step together
 * mispredicts them (sim/models/DECISIONS.md). */
#define NOT_LOCKSTEP_SPREAD 0.5
/* With sync_every = N > 1 the asks spread more on the rows between two all-reduces than on
 * those after one; below this ratio the trace shows no such phase */
#define NOT_SYNC_EVERY_RATIO 3.0
/* A ratio from which the trace shows its own period: the asks spread this many times as much
 * between two all-reduces as after one */
#define SYNC_EVERY_SEEN 10.0
/* 1 when a scenario of another model than the pipeline (which alone has sync_every) is swept */
static int other_models(const ss_scenario *sc, int nsc)
{
    for (int i = 0; i < nsc; i++)
        if (!is_pipe(&sc[i]) && sc[i].model != ss_model_measured_id()) return 1;
    return 0;
}
/* "nd" of 2nd, "rd" of 3rd, "th" of 4th to 20th (the periods named here are 2 to 8) */
static const char *ordinal(long n) { return n == 2 ? "nd" : n == 3 ? "rd" : "th"; }

/* The trace's own all-reduce period, from its asks (ss_calib.ask_phase_ratio): a note where
 * sync_every is not given and the trace shows one; a warning where sync_every = N > 1 and
 * the asks spread as much on the rows after each N-th step as on the others (a loop that
 * all-reduces every step, or at another period) */
static void note_sync_every_phase(const ss_calib *cal, long sync_every, FILE *out)
{
    /* the trace's own period: the least N whose ratio is at least half the largest, where
     * that is clearly one (SYNC_EVERY_SEEN) */
    int seen = 0;
    double top = 0.0;
    for (int N = 2; N <= SS_CALIB_PHASES; N++) top = cal->ask_phase_ratio[N] > top ? cal->ask_phase_ratio[N] : top;
    for (int N = 2; N <= SS_CALIB_PHASES && !seen && top >= SYNC_EVERY_SEEN; N++)
        if (cal->ask_phase_ratio[N] >= 0.5 * top) seen = N;
    if (sync_every < 2) {
        if (seen)
            fprintf(out, "note: the GPUs' loops ask together after every %d%s step and drift in between (their asks "
                         "spread %.0fx as much on the other steps): gradient accumulation under DDP's no_sync? "
                         "[pipeline] sync_every = %d replays it\n",
                    seen, ordinal(seen), cal->ask_phase_ratio[seen], seen);
        return;
    }
    if (sync_every > SS_CALIB_PHASES) return;
    const double r = cal->ask_phase_ratio[sync_every];
    if (!(r > 0.0) || !(r < NOT_SYNC_EVERY_RATIO)) return;
    char other[96] = "this one looks synchronised every step";
    if (seen) snprintf(other, sizeof other, "this one's asks come together after every %d%s step", seen, ordinal(seen));
    fprintf(out, "warning: [pipeline] sync_every = %ld, but the GPUs' loops ask as far apart after every %ld%s step "
                 "as after the others (%.2fx): a loop that all-reduces every %ld steps asks together after each "
                 "all-reduce and drifts in between; %s, and the replay is off by what the baseline replay shows\n",
            sync_every, sync_every, ordinal(sync_every), r, sync_every, other);
}

static void note_not_lockstep(double spread, double period, double together_every, long sync_every, int other_models,
                              FILE *out)
{
    if (!(period > 0.0) || !(spread > NOT_LOCKSTEP_SPREAD * period)) return;
    /* the answer's own line: a row's iteration time is its longest over the GPUs, so ranks
     * that drift apart make every mean of them longer than the job's steps, and a scenario
     * keeps the measured ratio of the rows to the wall time (COLUMNS.md, run_time) */
    fprintf(out, "warning: the ranks do not step together (their loops ask %.1f step periods apart): each row counts "
                 "its slowest rank's iteration, so the whole run and the ranked cuts can be far off%s (--explain)\n",
            spread / period, sync_every > 1 ? "" : "; [pipeline] sync_every replays an all-reduce every N steps");
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
                 "far to trust the predictions); the pipeline model replays the all-reduce every N steps with [pipeline] sync_every = N%s\n",
            spread, spread / period, period, every, set);
}

static void note_fetch_cpu(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    int scaled = 0;
    for (int i = 0; i < nsc; i++)
        scaled |= is_pipe(&sc[i]) && sc[i].fetch_scale != 1.0;
    if (!scaled) return;
    char v[48];
    ss_autoval_format(&ssp_options_of(cfg)->fetch_cpu, v, sizeof v);
    if (!ssp_options_of(cfg)->fetch_cpu.is_auto && ssp_options_of(cfg)->fetch_cpu.value == 0.0)
        fprintf(out, "note: fetch_scale scales whole fetches (pipeline.fetch_cpu = 0)\n");
    else if (!ssp_options_of(cfg)->fetch_cpu.is_auto)
        fprintf(out, "note: fetch_scale keeps %s s of every fetch (pipeline.fetch_cpu = %s) and scales the rest\n", v, v);
    else if (cal->fetch_cpu_gpu && ssp_options_of(cfg)->fetch_cpu.value != 1.0 && ssp_options_of(cfg)->fetch_cpu.value != 0.0)
        fprintf(out, "note: fetch_scale keeps the recorded CPU part of every fetch times %g (pipeline.fetch_cpu = %s) "
                     "and scales the rest\n", ssp_options_of(cfg)->fetch_cpu.value, v);
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
        if (!is_pipe(&sc[i])) continue;
        int keeps = sc[i].prefetch == SS_PREFETCH_AUTO;
        for (int g = 0; !keeps && g < cal->gpus; g++)
            if (cal->workers_gpu[g] > 0 && sc[i].prefetch == cal->prefetch_gpu[g]) keeps = 1;
        if (keeps) return;
    }
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i]) || sc[i].prefetch == SS_PREFETCH_AUTO) continue;
        for (int g = 0; g < cal->gpus; g++) {
            if (cal->workers_gpu[g] == 0 || ssp_loader_of(ssp_params_of(&sc[i]), g).workers == 0 ||
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
 * storage (its predictions fall in the "near saturation" class; sim/models/DECISIONS.md). */

/* A trace with the waits for a core but without the first window's (imported before
 * /fetch_wait_start_time existed) whose workers outnumber a pool's cores, swept to fewer
 * workers: its start-up waits then count as storage time. */
static void note_start_window(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    const ss_share *sh = cal->share;
    if (!sh || !sh->fetch_wait || sh->start_wait || !ssp_cpu_sharing_on(ssp_options_of(cfg)) || !ss_share_start_crowded(sh))
        return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++)
            if (ssp_loader_of(ssp_params_of(&sc[i]), g).workers < cal->workers_gpu[g]) {
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
        if (!is_pipe(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++)
            if (ssp_loader_of(ssp_params_of(&sc[i]), g).workers != cal->workers_gpu[g]) {
                fprintf(out, "note: each epoch's first batch came %.2f s after the loop asked for it (mean over the %ld "
                             "epoch%s the calibration read; a step takes %.4f s): the loader starting, its workers and "
                             "its first fetches. The summaries leave each epoch's first %ld iterations out "
                             "(warmup_iterations): change%% is the steady state; run%% (run_time) has every epoch's "
                             "start, which a scenario with other workers, such as %s, replays as its workers share "
                             "the cores while they start (persistent_workers = true starts them once)\n",
                        cal->startup, cal->startup_epochs, cal->startup_epochs == 1 ? "" : "s", cal->ask_period,
                        cfg->warmup_iterations, ss_model_note_label(sc, nsc, &sc[i]));
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
    if (!ssp_options_of(cfg)->cpu_sharing || ss_trace_meta_has_cpu(m) || ss_trace_meta_is_synthetic(m) || !cal->workers_gpu) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i]) || ssp_same_load(ssp_params_of(&sc[i]), &sc[i], cal->workers_gpu, cal->gpus)) continue;
        fprintf(out, "note: the trace records no CPU times of its fetches and training loops (the recorder's "
                     "/fetch_cpu_time, /loop_cpu_time, /cpu_pool and /cpu_pool_cores, from its format 2), so CPU "
                     "sharing is off: scenarios that change the load, such as %s, keep the trace's contention for the "
                     "cores (on busy cores, more workers or faster storage come out optimistic, fewer workers "
                     "pessimistic; datasets/VALIDATION.md gives the errors without those datasets): record with scripts/stallsim_record.py where you can\n",
                ss_model_note_label(sc, nsc, &sc[i]));
        return;
    }
}

static void note_busy_trace(const ss_scenario *sc, int nsc, const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    const ss_share *sh = cal->share;
    if (!sh || !ssp_cpu_sharing_on(ssp_options_of(cfg))) return;
    double miss;
    const int q = ss_share_contention_pool(sh, &miss);
    const double s0 = sh->s0[q], m0 = sh->s0m ? sh->s0m[q] : 0.0, ms = sh->s0m ? sh->s0m_step[q] : 0.0;
    if (sh->s0m ? !(m0 > SS_SHARE_BUSY_STRETCH || miss > SS_SHARE_MODEL_MISS) : !(s0 > SS_SHARE_BUSY_STRETCH)) return;
    int changes = other_workers(sc, nsc, cal) != NULL;
    for (int i = 0; i < nsc; i++) changes |= is_pipe(&sc[i]) && sc[i].fetch_scale != 1.0;
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

/* A GPU that loads synchronously in the trace shows no worker start-up at an epoch's start
 * (MODELS-pipeline.md, "An epoch's start"): scenarios that give it workers cannot replay
 * one. Says so once. */
static void note_start_unknown(const ss_scenario *sc, int nsc, const ss_calib *cal, FILE *out)
{
    if (!cal->workers_gpu) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i])) continue;
        const ssp_params *p = ssp_params_of(&sc[i]);
        for (int g = 0; g < cal->gpus; g++) {
            const int w = ssp_loader_of(p, g).workers;
            if (cal->workers_gpu[g] == 0 && w > 0 && !ssp_probed(p, w, g)) {
                int sync = 0; /* how many GPUs load synchronously: "GPU g" or "every GPU" */
                for (int h = 0; h < cal->gpus; h++) sync += cal->workers_gpu[h] == 0;
                char who[48];
                if (sync == cal->gpus && cal->gpus > 1) snprintf(who, sizeof who, "every GPU loads");
                else snprintf(who, sizeof who, "GPU %d loads", g);
                fprintf(out, "note: %s synchronously in the trace (W = 0), so the trace shows no start-up of "
                             "loader workers at an epoch's start; scenarios that give workers, such as %s, leave "
                             "that start-up out of every epoch (run_time and epoch_start_time optimistic by it): a trace "
                             "recorded with workers shows it, and so does the recorder's probe of one worker\n",
                        who, ss_model_note_label(sc, nsc, &sc[i]));
                return;
            }
        }
    }
}

/* A trace without its pools of cores (importers other than pytorch, recorder format 1):
 * scenarios with other workers keep each worker's start-up as recorded, with no change of
 * the contention while the workers start. Says so once, where a scenario changes the
 * workers of a GPU whose epochs start with a start-up. */
static void note_start_as_recorded(const ss_scenario *sc, int nsc, const ss_calib *cal, FILE *out)
{
    if (cal->share || !cal->workers_gpu || cal->startup_epochs < 1 || !(cal->startup > SS_STARTUP_NOTE_S)) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++) {
            const int w = ssp_loader_of(ssp_params_of(&sc[i]), g).workers;
            if (cal->workers_gpu[g] > 0 && w > 0 && w != cal->workers_gpu[g]) {
                fprintf(out, "note: the trace records no pools of cores, so scenarios with other workers, such as %s, "
                             "keep each worker's start-up at an epoch's start, and its shutdown at a pass's end, as "
                             "recorded (more workers starting or stopping on the same cores take longer in a real run)\n",
                        ss_model_note_label(sc, nsc, &sc[i]));
                return;
            }
        }
    }
}

/* A trace without its pass starts (importers other than pytorch): the time between epochs
 * stays as measured in every scenario (MODELS-pipeline.md, "Between passes"). Says so once,
 * where a scenario changes the workers of a GPU that had workers, or keeps them persistent
 * where the trace's were not. */
static void note_between_as_recorded(const ss_scenario *sc, int nsc, const ss_calib *cal, const ss_trace_meta *m,
                                     FILE *out)
{
    if (m->pass_start || !cal->workers_gpu) return;
    for (int i = 0; i < nsc; i++) {
        if (!is_pipe(&sc[i])) continue;
        for (int g = 0; g < cal->gpus; g++) {
            const int w = ssp_loader_of(ssp_params_of(&sc[i]), g).workers;
            const int kept = w > 0 && sc[i].persistent == 1 && m->persistent_workers != 1;
            if (cal->workers_gpu[g] > 0 && (w != cal->workers_gpu[g] || kept)) {
                fprintf(out, "note: the trace records no pass starts (when each epoch called iter(loader)), so "
                             "scenarios with other or persistent workers, such as %s, keep the time between epochs "
                             "as measured (in a real run the workers' start there grows with them, persistent "
                             "workers start once, and their shutdown grows where they crowd the cores): "
                             "scripts/stallsim_record.py records it\n",
                        ss_model_note_label(sc, nsc, &sc[i]));
                return;
            }
        }
    }
}

/* A trace whose workers persisted shows no worker start after its first epoch, so a scenario
 * with persistent_workers = false cannot price starting them at every epoch (MODELS-pipeline.md,
 * "An epoch's start"): it would come out as if they persisted. Says so, as a warning, once. */
/* 1 when scenario s (pipeline) asks for workers that do not persist on some GPU of a trace
 * whose workers persisted (trace_persisted): its whole run is not priced (SS_HINT_RUN_UNPRICED). */
static int run_unpriced(const ss_scenario *s, int trace_persisted, int gpus)
{
    if (!trace_persisted || s->persistent != 0) return 0;
    for (int g = 0; g < gpus; g++)
        if (ssp_loader_of(ssp_params_of(s), g).workers > 0) return 1;
    return 0;
}

static void note_persist_false(const ss_scenario *sc, int nsc, const ss_calib *cal, const ss_trace_meta *m,
                               FILE *out)
{
    const int persisted = m->persistent_workers == 1 && m->epochs >= 2;
    for (int i = 0; i < nsc; i++)
        if (is_pipe(&sc[i]) && run_unpriced(&sc[i], persisted, cal->gpus)) {
            fprintf(out, "warning: the trace's workers persisted (persistent_workers = 1), so it shows no worker "
                         "start after its first epoch: scenarios with persistent_workers = false, such as %s, cannot "
                         "add one. Their whole run is not priced: no interval, not ranked by it. A real job pays its "
                         "first epoch's start at every epoch\n",
                    ss_model_note_label(sc, nsc, &sc[i]));
            return;
        }
}

/* The trace's calibration as the model's settings take it (after ss_calib_print). */
void ssp_calib_notes(const ss_config *cfg, const ss_calib *cal, FILE *out)
{
    const ssp_options *o = ssp_options_of(cfg);
    if (o->storage_parallel > 0.0 && cal->fetch_med_gpu && !cal->no_fetch)
        fprintf(out, "calibration: storage sharing ([pipeline] storage_parallel = %g): the trace's period T0 = %.6g s "
                     "and step C = %.6g s (medians over the calibration rows of the slowest GPU's iteration time and "
                     "of that minus the largest stall)\n",
                o->storage_parallel, cal->period, cal->step);
    if (!cal->share) return;
    if (ssp_cpu_sharing_on(o))
        fprintf(out, "calibration: CPU sharing is on ([pipeline] cpu_sharing = true): each scenario's CPU work is "
                     "stretched to its own load\n");
    else
        fprintf(out, "calibration: CPU sharing is off (%s): every scenario keeps the trace's contention\n",
                !o->cpu_sharing ? "[pipeline] cpu_sharing = false" : "[pipeline] fetch_cpu is not auto");
}

ss_status ssp_notes(const ss_notes_in *in, FILE *out)
{
    const ss_scenario *sc = in->sc;
    const int nsc = in->nsc;
    const ss_config *cfg = in->cfg;
    const ss_calib *cal = in->cal;
    const long sync_every = ssp_options_of(cfg)->sync_every;
    if (!cal) { /* a sweep that does not calibrate still says when the ranks do not step together */
        if (in->meta->gpus < 2) return SS_OK;
        double spread, period, every;
        ss_status st = ss_calib_asks(in->t, SS_CALIB_MIN_ROWS, &spread, &period, &every);
        if (st == SS_OK) note_not_lockstep(spread, period, every, sync_every, other_models(sc, nsc), out);
        return st;
    }
    if (in->meta->gpus >= 2) note_sync_every_phase(cal, sync_every, out);
    note_not_lockstep(cal->ask_spread, cal->ask_period, cal->ask_together_every, sync_every, other_models(sc, nsc),
                      out);
    note_sync_delivery(sc, nsc, cfg, cal, out);
    note_fetch_cpu(sc, nsc, cfg, cal, out);
    note_prefetch(sc, nsc, cal, out);
    note_busy_trace(sc, nsc, cfg, cal, out);
    note_start_window(sc, nsc, cfg, cal, out);
    note_startup(sc, nsc, cfg, cal, out);
    note_start_unknown(sc, nsc, cal, out);
    note_start_as_recorded(sc, nsc, cal, out);
    note_between_as_recorded(sc, nsc, cal, in->meta, out);
    note_persist_false(sc, nsc, cal, in->meta, out);
    note_storage(sc, nsc, cfg, cal, in->meta, out);
    note_no_cpu(sc, nsc, cfg, cal, in->meta, out);
    return SS_OK;
}

/* A trace whose loaders were behind: the measured run's mean stall is more than this many
 * times the median delivery cost (the part of a stall that remains with the batch ready). */
#define BEHIND_STALLS 3.0
/* A prediction whose loaders keep ahead: its mean stall is less than this many times the
 * median delivery cost (the largest of the GPUs' deliveries is about 1.5-2 times their
 * median), times the scenario's delivery factor. */
#define AHEAD_STALLS 2.0

/* The median of the calibrated delivery costs (0 without them). */
static double median_delivery(const ss_calib *cal)
{
    if (!cal || !cal->delivery_gpu || cal->gpus < 1) return 0.0;
    const int G = cal->gpus;
    double *d = malloc((size_t)G * sizeof *d);
    if (!d) return 0.0;
    memcpy(d, cal->delivery_gpu, (size_t)G * sizeof *d);
    gsl_sort(d, 1, (size_t)G);
    const double med = (d[(G - 1) / 2] + d[G / 2]) / 2;
    free(d);
    return med;
}

unsigned ssp_hints(const ss_scenario *s, const ss_hint_in *in)
{
    const ssp_params *p = ssp_params_of(s);
    unsigned h = 0;
    if (p->workers == 0 && !p->workers_gpu) h |= SS_HINT_NO_WORKERS;
    if (s->workers.is_auto && p->workers == 0) h |= SS_HINT_NO_WORKERS_AUTO;
    if (in && run_unpriced(s, in->trace_persisted, in->gpus)) h |= SS_HINT_RUN_UNPRICED;
    if (in) {
        const double med = median_delivery(in->cal);
        if (med > 0.0 && in->measured_stall > BEHIND_STALLS * med && in->stall < AHEAD_STALLS * med * in->delivery_factor)
            h |= SS_HINT_LOADERS_AHEAD;
    }
    return h;
}

/* The class of a prediction (MODELS-pipeline.md, "Intervals"), first that applies: the
 * baseline replay (no [pipeline] key changes it); from a trace where some GPU loaded synchronously, a scenario that gives
 * it workers (probed: it takes the costs of the trace's probe of one worker); near saturation (the row keeps more than SSP_BUSY_PCT of its cores busy); a
 * GPU healed; loaders now ahead (SS_HINT_LOADERS_AHEAD); else the loader stays the
 * bottleneck (or nothing it changes sets the pace): on calm cores where the trace and the
 * row each keep under SSP_CALM_PCT of them busy (not where either is unknown). */
const ss_error_class *ssp_error_class(const ss_scenario *s, const ss_class_in *in)
{
    int c = SSP_CLASS_BOUND;
    /* a [pipeline] key that changes the replay itself: no baseline's error says how far */
    if (s->baseline && ((const ssp_settings *)(const void *)s->settings)->own_model) c = SSP_CLASS_BASELINE;
    else {
        int sync = 0, probed = 0;
        const ss_calib *cal = in->cal;
        const ssp_params *p = ssp_params_of(s);
        for (int g = 0; cal && cal->workers_gpu && g < cal->gpus && !sync; g++) {
            const int w = ssp_loader_of(p, g).workers;
            sync = cal->workers_gpu[g] == 0 && w > 0;
            probed = sync && ssp_probed(p, w, g);
        }
        if (sync) c = probed ? SSP_CLASS_PROBED : SSP_CLASS_SYNC;
        else if (in->cpu_load_pct > SSP_BUSY_PCT) c = SSP_CLASS_BUSY;
        else if (s->heal.n > 0) c = SSP_CLASS_HEAL;
        else if (in->hints & SS_HINT_LOADERS_AHEAD) c = SSP_CLASS_AHEAD;
        else if (in->trace_load_pct < SSP_CALM_PCT && in->cpu_load_pct < SSP_CALM_PCT) c = SSP_CLASS_CALM;
    }
    return &ssp_error_classes[c];
}
