/* ss_gen.c - the synthetic trace generator. */
#include "ss_gen.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ss_align.h"
#include "ss_forward.h"
#include "ss_limits.h"
#include "ss_trace.h"

void ss_gen_defaults(ss_gen_params *p)
{
    memset(p, 0, sizeof *p);
    p->gpus = 4;
    p->iterations = 500;
    p->epochs = 1;
    p->workers = 4;
    p->prefetch = 2;
    p->fetch_mean = 1.0;
    p->fetch_cv = 0.2;
    p->compute_mean = 0.3;
    p->compute_cv = 0.05;
    p->straggler_prob = 0.0;
    p->straggler_scale = 3.0;
    p->seed = 1;
}

#define GEN_MAX_SECONDS 1e5

ss_status ss_gen_check(const ss_gen_params *p)
{
    if (p->gpus < 1 || p->gpus > SS_MAX_GPUS) return ss_fail(SS_EUSAGE, "gen: --gpus must be from 1 to %d", SS_MAX_GPUS);
    if (p->iterations < 1) return ss_fail(SS_EUSAGE, "gen: --iterations must be at least 1");
    if (p->iterations > 1000000000000L / (p->epochs > 0 ? p->epochs : 1))
        return ss_fail(SS_EUSAGE, "gen: --iterations x --epochs must be at most 10^12 rows");
    if (p->epochs < 1 || p->epochs > 100000) return ss_fail(SS_EUSAGE, "gen: --epochs must be from 1 to 100000");
    if (p->workers < 0 || p->workers > SS_MAX_WORKERS)
        return ss_fail(SS_EUSAGE, "gen: --workers must be from 0 to %d", SS_MAX_WORKERS);
    if (!(p->delivery >= 0)) return ss_fail(SS_EUSAGE, "gen: --delivery must not be negative");
    if (p->n_slow < 0 || p->n_slow > SS_GEN_MAX_PER_GPU || p->n_wgpu < 0 || p->n_wgpu > SS_GEN_MAX_PER_GPU)
        return ss_fail(SS_EUSAGE, "gen: at most %d --slow-gpu and %d --workers-gpu options", SS_GEN_MAX_PER_GPU,
                       SS_GEN_MAX_PER_GPU);
    for (int i = 0; i < p->n_slow; i++)
        if (p->slow_gpu[i] < 0 || p->slow_gpu[i] >= p->gpus || !(p->slow_factor[i] > 0) || p->slow_factor[i] > 1e6)
            return ss_fail(SS_EUSAGE, "gen: --slow-gpu %d:%g needs a GPU from 0 to %d and a factor above 0", p->slow_gpu[i],
                           p->slow_factor[i], p->gpus - 1);
    for (int i = 0; i < p->n_wgpu; i++)
        if (p->wgpu_gpu[i] < 0 || p->wgpu_gpu[i] >= p->gpus || p->wgpu_workers[i] < 0 ||
            p->wgpu_workers[i] > SS_MAX_WORKERS)
            return ss_fail(SS_EUSAGE, "gen: --workers-gpu %d:%d needs a GPU from 0 to %d and 0 to %d workers",
                           p->wgpu_gpu[i], p->wgpu_workers[i], p->gpus - 1, SS_MAX_WORKERS);
    /* one value per GPU: a GPU named twice would keep its last value without a word */
    for (int i = 0; i < p->n_slow; i++)
        for (int j = 0; j < i; j++)
            if (p->slow_gpu[j] == p->slow_gpu[i])
                return ss_fail(SS_EUSAGE, "gen: --slow-gpu names GPU %d twice", p->slow_gpu[i]);
    for (int i = 0; i < p->n_wgpu; i++)
        for (int j = 0; j < i; j++)
            if (p->wgpu_gpu[j] == p->wgpu_gpu[i])
                return ss_fail(SS_EUSAGE, "gen: --workers-gpu names GPU %d twice", p->wgpu_gpu[i]);
    if (p->prefetch < 1 || p->prefetch > SS_MAX_PREFETCH)
        return ss_fail(SS_EUSAGE, "gen: --prefetch must be from 1 to %d", SS_MAX_PREFETCH);
    if (!(p->fetch_mean > 0)) return ss_fail(SS_EUSAGE, "gen: --fetch-mean must be positive");
    if (!(p->fetch_cv >= 0)) return ss_fail(SS_EUSAGE, "gen: --fetch-cv must not be negative");
    if (!(p->compute_mean > 0)) return ss_fail(SS_EUSAGE, "gen: --compute-mean must be positive");
    if (!(p->compute_cv >= 0)) return ss_fail(SS_EUSAGE, "gen: --compute-cv must not be negative");
    if (!(p->straggler_prob >= 0 && p->straggler_prob <= 1))
        return ss_fail(SS_EUSAGE, "gen: --straggler-prob must be from 0 to 1");
    if (!(p->straggler_scale > 0)) return ss_fail(SS_EUSAGE, "gen: --straggler-scale must be positive");
    if (!(p->worker_gap >= 0) || !(p->refill_gap >= 0))
        return ss_fail(SS_EUSAGE, "gen: --worker-gap and --refill-gap must not be negative");
    /* bounds that keep every time of the largest trace finite */
    const double times[5] = {p->fetch_mean, p->compute_mean, p->delivery, p->worker_gap, p->refill_gap};
    for (int i = 0; i < 5; i++)
        if (times[i] > GEN_MAX_SECONDS)
            return ss_fail(SS_EUSAGE, "gen: --fetch-mean, --compute-mean, --delivery, --worker-gap and --refill-gap "
                           "must be at most %g s", GEN_MAX_SECONDS);
    if (p->fetch_cv > 100 || p->compute_cv > 100 || p->straggler_scale > 1e6)
        return ss_fail(SS_EUSAGE, "gen: --fetch-cv and --compute-cv must be at most 100, --straggler-scale at most 1e6");
    if (p->seed > 4294967295UL)
        return ss_fail(SS_EUSAGE, "gen: --seed must be from 0 to 4294967295 (the generator takes 32 bits)");
    return SS_OK;
}

