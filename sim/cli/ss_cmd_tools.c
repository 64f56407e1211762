/* ss_cmd_tools.c - `stallsim info`, `stallsim import` and `stallsim gen`: single-process
 * commands (under mpirun only rank 0 works, the others wait). */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_atomic.h"
#include "ss_calibrate.h"
#include "ss_cmd.h"
#include "ss_config.h"
#include "ss_drift.h"
#include "ss_ownwork.h"
#include "ss_gen.h"
#include "ss_healset.h"
#include "ss_import.h"
#include "ss_limits.h"
#include "ss_number.h"
#include "ss_passes.h"
#include "ss_screen.h"
#include "ss_suggest.h"
#include "ss_summary.h"
#include "ss_timefmt.h"
#include "ss_trace.h"

/* Runs fn on rank 0 only and shares its exit status with every rank. */
static int on_rank0(const ss_comm *c, int (*fn)(int, char **), int argc, char **argv)
{
    int rc = c->rank == 0 ? fn(argc, argv) : 0;
    if (c->mpi) MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm);
    return rc;
}

static int has_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

/* ---- info ---- */

static const char info_usage[] =
    "usage: stallsim info TRACE.h5 [--warmup N] [--verbose]\n"
    "\n"
    "Describes a stalltrace file: GPUs, iterations, epochs, time span, metadata (with the\n"
    "recorded CPU times and pools of cores, when the trace has them), the mean measured\n"
    "iteration time and stall of each GPU (past each epoch's first iterations, the rows run's\n"
    "measured row summarises by default; that row takes the largest over GPUs per iteration,\n"
    "so its mean is at least each GPU's), and the loader calibration per GPU (workers,\n"
    "prefetch factor, worker gap, refill gap, delivery cost and how well they explain the\n"
    "measured fetch starts and stalls; sim/models/MODELS-pipeline.md).\n"
    "  --warmup N   leave each epoch's first N iterations out of the means, as run and\n"
    "               compare --warmup N do (default 11, run's trace.warmup_iterations; where\n"
    "               the default leaves no iteration, the means are over all of them)\n"
    "  --verbose    also each GPU's recorded CPU times and host shares, and every line of\n"
    "               the calibration (without it, only the calibration's warnings)\n";

typedef struct {
    double *it_sum, *st_sum; /* [gpus]: iteration and stall times past each epoch's first `warmup` */
    double *it_all, *st_all; /* [gpus]: over every row */
    /* the largest over GPUs per row (run's and compare's measured row): past the warm-up, all */
    double max_it_sum, max_st_sum, max_it_all, max_st_all;
    long warmup, rows;       /* rows past the warm-up */
    double t_min, t_max;
    long nepochs;
    int32_t last_epoch;
    char epochs[256];
    /* each epoch's lowest index (what the warm-up rule index >= warmup leaves out counts
     * from): the same in every epoch (low_same) or not */
    int64_t low, epoch_low;
    int low_same;
    long *waited_most, *waited_all; /* [gpus] rows (summarised; all) in which the GPU alone had the largest stall */
    double first_stall; /* each epoch's first row's largest stall, summed over the epochs: its first batch */
    /* [iterations] every row's largest iteration time, epoch and index (the level change) */
    double *row_it;
    int32_t *row_epoch;
    int64_t *row_index;
} info_acc;

/* an epoch's lowest index, at its end */
static void fold_low(info_acc *a)
{
    if (a->nepochs == 1) {
        a->low = a->epoch_low;
        a->low_same = 1;
    } else if (a->epoch_low != a->low) {
        a->low_same = 0;
    }
}

/* What the warm-up leaves out, after "past" in info's note: "each epoch's first 11", and
 * where the steps are numbered from 1 (DLIO) one fewer: the rule is index >= warmup. */
static void say_warmup(const info_acc *a, long warmup, char *buf, size_t n)
{
    if (a->low_same && a->low == 0)
        snprintf(buf, n, "each epoch's first %ld", warmup);
    else if (a->low_same && a->low > 0 && a->low < warmup)
        snprintf(buf, n, "each epoch's first %lld (index %ld on: its steps are numbered from %lld)",
                 (long long)(warmup - a->low), warmup, (long long)a->low);
    else if (a->low_same && a->low >= warmup)
        snprintf(buf, n, "the warm-up (index %ld on; each epoch's steps are numbered from %lld: none is left out)",
                 warmup, (long long)a->low);
    else
        snprintf(buf, n, "the warm-up (index %ld on in each epoch)", warmup);
}

