/* ss_import_table.c - the plain-table importer: a CSV file (plain or gzip) with one row per
 * (rank, epoch, step), read one step (all ranks' rows) at a time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ss_gzline.h"
#include "ss_csv.h"
#include "ss_import.h"
#include "ss_impfiles.h"
#include "ss_limits.h"
#include "ss_number.h"
#include "ss_timefmt.h"

enum { C_RANK, C_EPOCH, C_STEP, C_FSTART, C_FEND, C_FTIME, C_TSTART, C_SEND, C_ITIME, C_STALL, NCOL };
static const char *const col_names[NCOL] = {"rank",        "epoch",    "step",     "fetch_start",    "fetch_end",
                                            "fetch_time",  "train_start", "step_end", "iteration_time", "stall_time"};

/* one row, times in seconds since the first row's whole second */
typedef struct {
    long rank, line;
    double fstart, ftime, tstart, itime, stall;
} trow;

typedef struct {
    char *path;
    char *inputs[1];
    ss_gzline *r;
    int col[NCOL]; /* field index of each column, -1 absent */
    int nfields;
    char **f;      /* [nfields] field pointers into the current line */
    int iso;       /* times are ISO timestamps (else seconds) */
    int origin_col; /* the column the origin is taken from: fetch_start, else train_start */
    int no_fetch;  /* no fetch columns: fetch_start = the ask, fetch_time = the stall */
    int no_times;  /* no train_start either: each rank's steps laid end to end from 0 */
    double *clock; /* no_times: [G] each rank's next ask (s) */
    int zoned;     /* iso: the first timestamp gave a time zone (all must, or none) */
    int have_origin;
    int64_t origin_ns;
    double origin_s;
    int G;
    /* the step being gathered and the first row of the next one */
    long long epoch, step, next_epoch, next_step;
    trow *rows, next_row;
    int have_next, eof;
    long steps;
    /* does each row's end meet the next row's ask on its rank (within an epoch)? */
    double *end;       /* [G] each rank's last row's ask + iteration_time (s) */
    long long end_epoch;
    long gaps, gaps_far; /* rows that follow one of their rank, and those whose ask lies
                          * more than 1 µs after it */
    double gap_sum;     /* the far rows' gaps summed (s) */
} tab_state;

/* Splits line into fields at commas (double quotes group, "" is a quote; spaces around a
 * field are dropped). Returns the field count (fields beyond max are counted, not kept) or
 * -1 for an unterminated quote. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        char *start = s, *w = s;
        if (*s == '"') {
            if (!(s = ss_csv_unquote(s, &w))) return -1;
            while (*s && *s != ',') s++;
        } else {
            while (*s && *s != ',') s++;
            w = s;
            while (w > start && (w[-1] == ' ' || w[-1] == '\t')) w--;
        }
        char end = *s;
        *w = '\0';
        if (n < max) f[n] = start;
        n++;
        if (end != ',') break;
        s++;
    }
    return n;
}

static ss_status cell_number(tab_state *t, long line, int c, double *v)
{
    const char *s = t->f[t->col[c]];
    char *end;
    errno = 0;
    *v = ss_csv_strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(*v))
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', not a number", t->path, line, col_names[c], s);
    return SS_OK;
}

static ss_status cell_whole(tab_state *t, long line, int c, long long lo, long long hi, long long *v)
{
    double x;
    ss_status st = cell_number(t, line, c, &x);
    if (st != SS_OK) return st;
    if (x != floor(x) || x < (double)lo || x > (double)hi)
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', not a whole number from %lld to %lld", t->path, line,
                       col_names[c], t->f[t->col[c]], lo, hi);
    *v = (long long)x;
    return SS_OK;
}

/* a time column: seconds, or an ISO timestamp (seconds after the origin) */
static ss_status cell_time(tab_state *t, long line, int c, double *v)
{
    const char *s = t->f[t->col[c]];
    if (!t->iso) {
        ss_status st = cell_number(t, line, c, v);
        /* past 1e10 s (the year 2286 as Unix time): milli-, micro- or nanoseconds, most likely */
        if (st == SS_OK && fabs(*v) > 1e10)
            return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds %s, which as seconds is more than 300 years: the "
                           "table's times must be seconds (these look like milli-, micro- or nanoseconds)",
                           t->path, line, col_names[c], s);
        return st;
    }
    int64_t ns;
    int zoned = 0;
    if (ss_time_parse_zone(s, &ns, &zoned) != 0)
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', not a timestamp like 2024-05-01T12:00:00.123456 "
                       "(or with a zone: ...Z, ...+02:00; the table's times are timestamps)",
                       t->path, line, col_names[c], s);
    if (zoned != t->zoned)
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', %s a time zone where the first %s has %s: "
                       "give every timestamp with a zone or none", t->path, line, col_names[c], s,
                       zoned ? "with" : "without", col_names[t->origin_col], t->zoned ? "one" : "none");
    /* both within 1678..2261, but their difference may not fit 64 bits (more than 292 years
     * apart): then in long double (exact for any two int64 on x86-64) */
    int64_t d;
    if (__builtin_sub_overflow(ns, t->origin_ns, &d)) *v = (double)(((long double)ns - (long double)t->origin_ns) * 1e-9L);
    else *v = (double)d * 1e-9;
    return SS_OK;
}

