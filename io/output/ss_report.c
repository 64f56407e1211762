/* ss_report.c - summary.csv, the terminal table and JSON. */
#include "ss_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Full precision (%.17g); empty for values that do not apply (NaN). */
static void put_num(FILE *f, double v)
{
    if (isnan(v)) return;
    fprintf(f, "%.17g", v);
}

static void csv_row(FILE *f, const ss_summary *s, int j)
{
    const ss_scenario *sc = &s->sc[j];
    const ss_partial *p = &s->p[j];
    int pipe = sc->model == SS_MODEL_PIPELINE, meas = sc->model == SS_MODEL_MEASURED;
    fprintf(f, "%s,%s,%s,%s,%ld", sc->name, ss_model_name(sc->model), meas ? "" : ss_align_name(sc->fetch_align),
            meas ? "" : ss_align_name(sc->start_align), (long)p->n);
    /* the SPEC §5 column order: three mean/std pairs, effective delay, two more pairs */
    const int order[6] = {SS_M_ITER, SS_M_STALL, SS_M_DELAY, -1, SS_M_START, SS_M_FETCH};
    for (int k = 0; k < 6; k++) {
        fputc(',', f);
        if (order[k] < 0) {
            put_num(f, ss_summary_effective_delay_pct(s, j));
            continue;
        }
        put_num(f, p->n > 0 ? p->mean[order[k]] : NAN);
        fputc(',', f);
        put_num(f, ss_partial_std(p, order[k]));
    }
    fputc(',', f);
    put_num(f, ss_summary_change_pct(s, j));
    if (pipe) fprintf(f, ",%d,%d,%.17g,%.17g", sc->pipe.workers, sc->pipe.prefetch, sc->fetch_scale, sc->compute_scale);
    else fputs(",,,,", f);
    fputc(',', f);
    put_num(f, ss_summary_fidelity_err_pct(s, j));
    fputc(',', f);
    put_num(f, ss_summary_fidelity_mape_pct(s, j));
    for (int g = 0; g < s->gpus; g++) {
        fputc(',', f);
        put_num(f, ss_summary_straggler_share(s, j, g));
    }
    fputc('\n', f);
}

ss_status ss_report_write_csv(const ss_summary *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return ss_fail(SS_EIO, "%s: cannot write", path);
    fputs("scenario,model,fetch_align,start_align,iterations,iter_time_mean,iter_time_std,"
          "stall_mean,stall_std,delay_mean,delay_std,effective_delay_pct,start_diff_mean,"
          "start_diff_std,fetch_diff_mean,fetch_diff_std,iter_time_change_pct,workers,prefetch,"
          "fetch_scale,compute_scale,fidelity_iter_time_err_pct,fidelity_iter_time_mape_pct", f);
    for (int g = 0; g < s->gpus; g++) fprintf(f, ",straggler_share_gpu%d", g);
    fputc('\n', f);
    for (int j = 0; j < s->nsc; j++) csv_row(f, s, j);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) return ss_fail(SS_EIO, "%s: write failed (disk full?)", path);
    return SS_OK;
}

static void pm(char *buf, size_t n, const ss_partial *p, int m)
{
    if (p->n == 0) snprintf(buf, n, "-");
    else if (p->n < 2) snprintf(buf, n, "%.4f", p->mean[m]);
    else snprintf(buf, n, "%.4f±%.4f", p->mean[m], ss_partial_std(p, m));
}

static void short_label(const ss_scenario *sc, char *buf, size_t n)
{
    if (sc->model == SS_MODEL_MEASURED) snprintf(buf, n, "measured");
    else if (sc->model == SS_MODEL_INDEPENDENT)
        snprintf(buf, n, "indep f=%s s=%s", ss_align_name(sc->fetch_align), ss_align_name(sc->start_align));
    else
        snprintf(buf, n, "pipe f=%s s=%s W=%d P=%d fs=%g cs=%g", ss_align_name(sc->fetch_align),
                 ss_align_name(sc->start_align), sc->pipe.workers, sc->pipe.prefetch, sc->fetch_scale,
                 sc->compute_scale);
}

