/* ss_align.h - the alignments a scenario may apply to a row's fetch times and loader
 * starts (the vocabulary that the scenario file and the models share). */
#ifndef SS_ALIGN_H
#define SS_ALIGN_H

typedef enum {
    SS_ALIGN_NONE = 0, /* alias "false" */
    SS_ALIGN_MIN,
    SS_ALIGN_AVG,    /* starts: midpoint of min and max; fetch: arithmetic mean */
    SS_ALIGN_MEAN,   /* starts only: arithmetic mean */
    SS_ALIGN_MEDIAN, /* fetch only */
    SS_ALIGN_MAX     /* fetch only */
} ss_align;

/* "none", "min", "avg", "mean", "median", "max". */
const char *ss_align_name(ss_align a);

/* The shortest decimal text that reads back as exactly v ("0.3", not "0.29999999999999999"). */
void ss_format_number(double v, char *buf, int bufsize);

#endif
