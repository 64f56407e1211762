/* ss_ownwork.c - finds one GPU's loop pausing between its steps while the others wait for
 * it at the next all-reduce. */
/* Why it shows: a loop that does work of its own after its step (rank 0 saving a checkpoint
 * or logging) asks for its next batch late, so its row k is long. The other loops ask on
 * time, take their next batch and wait in the next step's all-reduce: their row k + 1 is
 * long. A slow fetch instead shows in the same row on every GPU (the others wait in that
 * step's all-reduce), and in the slow GPU's stall.
 * The method, step by step:
 *  1. y[k][g] = iteration_time - stall_time: GPU g's time in row k apart from its wait for
 *     the batch.
 *  2. Per GPU, from a sample of max(SAMPLE_VALUES / G, 16) rows spread over the trace: the
 *     median m_g of y and the robust deviation d_g = 1.4826 * the median of |y - m_g|.
 *  3. Row k is long on GPU g when y[k][g] > m_g + max(LONG_SHARE * m_g, LONG_SIGMAS * d_g,
 *     LONG_FLOOR_S).
 *  4. A pause of GPU g at row k: row k is long on g alone, and row k + 1, of the same epoch,
 *     is long on at least half of the other GPUs.
 *  5. The finding is the GPU with the most pauses (every: the median of the rows between
 *     two of them), when it has SS_OWNWORK_MIN_PAUSES or
 *     more, at least OWNER_SHARE of all pauses, and their extra time (y[k][g] - m_g,
 *     summed) is SS_OWNWORK_MIN_SHARE or more of its rows' iteration times summed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "ss_ownwork.h"

#define SAMPLE_VALUES (1L << 22) /* values kept for the medians, over all GPUs */
#define SLAB_VALUES (1L << 20)   /* values read per slab and column, over all GPUs */
#define LONG_SHARE 0.5
#define LONG_SIGMAS 6.0
#define LONG_FLOOR_S 0.001 /* s: at least this past m (a GPU whose y is 0 or less in most rows) */
#define OWNER_SHARE 0.75

typedef struct {
    ss_trace_file *t;
    int G;
    long N, slab;
    double *it, *sl;
    int32_t *ep;
} reader;

/* A pause: its row (the GPU's long one) and its GPU. */
typedef struct {
    long row;
    int gpu;
} own_pause;

static ss_status read_slab(reader *r, long r0, long n)
{
    ss_status st = ss_trace_read_loop_columns(r->t, r0, n, 0, r->G, NULL, r->it, r->sl);
    return st == SS_OK ? ss_trace_read_epochs(r->t, r0, n, r->ep) : st;
}

/* Steps 1 and 2: m[g] and d[g]. */
static ss_status typical(reader *r, double *m, double *d)
{
    long per = SAMPLE_VALUES / r->G > 16 ? SAMPLE_VALUES / r->G : 16;
    if (per > r->N) per = r->N;
    const long stride = (r->N + per - 1) / per;
    double *v = malloc((size_t)per * (size_t)r->G * sizeof *v);
    if (!v) return ss_fail(SS_ENOMEM, "out of memory");
    long k = 0;
    ss_status st = SS_OK;
    for (long r0 = 0; st == SS_OK && r0 < r->N; r0 += r->slab) {
        const long n = r->N - r0 < r->slab ? r->N - r0 : r->slab;
        st = read_slab(r, r0, n);
        for (long i = 0; st == SS_OK && i < n; i++) {
            if ((r0 + i) % stride || k >= per) continue;
            for (int g = 0; g < r->G; g++) v[(size_t)g * (size_t)per + (size_t)k] = r->it[i * r->G + g] - r->sl[i * r->G + g];
            k++;
        }
    }
    for (int g = 0; st == SS_OK && g < r->G; g++) {
        double *x = v + (size_t)g * (size_t)per;
        gsl_sort(x, 1, (size_t)k);
        m[g] = gsl_stats_median_from_sorted_data(x, 1, (size_t)k);
        for (long i = 0; i < k; i++) x[i] = fabs(x[i] - m[g]);
        gsl_sort(x, 1, (size_t)k);
        d[g] = 1.4826 * gsl_stats_median_from_sorted_data(x, 1, (size_t)k);
    }
    free(v);
    return st;
}

/* The median of the rows between GPU g's consecutive pauses (of the n in p); 0 for one. */
static long every(const own_pause *p, long n, int g)
{
    double *gap = malloc((size_t)(n > 0 ? n : 1) * sizeof *gap);
    long k = 0, last = -1;
    for (long i = 0; gap && i < n; i++) {
        if (p[i].gpu != g) continue;
        if (last >= 0) gap[k++] = (double)(p[i].row - last);
        last = p[i].row;
    }
    long e = 0;
    if (gap && k > 0) {
        gsl_sort(gap, 1, (size_t)k);
        e = lround(gsl_stats_median_from_sorted_data(gap, 1, (size_t)k));
    }
    free(gap);
    return e;
}

