/* ss_trace.h - the stalltrace HDF5 schema (io/trace/FORMAT.md): metadata, slabs of rows, and the
 * reader and writer. Readers validate the schema and every value they hand out. */
#ifndef SS_TRACE_H
#define SS_TRACE_H

#include <stdint.h>

#include "ss_comm.h"
#include "ss_status.h"

#define SS_TRACE_SCHEMA "stalltrace"
#define SS_TRACE_VERSION 1

/* Root attributes. Optional strings are "" and optional ints -1 when unknown. */
/* The log_type of a PyTorch profiler trace (the profiler importer writes it) */
#define SS_LOG_TYPE_PROFILER "pytorch-profiler"

typedef struct {
    int gpus;
    long iterations;      /* rows; 0 in ss_trace_create: unknown, counted while rows are appended */
    char time_origin[40]; /* ISO 8601 with microseconds */
    char log_type[64], dataset[64], augmentation[64], model[64];
    char source[512];
    long batch_size, workers, threads, epochs;
    long prefetch_factor;  /* the loader's prefetch factor (batches per worker), -1 unknown */
    char fetch_times[16];  /* "" or "measured": fetch columns hold measured data; "absent":
                            * only iteration and stall times were measured (profiler traces) */
    char start_method[16]; /* how the loader's workers were started: fork, spawn, forkserver ("":
                            * unknown) */
    long persistent_workers; /* 1: the workers were kept across epochs, 0: started at every
                              * epoch, -1 unknown */
    int *loader_workers;   /* [gpus] loader worker processes per GPU (0: synchronous loading),
                            * NULL when unknown. Owned by whoever filled it; the reader's copy
                            * lives as long as the trace file. */
    double *fetch_cpu;     /* [gpus] CPU seconds the fetching thread spent on a batch (median
                            * over the GPU's batches): the fetch's decoding and collating, the
                            * part that faster storage does not shorten. NULL when not
                            * recorded. Stored as the dataset /fetch_cpu_time; owned as
                            * loader_workers is. */
    double *loop_cpu;      /* [gpus] CPU seconds of the training process per iteration (median;
                            * all its threads, not its loader workers); /loop_cpu_time */
    double *fetch_wait;    /* [gpus] seconds the fetching thread was runnable but waiting for a
                            * core during a batch's fetch (median; the kernel's run delay,
                            * recorder format 3); /fetch_wait_time. NULL when not recorded */
    double *loop_wait;     /* [gpus] the same for the training loop's thread per iteration;
                            * /loop_wait_time */
    double *fetch_wait_start; /* [gpus] the mean wait for a core of the first W·P fetches of each
                            * epoch (those the loader sends out at once as it starts, with its
                            * workers; recorder format 3); /fetch_wait_start_time, only with
                            * fetch_wait. NULL when not recorded */
    double *host_busy;     /* [gpus] the share (0 to 1) of the cores that the GPU's processes may
                            * run on that was busy while the job was recorded, every process of
                            * the host together; /host_cpu_busy. NULL when not recorded */
    double *host_job;      /* [gpus] the share of those cores that the job's own processes on
                            * them used (all its ranks there, with their loader workers);
                            * /host_cpu_job. Both NULL or both set */
    int *cpu_pool;         /* [gpus] the first GPU whose processes run on the same pool of cores
                            * (a host, or one rank's CPU binding); /cpu_pool */
    int *cpu_pool_cores;   /* [gpus] the cores of that pool; /cpu_pool_cores. Both NULL or both set */
    double *pass_start;    /* [passes][gpus] when each GPU's loop began each epoch's pass over the
                            * loader (iter(loader)), s since time_origin, one row per epoch of
                            * the timeline in order; /pass_start_time. NULL when not recorded;
                            * owned as loader_workers is */
    double *pass_stop;     /* [passes][gpus] how long the loop's next() that ended each epoch's pass
                            * took (the workers' shutdown), s; the last row ends no gap and may
                            * be 0; /pass_stop_time. NULL when not recorded; needs pass_start */
    long passes;           /* their rows (0 when NULL) */
    /* [gpus] what one loader worker would have cost a loader that loaded in the training
     * process, from the recorder's probe (a worker started as the loader's would be, over the
     * dataset's first batches): the time in iter(loader) (/probe_lead_time), from its end to
     * the worker's first fetch (/probe_startup_time), from the ask of a ready batch to the
     * loop having it (/probe_delivery_time), and the next() that ends the pass, the worker's
     * shutdown (/probe_stop_time). All four or none, only where every GPU loaded
     * synchronously; owned as loader_workers is */
    double *probe_lead, *probe_startup, *probe_delivery, *probe_stop;
    /* [gpus] the same probe's second pass, as a later epoch starts its workers: its time in
     * iter(loader) (/probe_next_lead_time) and to the worker's first fetch
     * (/probe_next_startup_time). Both or neither, only with the four above; owned as
     * loader_workers is */
    double *probe_next_lead, *probe_next_startup;
    char probe_start_method[16]; /* how the probe's worker started ("" without a probe) */
    char import_note[160]; /* what the import found cut short: the job still ran, or it crashed
                            * ("" for a whole record); run and info warn of it */
} ss_trace_meta;

