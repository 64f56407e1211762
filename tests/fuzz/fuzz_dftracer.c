/* fuzz_dftracer.c - fuzzes `import dftracer`: the input is one to three rank files
 * (trace-R-of-N.pfw) separated by SEP, parsed line by line with the JSON event reader. An
 * input that opens with "%%iter NAME\n" imports with --iter NAME; a file that opens with
 * "%%gz%%" is written as a .pfw.gz whose stream is flushed but never finished (a file cut
 * off while it was written). */
#include <zlib.h>

#include "fuzz_import_common.h"

#define SEP "\n%%file%%\n"
#define ITER "%%iter "
#define GZ "%%gz%%"

/* data, gzip-compressed and flushed without its end, into path */
static void write_cut_gz(const char *name, const uint8_t *data, size_t n, char *path, size_t pathsz)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    uLong cap = deflateBound(&z, (uLong)n) + 64;
    uint8_t *out = malloc(cap);
    if (!out) abort();
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_SYNC_FLUSH) == Z_STREAM_ERROR) abort();
    fuzz_write(name, out, cap - z.avail_out, path, pathsz);
    deflateEnd(&z);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size, *piece;
    size_t len;
    char path[3][1024], name[64], iter[64], *argv[5];
    int n = 0, argc = 0;
    const size_t il = strlen(ITER), gl = strlen(GZ);
    if (size > il && !memcmp(data, ITER, il)) { /* --iter NAME */
        size_t k = 0;
        p = data + il;
        while (p < end && *p != '\n' && k + 1 < sizeof iter) iter[k++] = (char)*p++;
        iter[k] = '\0';
        while (p < end && *p != '\n') p++;
        if (p < end) p++;
        argv[argc++] = "--iter";
        argv[argc++] = iter;
    }
    const uint8_t *start = p;
    while (n < 3 && (piece = fuzz_piece(&p, end, SEP, &len)) != NULL) n++;
    p = start;
    for (int i = 0; i < n; i++) {
        piece = fuzz_piece(&p, end, SEP, &len);
        if (len >= gl && !memcmp(piece, GZ, gl)) {
            snprintf(name, sizeof name, "trace-%d-of-%d.pfw.gz", i, n);
            write_cut_gz(name, piece + gl, len - gl, path[i], sizeof path[i]);
        } else {
            snprintf(name, sizeof name, "trace-%d-of-%d.pfw", i, n);
            fuzz_write(name, piece, len, path[i], sizeof path[i]);
        }
        argv[argc++] = path[i];
    }
    if (n) fuzz_import("dftracer", argc, argv);
    for (int i = 0; i < n; i++) unlink(path[i]);
    return 0;
}
