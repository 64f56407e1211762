/* ss_suggest.c - the nearest known word to a mistyped one (ss_suggest.h). */
#include "ss_suggest.h"

#include <stdio.h>
#include <string.h>

int ss_edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 64 || lb > 64) return 99;
    int row[65];
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *ss_suggest(const char *word, const char *const *known, int n)
{
    int best = 3, at = -1;
    for (int i = 0; i < n; i++) {
        int d = ss_edit_distance(word, known[i]);
        if (d < best) best = d, at = i;
    }
    const size_t len = strlen(word);
    if (at < 0 && len >= 3) { /* a prefix of two words or more says nothing */
        int found = 0;
        for (int i = 0; i < n; i++)
            if (!strncmp(known[i], word, len)) found++, at = i;
        if (found != 1) at = -1;
    }
    return at >= 0 ? known[at] : NULL;
}

void ss_suggest_option(const char *opt, const char *const *known, int n, char *buf, unsigned long len)
{
    char name[65];
    size_t k = strcspn(opt, "=");
    buf[0] = '\0';
    if (k >= sizeof name) return;
    memcpy(name, opt, k);
    name[k] = '\0';
    for (int i = 0; opt[k] == '=' && i < n; i++)
        if (!strcmp(known[i], name)) { /* --csv=a: the option is known, its form is not */
            snprintf(buf, len, " ('%s' takes its value as the next argument)", name);
            return;
        }
    const char *near = ss_suggest(name, known, n);
    if (near) snprintf(buf, len, " (did you mean '%s'?)", near);
}
