/* ss_isa.h - which vector instructions the hot loops use: the best of AVX-512, AVX2 and
 * the x86-64 baseline (SSE2) that the CPU has, or the one STALLSIM_ISA names. One build
 * runs on any x86-64; every path gives bit-identical results (the build has
 * -ffp-contract=off, and the loops only use operations that are exact in any order). */
#ifndef SS_ISA_H
#define SS_ISA_H

typedef enum { SS_ISA_GENERIC, SS_ISA_AVX2, SS_ISA_AVX512 } ss_isa_level;

/* The level in use: the best the CPU supports, lowered to STALLSIM_ISA (generic, avx2,
 * avx512) when that is set. Read once. */
ss_isa_level ss_isa(void);
const char *ss_isa_name(ss_isa_level l);

/* SS_MULTIVERSION(ret, name, (params), (args)) defines `static ret name(params)`, which
 * runs `name##_body(args)` compiled for the level ss_isa() chose. name##_body must be
 * defined before as `static SS_KERNEL ret name##_body(params)` (always inlined, so that
 * each level compiles its own copy); ret must not be void. */
#define SS_KERNEL inline __attribute__((always_inline))
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(SS_NO_MULTIVERSION)
#define SS_MULTIVERSION(ret, name, params, args)                                                  \
    static ret name##_generic params { return name##_body args; }                                 \
    __attribute__((target("avx2"))) static ret name##_avx2 params { return name##_body args; }    \
    __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) static ret name##_avx512 params \
    {                                                                                             \
        return name##_body args;                                                                  \
    }                                                                                             \
    static ret name params                                                                        \
    {                                                                                             \
        switch (ss_isa()) {                                                                       \
        case SS_ISA_AVX512: return name##_avx512 args;                                            \
        case SS_ISA_AVX2: return name##_avx2 args;                                                \
        default: return name##_generic args;                                                      \
        }                                                                                         \
    }
#else
#define SS_MULTIVERSION(ret, name, params, args) \
    static ret name params { return name##_body args; }
#endif

#endif
