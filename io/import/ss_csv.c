/* ss_csv.c - CSV tokenising in place. */
#include "ss_csv.h"
#include "ss_number.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 10^0 .. 10^22: exact doubles */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

double ss_csv_strtod(const char *s, char **end)
{
    /* -?DIGITS(.DIGITS)? with at most 2^53 as the digits' whole number: that number and the
     * power of ten are exact doubles, and one division rounds as strtod does */
    const char *p = s;
    const int neg = *p == '-';
    p += neg;
    unsigned long long m = 0;
    int nd = 0, nf = 0;
    while (*p >= '0' && *p <= '9' && nd < 19) m = m * 10 + (unsigned)(*p++ - '0'), nd++;
    if (*p == '.' && nd > 0) {
        const char *f = ++p;
        while (*p >= '0' && *p <= '9' && nd < 19) m = m * 10 + (unsigned)(*p++ - '0'), nd++;
        nf = (int)(p - f);
        if (nf == 0) nd = 0; /* "5." : strtod's */
    }
    /* a letter or dot next (an exponent, 0x..., 1.2.3) goes to strtod, whose end it is */
    if (nd > 0 && nd < 19 && !isalnum((unsigned char)*p) && *p != '.' && nf <= 22 && m <= (1ULL << 53)) {
        const double v = nf ? (double)m / pow10_exact[nf] : (double)m;
        *end = (char *)p;
        return neg ? -v : v;
    }
    return ss_strtod_decimal(s, end);
}

char *ss_csv_unquote(char *s, char **text_end)
{
    char *w = s++;
    for (;;) {
        if (*s == '\0') return NULL;
        if (*s == '"' && s[1] == '"') {
            *w++ = '"';
            s += 2;
        } else if (*s == '"') {
            *text_end = w;
            return s + 1;
        } else {
            *w++ = *s++;
        }
    }
}

/* Splits one record starting at *p into fields (NUL-terminated in place); advances *p to
 * the next record. Returns the number of fields, or -1 for an unterminated quote. */
static int split_record(char **p, char **fields, int maxf, int *nf_total)
{
    char *s = *p;
    int n = 0;
    for (;;) {
        char *start = s, *w = s;
        if (*s == '"') {
            if (!(s = ss_csv_unquote(s, &w))) return -1;
            while (*s && *s != ',' && *s != '\n' && *s != '\r') s++;
        } else {
            while (*s && *s != ',' && *s != '\n' && *s != '\r') s++;
            w = s;
        }
        char end = *s;
        *w = '\0';
        if (n < maxf) fields[n] = start;
        n++;
        if (end == ',') {
            s++;
            continue;
        }
        if (end == '\r') {
            s++;
            if (*s == '\n') s++;
        } else if (end == '\n') {
            s++;
        }
        break;
    }
    *p = s;
    *nf_total = n;
    return n;
}

static int blank_line(const char *s) { return *s == '\n' || *s == '\r'; }

ss_status ss_csv_read(const char *path, ss_csv *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    struct stat sb;
    if (stat(path, &sb) != 0) return ss_fail(SS_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return ss_fail(SS_EIO, "%s: is a folder, not a CSV file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return ss_fail(SS_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t size = (size_t)sb.st_size;
    c->buf = malloc(size + 1);
    if (!c->buf) {
        fclose(f);
        return ss_fail(SS_ENOMEM, "%s: out of memory", path);
    }
    size_t got = fread(c->buf, 1, size, f);
    fclose(f);
    c->buf[got] = '\0';
    if (strlen(c->buf) != got) return ss_fail(SS_EDATA, "%s: contains a NUL byte (not a CSV text file)", path);
    char *p = c->buf;
    if (got >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    if (*p == '\0') return ss_fail(SS_EDATA, "%s: the file is empty (no header row)", path);

    /* header: room for every comma of the first line */
    int cap = 1, nf;
    for (const char *q = p; *q && *q != '\n'; q++) cap += *q == ',';
    c->header = malloc((size_t)cap * sizeof *c->header);
    if (!c->header) return ss_fail(SS_ENOMEM, "%s: out of memory", path);
    if (split_record(&p, c->header, cap, &nf) < 0) return ss_fail(SS_EDATA, "%s:1: unterminated quote", path);
    if (nf > cap) nf = cap;
    c->ncols = nf;

    /* count lines for the row arrays */
    /* records end at LF, CRLF or a lone CR, as split_record reads them */
    long maxrows = 1;
    for (const char *q = p; *q; q++) maxrows += *q == '\n' || (*q == '\r' && q[1] != '\n');
    c->cells = malloc((size_t)maxrows * (size_t)c->ncols * sizeof *c->cells);
    c->line = malloc((size_t)maxrows * sizeof *c->line);
    char **tmp = malloc((size_t)(c->ncols + 1) * sizeof *tmp);
    if (!c->cells || !c->line || !tmp) {
        free(tmp);
        return ss_fail(SS_ENOMEM, "%s: out of memory", path);
    }
    long line = 1;
    while (*p) {
        line++;
        if (blank_line(p)) {
            p += (*p == '\r' && p[1] == '\n') ? 2 : 1;
            continue;
        }
        if (split_record(&p, tmp, c->ncols + 1, &nf) < 0) {
            free(tmp);
            return ss_fail(SS_EDATA, "%s:%ld: unterminated quote", path, line);
        }
        if (nf != c->ncols) {
            free(tmp);
            return ss_fail(SS_EDATA, "%s:%ld: row has %d fields, the header has %d", path, line, nf, c->ncols);
        }
        memcpy(c->cells + c->nrows * c->ncols, tmp, (size_t)c->ncols * sizeof *tmp);
        c->line[c->nrows++] = line;
    }
    free(tmp);
    if (c->nrows == 0) return ss_fail(SS_EDATA, "%s: has a header but no data rows", path);
    return SS_OK;
}

void ss_csv_free(ss_csv *c)
{
    free(c->header);
    free(c->cells);
    free(c->line);
    free(c->buf);
    memset(c, 0, sizeof *c);
}

int ss_csv_col(const ss_csv *c, const char *name)
{
    for (int i = 0; i < c->ncols; i++)
        if (!strcmp(c->header[i], name)) return i;
    return -1;
}

ss_status ss_csv_number(const ss_csv *c, long row, int col, double *out)
{
    const char *s = ss_csv_cell(c, row, col);
    char *end;
    errno = 0;
    double v = ss_csv_strtod(s, &end); /* no hexadecimal, inf or nan */
    while (*end == ' ') end++;
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return ss_fail(SS_EDATA, "%s:%ld: column '%s' holds '%s', not a finite number", c->path, c->line[row],
                       c->header[col], s);
    *out = v;
    return SS_OK;
}
