/* ss_config.c - INI scenario files through inih: one table of keys, typed parsers,
 * duplicate and unknown key detection with file:line messages, --set overrides. */
#include "ss_config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum {
    K_PATH, K_EPOCH, K_COUNT, K_MODELS, K_FETCH_ALIGNS, K_START_ALIGNS, K_WORKERS, K_PREFETCH,
    K_SCALES, K_SECONDS, K_GAP_AUTO, K_BOOL, K_SLAB_ITERS, K_POS_NUMBER
} key_kind;

typedef struct {
    const char *section, *key;
    key_kind kind;
    size_t off, off2; /* field, and count field for lists */
} key_def;

#define F(x) offsetof(ss_config, x)
static const key_def keys[] = {
    {"trace", "path", K_PATH, F(trace_path), 0},
    {"trace", "epoch", K_EPOCH, 0, 0},
    {"trace", "warmup_iterations", K_COUNT, F(warmup_iterations), 0},
    {"scenarios", "model", K_MODELS, F(models), F(n_models)},
    {"scenarios", "fetch_align", K_FETCH_ALIGNS, F(fetch_align), F(n_fetch)},
    {"scenarios", "start_align", K_START_ALIGNS, F(start_align), F(n_start)},
    {"scenarios", "workers", K_WORKERS, F(workers), F(n_workers)},
    {"scenarios", "prefetch", K_PREFETCH, F(prefetch), F(n_prefetch)},
    {"scenarios", "fetch_scale", K_SCALES, F(fetch_scale), F(n_fetch_scale)},
    {"scenarios", "compute_scale", K_SCALES, F(compute_scale), F(n_compute_scale)},
    {"independent", "stall_floor", K_SECONDS, F(stall_floor), 0},
    {"independent", "stall_sensitivity", K_SECONDS, F(stall_sensitivity), 0},
    {"pipeline", "worker_gap", K_GAP_AUTO, F(worker_gap), 0},
    {"pipeline", "refill_gap", K_GAP_AUTO, F(refill_gap), 0},
    {"pipeline", "delivery", K_GAP_AUTO, F(delivery), 0},
    {"pipeline", "step_gap", K_SECONDS, F(step_gap), 0},
    {"summary", "effective_delay_threshold", K_SECONDS, F(effective_delay_threshold), 0},
    {"output", "dir", K_PATH, F(out_dir), 0},
    {"output", "per_iteration", K_BOOL, F(per_iteration), 0},
    {"run", "slab_iterations", K_SLAB_ITERS, F(slab_iterations), 0},
    {"run", "slab_mb", K_POS_NUMBER, F(slab_mb), 0},
};
#undef F
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

#define SS_MODEL_NAME_(id, name, ops) name,
static const char *const model_names[] = {SS_MODEL_LIST(SS_MODEL_NAME_)};
#undef SS_MODEL_NAME_

const char *ss_model_name(ss_model m) { return model_names[m]; }

void ss_autoval_format(const ss_autoval *v, char *buf, int bufsize)
{
    char num[32];
    ss_format_number(v->value, num, sizeof num);
    if (!v->is_auto) snprintf(buf, (size_t)bufsize, "%s", num);
    else if (v->value == 1.0) snprintf(buf, (size_t)bufsize, "auto");
    else snprintf(buf, (size_t)bufsize, "auto*%s", num);
}

void ss_config_defaults(ss_config *c)
{
    memset(c, 0, sizeof *c);
    c->epoch_all = 1;
    c->warmup_iterations = 11;
    c->n_models = 1;
    c->models[0] = SS_MODEL_INDEPENDENT;
    c->n_fetch = c->n_start = 1;
    c->fetch_align[0] = c->start_align[0] = SS_ALIGN_NONE;
    c->n_workers = 1;
    c->workers[0] = (ss_autoval){1, 1.0};
    c->n_prefetch = 1;
    c->prefetch[0] = 2;
    c->n_fetch_scale = c->n_compute_scale = 1;
    c->fetch_scale[0] = c->compute_scale[0] = 1.0;
    c->stall_floor = 0.000002;
    c->stall_sensitivity = 0.01;
    c->worker_gap = (ss_autoval){1, 1.0};
    c->refill_gap = (ss_autoval){1, 1.0};
    c->delivery = (ss_autoval){1, 1.0};
    c->effective_delay_threshold = 0.030;
    snprintf(c->out_dir, sizeof c->out_dir, "results");
    c->slab_mb = 64.0;
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
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE) return "is not a number";
    if (!isfinite(v)) return "is not a finite number";
    *out = v;
    return NULL;
}

static const char *parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return "is not a whole number";
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

