/* ss_import_pytorch.h - the PyTorch recorder importer's private types and functions. */
/* Shared by its record reader, per-rank state machine, statistics and importer
 * (io/import/ss_import_pytorch*.c). */
#ifndef SS_IMPORT_PYTORCH_H
#define SS_IMPORT_PYTORCH_H

#include <stdint.h>
#include <stdio.h>

#include "ss_import.h"
#include "ss_status.h"
#include "ss_trace.h"

#define PT_LINE 4096
#define PT_PATH 4200
#define PT_FIELDS 8

/* One record file read line by line, split at commas. */
typedef struct {
    FILE *f;
    char *path;
    long line;
    char buf[PT_LINE];
    char *field[PT_FIELDS];
    int nfield;
    int pushed; /* the current line is to be returned again */
    int version; /* the record format: 1, 2 (fetch records carry the fetch's CPU time), 3
                  * (and the waits for a core) or 4 (a pass the loop left ends with 'left') */
    int left; /* the current record is a 'left' (read as PT_END) */
} pt_file;

typedef enum { PT_EOF, PT_META, PT_EPOCH, PT_BATCH, PT_END, PT_FETCH } pt_kind;

/* A fetch record at the head of one fetch source (a worker file, or the rank file when
 * the loader had no workers). */
typedef struct {
    pt_file file;
    int valid; /* head holds a record */
    int eof;
    long p, k;
    int worker;
    int64_t start, ready;
    int64_t cpu; /* CPU time of the fetching thread, ns; -1 not recorded (format 1) */
    int64_t wait; /* its wait for a core, ns; -1 not recorded (formats 1, 2, or no schedstat) */
    long line;
    int seen;  /* a record was read: p, k and line are the last one's */
} pt_fetch;

typedef struct {
    long p, k;
    int64_t ask, got;
    int64_t cpu; /* the training process's CPU time at ask, ns; -1 not recorded (format 1) */
    int64_t wait; /* the loop thread's total wait for a core at ask, ns; -1 not recorded */
    long line;
} pt_batch;

/* the kinds of time per batch or iteration whose per-rank medians the trace keeps */
enum { PT_CPU_FETCH, PT_CPU_LOOP, PT_WAIT_FETCH, PT_WAIT_LOOP, PT_KINDS };

/* CPU times per batch or iteration: a histogram for their median (PT_CPU_BINS bins of 1 %
 * from PT_CPU_LO seconds; bin 0 holds everything shorter), and how many had none. */
typedef struct {
    int32_t *bins;
    long n, missing;
} pt_hist;

/* Passes of one rank's record that the import leaves out (--skip-pass R:P, repeatable). */
#define PT_SKIP_MAX 64
typedef struct {
    int n;
    long rank[PT_SKIP_MAX], pass[PT_SKIP_MAX];
    int used[PT_SKIP_MAX]; /* the pass was found and left out */
} pt_state_skips;

typedef struct {
    int rank;
    pt_file main;
    pt_fetch *src;
    int nsrc;
    long workers, prefetch, batch_size, world;
    long per_epoch; /* meta batches_per_epoch (len(loader)), -1 unknown */
    long persistent; /* meta persistent_workers (0 or 1), -1 unknown */
    char start_method[16]; /* meta start_method (fork, spawn, forkserver), "" unknown */
    int iterable;    /* meta dataset: 1 iterable (its fetches' batch numbers may skip), 0 map-style */
    /* in the pass being read (trk_pass; -1 before the first): each worker's last batch that
     * the loop took (last_k, -1 none), and the batches the loop took (trk_n) */
    long *last_k;
    long trk_pass, trk_n;
    int64_t pass_t0; /* the pass being read: its 'epoch' record's time */
    int64_t stop_ns; /* the last pass that ended in next(): how long that next() took (format 5:
                      * its workers' shutdown), ns; -1 not recorded */
    int64_t offset;
    int no_offset; /* meta clock_offset_source none: the offset was not measured */
    char host[256], torch[64];
    long pid; /* meta pid: the recording process (0: not recorded) */
    int64_t first_epoch_ns;
    /* the fetches' CPU times and the loop's per iteration (PT_CPU_FETCH, PT_CPU_LOOP), and
     * their waits for a core (PT_WAIT_*): histograms for their medians, and the rows
     * without one */
    pt_hist cpu[PT_KINDS];
    /* the waits for a core of each pass's first W·P fetches (those the loader sends out at
     * once when a pass starts): their sum (s) and count, and how many had none */
    double start_wait;
    long start_n, start_missing;
    long cpus;             /* meta cpus: cores the rank may run on (-1: not recorded) */
    char cpu_set[256];     /* meta cpu_set: their list */
    /* the loop state */
    long pass, epoch, npass;
    long last_p; /* the pass of the last row pt_next read of this rank */
    int have_cur;
    int cut; /* its file ended within a batch (no next ask: the run crashed or was killed) */
    int running; /* its recording process still ran on this host when the import read it */
    pt_batch cur;
    int *warned_open; /* the import's: such a pass was warned about (once for all ranks) */
    pt_state_skips *skips; /* the passes --skip-pass leaves out (every rank's) */
    int skipping;     /* the pass being read is left out: its records are passed over */
    int any_skipped;  /* a pass of this rank was left out */
    long raw_label;   /* the label the file gave the pass before (-1 before the first) */
    int nraw;         /* passes read, left out or not */
} pt_rank;

