/* ss_nodeslab.h - slabs of trace rows that the ranks of one node read together into
 * shared memory (an MPI shared-memory window): each rank reads and checks a share of every
 * slab's rows, and every rank of the node then replays from the whole slab, so that a node
 * reads the trace once however many ranks it runs. The shares follow the ranks' other
 * work: a rank that spent less time away from the reads reads more of the next slab. */
#ifndef SS_NODESLAB_H
#define SS_NODESLAB_H

#include "ss_comm.h"
#include "ss_status.h"
#include "ss_trace.h"

typedef struct {
    const ss_comm *comm;
    MPI_Win win;
    ss_slab slab[2]; /* read in turn: one is replayed while the next is read */
    int cur;         /* the slab of the last read */
    int locked;      /* the window's passive-target epoch is open */
    long share;      /* rows this rank read in the last read */
    double waited;   /* seconds spent waiting for the node's other ranks, over all reads */
    double *cost;    /* [node_ranks] each rank's time away from the reads before the last
                      * read, in rows read (the shares of the next read fill the ranks up to
                      * one level); then [node_ranks] of scratch */
    long *bound;     /* [node_ranks + 1] the shares of a read */
    double *gathered; /* [3 * node_ranks] each rank's status, time away and time per row */
    int have_cost;
    double t_back;   /* when this rank returned from its last read (0: none yet) */
    int even;        /* STALLSIM_EVEN_SHARES set on a rank of the node: equal shares */
} ss_nodeslab;

/* The shares of n rows among k ranks whose other work costs cost[0..k-1] (in rows read):
 * rank r reads rows [bound[r], bound[r+1]), bound[0] = 0, bound[k] = n, each rank filled
 * up to the same level of cost plus rows where it can be ("water filling"); sorted: k
 * doubles of scratch. */
void ss_nodeslab_shares(const double *cost, int k, long n, long *bound, double *sorted);

/* 1 when a sweep's slabs should be shared: MPI with more than one rank on this node, and
 * STALLSIM_NO_SHARED_READS unset. Every rank of a node gets the same answer. */
int ss_nodeslab_wanted(const ss_comm *c);

/* Collective over the node's ranks: one window holding two slabs of cap rows of gpus GPUs.
 * Every rank of the node passes the same cap and gpus. */
ss_status ss_nodeslab_alloc(const ss_comm *c, long cap, int gpus, ss_nodeslab *ns);

/* Collective over the node's ranks (every rank passes the same r0, n, train_start): reads
 * rows [r0, r0+n) into the next slab, this rank its share of them, then waits until every
 * rank of the node has read its share. *out: the whole slab. The shares are weighted by
 * the time each rank spent away from the reads before this one (replaying the slab before):
 * the node's ranks finish a round of replay and read together. Which rank reads which
 * rows never changes what is read (STALLSIM_EVEN_SHARES=1: equal shares). `mine` is this rank's status
 * so far (not SS_OK: it reads nothing and tells the others). A failure on any rank of the
 * node fails every rank of the node (the others without a message of their own; the
 * failing rank keeps its message for ss_comm_agree), so that all stop at the same read.
 * n = 0 reads nothing and only agrees (the sweep's last call). train_start = 0 skips
 * that column. */
ss_status ss_nodeslab_read(ss_nodeslab *ns, ss_trace_file *t, int train_start, long r0, long n, ss_status mine,
                           ss_slab **out);

/* Collective over the node's ranks; safe on a zeroed or half-allocated ns. */
void ss_nodeslab_free(ss_nodeslab *ns);

#endif
