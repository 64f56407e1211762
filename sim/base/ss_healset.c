/* ss_healset.c - the GPUs one scenario heals: parse, canonical form, format, membership. */
#include "ss_healset.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number 0..max at *p (after spaces); advances *p past it. 0 on success. */
static int read_gpu(const char **p, int max, int *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (errno || x > max) return -2;
    *v = (int)x;
    while (*end == ' ' || *end == '\t') end++;
    *p = end;
    return 0;
}

const char ss_healset_not_a_set[] = "is not a GPU number or a set such as 1+3 or 8-15";

/* 1 when the set is written in fewer than SS_HEAL_TEXT_MAX bytes */
static int short_enough(const ss_healset *h)
{
    char buf[4 * SS_HEAL_TEXT_MAX];
    ss_healset_format(h, buf, sizeof buf);
    return strlen(buf) < SS_HEAL_TEXT_MAX;
}

int ss_healset_add(ss_healset *h, int g)
{
    ss_healset next = *h;
    if (next.n > 0 && g == next.hi[next.n - 1] + 1) {
        next.hi[next.n - 1] = g;
    } else {
        if (next.n == SS_HEAL_RANGES) return -1;
        next.lo[next.n] = next.hi[next.n] = g;
        next.n++;
    }
    if (!short_enough(&next)) return -1;
    *h = next;
    return 0;
}

static int cmp_range(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

const char *ss_healset_parse(const char *text, int max_gpu, ss_healset *out)
{
    memset(out, 0, sizeof *out);
    /* up to 4 x SS_HEAL_RANGES terms before merging ("1+2+3+4" is one range) */
    int r[4 * SS_HEAL_RANGES][2], n = 0;
    const char *p = text;
    for (;;) {
        if (n == 4 * SS_HEAL_RANGES) return "has too many parts";
        int lo, hi, rc = read_gpu(&p, max_gpu, &lo);
        if (rc) return rc == -2 ? "names a GPU number beyond the limit" : ss_healset_not_a_set;
        hi = lo;
        if (*p == '-') {
            p++;
            rc = read_gpu(&p, max_gpu, &hi);
            if (rc) return rc == -2 ? "names a GPU number beyond the limit" : "has a range without its last GPU (write 8-15)";
            if (hi < lo) return "has a range whose last GPU comes before its first (write 8-15)";
        }
        r[n][0] = lo;
        r[n][1] = hi;
        n++;
        if (*p == '\0') break;
        if (*p != '+') return ss_healset_not_a_set;
        p++;
    }
    qsort(r, (size_t)n, sizeof r[0], cmp_range);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && (long)r[i][0] <= (long)out->hi[m - 1] + 1) { /* overlapping or adjacent: one range */
            if (r[i][1] > out->hi[m - 1]) out->hi[m - 1] = r[i][1];
            continue;
        }
        if (m == SS_HEAL_RANGES) return "has more separate ranges than 16";
        out->lo[m] = r[i][0];
        out->hi[m] = r[i][1];
        m++;
    }
    out->n = m;
    if (!short_enough(out)) return "is too long a set to name a scenario by (at most 63 characters as written)";
    return NULL;
}

void ss_healset_format(const ss_healset *h, char *buf, size_t size)
{
    size_t used = 0;
    if (size == 0) return;
    buf[0] = '\0';
    for (int i = 0; i < h->n && used < size; i++) {
        int w = h->lo[i] == h->hi[i] ? snprintf(buf + used, size - used, "%s%d", i ? "+" : "", h->lo[i])
                                     : snprintf(buf + used, size - used, "%s%d-%d", i ? "+" : "", h->lo[i], h->hi[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

long ss_healset_count(const ss_healset *h)
{
    long c = 0;
    for (int i = 0; i < h->n; i++) c += (long)h->hi[i] - h->lo[i] + 1;
    return c;
}

int ss_healset_has(const ss_healset *h, int g)
{
    for (int i = 0; i < h->n; i++)
        if (g >= h->lo[i] && g <= h->hi[i]) return 1;
    return 0;
}

int ss_healset_single(const ss_healset *h) { return h->n == 1 && h->lo[0] == h->hi[0] ? h->lo[0] : -1; }

int ss_healset_max(const ss_healset *h) { return h->n > 0 ? h->hi[h->n - 1] : -1; }

void ss_healset_mask(const ss_healset *h, unsigned char *mask, int gpus)
{
    memset(mask, 0, (size_t)gpus);
    for (int i = 0; i < h->n; i++)
        for (int g = h->lo[i]; g <= h->hi[i] && g < gpus; g++) mask[g] = 1;
}
