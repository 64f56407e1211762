/* ss_cmd_compare_load.c - `stallsim compare`'s rows: results folders read, traces summarised. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ss_align.h"
#include "ss_atomic.h"
#include "ss_calibrate.h"
#include "ss_columns.h"
#include "ss_cmd.h"
#include "ss_config.h"
#include "ss_number.h"
#include "ss_limits.h"
#include "ss_model.h"
#include "ss_model_ids.h"
#include "ss_results.h"
#include "ss_scenario.h"
#include "ss_sweep.h"
#include "ss_trace.h"
#include "ss_cmd_compare.h"
#include "ss_cmd_run_eval.h"

static ss_status push(cmp_table *t, const char *source, const ss_results_row *r)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        cmp_row *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v) return ss_fail(SS_ENOMEM, "out of memory");
        t->v = v;
        t->cap = cap;
    }
    snprintf(t->v[t->n].source, sizeof t->v[t->n].source, "%s", source);
    t->v[t->n].kind = CMP_REPLAY;
    t->v[t->n].model = -1;
    t->v[t->n].set = (cmp_settings){NAN, NAN, NAN, NAN, -1, 0, 0};
    t->v[t->n].workers = t->v[t->n].prefetch = -1;
    t->v[t->n].base.workers = t->v[t->n].base.w = t->v[t->n].base.p = t->v[t->n].base.pw = -1;
    t->v[t->n].persistent = -1;
    t->v[t->n].batch = -1;
    t->v[t->n].dev = 0;
    t->v[t->n].ino = 0;
    t->v[t->n].waits[0] = '\0';
    t->v[t->n++].r = *r;
    return SS_OK;
}

/* What the waits of a trace without fetch times say (ss_cmd_compare.h, cmp_row.waits). */
static void waits_line(const ss_summary *s, const char *path, char *buf, size_t n)
{
    const int j = ss_summary_measured(s);
    const ss_partial *m = &s->p[j];
    const double whole = ss_summary_run_time(s, j);
    int most = 0;
    for (int g = 1; g < s->gpus; g++)
        if (ss_summary_straggler_share(s, j, g) > ss_summary_straggler_share(s, j, most)) most = g;
    snprintf(buf, n,
             "waits (%.120s, no fetch times): GPU %d alone waited longest in %.1f%% of the iterations; the largest "
             "wait costs %.4f s per iteration, %.2f s over the whole run (%.1f%% of it)",
             path, most, 100.0 * ss_summary_straggler_share(s, j, most), m->mean[SS_M_STALL], m->run.stall,
             whole > 0 ? 100.0 * ss_summary_wall(s, m->run.stall) / whole : 0.0);
}

/* The evaluation loader's trace of trace path under --with-eval: A-eval.h5 for A.h5 (and
 * A-eval.hdf5 for A.hdf5, A-eval for a name with neither), into out; SS_EIO naming it where
 * it is missing. */
static ss_status eval_trace_of(const char *path, char *out, size_t n)
{
    const size_t l = strlen(path);
    const char *ext = l >= 5 && !strcmp(path + l - 5, ".hdf5") ? ".hdf5" : l >= 3 && !strcmp(path + l - 3, ".h5") ? ".h5" : "";
    const size_t e = strlen(ext);
    if (snprintf(out, n, "%.*s-eval%s", (int)(l - e), path, ext) >= (int)n)
        return ss_fail(SS_EUSAGE, "%s: name too long", path);
    struct stat sb;
    if (stat(out, &sb) != 0)
        return ss_fail(SS_EIO, "%s: --with-eval: its evaluation loader's trace %s: %s", path, out, strerror(errno));
    return SS_OK;
}