typedef struct {
    char prefix[PT_PATH];
    long nfiles; /* files opened so far (for the descriptor limit) */
    pt_rank **r; /* [G] */
    int G;
    char **inputs;
    int ninputs;
    int *loader_workers;
    double *fetch_cpu; /* [G] each rank's median fetch CPU time (the trace's /fetch_cpu_time) */
    double *loop_cpu;  /* [G] each rank's median CPU per iteration of its training process */
    double *fetch_wait, *loop_wait; /* [G] their medians of the waits for a core (format 3) */
    double *fetch_wait_start; /* [G] the mean wait for a core of the passes' first W·P fetches */
    int *cpu_pool, *cpu_pool_cores; /* [G] the first rank on the same host and cores, their cores */
    double *host_busy, *host_job;  /* [G] the trace's /host_cpu_busy and /host_cpu_job */
    double *probe; /* [6][G] the probes' lead, start-up, delivery and stop, then the second
                    * pass's lead and start-up (NaN from a version 1 file) (/probe_*), s */
    double *pass_start; /* [epochs][G] each rank's 'epoch' record time for each epoch of the
                         * trace, s since the origin (the trace's /pass_start_time); room for pass_cap */
    double *pass_stop;  /* [epochs][G] how long each rank's next() that ended the epoch's pass
                         * took, s (/pass_stop_time); room for pass_cap */
    int stops_known;    /* 1 while every pass before the current one had its stop recorded */
    long pass_cap;
    int64_t origin_ns;
    long rows, epochs, last_epoch;
    long epoch_rows; /* rows of the epoch being read */
    long left_rows;  /* batches at which the loop left a pass (no step time): not in the trace */
    int done;
    int warned_open; /* a pass without an 'end' record was warned about */
    /* workers of an IterableDataset that ran out early: how many (per worker and pass), and
     * the first: rank, worker, pass, its last batch, the pass's batches */
    long early_n;
    long early[5];
    /* from each pass's start to its first fetch's start (the workers starting), over the
     * ranks with workers and their passes: the sum (ns) and count; the longest, its rank */
    double startup_sum;
    long startup_n, startup_rank;
    int64_t startup_max;
    pt_state_skips skips; /* --skip-pass R:P */
    char cut_note[160]; /* the trace's import_note where a rank's file was cut off ("": none) */
} pt_state;

/* ns: a fetch's ready time may lie this much after the loop got its batch (the worker and
 * its training process read one host's clock: the batch is ready before it is sent) */
#define PT_READY_SLACK_NS 1000000
#define PT_CPU_LO 1e-7   /* seconds: the histogram's first bin holds shorter CPU times */
#define PT_CPU_BINS 2560 /* of 1 % each from PT_CPU_LO: up to 1e4 s */

/* Times are nanoseconds since 1970 up to PT_TIME_MAX (the year 2096) and clock offsets at
 * most PT_OFFSET_MAX (31 years) either way, so that no sum or difference overflows. */
#define PT_TIME_MAX 4000000000000000000LL
#define PT_OFFSET_MAX 1000000000000000000LL

