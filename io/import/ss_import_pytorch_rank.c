/* ss_import_pytorch_rank.c - the PyTorch recorder importer's per-rank state machine. */
/* A rank's loop records read into rows (pass, batch, ask, got, next ask), each paired with
 * its fetch record, and the passes that --skip-pass leaves out. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ss_import_pytorch.h"

/* The index of rank's pass among those listed to be left out, or -1 */
static int pt_skip_index(const pt_state_skips *k, long rank, long pass)
{
    for (int i = 0; k && i < k->n; i++)
        if (k->rank[i] == rank && k->pass[i] == pass) return i;
    return -1;
}

/* 1 when rank's pass is listed to be left out */
int pt_skip_listed(const pt_state_skips *k, long rank, long pass) { return pt_skip_index(k, rank, pass) >= 0; }

/* 1 when rank's pass is to be left out; marks it found */
int pt_skipped(pt_state_skips *k, long rank, long pass)
{
    const int i = pt_skip_index(k, rank, pass);
    if (i >= 0) k->used[i] = 1;
    return i >= 0;
}

/* An IterableDataset's batch k of pass p: the loader hands batch numbers out to its workers
 * in turn and returns the batches in that order, but a worker whose iterator is exhausted
 * returns nothing for the numbers it still gets, so the loop's k-th batch is the pass's
 * fetch with the k-th smallest number: the smallest left (each source is in batch order,
 * the batches before were consumed, and the pass's fetches the loop never took, after it
 * left the pass, are passed over with the pass). */
static ss_status pt_find_fetch_iterable(pt_rank *R, long p, long k, long line, pt_fetch **out)
{
    pt_fetch *best = NULL;
    for (int i = 0; i < R->nsrc; i++) {
        pt_fetch *s = &R->src[i];
        while (!s->eof && (!s->valid || s->p < p)) {
            ss_status st = pt_fetch_advance(s);
            if (st != SS_OK) return st;
        }
        if (s->valid && s->p == p && (!best || s->k < best->k)) best = s;
    }
    if (best) {
        *out = best;
        return SS_OK;
    }
    return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record left in rank %d's %s (an "
                   "IterableDataset's: the pass's fetches are taken in order)", R->main.path, line, k, p,
                   R->rank, R->workers == 0 ? "file" : "worker files");
}

/* The fetch record of batch (p, k) of rank R: the head of one source, after skipping
 * batches that were fetched but never taken by the loop (each source is in batch order). */
ss_status pt_find_fetch(pt_rank *R, long p, long k, long line, pt_fetch **out)
{
    if (R->iterable) return pt_find_fetch_iterable(R, p, k, line, out);
    for (int i = 0; i < R->nsrc; i++) {
        pt_fetch *s = &R->src[i];
        while (!s->eof && (!s->valid || pt_key_less(s->p, s->k, p, k))) {
            ss_status st = pt_fetch_advance(s);
            if (st != SS_OK) return st;
        }
        if (s->valid && s->p == p && s->k == k) {
            *out = s;
            return SS_OK;
        }
    }
    if (R->workers == 0)
        return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record in this file", R->main.path,
                       line, k, p);
    /* a worker file that ended while the others go on was most likely cut short */
    for (int i = 0; i < R->nsrc; i++) {
        if (!R->src[i].eof || R->src[i].valid) continue;
        for (int o = 0; o < R->nsrc; o++)
            if (R->src[o].valid)
                return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record: %s ends at its line %ld, "
                               "while the other worker files go on (%s:%ld is batch %ld of pass %ld): a worker file "
                               "cut short (copied before the run ended?)",
                               R->main.path, line, k, p, R->src[i].file.path, R->src[i].line, R->src[o].file.path,
                               R->src[o].line, R->src[o].k, R->src[o].p);
    }
    for (int i = 0; i < R->nsrc; i++) /* a later batch ahead of it: the records may be out of order */
        if (R->src[i].valid)
            return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record in any of rank %d's %d worker "
                           "files before their next ones (%s:%ld is batch %ld of pass %ld): a file's records out of order?",
                           R->main.path, line, k, p, R->rank, R->nsrc, R->src[i].file.path, R->src[i].line,
                           R->src[i].k, R->src[i].p);
    return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld has no 'fetch' record in any of rank %d's %d worker files "
                   "(%s and the others)", R->main.path, line, k, p, R->rank, R->nsrc, R->src[0].file.path);
}

