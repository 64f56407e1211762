/* ss_passes.c - the time between an epoch's passes over the loader: measured from each
 * epoch's first row and the row before it, and the workers' part of it scaled per scenario
 * (MODELS-pipeline.md, "Between passes"). */
#include "ss_passes.h"

#include <math.h>
#include <stdlib.h>

#include "ss_model.h"

void ss_passes_free(ss_passes *p)
{
    free(p->between);
    free(p->lead);
    free(p->first);
    free(p->stop);
    free(p->last_end);
    free(p->last_stop);
    p->between = p->lead = p->stop = p->last_end = p->last_stop = NULL;
    p->first = NULL;
    p->n = 0;
}

/* The rows where an epoch starts (the first row, and each row whose epoch differs from the
 * row before's), in *at (malloc'd), their count in *n. */
static ss_status epoch_starts(ss_trace_file *t, long **at, long *n)
{
    const long N = ss_trace_meta_of(t)->iterations, chunk = 1L << 18;
    int32_t *e = malloc((size_t)(N < chunk ? N : chunk) * sizeof *e), last = 0;
    long cap = 16, k = 0;
    long *v = malloc((size_t)cap * sizeof *v);
    ss_status st = e && v ? SS_OK : ss_fail(SS_ENOMEM, "out of memory reading the epochs");
    for (long r0 = 0; st == SS_OK && r0 < N; r0 += chunk) {
        const long m = N - r0 < chunk ? N - r0 : chunk;
        st = ss_trace_read_epochs(t, r0, m, e);
        for (long i = 0; st == SS_OK && i < m; i++) {
            if (r0 + i > 0 && e[i] == last) continue;
            last = e[i];
            if (k == cap) {
                long *w = realloc(v, (size_t)(cap *= 2) * sizeof *v);
                if (!w) {
                    st = ss_fail(SS_ENOMEM, "out of memory reading the epochs");
                    break;
                }
                v = w;
            }
            v[k++] = r0 + i;
        }
    }
    free(e);
    if (st != SS_OK) {
        free(v);
        return st;
    }
    *at = v;
    *n = k;
    return SS_OK;
}

/* 1 when the second of two rows (ts, it, sl: [2][G] each) asks where the first's
 * iterations end, on every GPU, to within a microsecond: the asks then carry the wall time
 * (a recorder's rows do; an import may leave gaps). */
static int rows_chain(const double *ts, const double *it, const double *sl, int G)
{
    for (int g = 0; g < G; g++)
        if (!(fabs(ts[G + g] - sl[G + g] - (ts[g] - sl[g] + it[g])) <= 1e-6)) return 0;
    return 1;
}

