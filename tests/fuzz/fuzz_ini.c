/* fuzz_ini.c - fuzzes the scenario file: ss_config_load (inih plus stallsim's checks and
 * --set overrides), then ss_scenarios_build/need_calibration/resolve when it loads. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "ss_calibrate.h"
#include "ss_config.h"
#include "ss_model.h"
#include "ss_scenario.h"

/* Input: the scenario file, optionally followed by SET_SEP and one --set override a line. */
#define SET_SEP "\n%%set%%\n"
#define MAX_SETS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size, *piece;
    size_t len;
    char path[1024];
    piece = fuzz_piece(&p, end, SET_SEP, &len);
    fuzz_write("scenario.ini", piece, len, path, sizeof path);

    char *sets[MAX_SETS];
    int n_sets = 0;
    while (n_sets < MAX_SETS && (piece = fuzz_piece(&p, end, "\n", &len)) != NULL)
        sets[n_sets++] = fuzz_strndup(piece, len);

    static int registered;
    if (!registered && ss_models_register_options() == SS_OK) registered = 1;
    ss_config c;
    ss_clear();
    ss_status st = ss_config_load(&c, path, n_sets, sets);
    if (st == SS_OK) {
        ss_scenario *sc = NULL;
        int n = 0;
        ss_clear();
        if (ss_scenarios_build(&c, &sc, &n) == SS_OK) {
            /* a calibration like one read off a trace */
            int wg[1] = {3}, pg[1] = {2};
            double gg[1] = {0.01}, rg[1] = {0.001}, dg[1] = {0.0005}, res[1] = {0};
            ss_calib cal = {.gpus = 1, .workers_gpu = wg, .prefetch_gpu = pg, .gap_gpu = gg, .refill_gpu = rg,
                            .delivery_gpu = dg, .resid_gpu = res, .stall_resid_gpu = res, .workers = 3,
                            .worker_gap = 0.01, .agree = 1, .rows_used = 100};
            int need = ss_scenarios_need_calibration(sc, n, &c, NULL);
            ss_clear();
            (void)ss_scenarios_resolve(sc, n, &c, need ? &cal : NULL, NULL);
            (void)ss_scenarios_want_median(sc, n);
            char buf[64];
            const ss_autoval one = {1, 2.0};
            ss_autoval_format(&one, buf, sizeof buf);
            free(sc);
        }
    }
    ss_config_free(&c);
    for (int i = 0; i < n_sets; i++) free(sets[i]);
    return 0;
}
