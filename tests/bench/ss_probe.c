/* ss_probe.c - machine probe for scripts/bench.sh: the memory bandwidth this machine
 * reaches (copy and read of buffers far larger than its caches) and the ceiling of the
 * independent replay's arithmetic (the per-GPU stall of MODELS-independent.md, step 4,
 * with its max/min reductions, on rows that stay in cache), so the benchmark can say what
 * fraction of the machine stallsim reaches.
 *
 * usage: stallsim_probe [--mb N] [--gpus G]     prints "key value" lines */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sum of v[0..n): the read bandwidth (four independent sums so the adds overlap). */
static double read_sum(const double *v, size_t n)
{
    double a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a += v[i];
        b += v[i + 1];
        c += v[i + 2];
        d += v[i + 3];
    }
    for (; i < n; i++) a += v[i];
    return a + b + c + d;
}

/* The replay arithmetic over one row of G GPUs: out[g] and its largest and smallest. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static double kernel_row(const double *restrict fs, const double *restrict ft, const double *restrict st,
                         const double *restrict done, double *restrict out, int G, double fl, double sens)
{
    double mx = -INFINITY, mn = INFINITY;
#pragma omp simd reduction(max : mx) reduction(min : mn)
    for (int g = 0; g < G; g++) {
        double gap = done[g] - (fs[g] + ft[g]);
        double e = st[g] - gap;
        double earlier = e < 0.0 ? fl : e;
        double later = st[g] > sens ? e : st[g];
        double v = gap > 0.0 ? earlier : (gap < 0.0 ? later : st[g]);
        out[g] = v;
        mx = v > mx ? v : mx;
        mn = v < mn ? v : mn;
    }
    return mx - mn;
}

int main(int argc, char **argv)
{
    size_t mb = 512;
    int G = 1024;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mb = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--gpus") && i + 1 < argc) G = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: stallsim_probe [--mb N] [--gpus G]\n");
            return 2;
        }
    }
    if (mb < 16 || G < 1) {
        fprintf(stderr, "stallsim_probe: --mb must be >= 16 and --gpus >= 1\n");
        return 2;
    }
    size_t n = mb * 1048576 / sizeof(double);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "stallsim_probe: out of memory for 2 x %zu MB\n", mb);
        return 1;
    }
    for (size_t i = 0; i < n; i++) a[i] = b[i] = (double)(i % 1000) * 1e-3;
    double best_copy = INFINITY, best_read = INFINITY, sink = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        memcpy(b, a, n * sizeof *a);
        double t1 = now();
        sink += read_sum(b, n);
        double t2 = now();
        best_copy = t1 - t0 < best_copy ? t1 - t0 : best_copy;
        best_read = t2 - t1 < best_read ? t2 - t1 : best_read;
    }
    /* copy moves the bytes once in and once out; count the bytes copied, as a reader does */
    printf("copy_bytes_per_s %.4g\n", (double)(n * sizeof *a) / best_copy);
    printf("read_bytes_per_s %.4g\n", (double)(n * sizeof *a) / best_read);
    free(b);

    /* 64 rows of G GPUs, each replayed 9 times in a row (in cache, as the sweep replays
     * a prepared row for its scenarios) */
    const int R = 64;
    double *fs = a, *ft = a + (size_t)R * G, *st = a + 2 * (size_t)R * G, *done = a + 3 * (size_t)R * G;
    double *out = malloc((size_t)G * sizeof *out);
    if (!out || 5 * (size_t)R * G > n) {
        fprintf(stderr, "stallsim_probe: too many GPUs for the buffer\n");
        free(a);
        free(out);
        return 1;
    }
    for (size_t i = 0; i < (size_t)R * G; i++) {
        fs[i] = 0.01 * (double)(i % 97);
        ft[i] = 0.02 * (double)(i % 89);
        st[i] = 0.005 * (double)(i % 13);
        done[i] = fs[i] + ft[i] + 0.01 * (double)((int)(i % 7) - 3);
    }
    double best_k = INFINITY;
    long evals = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        long e = 0;
        for (int it = 0; it < 25; it++)
            for (int r = 0; r < R; r++)
                for (int sc = 0; sc < 9; sc++) {
                    size_t o = (size_t)r * G;
                    sink += kernel_row(fs + o, ft + o, st + o, done + o, out, G, 0.0, 0.003 * sc);
                    e += G;
                }
        double t = now() - t0;
        if (t < best_k) best_k = t;
        evals = e;
    }
    printf("kernel_evals_per_s %.4g\n", (double)evals / best_k);
    printf("checksum %.6g\n", sink);
    free(a);
    free(out);
    return 0;
}
