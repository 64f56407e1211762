/* ss_config.c - INI scenario files through inih: one table of keys, typed parsers,
 * duplicate and unknown key detection with file:line messages, --set overrides. */
#include "ss_config.h"
#include "ss_number.h"
#include "ss_suggest.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef enum {
    K_PATH, K_EPOCH, K_COUNT, K_MODELS, K_FETCH_ALIGNS, K_START_ALIGNS, K_WORKERS, K_PREFETCH,
    K_SCALES, K_SECONDS, K_GAP_AUTO, K_BOOL, K_SLAB_ITERS, K_POS_NUMBER, K_HEAL,
    K_PARALLEL, K_PERSIST, K_RANK_BY, K_PATH_OPT, K_SWEEP
} key_kind;

/* One option of the scenario file: where it goes, its default (as it would be written in
 * the file), the bounds of its numbers and one line of help. The defaults, the bounds in
 * the messages, `stallsim run --help` and the README's key list all come from here. */
typedef struct {
    const char *section, *key;
    key_kind kind;
    size_t off, off2; /* field, and count field for lists */
    const char *def;  /* NULL: no default (required) */
    double min, max;  /* numbers and list items: allowed range (kinds that have one) */
    const char *help;
} key_def;

/* 1 for the kinds that take a comma list: one scenario per item. */
static int is_list(key_kind kk)
{
    return kk == K_MODELS || kk == K_FETCH_ALIGNS || kk == K_START_ALIGNS || kk == K_WORKERS || kk == K_PREFETCH ||
           kk == K_SCALES || kk == K_HEAL || kk == K_PERSIST;
}

#define F(x) offsetof(ss_config, x)
#define NOB 0, 0 /* no numeric bounds */
/* The rows of the sections every scenario file has: [trace] and [scenarios] (the head),
 * then the models' sections as registered, then [summary], [output] and [run]. */
static const key_def base_keys[] = {
    {"trace", "path", K_PATH, F(trace_path), 0, NULL, NOB,
     "the stalltrace HDF5 file to replay. A relative path is taken from the scenario file's folder"},
    {"trace", "eval_path", K_PATH_OPT, F(eval_path), 0, "none", NOB,
     "the job's evaluation loader, recorded with a Recorder of its own and imported: each scenario's loader "
     "settings apply to it too, and the whole run counts its passes. none: its time stays as measured. A "
     "relative path is taken from the scenario file's folder"},
    {"trace", "epoch", K_EPOCH, 0, 0, "all", NOB, "the epochs summarised: every epoch (all) or one epoch number"},
    {"trace", "warmup_iterations", K_COUNT, F(warmup_iterations), 0, "11", 0, 1e18,
     "iterations with an index below this are replayed but not summarised. The index restarts in each epoch. "
     "Left out, where every summarised epoch is shorter than 11, run summarises every iteration (0)"},
    {"scenarios", "model", K_MODELS, F(models), F(n_models), NULL /* the list's first replay model */, NOB,
     "the replay models to sweep. The trace as measured is always the first row"},
    {"scenarios", "fetch_align", K_FETCH_ALIGNS, F(fetch_align), F(n_fetch), "none", NOB,
     "sets each GPU's fetch time of an iteration to the GPUs' min, mean (avg), median or max. none keeps them"},
    {"scenarios", "start_align", K_START_ALIGNS, F(start_align), F(n_start), "none", NOB,
     "sets each GPU's loader start of an iteration to the GPUs' earliest (min), midpoint (avg) or mean. none "
     "keeps them"},
    {"scenarios", "workers", K_WORKERS, F(workers), F(n_workers), "auto", 0, SS_MAX_WORKERS,
     "pipeline: loader workers per GPU. 0 loads in the training process. auto is the calibrated count; auto*F "
     "scales it (a trace without workers stays at 0: give numbers, 0, 1, 2, 4)"},
    {"scenarios", "prefetch", K_PREFETCH, F(prefetch), F(n_prefetch), "2", 1, SS_MAX_PREFETCH,
     "pipeline: prefetch factor, batches in flight per worker. auto is each GPU's calibrated or recorded one"},
    {"scenarios", "persistent_workers", K_PERSIST, F(persistent), F(n_persistent), "auto", NOB,
     "pipeline: whether the loader's workers live from one epoch to the next. auto: as in the trace. true: "
     "started once. false: started at every epoch, as PyTorch's default. workers = 0 (and auto on a trace "
     "without workers) gets no true scenario (PyTorch refuses it) unless true is the only value"},
    {"scenarios", "fetch_scale", K_SCALES, F(fetch_scale), F(n_fetch_scale), "1", 0, 1e6,
     "pipeline: factor on the storage part of every fetch. 0.5 is storage twice as fast. The CPU part "
     "([pipeline] fetch_cpu) stays"},
    {"scenarios", "compute_scale", K_SCALES, F(compute_scale), F(n_compute_scale), "1", 0, 1e6,
     "pipeline: factor on every compute time. 0.5 is compute twice as fast"},
    {"scenarios", "heal", K_HEAL, F(heal), F(n_heal), "none", 0, SS_MAX_GPUS - 1,
     "GPUs whose fetch times (pipeline: and loader settings) become the other GPUs' median. G heals one GPU. "
     "1+3 or 8-15 heal several together. each makes one scenario per GPU"},
    {"scenarios", "sweep", K_SWEEP, F(sweep_each), 0, "grid", NOB,
     "how the lists combine, per model. grid: every combination. each: one scenario of every list's first value, "
     "then each other value of one list with every other list at its first value"},
    {"summary", "effective_delay_threshold", K_SECONDS, F(effective_delay_threshold), 0, "0.030", 0, 1e18,
     "delay above which an iteration counts as effectively delayed, seconds. The delay is the largest minus "
     "the smallest stall over the GPUs"},
    {"output", "dir", K_PATH, F(out_dir), 0, "results", NOB,
     "folder for summary.csv and results.h5. A relative path is taken from the scenario file's folder"},
    {"output", "per_iteration", K_BOOL, F(per_iteration), 0, "false", NOB,
     "also write every scenario's per-iteration series into results.h5"},
    {"output", "rank_by", K_RANK_BY, F(rank_steady), 0, "run", NOB,
     "what the ranked answer ranks by. run: the whole run's time, every epoch's start included. steady: the "
     "mean iteration time past each epoch's warm-up"},
    {"run", "slab_iterations", K_SLAB_ITERS, F(slab_iterations), 0, "0", 0, 1e18,
     "iterations read at a time. 0: as many as fit slab_mb"},
    {"run", "slab_mb", K_POS_NUMBER, F(slab_mb), 0, "16", 0, 65536,
     "memory budget of a slab of the trace and its per-iteration buffers, MB"},
};
#undef F
#undef NOB
#define NBASE ((int)(sizeof base_keys / sizeof base_keys[0]))

