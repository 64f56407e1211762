/* ss_ablate.h - the pipeline model's internal ablation switches: each structural rule can be
 * switched off by STALLSIM_PIPELINE_OFF=name1,name2 (MODELS-pipeline.md, "Ablation (internal)"). */
#ifndef SS_ABLATE_H
#define SS_ABLATE_H

#include "ss_status.h"

/* The rules, in the order of their names (ss_ablate.c). */
typedef enum {
    SSP_RULE_FIRST_ROUND,      /* more workers do not inherit the trace's queue */
    SSP_RULE_DELIVERY_BATCH,   /* each batch's own measured delivery */
    SSP_RULE_ASK_LAGS,         /* the GPUs' measured ask lags */
    SSP_RULE_FIRST_ASK,        /* T[-1] is the epoch's first ask */
    SSP_RULE_BOOT_FACTOR,      /* the workers' start-ups and stops times beta on shared cores */
    SSP_RULE_PERSISTENT,       /* persistent_workers = true drops later epochs' start-ups */
    SSP_RULE_SYNC_START,       /* a GPU made synchronous starts at its ask */
    SSP_RULE_SYNC_DELIVERY,    /* a GPU made synchronous has no delivery */
    SSP_RULE_HEAL_STARTS,      /* a healed GPU's first starts are the others' median */
    SSP_RULE_HEAL_ASK,         /* a healed GPU's first ask is the others' median */
    SSP_RULE_CPU_SHARING,      /* CPU sharing as a whole */
    SSP_RULE_ALIGNMENT,        /* the measured share gamma of steps taken together */
    SSP_RULE_REGIME,           /* the regime switch between gamma, alpha and 0 */
    SSP_RULE_SYNC_THREAD,      /* a synchronous fetch is its own thread */
    SSP_RULE_STEP_STRETCH,     /* the step's CPU part stretches (Delta) */
    SSP_RULE_DELIVERY_ROWS,    /* the period's delivery term is a row's largest delivery */
    SSP_RULE_READY_FLAG,       /* flagged GPUs' deliveries stretch by r */
    SSP_RULE_WAITS,            /* the measured waits for a core (recorder format 3) */
    SSP_RULE_FIRST_WINDOW,     /* the first window's start-up waits scale by x */
    SSP_RULE_STORAGE,          /* storage sharing */
    SSP_RULE_GAP_AGREE,        /* calibration: a window-bound worker gap needs agreeing rows */
    SSP_RULE_ASK_SPREAD,       /* the first asks' spread scales with the workers each loop starts */
    SSP_RULE_PASS_LEAD,        /* the lead and the stop between passes scale with the workers */
    SSP_RULE_SYNC_PROBE,       /* from a synchronous trace, workers cost what the recorder's probe measured */
    SSP_RULE_WINDOW_ROWS,      /* the first window's wait falls on its rows as their excess fetch does */
    SSP_RULE_WINDOW_CRUSH,     /* the first window's wait follows the crush of each loop's workers */
    SSP_RULE_PROBE_STRETCH,    /* a probed GPU's delivery stretches by s1, the probe having run on idle cores */
    SSP_RULE_WINDOW_DELIVERY,  /* an epoch's first delivery stretches with the first window's crush */
    SSP_RULE_PROBE_NEXT,       /* later epochs take the probe's second pass */
    SSP_RULE_PASS_ANCHOR,      /* the first asks scale from each GPU's own pass start */
    SSP_RULE_HEAL_OWN_WORK,    /* a healed GPU's first ask keeps its loop's own work before the pass */
    SSP_NRULES
} ssp_rule;

/* 1 when STALLSIM_PIPELINE_OFF switches rule r off. The variable is read once. */
int ssp_off(ssp_rule r);

/* SS_OK, or SS_ECONFIG naming the unknown names and listing the valid ones. */
ss_status ssp_ablation_check(void);

#endif
