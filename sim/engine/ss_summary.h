/* ss_summary.h - the merged outcome of a sweep on rank 0: one partial per scenario, the
 * straggler counts, the calibration; and the figures derived from them (MODELS-independent.md, MODELS-pipeline.md). */
#ifndef SS_SUMMARY_H
#define SS_SUMMARY_H

#include "ss_calibrate.h"
#include "ss_scenario.h"
#include "ss_stats.h"

typedef struct {
    int nsc, gpus;
    const ss_scenario *sc;
    ss_partial *p;      /* [nsc] */
    long *straggler;    /* [nsc * gpus] iterations in which GPU g alone had the largest stall */
    double *cpu_stretch; /* [nsc] the stretch of CPU work each scenario replays with (CPU sharing), or NaN */
    double *read_stretch; /* [nsc] how many times as long as in the trace each read takes (storage sharing), or NaN */
    double *delivery_factor; /* [nsc] the largest factor on the GPUs' deliveries (CPU sharing), or NaN */
    double *between;      /* [nsc] each scenario's time between the epochs' passes, summed
                           * (ss_passes.h; NULL: none counted) */
    double *tail;         /* [nsc] and after the last pass's last row: its workers' shutdown
                           * (ss_passes.h; NULL: none counted) */
    double kept_between;  /* of the measured run's time between passes, what every row keeps as
                           * measured: each epoch's between time less its lead and its stop, summed
                           * (the loop's own work; without pass starts, all of it); 0 where none */
    /* with pass starts: over the epochs after the first, how much later the last GPU's loop
     * began its pass than the first GPU's (its own work before iter(loader), such as rank 0
     * evaluating alone), summed, which every row keeps as measured ("The first asks"); and
     * the GPU that began last in most of them (-1: none) */
    double late_passes;
    int late_gpu;
    int kept_with;        /* what else kept_between holds: SS_KEPT_STARTS (the trace has no pass starts:
                           * the workers' starts and stops), SS_KEPT_STOPS (no pass stops: their
                           * stops), SS_KEPT_OWN (nothing else) */
    double host_others;   /* other processes' largest share of a pool's cores while the trace was
                           * recorded (ss_trace_meta_host_others; NaN where not recorded) */
    unsigned quiet_models; /* bit m set: model m's rows take the job as if alone on its cores
                            * (ss_model_ops.quiet_host), beside others' recorded load, so the answer
                            * measures their changes against that model's baseline replay
                            * (ss_summary_ref); ss_summary_set_quiet sets it */
    int quiet_ref[32];     /* per model with its bit set: its first baseline row, or the measured one */
    double wall_ratio;    /* the measured passes' wall time over the measured rows' iteration
                           * times summed (ss_passes.h's span; 1 where unknown), which every
                           * row's summed iteration times take in its whole run */
    double reads_trace;   /* storage sharing: the reads the trace kept in flight on average, or NaN */
    double run_start;     /* the measured whole run's start, s since the trace's time_origin (NaN: not known) */
    /* [nsc] seconds each row's whole run adds for the job's evaluation loader ([trace]
     * eval_path, set by the caller after the sweep: MODELS-pipeline.md, "The job's evaluation
     * loader"); NULL: none. With it, kept_between is what neither loader's replay holds. */
    double *other_loader;
    double eval_own;      /* with it, the evaluation loader's own measured time: its rows, its workers'
                           * starts and stops (0: no evaluation loader) */
    const char *eval_trace; /* and its trace's path, as the scenario file gave it (NULL: none; not owned) */
    /* [nsc] each row's class of prediction (NULL: none) and its 90 % interval of the real
     * mean iteration time and whole run's time (ss_summary_intervals; NaN: none) */
    const ss_error_class **cls;
    double *iter_lo, *iter_hi, *run_lo, *run_hi;
    int has_calib;
    ss_calib calib;
    /* from the trace's CPU datasets and the calibrated worker counts
     * (ss_summary_adopt_calib) */
    int has_cpu;
    int cpu_pool, cpu_pool_cores, cpu_pools; /* the measured row's busiest pool (its first GPU), its cores */
    /* per GPU: its loader's CPU per batch (0 where synchronous), the same sorted, its pool's
     * index; per pool: its CPU per iteration, first GPU and cores (NULL without CPU data) */
    double *cpu_fetch, *cpu_fetch_sorted;
    int *cpu_pool_index;
    double *cpu_pool_need;
    int *cpu_pool_head, *cpu_pool_ncores;
    double effective_delay_threshold;
    double storage_parallel; /* storage sharing: the storage's parallelism the rows replay with (0: none) */
    const struct ss_ranking *rank; /* the ranked answer (ss_rank.h), set by the caller; may be NULL */
    long warmup_iterations; /* the selection the rows were summarised over */
    long trace_persistent;  /* the trace's recorded persistent_workers (1, 0; -1 unknown) */
    long trace_batch;       /* the trace's recorded batch size (-1 unknown) */
    long trace_epochs;      /* the trace's epochs */
    long epoch;             /* SS_EPOCH_ALL: every epoch */
} ss_summary;

