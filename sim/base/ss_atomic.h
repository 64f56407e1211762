/* ss_atomic.h - whole-or-nothing output files: write to a temporary sibling, rename. */
#ifndef SS_ATOMIC_H
#define SS_ATOMIC_H

#include <stddef.h>

#include "ss_status.h"

/* Writes "<dir>/.<base>.tmp.<pid>" for path "<dir>/<base>" into buf. */
ss_status ss_atomic_tmpname(const char *path, char *buf, size_t bufsize);
/* Renames tmp onto path (atomic on POSIX within one file system). */
ss_status ss_atomic_commit(const char *tmp, const char *path);
/* Removes tmp if it exists; never fails. */
void ss_atomic_discard(const char *tmp);
/* Creates dir (and parents) if missing; SS_EIO naming it when it cannot be written. */
ss_status ss_ensure_dir(const char *dir);

#endif
