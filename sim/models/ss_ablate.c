/* ss_ablate.c - reads STALLSIM_PIPELINE_OFF, the pipeline model's internal ablation switches
 * (MODELS-pipeline.md, "Ablation (internal)"; not a scenario key). */
#include "ss_ablate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static const char *const names[SSP_NRULES] = {
    "first_round", "delivery_per_batch", "ask_lags", "first_ask", "boot_factor", "persistent",
    "sync_start", "sync_delivery", "heal_starts", "heal_ask", "cpu_sharing", "alignment",
    "regime", "sync_thread", "step_stretch", "delivery_rows", "ready_flag", "waits",
    "first_window", "storage_sharing", "gap_agree", "ask_spread", "pass_lead", "sync_probe",
    "window_rows", "window_crush", "probe_stretch", "window_delivery", "probe_next", "pass_anchor",
    "heal_own_work",
};

static unsigned char off[SSP_NRULES];
static char unknown[256]; /* the names not known, comma-separated ("" when all are) */
static once_flag read_once = ONCE_FLAG_INIT;

static void read_env(void)
{
    const char *v = getenv("STALLSIM_PIPELINE_OFF");
    if (!v) return;
    const char *p = v;
    while (*p) {
        size_t n = strcspn(p, ", ");
        if (n > 0) {
            int found = 0;
            for (int r = 0; r < SSP_NRULES; r++)
                if (strlen(names[r]) == n && !strncmp(names[r], p, n)) off[r] = 1, found = 1;
            if (!found) {
                size_t u = strlen(unknown);
                snprintf(unknown + u, sizeof unknown - u, "%s%.*s", u ? "," : "", (int)n, p);
            }
        }
        p += n;
        p += strspn(p, ", ");
    }
}

int ssp_off(ssp_rule r)
{
    call_once(&read_once, read_env);
    return r >= 0 && r < SSP_NRULES && off[r];
}

ss_status ssp_ablation_check(void)
{
    call_once(&read_once, read_env);
    if (!unknown[0]) return SS_OK;
    char list[512] = "";
    for (int r = 0; r < SSP_NRULES; r++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s%s", r ? ", " : "", names[r]);
    }
    return ss_fail(SS_ECONFIG, "STALLSIM_PIPELINE_OFF: unknown rule '%s'; the valid names are: %s", unknown, list);
}
