/* ss_gzline.c - line and chunk reading over zlib's gzFile (plain files pass through). */
#include "ss_gzline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

struct ss_gzline {
    gzFile f;
    char *path;
    char *buf;
    size_t cap;
    long line;
    size_t rest_off, rest_len; /* what followed a lone CR (a line end of its own) in buf */
    int started;               /* a read or line has been handed out (a BOM is only at the start) */
    int truncated;             /* the compressed stream ended before its end (a file cut off) */
};

/* A UTF-8 byte-order mark at the start of the text (editors on Windows write one) is not
 * part of it: the first read or line loses it */
static size_t drop_bom(ss_gzline *r, char *p, size_t n)
{
    if (r->started) return n;
    r->started = 1;
    if (n < 3 || (unsigned char)p[0] != 0xEF || (unsigned char)p[1] != 0xBB || (unsigned char)p[2] != 0xBF) return n;
    memmove(p, p + 3, n - 3);
    return n - 3;
}

ss_status ss_gzline_open(const char *path, ss_gzline **out)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) return ss_fail(SS_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return ss_fail(SS_EIO, "%s: is a folder, not a file", path);
    ss_gzline *r = calloc(1, sizeof *r);
    if (!r) return ss_fail(SS_ENOMEM, "out of memory");
    r->path = strdup(path);
    r->cap = 1 << 16;
    r->buf = malloc(r->cap);
    if (!r->path || !r->buf) {
        ss_gzline_close(r);
        return ss_fail(SS_ENOMEM, "out of memory");
    }
    errno = 0;
    r->f = gzopen(path, "rb");
    if (!r->f) {
        ss_status st = ss_fail(SS_EIO, "%s: cannot open: %s", path, errno ? strerror(errno) : "zlib failure");
        ss_gzline_close(r);
        return st;
    }
    gzbuffer(r->f, 1 << 17); /* 128 KB: importers keep one reader open per rank */
    *out = r;
    return SS_OK;
}

static ss_status truncated(ss_gzline *r)
{
    r->truncated = 1;
    return ss_fail(SS_EDATA, "%s:%ld: the compressed file is truncated", r->path, r->line);
}

static ss_status gz_error(ss_gzline *r)
{
    int code;
    const char *msg = gzerror(r->f, &code);
    if (code == Z_ERRNO) return ss_fail(SS_EIO, "%s:%ld: read error: %s", r->path, r->line, strerror(errno));
    return ss_fail(SS_EDATA, "%s:%ld: damaged compressed data (%s)", r->path, r->line, msg ? msg : "zlib");
}

ss_status ss_gzline_next(ss_gzline *r, char **line, size_t *len)
{
    *line = NULL;
    *len = 0;
    size_t n = 0;
    r->line++;
    if (r->rest_len) { /* the rest of the last read, after a lone CR */
        memmove(r->buf, r->buf + r->rest_off, r->rest_len);
        n = r->rest_len;
        r->rest_len = 0;
        if (r->buf[n - 1] == '\n') goto split; /* it ends where that read ended: at a line end */
    }
    for (;;) {
        if (r->cap - n < 2) {
            if (r->cap >= (size_t)SS_GZLINE_MAX)
                return ss_fail(SS_EDATA, "%s:%ld: line longer than %ld MB", r->path, r->line, SS_GZLINE_MAX >> 20);
            size_t nc = r->cap * 2;
            char *nb = realloc(r->buf, nc);
            if (!nb) return ss_fail(SS_ENOMEM, "%s:%ld: out of memory", r->path, r->line);
            r->buf = nb;
            r->cap = nc;
        }
        /* gzgets stops after a newline or when the buffer is full */
        if (!gzgets(r->f, r->buf + n, (int)(r->cap - n > 0x40000000 ? 0x40000000 : r->cap - n))) {
            int code;
            gzerror(r->f, &code);
            if (code != Z_OK && code != Z_BUF_ERROR) return gz_error(r);
            if (code == Z_BUF_ERROR) return truncated(r);
            if (n == 0) {
                r->line--;
                return SS_OK; /* end of file */
            }
            break;
        }
        size_t got = strlen(r->buf + n);
        /* a NUL byte inside the line: gzgets read further than strlen sees */
        n += got;
        if (n > 0 && r->buf[n - 1] == '\n') break;
        /* no newline: the end of the file, or of what a truncated stream gave before its
         * error (zlib hands out the partial data and records the error) */
        int code;
        gzerror(r->f, &code);
        if (code == Z_BUF_ERROR) return truncated(r);
        if (code != Z_OK) return gz_error(r);
        if (got == 0 || (r->cap - n > 1 && !gzeof(r->f))) {
            /* short read without a newline and not at the end: a NUL byte */
            return ss_fail(SS_EDATA, "%s:%ld: contains a NUL byte (not a text file)", r->path, r->line);
        }
        if (gzeof(r->f)) break;
    }
split:;
    /* a CR not followed by LF ends a line too (files with CR-only line ends); an LF is
     * only ever the last byte, so the first CR is either lone or that line's CRLF */
    char *cr = memchr(r->buf, '\r', n);
    if (cr && cr + 1 < r->buf + n && cr[1] != '\n') {
        r->rest_off = (size_t)(cr + 1 - r->buf);
        r->rest_len = n - r->rest_off;
        n = (size_t)(cr - r->buf);
    }
    if (n > 0 && r->buf[n - 1] == '\n') n--;
    if (n > 0 && r->buf[n - 1] == '\r') n--;
    n = drop_bom(r, r->buf, n);
    r->buf[n] = '\0';
    *line = r->buf;
    *len = n;
    return SS_OK;
}

ss_status ss_gzline_read(ss_gzline *r, char *buf, size_t n, size_t *got)
{
    *got = 0;
    if (n > 0x40000000) n = 0x40000000;
    int k = gzread(r->f, buf, (unsigned)n);
    if (k < 0) return gz_error(r);
    if (k == 0) {
        int code;
        gzerror(r->f, &code);
        if (code == Z_BUF_ERROR) {
            r->truncated = 1;
            return ss_fail(SS_EDATA, "%s: the compressed file is truncated", r->path);
        }
    }
    *got = drop_bom(r, buf, (size_t)k);
    return SS_OK;
}

long ss_gzline_lineno(const ss_gzline *r) { return r->line; }
int ss_gzline_truncated(const ss_gzline *r) { return r->truncated; }
const char *ss_gzline_path(const ss_gzline *r) { return r->path; }

void ss_gzline_close(ss_gzline *r)
{
    if (!r) return;
    if (r->f) gzclose(r->f);
    free(r->buf);
    free(r->path);
    free(r);
}