static ss_status nonneg(tab_state *t, long line, const char *what, double v)
{
    if (v < 0) return ss_fail(SS_EDATA, "%s:%ld: %s is negative (%g s)", t->path, line, what, v);
    return SS_OK;
}

/* Reads the next data row into *r and its (epoch, step); *got = 0 at the end. */
static ss_status read_row(tab_state *t, trow *r, long long *epoch, long long *step, int *got)
{
    *got = 0;
    char *line;
    size_t len;
    for (;;) {
        ss_status st = ss_gzline_next(t->r, &line, &len);
        if (st != SS_OK) return st;
        if (!line) return SS_OK;
        size_t a = 0;
        while (a < len && (line[a] == ' ' || line[a] == '\t')) a++;
        if (a < len && line[a] != '#') break; /* blank lines and # comments are skipped */
    }
    long ln = ss_gzline_lineno(t->r);
    int n = split(line, t->f, t->nfields);
    if (n < 0) return ss_fail(SS_EDATA, "%s:%ld: unterminated quote", t->path, ln);
    if (n != t->nfields)
        return ss_fail(SS_EDATA, "%s:%ld: %d fields, the header has %d", t->path, ln, n, t->nfields);
    long long rank;
    ss_status st = cell_whole(t, ln, C_RANK, 0, SS_MAX_GPUS - 1, &rank);
    if (st == SS_OK) st = cell_whole(t, ln, C_EPOCH, -2147483647LL, 2147483647LL, epoch);
    if (st == SS_OK) st = cell_whole(t, ln, C_STEP, -(1LL << 53), 1LL << 53, step);
    if (st != SS_OK) return st;
    if (!t->have_origin && t->no_times) {
        t->have_origin = 1; /* times from 0: the origin is 1970 */
    } else if (!t->have_origin) {
        /* the origin: the whole second at or before the first row's fetch start (else its
         * train_start less its stall: when it began to wait) */
        const char *s = t->f[t->col[t->origin_col]];
        int64_t ns;
        char *end;
        double wait = 0; /* (a bad stall is refused below, with its line) */
        if (t->no_fetch) {
            errno = 0;
            const char *w = t->f[t->col[C_STALL]];
            double v = ss_csv_strtod(w, &end);
            if (end != w && !*end && errno != ERANGE && isfinite(v) && v > 0 && v < 1e9) wait = v;
        }
        errno = 0;
        double v = ss_csv_strtod(s, &end);
        if (end != s && !*end && errno != ERANGE && isfinite(v)) {
            t->iso = 0; /* a plausible Unix time counts from its whole second, other seconds from 0 */
            double o = floor(v - wait);
            if ((v - o) - wait < 0) o -= 1.0; /* (v - wait rounded up to a whole second) */
            t->origin_s = o >= 0 && o < 9.0e9 ? o : 0;
        } else if (ss_time_parse_zone(s, &ns, &t->zoned) == 0) {
            t->iso = 1;
            if (__builtin_sub_overflow(ns, (int64_t)llround(wait * 1e9), &ns))
                return ss_fail(SS_EDATA, "%s:%ld: its train_start less its stall_time lies beyond the timestamps' range",
                               t->path, ln);
            t->origin_ns = ns - ((ns % 1000000000LL) + 1000000000LL) % 1000000000LL;
        } else {
            return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', neither seconds nor a timestamp", t->path, ln,
                           col_names[t->origin_col], s);
        }
        t->have_origin = 1;
    }
    double fs = 0, fe = 0, ts = 0, it, stl;
    if (!t->no_fetch && (st = cell_time(t, ln, C_FSTART, &fs)) != SS_OK) return st;
    if (!t->no_times && (st = cell_time(t, ln, C_TSTART, &ts)) != SS_OK) return st;
    if ((st = cell_number(t, ln, C_STALL, &stl)) != SS_OK) return st;
    if ((st = nonneg(t, ln, "stall_time", stl)) != SS_OK) return st;
    if (t->no_fetch) {
        fe = stl; /* placeholders (fetch_times = absent): the fetch is the wait itself */
    } else if (t->col[C_FEND] >= 0) {
        if ((st = cell_time(t, ln, C_FEND, &fe)) != SS_OK) return st;
        fe -= fs;
        if ((st = nonneg(t, ln, "fetch_end - fetch_start", fe)) != SS_OK) return st;
    } else {
        if ((st = cell_number(t, ln, C_FTIME, &fe)) != SS_OK) return st;
        if ((st = nonneg(t, ln, "fetch_time", fe)) != SS_OK) return st;
    }
    if (t->col[C_SEND] >= 0) {
        if ((st = cell_time(t, ln, C_SEND, &it)) != SS_OK) return st;
        it -= ts - stl; /* from the ask (train_start - stall) to the step's end */
        if ((st = nonneg(t, ln, "step_end - (train_start - stall_time)", it)) != SS_OK) return st;
    } else {
        if ((st = cell_number(t, ln, C_ITIME, &it)) != SS_OK) return st;
        if ((st = nonneg(t, ln, "iteration_time", it)) != SS_OK) return st;
    }
    if (!t->iso) {
        fs -= t->origin_s;
        ts -= t->origin_s;
    }
    if (t->no_fetch) fs = ts - stl; /* no_times: set with ts when the rank is known */
    *r = (trow){(long)rank, ln, fs, fe, ts, it, stl};
    *got = 1;
    return SS_OK;
}