static ss_status summarise_trace(const char *path, const ss_config *opts, int with_eval, ss_results_row *row,
                                 int *gpus, int *workers, int *prefetch, int *persistent, double *others,
                                 long *batch, char *waits, size_t nwaits)
{
    ss_comm self;
    ss_comm_self(&self);
    ss_config cfg = *opts;
    cfg.text = NULL;
    cfg.n_models = 0; /* the measured row only */
    cfg.eval_path[0] = '\0';
    if (with_eval) {
        ss_status es = eval_trace_of(path, cfg.eval_path, sizeof cfg.eval_path);
        if (es != SS_OK) return es;
    }
    ss_scenario *sc = NULL;
    int nsc = 0;
    ss_trace_file *t = NULL;
    ss_summary sum;
    memset(&sum, 0, sizeof sum);
    ss_status st = ss_scenarios_build(&cfg, &sc, &nsc);
    if (st == SS_OK) st = ss_trace_open(path, &self, &t);
    if (st == SS_OK) st = ss_sweep_run(&self, &cfg, t, sc, nsc, NULL, 0, &sum, NULL);
    char origin[SS_PATH_MAX + 32];
    snprintf(origin, sizeof origin, "%s: --with-eval", path);
    const ss_status before = st;
    st = ss_run_eval_loader(&self, &cfg, origin, t, sc, nsc, &sum, st, 1, NULL); /* (nothing without --with-eval) */
    if (with_eval && before == SS_OK && st == SS_ECONFIG)
        st = SS_EDATA; /* (no scenario file here: the traces paired by name do not fit) */
    if (st == SS_OK) ss_trace_report_warnings(t, &self);
    /* a trace that records its CPU times: the measured run's cpu_load_pct, which needs
     * each GPU's worker count (the calibration's) */
    const ss_trace_meta *m = st == SS_OK ? ss_trace_meta_of(t) : NULL;
    *workers = *prefetch = -1;
    if (m && m->loader_workers && m->gpus > 0) {
        *workers = m->loader_workers[0];
        for (int g = 1; g < m->gpus; g++)
            if (m->loader_workers[g] != *workers) *workers = -2;
    }
    if (m && m->prefetch_factor >= 1 && m->prefetch_factor <= SS_MAX_PREFETCH) *prefetch = (int)m->prefetch_factor;
    *persistent = m ? (int)m->persistent_workers : -1; /* (the reader keeps -1, 0 or 1) */
    *batch = m && m->batch_size > 0 ? m->batch_size : -1;
    int busiest;
    double job;
    if (!m || !ss_trace_meta_host_others(m, &busiest, others, &job)) *others = NAN;
    if (st == SS_OK && ss_trace_meta_has_cpu(m)) {
        ss_calib cal;
        if (ss_calibrate(t, SS_CALIB_ROWS, &cal) != SS_OK || ss_summary_adopt_calib(&sum, &cal, m) != SS_OK)
            ss_clear(); /* the load is then not shown; the comparison goes on */
    }
    if (st == SS_OK) st = ss_cmd_check_selection(sum.p[ss_summary_measured(&sum)].n, &cfg, path, t, "--epoch", "--warmup");
    if (st == SS_OK) {
        /* the measured row as results.h5 would hold it */
        memset(row, 0, sizeof *row);
        int nc, ntext = 0;
        const ss_column *cols = ss_columns(&nc);
        for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS; k++) {
            ss_colval v;
            if (!(cols[k].flags & SS_COLF_H5) || (cols[k].flags & SS_COLF_PER_GPU)) continue;
            int has = ss_column_get(&cols[k], &sum, 0, 0, &v);
            if (cols[k].type == SS_COL_STR && ntext < SS_RESULTS_MAX_TEXT)
                snprintf(row->text[ntext++], sizeof row->text[0], "%s", has ? v.str : "");
            else if (cols[k].type == SS_COL_F64) row->num[k] = has ? v.d : NAN;
            else if (cols[k].type != SS_COL_STR) row->num[k] = has ? (double)v.l : NAN;
        }
        *gpus = sum.gpus;
        waits[0] = '\0';
        if (!ss_trace_meta_has_fetch(m)) waits_line(&sum, path, waits, nwaits);
    }
    if (t) ss_trace_close(t);
    ss_summary_free(&sum);
    free(sc);
    return st;
}

/* results.h5 records the digest of the summary.csv written with it: a summary.csv of
 * another run (or edited) beside it is reported. */
static void check_pair(const char *dir, const char *results)
{
    char want[17], got[17], csv[4200];
    snprintf(csv, sizeof csv, "%s/summary.csv", dir);
    if (ss_results_csv_digest(results, want) != 0) return; /* results of an older stallsim */
    if (ss_atomic_file_digest(csv, got) != 0)
        ss_warn("%s: no summary.csv beside results.h5", dir);
    else if (strcmp(want, got) != 0)
        ss_warn("%s: summary.csv is not the one written with results.h5 (edited, or from another run); "
                "the table below is results.h5's",
                dir);
}