#define SS_MODEL_NAME_(id, name, ops) name,
static const char *const model_names[] = {SS_MODEL_LIST(SS_MODEL_NAME_)};
#undef SS_MODEL_NAME_

/* ---- the option table: base_keys with the registered sections between head and tail ---- */

static const ss_option_section *sections[SS_CONFIG_MAX_SECTIONS];
static int nsections;
static key_def keys[SS_CONFIG_MAX_KEYS];
static int slot_of[SS_CONFIG_MAX_KEYS]; /* per key: -1, a field of ss_config; else the
                                          * registered section whose settings hold it */
static int nkeys;     /* 0: not built yet */

static key_kind kind_of(ss_option_kind k)
{
    switch (k) {
    case SS_OPT_SECONDS: return K_SECONDS;
    case SS_OPT_SECONDS_AUTO: return K_GAP_AUTO;
    case SS_OPT_BOOL: return K_BOOL;
    case SS_OPT_COUNT: return K_COUNT;
    case SS_OPT_PARALLEL: return K_PARALLEL;
    }
    return K_SECONDS;
}

/* Builds the table on first use; registering a section afterwards is refused. */
static int table_size(void)
{
    if (nkeys) return nkeys;
    int n = 0, head = 0; /* base_keys' rows before the models' sections: up to [summary] */
    while (head < NBASE && strcmp(base_keys[head].section, "summary")) head++;
    for (int i = 0; i < head; i++) {
        slot_of[n] = -1;
        keys[n] = base_keys[i];
        if (keys[n].kind == K_MODELS) keys[n].def = model_names[SS_NMODELS > 1 ? 1 : 0];
        n++;
    }
    for (int s = 0; s < nsections; s++)
        for (int r = 0; r < sections[s]->nrows; r++) {
            const ss_option *o = &sections[s]->rows[r];
            slot_of[n] = s;
            keys[n++] = (key_def){sections[s]->name, o->key, kind_of(o->kind), o->off, 0, o->def, o->min, o->max,
                                  o->help};
        }
    for (int i = head; i < NBASE; i++) slot_of[n] = -1, keys[n++] = base_keys[i];
    return nkeys = n;
}
#define NKEYS (table_size())

ss_status ss_config_add_options(const ss_option_section *sec)
{
    for (int s = 0; s < nsections; s++)
        if (sections[s] == sec) return SS_OK;
    if (nkeys) return ss_fail(SS_EINTERNAL, "options of [%s] registered after the option table was used", sec->name);
    int rows = NBASE;
    for (int s = 0; s < nsections; s++) rows += sections[s]->nrows;
    if (nsections == SS_CONFIG_MAX_SECTIONS || rows + sec->nrows > SS_CONFIG_MAX_KEYS ||
        sec->size > SS_CONFIG_SECTION_BYTES)
        return ss_fail(SS_EINTERNAL, "options of [%s]: raise SS_CONFIG_MAX_SECTIONS, _MAX_KEYS or _SECTION_BYTES",
                       sec->name);
    sections[nsections++] = sec;
    return SS_OK;
}

const void *ss_config_options(const ss_config *c, const char *section)
{
    for (int s = 0; s < nsections; s++)
        if (!strcmp(sections[s]->name, section)) return c->section_opts[s];
    return NULL;
}

void *ss_config_options_mut(ss_config *c, const char *section)
{
    for (int s = 0; s < nsections; s++)
        if (!strcmp(sections[s]->name, section)) return c->section_opts[s];
    return NULL;
}

/* The sections of the table, as the messages name them ("trace, scenarios, ..."). */
static const char *known_sections(void)
{
    static char buf[256];
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < NKEYS && n < sizeof buf; i++)
        if (i == 0 || strcmp(keys[i].section, keys[i - 1].section))
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", keys[i].section);
    return buf;
}


const char *ss_model_name(ss_model m) { return model_names[m]; }

void ss_autoval_format(const ss_autoval *v, char *buf, int bufsize)
{
    char num[32];
    ss_format_number(v->value, num, sizeof num);
    if (!v->is_auto) snprintf(buf, (size_t)bufsize, "%s", num);
    else if (v->value == 1.0) snprintf(buf, (size_t)bufsize, "auto");
    else snprintf(buf, (size_t)bufsize, "auto*%s", num);
}

/* ---- value parsers: return NULL on success, else a description of what is wrong ---- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

static const char *parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = ss_strtod_decimal(s, &end); /* no hexadecimal, inf or nan */
    if (end == s || *end != '\0' || errno == ERANGE) return "is not a number";
    if (!isfinite(v)) return "is not a finite number";
    *out = v;
    return NULL;
}

static const char TOO_LONG[] = "is out of range (a whole number of at most 18 digits)";

static const char *parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0') return "is not a whole number";
    if (errno == ERANGE) return TOO_LONG;
    *out = v;
    return NULL;
}

static const char *parse_align(const char *s, int for_start, ss_align *out)
{
    if (!strcmp(s, "false") || !strcmp(s, "none")) *out = SS_ALIGN_NONE;
    else if (!strcmp(s, "min")) *out = SS_ALIGN_MIN;
    else if (!strcmp(s, "avg")) *out = SS_ALIGN_AVG;
    else if (for_start && !strcmp(s, "mean")) *out = SS_ALIGN_MEAN;
    else if (!for_start && !strcmp(s, "median")) *out = SS_ALIGN_MEDIAN;
    else if (!for_start && !strcmp(s, "max")) *out = SS_ALIGN_MAX;
    else return for_start ? "is not a start_align (none, false, min, avg, mean)"
                          : "is not a fetch_align (none, false, min, avg, median, max)";
    return NULL;
}

/* "must be a whole number from 1 to 4096" from the key's bounds ("... up to 65536" when
 * what ends in "to"). The text lives until the next call. */