static ss_status info_scan(ss_trace_file *t, info_acc *a)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const int G = m->gpus;
    long slab_rows = (long)((32L << 20) / ss_slab_row_bytes(G));
    if (slab_rows < 1) slab_rows = 1;
    if (slab_rows > m->iterations) slab_rows = m->iterations;
    ss_slab s;
    ss_status st = ss_slab_alloc(&s, slab_rows, G);
    a->t_min = INFINITY;
    a->t_max = -INFINITY;
    for (long r0 = 0; st == SS_OK && r0 < m->iterations; r0 += slab_rows) {
        long n = m->iterations - r0 < slab_rows ? m->iterations - r0 : slab_rows;
        st = ss_trace_read(t, r0, n, &s);
        for (long i = 0; st == SS_OK && i < n; i++) {
            if (r0 + i == 0 || s.epoch[i] != a->last_epoch) {
                if (r0 + i > 0) fold_low(a);
                a->first_stall += s.extremes[i * SS_SLAB_NEX + SS_EX_STALL_MAX];
                a->epoch_low = s.index[i];
                size_t len = strlen(a->epochs);
                if (a->nepochs < 12) snprintf(a->epochs + len, sizeof a->epochs - len, "%s%d", a->nepochs ? ", " : "", s.epoch[i]);
                else if (a->nepochs == 12) snprintf(a->epochs + len, sizeof a->epochs - len, ", ...");
                a->nepochs++;
                a->last_epoch = s.epoch[i];
            }
            if (s.index[i] < a->epoch_low) a->epoch_low = s.index[i];
            int counted = s.index[i] >= a->warmup;
            a->rows += counted;
            const double itmax = s.extremes[i * SS_SLAB_NEX + SS_EX_ITER_MAX], stmax = s.extremes[i * SS_SLAB_NEX + SS_EX_STALL_MAX];
            a->row_it[r0 + i] = itmax;
            a->row_epoch[r0 + i] = s.epoch[i];
            a->row_index[r0 + i] = s.index[i];
            a->max_it_all += itmax;
            a->max_st_all += stmax;
            int who = -1; /* the GPU alone with the row's largest stall */
            for (int g = 0; g < G && a->waited_most; g++)
                if (s.stall_time[i * G + g] == stmax) who = who < 0 ? g : -2;
            if (who >= 0 && a->waited_most) {
                a->waited_all[who]++;
                if (counted) a->waited_most[who]++;
            }
            if (counted) {
                a->max_it_sum += itmax;
                a->max_st_sum += stmax;
            }
            for (int g = 0; g < G; g++) {
                long x = i * G + g;
                a->it_all[g] += s.iteration_time[x];
                a->st_all[g] += s.stall_time[x];
                if (counted) {
                    a->it_sum[g] += s.iteration_time[x];
                    a->st_sum[g] += s.stall_time[x];
                }
                double lo = s.fetch_start[x] < s.train_start[x] ? s.fetch_start[x] : s.train_start[x];
                /* an iteration runs from its ask (train_start - stall_time) to the next ask; a
                 * fetch may end later (a batch taken at the end) */
                double hi = s.train_start[x] - s.stall_time[x] + s.iteration_time[x],
                       fend = s.fetch_start[x] + s.fetch_time[x];
                hi = fend > hi ? fend : hi;
                if (lo < a->t_min) a->t_min = lo;
                if (hi > a->t_max) a->t_max = hi;
            }
        }
    }
    ss_slab_free(&s);
    if (a->nepochs > 0) fold_low(a);
    return st;
}

/* A trace without fetch times shows only when each rank waited: which GPU waited most and
 * how often it alone had the largest wait, and what the waits cost per iteration and over
 * the whole run (whole: its rows in wall time and the time between its epochs; waited: the
 * rows' largest waits summed, in wall time alike; traces of profilers and logs). */
static void print_waits(const ss_trace_meta *m, const info_acc *a, double whole, double waited)
{
    const int G = m->gpus;
    double *v = malloc((size_t)G * sizeof *v);
    if (!v || a->rows < 1) {
        free(v);
        return;
    }
    int most = 0;
    for (int g = 0; g < G; g++) {
        v[g] = a->st_sum[g] / (double)a->rows;
        if (v[g] > v[most]) most = g;
    }
    const double top = v[most];
    gsl_sort(v, 1, (size_t)G);
    const double med = gsl_stats_median_from_sorted_data(v, 1, (size_t)G);
    free(v);
    if (G == 1) {
        printf("waits (the trace has no fetch times, only the waits): its one GPU waited %.6f s per iteration, and "
               "%.3f s over the whole run (%.1f%% of its time)\n",
               top, a->max_st_all, whole > 0.0 ? 100.0 * waited / whole : 0.0);
        return;
    }
    printf("waits (the trace has no fetch times, only the waits): GPU %d waited most, %.6f s per iteration (the median "
           "GPU %.6f s), and alone had the largest wait in %.1f%% of the iterations summarised; the largest wait per "
           "iteration costs %.6f s, and %.3f s over the whole run (%.1f%% of its time)\n",
           most, top, med, 100.0 * (double)a->waited_most[most] / (double)a->rows, a->max_st_sum / (double)a->rows,
           a->max_st_all, whole > 0.0 ? 100.0 * waited / whole : 0.0);
}

/* info lists at most this many pools of cores with their GPUs */
#define INFO_POOLS_MAX 16

/* GPUs in the pool of cores whose first GPU is p. */
static int count_pool(const ss_trace_meta *m, int p)
{
    int n = 0;
    for (int g = 0; g < m->gpus; g++) n += m->cpu_pool[g] == p;
    return n;
}

/* A text of the trace as written, but a control character (an escape sequence, a line
 * break) as \xNN: a trace's text must not move the terminal's cursor or fake a line. */
static void print_clean(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) printf("\\x%02X", *p);
        else putchar(*p);
    }
}