/* An epoch as the messages say it: its number, or "all". */
static void epoch_text(long e, char *buf, size_t n)
{
    if (e == SS_EPOCH_ALL) snprintf(buf, n, "all");
    else snprintf(buf, n, "%ld", e);
}

/* Results inputs carry the selection they were summarised with: traces are summarised the
 * same way unless an option says otherwise (then with a warning), and results that
 * disagree with each other are refused. explicit[3]: --warmup, --threshold, --epoch given. */
ss_status cmp_align_settings(char **inputs, int n, ss_config *opts, const int explicit_[3], int with_eval,
                             int *runs_apart)
{
    *runs_apart = 0;
    ss_results_settings first = {0}, cur;
    const char *first_arg = NULL;
    int traces = 0, with = 0, without = 0; /* traces given; results run with and without an evaluation loader */
    const char *with_arg = NULL, *without_arg = NULL;
    for (int i = 0; i < n; i++) {
        char path[4200];
        struct stat sb;
        if (stat(inputs[i], &sb) != 0) continue; /* reported by add_input */
        if (S_ISDIR(sb.st_mode)) snprintf(path, sizeof path, "%s/results.h5", inputs[i]);
        else snprintf(path, sizeof path, "%s", inputs[i]);
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue; /* (add_input says) */
        if (ss_trace_is_trace(path)) {
            traces++;
            continue;
        }
        const ss_status rs = ss_results_read_settings(path, &cur);
        if (rs == SS_EDATA) return rs; /* a results file whose settings are malformed */
        if (rs != SS_OK) {                /* not one it can open: add_input says what it is */
            ss_clear();
            continue;
        }
        if (cur.eval_trace[0] && !with++) with_arg = inputs[i];
        if (!cur.eval_trace[0] && !without++) without_arg = inputs[i];
        if (!cur.known) continue;
        if (!first_arg) {
            first = cur;
            first_arg = inputs[i];
        } else if (cur.warmup_iterations != first.warmup_iterations || cur.epoch != first.epoch ||
                   cur.threshold != first.threshold) {
            char ec[32], ef[32];
            epoch_text(cur.epoch, ec, sizeof ec);
            epoch_text(first.epoch, ef, sizeof ef);
            return ss_fail(SS_EDATA,
                           "%s was summarised with warmup %ld, epoch %s, threshold %g but %s with warmup %ld, "
                           "epoch %s, threshold %g: the rows are not comparable",
                           inputs[i], cur.warmup_iterations, ec, cur.threshold, first_arg,
                           first.warmup_iterations, ef, first.threshold);
        }
    }
    /* a whole run of the job's two loaders beside one of its training loader alone differs by
     * the evaluation passes */
    *runs_apart = traces && ((with && !with_eval) || (without && with_eval));
    if (traces && with && !with_eval)
        ss_warn("%s counts an evaluation loader ([trace] eval_path) in its whole runs, but the traces are summarised "
                "alone: give --with-eval to take each trace A.h5 with its A-eval.h5", with_arg);
    else if (traces && without && with_eval)
        ss_warn("%s counts no evaluation loader in its whole runs, but --with-eval adds each trace's A-eval.h5 to "
                "that trace's whole run", without_arg);
    if (!first_arg) return SS_OK;
    if (!explicit_[0]) opts->warmup_iterations = first.warmup_iterations;
    else if (opts->warmup_iterations != first.warmup_iterations)
        ss_warn("traces are summarised with --warmup %ld, but %s used %ld", opts->warmup_iterations, first_arg,
                first.warmup_iterations);
    if (!explicit_[1]) opts->effective_delay_threshold = first.threshold;
    else if (opts->effective_delay_threshold != first.threshold)
        ss_warn("traces are summarised with --threshold %g, but %s used %g", opts->effective_delay_threshold,
                first_arg, first.threshold);
    long e = opts->epoch_all ? SS_EPOCH_ALL : opts->epoch;
    if (!explicit_[2]) {
        opts->epoch_all = first.epoch == SS_EPOCH_ALL;
        opts->epoch = first.epoch == SS_EPOCH_ALL ? 0 : first.epoch;
    } else if (e != first.epoch) {
        char ee[32];
        epoch_text(e, ee, sizeof ee);
        ss_warn("traces are summarised with --epoch %s, but %s used %s", ee, first_arg,
                first.epoch == SS_EPOCH_ALL ? "every epoch" : "another epoch");
    }
    return SS_OK;
}

