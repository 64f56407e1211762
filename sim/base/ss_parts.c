/* ss_parts.c - the parts that a group of names shares, and a name without them. */
#include "ss_parts.h"

#include <stdio.h>
#include <string.h>

/* 1 when the part p (length n) is one of the sep-separated parts of list (all of them) */
static int has_part(const char *list, const char *seps, const char *p, size_t n)
{
    for (const char *q = list;;) {
        size_t k = strcspn(q, seps);
        if (k == n && !strncmp(q, p, n)) return 1;
        if (!q[k]) return 0;
        q += k + 1;
    }
}

/* The parts of name past its first: the text after its first separator, or "" */
static const char *rest_of(const char *name, const char *seps)
{
    size_t k = strcspn(name, seps);
    return name[k] ? name + k + 1 : "";
}

void ss_parts_shared(const char *const *names, int n, char sep, int kv_only, char *out, size_t cap)
{
    const char seps[2] = {sep, '\0'};
    size_t len = 0;
    if (cap == 0) return;
    out[0] = '\0';
    if (n < 2) return;
    for (const char *p = rest_of(names[0], seps); *p && len < cap;) {
        size_t k = strcspn(p, seps);
        int shared = k > 0 && (!kv_only || memchr(p, '=', k));
        for (int i = 1; shared && i < n; i++) shared = has_part(rest_of(names[i], seps), seps, p, k);
        if (shared) len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? seps : "", (int)k, p);
        p += k;
        if (*p) p++;
    }
}

void ss_parts_keep(char *shared, const char *name, char sep)
{
    const char seps[2] = {sep, '\0'};
    const char *rest = rest_of(name, seps);
    size_t len = 0;
    for (const char *p = shared; *p;) {
        size_t k = strcspn(p, seps);
        if (has_part(rest, seps, p, k)) {
            if (len) shared[len++] = sep;
            memmove(shared + len, p, k); /* (len <= p - shared: the kept text never overtakes p) */
            len += k;
        }
        p += k;
        if (*p) p++;
    }
    shared[len] = '\0';
}

void ss_parts_drop(const char *name, const char *shared, char sep, char *out, size_t cap)
{
    const char seps[2] = {sep, '\0'};
    if (cap == 0) return;
    if (!shared[0]) {
        snprintf(out, cap, "%s", name);
        return;
    }
    size_t len = (size_t)snprintf(out, cap, "%.*s", (int)strcspn(name, seps), name);
    for (const char *p = name + strcspn(name, seps); *p && len < cap;) {
        p++; /* past the separator */
        size_t k = strcspn(p, seps);
        if (!has_part(shared, seps, p, k)) len += (size_t)snprintf(out + len, cap - len, "%c%.*s", sep, (int)k, p);
        p += k;
    }
}