ss_status ss_passes_read(ss_trace_file *t, ss_passes *out)
{
    const ss_trace_meta *m = ss_trace_meta_of(t);
    const int G = m->gpus;
    *out = (ss_passes){0};
    out->start = NAN;
    long *at = NULL, n = 0;
    ss_status st = epoch_starts(t, &at, &n);
    if (st != SS_OK) return st;
    if (m->pass_start && m->passes != n) {
        free(at);
        return ss_fail(SS_EDATA, "%s: dataset /pass_start_time has %ld rows, but the timeline has %ld epochs (one row "
                       "per epoch, in the timeline's order)", ss_trace_path(t), m->passes, n);
    }
    out->n = n;
    out->gpus = G;
    out->has_starts = m->pass_start != NULL;
    out->between = malloc((size_t)n * sizeof *out->between);
    out->lead = malloc((size_t)n * sizeof *out->lead);
    out->first = malloc((size_t)n * sizeof *out->first);
    out->stop = malloc((size_t)n * sizeof *out->stop);
    double *buf = malloc(9 * (size_t)G * sizeof *buf); /* three rows of three columns */
    double first_ask = 0.0; /* the epoch's earliest first ask */
    int chained = 1;        /* the sampled rows' asks follow on from their iterations */
    if (!out->between || !out->lead || !out->first || !out->stop || !buf)
        st = ss_fail(SS_ENOMEM, "out of memory reading the epochs");
    const long N = m->iterations;
    for (long e = 0; st == SS_OK && e < n; e++) {
        /* the row before the epoch's first (the last of the epoch before), its first row,
         * and its second where it has one */
        const long stop = e + 1 < n ? at[e + 1] : N, r0 = e > 0 ? at[e] - 1 : at[e];
        const long nr = (e > 0) + 1 + (at[e] + 1 < stop);
        double *ts = buf, *it = buf + nr * G, *sl = buf + 2 * nr * G;
        st = ss_trace_read_loop_columns(t, r0, nr, 0, G, ts, it, sl);
        if (st != SS_OK) break;
        /* the last GPU's end of the epoch before: its last row's ask plus its iteration */
        double end = -INFINITY;
        for (int g = 0; e > 0 && g < G; g++) end = fmax(end, ts[g] - sl[g] + it[g]);
        if (e > 0) {
            ts += G;
            it += G;
            sl += G;
        }
        if (at[e] + 1 < stop) chained &= rows_chain(ts, it, sl, G);
        int f = 0; /* the earliest first ask */
        for (int g = 1; g < G; g++)
            if (ts[g] - sl[g] < ts[f] - sl[f]) f = g;
        const double ask = ts[f] - sl[f];
        if (e > 0) out->span += end - first_ask; /* the epoch before's */
        first_ask = e > 0 ? fmax(ask, end) : ask; /* (an epoch that asks before the one before ends
                                                   * counts from that end: no time twice) */
        const double lead = m->pass_start ? fmax(0.0, ask - m->pass_start[e * G + f]) : NAN;
        out->first[e] = f;
        out->between[e] = e > 0 ? fmax(0.0, ask - end) : m->pass_start ? lead : 0.0;
        out->lead[e] = m->pass_start ? fmin(lead, out->between[e]) : NAN;
        if (e == 0) out->start = ask - out->between[0];
        out->stop[e] = e > 0 && m->pass_stop ? fmin(m->pass_stop[(e - 1) * G + f], out->between[e] - out->lead[e]) : NAN;
    }
    /* the last pass's last row (and the row before it, in the same pass): the last epoch's
     * end, and after it (with pass stops) */
    const int two = n > 0 && N - 2 >= at[n - 1], nl = 1 + two;
    const double *lts = buf + two * G, *lit = buf + (nl + two) * G, *lsl = buf + (2 * nl + two) * G;
    if (st == SS_OK && n > 0) st = ss_trace_read_loop_columns(t, N - nl, nl, 0, G, buf, buf + nl * G, buf + 2 * nl * G);
    if (st == SS_OK && n > 0) {
        if (two) chained &= rows_chain(buf, buf + 2 * G, buf + 4 * G, G);
        double end = -INFINITY;
        for (int g = 0; g < G; g++) end = fmax(end, lts[g] - lsl[g] + lit[g]);
        out->span += end - first_ask;
    }
    if (!chained) out->span = NAN;
    if (st == SS_OK && n > 0 && m->pass_stop) {
        out->last_end = malloc((size_t)G * sizeof *out->last_end);
        out->last_stop = malloc((size_t)G * sizeof *out->last_stop);
        if (!out->last_end || !out->last_stop) st = ss_fail(SS_ENOMEM, "out of memory reading the epochs");
        for (int g = 0; st == SS_OK && g < G; g++) {
            out->last_end[g] = lts[g] - lsl[g] + lit[g];
            out->last_stop[g] = m->pass_stop[(n - 1) * G + g];
        }
    }
    free(buf);
    free(at);
    if (st != SS_OK) ss_passes_free(out);
    return st;
}

ss_status ss_passes_time(const ss_passes *p, const ss_scenario *s, const ss_trace_meta *m, double *out,
                         double *tail)
{
    const ss_model_ops *ops = ss_model_get(s->model);
    const int scaled = p->has_starts && ops->lead_factors;
    const int G = m->gpus;
    /* the first epoch's factors on the leads [G] and the stops [G] and the seconds added to
     * them [2 G], then a later one's */
    double *k = scaled ? malloc(8 * (size_t)G * sizeof *k) : NULL;
    ss_status st = scaled && !k ? ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name) : SS_OK;
    if (st == SS_OK && scaled) st = ops->lead_factors(s, m, 1, k);
    if (st == SS_OK && scaled) st = ops->lead_factors(s, m, 0, k + 4 * G);
    double sum = 0.0;
    for (long e = 0; st == SS_OK && e < p->n; e++) {
        sum += p->between[e];
        if (!scaled) continue;
        const double *ke = k + (e > 0) * 4 * G;
        const int f = p->first[e];
        sum += (ke[f] - 1.0) * p->lead[e] + ke[2 * G + f];
        if (isfinite(p->stop[e])) sum += (ke[G + f] - 1.0) * p->stop[e] + ke[3 * G + f]; /* (none before the first) */
    }
    /* after the last pass: each GPU's shutdown scaled as a later epoch's stop */
    *tail = st == SS_OK ? ss_passes_tail(p, scaled ? k + 5 * G : NULL, scaled ? k + 7 * G : NULL) : 0.0;
    free(k);
    *out = sum;
    return st;
}

double ss_passes_wall_ratio(const ss_passes *p, double rows)
{
    return rows > 0.0 && p->span > 0.0 && p->span < rows ? p->span / rows : 1.0;
}

double ss_passes_tail(const ss_passes *p, const double *k, const double *add)
{
    if (!p->last_end) return 0.0;
    double last = -INFINITY, job = -INFINITY;
    for (int g = 0; g < p->gpus; g++) {
        last = fmax(last, p->last_end[g]);
        job = fmax(job, p->last_end[g] + (k ? k[g] : 1.0) * p->last_stop[g] + (add ? add[g] : 0.0));
    }
    return fmax(0.0, job - last);
}