/* Column name's number in row r (NaN where the row or the file has none) */
static double column_num(const ss_results_row *r, const char *name)
{
    int nc;
    const ss_column *cols = ss_columns(&nc), *c = ss_column_find(name);
    return c && c - cols < SS_RESULTS_MAX_COLUMNS ? r->num[c - cols] : NAN;
}

/* Column name's text in row r ("" where the row or the file has none): the reader keeps the
 * text columns in table order (ss_results.h) */
static const char *column_text(const ss_results_row *r, const char *name)
{
    int nc, slot = 0;
    const ss_column *cols = ss_columns(&nc);
    for (int k = 0; k < nc && k < SS_RESULTS_MAX_COLUMNS && slot < SS_RESULTS_MAX_TEXT; k++) {
        if (!(cols[k].flags & SS_COLF_H5) || (cols[k].flags & SS_COLF_PER_GPU) || cols[k].type != SS_COL_STR) continue;
        if (!strcmp(cols[k].name, name)) return r->text[slot];
        slot++;
    }
    return "";
}

/* A results folder row's model (by its model column, in the model table), its kind, and
 * the settings it was replayed with (its columns, not its label) */
static void row_settings(cmp_row *row)
{
    const ss_results_row *r = &row->r;
    row->model = -1;
    for (int m = 0; m < SS_NMODELS && row->model < 0; m++)
        if (!strcmp(ss_model_get((ss_model)m)->name, column_text(r, "model"))) row->model = m;
    row->kind = row->model >= 0 && ss_model_get((ss_model)row->model)->measured_run ? CMP_MEASURED : CMP_REPLAY;
    cmp_settings *s = &row->set;
    s->workers = column_num(r, "workers");
    s->prefetch = column_num(r, "prefetch");
    s->fetch_scale = column_num(r, "fetch_scale");
    s->compute_scale = column_num(r, "compute_scale");
    const char *none = ss_align_name(SS_ALIGN_NONE);
    s->unaligned = !strcmp(column_text(r, "fetch_align"), none) && !strcmp(column_text(r, "start_align"), none);
    const char *name = column_text(r, "scenario");
    s->persistent = strstr(name, "_pw-true") ? 1 : strstr(name, "_pw-false") ? 0 : -1;
    s->healed = column_text(r, "heal_gpus")[0] != '\0' || !isnan(column_num(r, "heal_gpu"));
}

/* A base trace's recorded persistent_workers (1 or 0, -1 where it cannot be read or has
 * none), the share of its cores other processes used while it was recorded (NaN unknown)
 * and its batch size (-1 unknown) */
static void base_facts(const char *path, int *pw, double *others, long *batch)
{
    ss_comm self;
    ss_comm_self(&self);
    ss_trace_file *t = NULL;
    *pw = -1;
    *others = NAN;
    *batch = -1;
    if (ss_trace_open(path, &self, &t) == SS_OK) {
        const ss_trace_meta *m = ss_trace_meta_of(t);
        *batch = m->batch_size > 0 ? m->batch_size : -1;
        int busiest;
        double job;
        *pw = (int)m->persistent_workers; /* (-1, 0 or 1) */
        if (!ss_trace_meta_host_others(m, &busiest, others, &job)) *others = NAN;
    } else {
        ss_clear(); /* unknown: --match then pairs by the loader alone */
    }
    if (t) ss_trace_close(t);
}

/* A file compare can read (sb: its stat): a regular one (a pipe or a device would block the
 * reads or never end) that this user may open. */
static ss_status readable(const char *path, const struct stat *sb)
{
    if (!S_ISREG(sb->st_mode))
        return ss_fail(SS_EIO, "%s: not a regular file (a pipe or a device?); compare reads results folders, "
                               "their results.h5, and traces", path);
    FILE *f = fopen(path, "rb");
    if (!f) return ss_fail(SS_EIO, "%s: cannot open: %s", path, strerror(errno));
    fclose(f);
    return SS_OK;
}