static int key_cmp(long long e1, long long s1, long long e2, long long s2)
{
    return e1 != e2 ? (e1 < e2 ? -1 : 1) : (s1 != s2 ? (s1 < s2 ? -1 : 1) : 0);
}

/* Gathers the rows of the next step into t->rows (ranks 0..G-1); *n = 0 at the end. While
 * G is 0 (the first step) it counts the ranks. */
static ss_status gather(tab_state *t, int *n)
{
    *n = 0;
    if (!t->have_next) return SS_OK;
    long long e = t->next_epoch, s = t->next_step;
    int cap = t->G ? t->G : 0, cnt = 0;
    trow row = t->next_row;
    long first_line = row.line;
    for (;;) {
        if (!t->G) {
            if (cnt == cap) {
                int nc = cap ? cap * 2 : 16;
                trow *nr = realloc(t->rows, (size_t)nc * sizeof *nr);
                if (!nr) return ss_fail(SS_ENOMEM, "out of memory");
                t->rows = nr;
                cap = nc;
            }
            for (int i = 0; i < cnt; i++)
                if (t->rows[i].rank == row.rank)
                    return ss_fail(SS_EDATA, "%s:%ld: rank %ld appears twice in epoch %lld step %lld (also line %ld)",
                                   t->path, row.line, row.rank, e, s, t->rows[i].line);
            t->rows[cnt++] = row;
        } else {
            if (row.rank >= t->G)
                return ss_fail(SS_EDATA, "%s:%ld: rank %ld, but the first step has ranks 0 to %d", t->path, row.line,
                               row.rank, t->G - 1);
            if (t->rows[row.rank].line > 0)
                return ss_fail(SS_EDATA, "%s:%ld: rank %ld appears twice in epoch %lld step %lld (also line %ld)",
                               t->path, row.line, row.rank, e, s, t->rows[row.rank].line);
            t->rows[row.rank] = row;
            cnt++;
        }
        int got;
        long long e2, s2;
        ss_status st = read_row(t, &t->next_row, &e2, &s2, &got);
        if (st != SS_OK) return st;
        if (!got) {
            t->have_next = 0;
            break;
        }
        int c = key_cmp(e2, s2, e, s);
        if (c < 0)
            return ss_fail(SS_EDATA, "%s:%ld: epoch %lld step %lld comes after epoch %lld step %lld: rows must be sorted by epoch, then step (any rank order within a step)",
                           t->path, t->next_row.line, e2, s2, e, s);
        if (c > 0) {
            t->next_epoch = e2;
            t->next_step = s2;
            break;
        }
        row = t->next_row;
    }
    if (!t->G) {
        /* ranks 0..cnt-1, in rank order */
        trow *sorted = calloc((size_t)cnt, sizeof *sorted);
        if (!sorted) return ss_fail(SS_ENOMEM, "out of memory");
        for (int i = 0; i < cnt; i++) {
            if (t->rows[i].rank >= cnt) {
                ss_status st = ss_fail(SS_EDATA, "%s:%ld: rank %ld, but the first step (epoch %lld step %lld) has %d rows: ranks must be 0 to %d",
                                       t->path, t->rows[i].line, t->rows[i].rank, e, s, cnt, cnt - 1);
                free(sorted);
                return st;
            }
            sorted[t->rows[i].rank] = t->rows[i];
        }
        free(t->rows);
        t->rows = sorted;
        t->G = cnt;
    } else if (cnt != t->G) {
        for (int g = 0; g < t->G; g++)
            if (t->rows[g].line == 0)
                return ss_fail(SS_EDATA, "%s:%ld: epoch %lld step %lld has no row for rank %d (%d ranks in the first step)",
                               t->path, first_line, e, s, g, t->G);
    }
    t->epoch = e;
    t->step = s;
    *n = cnt;
    return SS_OK;
}

