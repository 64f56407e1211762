/* ss_jsonev.c - yajl callbacks that pick trace events' fields out of a JSON stream. */
#include "ss_jsonev.h"
#include "ss_csv.h"
#include "ss_number.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define MAXD 64 /* levels whose keys are tracked (deeper ones are only counted) */

enum { K_NONE, K_NAME, K_CAT, K_PH, K_TS, K_DUR, K_PID, K_TID, K_ARGS, K_EVENTS, K_DIST, K_RANK, K_WORLD,
       K_STEP, K_EPOCH, K_ARGNAME, K_BASE };

struct ss_jsonev {
    yajl_handle h;
    int lines;
    char *path;
    ss_jev_fn fn;
    void *user;
    ss_status cb_status; /* the callback's failure, returned instead of yajl's "canceled" */
    int broken;          /* JSON lines: the last line failed as JSON (not in the callback) */
    int depth, ev_depth, in_dist;
    char kind[MAXD + 1];
    unsigned char key[MAXD + 1];
    long long nev;
    long rank, world;
    long long base_ns; /* the document's baseTimeNanoseconds, or -1 */
    int is_list;
    int fast; /* JSON lines: plain lines are read without yajl (ss_jsonev_set_fast) */
    ss_jev ev;
};

static int cur_key(const ss_jsonev *p) { return p->depth <= MAXD && p->kind[p->depth] == 'o' ? p->key[p->depth] : K_NONE; }

