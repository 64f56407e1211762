/* ss_nodeslab.c - slabs of trace rows shared by the ranks of a node: an MPI shared-memory
 * window of two slabs, each rank reading a share of every slab's rows. */
#include "ss_nodeslab.h"

#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ss_nodeslab_wanted(const ss_comm *c)
{
    return c->mpi && c->node != MPI_COMM_NULL && c->node_ranks > 1 && !getenv("STALLSIM_NO_SHARED_READS");
}

void ss_nodeslab_shares(const double *cost, int k, long n, long *bound, double *sorted)
{
    /* the level L with sum over r of max(0, L - cost[r]) = n: raised over the ranks in
     * order of cost until it stays below the next one */
    memcpy(sorted, cost, (size_t)k * sizeof *sorted);
    gsl_sort(sorted, 1, (size_t)k);
    double level = 0, below = 0;
    for (int m = 1; m <= k; m++) {
        below += sorted[m - 1];
        level = ((double)n + below) / (double)m;
        if (m == k || level <= sorted[m]) break;
    }
    double cum = 0;
    bound[0] = 0;
    for (int r = 0; r < k; r++) {
        cum += level > cost[r] ? level - cost[r] : 0.0;
        long b = r + 1 == k ? n : (long)llround(cum);
        bound[r + 1] = b < bound[r] ? bound[r] : b > n ? n : b;
    }
}

/* Every rank of the node learns the worst status (an allreduce: also the node's barrier). */
static ss_status node_any_failed(const ss_comm *c, ss_status local)
{
    int v = (int)local, out = v;
    if (MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, c->node) != MPI_SUCCESS && out == SS_OK)
        return ss_fail(SS_EMPI, "sharing a slab among the ranks of a node failed");
    return (ss_status)out;
}

ss_status ss_nodeslab_alloc(const ss_comm *c, long cap, int gpus, ss_nodeslab *ns)
{
    memset(ns, 0, sizeof *ns);
    ns->comm = c;
    ns->win = MPI_WIN_NULL;
    ns->cur = 1;
    size_t one = ss_slab_bytes(cap, gpus);
    /* the node's first rank holds the memory; the others map it */
    MPI_Aint size = c->node_rank == 0 ? (MPI_Aint)(2 * one) : 0;
    void *base = NULL;
    ss_status st = SS_OK;
    ns->cost = calloc(2 * (size_t)c->node_ranks, sizeof *ns->cost);
    ns->bound = malloc(((size_t)c->node_ranks + 1) * sizeof *ns->bound);
    ns->gathered = malloc(3 * (size_t)c->node_ranks * sizeof *ns->gathered);
    if (!ns->cost || !ns->bound || !ns->gathered) st = ss_fail(SS_ENOMEM, "out of memory");
    /* collective over the node: called by every rank whatever its status */
    if (MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, c->node, &base, &ns->win) != MPI_SUCCESS) {
        ns->win = MPI_WIN_NULL;
        if (st == SS_OK)
            st = ss_fail(SS_ENOMEM, "cannot allocate %zu bytes of shared memory for two slabs of %ld rows x %d GPUs",
                         2 * one, cap, gpus);
    } else {
        MPI_Win_set_errhandler(ns->win, MPI_ERRORS_RETURN);
    }
    if (st == SS_OK) {
        MPI_Aint got = 0;
        int unit = 0;
        if (MPI_Win_shared_query(ns->win, 0, &got, &unit, &base) != MPI_SUCCESS || (size_t)got < 2 * one || !base)
            st = ss_fail(SS_EMPI, "cannot map the node's shared slabs");
    }
    if (st == SS_OK) {
        if (MPI_Win_lock_all(MPI_MODE_NOCHECK, ns->win) == MPI_SUCCESS) ns->locked = 1;
        else st = ss_fail(SS_EMPI, "cannot open the node's shared slabs");
    }
    st = node_any_failed(c, st);
    if (st != SS_OK) return st;
    /* STALLSIM_EVEN_SHARES=1: equal shares (the node agrees, or rows would go unread) */
    ns->even = getenv("STALLSIM_EVEN_SHARES") != NULL;
    if (MPI_Allreduce(MPI_IN_PLACE, &ns->even, 1, MPI_INT, MPI_MAX, c->node) != MPI_SUCCESS)
        return ss_fail(SS_EMPI, "agreeing on the shares of the node's slabs failed");
    ss_slab_place(&ns->slab[0], base, cap, gpus);
    ss_slab_place(&ns->slab[1], (char *)base + one, cap, gpus);
    return SS_OK;
}

