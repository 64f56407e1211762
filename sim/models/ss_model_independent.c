/* ss_model_independent.c - the independent replay kernel (MODELS-independent.md, step 1-6). */
#include "ss_model_independent.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_isa.h"
#include "ss_model.h"

/* [independent]: the model's options (registered into the scenario file's option table) */
static const ss_option options_rows[] = {
    {"stall_floor", SS_OPT_SECONDS, offsetof(ssi_params, stall_floor), "0.000002", 0, 1e18,
     "stall given to a batch that the scenario makes ready in time, seconds"},
    {"stall_sensitivity", SS_OPT_SECONDS, offsetof(ssi_params, stall_sensitivity), "0.01", 0, 1e18,
     "measured stall above which a later batch adds to the stall, seconds"},
};
static const ss_option_section options = {"independent", options_rows, 2, sizeof(ssi_params)};

/* The new stall of one GPU (MODELS-independent.md, step 4), branch-free so that the loop vectorises. */
static inline double new_stall(double done, double done_sim, double st, double floor_, double sens)
{
    double gap = done - done_sim; /* > 0: the replayed batch is ready gap earlier */
    double e = st - gap;
    double earlier = e < 0.0 ? floor_ : e;
    /* gap < 0: a later batch adds to a stall above the sensitivity; gap == 0 (or NaN): st
     * (one select fewer than later-or-st chosen by the sign of gap) */
    double later = (gap < 0.0) & (st > sens) ? e : st;
    return gap > 0.0 ? earlier : later;
}

/* The loop runs over chunks of GPUs and keeps each chunk's largest stall, so that the
 * GPU that alone had the largest stall is found by looking into one chunk only. */
#define CHUNKS_MAX 1024

static inline int chunk_size(int G) { return G <= 64 * CHUNKS_MAX ? 64 : (G + CHUNKS_MAX - 1) / CHUNKS_MAX; }

/* The loop shapes: start and fetch each either per-GPU (measured) or one value, over GPUs
 * [g0, g1). Returns the largest and smallest new stall (max and min are exact in any
 * order, so the reductions may be vectorised) and the largest of each chunk (chunks of
 * chunk_size(gpus) GPUs from g0). store: the stalls go to out[0..g1-g0) (else nothing is
 * stored, and the one chunk the argmax needs is replayed again). */
static inline __attribute__((always_inline)) void replay_loop(const ss_row *r, int g0, int g1, int start_each,
                                                               int fetch_each, int store, double s1, double f1,
                                                               const ssi_params *p, double *out,
                                                               double *max_out, double *min_out,
                                                               double *chunk_max)
{
    const int C = chunk_size(r->gpus);
    const double *restrict fs = r->fetch_start, *restrict ft = r->fetch_time;
    const double *restrict st = r->stall_time, *restrict done = r->done;
    double *restrict o = out;
    const double fl = p->stall_floor, sens = p->stall_sensitivity;
    double mx = -INFINITY, mn = INFINITY;
    for (int c0 = g0, c = 0; c0 < g1; c0 += C, c++) {
        const int c1 = c0 + C < g1 ? c0 + C : g1;
        double cmx = -INFINITY, cmn = INFINITY;
#pragma omp simd reduction(max : cmx) reduction(min : cmn)
        for (int g = c0; g < c1; g++) {
            double s = start_each ? fs[g] : s1;
            double f = fetch_each ? ft[g] : f1;
            double v = new_stall(done[g], s + f, st[g], fl, sens);
            if (store) o[g - g0] = v;
            cmx = v > cmx ? v : cmx;
            cmn = v < cmn ? v : cmn;
        }
        chunk_max[c] = cmx;
        mx = cmx > mx ? cmx : mx;
        mn = cmn < mn ? cmn : mn;
    }
    *max_out = mx;
    *min_out = mn;
}

/* The four loop shapes (bit 1: per-GPU starts, bit 0: per-GPU fetch times) with and
 * without the store (bit 2), compiled for each vector level (ss_isa.h); returns the
 * largest new stall. */