void ss_trace_meta_init(ss_trace_meta *m);

/* One optional root attribute of the trace: the one list that the writer, the reader and
 * `stallsim info` go through. */
typedef struct {
    const char *name;   /* attribute name */
    int is_string;      /* 1: UTF-8 string (char[] field); 0: 64-bit integer (long field, -1 unknown) */
    size_t offset;      /* of the field in ss_trace_meta */
    size_t size;        /* of the field (strings) */
    const char *note;   /* printed after the value by `info` ("" none) */
    long lo, hi;        /* integers: the values a reader accepts */
} ss_trace_attr;

/* The optional root attributes (not schema, schema_version, gpus, iterations, time_origin,
 * loader_workers), in the order `info` prints them; *n receives their count. */
const ss_trace_attr *ss_trace_attrs(int *n);

/* One optional root dataset of one value per GPU (float64 seconds, or int32), held in the
 * meta as a pointer field: the one list that the writer, the reader and `info` go through. */
typedef struct {
    const char *name;   /* dataset name under the root */
    int is_float;       /* 1: double * field (finite seconds >= 0); 0: int * field */
    size_t offset;      /* of the pointer field in ss_trace_meta */
    const char *note;   /* printed after the values of a float array by `info` */
    const char *units;  /* the dataset's "units" attribute */
    double max;         /* floats: the largest value a reader accepts (seconds or a share) */
    const char *range;  /* floats: that range in words, for the message */
} ss_trace_gpu_array;

/* The optional per-GPU datasets, in the order `info` prints them; *n receives their count. */
const ss_trace_gpu_array *ss_trace_gpu_arrays(int *n);

/* 1 when the trace's fetch columns hold measured fetch times (not an "absent" trace). */
int ss_trace_meta_has_fetch(const ss_trace_meta *m);

/* 1 when some GPU of the trace loads with worker processes, 0 when every GPU loads
 * synchronously, -1 when the trace does not record its loader_workers. */
int ss_trace_meta_has_workers(const ss_trace_meta *m);

/* 1 when the trace records the CPU times of fetches and steps and its pools of cores
 * (/fetch_cpu_time, /loop_cpu_time, /cpu_pool with /cpu_pool_cores: recorder format 2). */
int ss_trace_meta_has_cpu(const ss_trace_meta *m);

/* The pool of cores (its first GPU, *gpu) where other processes than the job's used the
 * largest share of the cores while the job was recorded (*other, from /host_cpu_busy less
 * /host_cpu_job), and the job's own share there (*job). 0 when the trace does not record
 * them. */
int ss_trace_meta_host_others(const ss_trace_meta *m, int *gpu, double *other, double *job);
/* The share of the cores that other processes used from which a trace counts as recorded
 * beside them: run, compare and the answer name it */
