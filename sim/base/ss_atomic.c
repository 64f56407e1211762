/* ss_atomic.c - temporary-name-then-rename outputs, output checks, the registry of live
 * temporaries and its signal handler, stale temporaries, the locked commit of a pair. */
#define _GNU_SOURCE /* flock, renameat2, gethostname */
#include "ss_atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ss_limits.h"

/* ---- the registry of live temporaries ---- */

enum { REG_SLOTS = 16, REG_NAME = SS_PATH_MAX + 256 };
static char reg_name[REG_SLOTS][REG_NAME];
static volatile sig_atomic_t reg_used[REG_SLOTS];

void ss_atomic_track(const char *tmp)
{
    if (!tmp || !tmp[0] || strlen(tmp) >= REG_NAME) return;
    for (int i = 0; i < REG_SLOTS; i++)
        if (reg_used[i] && !strcmp(reg_name[i], tmp)) return;
    for (int i = 0; i < REG_SLOTS; i++) {
        if (reg_used[i]) continue;
        memcpy(reg_name[i], tmp, strlen(tmp) + 1); /* the name first, then the flag */
        atomic_signal_fence(memory_order_seq_cst); /* the handler never sees a flag before its name */
        reg_used[i] = 1;
        return;
    }
    ss_warn("%s: more than %d temporary files at once; this one is not removed if the run is interrupted", tmp,
            REG_SLOTS);
}

void ss_atomic_untrack(const char *tmp)
{
    if (!tmp) return;
    for (int i = 0; i < REG_SLOTS; i++)
        if (reg_used[i] && !strcmp(reg_name[i], tmp)) {
            reg_used[i] = 0;
            atomic_signal_fence(memory_order_seq_cst); /* the flag goes before the slot is reused */
        }
}

/* The output folders this process created (parents first), removed again, when still
 * empty, if the run fails or is interrupted: no empty folder is left for a run that wrote
 * nothing. */
enum { NEWDIR_SLOTS = 8 };
static char newdir[NEWDIR_SLOTS][REG_NAME];
static char newlock[NEWDIR_SLOTS][REG_NAME + 32]; /* its commit lock, "<dir>/.stallsim.lock" */
static volatile sig_atomic_t newdir_n;

static void remember_new_dir(const char *dir)
{
    if (newdir_n >= NEWDIR_SLOTS || strlen(dir) >= REG_NAME) return;
    memcpy(newdir[newdir_n], dir, strlen(dir) + 1);
    snprintf(newlock[newdir_n], sizeof newlock[0], "%s/.stallsim.lock", dir);
    atomic_signal_fence(memory_order_seq_cst);
    newdir_n++;
}

void ss_atomic_keep_new_dirs(void) { newdir_n = 0; }

/* async-signal-safe: the folders this run created, with the lock of a commit it began
 * in them (the folder is its own); rmdir fails, harmlessly, on one that is not empty */
static void unmake_new_dirs(void)
{
    for (int i = (int)newdir_n - 1; i >= 0; i--) {
        unlink(newlock[i]);
        rmdir(newdir[i]);
    }
}

void ss_atomic_remove_new_dirs(void)
{
    unmake_new_dirs();
    newdir_n = 0;
}

/* 1 once this process has moved a result pair into place */
static volatile sig_atomic_t committed;

/* async-signal-safe: unlink, rmdir, write, sigaction and raise only */
static void on_signal(int sig)
{
    for (int i = 0; i < REG_SLOTS; i++)
        if (reg_used[i]) unlink(reg_name[i]);
    unmake_new_dirs();
    /* a pipe whose reader the same Ctrl-C ended must not turn the write into SIGPIPE */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, NULL);
    if (sig == SIGINT) { /* Ctrl-C; not SIGTERM, with which mpirun also stops the other ranks of a job
                          * that one rank's error ended (that error is the message) */
        static const char said[] = "stallsim: interrupted (its temporary files removed)\n";
        static const char after[] = "stallsim: interrupted after its results were written (they are complete)\n";
        ssize_t w = committed ? write(STDERR_FILENO, after, sizeof after - 1)
                              : write(STDERR_FILENO, said, sizeof said - 1);
        (void)w;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig); /* delivered when the handler returns: the default action ends the process */
}

static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* ---- a guarded stretch (ss_atomic_guard_begin) ---- */
static const int guard_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM};
#define GUARD_NSIG (sizeof guard_signals / sizeof guard_signals[0])
static struct sigaction guard_old[GUARD_NSIG];
static char guard_crash[SS_PATH_MAX + 600], guard_late[SS_PATH_MAX + 600];
static struct itimerval guard_timer_old; /* a timer of someone else's (libFuzzer's -timeout), put back */
static size_t guard_crash_n, guard_late_n;
static volatile sig_atomic_t guard_on;

