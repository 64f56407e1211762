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

ss_isa_level ss_isa(void)
{
    static int known = 0;
    static ss_isa_level level = SS_ISA_GENERIC;
    if (!known) {
        level = detect();
        const char *want = getenv("STALLSIM_ISA");
        if (want && !strcasecmp(want, "generic")) level = SS_ISA_GENERIC;
        else if (want && !strcasecmp(want, "avx2") && level > SS_ISA_AVX2) level = SS_ISA_AVX2;
        else if (want && want[0] && strcasecmp(want, "avx2") && strcasecmp(want, "avx512"))
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
