/* ss_parts.h - names made of parts ("pipe W=2 P=4", "pipeline_w-2_p4_fs1"): the parts that
 * every name of a group shares, and a name without them, so that a table can say the shared
 * settings once (run's labels, compare's scenario names). */
#ifndef SS_PARTS_H
#define SS_PARTS_H

#include <stddef.h>

/* Into out: the parts of names[0], past its first (the model's), that every one of the n
 * names has past its own first, joined by sep; with kv_only only parts holding a '='. ""
 * when there are none or n < 2. O(n x parts^2). */
void ss_parts_shared(const char *const *names, int n, char sep, int kv_only, char *out, size_t cap);

/* Keeps in shared (parts as ss_parts_shared writes them) those that name has past its
 * first: one more name of the group, taken in place (no array of all the names). */
void ss_parts_keep(char *shared, const char *name, char sep);

/* Into out: name without the parts (past its first) that are in shared (as ss_parts_shared
 * writes it); name whole when shared is "". */
void ss_parts_drop(const char *name, const char *shared, char sep, char *out, size_t cap);

#endif