static const char *bounds_text(const key_def *k, const char *what)
{
    static char buf[160];
    size_t n = strlen(what);
    if (n >= 2 && !strcmp(what + n - 2, "to")) snprintf(buf, sizeof buf, "%s %g", what, k->max);
    else snprintf(buf, sizeof buf, "%s from %g to %g", what, k->min, k->max);
    return buf;
}

/* auto*F and auto/F: F within these, so that no setting leaves the range of the numbers */
#define AUTO_FACTOR_MIN 1e-06
#define AUTO_FACTOR_MAX 1e+06
#define SS_STR_(x) #x
#define SS_STR(x) SS_STR_(x)

static const char *parse_autoval(const key_def *k, const char *s, int integer, ss_autoval *out)
{
    if (!strncmp(s, "auto", 4)) {
        const char *r = s + 4;
        out->is_auto = 1;
        out->value = 1.0;
        if (*r == '\0') return NULL;
        if (*r != '*' && *r != '/') return "is not auto, auto*F or auto/F";
        double f;
        if (parse_number(r + 1, &f) || !(f >= AUTO_FACTOR_MIN && f <= AUTO_FACTOR_MAX))
            return "has a factor that is not a number from " SS_STR(AUTO_FACTOR_MIN) " to " SS_STR(AUTO_FACTOR_MAX);
        out->value = *r == '*' ? f : 1.0 / f;
        return NULL;
    }
    double v;
    if (parse_number(s, &v)) return integer ? "is not a whole number or auto[*F]" : "is not a number or auto";
    if (integer && (v != floor(v) || v < k->min || v > k->max)) return bounds_text(k, "must be a whole number");
    if (!integer && v < 0) return "must not be negative";
    if (!integer && v > k->max) return bounds_text(k, "must be a number");
    out->is_auto = 0;
    out->value = v;
    return NULL;
}

/* Resolves a relative path against base_dir ("" = current folder). */
static const char *resolve_path(const char *v, const char *base_dir, char *out)
{
    if (!v[0]) return "is empty";
    int n;
    if (v[0] == '/' || !base_dir[0]) n = snprintf(out, SS_PATH_MAX, "%s", v);
    else n = snprintf(out, SS_PATH_MAX, "%s/%s", base_dir, v);
    return (n < 0 || n >= SS_PATH_MAX) ? "is too long a path" : NULL;
}

typedef struct {
    ss_config *cfg;
    const char *base_dir; /* folder relative paths are taken from */
    unsigned char seen[SS_CONFIG_MAX_KEYS];
    unsigned char overridden[SS_CONFIG_MAX_KEYS]; /* keys a --set gives: the file's value may be bad */
    int check_dupes;
    char msg[512];
} parse_ctx;

/* Splits a comma list into items (an empty item is an error, wherever it stands); calls
 * fn on each; counts them into *n (at most SS_LIST_MAX). */
static const char *parse_list(const key_def *k, char *v, int *n,
                              const char *(*fn)(const key_def *, const char *, void *, int), void *arr)
{
    int count = 0;
    if (!trim(v)[0]) return "is an empty list";
    for (char *tok = v;;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        char *item = trim(tok);
        if (!item[0]) return "has an empty item";
        if (count == SS_LIST_MAX) {
            static char many[64];
            snprintf(many, sizeof many, "has more than %d items", SS_LIST_MAX);
            return many;
        }
        const char *e = fn(k, item, arr, count);
        if (e && (count > 0 || comma)) { /* name the item of a longer list */
            static char bad[400];
            snprintf(bad, sizeof bad, "has the item '%.64s', which %s", item, e);
            return bad;
        }
        if (e) return e;
        count++;
        if (!comma) break;
        tok = comma + 1;
    }
    *n = count;
    return NULL;
}

/* Any model of the list but the measured run (row 0 of every sweep). */
static const char *item_model(const key_def *k, const char *s, void *arr, int i)
{
    (void)k;
    static char msg[256];
    ss_model *m = arr;
    for (int id = 1; id < SS_NMODELS; id++)
        if (!strcmp(s, model_names[id])) {
            m[i] = (ss_model)id;
            return NULL;
        }
    int n = snprintf(msg, sizeof msg, "is not a model (");
    for (int id = 1; id < SS_NMODELS && n < (int)sizeof msg; id++)
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", id > 1 ? ", " : "", model_names[id]);
    if (n < (int)sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, ")");
    return msg;
}
static const char *item_fetch(const key_def *k, const char *s, void *arr, int i)
{
    (void)k;
    return parse_align(s, 0, (ss_align *)arr + i);
}
static const char *item_start(const key_def *k, const char *s, void *arr, int i)
{
    (void)k;
    return parse_align(s, 1, (ss_align *)arr + i);
}
static const char *item_workers(const key_def *k, const char *s, void *arr, int i)
{
    return parse_autoval(k, s, 1, (ss_autoval *)arr + i);
}
static const char *item_prefetch(const key_def *k, const char *s, void *arr, int i)
{
    long v;
    if (!strcmp(s, "auto")) v = SS_PREFETCH_AUTO;
    else if (parse_long(s, &v) || v < k->min || v > k->max) return bounds_text(k, "must be auto or a whole number");
    ((long *)arr)[i] = v;
    return NULL;
}
static const char *item_heal(const key_def *k, const char *s, void *arr, int i)
{
    ss_heal_item *h = (ss_heal_item *)arr + i;
    memset(h, 0, sizeof *h);
    if (!strcmp(s, "none")) return NULL;
    if (!strcmp(s, "each")) {
        h->each = 1;
        return NULL;
    }
    const char *why = ss_healset_parse(s, INT_MAX, &h->gpus);
    if (why == ss_healset_not_a_set) return "is not none, each, a GPU number or GPUs healed together (1+3, 8-15)";
    if (why) return why;
    if (ss_healset_max(&h->gpus) > k->max) return bounds_text(k, "has GPU numbers that must be");
    return NULL;
}
/* A switch's value: 1 for true, yes, on or 1, 0 for false, no, off or 0 (any case: Python
 * writes True and False), -1 for anything else */
