/* ss_fault_one_rank.c - an LD_PRELOAD module for tests: on the MPI rank named by
 * STALLSIM_FAULT_RANK, the trace's root attribute 'schema' reads as missing, so that
 * reading the trace's metadata fails on that rank alone (as a short allocation or a read
 * error on one node would). tests/fault/fault_one_rank.sh runs stallsim with it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

/* this process's rank in the job, from the launcher's environment (Open MPI, MPICH, Slurm) */
static const char *job_rank(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (getenv(names[i])) return getenv(names[i]);
    return NULL;
}

htri_t H5Aexists(hid_t obj, const char *name)
{
    static htri_t (*real)(hid_t, const char *);
    if (!real) real = (htri_t(*)(hid_t, const char *))dlsym(RTLD_NEXT, "H5Aexists");
    const char *rank = job_rank(), *faulty = getenv("STALLSIM_FAULT_RANK");
    if (rank && faulty && strcmp(rank, faulty) == 0 && strcmp(name, "schema") == 0) return 0;
    return real(obj, name);
}
