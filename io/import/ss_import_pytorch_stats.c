/* ss_import_pytorch_stats.c - the PyTorch recorder importer's statistics. */
/* The per-rank medians of CPU times and waits for a core, the start-up waits, the pools of
 * cores, the workers that took part, and what the import warns of (short epochs, slow
 * start-up, workers that ran out early). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_import_pytorch.h"
#include "ss_limits.h"

/* Counts one CPU time (ns; < 0: none recorded) into h. */
void pt_cpu_add(pt_hist *h, int64_t ns)
{
    if (ns < 0) {
        h->missing++;
        return;
    }
    double sec = (double)ns * 1e-9;
    long b = sec < PT_CPU_LO ? 0 : 1 + (long)floor(log(sec / PT_CPU_LO) / log(1.01));
    if (b >= PT_CPU_BINS) b = PT_CPU_BINS - 1;
    h->bins[b]++;
    h->n++;
}

/* The median of h's CPU times, to 0.5 %: the geometric middle of the bin that holds it (0
 * when it is below PT_CPU_LO). */
static double pt_cpu_median(const pt_hist *h)
{
    long half = (h->n + 1) / 2, seen = 0;
    for (long b = 0; b < PT_CPU_BINS; b++) {
        seen += h->bins[b];
        if (seen >= half) return b == 0 ? 0.0 : PT_CPU_LO * pow(1.01, (double)b - 0.5);
    }
    return 0.0;
}

/* A recorded epoch with fewer rows than the loader's batches per epoch (rank 0's meta
 * batches_per_epoch): the run ended early (killed) or the loop left the epoch. Not for an
 * IterableDataset, whose len(loader) is only its len(dataset)'s guess. */
void pt_check_epoch(const pt_state *S)
{
    const pt_rank *R = S->r[0];
    if (!R->iterable && R->per_epoch > 0 && S->epoch_rows < R->per_epoch)
        ss_warn("%s: epoch %ld has %ld of its %ld batches (meta batches_per_epoch) that every rank recorded: the run "
                "ended early (killed?) or a loop left the epoch (a break, an exception); the trace keeps those%s",
                R->main.path, S->last_epoch, S->epoch_rows, R->per_epoch,
                R->main.version >= 4 ? ", but not the batch at which the loop left, whose step has no end in the record"
                                     : " (a recording of format 3 or older: the last batch's step may end where the "
                                       "loop left, not where the step did)");
}

/* The per-rank medians of one kind of CPU time (or wait) into *out (and the trace's meta
 * field *field) when every row of every rank had one (format 2, or 3 for the waits, files
 * throughout). */
static ss_status pt_cpu_medians(pt_state *S, int kind, double **out, double **field)
{
    int with = 0, without = -1;
    for (int g = 0; g < S->G; g++) {
        const pt_hist *h = &S->r[g]->cpu[kind];
        if (h->missing || h->n == 0) {
            if (without < 0) without = g;
        } else {
            with++;
        }
    }
    if (without >= 0) {
        if (with > 0 && kind == PT_CPU_FETCH) /* once, for the first kind of CPU time that is short */
            ss_warn("%s: %d of %d ranks recorded CPU times, but rank %d (record format 1?) did not: the trace gets "
                    "no CPU datasets (fetch_scale then scales whole fetches; no cpu_load_pct)",
                    S->r[without]->main.path, with, S->G, without);
        return SS_OK;
    }
    *out = malloc((size_t)S->G * sizeof **out);
    if (!*out) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; g < S->G; g++) (*out)[g] = pt_cpu_median(&S->r[g]->cpu[kind]);
    *field = *out;
    return SS_OK;
}

/* The batches a rank's loader sends out at once as a pass starts: W x P (P 2, PyTorch's
 * default, where the record has none); 0 without workers */
long pt_window(const pt_rank *R) { return R->workers > 0 ? R->workers * (R->prefetch > 0 ? R->prefetch : 2) : 0; }

/* A first window's mean wait this much above the median (seconds) is a start-up crush
 * worth a warning: on 2 cores, 16 worker processes gave 25-47 ms, 8 gave 2-11 ms. */
#define START_CRUSH_S 0.010
/* A window of at most this many fetches (2 workers x the default prefetch_factor 2) of at
 * most 2 persistent workers: no warning for its rank (nothing smaller is worth recording). */
