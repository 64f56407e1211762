/* ss_pipe_probe.c - the pipeline model's step alone, for scripts/bench.sh: ssp_replay_row
 * (the fused pass, the straggler and the step's figures) over 64 prepared rows of G GPUs
 * that stay in cache, replayed in turn for 4 scenarios, as a sweep replays a prepared row
 * for its scenarios (with the row preparation's measured deliveries, as the sweep prepares
 * them once per row); per-GPU loader settings as a calibration gives them (4 workers,
 * prefetch 2, gaps and delivery factors that differ per GPU) and each batch's measured
 * delivery. Prints the GPU-steps per second, without the trace read, the row preparation
 * and the block statistics that the sweep's replay phase also counts.
 *
 * usage: stallsim_pipe_probe [--gpus G]     prints "key value" lines */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ss_model_pipeline.h"
#include "ss_row.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int G = 1024;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gpus") && i + 1 < argc) G = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: stallsim_pipe_probe [--gpus G]\n");
            return 2;
        }
    }
    if (G < 1 || G > 1 << 20) {
        fprintf(stderr, "stallsim_pipe_probe: --gpus must be 1 to 1048576\n");
        return 2;
    }
    enum { R = 64, NSC = 4 };
    const size_t n = (size_t)R * (size_t)G;
    double *fs = malloc(n * sizeof *fs), *ft = malloc(n * sizeof *ft), *it = malloc(n * sizeof *it);
    double *st = malloc(n * sizeof *st), *ts = malloc(n * sizeof *ts), *done = malloc(n * sizeof *done);
    double *deliv = malloc(n * sizeof *deliv);
    double *stall = malloc((size_t)G * sizeof *stall), *scratch = malloc(3 * (size_t)G * sizeof *scratch);
    int *wg = malloc((size_t)G * sizeof *wg), *pg = malloc((size_t)G * sizeof *pg);
    double *gg = malloc((size_t)G * sizeof *gg), *rg = malloc((size_t)G * sizeof *rg), *dg = malloc((size_t)G * sizeof *dg);
    ss_row *rows = malloc(R * sizeof *rows);
    if (!fs || !ft || !it || !st || !ts || !done || !deliv || !stall || !scratch || !wg || !pg || !gg || !rg || !dg || !rows) {
        fprintf(stderr, "stallsim_pipe_probe: out of memory\n");
        return 1;
    }
    /* rows of a loader-bound run: a fetch of about 1 s, a step of 0.3 s */
    for (int r = 0; r < R; r++)
        for (int g = 0; g < G; g++) {
            size_t x = (size_t)r * (size_t)G + (size_t)g;
            fs[x] = 0.3 * r + 0.001 * (double)(g % 17);
            ft[x] = 0.9 + 0.01 * (double)((x * 7919) % 23);
            st[x] = 0.002 * (double)((x * 104729) % 11);
            it[x] = 0.3 + st[x];
            ts[x] = 0.3 * r + 1.0 + st[x];
        }
    for (int r = 0; r < R; r++) {
        size_t o = (size_t)r * (size_t)G;
        rows[r] = (ss_row){.gpus = G, .fetch_start = fs + o, .fetch_time = ft + o, .iteration_time = it + o,
                           .stall_time = st + o, .train_start = ts + o, .done = done + o, .delivery = deliv + o};
        ss_row_prepare(&rows[r], 0, scratch);
    }
    for (int g = 0; g < G; g++) {
        wg[g] = 4;
        pg[g] = 2;
        gg[g] = 0.001 * (double)(g % 5);
        rg[g] = 0.0005 * (double)(g % 3);
        dg[g] = 0.002 + 0.0001 * (double)(g % 7);
    }
    ssp_state s[NSC];
    for (int j = 0; j < NSC; j++) {
        ssp_params p = {.workers = 4, .prefetch = 2, .fetch_scale = j < 2 ? 1.0 : 0.5, .compute_scale = 1,
                        .fetch_align = SS_ALIGN_NONE, .start_align = SS_ALIGN_NONE, .workers_gpu = wg,
                        .prefetch_gpu = pg, .worker_gap_gpu = gg, .refill_gap_gpu = rg, .delivery_gpu = dg,
                        .workers_factor = j % 2 ? 2.0 : 1.0, .delivery_measured = 1.0};
        if (ssp_init(&s[j], &p, G) != 0) {
            fprintf(stderr, "stallsim_pipe_probe: cannot set up the model\n");
            return 1;
        }
    }
    double best = INFINITY, sink = 0;
    long steps = 0;
    for (int rep = 0; rep < 15; rep++) { /* the best of 15: other jobs on the machine only slow it */
        double t0 = now();
        long e = 0;
        for (int it2 = 0; it2 < 20; it2++)
            for (int r = 0; r < R; r++)
                for (int j = 0; j < NSC; j++) {
                    ss_step out;
                    ssp_replay_row(&s[j], &rows[r], stall, &out);
                    sink += out.iter_time;
                    e += G;
                }
        double t = now() - t0;
        if (t < best) best = t;
        steps = e;
    }
    printf("pipeline_steps_per_s %.4g\n", (double)steps / best);
    printf("checksum %.6g\n", sink);
    for (int j = 0; j < NSC; j++) ssp_free(&s[j]);
    free(fs), free(ft), free(it), free(st), free(ts), free(done), free(deliv), free(stall), free(scratch);
    free(wg), free(pg), free(gg), free(rg), free(dg), free(rows);
    return 0;
}