/* The trace's metadata; the per-GPU seconds datasets with verbose. Returns whether it left
 * any of them out. */
static int print_meta(const char *path, const ss_trace_meta *m, const info_acc *a, int verbose)
{
    int left_out = 0;
    printf("trace:        %s\n", path);
    printf("gpus:         %d\n", m->gpus);
    printf("iterations:   %ld rows\n", m->iterations);
    printf("epochs:       %ld (%s)\n", a->nepochs, a->epochs);
    int64_t origin_ns;
    printf("time origin:  %s%s\n", m->time_origin,
           ss_time_parse_zone(m->time_origin, &origin_ns, NULL) == 0 ? "" : " (not an ISO 8601 time)");
    printf("time span:    %.6f s .. %.6f s (%.3f s)\n", a->t_min, a->t_max, a->t_max - a->t_min);
    int na;
    const ss_trace_attr *attrs = ss_trace_attrs(&na);
    for (int i = 0; i < na; i++) {
        const char *field = (const char *)m + attrs[i].offset;
        if (attrs[i].is_string && field[0]) {
            printf("%-13s ", attrs[i].name);
            print_clean(field);
            printf("%s\n", attrs[i].note);
        }
        else if (!attrs[i].is_string && *(const long *)field >= 0) {
            printf("%-13s %ld%s", attrs[i].name, *(const long *)field, attrs[i].note);
            /* an attribute as logged may disagree with the rows (a job cut short, a selection) */
            if (field == (const char *)&m->epochs && m->epochs != a->nepochs)
                printf(" (as logged; the rows hold %ld epoch%s)", a->nepochs, a->nepochs == 1 ? "" : "s");
            printf("\n");
        }
    }
    if (m->loader_workers) {
        printf("%-13s", "loader_workers");
        for (int g = 0; g < m->gpus && g < 16; g++) printf(" %d", m->loader_workers[g]);
        printf("%s (per GPU)\n", m->gpus > 16 ? " ..." : "");
    }
    /* the per-GPU seconds datasets, value by value; the pools of cores summed up below */
    int narr;
    const ss_trace_gpu_array *arr = ss_trace_gpu_arrays(&narr);
    for (int i = 0; i < narr; i++) {
        const double *v = *(double *const *)((const char *)m + arr[i].offset);
        if (!arr[i].is_float || !v) continue;
        if (!verbose) {
            left_out = 1;
            continue;
        }
        printf("%-13s", arr[i].name);
        for (int g = 0; g < m->gpus && g < 16; g++) printf(" %.4f", v[g]);
        printf("%s%s\n", m->gpus > 16 ? " ..." : "", arr[i].note);
    }
    if (m->pass_start)
        printf("%-13s %ld epochs: when each GPU's loop called iter(loader)%s\n", "passes", m->passes,
               m->pass_stop ? ", and how long its workers' shutdown took" : "");
    char host[256];
    ss_trace_meta_host_line(m, host, sizeof host);
    if (host[0]) printf("%-13s %s\n", "host_cpu", host);
    if (m->cpu_pool) {
        int pools = 0;
        for (int g = 0; g < m->gpus; g++) pools += m->cpu_pool[g] == g;
        printf("%-13s %d pool%s of cores (GPU 0's: %d core%s shared by %d GPU%s)\n", "cpu_pool", pools,
               pools == 1 ? "" : "s", m->cpu_pool_cores[0], m->cpu_pool_cores[0] == 1 ? "" : "s",
               count_pool(m, 0), count_pool(m, 0) == 1 ? "" : "s");
        /* each pool's GPUs as a heal set: `heal = SET` fixes a node (its GPUs together) */
        for (int p = 0, shown = 0; pools > 1 && p < m->gpus; p++) {
            if (m->cpu_pool[p] != p) continue;
            if (shown++ == INFO_POOLS_MAX) {
                printf("              ... (%d pools more)\n", pools - INFO_POOLS_MAX);
                break;
            }
            ss_healset h = {0};
            int fits = 1;
            for (int g = p; g < m->gpus && fits; g++)
                if (m->cpu_pool[g] == p) fits = ss_healset_add(&h, g) == 0;
            char set[SS_HEAL_TEXT_MAX];
            ss_healset_format(&h, set, sizeof set);
            printf("              pool of GPU %d: %d core%s, ", p, m->cpu_pool_cores[p], m->cpu_pool_cores[p] == 1 ? "" : "s");
            if (!fits) printf("%d GPUs, too scattered for one heal set\n", count_pool(m, p));
            else if (ss_healset_count(&h) == 1) printf("GPU %s alone (heal = %s heals it)\n", set, set);
            else printf("GPUs %s (heal = %s heals them together)\n", set, set);
        }
    }
    return left_out;
}

/* Epochs whose time between passes info lists one by one */
#define INFO_PASSES_LISTED 10

/* The time between the epochs' passes (ss_passes.h), summed over the epochs (*sum), the
 * epochs (*n), the first INFO_PASSES_LISTED epochs' times as text (per, of size np), the
 * time after the last pass's last row (*tail: its workers' shutdown; 0 without pass stops),
 * and the passes' wall ratio to rows, the rows' longest iterations summed (*ratio). */