typedef struct {
    const ss_gen_params *p;
    gsl_rng *rng;
    double mu, sigma;   /* lognormal parameters of the fetch time */
    ss_forward *fw;
    double *f, *fs, *start, *stall;
    double *slow;     /* [gpus] fetch time factor of each GPU */
    int *workers_gpu; /* [gpus] workers of each GPU (also the trace's loader_workers) */
} generator;

/* One row: draws, runs the recurrence one batch forward, fills row i of the slab. */
static void gen_row(generator *gn, ss_slab *s, long i, int epoch, long k, double t0)
{
    const ss_gen_params *p = gn->p;
    const int G = p->gpus;
    for (int g = 0; g < G; g++) {
        double f = gsl_ran_lognormal(gn->rng, gn->mu, gn->sigma);
        if (p->straggler_prob > 0 && gsl_rng_uniform(gn->rng) < p->straggler_prob) f *= p->straggler_scale;
        gn->f[g] = f * gn->slow[g];
        gn->fs[g] = t0 + 0.01 * gsl_rng_uniform(gn->rng); /* used for the first W batches */
    }
    double c = p->compute_mean * (1.0 + gsl_ran_gaussian(gn->rng, p->compute_cv));
    if (c < 0.1 * p->compute_mean) c = 0.1 * p->compute_mean;
    double tp;
    double T = ss_forward_step(gn->fw, gn->f, c, gn->fs, gn->start, gn->stall, &tp);
    s->epoch[i] = epoch;
    s->index[i] = k;
    for (int g = 0; g < G; g++) {
        long x = i * G + g;
        s->fetch_start[x] = gn->start[g];
        s->fetch_time[x] = gn->f[g];
        s->stall_time[x] = gn->stall[g];
        s->train_start[x] = tp + gn->stall[g];
        s->iteration_time[x] = T - tp;
    }
}