static const char *parse_autoval(const char *s, int integer, ss_autoval *out)
{
    if (!strncmp(s, "auto", 4)) {
        const char *r = s + 4;
        out->is_auto = 1;
        out->value = 1.0;
        if (*r == '\0') return NULL;
        if (*r != '*' && *r != '/') return "is not auto, auto*F or auto/F";
        double f;
        if (parse_number(r + 1, &f) || !(f > 0)) return "has a factor that is not a positive number";
        out->value = *r == '*' ? f : 1.0 / f;
        return NULL;
    }
    double v;
    if (parse_number(s, &v)) return integer ? "is not a whole number or auto[*F]" : "is not a number or auto";
    if (integer && (v != floor(v) || v < 0 || v > 4096)) return "must be a whole number from 0 to 4096";
    if (!integer && v < 0) return "must not be negative";
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
    unsigned char seen[NKEYS];
    int check_dupes;
    char msg[512];
} parse_ctx;

/* Splits a comma list into items (an empty item is an error, wherever it stands); calls
 * fn on each; counts them into *n (at most SS_LIST_MAX). */
static const char *parse_list(char *v, int *n, const char *(*fn)(const char *, void *, int), void *arr)
{
    int count = 0;
    if (!trim(v)[0]) return "is an empty list";
    for (char *tok = v;;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        char *item = trim(tok);
        if (!item[0]) return "has an empty item";
        if (count == SS_LIST_MAX) return "has more than 16 items";
        const char *e = fn(item, arr, count);
        if (e) return e;
        count++;
        if (!comma) break;
        tok = comma + 1;
    }
    *n = count;
    return NULL;
}

/* Any model of the list but the measured run (row 0 of every sweep). */
static const char *item_model(const char *s, void *arr, int i)
{
    static char msg[256];
    ss_model *m = arr;
    for (int k = 1; k < SS_NMODELS; k++)
        if (!strcmp(s, model_names[k])) {
            m[i] = (ss_model)k;
            return NULL;
        }
    int n = snprintf(msg, sizeof msg, "is not a model (");
    for (int k = 1; k < SS_NMODELS && n < (int)sizeof msg; k++)
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", k > 1 ? ", " : "", model_names[k]);
    if (n < (int)sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, ")");
    return msg;
}
static const char *item_fetch(const char *s, void *arr, int i) { return parse_align(s, 0, (ss_align *)arr + i); }
static const char *item_start(const char *s, void *arr, int i) { return parse_align(s, 1, (ss_align *)arr + i); }
static const char *item_workers(const char *s, void *arr, int i) { return parse_autoval(s, 1, (ss_autoval *)arr + i); }
static const char *item_prefetch(const char *s, void *arr, int i)
{
    long v;
    if (!strcmp(s, "auto")) v = SS_PREFETCH_AUTO;
    else if (parse_long(s, &v) || v < 1 || v > 1024) return "must be auto or a whole number from 1 to 1024";
    ((long *)arr)[i] = v;
    return NULL;
}
static const char *item_scale(const char *s, void *arr, int i)
{
    double v;
    if (parse_number(s, &v) || !(v > 0) || v > 1e6) return "must be a positive number";
    ((double *)arr)[i] = v;
    return NULL;
}