/* An epoch's start, split (between_of): the mean over the epochs of the earliest asking
 * GPU's iter(loader) (lead) and of its next() that ended the pass before (stop: its workers'
 * shutdown); NaN where the trace has none */
typedef struct {
    double lead, stop;
} start_parts;

static ss_status between_of(ss_trace_file *t, double *sum, long *n, char *per, size_t np, double *tail,
                            double rows, double *ratio, start_parts *parts)
{
    ss_passes p;
    ss_status st = ss_passes_read(t, &p);
    if (st != SS_OK) return st;
    *sum = 0.0;
    size_t u = 0;
    per[0] = '\0';
    for (long e = 0; e < p.n; e++) {
        *sum += p.between[e];
        if (e < INFO_PASSES_LISTED && u < np)
            u += (size_t)snprintf(per + u, np - u, "%s%.3f%s", e ? " " : "", p.between[e],
                                  e == 0 ? " (before the first)" : "");
    }
    if (p.n > INFO_PASSES_LISTED && u < np)
        u += (size_t)snprintf(per + u, np - u, " ... (%ld more)", p.n - INFO_PASSES_LISTED);
    *tail = ss_passes_tail(&p, NULL, NULL);
    if (p.last_end && u < np) snprintf(per + u, np - u, "; after the last: %.3f", *tail);
    *n = p.n;
    *ratio = ss_passes_wall_ratio(&p, rows);
    double ls = 0.0, ss = 0.0;
    long ln = 0, sn = 0;
    for (long e = 0; e < p.n; e++) {
        if (p.lead && isfinite(p.lead[e])) ls += p.lead[e], ln++;
        if (p.stop && isfinite(p.stop[e])) ss += p.stop[e], sn++;
    }
    parts->lead = ln ? ls / (double)ln : NAN;
    parts->stop = sn ? ss / (double)sn : NAN;
    ss_passes_free(&p);
    return SS_OK;
}

/* What the scenarios make of the time between epochs (MODELS-pipeline.md, "Between passes") */
static const char *between_fate(const ss_trace_meta *m)
{
    if (!m->pass_start) return "no pass starts: every scenario keeps it as measured";
    if (ss_trace_meta_has_workers(m) != 1) return "no workers in the trace: every scenario keeps it as measured";
    return "the pipeline model scales the workers' part with them";
}

/* The whole run (run_time of run's measured row: the rows' iteration times summed times
 * ratio, their wall ratio, with between and tail, the time between the epochs' passes and
 * after the last), the stall that the means leave out (counted in wall time alike, as run
 * says it), a trace's waits, and the time between epochs (per_epoch: each epoch's, as text). */
static void print_whole(const ss_trace_meta *m, const info_acc *a, const char *past, double ratio, double between,
                        double tail, long epochs, const char *per_epoch, const start_parts *parts)
{
    const double whole = ratio * a->max_it_all + between + tail, waited = ratio * a->max_st_all;
    if (whole > 0.0)
        printf("whole run:   %.3f s (run_time of run's and compare's measured row: every row of every epoch in "
               "wall time, with the time between epochs%s)\n", whole,
               !strcmp(m->log_type, SS_LOG_TYPE_PROFILER) ? "; a profiler trace holds the schedule's active steps only, "
                                                          "not the whole job" : "");
    const double out_share = a->max_st_all > 0.0 ? (a->max_st_all - a->max_st_sum) / a->max_st_all : 0.0;
    if (a->warmup > 0 && out_share > SS_STALL_OUTSIDE_SHARE && whole > 0.0)
        printf("stall outside the means: %.0f%% of the run's stall lies in the rows they leave out (%s); with them "
               "the stall is %.1f%% of the whole run's time, against %.1f%% of the iterations summarised\n",
               100.0 * out_share, past, 100.0 * waited / whole,
               a->max_it_sum > 0.0 ? 100.0 * a->max_st_sum / a->max_it_sum : 0.0);
    if (!ss_trace_meta_has_fetch(m)) print_waits(m, a, whole, waited);
    if (between >= 5e-4 && whole > 0.0)
        printf("between epochs: %.3f s over the %ld epochs, %.1f%% of the whole run: %sthe loop's own work and "
               "iter(loader) (%s)\n  per epoch (s): %s\n", between, epochs, 100.0 * between / whole,
               ss_trace_meta_has_workers(m) ? "the old workers' shutdown, " : "", between_fate(m), per_epoch);
    /* an epoch's start in its parts, where the recorder timed them (pass starts and stops) */
    if (between >= 5e-4 && whole > 0.0 && !isnan(parts->lead) && a->nepochs > 0 && ss_trace_meta_has_workers(m) == 1) {
        char stop[64] = "";
        if (!isnan(parts->stop)) snprintf(stop, sizeof stop, "%.3f s for the old workers' shutdown, ", parts->stop);
        printf("  an epoch's start, mean over the epochs: %s%.3f s in iter(loader) (starting the workers), then %.3f s "
               "to the first batch (their start-up, worker_init_fn, first fetch)\n",
               stop, parts->lead, a->first_stall / (double)a->nepochs);
    }
}

