/* ss_csv.h - a small CSV table reader for the importers: header row, comma separated,
 * optional double quotes, CRLF or LF, an optional UTF-8 byte order mark. */
#ifndef SS_CSV_H
#define SS_CSV_H

#include "ss_status.h"

typedef struct {
    char path[4096];
    int ncols;
    char **header;  /* [ncols] */
    long nrows;
    char **cells;   /* [nrows * ncols] */
    long *line;     /* [nrows] line number of each row in the file */
    char *buf;      /* owns the text */
} ss_csv;

/* Reads a whole file. Errors name the file and line: missing or unreadable file, empty
 * file, a row whose field count differs from the header's. */
ss_status ss_csv_read(const char *path, ss_csv *out);
/* Unquotes in place a field that opens with a double quote at s ("" stands for a quote):
 * the text is written from s on and ends at *text_end (the caller puts the NUL there).
 * Returns the character after the closing quote, or NULL when the quote is not closed. */
char *ss_csv_unquote(char *s, char **text_end);
void ss_csv_free(ss_csv *c);
/* ss_strtod_decimal (no hexadecimal, inf or nan), quicker for plain decimals such as
 * 1700000000.123456: the same value and end. */
double ss_csv_strtod(const char *s, char **end);
/* Column index by exact header name, or -1. */
int ss_csv_col(const ss_csv *c, const char *name);
static inline const char *ss_csv_cell(const ss_csv *c, long row, int col) { return c->cells[row * c->ncols + col]; }
/* Parses a cell as a finite number; SS_EDATA naming file, line and column otherwise. */
ss_status ss_csv_number(const ss_csv *c, long row, int col, double *out);

#endif
