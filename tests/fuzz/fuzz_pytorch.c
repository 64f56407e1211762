/* fuzz_pytorch.c - fuzzes the PyTorch recorder importer: `import pytorch` (open, lockstep
 * merge, trace writer) on the record files of a 2-rank run with one worker per rank. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "ss_import.h"

/* Input: run.rank0.csv, SEP, run.rank0.worker0.csv, SEP, run.rank1.csv, SEP,
 * run.rank1.worker0.csv. A file whose piece is missing is not written (the missing-file
 * error). */
#define SEP "\n%%file%%\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const name[4] = {"run.rank0.csv", "run.rank0.worker0.csv", "run.rank1.csv",
                                        "run.rank1.worker0.csv"};
    const uint8_t *p = data, *end = data + size, *piece;
    size_t len;
    char path[1024], out[1024], prefix[1024];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_tmpdir(), name[i]);
        unlink(path);
        if ((piece = fuzz_piece(&p, end, SEP, &len)) != NULL) fuzz_write(name[i], piece, len, path, sizeof path);
    }
    const ss_importer *imp = ss_importer_find("pytorch");
    if (!imp) abort();
    snprintf(prefix, sizeof prefix, "%s/run", fuzz_tmpdir());
    snprintf(out, sizeof out, "%s/out.h5", fuzz_tmpdir());
    char *argv[1] = {prefix};
    long rows = 0;
    int gpus = 0;
    ss_clear();
    if (ss_import_run(imp, 1, argv, out, &rows, &gpus, NULL) == SS_OK && (rows < 1 || gpus < 1)) abort();
    unlink(out);
    return 0;
}