void ss_summary_free(ss_summary *s);
/* The model's hints on row j (ss_model_ops.hints; 0 where none). */
unsigned ss_summary_hints(const ss_summary *s, int j);
/* How much the measured run varies within itself: |a - b| / ((a + b) / 2) of the mean
 * iteration times of the summarised rows in the trace's first and second halves (0 where
 * a half has none). */
double ss_summary_variability(const ss_summary *s);
/* The trace's own noise, which widens every interval: its variability and other processes'
 * share of its cores while it was recorded, in quadrature, sqrt(v^2 + o^2) (o = 0 where the
 * trace does not record it). */
double ss_summary_trace_noise(const ss_summary *s);
/* The 90 % interval of the real value around prediction P of class c, in the steady state
 * (run 0) or the whole run (run 1), on a trace of noise v (ss_summary_trace_noise): [P / (1 + z95 s), P / (1 +
 * z05 s)] with s = sqrt(m^2 + v^2); NaN ends where the class has no predictions or the
 * bound would not be positive (MODELS-pipeline.md, "Intervals"). */
void ss_summary_class_interval(double P, const ss_error_class *c, int run, double v, double *lo, double *hi);
/* Each row's class of prediction and 90 % interval (rank 0, after the calibration is
 * adopted): the class's scaled error quantiles z05, z95 (predicted / real - 1 over the
 * scale s = sqrt(m^2 + v^2), m the class's model error, v the measured run's noise) give the real
 * value's interval [P / (1 + z95 s), P / (1 + z05 s)] around the prediction P
 * (MODELS-pipeline.md, "Intervals"). */
ss_status ss_summary_intervals(ss_summary *s);
/* A quarter of the trace's rows (0-3) whose summarised rows' mean iteration time differs
 * from the median of the four quarters' by more than SS_UNEVEN_SHARE, the largest such,
 * with that difference (a share, +0.5: 50 % slower) in *change; -1 where none does (or a
 * quarter has no summarised row). */
#define SS_UNEVEN_SHARE 0.25
/* The share of the measured stall in the rows a summary leaves out (each epoch's warm-up,
 * epochs not selected) beyond which run and info say it. */
#define SS_STALL_OUTSIDE_SHARE 0.25
/* The share of the measured whole run that kept_between holds beyond which run says that
 * every row keeps it (a tenth: a whole-run change may then be well short of a steady one). */
#define SS_KEPT_BETWEEN_SHARE 0.10
enum { SS_KEPT_OWN, SS_KEPT_STARTS, SS_KEPT_STOPS };
int ss_summary_uneven(const ss_summary *s, double *change);
/* 100 * (mean iteration time / measured mean - 1); NaN for the measured row itself. */
double ss_summary_change_pct(const ss_summary *s, int j);
/* The whole run of row j (every row of every epoch, whatever the summary selects): its
 * iteration times summed, times wall_ratio, with its time between the epochs' passes and
 * after the last, in seconds (NaN without rows); the measured row's is the trace's wall
 * time from its first ask to its job's end; 100 * (that / the measured run's
 * - 1) (NaN for the measured row); the mean over its epochs of the time between passes
 * before each epoch and the largest stall of its first row (the epoch's start: the old
 * workers stopped, the loop's own work, the new ones started, and its first fetches). */
double ss_summary_run_time(const ss_summary *s, int j);
/* Seconds x summed over rows, in wall time as run_time counts rows: x times wall_ratio (a
 * stall's share of run_time takes the same ratio as the rows do). */