static SS_KERNEL double loops_body(const ss_row *r, int g0, int g1, int shape, double s1, double f1,
                                   const ssi_params *p, double *out, double *min_out, double *chunk_max)
{
    double mx;
    switch (shape) {
    case 7: replay_loop(r, g0, g1, 1, 1, 1, s1, f1, p, out, &mx, min_out, chunk_max); break;
    case 6: replay_loop(r, g0, g1, 1, 0, 1, s1, f1, p, out, &mx, min_out, chunk_max); break;
    case 5: replay_loop(r, g0, g1, 0, 1, 1, s1, f1, p, out, &mx, min_out, chunk_max); break;
    case 4: replay_loop(r, g0, g1, 0, 0, 1, s1, f1, p, out, &mx, min_out, chunk_max); break;
    case 3: replay_loop(r, g0, g1, 1, 1, 0, s1, f1, p, out, &mx, min_out, chunk_max); break;
    case 2: replay_loop(r, g0, g1, 1, 0, 0, s1, f1, p, out, &mx, min_out, chunk_max); break;
    case 1: replay_loop(r, g0, g1, 0, 1, 0, s1, f1, p, out, &mx, min_out, chunk_max); break;
    default: replay_loop(r, g0, g1, 0, 0, 0, s1, f1, p, out, &mx, min_out, chunk_max); break;
    }
    return mx;
}
SS_MULTIVERSION(double, loops,
                (const ss_row *r, int g0, int g1, int shape, double s1, double f1, const ssi_params *p, double *out,
                 double *min_out, double *chunk_max),
                (r, g0, g1, shape, s1, f1, p, out, min_out, chunk_max))

/* The only GPU whose stall equals mx, or -1 when several do. v: the stalls, or NULL when
 * they were not stored: the one chunk that holds mx is then replayed again into a local
 * buffer (the same arithmetic, so the same values). */
static int unique_argmax(const ss_row *r, const double *v, double mx, const double *chunk_max, int shape,
                         double s1, double f1, const ssi_params *p)
{
    const int G = r->gpus, C = chunk_size(G), nch = (G + C - 1) / C;
    int found = -1;
    for (int c = 0; c < nch; c++) {
        if (chunk_max[c] != mx) continue;
        if (found >= 0) return -1;
        found = c;
    }
    int c0 = found * C, n = c0 + C < G ? C : G - c0, g;
    if (v) {
        g = ss_step_unique_argmax(v + c0, n, mx);
    } else if (n <= 64) {
        double buf[64], mn, cm[1];
        loops(r, c0, c0 + n, shape | 4, s1, f1, p, buf, &mn, cm);
        g = ss_step_unique_argmax(buf, n, mx);
    } else {
        /* chunks are wider than 64 GPUs only past 65,536 GPUs: count in steps of 64 */
        double buf[64], mn, cm[1];
        g = -1;
        for (int a = c0; a < c0 + n; a += 64) {
            int m = c0 + n - a < 64 ? c0 + n - a : 64;
            loops(r, a, a + m, shape | 4, s1, f1, p, buf, &mn, cm);
            for (int k = 0; k < m; k++) {
                if (buf[k] != mx) continue;
                if (g >= 0) return -1;
                g = a - c0 + k;
            }
        }
    }
    return g < 0 ? -1 : c0 + g;
}