#define START_SMALL_WINDOW 4

/* At the end, with the waits' medians (S->fetch_wait): /fetch_wait_start_time, each rank's
 * mean wait for a core over its passes' first W·P fetches (the loader sends them out at once as a pass
 * starts, with the workers it starts then: the start-up crush), when every rank with workers
 * recorded all of them; 0 for a synchronous rank. */
static ss_status pt_start_waits(pt_state *S, ss_trace_meta *m)
{
    for (int g = 0; g < S->G; g++) {
        const pt_rank *R = S->r[g];
        if (R->workers > 0 && (R->start_missing || R->start_n == 0)) return SS_OK;
    }
    S->fetch_wait_start = malloc((size_t)S->G * sizeof *S->fetch_wait_start);
    if (!S->fetch_wait_start) return ss_fail(SS_ENOMEM, "out of memory");
    /* the rank with the largest start-up excess, of those with something to change: persistent
     * workers with a window of at most START_SMALL_WINDOW fetches start only in the first epoch,
     * and nothing smaller is worth recording instead (a warning with nothing to act on read as
     * a fault to a new user) */
    int worst = -1;
    for (int g = 0; g < S->G; g++) {
        const pt_rank *R = S->r[g];
        S->fetch_wait_start[g] = R->workers > 0 ? R->start_wait / (double)R->start_n : 0.0;
        double ex = S->fetch_wait_start[g] - S->fetch_wait[g];
        const int small = R->persistent == 1 && R->workers <= 2 && pt_window(R) <= START_SMALL_WINDOW;
        if (!small && ex > START_CRUSH_S && (worst < 0 || ex > S->fetch_wait_start[worst] - S->fetch_wait[worst]))
            worst = g;
    }
    m->fetch_wait_start = S->fetch_wait_start;
    if (worst >= 0) { /* a start-up crush: say so once, with what avoids it */
        const pt_rank *R = S->r[worst];
        const char *advice = R->persistent != 1 ? "persistent_workers=True, or with fewer workers"
                                                : "fewer workers or a smaller prefetch_factor (its workers persist already)";
        const char *why = R->persistent != 1 ? "the workers' start crowds the cores"
                                             : "the first window, sent out at once as each pass starts, crowds the cores";
        ss_warn("%s: each epoch's first %ld fetches (workers x prefetch_factor) waited %.0f ms for a core on average, "
                "the later ones %.1f ms (rank %d, %ld worker%s): %s. Predictions "
                "scale this wait to each scenario's workers (MODELS-pipeline.md, \"The first window of an epoch\"). "
                "If this run is to be the base of what-ifs, a base without it predicts more steadily: record the "
                "base run with %s, where the job can use them; a run recorded to check a prediction needs nothing",
                R->main.path, pt_window(R), 1e3 * S->fetch_wait_start[worst], 1e3 * S->fetch_wait[worst], R->rank,
                R->workers, R->workers == 1 ? "" : "s", why, advice);
    }
    return SS_OK;
}

/* The first rank of rank g's pool of cores: the ranks on the same host (meta host) and the
 * same set of cores (meta cpu_set). */
static int pt_pool_of(const pt_state *S, int g)
{
    const pt_rank *R = S->r[g];
    int p = 0;
    while (p < g && (strcmp(S->r[p]->host, R->host) || strcmp(S->r[p]->cpu_set, R->cpu_set))) p++;
    return p;
}

/* At the end: the trace's CPU datasets. The ranks whose processes run on the same host and
 * the same set of cores (meta host, cpu_set) form one pool of meta cpus cores. */