static void tab_close(void *state)
{
    tab_state *t = state;
    if (!t) return;
    ss_gzline_close(t->r);
    free(t->f);
    free(t->rows);
    free(t->clock);
    free(t->end);
    free(t->path);
    free(t);
}

static ss_status tab_open(void **state, int argc, char **argv, ss_import_info *info)
{
    tab_state *t = calloc(1, sizeof *t);
    if (!t) return ss_fail(SS_ENOMEM, "out of memory");
    *state = t;
    ss_status ost = ss_import_no_options("table", argc, argv);
    if (ost != SS_OK) return ost;
    if (argc != 1 || (argv[0][0] == '-' && argv[0][1]))
        return ss_fail(SS_EUSAGE, "import table: expected one FILE (see stallsim import table --help)");
    if (!(t->path = strdup(argv[0]))) return ss_fail(SS_ENOMEM, "out of memory");
    t->inputs[0] = t->path;
    info->inputs = t->inputs;
    info->ninputs = 1;
    ss_status st = ss_gzline_open(t->path, &t->r);
    if (st != SS_OK) return st;
    char *line;
    size_t len;
    if ((st = ss_gzline_next(t->r, &line, &len)) != SS_OK) return st;
    if (!line) return ss_fail(SS_EDATA, "%s: the file is empty (no header row)", t->path);
    char *copy = strdup(line); /* split works in place: count the fields on a copy */
    if (!copy) return ss_fail(SS_ENOMEM, "out of memory");
    int n = split(copy, NULL, 0);
    free(copy);
    if (n < 0) return ss_fail(SS_EDATA, "%s:1: unterminated quote in the header", t->path);
    if (!(t->f = calloc((size_t)n, sizeof *t->f))) return ss_fail(SS_ENOMEM, "out of memory");
    t->nfields = split(line, t->f, n);
    for (int c = 0; c < NCOL; c++) t->col[c] = -1;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < NCOL; c++)
            if (!strcasecmp(t->f[i], col_names[c]) || (c == C_RANK && !strcasecmp(t->f[i], "gpu")) ||
                (c == C_STALL && !strcasecmp(t->f[i], "stall"))) {
                if (t->col[c] >= 0 && strcasecmp(t->f[t->col[c]], t->f[i]))
                    return ss_fail(SS_EDATA, "%s:1: columns '%s' and '%s' are the same column (%s): keep one",
                                   t->path, t->f[t->col[c]], t->f[i], col_names[c]);
                if (t->col[c] >= 0)
                    return ss_fail(SS_EDATA, "%s:1: column '%s' appears twice", t->path, col_names[c]);
                t->col[c] = i;
            }
    /* fetch columns (fetch_start with fetch_end or fetch_time) are optional, all or none, as is
     * train_start where iteration_time gives the steps' spans */
    t->no_fetch = t->col[C_FSTART] < 0 && t->col[C_FEND] < 0 && t->col[C_FTIME] < 0;
    t->no_times = t->no_fetch && t->col[C_TSTART] < 0 && t->col[C_SEND] < 0 && t->col[C_ITIME] >= 0;
    t->origin_col = t->no_fetch ? C_TSTART : C_FSTART;
    static const int required[] = {C_RANK, C_EPOCH, C_STEP, C_FSTART, C_TSTART, C_STALL};
    char missing[160] = "";
    int nmiss = 0;
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (t->col[required[i]] < 0 && !(required[i] == C_FSTART && t->no_fetch) &&
            !(required[i] == C_TSTART && t->no_times)) {
            const size_t l = strlen(missing);
            snprintf(missing + l, sizeof missing - l, "%s'%s'", l ? ", " : "", col_names[required[i]]);
            nmiss++;
        }
    if (nmiss) {
        /* one header field holding the names: another separator than the comma */
        const int other = n == 1 && (strchr(t->f[0], ';') || strchr(t->f[0], '\t'));
        return ss_fail(SS_EDATA, "%s:1: column%s %s %s missing (see stallsim import table --help)%s", t->path,
                       nmiss == 1 ? "" : "s", missing, nmiss == 1 ? "is" : "are",
                       other ? "; the header is one field with ';' or tabs in it: the columns must be separated by "
                               "commas"
                             : "");
    }
    if (!t->no_fetch && (t->col[C_FEND] < 0) == (t->col[C_FTIME] < 0))
        return ss_fail(SS_EDATA, "%s:1: give exactly one of the columns fetch_end and fetch_time (or, without fetch "
                       "times, neither, nor fetch_start)", t->path);
    if ((t->col[C_SEND] < 0) == (t->col[C_ITIME] < 0))
        return ss_fail(SS_EDATA, "%s:1: give exactly one of the columns step_end and iteration_time", t->path);
    int got, cnt;
    if ((st = read_row(t, &t->next_row, &t->next_epoch, &t->next_step, &got)) != SS_OK) return st;
    if (!got) return ss_fail(SS_EDATA, "%s: has a header but no data rows", t->path);
    t->have_next = 1;
    if ((st = gather(t, &cnt)) != SS_OK) return st;
    if (t->iso) {
        ss_time_format_iso(t->origin_ns, info->meta.time_origin, sizeof info->meta.time_origin);
    } else {
        /* seconds: the origin (read_row) is 1970 plus the first whole second when that is a
         * plausible Unix time, else 1970: the seconds are taken as they are */
        if (t->origin_s > 0)
            ss_time_format_iso((int64_t)t->origin_s * 1000000000LL, info->meta.time_origin,
                               sizeof info->meta.time_origin);
        else
            snprintf(info->meta.time_origin, sizeof info->meta.time_origin, "1970-01-01T00:00:00.000000");
    }
    if (t->no_times) {
        if (!(t->clock = calloc((size_t)t->G, sizeof *t->clock))) return ss_fail(SS_ENOMEM, "out of memory");
        if (t->G > 1)
            ss_warn("%s: no train_start column: each rank's steps are laid end to end from time 0 (an iteration_time "
                    "after another), so the ranks' times are not aligned", t->path);
    }
    if (!(t->end = malloc((size_t)t->G * sizeof *t->end))) return ss_fail(SS_ENOMEM, "out of memory");
    for (int g = 0; g < t->G; g++) t->end[g] = NAN;
    info->meta.gpus = t->G;
    info->meta.iterations = 0;
    snprintf(info->meta.fetch_times, sizeof info->meta.fetch_times, "%s", t->no_fetch ? "absent" : "measured");
    snprintf(info->meta.log_type, sizeof info->meta.log_type, "table");
    snprintf(info->meta.source, sizeof info->meta.source, "table:%s", t->path);
    return SS_OK;
}