#define SS_TRACE_HOST_OTHERS_NAMED 0.05
/* The largest compressed chunk a trace's dataset may have, bytes: each read of a part of
 * one inflates it whole */
#define SS_TRACE_MAX_FILTERED_CHUNK (64.0 * 1048576.0)

/* One line (no newline) that says it: "other processes used 35 % of the 2 cores of GPU 0
 * while the job was recorded (the job 40 %)". "" when not recorded. */
void ss_trace_meta_host_line(const ss_trace_meta *m, char *buf, size_t size);

/* 1 when the attributes carry both marks `gen` writes: log_type = "synthetic" and a source
 * that begins "stallsim gen" (an importer takes log_type from a file's name) */
int ss_trace_meta_is_synthetic(const ss_trace_meta *m);

/* Rows [row0, row0 + n) of the timeline, row-major [n][gpus] for the per-GPU series. */
typedef struct {
    long row0, n, cap;
    int gpus;
    int32_t *epoch;
    int64_t *index;
    double *fetch_start, *fetch_time, *train_start, *iteration_time, *stall_time;
    /* [n] filled by the reads: each row's sum of fetch_start and of fetch_time over its
     * GPUs, added in GPU order from 0 (so that the row statistics need not add them) */
    double *sum_fetch_start, *sum_fetch_time;
    /* [n][SS_SLAB_NEX] filled by the reads: each row's extremes over its GPUs (max and
     * min are exact in any order), in the order of the SS_EX_ names */
    double *extremes;
} ss_slab;

enum { SS_EX_START_MIN, SS_EX_START_MAX, SS_EX_FETCH_MIN, SS_EX_FETCH_MAX, SS_EX_STALL_MIN, SS_EX_STALL_MAX,
       SS_EX_ITER_MAX, SS_SLAB_NEX };

ss_status ss_slab_alloc(ss_slab *s, long cap, int gpus);
void ss_slab_free(ss_slab *s);
/* A slab whose arrays lie in one buffer of ss_slab_bytes(cap, gpus) bytes that the
 * caller owns (a shared-memory window): never passed to ss_slab_free. */
size_t ss_slab_bytes(long cap, int gpus);
void ss_slab_place(ss_slab *s, void *mem, long cap, int gpus);
/* Rows [lo, lo + n) of s as a slab of capacity n over the same memory (a part to read). */
void ss_slab_view(const ss_slab *s, long lo, long n, ss_slab *view);
/* Bytes that one row of a slab takes. */
size_t ss_slab_row_bytes(int gpus);

typedef struct ss_trace_file ss_trace_file;

/* 1 when path is an HDF5 file with a root 'schema' attribute (a trace, valid or not). */
int ss_trace_is_trace(const char *path);
/* 1 when path is a trace that `gen` wrote (root attributes log_type = "synthetic" and a
 * source that begins "stallsim gen"): the one
 * kind of trace gen replaces, so that a recorded or imported trace is never lost to it. */
int ss_trace_is_synthetic(const char *path);
/* The `source` attribute of the trace at path into out (n bytes, cut to fit): 0, or -1 when
 * path is not a trace or has none (out then ""). */
int ss_trace_source_of(const char *path, char *out, size_t n);

/* Opens and validates a trace (schema, version, shapes, types, attributes). Collective
 * over c when c->mpi (each rank opens the file for its own reads, with the POSIX driver, or
 * through MPI-IO when STALLSIM_TRACE_MPIO is set); otherwise local. */
ss_status ss_trace_open(const char *path, const ss_comm *c, ss_trace_file **out);
const ss_trace_meta *ss_trace_meta_of(const ss_trace_file *t);
const char *ss_trace_path(const ss_trace_file *t);
/* Rows per HDF5 chunk of the timeline datasets. */
long ss_trace_chunk_rows(const ss_trace_file *t);
/* Reads rows [row0, row0+n) into s (s->cap >= n) and checks them: finite values,
 * non-negative durations, rows sorted by (epoch, index). Independent (not collective). */
