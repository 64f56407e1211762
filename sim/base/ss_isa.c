/* ss_isa.c - the vector instruction level of the hot loops (ss_isa.h). */
#include "ss_isa.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ss_status.h"

static ss_isa_level detect(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(SS_NO_MULTIVERSION)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return SS_ISA_AVX512;
    if (__builtin_cpu_supports("avx2")) return SS_ISA_AVX2;
#endif
    return SS_ISA_GENERIC;
}

/* 1 in a process that a launcher started as a rank other than 0 (its warnings would repeat
 * rank 0's): mpirun's, PMI's and Slurm's rank variables */
static int other_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return strcmp(v, "0") != 0;
    }
    return 0;
}

ss_isa_level ss_isa(void)
{
    static int known = 0;
    static ss_isa_level level = SS_ISA_GENERIC;
    if (!known) {
        level = detect();
        const char *want = getenv("STALLSIM_ISA");
        if (want && !strcasecmp(want, "generic")) level = SS_ISA_GENERIC;
        else if (want && !strcasecmp(want, "avx2") && level > SS_ISA_AVX2) level = SS_ISA_AVX2;
        else if (want && want[0] && strcasecmp(want, "avx2") && strcasecmp(want, "avx512") && !other_rank())
            ss_warn("STALLSIM_ISA = '%s' is not generic, avx2 or avx512: ignored (the hot loops use %s)", want,
                    ss_isa_name(level));
        known = 1;
    }
    return level;
}

const char *ss_isa_name(ss_isa_level l)
{
    return l == SS_ISA_AVX512 ? "avx512" : l == SS_ISA_AVX2 ? "avx2" : "generic (sse2)";
}