ss_status pt_cpu_meta(pt_state *S, ss_trace_meta *m)
{
    ss_status st = pt_cpu_medians(S, PT_CPU_FETCH, &S->fetch_cpu, &m->fetch_cpu);
    if (st == SS_OK && m->fetch_cpu) st = pt_cpu_medians(S, PT_CPU_LOOP, &S->loop_cpu, &m->loop_cpu);
    if (st != SS_OK || !m->fetch_cpu || !m->loop_cpu) return st; /* pools serve the CPU times only */
    /* the waits for a core (format 3 throughout, where the kernel reports them) */
    if ((st = pt_cpu_medians(S, PT_WAIT_FETCH, &S->fetch_wait, &m->fetch_wait)) != SS_OK) return st;
    if (m->fetch_wait && (st = pt_cpu_medians(S, PT_WAIT_LOOP, &S->loop_wait, &m->loop_wait)) != SS_OK) return st;
    if (!m->loop_wait) m->fetch_wait = NULL;
    if (m->fetch_wait && (st = pt_start_waits(S, m)) != SS_OK) return st;
    for (int g = 0; g < S->G; g++)
        if (S->r[g]->cpus < 1 || !S->r[g]->cpu_set[0]) return SS_OK;
    S->cpu_pool = malloc((size_t)S->G * sizeof *S->cpu_pool);
    S->cpu_pool_cores = malloc((size_t)S->G * sizeof *S->cpu_pool_cores);
    if (!S->cpu_pool || !S->cpu_pool_cores) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; g < S->G; g++) {
        const int p = pt_pool_of(S, g);
        S->cpu_pool[g] = p;
        S->cpu_pool_cores[g] = (int)S->r[p]->cpus;
    }
    m->cpu_pool = S->cpu_pool;
    m->cpu_pool_cores = S->cpu_pool_cores;
    return SS_OK;
}

/* One rank's host file: the first and the last sample's busy, total and own clock ticks
 * (b0, t0, o0, b1, t1, o1). 0 when it has two samples of them, 1 when it has none or fewer
 * (no file: recorded without the sampler), -1 when it is not a host file (*why set). */
static int pt_host_file(const char *path, int64_t v[6], const char **why)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    char line[256];
    int n = 0, bad = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, "stallsim-host,1", 15)) {
        *why = "its first line is not 'stallsim-host,1'";
        bad = 1;
    }
    while (!bad && fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        if (!l || line[l - 1] != '\n') break; /* a last line cut off as the job ended */
        if (strncmp(line, "host,", 5)) continue; /* meta lines */
        long long t, b, tot, own;
        char end;
        if (sscanf(line + 5, "%lld,%lld,%lld,%lld%c", &t, &b, &tot, &own, &end) != 5 || end != '\n' || b < 0 ||
            tot < b || own < 0) {
            *why = "a 'host' line is not TIME,BUSY,TOTAL,OWN";
            bad = 1;
            break;
        }
        int64_t *d = v + (n ? 3 : 0);
        if (n && (b < v[0] || tot < v[1] || own < v[2])) {
            *why = "its tick counts go down";
            bad = 1;
            break;
        }
        d[0] = b, d[1] = tot, d[2] = own;
        n++;
    }
    fclose(f);
    return bad ? -1 : n >= 2 ? 0 : 1;
}