static ss_status gen_init(generator *gn, const ss_gen_params *p)
{
    memset(gn, 0, sizeof *gn);
    gn->p = p;
    gn->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!gn->rng) return ss_fail(SS_ENOMEM, "out of memory");
    gsl_rng_set(gn->rng, p->seed);
    gn->sigma = sqrt(log(1.0 + p->fetch_cv * p->fetch_cv));
    gn->mu = log(p->fetch_mean) - 0.5 * gn->sigma * gn->sigma;
    size_t G = (size_t)p->gpus;
    gn->slow = malloc(G * sizeof(double));
    gn->workers_gpu = malloc(G * sizeof(int));
    if (!gn->slow || !gn->workers_gpu) return ss_fail(SS_ENOMEM, "out of memory");
    for (size_t g = 0; g < G; g++) {
        gn->slow[g] = 1.0;
        gn->workers_gpu[g] = p->workers;
    }
    for (int i = 0; i < p->n_slow; i++) gn->slow[p->slow_gpu[i]] = p->slow_factor[i];
    for (int i = 0; i < p->n_wgpu; i++) gn->workers_gpu[p->wgpu_gpu[i]] = p->wgpu_workers[i];
    const ss_forward_params fp = {p->workers, p->prefetch, p->worker_gap, p->refill_gap, p->delivery,
                                  p->n_wgpu > 0 ? gn->workers_gpu : NULL};
    ss_status st = ss_forward_new(&fp, p->gpus, &gn->fw);
    if (st != SS_OK) return st;
    gn->f = malloc(G * sizeof(double));
    gn->fs = malloc(G * sizeof(double));
    gn->start = malloc(G * sizeof(double));
    gn->stall = malloc(G * sizeof(double));
    if (!gn->f || !gn->fs || !gn->start || !gn->stall) return ss_fail(SS_ENOMEM, "out of memory");
    return SS_OK;
}

static void gen_free(generator *gn)
{
    if (gn->rng) gsl_rng_free(gn->rng);
    ss_forward_free(gn->fw);
    free(gn->f);
    free(gn->fs);
    free(gn->start);
    free(gn->stall);
    free(gn->slow);
    free(gn->workers_gpu);
}

static void fill_meta(const ss_gen_params *p, int *workers_gpu, ss_trace_meta *m)
{
    ss_trace_meta_init(m);
    m->gpus = p->gpus;
    m->iterations = p->iterations * p->epochs;
    snprintf(m->time_origin, sizeof m->time_origin, "2000-01-01T00:00:00.000000");
    snprintf(m->log_type, sizeof m->log_type, "synthetic");
    m->workers = 0; /* logged as the total over GPUs, like DS-Analyzer */
    for (int g = 0; g < p->gpus; g++) m->workers += workers_gpu[g];
    m->epochs = p->epochs;
    const double v[8] = {p->fetch_mean, p->fetch_cv, p->compute_mean, p->compute_cv, p->straggler_prob,
                         p->straggler_scale, p->worker_gap, p->refill_gap};
    char t[8][32];
    for (int i = 0; i < 8; i++) ss_format_number(v[i], t[i], sizeof t[i]);
    snprintf(m->source, sizeof m->source,
             "stallsim gen --gpus %d --iterations %ld --epochs %d --workers %d --prefetch %d --fetch-mean %s "
             "--fetch-cv %s --compute-mean %s --compute-cv %s --straggler-prob %s --straggler-scale %s "
             "--worker-gap %s --refill-gap %s --seed %lu",
             p->gpus, p->iterations, p->epochs, p->workers, p->prefetch, t[0], t[1], t[2], t[3], t[4], t[5], t[6],
             t[7], p->seed);
    /* the options added with issue 11, only when used (older traces keep their text) */
    size_t n = strlen(m->source);
    if (p->delivery != 0.0) {
        ss_format_number(p->delivery, t[0], sizeof t[0]);
        n += (size_t)snprintf(m->source + n, n < sizeof m->source ? sizeof m->source - n : 0, " --delivery %s", t[0]);
    }
    for (int i = 0; i < p->n_slow && n < sizeof m->source; i++) {
        ss_format_number(p->slow_factor[i], t[0], sizeof t[0]);
        n += (size_t)snprintf(m->source + n, sizeof m->source - n, " --slow-gpu %d:%s", p->slow_gpu[i], t[0]);
    }
    for (int i = 0; i < p->n_wgpu && n < sizeof m->source; i++)
        n += (size_t)snprintf(m->source + n, sizeof m->source - n, " --workers-gpu %d:%d", p->wgpu_gpu[i],
                              p->wgpu_workers[i]);
    if (!p->no_loader_attrs) {
        m->loader_workers = workers_gpu;
        m->prefetch_factor = p->prefetch;
    }
}

