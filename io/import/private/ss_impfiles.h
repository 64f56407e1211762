/* ss_impfiles.h - helpers the importers share: input lists (files and folders), the rank
 * a file name tells ("trace-3-of-8.pfw", "rank3of8", "rank-1"), and the time origin. */
#ifndef SS_IMPFILES_H
#define SS_IMPFILES_H

#include <stdint.h>

#include "ss_status.h"

typedef struct {
    char **path; /* owned */
    int n;
} ss_filelist;

/* Appends path; a folder adds its files whose names end with one of the suffixes (NULL
 * terminated list) and do not begin with '.', in natural order (ss_name_cmp). A folder
 * without any is SS_EDATA naming it. */
ss_status ss_filelist_add(ss_filelist *l, const char *path, const char *const *suffixes);
void ss_filelist_free(ss_filelist *l);
/* The files' natural order: digit runs by value ("rank2" before "rank10"), else bytes;
 * -1, 0, 1. */
int ss_name_cmp(const char *a, const char *b);
/* Sorts l's paths by their base names in natural order (then by the whole path). */
void ss_filelist_sort(ss_filelist *l);

/* The rank in a file's base name: "-R-of-N" (DLIO), "rankRofN", "rank-R", "rank_R",
 * "rankR". Returns 1 and fills *rank (and *of, or -1) when found, else 0. */
int ss_rank_from_name(const char *path, long *rank, long *of);

/* The ranks of the n input files, sorted and distinct (GPU g is the g-th), against the
 * job's rank count `world` (-1 unknown): warns when they are not all of the job's ranks
 * (the trace lacks the others' stalls; names the first GPU that is not the rank of its
 * number). what: the importer's name. */
void ss_check_ranks(const char *what, const long *ranks, int n, long world);

/* The longest gap (s) between the time spans of two files of one job that is taken for
 * clocks of different hosts, not different runs. */
#define SS_SPAN_GAP_MAX 60.0

/* The n files' time spans, from t0[g] to t1[g] (µs since 1970), against one another: the
 * ranks of one job run at one time. Where one ends before another begins: SS_EDATA naming
 * both and the gap when it is longer than SS_SPAN_GAP_MAX, else a warning. what: the
 * importer's name. */
ss_status ss_check_spans(const char *what, char *const *paths, const double *t0, const double *t1, int n);

/* SS_EUSAGE naming the first of argv[0..argc) that looks like an option ("-x", "--x"),
 * for an importer that takes none; else SS_OK. what: the importer's name. */
ss_status ss_import_no_options(const char *what, int argc, char **argv);

/* The whole second at or before t_us (µs since 1970) as an ISO 8601 origin in iso and in
 * µs in *origin_us. Returns -1 (nothing set) when t_us is not from 1970 to 2255. */
int ss_origin_from_us(double t_us, char *iso, int isosize, double *origin_us);

/* Integer value after key (e.g. "read_threads=") in a command line, or -1. */
long ss_cmdline_long(const char *cmd, const char *key);

#endif
