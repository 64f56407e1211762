/* ss_row.h - one measured iteration (row) of a trace as the replay models see it, with
 * the per-row statistics that every scenario of that row shares. */
#ifndef SS_ROW_H
#define SS_ROW_H

#include "ss_align.h"
#include "ss_healset.h"

typedef struct {
    int gpus;
    const double *fetch_start, *fetch_time, *iteration_time, *stall_time; /* [gpus] */
    const double *train_start; /* [gpus], or NULL when the sweep did not read it */
    double *done;        /* [gpus] fetch_start + fetch_time, filled by ss_row_prepare */
    /* [gpus] when given with train_start: filled by ss_row_prepare with each GPU's measured
     * delivery cost of the batch, max(0, stall - max(0, done - (train_start - stall)))
     * (MODELS-pipeline.md, d[k][g] before its factor), shared by the row's scenarios */
    double *delivery;
    /* the sums of fetch_start and of fetch_time over the GPUs in GPU order from 0, when
     * known already (the trace reader adds them up); NULL: ss_row_prepare adds them */
    const double *sum_fetch_start, *sum_fetch_time;
    /* the row's extremes when known already (the trace reader finds them while it checks
     * the values; ss_slab's extremes, in the order of ss_trace.h's SS_EX_ names); NULL:
     * ss_row_prepare finds them */
    const double *extremes;
    double start_min, start_max, start_mean;
    double fetch_min, fetch_max, fetch_mean, fetch_median; /* median only if asked for */
    double stall_max, stall_min, iter_max;
    int stall_argmax; /* the GPU that alone had the largest measured stall, or -1 when tied */
    double compute; /* the step's compute time: iter_max - stall_max, not below 0 (a trace
                     * with a stall longer than its iteration is warned about when read) */
    const double *fetch_sorted; /* [gpus] the fetch times ascending, when prepared for healing */
    /* prepared for healing: the largest measured stall (value, count, first two GPUs), the
     * next smaller value (count, first GPU), the smallest and the next larger, so that
     * the row's spread with one GPU changed is known in O(1) */
    double st_hi1, st_hi2, st_lo1, st_lo2;
    int st_hi1_n, st_hi1_i[2], st_hi2_n, st_hi2_i, st_lo1_n;
} ss_row;

/* A batch's measured delivery cost before its factor (MODELS-pipeline.md, d[k][g]):
 * max(0, stall - max(0, ready - ask)) with ask = train_start - stall and ready =
 * fetch_start + fetch_time; the one definition the row preparation and the pipeline
 * model share. */
static inline __attribute__((always_inline)) double ss_row_delivery_of(double stall, double train_start,
                                                                        double ready)
{
    double late = ready - (train_start - stall);
    double x = stall - (late > 0.0 ? late : 0.0);
    return x > 0.0 ? x : 0.0;
}

/* Fills done[] and the row statistics. scratch needs gpus doubles when want_median. */
void ss_row_prepare(ss_row *r, int want_median, double *scratch);

/* Sorts the row's fetch times into sorted[gpus] for ss_row_heal (after ss_row_prepare). */
void ss_row_prepare_heal(ss_row *r, double *sorted);

/* The median (GSL's: the mean of the two middle values for an even count) of the n values
 * sorted[0..n-1] without one that equals v (n >= 2); O(log n). */
double ss_median_without(const double *sorted, int n, double v);

/* The median of the fetch times of every GPU but g (GSL's median: the mean of the two
 * middle values for an even count); g's own fetch time when there is one GPU. Needs
 * ss_row_prepare_heal; O(log G). */
double ss_row_median_others(const ss_row *r, int g);

/* The row with GPU g healed: its fetch time replaced by the median of the other GPUs'
 * (into fetch_buf[gpus], which out->fetch_time then points to) and the fetch statistics
 * updated; starts, done (the measured ready times), stalls and iteration times as
 * measured. O(G) for the copy, O(log G) for the statistics. */
void ss_row_heal(const ss_row *r, int g, ss_row *out, double *fetch_buf);

/* The median (GSL's: the mean of the two middle values for an even count) of v[g] over the
 * GPUs g < n not in h, sorting a copy in scratch[n]; v[0]'s value when every GPU is in h. */
double ss_median_unhealed(const double *v, int n, const ss_healset *h, double *scratch);

/* dst[0..n) = src with every GPU of h replaced by the median of the GPUs not in h
 * (ss_median_unhealed; dst may be src, scratch n doubles). */
void ss_copy_healed(double *dst, const double *src, int n, const ss_healset *h, double *scratch);

/* The row with the GPUs of h healed together (h of 2 or more GPUs; ss_row_heal heals one):
 * their fetch times replaced by the median of the other GPUs' (into fetch_buf[gpus]) and
 * the fetch statistics recomputed (min, max, mean in GPU order; the median is that median
 * of the others, as with one GPU healed; scratch[gpus]); starts, done, stalls and
 * iteration times as measured. O(G log G). */
void ss_row_heal_set(const ss_row *r, const ss_healset *h, ss_row *out, double *fetch_buf, double *scratch);

/* The aligned fetch time of the row for a non-none align (MODELS-independent.md, step 2). */
double ss_row_fetch_aligned(const ss_row *r, ss_align a);

/* The statistic of values[0..n-1] that a non-none start_align asks for (MODELS-independent.md, step 1):
 * min, avg = max - (max - min) / 2, mean. */
double ss_align_start_of(const double *values, int n, ss_align a);

#endif