/* stall_out: the per-GPU stalls, or NULL when they are not wanted. */
static void replay(const ss_row *r, ss_align fa, ss_align sa, const ssi_params *p, int always,
                   double *stall_out, ss_step *out)
{
    const int G = r->gpus;
    double smin, smax;
    int arg;
    out->start_diff = sa == SS_ALIGN_NONE ? r->start_max - r->start_min : 0.0;
    out->fetch_diff = fa == SS_ALIGN_NONE ? r->fetch_max - r->fetch_min : 0.0;
    if (fa == SS_ALIGN_NONE && sa == SS_ALIGN_NONE && !always) {
        /* the measured run itself, as the notebook takes it (no arithmetic round trip);
         * its spread was found when the row was prepared */
        if (stall_out) memcpy(stall_out, r->stall_time, (size_t)G * sizeof *stall_out);
        out->iter_time = r->iter_max;
        out->stall = r->stall_max;
        out->delay = r->stall_max - r->stall_min;
        out->straggler = r->stall_argmax;
        return;
    }
    double s1 = sa == SS_ALIGN_NONE ? 0.0 : sa == SS_ALIGN_MIN ? r->start_min
              : sa == SS_ALIGN_AVG ? r->start_max - (r->start_max - r->start_min) / 2
                                   : r->start_mean;
    double f1 = ss_row_fetch_aligned(r, fa);
    double chunk_max[CHUNKS_MAX];
    int shape = (sa == SS_ALIGN_NONE) * 2 + (fa == SS_ALIGN_NONE);
    smax = loops(r, 0, G, shape | (stall_out ? 4 : 0), s1, f1, p, stall_out, &smin, chunk_max);
    arg = G == 1 ? 0 : unique_argmax(r, stall_out, smax, chunk_max, shape, s1, f1, p);
    /* iteration time = max new stall + the row's compute time (max iteration_time - max stall_time, not below 0) */
    out->iter_time = smax + r->compute;
    out->stall = smax;
    out->delay = smax - smin;
    out->straggler = arg;
}

void ssi_replay_healed(const ss_row *r, int g, const ssi_params *p, double *stall_out, ss_step *out)
{
    const int G = r->gpus;
    const double m = ss_row_median_others(r, g);
    const double v = new_stall(r->done[g], r->fetch_start[g] + m, r->stall_time[g], p->stall_floor,
                               p->stall_sensitivity);
    if (stall_out) {
        memcpy(stall_out, r->stall_time, (size_t)G * sizeof *stall_out);
        stall_out[g] = v;
    }
    double smax = v, smin = v;
    int arg = g;
    if (G > 1) {
        /* the other GPUs keep their measured stalls: their largest (with its count and
         * holder) and smallest from the row's order statistics */
        const double sg = r->stall_time[g];
        double omax, omin = (sg != r->st_lo1 || r->st_lo1_n > 1) ? r->st_lo1 : r->st_lo2;
        int ocount, oidx;
        if (sg != r->st_hi1 || r->st_hi1_n > 1) {
            omax = r->st_hi1;
            ocount = r->st_hi1_n - (sg == r->st_hi1);
            oidx = r->st_hi1_i[0] != g ? r->st_hi1_i[0] : r->st_hi1_i[1];
        } else {
            omax = r->st_hi2;
            ocount = r->st_hi2_n;
            oidx = r->st_hi2_i;
        }
        smax = v > omax ? v : omax;
        smin = v < omin ? v : omin;
        arg = v > omax ? g : v == omax ? -1 : ocount == 1 ? oidx : -1;
    }
    out->iter_time = smax + r->compute;
    out->stall = smax;
    out->delay = smax - smin;
    out->straggler = arg;
    out->start_diff = r->start_max - r->start_min;
    /* the healed fetch times' spread: g's value is the others' median, inside their range */
    double lo = r->fetch_sorted[0], hi = r->fetch_sorted[G - 1];
    if (G > 1) {
        const double fg = r->fetch_time[g];
        if (fg == lo) lo = r->fetch_sorted[1] < m ? r->fetch_sorted[1] : m;
        if (fg == hi) hi = r->fetch_sorted[G - 2] > m ? r->fetch_sorted[G - 2] : m;
    }
    out->fetch_diff = G > 1 ? hi - lo : 0.0;
}

void ssi_replay_row(const ss_row *r, ss_align fa, ss_align sa, const ssi_params *p, double *stall_out,
                    ss_step *out)
{
    replay(r, fa, sa, p, 0, stall_out, out);
}

void ssi_replay_row_always(const ss_row *r, ss_align fa, ss_align sa, const ssi_params *p, double *stall_out,
                           ss_step *out)
{
    replay(r, fa, sa, p, 1, stall_out, out);
}

/* ---- the model table's entry ---- */

typedef struct {
    ssi_params p;
    ss_align fetch_align, start_align;
    int heal;           /* the GPU healed alone, or -1 */
    ss_healset heals;   /* the GPUs healed (n = 0: none) */
    int need_stalls;    /* per-iteration output: the per-GPU stalls are written */
    double *fetch_buf;  /* [2][gpus] the healed row's fetch times, and scratch */
} ind_state;

