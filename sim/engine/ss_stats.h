/* ss_stats.h - summary statistics of per-iteration series: partials (count, mean, M2,
 * threshold count) computed per fixed block with GSL and merged exactly in a fixed order,
 * so that a summary does not depend on rank count or slab size. */
#ifndef SS_STATS_H
#define SS_STATS_H

enum {
    SS_M_ITER = 0, /* iteration time */
    SS_M_STALL,    /* max stall over GPUs */
    SS_M_DELAY,    /* max - min stall */
    SS_M_START,    /* start_diff */
    SS_M_FETCH,    /* fetch_diff */
    SS_M_APE,      /* |replayed - measured| / measured iteration time, in % */
    SS_NMETRICS
};

/* The whole run of a block of rows, every row of every epoch (the summary's statistics
 * take the summarised rows only): the rows' iteration times summed, and the largest stall
 * of each epoch's first row (its start: the loader starting and its first fetches). A
 * block's first row may start an epoch or continue the previous block's: the block keeps
 * its stall and epoch apart until the blocks are merged in order (ss_partial_merge). */
typedef struct {
    double rows, time;        /* rows, and their iteration times summed */
    double stall;             /* the rows' largest stalls summed */
    double starts, start_sum; /* epoch starts after the block's first row, their stalls summed */
    double first_epoch, first_stall, last_epoch; /* the block's first row's epoch and stall, its last row's epoch */
    /* the rows past their epoch's warm-up (every epoch, whatever [trace] epoch summarises)
     * in each quarter of the trace's rows (row q: floor(4 row / rows)): their count and
     * iteration times summed (how much the trace varies within itself) */
    double part_rows[4], part_time[4];
} ss_run_part;

/* Plain doubles only, so that arrays of partials travel as MPI bytes. */
typedef struct {
    double n;
    double mean[SS_NMETRICS];
    double m2[SS_NMETRICS]; /* sum of squared deviations from the mean */
    double eff;             /* iterations with delay above the threshold */
    ss_run_part run;        /* the whole run's rows (every row of every epoch) */
} ss_partial;

void ss_partial_zero(ss_partial *p);
/* Partial of n values per metric: series[m][0..n-1]; eff counts series[SS_M_DELAY] > thr. */
void ss_partial_of_series(ss_partial *p, double *const series[SS_NMETRICS], long n, double thr);
/* acc := acc merged with b (Chan et al.'s pairwise update); exact for counts. b's rows
 * follow acc's in the trace (blocks merged in order): b's first row starts an epoch when
 * acc has no row or ends in another epoch. */
void ss_partial_merge(ss_partial *acc, const ss_partial *b);
/* Adds one row of the whole run to p: its iteration time, largest stall and epoch. */
void ss_run_add(ss_run_part *r, double iter_time, double stall, double epoch);
/* The whole run's epochs (starts) and the mean largest stall of their first rows. */
double ss_run_epochs(const ss_run_part *r);
double ss_run_start_mean(const ss_run_part *r);
/* Sample standard deviation (n - 1); NaN for fewer than two values. */
double ss_partial_std(const ss_partial *p, int metric);

#endif