/* 1 when a pass's last batch (n batches) has no step end in the record: the loop left the
 * pass ('left', format 4) before its end (a map-style pass of len(loader) batches taken
 * whole, as a step-based loop does, ends its last step where it leaves). Formats 1-3 do
 * not tell a left pass from an ended one: their last rows are kept. */
static int pt_left_early(const pt_rank *R, int left, long n)
{
    return left && (R->iterable || R->per_epoch <= 0 || n < R->per_epoch);
}

/* Reads rank R's records up to the batch that opens a pass (R->cur; passes and their
 * labels on the way), or to the end of the file (*eof = 1). */
static ss_status pt_first_batch(pt_rank *R, int *eof)
{
    pt_file *f = &R->main;
    ss_status st;
    pt_kind k;
    *eof = 0;
    while (!R->have_cur) {
        if ((st = pt_read(f, &k)) != SS_OK) return st;
        if (k == PT_EOF) {
            *eof = 1;
            return SS_OK;
        }
        if (k == PT_META || k == PT_FETCH) continue;
        const long line = f->line;
        if (k == PT_EPOCH) {
            long p, e;
            if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
            if ((st = pt_long(f, 2, "the epoch", INT32_MIN, INT32_MAX, &e)) != SS_OK) return st;
            if ((st = pt_time(f, 3, "the pass's start time", &R->pass_t0)) != SS_OK) return st;
            if (p != R->pass + 1)
                return ss_fail(SS_EDATA, "%s:%ld: pass %ld follows pass %ld", f->path, line, p, R->pass);
            /* the recorder labels a pass one more than the pass before unless set_epoch gave its
             * label: such a default label follows a left-out pass's, and is taken as the label it
             * would have had without that pass (one more than the last pass kept, 0 for the first) */
            const int dflt = R->nraw > 0 && e == R->raw_label + 1;
            R->raw_label = e;
            R->nraw++;
            R->skipping = pt_skipped(R->skips, R->rank, p);
            if (R->skipping) { /* as if the pass were not in the record: no label, no rows */
                ss_warn("%s:%ld: rank %d's pass %ld (labelled epoch %ld) is left out (--skip-pass %d:%ld)", f->path,
                        line, R->rank, p, e, R->rank, p);
                R->pass = p;
                R->any_skipped = 1;
                continue;
            }
            if (R->any_skipped && dflt) e = R->npass > 0 ? R->epoch + 1 : 0;
            if (R->npass > 0 && e <= R->epoch) {
                /* a pass labelled like the one before (the loader iterated twice in an epoch, or
                 * a batch taken with next(iter(loader)) before the loop, with set_epoch): the
                 * trace's epochs must increase, so it becomes the next label (every rank alike) */
                if (R->rank == 0)
                    ss_warn("%s:%ld: pass %ld is labelled epoch %ld after epoch %ld (the loader was iterated "
                            "again within an epoch, e.g. next(iter(loader)) before the loop, with "
                            "Recorder.set_epoch): it becomes epoch %ld",
                            f->path, line, p, e, R->epoch, R->epoch + 1);
                e = R->epoch + 1;
            }
            R->pass = p;
            R->epoch = e;
            R->npass++;
            continue;
        }
        if (k == PT_END) continue; /* an empty pass (or the end after a batch already closed) */
        if (R->skipping) continue; /* a batch of a pass left out */
        /* a batch that opens a pass */
        pt_batch b;
        if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &b.p)) != SS_OK) return st;
        if ((st = pt_long(f, 2, "the batch", 0, LONG_MAX, &b.k)) != SS_OK) return st;
        if ((st = pt_time(f, 3, "the ask time", &b.ask)) != SS_OK) return st;
        if ((st = pt_time(f, 4, "the got time", &b.got)) != SS_OK) return st;
        if ((st = pt_loop_cpu(f, 5, &b.cpu, &b.wait)) != SS_OK) return st;
        if (b.p != R->pass || b.k != 0)
            return ss_fail(SS_EDATA, "%s:%ld: batch %ld of pass %ld, expected batch 0 of pass %ld", f->path,
                           f->line, b.k, b.p, R->pass);
        b.line = f->line;
        R->cur = b;
        R->have_cur = 1;
    }
    return SS_OK;
}