/* Where most rows end before their rank's next ask (step_end taken after the step, not
 * where the loop asks for the next batch), the whole run cannot be put in wall time: say so */
static void gap_warning(tab_state *t)
{
    if (t->gaps == 0 || 2 * t->gaps_far <= t->gaps) return;
    ss_warn("%s: %ld of %ld rows begin after their rank's previous row ended (step_end or iteration_time), by %.0f µs "
            "on average: run_time then sums each row's longest iteration over the ranks, not the wall time, and "
            "comes out longer than the job's clock where the ranks ask apart. Give step_end as the instant the loop "
            "asks for the next batch (the next step's ask), as IMPORTERS.md says",
            t->path, t->gaps_far, t->gaps, 1e6 * t->gap_sum / (double)t->gaps_far);
    t->gaps = 0; /* once */
}

static ss_status tab_next(void *state, ss_slab *s, ss_import_info *info)
{
    tab_state *t = state;
    const int G = t->G;
    s->n = 0;
    while (s->n < s->cap) {
        if (t->steps > 0) {
            int cnt;
            for (int g = 0; g < G; g++) t->rows[g].line = 0;
            ss_status st = gather(t, &cnt);
            if (st != SS_OK) return st;
            if (cnt == 0) {
                gap_warning(t);
                break;
            }
        }
        t->steps++;
        long r = s->n++;
        s->epoch[r] = (int32_t)t->epoch;
        s->index[r] = t->step;
        for (int g = 0; g < G; g++) {
            trow *x = &t->rows[g];
            size_t at = (size_t)r * G + g;
            if (t->no_times) { /* this rank's ask: its previous one + the previous iteration_time */
                x->fstart = t->clock[g];
                x->tstart = t->clock[g] + x->stall;
                t->clock[g] += x->itime;
            }
            const double ask = x->tstart - x->stall;
            if (t->end_epoch == t->epoch && !isnan(t->end[g])) {
                t->gaps++;
                if (ask - t->end[g] > 1e-6) t->gaps_far++, t->gap_sum += ask - t->end[g];
            }
            t->end[g] = ask + x->itime;
            s->fetch_start[at] = x->fstart;
            s->fetch_time[at] = x->ftime;
            s->train_start[at] = x->tstart;
            s->iteration_time[at] = x->itime;
            s->stall_time[at] = x->stall;
        }
        t->end_epoch = t->epoch;
    }
    (void)info;
    return SS_OK;
}

