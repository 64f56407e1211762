/* ss_atomic.h - whole-or-nothing output files: write to a temporary sibling, rename; never
 * over an input or a file of another kind; no temporaries left behind on a signal; two
 * outputs committed as one unit. */
#ifndef SS_ATOMIC_H
#define SS_ATOMIC_H

#include <stddef.h>

#include "ss_status.h"

/* Writes "<dir>/.<base>.tmp.<host>-<pid>" for path "<dir>/<base>" into buf (host: this
 * machine's short name and its process-id namespace, "node7_4026531836"; pid: this
 * process's), and registers it as a live temporary (removed by the SIGINT/SIGTERM/SIGHUP
 * handler) until it is committed or discarded. */
ss_status ss_atomic_tmpname(const char *path, char *buf, size_t bufsize);
/* "<host>-<pid>" of this process (at most SS_ATOMIC_OWNER_MAX bytes with its end). */
#define SS_ATOMIC_OWNER_MAX 128
void ss_atomic_owner(char *buf, size_t bufsize);
/* The same with another process's "<host>-<pid>" (the ranks of one run share rank 0's name). */
ss_status ss_atomic_tmpname_owner(const char *path, const char *owner, char *buf, size_t bufsize);
/* Registers / unregisters a temporary named some other way (at most 16 live at once). */
void ss_atomic_track(const char *tmp);
void ss_atomic_untrack(const char *tmp);
/* Renames tmp onto path (atomic on POSIX within one file system). */
ss_status ss_atomic_commit(const char *tmp, const char *path);
/* Removes tmp if it exists; never fails. */
void ss_atomic_discard(const char *tmp);
/* Commits two outputs of one folder as one unit: under an exclusive lock on
 * "<folder of path1>/.stallsim.lock", with SIGINT/SIGTERM/SIGHUP held back, tmp1 replaces
 * path1 and tmp2 replaces path2; when the second step fails the first is undone (the
 * earlier path1 comes back), so that the pair is either both new or both as before. Both
 * temporaries are gone afterwards. */
ss_status ss_atomic_commit_pair(const char *tmp1, const char *path1, const char *tmp2, const char *path2);
/* 1 when the last ss_atomic_commit_pair of this process replaced an earlier file (decided
 * under its lock, so two runs racing into one folder tell it right) */
int ss_atomic_commit_replaced(void);
/* Tests only: 1 makes the pair commit take the path of file systems that cannot exchange
 * two names (the earlier file is kept by a hard link). */
void ss_atomic_test_no_exchange(int on);
/* Creates dir (and parents) if missing; SS_EIO naming it when it cannot be written. The
 * folders it creates are removed again (when still empty) on SIGINT/SIGTERM/SIGHUP and by
 * ss_atomic_remove_new_dirs, until ss_atomic_keep_new_dirs. */
ss_status ss_ensure_dir(const char *dir);
/* Checks, creating nothing, that ss_ensure_dir(dir) could succeed: dir is a writable
 * folder, or its nearest existing ancestor is one (so that a run killed outright before
 * its outputs, as mpirun does to ranks it cannot stop, leaves no empty folder behind);
 * the same errors as ss_ensure_dir. */
ss_status ss_check_dir(const char *dir);
/* The folder of path into out: "." for a bare name, "/" for a name at the root. */
void ss_folder_of(const char *path, char *out, size_t outsize);
/* The run wrote its outputs: the folders ss_ensure_dir created stay. */
void ss_atomic_keep_new_dirs(void);
/* The run failed: removes the folders ss_ensure_dir created, deepest first, where empty. */
void ss_atomic_remove_new_dirs(void);

/* Installs the handler that removes the registered temporaries on SIGINT, SIGTERM and
 * SIGHUP, then ends the process with the signal's default action (signals that are
 * ignored when the process starts stay ignored). */
void ss_atomic_install_signals(void);

/* Guards a stretch of code in which a library may crash or loop forever on a damaged file
 * (libhdf5 reading a damaged global heap): until ss_atomic_guard_end, a crash (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL) or `seconds` without the end (SIGALRM) removes the registered
 * temporaries and this run's new folders, writes "stallsim: " and crash_msg (or late_msg)
 * on stderr and ends the process with status 1. Not nested; the messages are copied. */
void ss_atomic_guard_begin(const char *crash_msg, const char *late_msg, unsigned seconds);
void ss_atomic_guard_end(void);

/* 1 when path holds this kind of output (decides whether it may be replaced). */
typedef int (*ss_kind_fn)(const char *path);

/* Checks that writing the output `out` cannot destroy anything: out must not be one of
 * the inputs (same device and inode, whatever the names), not a folder or a device, and
 * when it exists and is not empty it must be a `kind` (is_kind(out) == 1; NULL: any
 * regular file). SS_EUSAGE naming both files otherwise. */
ss_status ss_atomic_check_output(const char *out, const char *const *inputs, int ninputs, ss_kind_fn is_kind,
                                 const char *kind);
/* The same, its message ending ": <advice>" instead of advice on the file's name (an output
 * whose name the command chose, not the user: run's files in its output folder). */
ss_status ss_atomic_check_output_advised(const char *out, const char *const *inputs, int ninputs, ss_kind_fn is_kind,
                                         const char *kind, const char *advice);
/* 1 when the file at path begins with prefix (e.g. a CSV header). */
int ss_atomic_starts_with(const char *path, const char *prefix);

/* Removes the temporaries "<dir>/.<name>.tmp.<host>-<pid>" of the given output names
 * that processes which no longer run left behind (killed with SIGKILL, a crashed node).
 * One of this machine whose process is gone is removed at once; one of another machine
 * (whose process cannot be asked) modified in the last 15 minutes may still be written:
 * it is kept, with a warning that says where it is. Names without the host
 * (".<name>.tmp.<pid>", as earlier versions wrote them) are taken as of another machine
 * unless their process runs here. */
void ss_atomic_sweep_stale(const char *dir, const char *const *names, int nnames);
/* The same for the one output file path, in its folder. */
void ss_atomic_sweep_stale_beside(const char *path);

/* FNV-1a 64-bit digest of a file's bytes as 16 hexadecimal digits (out: 17 bytes). 0 ok. */
int ss_atomic_file_digest(const char *path, char *out);
/* A text that names this run: host, process id and the time (for run_id attributes). */
void ss_atomic_run_id(char *buf, size_t bufsize);

/* Records that an HDF5 file could not be closed (libhdf5 1.10 then crashes in its exit
 * handlers), so that the command exits without running them. */
void ss_atomic_note_unclosable(void);
int ss_atomic_unclosable(void);

#endif