ss_status cmp_add_input(cmp_table *t, const char *arg, const ss_config *opts)
{
    char path[4200];
    struct stat sb;
    if (!arg[0]) return ss_fail(SS_EUSAGE, "an empty name given as a results folder or trace");
    if (stat(arg, &sb) != 0)
        return errno == ENOENT ? ss_fail(SS_EIO, "%s: no such file or folder", arg)
                               : ss_fail(SS_EIO, "%s: %s", arg, strerror(errno));
    int is_dir = S_ISDIR(sb.st_mode);
    if (is_dir) snprintf(path, sizeof path, "%s/results.h5", arg);
    else snprintf(path, sizeof path, "%s", arg);
    if (is_dir && stat(path, &sb) != 0)
        return errno == ENOENT
                   ? ss_fail(SS_EIO, "%s: folder holds no results.h5 (not a stallsim results folder)", arg)
                   : ss_fail(SS_EIO, "%s: cannot read the folder: %s", arg, strerror(errno));
    ss_status rd = readable(path, &sb); /* (sb: path's stat, the folder's results.h5 or the file) */
    if (rd != SS_OK) return rd;
    size_t la = strlen(arg);
    if (!is_dir && la >= 4 && !strcmp(arg + la - 4, ".csv"))
        return ss_fail(SS_EUSAGE, "%s: a CSV file; compare reads results folders (or their results.h5) and traces",
                       arg);
    if (is_dir) check_pair(arg, path);
    int gpus = 0;
    ss_status st;
    if (ss_trace_is_trace(path)) {
        ss_results_row row;
        int w, p, pw;
        double others;
        long batch;
        char waits[sizeof t->v[0].waits];
        if ((st = summarise_trace(path, opts, t->with_eval, &row, &gpus, &w, &p, &pw, &others, &batch, waits,
                                  sizeof waits)) != SS_OK)
            return st;
        if ((st = push(t, arg, &row)) != SS_OK) return st;
        memcpy(t->v[t->n - 1].waits, waits, sizeof waits);
        t->v[t->n - 1].kind = CMP_TRACE;
        t->v[t->n - 1].workers = w;
        t->v[t->n - 1].prefetch = p;
        t->v[t->n - 1].persistent = pw;
        t->v[t->n - 1].others = others;
        t->v[t->n - 1].batch = batch;
        struct stat ts;
        if (stat(path, &ts) == 0) {
            t->v[t->n - 1].dev = ts.st_dev;
            t->v[t->n - 1].ino = ts.st_ino;
        }
    } else {
        ss_results_row *rows;
        ss_results_settings rs;
        int n;
        if ((st = ss_results_read_summary(path, &rows, &n, &gpus)) != SS_OK) return st;
        (void)ss_results_read_settings(path, &rs); /* unreadable: the base unknown */
        struct stat bs;
        const int base_known = rs.trace[0] && stat(rs.trace, &bs) == 0;
        /* (results of an older stallsim: the trace itself, where its path still resolves) */
        int base_pw = -1;
        double base_others = NAN;
        long base_batch = -1;
        if (base_known) base_facts(rs.trace, &base_pw, &base_others, &base_batch);
        if (rs.base_pw >= 0) base_pw = rs.base_pw;
        if (rs.base_batch > 0) base_batch = rs.base_batch;
        for (int i = 0; st == SS_OK && i < n; i++) {
            st = push(t, arg, &rows[i]);
            if (st == SS_OK) {
                cmp_row *row = &t->v[t->n - 1];
                row_settings(row);
                row->base.workers = rs.base_workers;
                row->base.w = rs.base_w;
                row->base.p = rs.base_p;
                row->base.pw = base_pw;
                row->others = base_others;
                row->batch = base_batch;
                if (base_known) {
                    row->dev = bs.st_dev;
                    row->ino = bs.st_ino;
                }
            }
        }
        free(rows);
        if (st != SS_OK) return st;
    }
    if (t->gpus == 0) t->gpus = gpus;
    else if (gpus != t->gpus)
        return ss_fail(SS_EDATA, "%s has %d %s but %s has %d: the runs are not comparable", arg, gpus,
                       ss_plural(gpus, "GPU", "GPUs"),
                       t->v[0].source, t->gpus);
    return SS_OK;
}

void cmp_print_waits(const cmp_table *t, FILE *out)
{
    for (int i = 0; i < t->n; i++)
        if (t->v[i].waits[0]) fprintf(out, "%s\n", t->v[i].waits);
}
