/* ss_nodeslab.c - slabs of trace rows shared by the ranks of a node: an MPI shared-memory
 * window of two slabs, each rank reading a share of every slab's rows. */
#include "ss_nodeslab.h"

#include <stdlib.h>
#include <string.h>

int ss_nodeslab_wanted(const ss_comm *c)
{
    return c->mpi && c->node != MPI_COMM_NULL && c->node_ranks > 1 && !getenv("STALLSIM_NO_SHARED_READS");
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
    if (MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, c->node, &base, &ns->win) != MPI_SUCCESS) {
        ns->win = MPI_WIN_NULL;
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
    ss_slab_place(&ns->slab[0], base, cap, gpus);
    ss_slab_place(&ns->slab[1], (char *)base + one, cap, gpus);
    return SS_OK;
}

ss_status ss_nodeslab_read(ss_nodeslab *ns, ss_trace_file *t, int train_start, long r0, long n, ss_status mine,
                           ss_slab **out)
{
    const ss_comm *c = ns->comm;
    ns->cur ^= 1;
    ss_slab *s = &ns->slab[ns->cur];
    ss_status st = mine;
    if (st == SS_OK && n > s->cap) st = ss_fail(SS_EINTERNAL, "a shared slab of %ld rows asked for %ld", s->cap, n);
    /* this rank's share: rows [lo, hi) of the slab */
    long lo = n * c->node_rank / c->node_ranks, hi = n * (c->node_rank + 1) / c->node_ranks;
    ns->share = st == SS_OK ? hi - lo : 0;
    if (st == SS_OK && hi > lo) {
        ss_slab part;
        ss_slab_view(s, lo, hi - lo, &part);
        st = train_start ? ss_trace_read(t, r0 + lo, hi - lo, &part) : ss_trace_read_replay(t, r0 + lo, hi - lo, &part);
    }
    MPI_Win_sync(ns->win); /* this rank's rows out to the window before the others look */
    double t0 = ss_wtime();
    st = node_any_failed(c, st);
    ns->waited += ss_wtime() - t0;
    MPI_Win_sync(ns->win); /* and the others' rows in */
    s->row0 = r0;
    s->n = n;
    *out = s;
    return st;
}

void ss_nodeslab_free(ss_nodeslab *ns)
{
    if (ns->win != MPI_WIN_NULL) {
        if (ns->locked) MPI_Win_unlock_all(ns->win);
        MPI_Win_free(&ns->win);
    }
    memset(ns, 0, sizeof *ns);
    ns->win = MPI_WIN_NULL;
}