double ss_summary_wall(const ss_summary *s, double x);
double ss_summary_run_change_pct(const ss_summary *s, int j);
double ss_summary_epoch_start(const ss_summary *s, int j);
/* 1 when row j's whole run is not priced (its model's SS_HINT_RUN_UNPRICED: workers that
 * do not persist, of a trace whose workers persisted over its epochs, which shows no start to
 * repeat; MODELS-pipeline.md, "An epoch's start"). Such a row has no whole-run interval and
 * is not ranked by the whole run. */
int ss_summary_run_unpriced(const ss_summary *s, int j);

/* Scenario sc's persistent_workers as it is replayed: as it set it, or for auto the trace's
 * (1 only where the trace says its workers persisted). 1 or 0. */
int ss_summary_persistent(const ss_summary *s, const ss_scenario *sc);
/* Fidelity of a pipeline baseline row against the measured run (NaN elsewhere). */
double ss_summary_fidelity_err_pct(const ss_summary *s, int j);
double ss_summary_fidelity_mape_pct(const ss_summary *s, int j);
double ss_summary_effective_delay_pct(const ss_summary *s, int j);
/* Share (0..1) of summarised iterations in which GPU g alone had the largest stall. */
double ss_summary_straggler_share(const ss_summary *s, int j, int g);
/* The GPU with the largest straggler share of row j, or -1 when no GPU ever stood out;
 * *next = the largest share of the other GPUs (0 with one GPU). */
int ss_summary_slowest_gpu(const ss_summary *s, int j, double *next);
/* The CPU the run of row j keeps busy, in % of the cores it has: the largest over the
 * trace's pools of cores of (the pool's GPUs' CPU per iteration: the loader's per batch
 * plus the training process's; the latter alone where the trace loaded synchronously,
 * since its fetches ran in the training process) / (the pool's cores x row j's mean
 * iteration time). *pool (may be NULL) receives the first GPU of that pool. NaN when the
 * trace does not record the CPU times and pools (datasets/VALIDATION.md). */
double ss_summary_cpu_load_pct(const ss_summary *s, int j, int *pool);
/* The GPU whose loader uses the most CPU per batch, when that is at least 1.5 times the
 * other GPUs' median and it shares its pool of cores with other GPUs (it slows them
 * through the cores, which no stall shows); *own and *others receive the two (seconds).
 * -1 otherwise, or without the trace's CPU times. */
int ss_summary_cpu_heavy_gpu(const ss_summary *s, double *own, double *others);
/* The GPUs whose median fetch time over the calibration rows is at least 1.5 times the
 * usual one (the lower quartile over all GPUs), into *set, when there are two or more of
 * them and at most half of the GPUs (fixing one may then gain nothing while another holds
 * every step back); their count, 0 otherwise or without a calibration with fetch timings.
 * *med receives the usual fetch time. */
int ss_summary_slow_loaders(const ss_summary *s, ss_healset *set, double *med);
/* Moves the calibration into the summary, which frees its arrays from then on (the
 * caller's copy keeps its figures, not the ownership), and derives the CPU figures above
 * from the trace's metadata m (its /fetch_cpu_time, /loop_cpu_time and pools). */
ss_status ss_summary_adopt_calib(ss_summary *s, ss_calib *cal, const ss_trace_meta *m);

/* Index of the measured row (always 0). */
int ss_summary_measured(const ss_summary *s);
/* The row the answer measures row j's change against: the measured run, or where j's model
 * takes a quiet host (quiet_models) its baseline replay, which is then the job alone
 * (MODELS-pipeline.md, "A quiet host"). */
int ss_summary_ref(const ss_summary *s, int j);
/* 1 where model m's rows take a quiet host in the answer (its bit of quiet_models). */
int ss_summary_quiet(const ss_summary *s, ss_model m);
/* Sets quiet_models to mask and finds each such model's reference row once. */
void ss_summary_set_quiet(ss_summary *s, unsigned mask);
/* Row j's change of the mean iteration time (by_run 0) or of the whole run's time (1)
 * against its reference row (ss_summary_ref), in %; NaN for the reference itself. */
double ss_summary_ref_change_pct(const ss_summary *s, int j, int by_run);

#endif