static const char *apply_value(parse_ctx *p, const key_def *k, const char *value)
{
    char buf[4096];
    if (strlen(value) >= sizeof buf) return "is too long";
    strcpy(buf, value);
    char *v = trim(buf);
    char *base = (char *)p->cfg;
    void *field = base + k->off;
    int *count = (int *)(base + k->off2);
    double d;
    long l;
    switch (k->kind) {
    case K_PATH: return resolve_path(v, p->base_dir, field);
    case K_EPOCH:
        if (!strcmp(v, "all")) {
            p->cfg->epoch_all = 1;
            return NULL;
        }
        if (parse_long(v, &l) || l < 0) return "is not 'all' or an epoch number";
        p->cfg->epoch_all = 0;
        p->cfg->epoch = l;
        return NULL;
    case K_COUNT:
        if (parse_long(v, &l) || l < 0) return "must be a whole number >= 0";
        *(long *)field = l;
        return NULL;
    case K_SLAB_ITERS:
        if (parse_long(v, &l) || l < 0) return "must be a whole number >= 0 (0: from slab_mb)";
        *(long *)field = l;
        return NULL;
    case K_MODELS: return parse_list(v, count, item_model, field);
    case K_FETCH_ALIGNS: return parse_list(v, count, item_fetch, field);
    case K_START_ALIGNS: return parse_list(v, count, item_start, field);
    case K_WORKERS: return parse_list(v, count, item_workers, field);
    case K_PREFETCH: return parse_list(v, count, item_prefetch, field);
    case K_SCALES: return parse_list(v, count, item_scale, field);
    case K_SECONDS:
        if (parse_number(v, &d)) return "is not a number of seconds";
        if (d < 0) return "must not be negative";
        *(double *)field = d;
        return NULL;
    case K_POS_NUMBER:
        if (parse_number(v, &d) || !(d > 0) || d > 65536) return "must be a positive number up to 65536";
        *(double *)field = d;
        return NULL;
    case K_GAP_AUTO: return parse_autoval(v, 0, field);
    case K_BOOL:
        if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on")) *(int *)field = 1;
        else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off")) *(int *)field = 0;
        else return "is not true or false";
        return NULL;
    }
    return "has an unknown kind";
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

static int apply(parse_ctx *p, const char *section, const char *name, const char *value)
{
    int known;
    int i = find_key(section, name, &known);
    if (i < 0) {
        if (!known) snprintf(p->msg, sizeof p->msg, "unknown section [%s]", section);
        else snprintf(p->msg, sizeof p->msg, "unknown key '%s' in section [%s]", name, section);
        return 0;
    }
    if (p->check_dupes && p->seen[i]) {
        snprintf(p->msg, sizeof p->msg, "duplicate key '%s' in section [%s]", name, section);
        return 0;
    }
    p->seen[i] = 1;
    const char *e = apply_value(p, &keys[i], value);
    if (e) {
        snprintf(p->msg, sizeof p->msg, "%s.%s = '%.200s' %s", section, name, value, e);
        return 0;
    }
    return 1;
}

static int on_ini_pair(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *p = user;
    if (!section[0]) {
        snprintf(p->msg, sizeof p->msg, "key '%s' outside any [section]", name);
        return 0;
    }
    return apply(p, section, name, value);
}

static ss_status read_text(const char *file, char **out)
{
    *out = NULL;
    struct stat sb;
    if (stat(file, &sb) != 0) return ss_fail(SS_ECONFIG, "%s: cannot read scenario file: %s", file, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return ss_fail(SS_ECONFIG, "%s: is a folder, not a scenario file", file);
    FILE *f = fopen(file, "rb");
    if (!f) return ss_fail(SS_ECONFIG, "%s: cannot read scenario file: %s", file, strerror(errno));
    long cap = (long)sb.st_size + 1, n;
    if (cap > (16L << 20)) {
        fclose(f);
        return ss_fail(SS_ECONFIG, "%s: scenario file larger than 16 MiB", file);
    }
    char *buf = malloc((size_t)cap + 1);
    if (!buf) {
        fclose(f);
        return ss_fail(SS_ENOMEM, "%s: out of memory", file);
    }
    n = (long)fread(buf, 1, (size_t)cap, f);
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return ss_fail(SS_ECONFIG, "%s: read error", file);
    }
    buf[n] = '\0';
    if ((long)strlen(buf) != n) {
        free(buf);
        return ss_fail(SS_ECONFIG, "%s: contains a NUL byte (not a text file)", file);
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
                if (!section_known(a, (size_t)(b - a)))
                    return ss_fail(SS_ECONFIG, "%s:%ld: unknown section [%.*s] (known: trace, scenarios, independent, "
                                               "pipeline, summary, output, run)",
                                   file, line, (int)(b - a), a);
            }
        }
        if (!e) break;
        s = e + 1;
    }
    return SS_OK;
}

/* inih truncates lines beyond its buffer; reject them instead of misreading. */
static ss_status check_line_lengths(const char *file, const char *text)
{
    long limit = ini_max_line - 3, line = 1, len = 0;
    for (const char *s = text;; s++) {
        if (*s == '\n' || *s == '\0') {
            if (len > limit)
                return ss_fail(SS_ECONFIG, "%s:%ld: line is %ld characters long, the limit is %ld",
                               file, line, len, limit);
            if (*s == '\0') break;
            line++;
            len = 0;
        } else if (*s != '\r') {
            len++;
        }
    }
    return SS_OK;
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

ss_status ss_config_set(ss_config *c, const char *assignment)
{
    char buf[4096], section[64];
    if (strlen(assignment) >= sizeof buf) return ss_fail(SS_ECONFIG, "--set %.60s...: too long", assignment);
    strcpy(buf, assignment);
    char *eq = strchr(buf, '='), *dot = strchr(buf, '.');
    if (!eq || !dot || dot > eq || dot == buf)
        return ss_fail(SS_ECONFIG, "--set %s: expected SECTION.KEY=VALUE", assignment);
    *eq = '\0';
    *dot = '\0';
    snprintf(section, sizeof section, "%s", trim(buf));
    parse_ctx p = {.cfg = c, .base_dir = "", .check_dupes = 0};
    if (!apply(&p, section, trim(dot + 1), eq + 1)) return ss_fail(SS_ECONFIG, "--set %s: %s", assignment, p.msg);
    char line[4200];
    snprintf(line, sizeof line, "; --set %s", assignment);
    return append_text(c, line);
}

ss_status ss_config_load(ss_config *c, const char *file, int n_sets, char **sets)
{
    ss_config_defaults(c);
    snprintf(c->file, sizeof c->file, "%s", file);
    ss_status st = read_text(file, &c->text);
    if (st == SS_OK) st = check_line_lengths(file, c->text);
    if (st == SS_OK) st = check_sections(file, c->text);
    if (st != SS_OK) return st;
    char dir[SS_PATH_MAX];
    dirname_of(file, dir);
    parse_ctx p = {.cfg = c, .base_dir = dir, .check_dupes = 1};
    ini_stop_on_first_error = 1;
    int line = ini_parse_string(c->text, on_ini_pair, &p);
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
