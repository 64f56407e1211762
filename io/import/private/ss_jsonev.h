/* ss_jsonev.h - trace events out of JSON with yajl's streaming (SAX) parser: no document
 * tree is built, each event's few fields are copied out and handed to a callback. Two
 * layouts: JSON lines (one event object per line: DFTracer .pfw) and one document (Chrome
 * trace / Kineto: {"traceEvents": [...], "distributedInfo": {...}} or a bare [...] list). */
#ifndef SS_JSONEV_H
#define SS_JSONEV_H

#include <stddef.h>

#include "ss_status.h"

/* One event's fields (a missing field has its has_ flag 0). */
typedef struct {
    long long seq;            /* 1-based position of the event in its file */
    char name[256];           /* truncated to 255 bytes (name_truncated = 1) */
    int name_truncated;
    char cat[64], ph[8];
    double ts, dur;           /* as written (µs in both formats) */
    int has_ts, has_dur;
    long long pid, tid;       /* whole numbers or strings holding one */
    int has_pid, has_tid;
    long long step, epoch;    /* args.step, args.epoch: whole numbers or strings holding one */
    int has_step, has_epoch;
    char argname[4096];       /* args.name (DFTracer metadata lines), truncated; the last
                               * field: a new event clears the ones before and empties it */
} ss_jev;

/* Called for every event; a status other than SS_OK stops the parse and is returned. */
typedef ss_status (*ss_jev_fn)(void *user, const ss_jev *ev);

typedef struct ss_jsonev ss_jsonev;

/* lines = 1: JSON lines; 0: one document. path names the file in messages. */
ss_status ss_jsonev_new(int lines, const char *path, ss_jev_fn fn, void *user, ss_jsonev **out);
/* JSON lines: one line that must hold exactly one object (a trailing comma is allowed). A
 * line that is not that fails with SS_EDATA naming file and line, and the next line is
 * parsed afresh (a caller may pass over the broken one). */
ss_status ss_jsonev_line(ss_jsonev *p, const char *line, size_t len, long lineno);
/* 1 when the last ss_jsonev_line failed because its line is not one JSON object (not
 * because the callback failed). */
int ss_jsonev_line_broken(const ss_jsonev *p);
/* JSON lines: 1 (the default) reads a line that is one plain object without yajl, with the
 * same result; 0 hands every line to yajl (for tests that compare the two). */
void ss_jsonev_set_fast(ss_jsonev *p, int on);
/* One document: the next bytes of it; finish at the end of the file. */
ss_status ss_jsonev_feed(ss_jsonev *p, const char *buf, size_t n);
ss_status ss_jsonev_finish(ss_jsonev *p);
/* distributedInfo.rank / .world_size of a document (-1 when absent). */
long ss_jsonev_rank(const ss_jsonev *p);
long ss_jsonev_world_size(const ss_jsonev *p);
/* A document's top-level baseTimeNanoseconds (Kineto since PyTorch 2.4: the events' ts
 * count µs from that Unix time), or -1 when absent or not a whole number of ns. */
long long ss_jsonev_base_ns(const ss_jsonev *p);
/* 1 when the document was a bare list of events (the legacy profiler's export). */
int ss_jsonev_is_list(const ss_jsonev *p);
long long ss_jsonev_events(const ss_jsonev *p);
void ss_jsonev_free(ss_jsonev *p);

#endif
