/* ss_screen.c - the standard output on a terminal: lines of prose wrapped at its width. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ss_report.h"
#include "ss_screen.h"

/* A terminal narrower than this is read as this wide: shorter lines help no one */
#define SCREEN_MIN_WIDTH 40

typedef struct {
    FILE *real;  /* the standard output the process started with */
    int width;   /* its columns */
    char *line;  /* the line being written, up to its end */
    size_t n, cap;
} screen;

static screen g_screen;

void ss_screen_wrap(FILE *out, const char *t, size_t n, int width)
{
    /* a table's row (columns aligned by two runs of spaces or more, past its indent), a
     * ranked line ("  2. pipe W=4 ...", whose columns align with the others') and a line
     * that fits stay whole */
    size_t lead = 0;
    while (lead < n && t[lead] == ' ') lead++;
    size_t num = lead;
    while (num < n && t[num] >= '0' && t[num] <= '9') num++;
    int runs = num > lead && num + 1 < n && t[num] == '.' && t[num + 1] == ' ' ? 2 : 0;
    for (size_t i = lead; i + 2 < n; i++)
        if (t[i] == ' ' && t[i + 1] == ' ' && t[i + 2] == ' ') {
            runs++;
            while (i + 1 < n && t[i + 1] == ' ') i++;
        }
    if (width <= 0 || runs >= 2 || (size_t)ss_report_cols(t, n) <= (size_t)width) {
        fwrite(t, 1, n, out);
        return;
    }
    const size_t indent = lead + 2; /* the lines after the first: under its first word, and in */
    size_t i = 0, used = 0, first = 1;
    while (i < n) {
        size_t j = i;
        while (j < n && t[j] == ' ') j++;
        size_t k = j;
        while (k < n && t[k] != ' ') k++;
        if (k == j) break; /* trailing spaces */
        const size_t gap = first ? j - i : (used ? 1 : 0), word = (size_t)ss_report_cols(t + j, k - j);
        if (!first && used > indent && used + gap + word > (size_t)width) {
            fprintf(out, "\n%*s", (int)indent, "");
            used = indent;
        } else {
            fwrite(t + i, 1, first ? j - i : gap, out);
            used += gap;
        }
        fwrite(t + j, 1, k - j, out);
        used += word;
        first = 0;
        i = k;
    }
}

static ssize_t screen_write(void *cookie, const char *buf, size_t size)
{
    screen *s = cookie;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n') {
            ss_screen_wrap(s->real, s->line, s->n, s->width);
            fputc('\n', s->real);
            s->n = 0;
            continue;
        }
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 256;
            char *p = realloc(s->line, cap);
            if (!p) { /* no room to wrap: the text goes out as it is */
                fwrite(s->line, 1, s->n, s->real);
                s->n = 0;
                fputc(buf[i], s->real);
                continue;
            }
            s->line = p;
            s->cap = cap;
        }
        s->line[s->n++] = buf[i];
    }
    fflush(s->real);
    return ferror(s->real) ? -1 : (ssize_t)size;
}

/* the terminal's columns: its own, else $COLUMNS, else 0 (not wrapped) */
static int terminal_width(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *c = getenv("COLUMNS");
    const int w = c ? atoi(c) : 0;
    return w > 0 ? w : 0;
}

void ss_screen_begin(void)
{
    if (g_screen.real || !isatty(fileno(stdout))) return;
    int w = terminal_width(stdout);
    if (w <= 0) return;
    cookie_io_functions_t io = {NULL, screen_write, NULL, NULL};
    FILE *f = fopencookie(&g_screen, "w", io);
    if (!f) return;
    setvbuf(f, NULL, _IOLBF, 0);
    g_screen.real = stdout;
    g_screen.width = w < SCREEN_MIN_WIDTH ? SCREEN_MIN_WIDTH : w;
    stdout = f;
}

int ss_screen_end(void)
{
    if (!g_screen.real) return 0;
    FILE *f = stdout;
    stdout = g_screen.real;
    int bad = fflush(f) != 0 || ferror(f);
    fclose(f);
    if (g_screen.n) fwrite(g_screen.line, 1, g_screen.n, stdout); /* a last line without its end */
    free(g_screen.line);
    memset(&g_screen, 0, sizeof g_screen);
    return bad;
}