ss_status ss_trace_read(ss_trace_file *t, long row0, long n, ss_slab *s);
/* Like ss_trace_read; train_start = 0 reads everything but train_start, which the replay
 * models other than the pipeline do not use (s->train_start is left as it was): a fifth
 * less to read. */
ss_status ss_trace_read_cols(ss_trace_file *t, long row0, long n, int train_start, ss_slab *s);
/* Reads rows [row0, row0+n) of GPUs [g0, g0+ng) of fetch_start and fetch_time into
 * row-major [n][ng] buffers, and the rows' epochs (may be NULL), with the same checks. */
ss_status ss_trace_read_fetch_columns(ss_trace_file *t, long row0, long n, int g0, int ng, double *fetch_start,
                                      double *fetch_time, int32_t *epoch);
/* Likewise for train_start (NULL: not read), iteration_time and stall_time (the loop's
 * side, for the calibration). */
ss_status ss_trace_read_loop_columns(ss_trace_file *t, long row0, long n, int g0, int ng, double *train_start,
                                     double *iteration_time, double *stall_time);
/* Reads the epochs of rows [row0, row0+n) (checked to fit 32 bits; their order is
 * checked with the slabs). Independent (not collective). */
ss_status ss_trace_read_epochs(ss_trace_file *t, long row0, long n, int32_t *out);
/* Reads the epoch column: *found = 1 when epoch `want` occurs; list receives the epochs
 * present ("1, 2", at most 12, then "..."). Independent (not collective). */
ss_status ss_trace_epochs(ss_trace_file *t, long want, int *found, char *list, size_t listsize);
/* Warns once (rank 0) about what the reads so far found odd but replayable: how many
 * GPU-iterations had a stall longer than their iteration, and how many a fetch that ended
 * more than 1 ms after its step began (where train_start was read), and the first of each. Rows
 * read more than once (by several ranks, or scenarios) count once. Collective when the
 * trace was opened collectively. */
void ss_trace_report_warnings(ss_trace_file *t, const ss_comm *c);
/* The rows and the distinct epochs of the trace, all epochs (SS_EPOCH_ALL) or one, and
 * (selected not NULL) those of them a summary takes, with an index of warmup or more;
 * reads the epoch (and index) columns in slabs. Independent. */
ss_status ss_trace_count_epochs(ss_trace_file *t, long epoch, long warmup, long *rows, long *epochs, long *selected);
/* SS_EDATA when the trace's file changed since ss_trace_open (another file under its name, a
 * new size or modification time): what was read from it may mix two states. */
ss_status ss_trace_check_unchanged(const ss_trace_file *t);

/* Collective when the trace was opened collectively. */
void ss_trace_close(ss_trace_file *t);

typedef struct ss_trace_writer ss_trace_writer;

/* Creates PATH's temporary sibling; rows are appended in order; ss_trace_finish renames
 * it into place, ss_trace_abort removes it. m->gpus fixes the shape; m->iterations the
 * row count, or 0 when it is not known yet (streaming: the datasets grow with each
 * append). The attributes are written when the file is finished (m->loader_workers must
 * stay valid until then). */
ss_status ss_trace_create(const char *path, const ss_trace_meta *m, ss_trace_writer **out);
ss_status ss_trace_append(ss_trace_writer *w, const ss_slab *s);
ss_status ss_trace_finish(ss_trace_writer *w);
/* ss_trace_finish with the attributes of m (same gpus; iterations = the rows written). */
ss_status ss_trace_finish_with(ss_trace_writer *w, const ss_trace_meta *m);
void ss_trace_abort(ss_trace_writer *w);

/* Rows per chunk the writer uses for G GPUs and N rows (about 1 MiB per chunk). */
long ss_trace_default_chunk_rows(int gpus, long iterations);

#endif