static void ind_name(const ss_scenario *s, char *buf, size_t n)
{
    char heal[SS_HEAL_TEXT_MAX + 8] = "", set[SS_HEAL_TEXT_MAX];
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(heal, sizeof heal, "_heal-%s", set);
    snprintf(buf, n, "independent_fetch-%s_start-%s%s", ss_align_name(s->fetch_align), ss_align_name(s->start_align),
             heal);
}

static void ind_label(const ss_scenario *s, char *buf, size_t n)
{
    char heal[SS_HEAL_TEXT_MAX + 8] = "", set[SS_HEAL_TEXT_MAX];
    ss_healset_format(&s->heal, set, sizeof set);
    if (s->heal.n > 0) snprintf(heal, sizeof heal, " heal=%s", set);
    snprintf(buf, n, "indep f=%s s=%s%s", ss_align_name(s->fetch_align), ss_align_name(s->start_align), heal);
}

static int ind_baseline(const ss_scenario *s)
{
    return s->fetch_align == SS_ALIGN_NONE && s->start_align == SS_ALIGN_NONE && s->heal.n == 0;
}

static ss_status ind_init(void **state, const ss_scenario *s, const ss_config *c, int gpus)
{
    (void)gpus;
    ind_state *st = calloc(1, sizeof *st);
    if (st && s->heal.n > 0) st->fetch_buf = malloc(2 * (size_t)gpus * sizeof *st->fetch_buf);
    if (!st || (s->heal.n > 0 && !st->fetch_buf)) {
        free(st);
        return ss_fail(SS_ENOMEM, "out of memory for scenario %s", s->name);
    }
    const ssi_params *o = ss_config_options(c, options.name);
    if (!o) {
        free(st->fetch_buf);
        free(st);
        return ss_fail(SS_EINTERNAL, "[%s] options not registered (ss_models_register_options)", options.name);
    }
    st->p = *o;
    st->fetch_align = s->fetch_align;
    st->start_align = s->start_align;
    st->heal = s->heal_gpu;
    st->heals = s->heal;
    st->need_stalls = c->per_iteration;
    *state = st;
    return SS_OK;
}

static void ind_replay(void *state, const ss_row *row, double *stall, ss_step *out)
{
    const ind_state *st = state;
    if (st->heals.n == 0) {
        ssi_replay_row(row, st->fetch_align, st->start_align, &st->p, st->need_stalls ? stall : NULL, out);
        return;
    }
    ss_row healed;
    if (st->heal < 0) { /* several GPUs healed together */
        ss_row_heal_set(row, &st->heals, &healed, st->fetch_buf, st->fetch_buf + row->gpus);
        ssi_replay_row_always(&healed, st->fetch_align, st->start_align, &st->p, st->need_stalls ? stall : NULL, out);
        return;
    }
    if (st->fetch_align == SS_ALIGN_NONE && st->start_align == SS_ALIGN_NONE) {
        ssi_replay_healed(row, st->heal, &st->p, st->need_stalls ? stall : NULL, out);
        return;
    }
    ss_row_heal(row, st->heal, &healed, st->fetch_buf);
    ssi_replay_row_always(&healed, st->fetch_align, st->start_align, &st->p, st->need_stalls ? stall : NULL, out);
}

static void ind_free(void *state)
{
    ind_state *st = state;
    if (st) free(st->fetch_buf);
    free(st);
}

const ss_model_ops ss_model_independent = {
    .name = "independent",
    .label = "indep",
    .legend = "the independent model; f= fetch_align, s= start_align: each GPU takes the row's statistic",
    .stateful = 0,
    .axes = SS_AXIS_HEAL | SS_AXIS_FETCH_ALIGN | SS_AXIS_START_ALIGN,
    .name_of = ind_name,
    .label_of = ind_label,
    .options = &options,
    .is_baseline = ind_baseline,
    .init = ind_init,
    .replay_row = ind_replay,
    .free = ind_free,
};