static void copy_str(char *dst, size_t cap, const unsigned char *s, size_t n, int *trunc)
{
    if (n >= cap) {
        n = cap - 1;
        if (trunc) *trunc = 1;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* a finite decimal number out of number text or a string ("12.5", " 3 "); 0 when it is none */
static int real(const char *s, size_t n, double *out)
{
    char b[64];
    if (n == 0 || n >= sizeof b) return 0;
    /* digits only (most times and ids): without strtod, the same value (a whole number
     * below 1e18 converts to the nearest double, as strtod rounds) */
    const size_t neg = s[0] == '-';
    if (n > neg && n - neg <= 18) {
        long long v = 0;
        size_t i = neg;
        while (i < n && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
        if (i == n) {
            *out = neg ? -(double)v : (double)v;
            return 1;
        }
    }
    memcpy(b, s, n);
    b[n] = '\0';
    char *end;
    errno = 0;
    double v = ss_csv_strtod(b, &end);
    while (*end == ' ') end++;
    if (end == b || *end || errno == ERANGE || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* a whole number (below 9e15 in magnitude) the same way */
static int whole(const char *s, size_t n, long long *out)
{
    double v;
    if (!real(s, n, &v) || !(fabs(v) < 9.0e15) || v != floor(v)) return 0;
    *out = (long long)v;
    return 1;
}

/* baseTimeNanoseconds (Kineto since PyTorch 2.4: each event's ts counts µs from this Unix
 * time in ns): digits only, up to 19 (int64); -1 when it is anything else */
static long long base_time(const char *s, size_t n)
{
    while (n > 0 && *s == ' ') s++, n--;
    while (n > 0 && s[n - 1] == ' ') n--;
    if (n == 0 || n > 19) return -1;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        if (v > (0x7fffffffffffffffLL - (s[i] - '0')) / 10) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int on_scalar(ss_jsonev *p, const char *s, size_t n, int is_str)
{
    int k = cur_key(p);
    if (p->in_dist && p->depth == 2) {
        long long v;
        if (!is_str && whole(s, n, &v) && v >= 0 && v < 0x7fffffff) {
            if (k == K_RANK) p->rank = (long)v;
            if (k == K_WORLD) p->world = (long)v;
        }
        return 1;
    }
    if (!p->ev_depth) {
        if (k == K_BASE && p->depth == 1) p->base_ns = base_time(s, n);
        return 1;
    }
    ss_jev *e = &p->ev;
    if (p->depth == p->ev_depth) {
        switch (k) {
        case K_NAME:
            if (is_str) copy_str(e->name, sizeof e->name, (const unsigned char *)s, n, &e->name_truncated);
            break;
        case K_CAT:
            if (is_str) copy_str(e->cat, sizeof e->cat, (const unsigned char *)s, n, NULL);
            break;
        case K_PH:
            if (is_str) copy_str(e->ph, sizeof e->ph, (const unsigned char *)s, n, NULL);
            break;
        case K_TS: e->has_ts = real(s, n, &e->ts); break;
        case K_DUR: e->has_dur = real(s, n, &e->dur); break;
        /* numbers, or strings holding one (DFTracer before mid-2024 writes "pid":"1064335") */
        case K_PID: e->has_pid = whole(s, n, &e->pid); break;
        case K_TID: e->has_tid = whole(s, n, &e->tid); break;
        default: break;
        }
    } else if (p->depth == p->ev_depth + 1 && p->key[p->ev_depth] == K_ARGS) {
        if (k == K_STEP) e->has_step = whole(s, n, &e->step);
        if (k == K_EPOCH) e->has_epoch = whole(s, n, &e->epoch);
        if (k == K_ARGNAME && is_str) copy_str(e->argname, sizeof e->argname, (const unsigned char *)s, n, NULL);
    }
    return 1;
}

static int cb_null(void *ctx) { return on_scalar(ctx, "", 0, 0); }
static int cb_bool(void *ctx, int b) { return on_scalar(ctx, "", 0, 0); }
static int cb_number(void *ctx, const char *s, size_t n) { return on_scalar(ctx, s, n, 0); }
static int cb_string(void *ctx, const unsigned char *s, size_t n) { return on_scalar(ctx, (const char *)s, n, 1); }

static int open_container(ss_jsonev *p, char kind)
{
    p->depth++;
    if (p->depth <= MAXD) {
        p->kind[p->depth] = kind;
        p->key[p->depth] = K_NONE;
    }
    if (p->depth == 1 && !p->lines && kind == 'a') p->is_list = 1;
    if (kind != 'o' || p->ev_depth) return 1;
    int at_event = p->lines ? p->depth == 1
                            : (p->depth == 2 && p->kind[1] == 'a') ||
                                  (p->depth == 3 && p->kind[1] == 'o' && p->key[1] == K_EVENTS && p->kind[2] == 'a');
    if (at_event) {
        p->ev_depth = p->depth;
        memset(&p->ev, 0, offsetof(ss_jev, argname)); /* argname is the last field: an empty string */
        p->ev.argname[0] = '\0';
        p->ev.seq = p->nev + 1;
    } else if (!p->lines && p->depth == 2 && p->kind[1] == 'o' && p->key[1] == K_DIST) {
        p->in_dist = 1;
    }
    return 1;
}

static int cb_start_map(void *ctx) { return open_container(ctx, 'o'); }
static int cb_start_array(void *ctx) { return open_container(ctx, 'a'); }

static int cb_end_map(void *ctx)
{
    ss_jsonev *p = ctx;
    if (p->ev_depth && p->depth == p->ev_depth) {
        p->ev_depth = 0;
        p->nev++;
        ss_status st = p->fn(p->user, &p->ev);
        if (st != SS_OK) {
            p->cb_status = st;
            return 0;
        }
    }
    if (p->in_dist && p->depth == 2) p->in_dist = 0;
    p->depth--;
    return 1;
}

static int cb_end_array(void *ctx)
{
    ss_jsonev *p = ctx;
    p->depth--;
    return 1;
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
    ss_jsonev *p = ctx;
    if (p->depth > MAXD) return 1;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
    int k = K_NONE;
    if (p->ev_depth && p->depth == p->ev_depth) {
        k = IS("name") ? K_NAME : IS("cat") ? K_CAT : IS("ph") ? K_PH : IS("ts") ? K_TS : IS("dur") ? K_DUR
            : IS("pid") ? K_PID : IS("tid") ? K_TID : IS("args") ? K_ARGS : K_NONE;
    } else if (p->ev_depth && p->depth == p->ev_depth + 1 && p->key[p->ev_depth] == K_ARGS) {
        k = IS("step") ? K_STEP : IS("epoch") ? K_EPOCH : IS("name") ? K_ARGNAME : K_NONE;
    } else if (!p->lines && !p->ev_depth && p->depth == 1) {
        k = IS("traceEvents") ? K_EVENTS : IS("distributedInfo") ? K_DIST : IS("baseTimeNanoseconds") ? K_BASE : K_NONE;
    } else if (p->in_dist && p->depth == 2) {
        k = IS("rank") ? K_RANK : IS("world_size") ? K_WORLD : K_NONE;
    }
#undef IS
    p->key[p->depth] = (unsigned char)k;
    return 1;
}

static const yajl_callbacks callbacks = {cb_null,   cb_bool,      NULL,   NULL,           cb_number,   cb_string,
                                         cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array};

ss_status ss_jsonev_new(int lines, const char *path, ss_jev_fn fn, void *user, ss_jsonev **out)
{
    *out = NULL;
    ss_jsonev *p = calloc(1, sizeof *p);
    if (!p) return ss_fail(SS_ENOMEM, "out of memory");
    p->lines = lines;
    p->fn = fn;
    p->user = user;
    p->rank = p->world = -1;
    p->base_ns = -1;
    p->path = strdup(path);
    p->h = yajl_alloc(&callbacks, NULL, p);
    if (!p->path || !p->h) {
        ss_jsonev_free(p);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    if (lines) yajl_config(p->h, yajl_allow_multiple_values, 1);
    p->fast = lines;
    *out = p;
    return SS_OK;
}

/* ---- the fast path of JSON lines ----
 * A line that is one plain JSON object is read here, without yajl: the same callbacks are
 * called with the same tokens, so the event is the same. Anything else (another layout, an
 * error, an escape where a field is read, deep nesting) is left to yajl, which then reads
 * the line as before, messages included. Nothing is handed on before that choice is made:
 * the event's callback comes at the line's end. */

#define FAST_MAXD 48 /* deeper lines go to yajl */

/* bytes a string's scan stops at: 1 quote, 2 backslash, 3 control character, 4 not ASCII */
static const unsigned char str_stop[256] = {
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};

static int is_hex(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }

/* The string whose opening quote is at s[-1], as yajl checks it (escapes, control
 * characters, UTF-8 sequences by their lead byte): its closing quote, or NULL where yajl
 * would fail or the line ends. *esc = 1 when it holds an escape. */
static const unsigned char *fast_string(const unsigned char *s, const unsigned char *e, int *esc)
{
    for (;;) {
        while (s < e && !str_stop[*s]) s++;
        if (s == e) return NULL;
        const unsigned char c = *s;
        if (str_stop[c] == 1) return s;
        if (str_stop[c] == 3) return NULL;
        if (c == '\\') {
            *esc = 1;
            if (++s == e) return NULL;
            if (*s == 'u') {
                if (e - s < 5 || !is_hex(s[1]) || !is_hex(s[2]) || !is_hex(s[3]) || !is_hex(s[4])) return NULL;
                s += 5;
            } else if (*s == '"' || *s == '\\' || *s == '/' || *s == 'b' || *s == 'f' || *s == 'n' || *s == 'r' ||
                       *s == 't') {
                s++;
            } else {
                return NULL;
            }
            continue;
        }
        /* a UTF-8 sequence: 2 to 4 bytes by its lead byte, the rest 10xxxxxx */
        const int more = (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
        if (more < 0 || e - s <= more) return NULL;
        for (int i = 1; i <= more; i++)
            if ((s[i] >> 6) != 0x2) return NULL;
        s += more + 1;
    }
}

/* A number as yajl lexes it: its end, or NULL when it is not one, or a byte other than a
 * space, tab, comma or closing bracket follows it. */
static const unsigned char *fast_number(const unsigned char *s, const unsigned char *e)
{
    if (s < e && *s == '-') s++;
    if (s == e) return NULL;
    if (*s == '0') {
        s++;
    } else if (*s >= '1' && *s <= '9') {
        while (s < e && *s >= '0' && *s <= '9') s++;
    } else {
        return NULL;
    }
    if (s < e && *s == '.') {
        const unsigned char *d = ++s;
        while (s < e && *s >= '0' && *s <= '9') s++;
        if (s == d) return NULL;
    }
    if (s < e && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < e && (*s == '+' || *s == '-')) s++;
        const unsigned char *d = s;
        while (s < e && *s >= '0' && *s <= '9') s++;
        if (s == d) return NULL;
    }
    if (s == e || !(*s == ' ' || *s == '\t' || *s == ',' || *s == '}' || *s == ']')) return NULL;
    return s;
}

/* a key at this depth of the event is one cb_key looks at */
static int key_tracked(const ss_jsonev *p)
{
    return p->depth == p->ev_depth || (p->depth == p->ev_depth + 1 && p->key[p->ev_depth] == K_ARGS);
}

#define FAST_WS(s, e) while ((s) < (e) && (*(s) == ' ' || *(s) == '\t')) (s)++

/* Reads line [s, e) when it is one plain JSON object: returns 1 (*st: SS_OK, or the event
 * callback's failure) or 0 when the line is left to yajl (the callbacks' state is reset). */
static int fast_line(ss_jsonev *p, const unsigned char *s, const unsigned char *e, ss_status *st)
{
    if (s == e || *s != '{' || p->depth != 0) return 0;
    s++;
    open_container(p, 'o');
    int first = 1; /* at the start of a container's members */
    for (;;) {
        FAST_WS(s, e);
        if (s == e) goto give_up;
        const char kind = p->kind[p->depth];
        if (*s == (kind == 'o' ? '}' : ']')) {
            s++;
            if (p->depth == 1) { /* the event's end: nothing but the line's end may follow */
                FAST_WS(s, e);
                if (s != e) goto give_up;
                *st = cb_end_map(p) ? SS_OK : p->cb_status;
                return 1;
            }
            if (kind == 'o') cb_end_map(p);
            else cb_end_array(p);
            first = 0;
            continue;
        }
        if (!first) {
            if (*s != ',') goto give_up;
            s++;
            FAST_WS(s, e);
            if (s == e) goto give_up;
        }
        if (kind == 'o') { /* a key */
            if (*s != '"') goto give_up;
            int esc = 0;
            const unsigned char *k = s + 1, *q = fast_string(k, e, &esc);
            if (!q) goto give_up;
            if (esc && key_tracked(p)) goto give_up; /* "n\u0061me" is "name" */
            if (esc) p->key[p->depth] = K_NONE;
            else cb_key(p, k, (size_t)(q - k));
            s = q + 1;
            FAST_WS(s, e);
            if (s == e || *s != ':') goto give_up;
            s++;
            FAST_WS(s, e);
            if (s == e) goto give_up;
        }
        first = 0;
        const unsigned char c = *s;
        if (c == '{' || c == '[') {
            if (p->depth >= FAST_MAXD) goto give_up;
            open_container(p, c == '{' ? 'o' : 'a');
            s++;
            first = 1;
            continue;
        }
        const int read = cur_key(p) != K_NONE; /* a value the event takes */
        if (c == '"') {
            int esc = 0;
            const unsigned char *q = fast_string(s + 1, e, &esc);
            if (!q || (esc && read)) goto give_up; /* yajl decodes the escapes */
            if (read) cb_string(p, s + 1, (size_t)(q - s - 1));
            s = q + 1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const unsigned char *q = fast_number(s, e);
            if (!q) goto give_up;
            if (read) cb_number(p, (const char *)s, (size_t)(q - s));
            s = q;
        } else {
            static const char *const lit[3] = {"true", "false", "null"};
            const int i = c == 't' ? 0 : c == 'f' ? 1 : c == 'n' ? 2 : -1;
            if (i < 0) goto give_up;
            const size_t n = strlen(lit[i]);
            if ((size_t)(e - s) <= n || memcmp(s, lit[i], n) ||
                !(s[n] == ' ' || s[n] == '\t' || s[n] == ',' || s[n] == '}' || s[n] == ']'))
                goto give_up;
            if (read) on_scalar(p, "", 0, 0);
            s += n;
        }
    }
give_up:
    p->depth = p->ev_depth = p->in_dist = 0;
    return 0;
}

/* the parser's complaint, with where (line or byte) */
static ss_status parse_error(ss_jsonev *p, const unsigned char *buf, size_t n, long lineno)
{
    if (p->cb_status != SS_OK) return p->cb_status;
    unsigned char *msg = yajl_get_error(p->h, 0, buf, n);
    char m[200];
    snprintf(m, sizeof m, "%s", msg ? (const char *)msg : "invalid JSON");
    if (msg) yajl_free_error(p->h, msg);
    for (char *c = m; *c; c++)
        if (*c == '\n') *c = ' ';
    size_t e = strlen(m);
    while (e > 0 && m[e - 1] == ' ') m[--e] = '\0';
    if (lineno > 0) return ss_fail(SS_EDATA, "%s:%ld: not valid JSON (%s)", p->path, lineno, m);
    return ss_fail(SS_EDATA, "%s: not valid JSON near event %lld (%s)", p->path, p->nev + 1, m);
}

/* JSON lines: a line that failed as JSON leaves yajl in its error state, or inside an
 * object: a new parser for the next line */
static ss_status restart_lines(ss_jsonev *p)
{
    if (p->h) yajl_free(p->h);
    p->h = yajl_alloc(&callbacks, NULL, p);
    if (!p->h) return ss_fail(SS_ENOMEM, "out of memory");
    yajl_config(p->h, yajl_allow_multiple_values, 1);
    p->depth = p->ev_depth = p->in_dist = 0;
    return SS_OK;
}

/* the line's failure as JSON (its message recorded): the parser is set for the next line */
static ss_status line_broken(ss_jsonev *p, ss_status st)
{
    if (restart_lines(p) != SS_OK) return SS_ENOMEM;
    p->broken = 1;
    return st;
}

ss_status ss_jsonev_line(ss_jsonev *p, const char *line, size_t len, long lineno)
{
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == ',')) len--;
    long long before = p->nev;
    p->cb_status = SS_OK;
    p->broken = 0;
    ss_status fst;
    if (p->fast && fast_line(p, (const unsigned char *)line, (const unsigned char *)line + len, &fst)) return fst;
    /* a fresh parser per line: nothing a line leaves open (a string after its object) runs
     * on into the next */
    if (restart_lines(p) != SS_OK) return SS_ENOMEM;
    yajl_status ys = yajl_parse(p->h, (const unsigned char *)line, len);
    if (ys != yajl_status_ok) {
        ss_status st = parse_error(p, (const unsigned char *)line, len, lineno);
        return p->cb_status != SS_OK ? st : line_broken(p, st);
    }
    /* a space ends a trailing number, so that "5" is not left pending */
    ys = yajl_parse(p->h, (const unsigned char *)" ", 1);
    if (ys != yajl_status_ok) {
        ss_status st = parse_error(p, (const unsigned char *)" ", 1, lineno);
        return p->cb_status != SS_OK ? st : line_broken(p, st);
    }
    if (p->depth != 0)
        return line_broken(p, ss_fail(SS_EDATA, "%s:%ld: not valid JSON (the object does not end on its line: a line "
                                      "cut short, or broken in two by a line break written raw inside a string?)",
                                      p->path, lineno));
    if (p->nev != before + 1)
        return line_broken(p, ss_fail(SS_EDATA, "%s:%ld: expected one JSON object on the line (a trace event)",
                                      p->path, lineno));
    return SS_OK;
}

int ss_jsonev_line_broken(const ss_jsonev *p) { return p->broken; }
void ss_jsonev_set_fast(ss_jsonev *p, int on) { p->fast = on && p->lines; }

ss_status ss_jsonev_feed(ss_jsonev *p, const char *buf, size_t n)
{
    p->cb_status = SS_OK;
    if (yajl_parse(p->h, (const unsigned char *)buf, n) != yajl_status_ok)
        return parse_error(p, (const unsigned char *)buf, n, 0);
    return SS_OK;
}

ss_status ss_jsonev_finish(ss_jsonev *p)
{
    p->cb_status = SS_OK;
    if (yajl_complete_parse(p->h) != yajl_status_ok) {
        if (p->cb_status != SS_OK) return p->cb_status;
        return ss_fail(SS_EDATA, "%s: the JSON document is incomplete or invalid after event %lld", p->path, p->nev);
    }
    return SS_OK;
}

long ss_jsonev_rank(const ss_jsonev *p) { return p->rank; }
long ss_jsonev_world_size(const ss_jsonev *p) { return p->world; }
int ss_jsonev_is_list(const ss_jsonev *p) { return p->is_list; }
long long ss_jsonev_base_ns(const ss_jsonev *p) { return p->base_ns; }
long long ss_jsonev_events(const ss_jsonev *p) { return p->nev; }

void ss_jsonev_free(ss_jsonev *p)
{
    if (!p) return;
    if (p->h) yajl_free(p->h);
    free(p->path);
    free(p);
}