ss_status ss_gen_write(const ss_gen_params *p, const char *path, int progress)
{
    ss_status st = ss_gen_check(p);
    if (st != SS_OK) return st;
    ss_trace_meta m;
    generator gn;
    ss_slab s;
    memset(&s, 0, sizeof s);
    ss_trace_writer *w = NULL;
    st = gen_init(&gn, p);
    fill_meta(p, gn.workers_gpu, &m); /* loader_workers points into gn until the file is finished */
    long chunk = p->chunk_rows > 0 ? p->chunk_rows : (long)((64L << 20) / ss_slab_row_bytes(p->gpus));
    if (chunk < 1) chunk = 1;
    if (chunk > m.iterations) chunk = m.iterations;
    if (st == SS_OK) st = ss_slab_alloc(&s, chunk, p->gpus);
    if (st == SS_OK) st = ss_trace_create(path, &m, &w);
    int show = progress && isatty(STDERR_FILENO);
    double t0 = 0.0, t_end = 0.0;
    long done = 0;
    for (int e = 0; st == SS_OK && e < p->epochs; e++) {
        ss_forward_epoch_start(gn.fw);
        t0 = e == 0 ? 0.0 : t_end + 1.0; /* a second between epochs */
        for (long k = 0; st == SS_OK && k < p->iterations; k++) {
            gen_row(&gn, &s, s.n, e + 1, k, t0);
            t_end = s.train_start[s.n * p->gpus] - s.stall_time[s.n * p->gpus] + s.iteration_time[s.n * p->gpus];
            /* the trace's reader takes no time past SS_TRACE_MAX_SECONDS: stop before writing one */
            for (int g = 0; g < p->gpus && st == SS_OK; g++) {
                const long x = s.n * p->gpus + g;
                if (s.fetch_start[x] > SS_TRACE_MAX_SECONDS || s.train_start[x] > SS_TRACE_MAX_SECONDS)
                    st = ss_fail(SS_EUSAGE, "gen: epoch %d, iteration %ld would start after %g s, more than a trace "
                                 "may hold: fewer --iterations or --epochs, or shorter times", e + 1, k,
                                 SS_TRACE_MAX_SECONDS);
            }
            if (st != SS_OK) break;
            if (++s.n == chunk || (e == p->epochs - 1 && k == p->iterations - 1)) {
                st = ss_trace_append(w, &s);
                done += s.n;
                s.n = 0;
                if (show) fprintf(stderr, "\rstallsim gen: %ld/%ld rows", done, m.iterations);
            }
        }
    }
    if (show) fputc('\n', stderr);
    if (st == SS_OK) st = ss_trace_finish(w);
    else ss_trace_abort(w);
    ss_slab_free(&s);
    gen_free(&gn);
    return st;
}
