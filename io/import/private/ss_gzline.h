/* ss_gzline.h - reads a text file line by line through zlib (gzip-compressed or plain),
 * with one reusable line buffer: memory is the longest line, not the file. */
#ifndef SS_GZLINE_H
#define SS_GZLINE_H

#include <stddef.h>

#include "ss_status.h"

typedef struct ss_gzline ss_gzline;

/* Longest line accepted (bytes); a longer one is an error naming file and line. */
#define SS_GZLINE_MAX (64L << 20)

/* Opens path (a folder, a missing or unreadable file are SS_EIO naming it). */
ss_status ss_gzline_open(const char *path, ss_gzline **out);
/* The next line without its LF/CRLF, NUL-terminated, in *line (valid until the next call)
 * and its length in *len. Returns SS_OK with *line = NULL at the end of the file; SS_EIO or
 * SS_EDATA (NUL byte, line too long, damaged gzip data) naming file and line. */
ss_status ss_gzline_next(ss_gzline *r, char **line, size_t *len);
/* 1 after a call failed because the compressed stream ends before its end (a file cut off
 * while it was written): the lines returned before are whole. */
int ss_gzline_truncated(const ss_gzline *r);
/* Line number of the line last returned (1-based). */
long ss_gzline_lineno(const ss_gzline *r);
const char *ss_gzline_path(const ss_gzline *r);
/* Reads up to n raw bytes (for parsers that take chunks): *got = 0 at the end. */
ss_status ss_gzline_read(ss_gzline *r, char *buf, size_t n, size_t *got);
void ss_gzline_close(ss_gzline *r);

#endif
