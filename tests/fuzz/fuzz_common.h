/* fuzz_common.h - helpers shared by the libFuzzer harnesses: a per-process temporary
 * folder (removed at exit), writing input bytes to files in it, and the separator split. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[512];

static inline void fuzz_rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[1024];
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static inline void fuzz_dir_clean(void)
{
    if (!fuzz_dir[0]) return;
    fuzz_rm_dir(fuzz_dir);
    fuzz_dir[0] = '\0';
}

/* A process that crashed (the findings, -minimize_crash) leaves its folder behind: the
 * folders stallsim-fuzz-<pid>-* of processes that no longer exist are removed. */
static inline void fuzz_dir_sweep(const char *base)
{
    DIR *d = opendir(base);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)) != NULL) {
        long pid;
        char tail[16];
        if (sscanf(e->d_name, "stallsim-fuzz-%ld-%15s", &pid, tail) != 2 || strlen(tail) != 6) continue;
        if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        snprintf(p, sizeof p, "%s/%s", base, e->d_name);
        fuzz_rm_dir(p);
    }
    closedir(d);
}

/* The process's own temporary folder, made on first use. */
static inline const char *fuzz_tmpdir(void)
{
    if (fuzz_dir[0]) return fuzz_dir;
    const char *base = getenv("TMPDIR");
    if (!base || !base[0]) base = "/tmp";
    fuzz_dir_sweep(base);
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/stallsim-fuzz-%ld-XXXXXX", base, (long)getpid());
    if (!mkdtemp(fuzz_dir)) {
        perror("mkdtemp");
        abort();
    }
    atexit(fuzz_dir_clean);
    return fuzz_dir;
}

/* Writes n bytes to <tmpdir>/<name>; the full path goes to out. */
static inline void fuzz_write(const char *name, const void *data, size_t n, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s", fuzz_tmpdir(), name);
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        abort();
    }
    if (n && fwrite(data, 1, n, f) != n) abort();
    fclose(f);
}

/* Next piece of [*p, end) up to the separator sep (or the end); NULL when none is left. */
static inline const uint8_t *fuzz_piece(const uint8_t **p, const uint8_t *end, const char *sep, size_t *len)
{
    if (!*p) return NULL;
    const uint8_t *s = *p;
    size_t sl = strlen(sep), rest = (size_t)(end - s);
    const uint8_t *hit = NULL;
    for (size_t i = 0; sl && i + sl <= rest && !hit; i++)
        if (!memcmp(s + i, sep, sl)) hit = s + i;
    if (hit) {
        *len = (size_t)(hit - s);
        *p = hit + sl;
    } else {
        *len = rest;
        *p = NULL;
    }
    return s;
}

/* A NUL-terminated malloc'd copy of n bytes. */
static inline char *fuzz_strndup(const uint8_t *s, size_t n)
{
    char *r = malloc(n + 1);
    if (!r) abort();
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

#endif