/* The calibration's lines: every one with verbose, else its warnings alone. Returns whether
 * lines were left out, as print_meta leaves out the per-GPU CPU times without verbose. */
static int print_calibration(const ss_calib *cal, int verbose)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = verbose ? NULL : open_memstream(&text, &len);
    if (!mem) { /* verbose, or no memory for the buffer: the lines whole rather than none */
        ss_calib_print(cal, stdout);
        return 0;
    }
    ss_calib_print(cal, mem);
    fclose(mem);
    const int left_out = ss_cmd_print_lines(text, "warning:", stdout) > 0;
    free(text);
    return left_out;
}

/* Where the run changed level (from the rows info read) and one GPU's own work between
 * steps (read again), each a line where found. */
static ss_status print_run_findings(ss_trace_file *t, const info_acc *a)
{
    ss_drift d;
    char line[512];
    ss_status st = ss_drift_of(a->row_it, a->row_epoch, a->row_index, ss_trace_meta_of(t)->iterations, a->warmup, &d);
    ss_drift_line(&d, line, sizeof line);
    if (st == SS_OK && line[0]) printf("level change: %s\n", line);
    ss_ownwork own;
    if (st == SS_OK) st = ss_ownwork_find(t, &own);
    if (st == SS_OK) ss_ownwork_line(&own, line, sizeof line);
    if (st == SS_OK && line[0]) printf("%s\n", line);
    return st;
}

