/* fuzz_import_common.h - drives one importer of the table (open, next until the end, close)
 * on files written from the fuzz input, without writing a trace: the importer's parsing
 * and checks are what is fuzzed. */
#ifndef FUZZ_IMPORT_COMMON_H
#define FUZZ_IMPORT_COMMON_H

#include <string.h>

#include "fuzz_common.h"
#include "ss_import.h"

static inline void fuzz_import(const char *name, int argc, char **argv)
{
    const ss_importer *imp = ss_importer_find(name);
    if (!imp) abort();
    ss_import_info info;
    memset(&info, 0, sizeof info);
    ss_trace_meta_init(&info.meta);
    void *state = NULL;
    ss_clear();
    ss_status st = imp->open(&state, argc, argv, &info);
    if (st == SS_OK) {
        if (info.meta.gpus < 1) abort(); /* an importer that opens must know its GPUs */
        ss_slab s;
        int G = info.meta.gpus > 64 ? 64 : info.meta.gpus;
        if (G == info.meta.gpus && ss_slab_alloc(&s, 3, G) == SS_OK) {
            long rows = 0;
            for (int i = 0; i < 100000; i++) {
                s.n = 0;
                s.row0 = rows;
                if (imp->next(state, &s, &info) != SS_OK || s.n == 0) break;
                if (s.n > s.cap) abort();
                rows += s.n;
            }
            ss_slab_free(&s);
        }
    }
    imp->close(state);
}

#endif
