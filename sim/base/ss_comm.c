/* ss_comm.c - MPI start-up only under a launcher, status agreement, gathers. */
#include "ss_comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <time.h>

/* ss_comm_sum_long sums at most this many longs per MPI_Allreduce (MPI counts are int) */
#define SUM_PIECE (1 << 28)

int ss_comm_launched(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK",
                                 "PMIX_RANK", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE"};
    const char *force = getenv("STALLSIM_MPI");
    if (force && force[0]) return strcmp(force, "0") != 0;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    /* an srun step of several tasks: better one MPI job than many copies racing on the
     * same output folder */
    const char *tasks = getenv("SLURM_STEP_NUM_TASKS");
    return tasks && atoi(tasks) > 1;
}

void ss_comm_self(ss_comm *c)
{
    c->comm = MPI_COMM_NULL;
    c->rank = 0;
    c->size = 1;
    c->mpi = 0;
    c->threads = 1;
    c->node_ranks = 1;
    c->node_rank = 0;
    c->node = MPI_COMM_NULL;
}

ss_status ss_comm_init(ss_comm *c, int *argc, char ***argv)
{
    ss_comm_self(c);
    if (!ss_comm_launched()) return SS_OK;
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return ss_fail(SS_EMPI, "MPI_Init failed");
    c->threads = provided >= MPI_THREAD_SERIALIZED;
    c->comm = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    MPI_Comm node;
    /* tests: STALLSIM_TEST_NODE_RANKS=K makes "nodes" of K consecutive ranks (the last one
     * smaller), so that uneven placements can be run on one machine */
    const char *k = getenv("STALLSIM_TEST_NODE_RANKS");
    int split = k && atoi(k) > 0
                    ? MPI_Comm_split(c->comm, c->rank / atoi(k), c->rank, &node)
                    : MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
    if (split == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
        MPI_Comm_size(node, &c->node_ranks);
        MPI_Comm_rank(node, &c->node_rank);
        c->node = node;
    }
    c->mpi = 1;
    return SS_OK;
}

ss_status ss_comm_agree(const ss_comm *c, ss_status local)
{
    /* the reporter is the lowest rank that failed with a message of its own (a rank that
     * only learnt of another's failure records none), else the lowest failing rank */
    int has_msg = local != SS_OK && ss_errmsg()[0];
    int in[3] = {(int)local, has_msg ? c->rank : c->size, local != SS_OK ? c->rank : c->size};
    int out[3] = {in[0], in[1], in[2]};
    if (c->mpi) {
        MPI_Allreduce(&in[0], &out[0], 1, MPI_INT, MPI_MAX, c->comm);
        MPI_Allreduce(&in[1], &out[1], 2, MPI_INT, MPI_MIN, c->comm);
    }
    int worst = out[0], reporter = out[1] < c->size ? out[1] : out[2];
    if (worst != SS_OK && reporter == c->rank) {
        const char *m = ss_errmsg();
        fprintf(stderr, "stallsim: %s\n", m[0] ? m : ss_strerror(local));
        fflush(stderr);
    }
    return (ss_status)worst;
}

ss_status ss_comm_any_failed(const ss_comm *c, ss_status local)
{
    int v = (int)local, out = v;
    if (c->mpi) MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, c->comm);
    return (ss_status)out;
}

