/* ss_screen.h - the standard output on a terminal: lines of prose wrapped at its width. */
#ifndef SS_SCREEN_H
#define SS_SCREEN_H

#include <stdio.h>

/* Where the standard output is a terminal of known width (its own, or $COLUMNS), stdout
 * becomes a stream that wraps each line of prose wider than the terminal at its spaces;
 * the lines after the first are indented two more than the first. A table's row (two
 * runs of three spaces or more past its indent) and a line that fits are written as
 * they are. A file or
 * a pipe gets every line as it was printed. */
void ss_screen_begin(void);
/* stdout as it was, the last partial line written; 1 when the wrapped stream failed. */
int ss_screen_end(void);
/* t[0..n), one line without its end, wrapped at width columns as ss_screen_begin says
 * (width <= 0: as it is). */
void ss_screen_wrap(FILE *out, const char *t, size_t n, int width);

#endif