static int parse_switch(const char *v)
{
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "on")) return 1;
    if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "off")) return 0;
    return -1;
}
static const char *item_persist(const key_def *k, const char *s, void *arr, int i)
{
    (void)k;
    const int v = parse_switch(s);
    if (!strcmp(s, "auto")) ((int *)arr)[i] = SS_PERSIST_AUTO;
    else if (v < 0) return "is not auto, true or false (or yes/no, on/off, 1/0)";
    else ((int *)arr)[i] = v;
    return NULL;
}
static const char *item_scale(const key_def *k, const char *s, void *arr, int i)
{
    double v;
    if (parse_number(s, &v) || !(v > k->min) || v > k->max) return bounds_text(k, "must be a positive number up to");
    ((double *)arr)[i] = v;
    return NULL;
}

static const char *apply_value(parse_ctx *p, const key_def *k, const char *value)
{
    char buf[4096];
    if (strlen(value) >= sizeof buf) return "is too long";
    strcpy(buf, value);
    char *v = trim(buf);
    const int slot = slot_of[k - keys];
    char *base = slot < 0 ? (char *)p->cfg : (char *)p->cfg->section_opts[slot];
    void *field = base + k->off;
    int *count = (int *)(base + k->off2);
    double d;
    long l;
    switch (k->kind) {
    case K_PATH_OPT:
        if (!strcmp(v, "none")) {
            *(char *)field = '\0';
            return NULL;
        }
        return resolve_path(v, p->base_dir, field);
    case K_PATH:
        if (field == (void *)p->cfg->trace_path) p->cfg->trace_path_from_folder = v[0] != '/' && p->base_dir[0];
        return resolve_path(v, p->base_dir, field);
    case K_EPOCH:
        if (!strcmp(v, "all")) {
            p->cfg->epoch_all = 1;
            return NULL;
        }
        if (parse_long(v, &l) || l < INT32_MIN || l > INT32_MAX) return "is not 'all' or an epoch number";
        p->cfg->epoch_all = 0;
        p->cfg->epoch = l;
        return NULL;
    case K_COUNT: {
        const char *why = parse_long(v, &l);
        if (why == TOO_LONG) return why;
        if (why || l < 0) return "must be a whole number >= 0";
        *(long *)field = l;
        return NULL;
    }
    case K_SLAB_ITERS:
        if (parse_long(v, &l) || l < 0) return "must be a whole number >= 0 (0: from slab_mb)";
        *(long *)field = l;
        return NULL;
    case K_MODELS: return parse_list(k, v, count, item_model, field);
    case K_FETCH_ALIGNS: return parse_list(k, v, count, item_fetch, field);
    case K_START_ALIGNS: return parse_list(k, v, count, item_start, field);
    case K_WORKERS: return parse_list(k, v, count, item_workers, field);
    case K_PREFETCH: return parse_list(k, v, count, item_prefetch, field);
    case K_SCALES: return parse_list(k, v, count, item_scale, field);
    case K_HEAL: return parse_list(k, v, count, item_heal, field);
    case K_PERSIST: return parse_list(k, v, count, item_persist, field);
    case K_SWEEP:
        if (!strcmp(v, "grid")) *(int *)field = 0;
        else if (!strcmp(v, "each")) *(int *)field = 1;
        else return "is not grid or each";
        return NULL;
    case K_RANK_BY:
        if (!strcmp(v, "run")) *(int *)field = 0;
        else if (!strcmp(v, "steady")) *(int *)field = 1;
        else return "is not run or steady";
        return NULL;
    case K_SECONDS:
        if (parse_number(v, &d)) return "is not a number of seconds";
        if (d < 0) return "must not be negative";
        if (d > k->max) return bounds_text(k, "must be a number of seconds");
        *(double *)field = d;
        return NULL;
    case K_PARALLEL:
        if (parse_number(v, &d) || (d != 0.0 && (d < k->min || d > k->max)))
            return bounds_text(k, "must be 0 (no limit) or a number");
        *(double *)field = d;
        return NULL;
    case K_POS_NUMBER:
        if (parse_number(v, &d) || !(d > k->min) || d > k->max) return bounds_text(k, "must be a positive number up to");
        *(double *)field = d;
        return NULL;
    case K_GAP_AUTO: return parse_autoval(k, v, 0, field);
    case K_BOOL: {
        const int b = parse_switch(v);
        if (b < 0) return "is not true or false (or yes/no, on/off, 1/0)";
        *(int *)field = b;
        return NULL;
    }
    }
    return "has an unknown kind";
}

void ss_config_defaults(ss_config *c)
{
    memset(c, 0, sizeof *c);
    parse_ctx p = {.cfg = c, .base_dir = ""};
    for (int i = 0; i < NKEYS; i++)
        if (keys[i].def && apply_value(&p, &keys[i], keys[i].def) != NULL)
            fprintf(stderr, "stallsim: internal error: default of %s.%s\n", keys[i].section, keys[i].key);
}

void ss_config_print_keys(FILE *f)
{
    const char *section = "";
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(section, keys[i].section)) fprintf(f, "%s[%s]\n", i ? "\n" : "", section = keys[i].section);
        char lhs[96];
        snprintf(lhs, sizeof lhs, "  %s = %s", keys[i].key, keys[i].def ? keys[i].def : "(required)");
        fprintf(f, "%-40s %s\n", lhs, keys[i].help);
    }
}

int ss_config_key_count(void) { return NKEYS; }

void ss_config_key_name(int i, const char **section, const char **key)
{
    *section = keys[i].section;
    *key = keys[i].key;
}

/* A bound as a reference writes it: whole numbers in full (65536, not 6.5536e+04). */
static const char *bound(double v, char *buf, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15) snprintf(buf, n, "%.0f", v);
    else ss_format_number(v, buf, (int)n);
    return buf;
}