/* The next (batch, next ask) of rank R's loop; *got = 0 at the end of the file. */
ss_status pt_next_row(pt_rank *R, pt_row *row, int *got)
{
    pt_file *f = &R->main;
    ss_status st;
    pt_kind k;
    *got = 0;
    if (!R->have_cur) {
        int eof;
        if ((st = pt_first_batch(R, &eof)) != SS_OK || eof) return st;
    }
    if (R->cur.got < R->cur.ask)
        return ss_fail(SS_EDATA, "%s:%ld: the loop got the batch before it asked for it", f->path, R->cur.line);
    /* the next record closes the current batch (an 'end' of an earlier pass, which an
     * iterator kept alive may write late, closes nothing) */
    for (;;) {
        if ((st = pt_read(f, &k)) != SS_OK) return st;
        if (k == PT_META || k == PT_FETCH) continue;
        if (k == PT_END) {
            long p;
            if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
            if (p < R->cur.p) continue;
        }
        break;
    }
    row->epoch = R->epoch;
    row->p = R->cur.p;
    row->k = R->cur.k;
    row->ask = R->cur.ask;
    row->got = R->cur.got;
    row->line = R->cur.line;
    if (k == PT_EOF) { /* cut off (a crash): the last batch has no step end */
        R->cut = 1;
        return SS_OK;
    }
    long p, kk;
    int64_t t = 0;
    if (k == PT_EPOCH) {
        /* a pass without an 'end' record: the loop kept its iterator and started the next
         * pass (a step-based loop that calls next() len(loader) times, a peek iterator kept
         * beside the epochs'); recorders before format 3's pass ending wrote its 'end' only
         * when the iterator went away, later. It ends where the next pass starts. */
        if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
        if ((st = pt_time(f, 3, "the pass's start time", &t)) != SS_OK) return st;
        if (t < R->cur.ask)
            return ss_fail(SS_EDATA, "%s:%ld: time goes backwards (pass %ld starts before the step of line %ld)",
                           f->path, f->line, p, R->cur.line);
        if (!*R->warned_open)
            ss_warn("%s:%ld: pass %ld has no 'end' record before pass %ld starts (the loop kept the pass's iterator: "
                    "a step-based loop, or a peek with next(iter(loader)) kept beside the epochs; a recorder of "
                    "this version ends such a pass itself): its last batch ends where the next pass starts",
                    f->path, f->line, R->pass, p);
        *R->warned_open = 1;
        f->pushed = 1; /* the record starts the next pass as well: read again for the next row */
        R->have_cur = 0;
        row->next_ask = t;
        row->ask_cpu = R->cur.cpu;
        row->ask_wait = R->cur.wait;
        row->next_cpu = row->next_wait = -1;
        *got = 1;
        return SS_OK;
    }
    if ((st = pt_long(f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) return st;
    if ((st = pt_long(f, 2, k == PT_END ? "the batch count" : "the batch", 0, LONG_MAX, &kk)) != SS_OK) return st;
    if ((st = pt_time(f, 3, k == PT_END ? "the end time" : "the ask time", &t)) != SS_OK) return st;
    if (p != R->cur.p || kk != R->cur.k + 1)
        return ss_fail(SS_EDATA, "%s:%ld: %s %ld of pass %ld follows batch %ld of pass %ld", f->path, f->line,
                       k == PT_END ? "end after batch count" : "batch", kk, p, R->cur.k, R->cur.p);
    if (t < R->cur.ask)
        return ss_fail(SS_EDATA, "%s:%ld: time goes backwards (the step of line %ld ends before it starts)", f->path,
                       f->line, R->cur.line);
    row->next_ask = t;
    row->ask_cpu = R->cur.cpu;
    row->ask_wait = R->cur.wait;
    if ((st = pt_loop_cpu(f, k == PT_END ? 4 : 5, &row->next_cpu, &row->next_wait)) != SS_OK) return st;
    if (row->ask_cpu >= 0 && row->next_cpu >= 0 && row->next_cpu < row->ask_cpu)
        return ss_fail(SS_EDATA, "%s:%ld: the process's CPU time goes backwards (%lld ns, line %ld had %lld ns)",
                       f->path, f->line, (long long)row->next_cpu, R->cur.line, (long long)row->ask_cpu);
    if (k == PT_END) {
        R->have_cur = 0;
        row->left = pt_left_early(R, f->left, kk);
        if (f->version >= 5 && !f->left) { /* the ending next() returned: its workers shut down */
            int64_t back;
            if ((st = pt_time(f, 6, "the time the pass's next() returned", &back)) != SS_OK) return st;
            if (back < t)
                return ss_fail(SS_EDATA, "%s:%ld: time goes backwards (the pass's next() returned before it was called)",
                               f->path, f->line);
            R->stop_ns = back - t;
        }
    } else {
        pt_batch b = {.p = p, .k = kk, .ask = t, .cpu = row->next_cpu, .wait = row->next_wait, .line = f->line};
        if ((st = pt_time(f, 4, "the got time", &b.got)) != SS_OK) return st;
        R->cur = b;
    }
    *got = 1;
    return SS_OK;
}

/* The rows the import will write when it succeeds: rank 0's batches that have a step end
 * (a batch closed by the next batch, by the end of its pass or, without one, by the start
 * of the next pass; an earlier pass's late 'end' closes nothing). Knowing it up front lets
 * the writer size its chunks to the trace. */
ss_status pt_count_rows(const char *path, const pt_state_skips *skips, long *rows)
{
    pt_file f = {0};
    ss_status st = pt_open_file(&f, path);
    if (st == SS_OK) st = pt_header(&f);
    int open_batch = 0, skipping = 0;
    long pass = -1, p = 0;
    *rows = 0;
    while (st == SS_OK) {
        pt_kind k;
        if ((st = pt_read(&f, &k)) != SS_OK || k == PT_EOF) break;
        if (k == PT_END && (st = pt_long(&f, 1, "the pass", 0, LONG_MAX, &p)) != SS_OK) break;
        if (k == PT_END && p < pass) continue;
        if (k == PT_EPOCH && (st = pt_long(&f, 1, "the pass", 0, LONG_MAX, &pass)) != SS_OK) break;
        if (k == PT_EPOCH) skipping = pt_skip_listed(skips, 0, pass);
        if ((k == PT_BATCH || k == PT_END) && skipping) continue; /* a pass left out (rank 0's) */
        if (k == PT_BATCH || k == PT_END || k == PT_EPOCH) *rows += open_batch;
        if (k == PT_BATCH || k == PT_END || k == PT_EPOCH) open_batch = k == PT_BATCH;
    }
    pt_close_file(&f);
    return st;
}

/* Where one rank's record has ended and another's goes on in the pass of the last row every
 * rank has: *within stays 1 when every rank's record ends within that pass (each read to
 * its end, its rows in the pass of its last row read, labelled S->last_epoch), else 0 (a
 * rank goes on into later passes: the records do not match). */
ss_status pt_rest_within(pt_state *S, int *within)
{
    for (int g = 0; g < S->G && *within; g++) {
        pt_rank *R = S->r[g];
        for (;;) {
            pt_row row = {0};
            int got;
            ss_status st = pt_next_row(R, &row, &got);
            if (st != SS_OK) return st;
            if (!got) break;
            if (row.p != R->last_p || row.epoch != S->last_epoch) {
                *within = 0;
                break;
            }
        }
    }
    return SS_OK;
}