static int info_main(int argc, char **argv)
{
    if (has_help(argc, argv)) {
        fputs(info_usage, stdout);
        return 0;
    }
    ss_config defaults;
    ss_config_defaults(&defaults);
    const char *path = NULL;
    int warmup_given = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
            verbose = 1;
        } else if (!strcmp(argv[i], "--warmup") || !strncmp(argv[i], "--warmup=", 9)) {
            warmup_given = 1;
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : NULL;
            ss_status vst = v ? ss_cmd_set_option(&defaults, "info", "--warmup", "trace.warmup_iterations", v)
                              : ss_fail(SS_EUSAGE, "info: --warmup needs a value");
            if (vst != SS_OK) {
                ss_config_free(&defaults);
                return ss_cmd_fail(vst);
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            static const char *const known[] = {"--help", "--warmup", "--verbose"};
            char near[96];
            ss_suggest_option(argv[i], known, (int)(sizeof known / sizeof *known), near, sizeof near);
            ss_config_free(&defaults);
            return ss_cmd_fail(
                ss_fail(SS_EUSAGE, "info: unknown option '%s'%s (see stallsim info --help)", argv[i], near));
        } else if (path) {
            ss_config_free(&defaults);
            return ss_cmd_fail(ss_fail(SS_EUSAGE, "info: one trace at a time ('%s' and '%s')", path, argv[i]));
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        ss_config_free(&defaults);
        fputs(info_usage, stderr);
        return 2;
    }
    ss_comm self;
    ss_comm_self(&self);
    ss_trace_file *t = NULL;
    ss_status st = ss_trace_open(path, &self, &t);
    if (st != SS_OK) {
        ss_config_free(&defaults);
        return ss_cmd_fail(st);
    }
    const ss_trace_meta *m = ss_trace_meta_of(t);
    info_acc a;
    memset(&a, 0, sizeof a);
    a.it_sum = calloc((size_t)m->gpus, sizeof(double));
    a.st_sum = calloc((size_t)m->gpus, sizeof(double));
    a.it_all = calloc((size_t)m->gpus, sizeof(double));
    a.st_all = calloc((size_t)m->gpus, sizeof(double));
    a.waited_most = calloc((size_t)m->gpus, sizeof(long));
    a.waited_all = calloc((size_t)m->gpus, sizeof(long));
    const size_t nrows = (size_t)(m->iterations > 0 ? m->iterations : 1);
    a.row_it = malloc(nrows * sizeof *a.row_it);
    a.row_epoch = malloc(nrows * sizeof *a.row_epoch);
    a.row_index = malloc(nrows * sizeof *a.row_index);
    if (!a.it_sum || !a.st_sum || !a.it_all || !a.st_all || !a.waited_most || !a.waited_all || !a.row_it ||
        !a.row_epoch || !a.row_index)
        st = ss_fail(SS_ENOMEM, "out of memory");
    /* like run's measured row: without each epoch's first iterations (the loader's start),
     * as trace.warmup_iterations does (by default, or --warmup); all rows when that leaves none */
    a.warmup = defaults.warmup_iterations;
    ss_config_free(&defaults);
    if (st == SS_OK) st = info_scan(t, &a);
    if (st == SS_OK && a.rows == 0 && warmup_given) /* as run and compare: nothing left to summarise */
        st = ss_fail(SS_EUSAGE, "info: --warmup %ld leaves no iteration of %s to summarise (no epoch has more)", a.warmup,
                     path);
    long fell_back = 0; /* the default warm-up that left no row, when info then took them all */
    if (st == SS_OK && a.rows == 0) { /* every row is warm-up by default: the means of all */
        fell_back = a.warmup;
        a.warmup = 0;
        a.rows = m->iterations;
        memcpy(a.it_sum, a.it_all, (size_t)m->gpus * sizeof(double));
        memcpy(a.st_sum, a.st_all, (size_t)m->gpus * sizeof(double));
        memcpy(a.waited_most, a.waited_all, (size_t)m->gpus * sizeof(long));
        a.max_it_sum = a.max_it_all;
        a.max_st_sum = a.max_st_all;
    }
    if (st == SS_OK) ss_trace_report_warnings(t, &self);
    double between = 0.0, tail = 0.0, ratio = 1.0; /* between the epochs' passes, after the last (a bad one fails) */
    long epochs = 0;
    char per_epoch[INFO_PASSES_LISTED * 32 + 64];
    start_parts parts = {NAN, NAN};
    if (st == SS_OK)
        st = between_of(t, &between, &epochs, per_epoch, sizeof per_epoch, &tail, a.max_it_all, &ratio, &parts);
    ss_calib cal;
    if (st == SS_OK) st = ss_calibrate(t, SS_CALIB_ROWS, &cal);
    if (st == SS_OK) {
        int hidden = print_meta(path, m, &a, verbose);
        hidden |= print_calibration(&cal, verbose);
        char past[160];
        say_warmup(&a, a.warmup > 0 ? a.warmup : fell_back, past, sizeof past);
        if (a.warmup > 0)
            printf("\nmeans over the %ld of %ld iterations past %s (%s: the loader's start-up is left out)\n", a.rows,
                   m->iterations, past, warmup_given ? "--warmup" : "run's default trace.warmup_iterations");
        else if (fell_back)
            printf("\nmeans over all %ld iterations: no iteration is past %s, the default warm-up (the loader's "
                   "start-up), so run summarises every iteration too (compare of traces alone: give --warmup 0)\n",
                   m->iterations, past);
        else
            printf("\nmeans over all %ld iterations\n", m->iterations);
        printf("%5s %14s %14s %4s %4s %9s %10s %9s %9s\n", "gpu", "mean iter (s)", "mean stall (s)", "W", "P",
               "gap (s)", "refill (s)", "deliv (s)", "resid (s)");
        for (int g = 0; g < m->gpus; g++) {
            if (cal.no_fetch && !m->loader_workers) { /* nothing fitted, nothing recorded: no loader to show */
                printf("%5d %14.6f %14.6f %4s %4s %9s %10s %9s %9s\n", g, a.it_sum[g] / (double)a.rows,
                       a.st_sum[g] / (double)a.rows, "-", "-", "-", "-", "-", "-");
                continue;
            }
            char pf[16] = "-"; /* a synchronous loader has no prefetch factor (as the calibration lines) */
            if (cal.workers_gpu[g] > 0) snprintf(pf, sizeof pf, "%d", cal.prefetch_gpu[g]);
            printf("%5d %14.6f %14.6f %4d %4s %9.4f %10.4f %9.4f %9.4f\n", g, a.it_sum[g] / (double)a.rows,
                   a.st_sum[g] / (double)a.rows, cal.workers_gpu[g], pf, cal.gap_gpu[g], cal.refill_gpu[g],
                   cal.delivery_gpu[g], cal.resid_gpu[g]);
        }
        if (cal.no_fetch && !m->loader_workers)
            printf("      (no fetch times in the trace: its loader is not known; W, P, gaps: -)\n");
        printf("%5s %14.6f %14.6f   (the largest over GPUs per iteration: run's and compare's measured row)\n",
               "max", a.max_it_sum / (double)a.rows, a.max_st_sum / (double)a.rows);
        print_whole(m, &a, past, ratio, between, tail, epochs, per_epoch, &parts);
        st = print_run_findings(t, &a);
        if (hidden) printf("(stallsim info --verbose adds each GPU's recorded CPU times and the calibration's lines)\n");
        ss_calib_free(&cal);
    }
    free(a.it_sum);
    free(a.st_sum);
    free(a.it_all);
    free(a.st_all);
    free(a.waited_most);
    free(a.waited_all);
    free(a.row_it);
    free(a.row_epoch);
    free(a.row_index);
    ss_trace_close(t);
    return st == SS_OK ? 0 : ss_cmd_fail(st);
}

int ss_cmd_info(const ss_comm *c, int argc, char **argv)
{
    if (c->rank == 0) ss_screen_begin(); /* prose wraps on a terminal */
    return on_rank0(c, info_main, argc, argv);
}

/* ---- import ---- */

static void import_usage(FILE *f)
{
    int n;
    const ss_importer *const *imp = ss_importers(&n);
    fputs("usage: stallsim import FORMAT INPUT... -o TRACE.h5\n"
          "       stallsim import --list | FORMAT --help\n"
          "\n"
          "Converts a trace of another tool into one stalltrace HDF5 file (written whole or not\n"
          "at all). Formats:\n",
          f);
    for (int i = 0; i < n; i++) fprintf(f, "  %-12s %s\n", imp[i]->name, imp[i]->summary);
}