/* The values key k takes, with the bounds its parser checks, into buf. */
static void values_text(const key_def *k, char *buf, size_t n)
{
    char lo[32], hi[32];
    bound(k->min, lo, sizeof lo);
    bound(k->max, hi, sizeof hi);
    const int open = k->max >= 1e18; /* no upper bound */
    switch (k->kind) {
    case K_PATH: snprintf(buf, n, "a path"); return;
    case K_PATH_OPT: snprintf(buf, n, "a path, or none"); return;
    case K_EPOCH: snprintf(buf, n, "all, or an epoch number"); return;
    case K_COUNT: snprintf(buf, n, "a whole number, 0 or more"); return;
    case K_SLAB_ITERS: snprintf(buf, n, "a whole number, 0 or more (0: from slab_mb)"); return;
    case K_MODELS: {
        size_t used = 0;
        buf[0] = '\0';
        for (int id = 1; id < SS_NMODELS && used < n; id++)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", id > 1 ? ", " : "", model_names[id]);
        return;
    }
    case K_FETCH_ALIGNS: snprintf(buf, n, "none (or false), min, avg, median, max"); return;
    case K_START_ALIGNS: snprintf(buf, n, "none (or false), min, avg, mean"); return;
    case K_WORKERS:
        snprintf(buf, n, "a whole number from %s to %s, or auto, auto*F, auto/F (F from %g to %g)", lo, hi,
                 AUTO_FACTOR_MIN, AUTO_FACTOR_MAX);
        return;
    case K_PREFETCH: snprintf(buf, n, "a whole number from %s to %s, or auto", lo, hi); return;
    case K_PERSIST: snprintf(buf, n, "auto, true or false (yes, no, on, off, 1, 0 alike)"); return;
    case K_SCALES:
    case K_POS_NUMBER: snprintf(buf, n, "a number above %s, up to %s", lo, hi); return;
    case K_SECONDS:
        if (open) snprintf(buf, n, "seconds, 0 or more");
        else snprintf(buf, n, "seconds, from 0 to %s", hi);
        return;
    case K_GAP_AUTO:
        snprintf(buf, n, "seconds from 0 to %s, or auto, auto*F, auto/F (F from %g to %g)", hi, AUTO_FACTOR_MIN,
                 AUTO_FACTOR_MAX);
        return;
    case K_BOOL: snprintf(buf, n, "true or false (also yes/no, on/off, 1/0)"); return;
    case K_HEAL: snprintf(buf, n, "none, each, or GPUs from %s to %s: G, G+H, G-H", lo, hi); return;
    case K_PARALLEL:
        if (open) snprintf(buf, n, "0 (no limit), or a number from %s", lo);
        else snprintf(buf, n, "0 (no limit), or a number from %s to %s", lo, hi);
        return;
    case K_RANK_BY: snprintf(buf, n, "run or steady"); return;
    case K_SWEEP: snprintf(buf, n, "grid or each"); return;
    }
    snprintf(buf, n, "?");
}

void ss_config_key_doc(int i, ss_key_doc *d)
{
    const key_def *k = &keys[i < NKEYS ? i : 0];
    memset(d, 0, sizeof *d);
    d->section = k->section;
    d->key = k->key;
    d->def = k->def;
    d->help = k->help;
    d->sweeps = is_list(k->kind);
    d->registered = slot_of[k - keys] >= 0;
    values_text(k, d->values, sizeof d->values);
}

static int find_key(const char *section, const char *name, int *section_known)
{
    *section_known = 0;
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].section, section) != 0) continue;
        *section_known = 1;
        if (!strcmp(keys[i].key, name)) return i;
    }
    return -1;
}

/* " (did you mean ...?)" for an unknown key: the same name in another section, the
 * closest key of its own section within two edits, or else the one key of its section
 * whose name starts with it (persistent: persistent_workers); "" when none is close. */
static void suggest_key(const char *section, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, name)) {
            snprintf(buf, n, " (it belongs in section [%s])", keys[i].section);
            return;
        }
    int best = 3, at = -1;
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].section, section) != 0) continue;
        int d = ss_edit_distance(name, keys[i].key);
        if (d < best) best = d, at = i;
    }
    const size_t len = strlen(name);
    if (at < 0 && len >= 3) { /* a prefix of two keys or more says nothing */
        int found = 0, which = -1;
        for (int i = 0; i < NKEYS; i++)
            if (!strcmp(keys[i].section, section) && !strncmp(keys[i].key, name, len)) found++, which = i;
        if (found == 1) at = which;
    }
    if (at >= 0) snprintf(buf, n, " (did you mean '%s'?)", keys[at].key);
}

/* "did you mean [x]? " for an unknown section: the known section within two edits of
 * name (its first len bytes), the closest; "" when none is close. */
static void suggest_section(const char *name, size_t len, char *buf, size_t n)
{
    char own[65];
    buf[0] = '\0';
    if (len >= sizeof own) return;
    memcpy(own, name, len);
    own[len] = '\0';
    int best = 3, at = -1;
    for (int i = 0; i < NKEYS; i++) {
        if (i > 0 && !strcmp(keys[i].section, keys[i - 1].section)) continue;
        int d = ss_edit_distance(own, keys[i].section);
        if (d < best) best = d, at = i;
    }
    if (at >= 0) snprintf(buf, n, "did you mean [%s]? ", keys[at].section);
}

/* 1 when value means the key's default: both parsed into configurations that start from
 * the defaults, which are then the same byte for byte (fetch_scale = 1.0, workers = auto*1,
 * cpu_sharing = yes are the defaults; a value that does not parse is not) */
static int same_as_default(const parse_ctx *p, const key_def *k, const char *value)
{
    if (!k->def) return 0;
    ss_config *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    int same = 0;
    if (a && b) {
        ss_config_defaults(a);
        ss_config_defaults(b);
        parse_ctx pa = {.cfg = a, .base_dir = p->base_dir}, pb = {.cfg = b, .base_dir = p->base_dir};
        same = apply_value(&pa, k, value) == NULL && apply_value(&pb, k, k->def) == NULL && !memcmp(a, b, sizeof *a);
    }
    free(a);
    free(b);
    return same;
}

/* The sections a scenario file may hold, as the messages name them */

static int apply(parse_ctx *p, const char *section, const char *name, const char *value)
{
    int known;
    int i = find_key(section, name, &known);
    if (i < 0) {
        char hint[96];
        suggest_key(section, name, hint, sizeof hint);
        char near[96];
        suggest_section(section, strlen(section), near, sizeof near);
        if (!known) snprintf(p->msg, sizeof p->msg, "unknown section [%s] (%sknown: %s)", section, near, known_sections());
        else snprintf(p->msg, sizeof p->msg, "unknown key '%s' in section [%s]%s", name, section, hint);
        return 0;
    }
    if (p->check_dupes && p->seen[i]) {
        snprintf(p->msg, sizeof p->msg, "duplicate key '%s' in section [%s]", name, section);
        return 0;
    }
    p->seen[i] = 1;
    p->cfg->given[i] = same_as_default(p, &keys[i], value) ? 1 : 2;
    const char *e = apply_value(p, &keys[i], value);
    if (e && !p->overridden[i]) {
        /* "2 4" for "2, 4": items written without their commas */
        const char *sp = strpbrk(value, " \t");
        int spaced = 0;
        if (is_list(keys[i].kind) && sp && !strchr(value, ',')) {
            const char *a = sp, *b = sp;
            while (a > value && isspace((unsigned char)a[-1])) a--;
            while (*b && isspace((unsigned char)*b)) b++;
            spaced = a > value && *b;
        }
        snprintf(p->msg, sizeof p->msg, "%s.%s = '%.200s%s' %s%s", section, name, value, strlen(value) > 200 ? "..." : "",
                 e, spaced ? " (a list's items are separated by commas: 2, 4)" : "");
        return 0;
    }
    return 1;
}