typedef struct {
    long epoch, p, k;
    int64_t ask, got, next_ask;
    int64_t ask_cpu, next_cpu; /* the training process's CPU time at the two asks, ns (-1: none) */
    int64_t ask_wait, next_wait; /* the loop thread's wait for a core at the two asks, ns (-1: none) */
    long line;
    /* the last batch of a pass the loop left before its end (a break, an exception, a
     * script that ended mid-epoch): its 'end' came when the loop left, not when the step
     * of this batch ended, so the batch has no step time (left out of the trace) */
    int left;
} pt_row;

/* 1 when batch (p1, k1) comes before batch (p2, k2) */
static inline int pt_key_less(long p1, long k1, long p2, long k2) { return p1 < p2 || (p1 == p2 && k1 < k2); }

/* ---- the record reader (ss_import_pytorch_record.c) ---- */

/* Opens a record file (f zeroed by the caller); pt_close_file closes it. */
ss_status pt_open_file(pt_file *f, const char *path);
void pt_close_file(pt_file *f);
/* Reads the next non-empty line into fields; *kind receives its record type. */
ss_status pt_read(pt_file *f, pt_kind *kind);
/* Field i of the current line as a time (ns since 1970, up to PT_TIME_MAX) or as a whole
 * number in [lo, hi]; what names it in the message. */
ss_status pt_time(const pt_file *f, int i, const char *what, int64_t *out);
ss_status pt_long(const pt_file *f, int i, const char *what, long lo, long hi, long *out);
/* Checks the first line of a record file. */
ss_status pt_header(pt_file *f);
/* Reads a rank file's meta lines and its first epoch line (pushed back). */
ss_status pt_rank_header(pt_rank *R);
/* Moves fetch source s's head to its next fetch record (or EOF). */
ss_status pt_fetch_advance(pt_fetch *s);
/* Fields i and i + 1 of a batch or end record: the training process's CPU time and its
 * loop thread's wait for a core, ns (-1: not recorded). */
ss_status pt_loop_cpu(const pt_file *f, int i, int64_t *out, int64_t *wait);

/* ---- the per-rank state machine (ss_import_pytorch_rank.c) ---- */

/* 1 when rank's pass is listed to be left out */
int pt_skip_listed(const pt_state_skips *k, long rank, long pass);
/* 1 when rank's pass is to be left out; marks it found */
int pt_skipped(pt_state_skips *k, long rank, long pass);
/* The fetch record of batch (p, k) of rank R (line: the batch's line, for the messages). */
ss_status pt_find_fetch(pt_rank *R, long p, long k, long line, pt_fetch **out);
/* The next (batch, next ask) of rank R's loop; *got = 0 at the end of the file. */
ss_status pt_next_row(pt_rank *R, pt_row *row, int *got);
/* The rows the import will write when it succeeds (rank 0's file at path). */
ss_status pt_count_rows(const char *path, const pt_state_skips *skips, long *rows);
/* *within stays 1 when every rank's record ends within the pass of the last row every rank
 * has, else 0. */
ss_status pt_rest_within(pt_state *S, int *within);

/* ---- the statistics (ss_import_pytorch_stats.c) ---- */

/* Counts one CPU time (ns; < 0: none recorded) into h. */
void pt_cpu_add(pt_hist *h, int64_t ns);
/* The batches a rank's loader sends out at once as a pass starts (0 without workers). */
long pt_window(const pt_rank *R);
/* Warns of a recorded epoch with fewer rows than the loader's batches per epoch. */
void pt_check_epoch(const pt_state *S);
/* The loop took the batch of row from rank R's worker fetch f. */
void pt_took(pt_state *S, pt_rank *R, const pt_row *row, const pt_fetch *f);
/* At the end: the trace's loader_workers of the workers that took part, the workers'
 * start-up and early ends said, the trace's CPU datasets. */
ss_status pt_idle_workers(pt_state *S, ss_trace_meta *m);
void pt_say_workers(pt_state *S);
ss_status pt_cpu_meta(pt_state *S, ss_trace_meta *m);
/* The host's busy cores and the job's share of them (/host_cpu_busy, /host_cpu_job) from
 * the ranks' PREFIX.rank<R>.host.csv files; none when a rank has none. */
ss_status pt_host_meta(pt_state *S, ss_trace_meta *m);
/* At the end, where every rank loaded synchronously: each rank's probe of one loader worker
 * (PREFIX.rank<R>.probe.csv) into the meta's /probe_* arrays, when every rank has one. */
ss_status pt_probe_meta(pt_state *S, ss_trace_meta *m);

#endif