ss_status ss_ownwork_find(ss_trace_file *t, ss_ownwork *out)
{
    memset(out, 0, sizeof *out);
    out->gpu = -1;
    const ss_trace_meta *meta = ss_trace_meta_of(t);
    reader r = {.t = t, .G = meta->gpus, .N = meta->iterations};
    if (r.G < 2 || r.N < 2) return SS_OK;
    r.slab = SLAB_VALUES / r.G > 1 ? SLAB_VALUES / r.G : 1;
    if (r.slab > r.N) r.slab = r.N;
    const size_t G = (size_t)r.G, S = (size_t)r.slab;
    r.it = malloc(S * G * sizeof *r.it);
    r.sl = malloc(S * G * sizeof *r.sl);
    r.ep = malloc(S * sizeof *r.ep);
    double *m = malloc(G * sizeof *m), *d = malloc(G * sizeof *d), *thr = malloc(G * sizeof *thr),
           *extra = calloc(G, sizeof *extra), *sum = calloc(G, sizeof *sum), *prev_y = malloc(G * sizeof *prev_y);
    long *pauses = calloc(G, sizeof *pauses), nat = 0, cap = 0;
    own_pause *at = NULL; /* every pause, in row order */
    unsigned char *prev = calloc(G, 1);
    ss_status st = r.it && r.sl && r.ep && m && d && thr && extra && sum && prev_y && pauses && prev
                       ? SS_OK
                       : ss_fail(SS_ENOMEM, "out of memory");
    if (st == SS_OK) st = typical(&r, m, d);
    for (size_t g = 0; st == SS_OK && g < G; g++)
        thr[g] = m[g] + fmax(fmax(LONG_SHARE * m[g], LONG_SIGMAS * d[g]), LONG_FLOOR_S);
    /* steps 3 and 4, row by row: the row before's long GPUs (prev, n_prev of them) */
    int n_prev = 0, have_prev = 0;
    int32_t prev_ep = 0;
    for (long r0 = 0; st == SS_OK && r0 < r.N; r0 += r.slab) {
        const long n = r.N - r0 < r.slab ? r.N - r0 : r.slab;
        st = read_slab(&r, r0, n);
        for (long i = 0; st == SS_OK && i < n; i++) {
            const double *it = r.it + i * r.G, *sl = r.sl + i * r.G;
            int n_long = 0, owner = -1;
            for (int g = 0; g < r.G; g++) {
                sum[g] += it[g];
                n_long += it[g] - sl[g] > thr[g];
            }
            if (have_prev && prev_ep == r.ep[i] && n_prev == 1) {
                for (int g = 0; g < r.G && owner < 0; g++) owner = prev[g] ? g : -1;
                const int others = n_long - (it[owner] - sl[owner] > thr[owner]);
                if (2 * others >= r.G - 1 && nat == cap) {
                    own_pause *grown = realloc(at, (size_t)(cap ? 2 * cap : 64) * sizeof *at);
                    if (!grown) st = ss_fail(SS_ENOMEM, "out of memory");
                    else at = grown, cap = cap ? 2 * cap : 64;
                }
                if (st == SS_OK && 2 * others >= r.G - 1) {
                    pauses[owner]++;
                    extra[owner] += prev_y[owner] - m[owner];
                    at[nat++] = (own_pause){r0 + i - 1, owner};
                }
            }
            n_prev = 0;
            for (int g = 0; g < r.G; g++) {
                prev_y[g] = it[g] - sl[g];
                prev[g] = prev_y[g] > thr[g];
                n_prev += prev[g];
            }
            prev_ep = r.ep[i];
            have_prev = 1;
        }
    }
    /* step 5 */
    long all = 0;
    int top = 0;
    for (int g = 0; st == SS_OK && g < r.G; g++) {
        all += pauses[g];
        if (pauses[g] > pauses[top]) top = g;
    }
    if (st == SS_OK && pauses[top] >= SS_OWNWORK_MIN_PAUSES && pauses[top] >= OWNER_SHARE * (double)all && sum[top] > 0 &&
        extra[top] >= SS_OWNWORK_MIN_SHARE * sum[top]) {
        out->found = 1;
        out->gpu = top;
        out->pauses = pauses[top];
        out->every = every(at, nat, top);
        out->mean_extra = extra[top] / (double)pauses[top];
        out->share = extra[top] / sum[top];
    }
    free(r.it);
    free(r.sl);
    free(r.ep);
    free(m);
    free(d);
    free(thr);
    free(extra);
    free(sum);
    free(prev_y);
    free(pauses);
    free(at);
    free(prev);
    return st;
}

void ss_ownwork_line(const ss_ownwork *w, char *buf, size_t size)
{
    if (!w->found) {
        if (size) buf[0] = '\0';
        return;
    }
    char every[48] = "";
    if (w->every > 0) snprintf(every, sizeof every, "about every %ld steps, ", w->every);
    snprintf(buf, size,
             "own work (measured): GPU %d's loop paused between steps %ld times (%s%.2f s each, %.0f%% of its time), "
             "and the others waited for it at the next all-reduce: a checkpoint, log or metric on one rank? No loader "
             "setting changes it. The steady state (each row's largest iteration) counts each pause in two rows; the "
             "whole run, in wall time, once",
             w->gpu, w->pauses, every, w->mean_extra, 100.0 * w->share);
}