/* async-signal-safe: unlink, rmdir, write and _exit only */
static void on_guard(int sig)
{
    for (int i = 0; i < REG_SLOTS; i++)
        if (reg_used[i]) unlink(reg_name[i]);
    unmake_new_dirs();
    ssize_t w = sig == SIGALRM ? write(STDERR_FILENO, guard_late, guard_late_n)
                               : write(STDERR_FILENO, guard_crash, guard_crash_n);
    (void)w;
    _exit(1);
}

void ss_atomic_guard_begin(const char *crash_msg, const char *late_msg, unsigned seconds)
{
    guard_crash_n = (size_t)snprintf(guard_crash, sizeof guard_crash, "stallsim: %s\n", crash_msg);
    guard_late_n = (size_t)snprintf(guard_late, sizeof guard_late, "stallsim: %s\n", late_msg);
    if (guard_crash_n >= sizeof guard_crash) guard_crash_n = sizeof guard_crash - 1;
    if (guard_late_n >= sizeof guard_late) guard_late_n = sizeof guard_late - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_guard;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < GUARD_NSIG; i++) sigaction(guard_signals[i], &sa, &guard_old[i]);
    guard_on = 1;
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = (time_t)seconds;
    setitimer(ITIMER_REAL, &t, &guard_timer_old);
}

void ss_atomic_guard_end(void)
{
    if (!guard_on) return;
    struct itimerval none;
    memset(&none, 0, sizeof none);
    setitimer(ITIMER_REAL, &none, NULL);
    for (size_t i = 0; i < GUARD_NSIG; i++) sigaction(guard_signals[i], &guard_old[i], NULL);
    if (guard_timer_old.it_value.tv_sec || guard_timer_old.it_value.tv_usec)
        setitimer(ITIMER_REAL, &guard_timer_old, NULL);
    guard_on = 0;
}

void ss_atomic_install_signals(void)
{
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(handled_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof handled_signals / sizeof handled_signals[0]; k++)
            sigaddset(&sa.sa_mask, handled_signals[k]);
        sigaction(handled_signals[i], &sa, NULL);
    }
}

static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) sigaddset(&set, handled_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* ---- temporary names, commit, discard ---- */

/* This machine's short host name as a name part: up to the first dot, at most 64
 * characters, each outside [A-Za-z0-9-] replaced by '-' ("host" when it has none), then
 * '_' and the number of its process-id namespace where /proc tells it */
static void host_tag(char *buf, size_t bufsize)
{
    char host[256] = "";
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    size_t n = 0;
    for (const char *h = host; *h && *h != '.' && n < 64 && n + 1 < bufsize; h++, n++) {
        const char ch = *h;
        buf[n] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ? ch : '-';
    }
    buf[n] = '\0';
    if (n == 0) n = (size_t)snprintf(buf, bufsize, "host");
    /* and the process-id namespace ("pid:[4026531836]"): containers that share a host
     * name (and a folder) count their processes apart, and one cannot ask after another's */
    char ns[64];
    ssize_t m = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    if (m > 0 && n + 2 < bufsize) {
        ns[m] = '\0';
        size_t k = n;
        buf[k++] = '_';
        for (const char *c = ns; *c && k + 1 < bufsize; c++)
            if (*c >= '0' && *c <= '9') buf[k++] = *c;
        buf[k] = '\0';
    }
}

void ss_atomic_owner(char *buf, size_t bufsize)
{
    char host[96];
    host_tag(host, sizeof host);
    snprintf(buf, bufsize, "%s-%ld", host, (long)getpid());
}

ss_status ss_atomic_tmpname_owner(const char *path, const char *owner, char *buf, size_t bufsize)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    int n = snprintf(buf, bufsize, "%.*s.%s.tmp.%s", dirlen, path, base, owner);
    if (n < 0 || (size_t)n >= bufsize) return ss_fail(SS_EUSAGE, "%s: path too long", path);
    ss_atomic_track(buf);
    return SS_OK;
}

ss_status ss_atomic_tmpname(const char *path, char *buf, size_t bufsize)
{
    char owner[SS_ATOMIC_OWNER_MAX];
    ss_atomic_owner(owner, sizeof owner);
    return ss_atomic_tmpname_owner(path, owner, buf, bufsize);
}

