/* ss_forward.c - the pipeline recurrence run forward for `stallsim gen` (ss_forward.h). */
#include "ss_forward.h"

#include <stdlib.h>

#include "ss_model_pipeline.h"

struct ss_forward {
    ssp_state ps;
};

ss_status ss_forward_new(const ss_forward_params *p, int gpus, ss_forward **out)
{
    *out = NULL;
    ss_forward *f = calloc(1, sizeof *f);
    if (!f) return ss_fail(SS_ENOMEM, "out of memory");
    ssp_params pp = {.workers = p->workers, .prefetch = p->prefetch, .worker_gap = p->worker_gap,
                     .refill_gap = p->refill_gap, .delivery = p->delivery, .step_gap = 0.0, .fetch_scale = 1.0,
                     .compute_scale = 1.0, .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE,
                     .workers_gpu = p->workers_gpu, .workers_factor = 1.0};
    ss_status st = ssp_init(&f->ps, &pp, gpus);
    if (st != SS_OK) {
        free(f);
        return st;
    }
    *out = f;
    return SS_OK;
}

void ss_forward_epoch_start(ss_forward *f) { ssp_epoch_start(&f->ps); }

double ss_forward_step(ss_forward *f, const double *fetch, double compute, const double *first_starts, double *start,
                       double *stall, double *t_prev)
{
    ss_step out;
    return ssp_advance(&f->ps, fetch, compute, first_starts, start, stall, t_prev, &out);
}

void ss_forward_free(ss_forward *f)
{
    if (!f) return;
    ssp_free(&f->ps);
    free(f);
}
