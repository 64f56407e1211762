/* ss_import.h - the importer seam: every trace format stallsim reads is one ss_importer,
 * listed once in ss_importers.c; `stallsim import FORMAT ...` finds it there and streams
 * its rows into the stalltrace writer with bounded memory. */
#ifndef SS_IMPORT_H
#define SS_IMPORT_H

#include "ss_comm.h"
#include "ss_status.h"
#include "ss_trace.h"

/* What an importer tells the driver when it opens its inputs. */
typedef struct {
    ss_trace_meta meta; /* gpus (required); iterations: the row count when known, else 0 (the
                         * writer then counts the rows); every other attribute it knows.
                         * The importer may still change attributes (not gpus) in next(). */
    char **inputs;      /* the files it reads (owned by the importer's state), so that the
                         * driver refuses an output path that is one of them */
    int ninputs;
} ss_import_info;

typedef struct ss_importer {
    const char *name;    /* the format's name on the command line: "dsanalyzer" */
    const char *summary; /* one line for `stallsim import --list` */
    const char *usage;   /* the arguments after the name, e.g. "PREFIX" or "FILE|DIR..." */
    const char *help;    /* what it reads and which field becomes which column (several lines) */
    /* Reads the headers of its inputs. args: everything after the format name except
     * -o FILE (input names and the format's own options). Fills *info. SS_EUSAGE for bad
     * arguments, SS_EDATA/SS_EIO naming the file and line (or event) otherwise. */
    ss_status (*open)(void **state, int argc, char **argv, ss_import_info *info);
    /* Fills up to s->cap rows of s (s->n; 0 when there are no more), in (epoch, index)
     * order; row k's per-GPU values at [k * gpus + g]. May update info->meta. */
    ss_status (*next)(void *state, ss_slab *s, ss_import_info *info);
    /* Frees the state (also after a failure); state may be NULL. */
    void (*close)(void *state);
    /* Optional, for importers that split their inputs over the ranks of an mpirun: runs on
     * every rank but 0 when rank 0's open() called ss_import_share_start (msg: what it
     * sent), and follows the importer's own exchange with rank 0 on share to its end. */
    void (*serve)(const ss_comm *share, const char *msg, long n);
} ss_importer;

/* The registered importers (a static table); *n receives their count. */
const ss_importer *const *ss_importers(int *n);
/* The importer called name, or NULL. */
const ss_importer *ss_importer_find(const char *name);

/* The importer that an input's first bytes (a stallsim_record.py header) or its name (.pfw,
 * .json, gzipped or not) point to, or NULL; *what (may be NULL) its format's name for
 * people ("DFTracer (DLIO)"). */
const char *ss_import_looks_like(const char *path, const char **what);

/* Runs imp over args and writes the trace to out_path, whole or not at all. Refuses an
 * out_path that is one of the importer's inputs (same device and inode). rows_out and
 * gpus_out (may be NULL) receive the shape written, fetch_out (may be NULL) 1 when the
 * trace has fetch times (0: fetch_times = absent). Not collective. */
ss_status ss_import_run(const ss_importer *imp, int argc, char **argv, const char *out_path, long *rows_out,
                        int *gpus_out, int *fetch_out);

/* Collective: the import command under mpirun. Rank 0 runs fn (the command's main); the
 * other ranks wait for an importer that shares its work (ss_import_share_start) and serve
 * it. Every rank returns fn's result. Without MPI, or on one rank, it is fn alone. */
int ss_import_on_ranks(const ss_comm *c, int (*fn)(int, char **), int argc, char **argv);
/* Rank 0, inside an importer's open(): hands msg (n bytes) to the importer's serve() on
 * every other rank and returns the communicator of their exchange; NULL when the import
 * runs alone (no MPI, one rank, or not inside ss_import_on_ranks). The importer must end
 * the exchange (its close() at the latest) so that every rank leaves serve(). */
const ss_comm *ss_import_share_start(const ss_importer *imp, const void *msg, long n);
/* Rank 0, inside an importer's open(): the ranks ss_import_share_start would reach, rank 0
 * included (1 when the import runs alone). */
int ss_import_share_ranks(void);

/* Rows per slab the driver hands an importer for G GPUs (about 32 MB of rows). */
long ss_import_slab_rows(int gpus);

#endif