ss_status ss_atomic_commit(const char *tmp, const char *path)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        ss_atomic_untrack(tmp);
        return ss_fail(SS_EIO, "%s: cannot move result into place: %s", path, strerror(e));
    }
    ss_atomic_untrack(tmp);
    return SS_OK;
}

void ss_atomic_discard(const char *tmp)
{
    if (tmp && tmp[0]) unlink(tmp);
    ss_atomic_untrack(tmp);
}

/* Puts tmp in path's place. *swapped = 1 when the earlier path is kept under the name
 * old[] (tmp itself after an exchange, or a hard link "<tmp>.old" made first where the
 * file system cannot exchange), so that the step can be undone; 0 when there was no
 * earlier path; 2 when it was replaced without a copy (no hard links there). */
static int no_exchange; /* tests: behave as on a file system without RENAME_EXCHANGE */
void ss_atomic_test_no_exchange(int on) { no_exchange = on; }

static int swap_in(const char *tmp, const char *path, char *old, size_t oldsize, int *swapped)
{
    *swapped = 0;
    if (!no_exchange && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
        snprintf(old, oldsize, "%s", tmp);
        *swapped = 1;
        return 0;
    }
    /* no earlier file (ENOENT), or a file system without exchange (EINVAL, ENOSYS): keep
     * the earlier file under a second name before it is replaced (without hard links it
     * cannot be brought back) */
    int n = snprintf(old, oldsize, "%s.old", tmp);
    if (n > 0 && (size_t)n < oldsize) {
        unlink(old); /* this process's name: a leftover of an earlier process of the same id */
        if (link(path, old) == 0) *swapped = 1;
        else if (errno != ENOENT) *swapped = 2;
    } else if (access(path, F_OK) == 0) {
        *swapped = 2;
    }
    if (rename(tmp, path) == 0) return 0;
    int e = errno;
    if (*swapped == 1) unlink(old);
    *swapped = 0;
    errno = e;
    return -1;
}

void ss_folder_of(const char *path, char *out, size_t outsize)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, outsize, ".");
    else if (slash == path) snprintf(out, outsize, "/");
    else snprintf(out, outsize, "%.*s", (int)(slash - path), path);
}

static int commit_replaced; /* the last ss_atomic_commit_pair replaced an earlier file */

int ss_atomic_commit_replaced(void) { return commit_replaced; }

ss_status ss_atomic_commit_pair(const char *tmp1, const char *path1, const char *tmp2, const char *path2)
{
    commit_replaced = 0;
    char dir[SS_PATH_MAX], lock[SS_PATH_MAX + 32];
    ss_folder_of(path1, dir, sizeof dir);
    snprintf(lock, sizeof lock, "%s/.stallsim.lock", dir);
    /* the lock first (a wait for another run can still be interrupted: the handler removes
     * the temporaries), then the signals are held back for the two renames */
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    /* a file system without locks still gets the undo below; only concurrent runs into one
     * folder are then unprotected */
    if (fd >= 0) {
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
        }
    }
    sigset_t old;
    block_signals(&old);
    ss_status st = SS_OK;
    int sw1 = 0, sw2 = 0;
    char old1[SS_PATH_MAX + 300], old2[SS_PATH_MAX + 300];
    if (swap_in(tmp1, path1, old1, sizeof old1, &sw1) != 0) {
        st = ss_fail(SS_EIO, "%s: cannot move result into place: %s", path1, strerror(errno));
        unlink(tmp1);
        unlink(tmp2);
    } else if (swap_in(tmp2, path2, old2, sizeof old2, &sw2) != 0) {
        int e = errno;
        /* undo the first step: the earlier path1 comes back, or the new one goes; one
         * replaced without a copy stays new, and the message says so */
        if (sw1 == 1) rename(old1, path1);
        else if (sw1 == 0) unlink(path1);
        unlink(tmp1);
        unlink(tmp2);
        if (sw1 == 2)
            st = ss_fail(SS_EIO, "%s: cannot move result into place: %s (%s was already replaced by this run's and "
                         "could not be put back: the folder's file system has no hard links)", path2, strerror(e),
                         path1);
        else
            st = ss_fail(SS_EIO, "%s: cannot move result into place: %s (%s is left as it was)", path2,
                         strerror(e), path1);
    } else {
        if (sw1 == 1) unlink(old1); /* the earlier files, now under their second names */
        if (sw2 == 1) unlink(old2);
        commit_replaced = sw1 != 0 || sw2 != 0;
        committed = 1;
    }
    ss_atomic_untrack(tmp1);
    ss_atomic_untrack(tmp2);
    if (fd >= 0) close(fd); /* releases the lock */
    sigprocmask(SIG_SETMASK, &old, NULL);
    return st;
}