static int import_main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--list")) {
        int n;
        const ss_importer *const *imp = ss_importers(&n);
        for (int i = 0; i < n; i++) printf("%-12s %s\n", imp[i]->name, imp[i]->summary);
        return 0;
    }
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        import_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const ss_importer *imp = ss_importer_find(argv[1]);
    if (!imp) {
        int n;
        const ss_importer *const *all = ss_importers(&n);
        fprintf(stderr, "stallsim: import: unknown format '%s' (known:", argv[1]);
        for (int i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? ", " : " ", all[i]->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    if (has_help(argc, argv)) {
        printf("usage: stallsim import %s %s -o TRACE.h5\n\n%s", imp->name, imp->usage, imp->help);
        return 0;
    }
    const char *out = NULL;
    char **rest = calloc((size_t)argc, sizeof *rest);
    if (!rest) return ss_cmd_fail(ss_fail(SS_ENOMEM, "out of memory"));
    int nrest = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc) {
                free(rest);
                fprintf(stderr, "stallsim: import: -o needs a file name\n");
                return 2;
            }
            if (out) {
                free(rest);
                fprintf(stderr, "stallsim: import: %s is given twice: give it once\n", argv[i]);
                return 2;
            }
            out = argv[++i];
        } else {
            rest[nrest++] = argv[i];
        }
    }
    if (out && !out[0]) {
        free(rest);
        fprintf(stderr, "stallsim: import: -o needs a file name (it was given an empty one)\n");
        return 2;
    }
    if (!out || nrest == 0) {
        free(rest);
        fprintf(stderr, "stallsim: import %s: %s\nusage: stallsim import %s %s -o TRACE.h5\n", imp->name,
                !out ? "-o TRACE.h5 (the stalltrace file to write) is required" : "no input given", imp->name, imp->usage);
        return 2;
    }
    long rows;
    int gpus, fetch;
    ss_atomic_sweep_stale_beside(out);
    ss_status st = ss_import_run(imp, nrest, rest, out, &rows, &gpus, &fetch);
    free(rest);
    if (st != SS_OK) return ss_cmd_fail(st);
    printf("wrote %s: %d %s, %ld %s\n", out, gpus, ss_plural(gpus, "GPU", "GPUs"), rows,
           ss_plural(rows, "iteration", "iterations"));
    if (!fetch) /* a trace without fetch times: say at once what it can serve */
        printf("note: %s has no fetch times (only when each rank waited): `stallsim info` and `stallsim compare` "
               "read it; `stallsim run` replays it with `model = %s` (a rank that waits like the others)\n",
               out, ss_model_waits_only_name());
    return 0;
}

/* rank 0 imports; under mpirun the other ranks read shares of the inputs for it (dftracer) */
int ss_cmd_import(const ss_comm *c, int argc, char **argv) { return ss_import_on_ranks(c, import_main, argc, argv); }

/* ---- gen ---- */

static const char gen_usage[] =
    "usage: stallsim gen -o TRACE.h5 [options]\n"
    "\n"
    "Draws fetch and compute times (GSL) and runs the pipeline model forward to write a\n"
    "self-consistent trace. The same seed gives the same data.\n"
    "\n"
    "  --gpus G              GPUs (4)\n"
    "  --iterations N        iterations per epoch (500)\n"
    "  --epochs E            epochs (1)\n"
    "  --workers W           loader workers per GPU (4; 0: synchronous loading in the\n"
    "                        training process after each step)\n"
    "  --workers-gpu G:W     GPU G has W workers (repeatable)\n"
    "  --prefetch P          prefetch factor per worker (2)\n"
    "  --fetch-mean S        mean fetch time of a batch, seconds (1.0; lognormal)\n"
    "  --fetch-cv X          coefficient of variation of the fetch time (0.2)\n"
    "  --compute-mean S      mean compute time of a step, seconds (0.3)\n"
    "  --compute-cv X        coefficient of variation of the compute time (0.05)\n"
    "  --straggler-prob p    chance that a fetch is a straggler (0)\n"
    "  --straggler-scale S   a straggler fetch takes S times longer (3)\n"
    "  --worker-gap S        a worker's pause between two batches, seconds (0)\n"
    "  --refill-gap S        delay of handing a freed prefetch slot its batch, seconds (0)\n"
    "  --delivery S          time from a batch being ready to the loop having it, seconds,\n"
    "                        part of every stall (0)\n"
    "  --slow-gpu G:F        GPU G's fetches take F times longer (repeatable)\n"
    "  --seed n              random seed, 0 to 4294967295 (1; 0 is GSL's default seed, as 4357)\n"
    "  --chunk-rows N        rows drawn and written at a time (default: 64 MB of rows)\n";

typedef struct {
    const char *name;
    char kind; /* i int, l long, d double, u unsigned long */
    void *field;
} gen_opt;