ss_status pt_host_meta(pt_state *S, ss_trace_meta *m)
{
    const int G = S->G;
    double *busy = calloc((size_t)G, sizeof *busy), *own = calloc((size_t)G, sizeof *own);
    if (!busy || !own) {
        free(busy);
        free(own);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    for (int g = 0; g < G; g++) {
        char path[PT_PATH + 32];
        int64_t v[6];
        const char *why = "";
        snprintf(path, sizeof path, "%s.rank%d.host.csv", S->prefix, g);
        int r = pt_host_file(path, v, &why);
        if (r < 0) ss_warn("%s: %s; the host's CPU use is left out of the trace", path, why);
        if (r != 0 || v[4] <= v[1]) {
            free(busy);
            free(own);
            return SS_OK;
        }
        busy[g] = (double)(v[3] - v[0]) / (double)(v[4] - v[1]);
        own[g] = (double)(v[5] - v[2]) / (double)(v[4] - v[1]);
    }
    /* a pool (ranks on one host and one set of cores): its busy share is its ranks' mean
     * (each sampled the same cores), the job's share the sum of its ranks' own */
    S->host_busy = busy;
    S->host_job = own;
    for (int g = 0; g < G; g++) {
        if (pt_pool_of(S, g) != g) continue; /* g is not its pool's first rank: done with the first's */
        double b = 0, o = 0;
        int k = 0;
        for (int q = g; q < G; q++)
            if (pt_pool_of(S, q) == g) b += busy[q], o += own[q], k++;
        b /= k;
        if (o > b) o = b; /* the samples' instants differ a little */
        for (int q = g; q < G; q++)
            if (pt_pool_of(S, q) == g) busy[q] = b, own[q] = o;
    }
    for (int g = 0; g < G; g++) {
        if (busy[g] > 1) busy[g] = 1;
        if (own[g] > 1) own[g] = 1;
    }
    m->host_busy = S->host_busy;
    m->host_job = S->host_job;
    return SS_OK;
}

/* Reads one probe file: 0 with its start method and times (s; t[4] and t[5], a second pass's
 * lead and start-up, NaN in a version 1 file), 1 when there is none, -1 (with *why) when it
 * says the probe failed or is not a probe file. */
static int pt_probe_file(const char *path, char *method, size_t msize, double t[6], char *why, size_t wsize)
{
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    char line[512];
    int r = -1;
    const int head = fgets(line, sizeof line, f) && !strncmp(line, "stallsim-probe,", 15) &&
                     (line[15] == '1' || line[15] == '2') && (line[16] == '\n' || line[16] == '\r');
    const int version = head ? line[15] - '0' : 0;
    const int whole = head && fgets(line, sizeof line, f) && strchr(line, '\n');
    if (whole) line[strcspn(line, "\r\n")] = 0; /* LF or CRLF */
    if (!head)
        snprintf(why, wsize, "its first line is not 'stallsim-probe,1' or 'stallsim-probe,2'");
    else if (!whole)
        snprintf(why, wsize, "it has no whole second line");
    else if (!strncmp(line, "failed,", 7))
        snprintf(why, wsize, "the probe failed: %.300s", line + 7);
    else {
        char m[16] = "";
        long long v[6];
        int n = -1;
        const int want = version == 1 ? 5 : 7;
        const int got = version == 1
                            ? sscanf(line, "probe,%15[a-z],%lld,%lld,%lld,%lld%n", m, &v[0], &v[1], &v[2], &v[3], &n)
                            : sscanf(line, "probe,%15[a-z],%lld,%lld,%lld,%lld,%lld,%lld%n", m, &v[0], &v[1], &v[2],
                                     &v[3], &v[4], &v[5], &n);
        if (got != want || n < 0 || line[n] != 0 || (strcmp(m, "fork") && strcmp(m, "spawn") && strcmp(m, "forkserver")))
            snprintf(why, wsize, "its line is not 'probe,METHOD,LEAD,STARTUP,DELIVERY,STOP%s' (ns; METHOD fork, spawn "
                     "or forkserver)", version == 1 ? "" : ",NEXT_LEAD,NEXT_STARTUP");
        else {
            r = 0;
            t[4] = t[5] = NAN; /* (version 1: no second pass) */
            for (int i = 0; i < want - 1; i++) {
                if (v[i] < 0 || v[i] > (long long)1e13) {
                    snprintf(why, wsize, "its time %lld ns is not from 0 to 1e13", v[i]);
                    r = -1;
                }
                t[i] = 1e-9 * (double)v[i];
            }
            snprintf(method, msize, "%s", m);
        }
    }
    fclose(f);
    return r;
}

ss_status pt_probe_meta(pt_state *S, ss_trace_meta *m)
{
    const int G = S->G;
    for (int g = 0; g < G; g++)
        if (S->r[g]->workers != 0) return SS_OK; /* the probe is of a loader without workers */
    S->probe = malloc(6 * (size_t)G * sizeof *S->probe);
    if (!S->probe) return ss_fail(SS_ENOMEM, "out of memory");
    char method[16] = "", first[16] = "";
    int seconds = 0;            /* the ranks' files that have the second pass */
    char v1[PT_PATH + 32] = ""; /* the first file without it */
    for (int g = 0; g < G; g++) {
        char path[PT_PATH + 32], why[400] = "";
        double t[6];
        snprintf(path, sizeof path, "%s.rank%d.probe.csv", S->prefix, g);
        const int r = pt_probe_file(path, method, sizeof method, t, why, sizeof why);
        if (r != 0) {
            if (r < 0)
                ss_warn("%s: %s; the trace keeps no probe of a loader worker, so a what-if with workers keeps "
                        "the measured epoch starts and no delivery", path, why);
            free(S->probe);
            S->probe = NULL;
            return SS_OK;
        }
        for (int i = 0; i < 6; i++) S->probe[i * G + g] = t[i];
        seconds += !isnan(t[4]);
        if (isnan(t[4]) && !v1[0]) snprintf(v1, sizeof v1, "%s", path);
        if (g == 0) snprintf(first, sizeof first, "%s", method);
    }
    if (seconds > 0 && seconds < G)
        ss_warn("%s: a probe file of version 1 (one pass) beside %d of version 2: the trace keeps no probe's second "
                "pass, so a what-if with workers takes the first pass's start for every epoch", v1, seconds);
    m->probe_lead = S->probe;
    m->probe_startup = S->probe + G;
    m->probe_delivery = S->probe + 2 * G;
    m->probe_stop = S->probe + 3 * G;
    if (seconds == G) {
        m->probe_next_lead = S->probe + 4 * G;
        m->probe_next_startup = S->probe + 5 * G;
    }
    snprintf(m->probe_start_method, sizeof m->probe_start_method, "%s", first);
    return SS_OK;
}

/* The pass that rank R's tracking holds ended: an IterableDataset's worker whose last batch
 * of it came more than 2 W batches before the pass's end ran out early (the loader hands
 * batches to its workers in turn, so each worker delivers one of the last W while it has
 * samples), and the loader went on with fewer workers. Counted, the first kept. */
static void pt_pass_end(pt_state *S, pt_rank *R)
{
    if (!R->iterable || R->workers < 2 || R->trk_pass < 0) return;
    for (int w = 0; w < R->nsrc; w++)
        if (R->last_k[w] >= 0 && R->last_k[w] < R->trk_n - 2 * R->workers) {
            if (S->early_n++ == 0) {
                const long e[5] = {R->rank, w, R->trk_pass, R->last_k[w], R->trk_n};
                memcpy(S->early, e, sizeof e);
            }
        }
}

/* The loop took the batch of row from rank R's worker fetch f: the pass's last batch of
 * each worker, and, for the pass's first batch, the workers' start-up (from the pass's start
 * to that fetch's; persistent workers start once: in a later pass the first fetch may wait
 * for fetches queued before the loop left the pass before). */
void pt_took(pt_state *S, pt_rank *R, const pt_row *row, const pt_fetch *f)
{
    if (R->workers < 1) return;
    if (row->p != R->trk_pass) {
        pt_pass_end(S, R);
        for (int i = 0; i < R->nsrc; i++) R->last_k[i] = -1;
        R->trk_pass = row->p;
    }
    R->last_k[f - R->src] = row->k;
    R->trk_n = row->k + 1;
    if (row->k == 0 && (R->persistent != 1 || R->npass == 1)) {
        const int64_t up = f->start > R->pass_t0 ? f->start - R->pass_t0 : 0;
        S->startup_sum += (double)up;
        S->startup_n++;
        if (up > S->startup_max) {
            S->startup_max = up;
            S->startup_rank = R->rank;
        }
    }
}

/* At the end: workers whose files have no fetch record (an IterableDataset with fewer
 * shards than workers, or fewer batches than workers) did not take part, and the trace's
 * loader_workers counts those that did, with their share of the batches in flight as the
 * prefetch factor (the loader keeps W x P batches out among the workers it still has). */
ss_status pt_idle_workers(pt_state *S, ss_trace_meta *m)
{
    long total = 0, prefetch = 0, nidle = 0, first = -1, first_n = 0;
    for (int g = 0; g < S->G; g++) {
        pt_rank *R = S->r[g];
        long n = 0, p = R->prefetch;
        for (int w = 0; R->workers > 0 && w < R->nsrc; w++) {
            pt_fetch *src = &R->src[w];
            /* the import reads a worker's file only as far as it needs: one whose batches the
             * loop never took (it left its passes early) may still have fetched */
            if (!src->seen && !src->valid && !src->eof) {
                ss_status st = pt_fetch_advance(src);
                if (st != SS_OK) return st;
            }
            n += src->seen;
        }
        if (R->workers > 0 && n > 0 && n < R->workers) {
            if (nidle++ == 0) {
                first = g;
                first_n = n;
            }
            S->loader_workers[g] = (int)n;
            p = R->prefetch > 0 && (R->workers * R->prefetch) % n == 0 ? R->workers * R->prefetch / n : -1;
        }
        total += S->loader_workers[g];
        if (g == 0) prefetch = p;
        else if (p != prefetch) prefetch = -1;
    }
    if (nidle > 0) {
        m->workers = total;
        m->prefetch_factor = prefetch > 0 ? prefetch : -1;
        const pt_rank *F = S->r[first];
        ss_warn("%s: rank %ld's loader had %ld workers, but only %ld of them fetched a batch%s (the others' files have "
                "no fetch record: an IterableDataset with fewer shards than workers, or fewer batches than workers): the "
                "trace takes the workers that took part (loader_workers %ld, and the %ld batches in flight, workers x "
                "prefetch_factor, shared among them%s); a scenario with more workers gains only where the dataset "
                "gives them work",
                F->main.path, first, F->workers, first_n, nidle > 1 ? ", and the same on other ranks" : "", first_n,
                F->workers * F->prefetch,
                F->prefetch > 0 && (F->workers * F->prefetch) % first_n == 0
                    ? ""
                    : ": not evenly, so the trace has no prefetch_factor and the calibration fits one");
    }
    return SS_OK;
}

/* At the end: says how long the workers took to start, when long (pt_took measured it), and
 * the workers that ran out early within a pass (pt_pass_end counted them). */
void pt_say_workers(pt_state *S)
{
    for (int g = 0; g < S->G; g++) pt_pass_end(S, S->r[g]); /* each rank's last pass */
    const double up = S->startup_n > 0 ? 1e-9 * S->startup_sum / (double)S->startup_n : 0.0;
    if (up > SS_STARTUP_NOTE_S) {
        const pt_rank *R = S->r[S->startup_rank];
        char who[PT_PATH + 16]; /* every rank's files: the figures are over the ranks */
        if (S->G > 1) snprintf(who, sizeof who, "%s.rank*.csv", S->prefix);
        else snprintf(who, sizeof who, "%s", R->main.path);
        char how[48] = "";
        if (R->start_method[0]) snprintf(how, sizeof how, ", started by %s,", R->start_method);
        if (R->persistent == 1)
            ss_warn("%s: the loader's %ld persistent worker process%s%s took %.2f s to start: the first pass's first "
                    "fetch began that long after the pass did, on average over the ranks (up to %.2f s, rank %ld); "
                    "later passes start none. run_time counts it; the steady-state columns leave each epoch's first "
                    "warmup_iterations out",
                    who, R->workers, R->workers == 1 ? "" : "es", how, up, 1e-9 * (double)S->startup_max,
                    S->startup_rank);
        else if (R->persistent == 0)
            ss_warn("%s: the loader's %ld worker process%s%s start%s again at every pass (persistent_workers=False): "
                    "each pass's first fetch began %.2f s after the pass did, on average over the ranks (up to %.2f s, "
                    "rank %ld). run_time counts this start-up, and `run` ranks its cuts by run_time; the steady-state "
                    "columns leave each epoch's first warmup_iterations out. The scenario key persistent_workers = true "
                    "asks what starting them once would save",
                    who, R->workers, R->workers == 1 ? "" : "es", how, R->workers == 1 ? "s" : "", up,
                    1e-9 * (double)S->startup_max, S->startup_rank);
        else /* the records do not say whether the workers persisted */
            ss_warn("%s: each pass's first fetch began %.2f s after the pass did, on average over the ranks and passes "
                    "(up to %.2f s, rank %ld): the start-up of the loader's %ld worker process%s%.*s. run_time counts "
                    "it; the steady-state columns leave each epoch's first warmup_iterations out",
                    who, up, 1e-9 * (double)S->startup_max, S->startup_rank, R->workers,
                    R->workers == 1 ? "" : "es", how[0] ? (int)strlen(how) - 1 : 0, how); /* (without its comma) */
    }
    if (S->early_n > 0)
        ss_warn("%s: this worker of rank %ld delivered its last batch of pass %ld as the pass's batch %ld (from 0) "
                "of %ld; %ld time%s in all a worker ran out that early in a pass, this one included (an "
                "IterableDataset whose workers' shards are uneven): from there the loader had fewer workers, which "
                "the models do not follow (they keep every worker to the end of the pass), so the baseline replay "
                "and the what-ifs made from it are off (run's fidelity line says by how much); shards of the same "
                "length per worker avoid it",
                S->r[S->early[0]]->src[S->early[1]].file.path, S->early[0], S->early[2], S->early[3], S->early[4],
                S->early_n, S->early_n == 1 ? "" : "s");
}
