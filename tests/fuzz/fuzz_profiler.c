/* fuzz_profiler.c - fuzzes `import profiler`: the input is one or two rank files
 * (Kineto/Chrome JSON) separated by SEP, parsed with the streaming JSON event reader. An
 * input that opens with WORKER names its files as Kineto does (worker0.<time>.pt.trace.json:
 * no rank in the name). */
#include "fuzz_import_common.h"

#define SEP "\n%%file%%\n"
#define WORKER "%%worker%%\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size, *piece;
    size_t len;
    char path[2][1024], name[64], *argv[2];
    int n = 0, worker = 0;
    if (size >= strlen(WORKER) && !memcmp(data, WORKER, strlen(WORKER))) {
        worker = 1;
        p += strlen(WORKER);
    }
    while (n < 2 && (piece = fuzz_piece(&p, end, SEP, &len)) != NULL) {
        if (worker) snprintf(name, sizeof name, "worker%d.170000000%d.pt.trace.json", n, n);
        else snprintf(name, sizeof name, "rank%d.json", n);
        fuzz_write(name, piece, len, path[n], sizeof path[n]);
        argv[n] = path[n];
        n++;
    }
    if (n) fuzz_import("profiler", n, argv);
    for (int i = 0; i < n; i++) unlink(path[i]);
    return 0;
}