static int gen_main(int argc, char **argv)
{
    if (has_help(argc, argv)) {
        fputs(gen_usage, stdout);
        return 0;
    }
    ss_gen_params p;
    ss_gen_defaults(&p);
    const char *out = NULL;
    gen_opt opts[] = {{"--gpus", 'i', &p.gpus}, {"--iterations", 'l', &p.iterations}, {"--epochs", 'i', &p.epochs},
                      {"--workers", 'i', &p.workers}, {"--prefetch", 'i', &p.prefetch},
                      {"--fetch-mean", 'd', &p.fetch_mean}, {"--fetch-cv", 'd', &p.fetch_cv},
                      {"--compute-mean", 'd', &p.compute_mean}, {"--compute-cv", 'd', &p.compute_cv},
                      {"--straggler-prob", 'd', &p.straggler_prob}, {"--straggler-scale", 'd', &p.straggler_scale},
                      {"--worker-gap", 'd', &p.worker_gap}, {"--refill-gap", 'd', &p.refill_gap},
                      {"--delivery", 'd', &p.delivery},
                      {"--seed", 'u', &p.seed}, {"--chunk-rows", 'l', &p.chunk_rows}};
    unsigned char given[sizeof opts / sizeof opts[0]] = {0}; /* each option once at most */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc) break;
            if (out) {
                fprintf(stderr, "stallsim: gen: %s is given twice: give it once\n", argv[i]);
                return 2;
            }
            out = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--slow-gpu") || !strcmp(argv[i], "--workers-gpu")) {
            int slow = argv[i][2] == 's';
            const char *v = i + 1 < argc ? argv[++i] : "";
            char *end;
            long g = strtol(v, &end, 10);
            double x = *end == ':' ? strtod(end + 1, &end) : NAN;
            int *n = slow ? &p.n_slow : &p.n_wgpu;
            if (!v[0] || *end || !isfinite(x) || g < 0 || g > SS_MAX_GPUS || (!slow && (x != floor(x) || x < 0 || x > 1e6))) {
                fprintf(stderr, "stallsim: gen: %s needs GPU:%s, got '%s'\n", argv[i - 1],
                        slow ? "FACTOR" : "WORKERS", v);
                return 2;
            }
            if (*n == SS_GEN_MAX_PER_GPU) {
                fprintf(stderr, "stallsim: gen: at most %d %s options\n", SS_GEN_MAX_PER_GPU, argv[i - 1]);
                return 2;
            }
            if (slow) {
                p.slow_gpu[*n] = (int)g;
                p.slow_factor[*n] = x;
            } else {
                p.wgpu_gpu[*n] = (int)g;
                p.wgpu_workers[*n] = (int)x;
            }
            (*n)++;
            continue;
        }
        gen_opt *o = NULL;
        size_t at = 0;
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
            if (!strcmp(argv[i], opts[k].name)) o = &opts[k], at = k;
        if (!o) {
            fprintf(stderr, "stallsim: gen: unknown option '%s' (see stallsim gen --help)\n", argv[i]);
            return 2;
        }
        if (given[at]++) {
            fprintf(stderr, "stallsim: gen: %s is given twice: give it once\n", o->name);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "stallsim: gen: %s needs a value\n", argv[i]);
            return 2;
        }
        const char *v = argv[++i];
        char *end;
        double d = ss_strtod_decimal(v, &end); /* no hexadecimal, inf or nan */
        if (end == v || *end || !isfinite(d) || (o->kind != 'd' && (d != floor(d) || d < 0 || d > 9e15))) {
            fprintf(stderr, "stallsim: gen: %s '%s' is not a valid %s\n", o->name, v,
                    o->kind == 'd' ? "number" : "whole number");
            return 2;
        }
        if (o->kind == 'i') *(int *)o->field = d > 2e9 ? -1 : (int)d;
        else if (o->kind == 'l') *(long *)o->field = (long)d;
        else if (o->kind == 'u') *(unsigned long *)o->field = (unsigned long)d;
        else *(double *)o->field = d;
    }
    if (!out) {
        fprintf(stderr, "stallsim: gen: -o TRACE.h5 is required\n%s", gen_usage);
        return 2;
    }
    if (!out[0]) {
        fprintf(stderr, "stallsim: gen: -o needs a file name (it was given an empty one)\n");
        return 2;
    }
    ss_status st = ss_atomic_check_output(out, NULL, 0, ss_trace_is_synthetic,
                                          "synthetic trace (one gen wrote; a recorded or imported trace is kept)");
    if (st != SS_OK) return ss_cmd_fail(st);
    ss_atomic_sweep_stale_beside(out);
    st = ss_gen_write(&p, out, 1);
    if (st != SS_OK) return ss_cmd_fail(st);
    char own[64] = "";
    if (p.n_wgpu > 0)
        snprintf(own, sizeof own, " (%d %s with %s own: --workers-gpu)", p.n_wgpu, ss_plural(p.n_wgpu, "GPU", "GPUs"),
                 p.n_wgpu == 1 ? "its" : "their");
    char pf[48]; /* synchronous loading everywhere has no prefetch factor */
    if (p.workers == 0 && p.n_wgpu == 0) snprintf(pf, sizeof pf, "synchronous loading");
    else snprintf(pf, sizeof pf, "prefetch %d", p.prefetch);
    printf("wrote %s: %d %s, %ld %s x %d %s, %d %s%s, %s, seed %lu\n", out, p.gpus, ss_plural(p.gpus, "GPU", "GPUs"),
           p.iterations, ss_plural(p.iterations, "iteration", "iterations"), p.epochs,
           ss_plural(p.epochs, "epoch", "epochs"), p.workers, ss_plural(p.workers, "worker", "workers"), own, pf,
           p.seed);
    return 0;
}

int ss_cmd_gen(const ss_comm *c, int argc, char **argv) { return on_rank0(c, gen_main, argc, argv); }
