/* ss_comm.h - the communicator that stallsim's modules are handed: MPI when launched by
 * mpirun/srun, a plain single process otherwise (no MPI_Init, so a plain run does not pay
 * the cost of a singleton MPI start). */
#ifndef SS_COMM_H
#define SS_COMM_H

#include <mpi.h>
#include <stddef.h>

#include "ss_status.h"

typedef struct {
    MPI_Comm comm; /* MPI_COMM_WORLD when mpi is set, else MPI_COMM_NULL */
    int rank;
    int size;
    int mpi;       /* 1 when MPI was initialised and calls may be made */
    int threads;   /* 1 when a second thread may make MPI (and MPI-IO) calls while the main
                    * thread makes none (MPI_THREAD_SERIALIZED, or no MPI at all) */
    int node_ranks; /* ranks on this rank's node (1 without MPI) */
    int node_rank;  /* this rank among them */
    MPI_Comm node;  /* the ranks of this node (shared memory), else MPI_COMM_NULL */
} ss_comm;

/* True when the environment shows an MPI launcher (Open MPI, MPICH/Hydra, PMIx, Slurm
 * PMI, an srun step of several tasks) or STALLSIM_MPI=1 asks for MPI (STALLSIM_MPI=0
 * for none). */
int ss_comm_launched(void);

/* Initialises MPI when launched (collective over the job), else a size-1 comm. */
ss_status ss_comm_init(ss_comm *c, int *argc, char ***argv);

/* A size-1 communicator without MPI (library use and unit tests). */
void ss_comm_self(ss_comm *c);

/* Collective. Every rank passes its local status; all return the same worst status. When
 * it is not SS_OK, the lowest-ranked failing rank prints its recorded message once
 * ("stallsim: <msg>"), so that an error on any rank ends every rank cleanly and no rank
 * is left waiting in a later collective. */
ss_status ss_comm_agree(const ss_comm *c, ss_status local);

/* Collective. Like ss_comm_agree but prints nothing: ranks that did not fail themselves
 * get the worst status without a message, so that a later ss_comm_agree reports the
 * root cause from the rank that saw it. */
ss_status ss_comm_any_failed(const ss_comm *c, ss_status local);

/* Collective. Sums n longs (in place) onto every rank (integer sums are exact in any order). */
ss_status ss_comm_sum_long(const ss_comm *c, long *v, long n);

/* Collective. Gathers variable-length byte buffers to rank 0. On rank 0 *all receives
 * a malloc'd buffer (caller frees) and counts/displs[size] the layout. Returns the status
 * agreed by all ranks (too large a total, allocation failure on rank 0). */
ss_status ss_comm_gather_bytes(const ss_comm *c, const void *buf, long nbytes, void **all, int **counts,
                               int **displs);

/* Collective. Rank 0's text (*text, malloc'd, NUL-terminated) and *flag reach every rank:
 * the others get a malloc'd copy in *text and rank 0's *flag. local is each rank's status
 * so far; the worst of them is returned (the other ranks' *text is then NULL; each rank's
 * message stays its own, for a later ss_comm_agree). Used so that only rank 0 reads a file
 * that may be a pipe (under mpirun only rank 0 has the job's standard input). */
ss_status ss_comm_bcast_text(const ss_comm *c, ss_status local, char **text, int *flag);

/* Collective barrier (no-op without MPI). */
void ss_comm_barrier(const ss_comm *c);

/* Seconds on a monotonic clock (like MPI_Wtime, with or without MPI). */
double ss_wtime(void);

/* Ends MPI when it was started. */
void ss_comm_finalize(ss_comm *c);

#endif