/* An existing output folder (st its stat, NULL: none) is a folder that can be written */
static ss_status output_folder_ok(const char *dir, const struct stat *st)
{
    if (!st || !S_ISDIR(st->st_mode))
        return ss_fail(SS_EUSAGE, "%s: exists and is not a folder: the output ([output] dir, --out) is a folder, "
                                  "give a new or a results folder", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ss_fail(SS_EIO, "%s: output folder is not writable: %s", dir, strerror(errno));
    return SS_OK;
}

/* stat failed on name (errno says why): 1 when name is only missing, and so can be made
 * (not a link to nothing, a loop, a name too long) */
static int only_missing(const char *name)
{
    struct stat st;
    return errno == ENOTDIR || (errno == ENOENT && lstat(name, &st) != 0);
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
        if (mkdir(buf, 0777) == 0) remember_new_dir(buf);
        else if (errno != EEXIST) return ss_fail(SS_EIO, "%s: cannot create output folder: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) == 0) remember_new_dir(buf);
    else if (errno != EEXIST) return ss_fail(SS_EIO, "%s: cannot create output folder: %s", buf, strerror(errno));
    struct stat st;
    return output_folder_ok(buf, stat(buf, &st) == 0 ? &st : NULL);
}

ss_status ss_check_dir(const char *dir)
{
    char buf[4096], up[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) return ss_fail(SS_EUSAGE, "output folder name '%s' is empty or too long", dir);
    memcpy(buf, dir, n + 1);
    struct stat st;
    if (stat(buf, &st) == 0) return output_folder_ok(buf, &st);
    /* only a missing name is made later: a dangling link, a loop, a name too long fail now */
    if (!only_missing(buf))
        return ss_fail(SS_EIO, "%s: cannot create output folder: %s", dir,
                       errno == ENOENT ? "a link to nothing" : strerror(errno));
    /* the nearest existing ancestor ("." for a relative name without one) */
    for (;;) {
        while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0'; /* a trailing slash */
        ss_folder_of(buf, up, sizeof up);
        memcpy(buf, up, (n = strlen(up)) + 1);
        if (stat(buf, &st) == 0) break;
        if (!only_missing(buf))
            return ss_fail(SS_EIO, "%s: cannot create output folder: %s: %s", dir, buf,
                           errno == ENOENT ? "a link to nothing" : strerror(errno));
        if (!strcmp(buf, ".") || !strcmp(buf, "/")) return SS_OK; /* nothing to check against */
    }
    if (!S_ISDIR(st.st_mode))
        return ss_fail(SS_EUSAGE, "%s: cannot create output folder: %s is not a folder", dir, buf);
    if (access(buf, W_OK | X_OK) != 0)
        return ss_fail(SS_EIO, "%s: cannot create output folder: %s: %s", dir, buf, strerror(errno));
    return SS_OK;
}

/* ---- outputs never over inputs or other files ---- */

ss_status ss_atomic_check_output_advised(const char *out, const char *const *inputs, int ninputs, ss_kind_fn is_kind,
                                         const char *kind, const char *advice)
{
    if (!out[0]) return ss_fail(SS_EUSAGE, "the output file name is empty");
    struct stat so;
    if (stat(out, &so) != 0) return SS_OK; /* nothing there yet (or unreachable: the write says why) */
    /* what is wrong, then what to do: the caller's advice, or advice on the file's name */
    char what[SS_PATH_MAX + 400];
    const char *own = "";
    what[0] = '\0';
    for (int i = 0; i < ninputs && !what[0]; i++) {
        struct stat si;
        if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            snprintf(what, sizeof what, "the output would replace the input %s", inputs[i]);
            own = "; choose another output name";
        }
    }
    char name_kind[256];
    snprintf(name_kind, sizeof name_kind, "; give the name of a %s to write", kind);
    if (!what[0] && S_ISDIR(so.st_mode)) {
        snprintf(what, sizeof what, "is a folder");
        own = name_kind;
    } else if (!what[0] && !S_ISREG(so.st_mode)) {
        snprintf(what, sizeof what, "is not a regular file (a device or a pipe); refusing to replace it");
    } else if (!what[0]) {
        if (so.st_size == 0 || !is_kind || is_kind(out) == 1) return SS_OK;
        snprintf(what, sizeof what, "exists and is not a %s; refusing to replace it", kind);
        own = " (remove it or choose another name)";
    }
    return advice ? ss_fail(SS_EUSAGE, "%s: %s: %s", out, what, advice) : ss_fail(SS_EUSAGE, "%s: %s%s", out, what, own);
}

ss_status ss_atomic_check_output(const char *out, const char *const *inputs, int ninputs, ss_kind_fn is_kind,
                                 const char *kind)
{
    return ss_atomic_check_output_advised(out, inputs, ninputs, is_kind, kind, NULL);
}

int ss_atomic_starts_with(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    char buf[256];
    if (n > sizeof buf) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    return got == n && !memcmp(buf, prefix, n);
}

/* ---- stale temporaries ---- */

/* The process id of ".<name>.tmp.<host>-<pid>" (or of ".<name>.tmp.<pid>", as written
 * before the host was part of the name) for one of names, else -1; its host into host
 * ("" for the older form). */
static long stale_pid(const char *entry, const char *const *names, int nnames, char *host, size_t hostsize)
{
    if (entry[0] != '.') return -1;
    for (int i = 0; i < nnames; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(entry + 1, names[i], n) != 0) continue;
        const char *r = entry + 1 + n;
        if (strncmp(r, ".tmp.", 5) != 0) continue;
        r += 5;
        /* the host: the part before the last '-' that precedes the process id */
        const char *end = r;
        while (*end && *end != '.') end++; /* (a host part never holds a dot) */
        const char *dash = NULL;
        for (const char *q = r; q < end; q++)
            if (*q == '-') dash = q;
        host[0] = '\0';
        if (dash) {
            size_t hl = (size_t)(dash - r);
            if (hl == 0 || hl >= hostsize) continue;
            memcpy(host, r, hl);
            host[hl] = '\0';
            r = dash + 1;
        }
        if (*r < '1' || *r > '9') continue;
        long pid = 0;
        int digits = 0;
        for (; *r >= '0' && *r <= '9' && digits < 10; r++, digits++) pid = pid * 10 + (*r - '0');
        /* the name, or the copy of an earlier file that the commit keeps while it replaces
         * it (the name + ".old") */
        if (digits <= 9 && (*r == '\0' || !strcmp(r, ".old"))) return pid;
    }
    return -1;
}

