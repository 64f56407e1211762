/* ss_impfiles.c - input lists, ranks from file names and time origins for the importers. */
#include "ss_impfiles.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ss_timefmt.h"

static ss_status push(ss_filelist *l, const char *p)
{
    char **np = realloc(l->path, (size_t)(l->n + 1) * sizeof *np);
    if (!np) return ss_fail(SS_ENOMEM, "out of memory");
    l->path = np;
    if (!(l->path[l->n] = strdup(p))) return ss_fail(SS_ENOMEM, "out of memory");
    l->n++;
    return SS_OK;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && !strcmp(s + a - b, suf);
}

/* Names in natural order: runs of digits compare by their value ("r2" before "r10"),
 * the rest byte by byte; equal values with more leading zeros first, then strcmp. */
int ss_name_cmp(const char *a, const char *b)
{
    const char *p = a, *q = b;
    while (*p && *q) {
        if (isdigit((unsigned char)*p) && isdigit((unsigned char)*q)) {
            const char *p0 = p, *q0 = q;
            while (*p0 == '0') p0++;
            while (*q0 == '0') q0++;
            const char *pe = p0, *qe = q0;
            while (isdigit((unsigned char)*pe)) pe++;
            while (isdigit((unsigned char)*qe)) qe++;
            if (pe - p0 != qe - q0) return pe - p0 < qe - q0 ? -1 : 1;
            int c = strncmp(p0, q0, (size_t)(pe - p0));
            if (c) return c < 0 ? -1 : 1;
            p = pe;
            q = qe;
            continue;
        }
        if (*p != *q) return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
        p++, q++;
    }
    if (*p || *q) return *p ? 1 : -1;
    int c = strcmp(a, b);
    return c < 0 ? -1 : c > 0;
}

static int cmp_str(const void *a, const void *b) { return ss_name_cmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    dev_t dev;
    ino_t ino;
    int i;
} file_id;

static int cmp_id(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return x->i - y->i;
}

/* SS_EDATA naming two of l's paths that are one file (given twice, or a folder and a file
 * in it): it would count as two ranks. */
static ss_status distinct(const ss_filelist *l)
{
    if (l->n < 2) return SS_OK;
    file_id *id = malloc((size_t)l->n * sizeof *id);
    if (!id) return ss_fail(SS_ENOMEM, "out of memory");
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        struct stat sb;
        if (stat(l->path[i], &sb) == 0) id[k++] = (file_id){sb.st_dev, sb.st_ino, i};
    }
    qsort(id, (size_t)k, sizeof *id, cmp_id);
    ss_status st = SS_OK;
    for (int j = 1; j < k && st == SS_OK; j++)
        if (id[j].dev == id[j - 1].dev && id[j].ino == id[j - 1].ino)
            st = ss_fail(SS_EDATA, "%s and %s: the same file, given twice (each input is one rank's)",
                         l->path[id[j - 1].i], l->path[id[j].i]);
    free(id);
    return st;
}