ss_status ss_comm_sum_long(const ss_comm *c, long *v, long n)
{
    if (!c->mpi) return SS_OK;
    /* in pieces that an int count holds (every rank cuts at the same places) */
    for (long i = 0; i < n; i += SUM_PIECE) {
        int m = n - i < SUM_PIECE ? (int)(n - i) : SUM_PIECE;
        if (MPI_Allreduce(MPI_IN_PLACE, v + i, m, MPI_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
            return ss_fail(SS_EMPI, "MPI_Allreduce of counts failed");
    }
    return SS_OK;
}

ss_status ss_comm_bcast_text(const ss_comm *c, ss_status local, char **text, int *flag)
{
    if (!c->mpi || c->size == 1) return local;
    if (c->rank != 0) *text = NULL;
    ss_status st = ss_comm_any_failed(c, local);
    long hdr[2] = {st == SS_OK && c->rank == 0 ? (long)strlen(*text) : 0, *flag};
    if (st == SS_OK && MPI_Bcast(hdr, 2, MPI_LONG, 0, c->comm) != MPI_SUCCESS)
        st = ss_fail(SS_EMPI, "MPI_Bcast of a text's size failed");
    if (st == SS_OK && hdr[0] >= INT_MAX) st = ss_fail(SS_EINTERNAL, "%ld bytes of text, more than one broadcast carries", hdr[0]);
    if (st == SS_OK && c->rank != 0 && !(*text = malloc((size_t)hdr[0] + 1)))
        st = ss_fail(SS_ENOMEM, "out of memory receiving %ld bytes of text from rank 0", hdr[0]);
    /* every rank has its buffer before the bytes move, so no rank is left waiting */
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK && MPI_Bcast(*text, (int)hdr[0], MPI_CHAR, 0, c->comm) != MPI_SUCCESS)
        st = ss_fail(SS_EMPI, "MPI_Bcast of a text failed");
    if (st == SS_OK && c->rank != 0) {
        (*text)[hdr[0]] = '\0';
        *flag = (int)hdr[1];
    }
    if (st != SS_OK && c->rank != 0) {
        free(*text);
        *text = NULL;
    }
    return st;
}

ss_status ss_comm_gather_bytes(const ss_comm *c, const void *buf, long nbytes, void **all, int **counts,
                               int **displs)
{
    *all = NULL;
    *counts = *displs = NULL;
    int *cnt = NULL, *dsp = NULL;
    char *out = NULL;
    ss_status st = SS_OK;
    if (nbytes > INT_MAX) st = ss_fail(SS_EINTERNAL, "rank %d holds %ld bytes of results, more than one gather carries", c->rank, nbytes);
    if (st == SS_OK && c->rank == 0) {
        cnt = calloc((size_t)c->size, sizeof *cnt);
        dsp = calloc((size_t)c->size, sizeof *dsp);
        if (!cnt || !dsp) st = ss_fail(SS_ENOMEM, "out of memory gathering results on rank 0");
    }
    /* every step is agreed on before the next collective, so no rank is left waiting */
    st = ss_comm_any_failed(c, st);
    int n = (int)nbytes;
    if (st == SS_OK && !c->mpi) cnt[0] = n;
    else if (st == SS_OK && MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, c->comm) != MPI_SUCCESS)
        st = ss_fail(SS_EMPI, "MPI_Gather of result sizes failed");
    if (st == SS_OK && c->rank == 0) {
        long total = 0;
        for (int r = 0; r < c->size; r++) {
            dsp[r] = (int)total;
            total += cnt[r];
            if (total > INT_MAX) {
                st = ss_fail(SS_EINTERNAL, "%ld bytes of results on rank 0, more than one gather carries", total);
                break;
            }
        }
        if (st == SS_OK && !(out = malloc(total ? (size_t)total : 1)))
            st = ss_fail(SS_ENOMEM, "out of memory gathering %ld bytes of results on rank 0", total);
    }
    st = ss_comm_any_failed(c, st);
    if (st == SS_OK && !c->mpi) memcpy(out, buf, (size_t)n);
    else if (st == SS_OK && MPI_Gatherv(buf, n, MPI_BYTE, out, cnt, dsp, MPI_BYTE, 0, c->comm) != MPI_SUCCESS)
        st = ss_fail(SS_EMPI, "MPI_Gatherv of results failed");
    if (st != SS_OK) {
        free(out);
        free(cnt);
        free(dsp);
        return st;
    }
    *all = out;
    *counts = cnt;
    *displs = dsp;
    return SS_OK;
}

void ss_comm_barrier(const ss_comm *c)
{
    if (c->mpi) MPI_Barrier(c->comm);
}

double ss_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ss_comm_finalize(ss_comm *c)
{
    if (c->node != MPI_COMM_NULL) MPI_Comm_free(&c->node);
    if (c->mpi) MPI_Finalize();
    c->mpi = 0;
}