void ss_atomic_sweep_stale(const char *dir, const char *const *names, int nnames)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    time_t now = time(NULL);
    char me[96], host[96];
    host_tag(me, sizeof me);
    while ((e = readdir(d)) != NULL) {
        long pid = stale_pid(e->d_name, names, nnames, host, sizeof host);
        if (pid <= 0) continue;
        /* a process of this machine can be asked whether it runs; one of another machine
         * (or of a name without its host) cannot be, and may still be writing */
        const int here = host[0] && !strcmp(host, me);
        if (!host[0] || here) {
            if (pid == (long)getpid()) continue;
            if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* running (or not ours to see) */
        }
        char path[SS_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        if (!here && now - sb.st_mtime < 15 * 60) {
            if (host[0])
                ss_warn("%s: a temporary file of process %ld on host %s, which may still be writing it: the next run "
                        "removes it once it is 15 minutes old; remove it now if that process no longer runs",
                        path, pid, host);
            else
                ss_warn("%s: a temporary file of process %ld, which is not running here (it was killed, or it runs on "
                        "another machine that writes into this folder): the next run removes it once it is 15 minutes "
                        "old; remove it now if no other machine's run writes it",
                        path, pid);
            continue;
        }
        if (unlink(path) == 0) {
            if (here || !host[0]) ss_warn("removed %s, left by process %ld that no longer runs", path, pid);
            else ss_warn("removed %s, left by process %ld on host %s more than 15 minutes ago", path, pid, host);
        }
    }
    closedir(d);
}

void ss_atomic_sweep_stale_beside(const char *path)
{
    char dir[SS_PATH_MAX];
    ss_folder_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (name[0]) ss_atomic_sweep_stale(dir, &name, 1);
}

/* ---- digests, run ids, unclosable files ---- */

int ss_atomic_file_digest(const char *path, char *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    unsigned long long h = 0xcbf29ce484222325ULL;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++) h = (h ^ buf[i]) * 0x100000001b3ULL;
    int bad = ferror(f);
    fclose(f);
    if (bad) return -1;
    snprintf(out, 17, "%016llx", h);
    return 0;
}

void ss_atomic_run_id(char *buf, size_t bufsize)
{
    char host[256] = "";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = '\0';
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, bufsize, "%s-%ld-%lld.%09ld", host, (long)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
}

static int unclosable;
void ss_atomic_note_unclosable(void) { unclosable = 1; }
int ss_atomic_unclosable(void) { return unclosable; }