const ss_importer ss_importer_table = {
    .name = "table",
    .summary = "a CSV table with one row per (rank, epoch, step), .csv or .csv.gz",
    .usage = "FILE",
    .help =
        "Reads a CSV table (plain or gzip-compressed) with a header row and one row per rank,\n"
        "epoch and step. Expected header (any column order; more columns are ignored):\n"
        "  rank,epoch,step,fetch_start,fetch_end,train_start,step_end,stall_time\n"
        "or with fetch_time instead of fetch_end and/or iteration_time instead of step_end.\n"
        "Without fetch times (a training log's wait and step time), leave out fetch_start and\n"
        "fetch_end/fetch_time: fetch_start = the ask, fetch_time = stall_time, placeholders\n"
        "(fetch_times = absent); with iteration_time, train_start may be left out too: each\n"
        "rank's steps are laid end to end from time 0 (the ranks are not aligned).\n"
        "  rank (or gpu)     0..G-1: GPU g of the trace\n"
        "  epoch, step       whole numbers: the row's epoch and index\n"
        "  fetch_start       when the batch's fetch began\n"
        "  fetch_end         when it ended (fetch_time = fetch_end - fetch_start), or\n"
        "  fetch_time        its duration in seconds\n"
        "  train_start       when the training step got the batch\n"
        "  stall_time        how long the loop waited for it (seconds; stall is accepted too)\n"
        "  step_end          when the step ended and the loop asked for the next batch\n"
        "                    (iteration_time = step_end - (train_start - stall_time)), or\n"
        "  iteration_time    seconds from asking for this batch to asking for the next\n"
        "Times are seconds (any origin; e.g. Unix time) or ISO timestamps like\n"
        "2024-05-01T12:00:00.123456 (with a zone, Z or +02:00, moved to UTC: all with one or none),\n"
        "as the first row's fetch_start (else train_start) is; durations are seconds.\n"
        "Rows must be sorted by epoch, then step; the rows of one step (one per rank, every\n"
        "rank of the first step) may come in any order. Blank lines and lines starting with #\n"
        "are skipped; fields may be double-quoted (no line breaks inside). One step is held in\n"
        "memory at a time.\n",
    .open = tab_open,
    .next = tab_next,
    .close = tab_close,
};