void ss_report_print_table(const ss_summary *s, FILE *out)
{
    fprintf(out, "%-2s %-44s %6s %17s %17s %17s %8s %8s\n", "", "scenario", "iters", "iter_time (s)",
            "stall (s)", "delay (s)", "eff.dly%", "change%");
    for (int j = 0; j < s->nsc; j++) {
        const ss_partial *p = &s->p[j];
        char lab[96], a[40], b[40], c[40], chg[24];
        short_label(&s->sc[j], lab, sizeof lab);
        pm(a, sizeof a, p, SS_M_ITER);
        pm(b, sizeof b, p, SS_M_STALL);
        pm(c, sizeof c, p, SS_M_DELAY);
        double ch = ss_summary_change_pct(s, j);
        if (isnan(ch)) snprintf(chg, sizeof chg, "-");
        else snprintf(chg, sizeof chg, "%+.2f", ch);
        /* "±" is two bytes: widen the fields that hold one so columns line up */
        fprintf(out, "%-2s %-44s %6ld %*s %*s %*s %8.2f %8s\n",
                j == ss_summary_measured(s) ? "M" : s->sc[j].baseline ? "*" : "", lab, (long)p->n,
                17 + (strstr(a, "±") ? 1 : 0), a, 17 + (strstr(b, "±") ? 1 : 0), b,
                17 + (strstr(c, "±") ? 1 : 0), c, ss_summary_effective_delay_pct(s, j), chg);
    }
    fprintf(out, "M = the measured run; * = baseline replay (nothing changed); change%% is against M.\n");
    for (int j = 0; j < s->nsc; j++) {
        double e = ss_summary_fidelity_err_pct(s, j);
        if (isnan(e)) continue;
        fprintf(out, "fidelity of %s: mean iteration time %+.2f%% vs measured, per-iteration MAPE %.2f%%\n",
                s->sc[j].name, e, ss_summary_fidelity_mape_pct(s, j));
    }
    if (s->gpus > 1) {
        const ss_partial *m = &s->p[ss_summary_measured(s)];
        int g = ss_summary_slowest_gpu(s, ss_summary_measured(s));
        if (g >= 0 && m->n > 0)
            fprintf(out, "slowest loader (measured): GPU %d alone had the largest stall in %.1f%% of iterations\n", g,
                    100.0 * ss_summary_straggler_share(s, ss_summary_measured(s), g));
    }
}

static void json_num(FILE *f, const char *key, double v, int comma)
{
    if (isnan(v)) fprintf(f, "\"%s\": null", key);
    else fprintf(f, "\"%s\": %.17g", key, v);
    if (comma) fputs(", ", f);
}

void ss_report_print_json(const ss_summary *s, FILE *f)
{
    fputs("{\"gpus\": ", f);
    fprintf(f, "%d, \"scenarios\": [\n", s->gpus);
    for (int j = 0; j < s->nsc; j++) {
        const ss_scenario *sc = &s->sc[j];
        const ss_partial *p = &s->p[j];
        int meas = sc->model == SS_MODEL_MEASURED;
        fprintf(f, "  {\"scenario\": \"%s\", \"model\": \"%s\", \"fetch_align\": %s%s%s, \"start_align\": %s%s%s, "
                   "\"iterations\": %ld, ",
                sc->name, ss_model_name(sc->model), meas ? "" : "\"", meas ? "null" : ss_align_name(sc->fetch_align),
                meas ? "" : "\"", meas ? "" : "\"", meas ? "null" : ss_align_name(sc->start_align), meas ? "" : "\"",
                (long)p->n);
        static const char *const names[5] = {"iter_time", "stall", "delay", "start_diff", "fetch_diff"};
        static const int ms[5] = {SS_M_ITER, SS_M_STALL, SS_M_DELAY, SS_M_START, SS_M_FETCH};
        char key[40];
        for (int k = 0; k < 5; k++) {
            snprintf(key, sizeof key, "%s_mean", names[k]);
            json_num(f, key, p->n > 0 ? p->mean[ms[k]] : NAN, 1);
            snprintf(key, sizeof key, "%s_std", names[k]);
            json_num(f, key, ss_partial_std(p, ms[k]), 1);
        }
        json_num(f, "effective_delay_pct", ss_summary_effective_delay_pct(s, j), 1);
        json_num(f, "iter_time_change_pct", ss_summary_change_pct(s, j), 1);
        if (sc->model == SS_MODEL_PIPELINE)
            fprintf(f, "\"workers\": %d, \"prefetch\": %d, \"fetch_scale\": %.17g, \"compute_scale\": %.17g, ",
                    sc->pipe.workers, sc->pipe.prefetch, sc->fetch_scale, sc->compute_scale);
        json_num(f, "fidelity_iter_time_err_pct", ss_summary_fidelity_err_pct(s, j), 1);
        json_num(f, "fidelity_iter_time_mape_pct", ss_summary_fidelity_mape_pct(s, j), 1);
        fputs("\"straggler_share\": [", f);
        for (int g = 0; g < s->gpus; g++) {
            double v = ss_summary_straggler_share(s, j, g);
            if (isnan(v)) fprintf(f, "%snull", g ? ", " : "");
            else fprintf(f, "%s%.17g", g ? ", " : "", v);
        }
        fprintf(f, "]}%s\n", j + 1 < s->nsc ? "," : "");
    }
    fputs("]}\n", f);
}
