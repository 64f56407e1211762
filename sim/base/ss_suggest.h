/* ss_suggest.h - "did you mean ...?": the nearest known word to a mistyped one (a scenario
 * file's key or section, a command's option). */
#ifndef SS_SUGGEST_H
#define SS_SUGGEST_H

/* The edit distance of a and b (insertions, deletions, substitutions); 99 when either is
 * longer than 64 bytes. */
int ss_edit_distance(const char *a, const char *b);

/* Of the n known words, the one within two edits of word (the nearest; the first of
 * equals), or else the one word that starts with it (3 bytes or more); NULL when none. */
const char *ss_suggest(const char *word, const char *const *known, int n);

/* " (did you mean '--x'?)" for the unknown command-line option opt (its name before any
 * '='), the nearest of the n known ones; where that name is known itself (--csv=a), that
 * it takes its value as the next argument; "" when none is near. */
void ss_suggest_option(const char *opt, const char *const *known, int n, char *buf, unsigned long len);

#endif
