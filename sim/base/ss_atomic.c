/* ss_atomic.c - temporary-name-then-rename output, and output folder checks. */
#include "ss_atomic.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ss_status ss_atomic_tmpname(const char *path, char *buf, size_t bufsize)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    int n = snprintf(buf, bufsize, "%.*s.%s.tmp.%ld", dirlen, path, base, (long)getpid());
    if (n < 0 || (size_t)n >= bufsize) return ss_fail(SS_EUSAGE, "%s: path too long", path);
    return SS_OK;
}

ss_status ss_atomic_commit(const char *tmp, const char *path)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return ss_fail(SS_EIO, "%s: cannot move result into place: %s", path, strerror(e));
    }
    return SS_OK;
}

void ss_atomic_discard(const char *tmp)
{
    if (tmp && tmp[0]) unlink(tmp);
}

ss_status ss_ensure_dir(const char *dir)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) return ss_fail(SS_EUSAGE, "output folder name '%s' is empty or too long", dir);
    memcpy(buf, dir, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return ss_fail(SS_EIO, "%s: cannot create output folder: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return ss_fail(SS_EIO, "%s: cannot create output folder: %s", buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return ss_fail(SS_EIO, "%s: output path exists and is not a folder", buf);
    if (access(buf, W_OK | X_OK) != 0)
        return ss_fail(SS_EIO, "%s: output folder is not writable: %s", buf, strerror(errno));
    return SS_OK;
}