ss_status ss_filelist_add(ss_filelist *l, const char *path, const char *const *suffixes)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return ss_fail(SS_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISDIR(sb.st_mode)) {
        ss_status st = push(l, path);
        return st == SS_OK ? distinct(l) : st;
    }
    DIR *d = opendir(path);
    if (!d) return ss_fail(SS_EIO, "%s: cannot open the folder: %s", path, strerror(errno));
    int first = l->n;
    ss_status st = SS_OK;
    struct dirent *e;
    while (st == SS_OK && (e = readdir(d)) != NULL) {
        int ok = 0;
        /* hidden files are not traces (._name: the resource forks a macOS archive carries) */
        if (e->d_name[0] == '.') continue;
        for (int i = 0; suffixes[i] && !ok; i++) ok = ends_with(e->d_name, suffixes[i]);
        if (!ok) continue;
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        st = push(l, full);
    }
    closedir(d);
    if (st != SS_OK) return st;
    if (l->n == first) {
        char list[256] = "";
        for (int i = 0; suffixes[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s*%s", i ? ", " : "", suffixes[i]);
        return ss_fail(SS_EDATA, "%s: the folder holds no trace files (%s)", path, list);
    }
    qsort(l->path + first, (size_t)(l->n - first), sizeof *l->path, cmp_str);
    return distinct(l);
}

static const char *base_of(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static int cmp_base(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int c = ss_name_cmp(base_of(x), base_of(y));
    return c ? c : ss_name_cmp(x, y);
}

void ss_filelist_sort(ss_filelist *l)
{
    if (l->n > 1) qsort(l->path, (size_t)l->n, sizeof *l->path, cmp_base);
}

void ss_filelist_free(ss_filelist *l)
{
    for (int i = 0; i < l->n; i++) free(l->path[i]);
    free(l->path);
    l->path = NULL;
    l->n = 0;
}

/* digits at s (at most 9): value, or -1 */
static long digits_at(const char *s, const char **end)
{
    long v = 0;
    int n = 0;
    while (isdigit((unsigned char)s[n]) && n < 9) v = v * 10 + (s[n++] - '0');
    if (n == 0 || isdigit((unsigned char)s[n])) return -1;
    if (end) *end = s + n;
    return v;
}

int ss_rank_from_name(const char *path, long *rank, long *of)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    *of = -1;
    /* "-R-of-N" */
    for (const char *p = strstr(base, "-of-"); p; p = strstr(p + 1, "-of-")) {
        const char *q = p;
        while (q > base && isdigit((unsigned char)q[-1])) q--;
        if (q == p || q == base || q[-1] != '-') continue;
        long r = digits_at(q, NULL), n = digits_at(p + 4, NULL);
        if (r >= 0 && n > 0) {
            *rank = r;
            *of = n;
            return 1;
        }
    }
    /* "rank" followed by an optional '-' or '_', digits, and optionally "of" N */
    for (const char *p = strstr(base, "rank"); p; p = strstr(p + 1, "rank")) {
        const char *q = p + 4, *end;
        if (*q == '-' || *q == '_') q++;
        long r = digits_at(q, &end);
        if (r < 0) continue;
        *rank = r;
        if (!strncmp(end, "of", 2)) *of = digits_at(end + 2, NULL);
        return 1;
    }
    return 0;
}

void ss_check_ranks(const char *what, const long *ranks, int n, long world)
{
    int first_off = -1; /* the first GPU that is not the rank of its number */
    for (int g = 0; g < n && first_off < 0; g++)
        if (ranks[g] != g) first_off = g;
    long size = world > ranks[n - 1] ? world : ranks[n - 1] + 1;
    if (first_off < 0 && size == n) return;
    char list[160] = "", off[64] = "";
    size_t l = 0;
    for (int g = 0; g < n && l + 24 < sizeof list; g++)
        l += (size_t)snprintf(list + l, sizeof list - l, "%s%ld", g ? ", " : "", ranks[g]);
    if (l + 24 >= sizeof list) snprintf(list + l, sizeof list - l, ", ...");
    if (first_off >= 0) snprintf(off, sizeof off, ": GPU %d is rank %ld", first_off, ranks[first_off]);
    ss_warn("import %s: the trace holds %s %s of a job of %s%ld ranks%s; the other ranks' stalls, which the job "
            "waited for too, are not in it",
            what, n == 1 ? "rank" : "ranks", list, world > 0 ? "" : "at least ", size, off);
}

/* a duration in words: "42.0 s", "25.3 min", "19.0 h", "3.2 days" */
static void say_duration(double s, char *buf, size_t n)
{
    if (s < 60) snprintf(buf, n, "%.1f s", s);
    else if (s < 3600) snprintf(buf, n, "%.1f min", s / 60);
    else if (s < 172800) snprintf(buf, n, "%.1f h", s / 3600);
    else snprintf(buf, n, "%.1f days", s / 86400);
}

ss_status ss_check_spans(const char *what, char *const *paths, const double *t0, const double *t1, int n)
{
    int a = 0, b = 0; /* the file that ends first and the one that begins last */
    for (int g = 1; g < n; g++) {
        if (t1[g] < t1[a]) a = g;
        if (t0[g] > t0[b]) b = g;
    }
    if (n < 2 || !(t0[b] > t1[a])) return SS_OK;
    const double gap = (t0[b] - t1[a]) * 1e-6;
    char say[32], end[40], begin[40];
    say_duration(gap, say, sizeof say);
    if (gap > SS_SPAN_GAP_MAX) {
        ss_time_format_iso((int64_t)floor(t1[a]) * 1000, end, sizeof end);
        ss_time_format_iso((int64_t)floor(t0[b]) * 1000, begin, sizeof begin);
        return ss_fail(SS_EDATA, "%s's steps end at %s, and %s's begin at %s, %s later: the ranks of one job run at "
                       "one time, these files are of different runs (import each run's files alone)", paths[a], end,
                       paths[b], begin, say);
    }
    ss_warn("import %s: %s's steps end %s before %s's begin: the ranks' times do not overlap (hosts whose clocks "
            "differ, or files of different runs?)", what, paths[a], say, paths[b]);
    return SS_OK;
}

ss_status ss_import_no_options(const char *what, int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1])
            return ss_fail(SS_EUSAGE, "import %s: unknown option '%s' (see stallsim import %s --help)", what, argv[i],
                           what);
    return SS_OK;
}

int ss_origin_from_us(double t_us, char *iso, int isosize, double *origin_us)
{
    if (!(t_us >= 0.0 && t_us < 9.0e15)) return -1;
    int64_t s = (int64_t)floor(t_us / 1e6);
    ss_time_format_iso(s * 1000000000LL, iso, isosize);
    *origin_us = (double)s * 1e6;
    return 0;
}

long ss_cmdline_long(const char *cmd, const char *key)
{
    const char *p = strstr(cmd, key);
    if (!p) return -1;
    return digits_at(p + strlen(key), NULL);
}