static int on_ini_pair(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *p = user;
    if (!section[0]) {
        snprintf(p->msg, sizeof p->msg,
                 "key '%s' outside any [section] (a scenario file starts with a [trace] section naming the trace)",
                 name);
        return 0;
    }
    return apply(p, section, name, value);
}

/* A file of another kind named as the scenario file, from its first n bytes: a trace or
 * results (HDF5), or a recorder's file; SS_OK where it may be one. */
static ss_status not_a_scenario(const char *file, const char *buf, size_t n)
{
    if (n >= 8 && !memcmp(buf, "\211HDF\r\n\032\n", 8))
        return ss_fail(SS_ECONFIG, "%s: an HDF5 file, not a scenario file: run takes a scenario .ini whose [trace] path "
                                   "names the trace (`stallsim info %s` describes the file)", file, file);
    if (n >= 3 && !memcmp(buf, "\357\273\277", 3)) { /* a UTF-8 byte-order mark */
        buf += 3;
        n -= 3;
    }
    static const char *const heads[] = {"stallsim-record,", "stallsim-host,", "stallsim-probe,"};
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
        if (n >= strlen(heads[i]) && !memcmp(buf, heads[i], strlen(heads[i])))
            return ss_fail(SS_ECONFIG, "%s: a stallsim record file, not a scenario file: import the record first "
                                       "(stallsim import pytorch PREFIX -o trace.h5), then name the trace in a "
                                       "scenario .ini's [trace] path", file);
    return SS_OK;
}

