/* ss_healset.h - the GPUs one scenario heals (scenarios.heal = 3, 1+3, 8-15): parsed,
 * kept in one canonical form, written back and tested for membership. */
#ifndef SS_HEALSET_H
#define SS_HEALSET_H

#include <stddef.h>

/* Bytes of a set as written (its terminator included): a longer one is refused where it
 * is parsed, so that scenario names stay whole. */
#define SS_HEAL_TEXT_MAX 64

/* Ranges of GPU numbers one set may have (after merging; "0-7+16-23" is two). */
#define SS_HEAL_RANGES 16

/* A set of GPUs as ascending, disjoint, non-adjacent ranges lo[i]..hi[i] (both included);
 * entries past n are 0, so that two equal sets compare equal byte for byte. n = 0: no GPU. */
typedef struct {
    int n;
    int lo[SS_HEAL_RANGES], hi[SS_HEAL_RANGES];
} ss_healset;

/* Parses GPU numbers and ranges joined by '+' ("3", "1+3", "8-15", "0-3+8"; spaces
 * around the parts allowed) into *out, each GPU at most max_gpu. Returns NULL, or what is
 * wrong in a few words (also when the set would be written in SS_HEAL_TEXT_MAX bytes or
 * more). */
const char *ss_healset_parse(const char *text, int max_gpu, ss_healset *out);

/* What ss_healset_parse says of a text that is not a set of GPU numbers at all (the
 * caller may word it with its own other values). */
extern const char ss_healset_not_a_set[];

/* Adds GPU g, above every GPU of the set, merging it into the last range when adjacent.
 * 0, or -1 when the set already has SS_HEAL_RANGES ranges or would be written in
 * SS_HEAL_TEXT_MAX bytes or more (a set that ss_healset_parse would refuse). */
int ss_healset_add(ss_healset *h, int g);

/* The set written as ss_healset_parse reads it ("1+3", "8-15"). */
void ss_healset_format(const ss_healset *h, char *buf, size_t size);

/* The number of GPUs in the set. */
long ss_healset_count(const ss_healset *h);

/* 1 when GPU g is in the set. */
int ss_healset_has(const ss_healset *h, int g);

/* The GPU when the set holds exactly one, else -1. */
int ss_healset_single(const ss_healset *h);

/* The largest GPU of a non-empty set. */
int ss_healset_max(const ss_healset *h);

/* mask[g] = 1 for the set's GPUs, 0 for the others, g < gpus. */
void ss_healset_mask(const ss_healset *h, unsigned char *mask, int gpus);

#endif
