/* ss_align.c - names of the alignments, and the shortest exact text of a number. */
#include "ss_align.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const align_names[] = {"none", "min", "avg", "mean", "median", "max"};

const char *ss_align_name(ss_align a) { return align_names[a]; }

void ss_format_number(double v, char *buf, int bufsize)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, (size_t)bufsize, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}