/* The whole file, whatever its kind (ss_config.h). */
ss_status ss_config_read(const char *file, char **out, int *regular)
{
    *out = NULL;
    struct stat sb;
    if (!file[0]) return ss_fail(SS_ECONFIG, "the scenario file's name is empty");
    if (stat(file, &sb) != 0) return ss_fail(SS_ECONFIG, "%s: cannot read scenario file: %s", file, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return ss_fail(SS_ECONFIG, "%s: is a folder, not a scenario file", file);
    *regular = S_ISREG(sb.st_mode);
    FILE *f = fopen(file, "rb");
    if (!f) return ss_fail(SS_ECONFIG, "%s: cannot read scenario file: %s", file, strerror(errno));
    const size_t limit = 16u << 20;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    ss_status st = buf ? SS_OK : ss_fail(SS_ENOMEM, "%s: out of memory", file);
    while (st == SS_OK) {
        if (n == cap) {
            if (cap >= limit) {
                st = not_a_scenario(file, buf, n);
                if (st == SS_OK) st = ss_fail(SS_ECONFIG, "%s: scenario file larger than 16 MiB", file);
                break;
            }
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) {
                st = ss_fail(SS_ENOMEM, "%s: out of memory", file);
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) st = ss_fail(SS_ECONFIG, "%s: read error: %s", file, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (st == SS_OK) {
        buf[n] = '\0';
        st = not_a_scenario(file, buf, n);
        if (st == SS_OK && strlen(buf) != n) st = ss_fail(SS_ECONFIG, "%s: contains a NUL byte (not a text file)", file);
    }
    if (st != SS_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return SS_OK;
}

static int section_known(const char *name, size_t len)
{
    for (int i = 0; i < NKEYS; i++)
        if (strlen(keys[i].section) == len && !strncmp(keys[i].section, name, len)) return 1;
    return 0;
}

/* inih only reports key lines; a [section] header naming no known section is caught here,
 * with or without keys under it. */
static ss_status check_sections(const char *file, const char *text)
{
    long line = 1;
    for (const char *s = text; *s; line++) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const char *p = s;
        if (line == 1 && len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3;
        while (p < s + len && isspace((unsigned char)*p)) p++;
        if (p < s + len && *p == '[') {
            const char *close = memchr(p, ']', (size_t)(s + len - p));
            if (close) {
                const char *a = p + 1, *b = close;
                while (a < b && isspace((unsigned char)*a)) a++;
                while (b > a && isspace((unsigned char)b[-1])) b--;
                char near[96];
                if (!section_known(a, (size_t)(b - a))) suggest_section(a, (size_t)(b - a), near, sizeof near);
                if (!section_known(a, (size_t)(b - a)))
                    return ss_fail(SS_ECONFIG, "%s:%ld: unknown section [%.*s] (%sknown: %s)", file, line,
                                   (int)(b - a), a, near, known_sections());
            }
        }
        if (!e) break;
        s = e + 1;
    }
    return SS_OK;
}

/* ---- the text handed to inih ----
 * inih reads lines of at most ~200 characters, takes an indented line for the
 * continuation of the previous value, and knows only ';' inline comments. The scenario
 * file is therefore rewritten line for line (line numbers stay) before inih sees it:
 * leading whitespace goes, comment lines become empty, a value loses a ';' or '#' comment
 * that follows whitespace, and every value is replaced by a short placeholder ("\x01" and
 * its number) that the callback maps back to the value. */

typedef struct {
    char **values; /* the values, by placeholder number */
    long n, cap;
    parse_ctx *p;
} ini_values;

static void ini_values_free(ini_values *v)
{
    for (long i = 0; i < v->n; i++) free(v->values[i]);
    free(v->values);
    memset(v, 0, sizeof *v);
}

/* Appends len bytes of s to the growing text *t (size *n, capacity *cap). */
static int text_add(char **t, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n + len + 1 > *cap) {
        size_t c = (*cap ? *cap : 256);
        while (*n + len + 1 > c) c *= 2;
        char *b = realloc(*t, c);
        if (!b) return -1;
        *t = b;
        *cap = c;
    }
    memcpy(*t + *n, s, len);
    *n += len;
    (*t)[*n] = '\0';
    return 0;
}

/* The end of the value that starts at v (of length len): before a ';' or '#' that
 * follows whitespace, and before trailing whitespace. */
static size_t value_length(const char *v, size_t len)
{
    for (size_t i = 1; i < len; i++)
        if ((v[i] == ';' || v[i] == '#') && isspace((unsigned char)v[i - 1])) {
            len = i;
            break;
        }
    while (len > 0 && isspace((unsigned char)v[len - 1])) len--;
    return len;
}

static ss_status ini_rewrite(const char *file, const char *text, char **out, ini_values *vals)
{
    char *t = NULL;
    size_t n = 0, cap = 0;
    int bad = text_add(&t, &n, &cap, "", 0);
    long line = 1;
    for (const char *s = text; !bad && *s; line++) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const char *a = s, *z = s + len;
        if (line == 1 && len >= 3 && !memcmp(a, "\xEF\xBB\xBF", 3)) a += 3;
        while (a < z && isspace((unsigned char)*a)) a++;
        while (z > a && isspace((unsigned char)z[-1])) z--;
        if (a == z || *a == ';' || *a == '#') {
            /* empty or a comment: an empty line */
        } else if (*a == '[') {
            const char *close = memchr(a, ']', (size_t)(z - a));
            size_t keep = close ? (size_t)(close - a + 1) : (size_t)(z - a);
            if (keep > 120) keep = 120; /* an unknown section anyway: check_sections names it */
            bad |= text_add(&t, &n, &cap, a, keep);
        } else {
            const char *sep = a;
            while (sep < z && *sep != '=' && *sep != ':') sep++;
            if (sep == z) {
                /* not a key = value line: inih reports it, with its start */
                bad |= text_add(&t, &n, &cap, a, (size_t)(z - a) > 120 ? 120 : (size_t)(z - a));
            } else {
                const char *v = sep + 1;
                while (v < z && isspace((unsigned char)*v)) v++;
                /* a comment right after "= " leaves the value empty */
                size_t vlen = (v > sep + 1 && v < z && (*v == ';' || *v == '#')) ? 0 : value_length(v, (size_t)(z - v));
                const char *kz = sep;
                while (kz > a && isspace((unsigned char)kz[-1])) kz--;
                size_t klen = (size_t)(sep - a);
                if (kz - a > 100) { /* no key is that long; cut, it could read as a known one */
                    free(t);
                    return ss_fail(SS_ECONFIG, "%s:%ld: a key of %ld characters, '%.40s...' (no key is longer than 100)",
                                   file, line, (long)(kz - a), a);
                }
                if (vals->n == vals->cap) {
                    long c = vals->cap ? 2 * vals->cap : 32;
                    char **b = realloc(vals->values, (size_t)c * sizeof *b);
                    if (!b) {
                        bad = 1;
                        break;
                    }
                    vals->values = b;
                    vals->cap = c;
                }
                char *copy = malloc(vlen + 1);
                if (!copy) {
                    bad = 1;
                    break;
                }
                memcpy(copy, v, vlen);
                copy[vlen] = '\0';
                vals->values[vals->n] = copy;
                char ph[32];
                int phn = snprintf(ph, sizeof ph, "=\x01%ld", vals->n++);
                bad |= text_add(&t, &n, &cap, a, klen);
                bad |= text_add(&t, &n, &cap, ph, (size_t)phn);
            }
        }
        bad |= text_add(&t, &n, &cap, "\n", 1);
        if (!e) break;
        s = e + 1;
    }
    if (bad) {
        free(t);
        return ss_fail(SS_ENOMEM, "%s: out of memory", file);
    }
    *out = t;
    return SS_OK;
}

/* inih's callback on the rewritten text: the placeholder back to the value. */
static int on_ini_placeholder(void *user, const char *section, const char *name, const char *value)
{
    ini_values *v = user;
    long i = -1;
    if (value[0] == '\x01') i = strtol(value + 1, NULL, 10);
    if (i < 0 || i >= v->n) {
        snprintf(v->p->msg, sizeof v->p->msg, "not a 'key = value' line");
        return 0;
    }
    char sec[128]; /* "[ output ]" is [output], as check_sections reads it */
    snprintf(sec, sizeof sec, "%s", section);
    return on_ini_pair(v->p, trim(sec), name, v->values[i]);
}

static void dirname_of(const char *file, char *out)
{
    const char *slash = strrchr(file, '/');
    if (!slash) out[0] = '\0';
    else if (slash == file) strcpy(out, "/");
    else snprintf(out, SS_PATH_MAX, "%.*s", (int)(slash - file), file);
}

static ss_status append_text(ss_config *c, const char *line)
{
    size_t a = c->text ? strlen(c->text) : 0, b = strlen(line);
    char *t = realloc(c->text, a + b + 2);
    if (!t) return ss_fail(SS_ENOMEM, "out of memory");
    memcpy(t + a, line, b);
    t[a + b] = '\n';
    t[a + b + 1] = '\0';
    c->text = t;
    return SS_OK;
}

/* "SECTION.KEY=VALUE" split in buf[4096] (a copy of assignment): 0 and the three parts
 * (section and key trimmed), or -1 when too long or not of that form. */
static int split_assignment(const char *assignment, char *buf, char **section, char **key, char **value)
{
    if (strlen(assignment) >= 4096) return -1;
    strcpy(buf, assignment);
    char *eq = strchr(buf, '='), *dot = strchr(buf, '.');
    if (!eq || !dot || dot > eq || dot == buf) return -1;
    *eq = *dot = '\0';
    *section = trim(buf);
    *key = trim(dot + 1);
    *value = eq + 1;
    return 0;
}

ss_status ss_config_set(ss_config *c, const char *assignment)
{
    char buf[4096], section[64], *sec, *key, *value;
    if (strlen(assignment) >= sizeof buf) return ss_fail(SS_ECONFIG, "--set %.60s...: too long", assignment);
    if (split_assignment(assignment, buf, &sec, &key, &value) != 0)
        return ss_fail(SS_ECONFIG, "--set %s: expected SECTION.KEY=VALUE", assignment);
    snprintf(section, sizeof section, "%s", sec);
    int known, k = find_key(section, key, &known);
    const int twice = k >= 0 && c->from_set[k];
    parse_ctx p = {.cfg = c, .base_dir = "", .check_dupes = 0};
    if (!apply(&p, section, key, value)) {
        char head[192]; /* a message that names the key and its value is not prefixed with them again */
        snprintf(head, sizeof head, "%s.%s = '", section, key);
        if (!strncmp(p.msg, head, strlen(head))) return ss_fail(SS_ECONFIG, "--set: %s", p.msg);
        return ss_fail(SS_ECONFIG, "--set %.80s%s: %s", assignment, strlen(assignment) > 80 ? "..." : "", p.msg);
    }
    if (twice) /* (as a key given twice in a file; the run stops, so the value taken does not matter) */
        return ss_fail(SS_ECONFIG, "--set %s.%s is given twice: give it once (a list takes commas)", section, key);
    if (k >= 0) c->from_set[k] = 1; /* (given by apply) */
    char line[4200];
    snprintf(line, sizeof line, "; --set %s", assignment);
    return append_text(c, line);
}

/* The line of the file's text where [section] sets key (the first; 0: none there). */
static int line_of(const char *text, const char *section, const char *key)
{
    int line = 0, in = 0;
    size_t ls = strlen(section), lk = strlen(key);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        line++;
        const char *q = p;
        while (q < p + n && isspace((unsigned char)*q)) q++;
        if (q < p + n && *q == '[') {
            q++;
            while (q < p + n && isspace((unsigned char)*q)) q++;
            in = (size_t)(p + n - q) >= ls && !strncmp(q, section, ls);
            if (in) {
                const char *r = q + ls;
                while (r < p + n && isspace((unsigned char)*r)) r++;
                in = r < p + n && *r == ']';
            }
        } else if (in && (size_t)(p + n - q) > lk && !strncmp(q, key, lk)) {
            const char *r = q + lk;
            while (r < p + n && (*r == ' ' || *r == '\t')) r++;
            if (r < p + n && (*r == '=' || *r == ':')) return line;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

const char *ss_config_origin(const ss_config *c, const char *section, const char *key)
{
    static char buf[SS_PATH_MAX + 64];
    int any = 0;
    for (int i = 0; i < NKEYS; i++) {
        if (!c->from_set[i] || strcmp(keys[i].section, section) != 0) continue;
        if (key && !strcmp(keys[i].key, key)) {
            snprintf(buf, sizeof buf, "--set %s.%s", section, key);
            return buf;
        }
        any = 1;
    }
    int line = key && c->text ? line_of(c->text, section, key) : 0;
    if (line > 0) {
        snprintf(buf, sizeof buf, "%s:%d", c->file, line);
        return buf;
    }
    if (key || !any) return c->file;
    snprintf(buf, sizeof buf, "%s (with its --set options)", c->file);
    return buf;
}

const char *ss_config_changed_key(const ss_config *c, const char *section)
{
    for (int i = 0; i < NKEYS; i++)
        if (c->given[i] == 2 && !strcmp(keys[i].section, section)) return keys[i].key;
    return NULL;
}

int ss_config_given(const ss_config *c, const char *section, const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if ((c->given[i] || c->from_set[i]) && !strcmp(keys[i].section, section) && !strcmp(keys[i].key, key)) return 1;
    return 0;
}

int ss_config_changed(const ss_config *c, const char *section, const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (c->given[i] == 2 && !strcmp(keys[i].section, section) && (!key || !strcmp(keys[i].key, key))) return 1;
    return 0;
}

ss_status ss_config_load(ss_config *c, const char *file, int n_sets, char **sets)
{
    char *text = NULL;
    int regular = 1;
    ss_status st = ss_config_read(file, &text, &regular);
    if (st != SS_OK) {
        ss_config_defaults(c);
        return st;
    }
    return ss_config_load_text(c, file, text, regular, n_sets, sets);
}

ss_status ss_config_load_text(ss_config *c, const char *file, char *text, int regular, int n_sets, char **sets)
{
    ss_config_defaults(c);
    snprintf(c->file, sizeof c->file, "%s", file);
    c->text = text;
    ss_status st = check_sections(file, c->text);
    if (st != SS_OK) return st;
    char dir[SS_PATH_MAX];
    dirname_of(file, dir);
    /* a pipe, or a stream named by the system (/dev/stdin, /dev/fd/N, /proc/self/fd/N, a
     * regular file when the shell redirects one: its folder is not the file's): relative
     * paths are taken from the current folder */
    if (!regular || !strncmp(file, "/dev/", 5) || !strncmp(file, "/proc/", 6)) dir[0] = '\0';
    parse_ctx p = {.cfg = c, .base_dir = dir, .check_dupes = 1};
    for (int i = 0; i < n_sets; i++) { /* the keys --set gives: the file's values of them are replaced */
        char buf[4096], *sec, *key, *value;
        int known, k = split_assignment(sets[i], buf, &sec, &key, &value) == 0 ? find_key(sec, key, &known) : -1;
        if (k >= 0) p.overridden[k] = 1; /* (a malformed one: ss_config_set says what is wrong) */
    }
    ini_values vals = {.p = &p};
    char *rewritten = NULL;
    if ((st = ini_rewrite(file, c->text, &rewritten, &vals)) != SS_OK) {
        ini_values_free(&vals);
        return st;
    }
    ini_stop_on_first_error = 1;
    int line = ini_parse_string(rewritten, on_ini_placeholder, &vals);
    free(rewritten);
    ini_values_free(&vals);
    if (line != 0) {
        if (!p.msg[0]) snprintf(p.msg, sizeof p.msg, "not a 'key = value' line or [section] header");
        return ss_fail(SS_ECONFIG, "%s:%d: %s", file, line, p.msg);
    }
    /* the default output folder, like a configured one, is taken from the file's folder */
    int known, out_key = find_key("output", "dir", &known);
    if (!p.seen[out_key] && apply_value(&p, &keys[out_key], "results"))
        return ss_fail(SS_ECONFIG, "%s: output folder path too long", file);
    for (int i = 0; i < n_sets; i++)
        if ((st = ss_config_set(c, sets[i])) != SS_OK) return st;
    if (!c->trace_path[0])
        return ss_fail(SS_ECONFIG, "%s: [trace] path is missing (the HDF5 trace to replay)", file);
    return SS_OK;
}

void ss_config_free(ss_config *c)
{
    free(c->text);
    c->text = NULL;
}