/* The node's worst status, and every rank's time away from the reads in rows read (an
 * allgather: also the node's barrier). away: this rank's seconds; per_row: its seconds
 * per row read (0: unknown). */
static ss_status node_gather(ss_nodeslab *ns, ss_status local, double away, double per_row)
{
    const ss_comm *c = ns->comm;
    double mine[3] = {(double)local, away, per_row}, *all = ns->gathered;
    if (MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, c->node) != MPI_SUCCESS)
        return local != SS_OK ? local : ss_fail(SS_EMPI, "sharing a slab among the ranks of a node failed");
    ss_status st = local;
    double rate = 0; /* the node's mean seconds per row read */
    int known = 0;
    for (int r = 0; r < c->node_ranks; r++) {
        if ((int)all[3 * r] > (int)st) st = (ss_status)(int)all[3 * r];
        if (all[3 * r + 2] > 0) rate += all[3 * r + 2], known++;
    }
    ns->have_cost = known > 0;
    for (int r = 0; known && r < c->node_ranks; r++)
        ns->cost[r] = all[3 * r + 1] > 0 ? all[3 * r + 1] / (rate / known) : 0.0;
    return st;
}

ss_status ss_nodeslab_read(ss_nodeslab *ns, ss_trace_file *t, int train_start, long r0, long n, ss_status mine,
                           ss_slab **out)
{
    const ss_comm *c = ns->comm;
    ns->cur ^= 1;
    ss_slab *s = &ns->slab[ns->cur];
    ss_status st = mine;
    if (st == SS_OK && n > s->cap) st = ss_fail(SS_EINTERNAL, "a shared slab of %ld rows asked for %ld", s->cap, n);
    /* this rank's share: rows [lo, hi) of the slab; weighted by the ranks' time away from
     * the reads before the last read (replaying the slab before that): they now replay the
     * last slab, then read this one */
    long lo = n * c->node_rank / c->node_ranks, hi = n * (c->node_rank + 1) / c->node_ranks;
    if (ns->have_cost && !ns->even) {
        ss_nodeslab_shares(ns->cost, c->node_ranks, n, ns->bound, ns->cost + c->node_ranks);
        lo = ns->bound[c->node_rank];
        hi = ns->bound[c->node_rank + 1];
    }
    ns->share = st == SS_OK ? hi - lo : 0;
    double t_in = ss_wtime(), away = ns->t_back > 0 ? t_in - ns->t_back : 0.0;
    if (st == SS_OK && hi > lo) {
        ss_slab part;
        ss_slab_view(s, lo, hi - lo, &part);
        st = ss_trace_read_cols(t, r0 + lo, hi - lo, train_start, &part);
    }
    MPI_Win_sync(ns->win); /* this rank's rows out to the window before the others look */
    double t0 = ss_wtime();
    st = node_gather(ns, st, away, hi > lo ? (t0 - t_in) / (double)(hi - lo) : 0.0);
    ns->waited += ss_wtime() - t0;
    MPI_Win_sync(ns->win); /* and the others' rows in */
    s->row0 = r0;
    s->n = n;
    *out = s;
    ns->t_back = ss_wtime();
    return st;
}

void ss_nodeslab_free(ss_nodeslab *ns)
{
    if (ns->win != MPI_WIN_NULL) {
        if (ns->locked) MPI_Win_unlock_all(ns->win);
        MPI_Win_free(&ns->win);
    }
    free(ns->cost);
    free(ns->bound);
    free(ns->gathered);
    memset(ns, 0, sizeof *ns);
    ns->win = MPI_WIN_NULL;
}
