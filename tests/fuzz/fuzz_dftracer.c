/* fuzz_dftracer.c - fuzzes `import dftracer`: the input is one to three rank files
 * (trace-R-of-N.pfw) separated by SEP, parsed line by line with the JSON event reader. */
#include "fuzz_import_common.h"

#define SEP "\n%%file%%\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size, *piece;
    size_t len;
    char path[3][1024], name[64], *argv[3];
    int n = 0;
    while (n < 3 && (piece = fuzz_piece(&p, end, SEP, &len)) != NULL) n++;
    p = data;
    for (int i = 0; i < n; i++) {
        piece = fuzz_piece(&p, end, SEP, &len);
        snprintf(name, sizeof name, "trace-%d-of-%d.pfw", i, n);
        fuzz_write(name, piece, len, path[i], sizeof path[i]);
        argv[i] = path[i];
    }
    if (n) fuzz_import("dftracer", n, argv);
    for (int i = 0; i < n; i++) unlink(path[i]);
    return 0;
}
