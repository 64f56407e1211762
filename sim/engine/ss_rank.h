/* ss_rank.h - the ranked answer after a sweep: which scenarios cut the mean iteration time
 * most against the measured run (on a quiet host, their model's baseline replay), and,
 * when GPUs were healed one at a time, which GPU to fix first; differences within a
 * model's own baseline error are not ranked. */
#ifndef SS_RANK_H
#define SS_RANK_H

#include "ss_summary.h"

#define SS_RANK_TOP 5
/* The best cuts that change one setting alone, given where the first ranked cut changes more */
#define SS_RANK_SINGLE 2
/* Percentage points of the mean iteration time below which two runs are as good as equal:
 * real runs of one setting differ by about that much from one run to the next
 * (datasets/VALIDATION-tables.md). A cut or gain is ranked only above it, and ranked cuts
 * within it of the best are called as good. */
#define SS_RANK_MIN_PCT 1.0
/* A cut that keeps more than this share of a pool's cores busy (cpu_load_pct) cannot run as
 * predicted: it ranks after every cut that can. */
#define SS_RANK_OVER_PCT 100.0

typedef struct {
    int j;             /* scenario index */
    double change_pct; /* the ranked change: 100 x (run_time or mean iteration time / reference - 1),
                        * the reference the measured run or its model's quiet baseline (ss_summary_ref) */
    double change_s;   /* mean iteration time - the reference's, seconds per iteration */
    double steady_pct, run_pct; /* the change of the mean iteration time and of the whole run's time */
    /* where the two disagree in sign: the batches per epoch from which on the steady
     * change outweighs the change of every epoch's start (the whole run gains beyond them
     * where the steady state gains, and only below them where it loses); NaN elsewhere */
    double payoff_rows;
    int loaders_ahead; /* a pipeline row whose loaders keep ahead of the trace's, which were
                        * behind: less certain (ss_rank.c; sim/cli/ANSWER.md) */
    int over;          /* it needs more than all of a pool's cores (SS_RANK_OVER_PCT): ranked
                        * after the cuts that do not */
} ss_rank_top;

typedef struct {
    int gpu, j;            /* the healed GPU and its scenario */
    ss_model model;
    double gain_pct;       /* 100 x (baseline replay - healed) / baseline replay */
    double gain_s_epoch;   /* (baseline replay - healed) x iterations per epoch */
    int ranked;            /* the gain exceeds the model's baseline error */
} ss_rank_heal;

typedef struct ss_ranking {
    int ntop;
    ss_rank_top top[SS_RANK_TOP];
    /* the first ntied cuts are as good as the best: within SS_RANK_MIN_PCT of it and on the
     * same side of the cores' limit; among them the fewest settings changed from the
     * model's baseline row come first (the cheapest), then the larger change */
    int ntied;
    int n_within;               /* scenarios whose change is within their model's error */
    int n_alike_heal;           /* heals left out of the cuts: their model's heals gain alike
                                 * (heal_alike: the iterations' spread, no GPU stands out) */
    int within_j[SS_RANK_TOP];  /* the first min(n_within, SS_RANK_TOP) of them, in table order */
    int n_twin;                 /* healed scenarios left out: the heal adds no more than the error
                                 * to the same scenario without it (its twin), which is ranked */
    int twin_j[SS_RANK_TOP];    /* the first min(n_twin, SS_RANK_TOP) of them, in table order */
    int n_same;                 /* cuts left out as the same scenario as a ranked one: its model,
                                 * label and mean iteration time (settings resolving alike:
                                 * workers = auto*2 on a synchronous trace is workers = 0) */
    int n_one;                  /* cuts left out as predicting exactly the time of a cut kept
                                 * before them in table order whose label differs in one setting */
    int n_other;                /* cuts of other models left out of a sweep that has a model
                                 * which ranks alone (ss_model_ops.ranks_alone: pipeline) */
    int other_j[SS_RANK_TOP];   /* the first min(n_other, SS_RANK_TOP) of them, largest cut first */
    int nheal;
    ss_rank_heal *heal;         /* sorted by gain, largest first, per model in table order */
    /* per model: 1 where every GPU was healed alone and their gains lie within
     * SS_RANK_MIN_PCT of each other, or within twice the standard error of the difference of
     * the largest and least heal's mean iteration times (taken as independent): no GPU stands
     * out (the iterations' spread, not one GPU); the model's heals are then no cuts */
    unsigned char heal_alike[SS_NMODELS];
    double error_pct[SS_NMODELS]; /* |fidelity error| of each model's baseline row, NAN when none; 0 where it
                                   * is not measured (a quiet host's baseline: ss_summary_ref) */
    double iterations_per_epoch;
    int by_run;                 /* ranked by the whole run's time (rank_by = run), else the steady state */
    int n_payoff;               /* cuts of the steady state left out as the whole run loses by them */
    int payoff_j[SS_RANK_TOP];  /* the first min(n_payoff, SS_RANK_TOP) of them, largest steady cut first */
    double payoff_rows[SS_RANK_TOP]; /* and from how many batches per epoch on they pay off */
    /* where the first ranked cut changes two settings or more of its model's baseline: the
     * best ranked cuts of that model that change one setting alone, in rank order. A heal
     * is left out: "GPUs to fix first" ranks each GPU's heal alone. */
    int nsingle;
    ss_rank_top single[SS_RANK_SINGLE];
} ss_ranking;

/* 1 when row j keeps more than SS_RANK_OVER_PCT of a pool's cores busy (cpu_load_pct):
 * it cannot run as predicted. */
int ss_rank_over(const ss_summary *s, int j);

/* Ranks the rows of s (rank 0), by the whole run's time (by_run) or the mean iteration
 * time. iterations_per_epoch converts a gain per iteration into seconds per epoch. A scenario is ranked only when |change| exceeds its model's baseline
 * error (0 for models whose baseline gives the measured run back by construction). Heal
 * gains are taken against the model's baseline row: only heal scenarios whose other
 * settings are the baseline's are ranked per GPU. */
ss_status ss_rank(const ss_summary *s, double iterations_per_epoch, int by_run, ss_ranking *out);
void ss_ranking_free(ss_ranking *r);

#endif
