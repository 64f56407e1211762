/* fuzz_jsonev.c - fuzzes the JSON lines reader against itself: every line of the input is
 * read by the fast path and by yajl alone (ss_jsonev_set_fast 0), and the two must agree
 * on the status, the message, the broken flag and every event's fields. Each line is also
 * read as a number by ss_csv_strtod and ss_strtod_decimal: the same value and end. */
#include <stddef.h>

#include "fuzz_common.h"
#include "ss_csv.h"
#include "ss_jsonev.h"
#include "ss_number.h"

static void same_number(const char *s)
{
    char *ea, *eb;
    const double a = ss_csv_strtod(s, &ea), b = ss_strtod_decimal(s, &eb);
    if (ea != eb || memcmp(&a, &b, sizeof a)) {
        fprintf(stderr, "'%s': ss_csv_strtod %.17g (end %td), ss_strtod_decimal %.17g (end %td)\n", s, a, ea - s, b,
                eb - s);
        abort();
    }
}

typedef struct {
    ss_jev ev[4];
    int n;
} evs;

static ss_status keep(void *user, const ss_jev *e)
{
    evs *l = user;
    if (l->n < 4) l->ev[l->n] = *e;
    l->n++;
    return SS_OK;
}

/* the fields an importer reads (the bytes after a string's NUL are not one) */
static int same_event(const ss_jev *a, const ss_jev *b)
{
    return a->seq == b->seq && !strcmp(a->name, b->name) && a->name_truncated == b->name_truncated &&
           !strcmp(a->cat, b->cat) && !strcmp(a->ph, b->ph) && a->has_ts == b->has_ts &&
           (!a->has_ts || !memcmp(&a->ts, &b->ts, sizeof a->ts)) && a->has_dur == b->has_dur &&
           (!a->has_dur || !memcmp(&a->dur, &b->dur, sizeof a->dur)) && a->has_pid == b->has_pid &&
           (!a->has_pid || a->pid == b->pid) && a->has_tid == b->has_tid && (!a->has_tid || a->tid == b->tid) &&
           a->has_step == b->has_step && (!a->has_step || a->step == b->step) && a->has_epoch == b->has_epoch &&
           (!a->has_epoch || a->epoch == b->epoch) && !strcmp(a->argname, b->argname);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    evs la = {.n = 0}, lb = {.n = 0};
    ss_jsonev *a, *b;
    if (ss_jsonev_new(1, "f.pfw", keep, &la, &a) != SS_OK || ss_jsonev_new(1, "f.pfw", keep, &lb, &b) != SS_OK)
        abort();
    ss_jsonev_set_fast(b, 0);
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    long lineno = 0;
    for (char *s = text, *end = text + size; s <= end;) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
        char msg[1200];
        lineno++;
        const char keep_c = s[len];
        s[len] = '\0';
        same_number(s);
        s[len] = keep_c;
        la.n = lb.n = 0;
        ss_clear();
        ss_status sa = ss_jsonev_line(a, s, len, lineno);
        snprintf(msg, sizeof msg, "%s", ss_errmsg());
        ss_clear();
        ss_status sb = ss_jsonev_line(b, s, len, lineno);
        if (sa != sb || strcmp(msg, ss_errmsg()) || ss_jsonev_line_broken(a) != ss_jsonev_line_broken(b) ||
            la.n != lb.n) {
            fprintf(stderr, "line %ld: fast %d '%s' broken %d events %d; yajl %d '%s' broken %d events %d\n", lineno,
                    (int)sa, msg, ss_jsonev_line_broken(a), la.n, (int)sb, ss_errmsg(), ss_jsonev_line_broken(b), lb.n);
            abort();
        }
        for (int i = 0; i < la.n && i < 4; i++)
            if (!same_event(&la.ev[i], &lb.ev[i])) {
                fprintf(stderr, "line %ld: event %d differs (fast name '%s', yajl name '%s')\n", lineno, i,
                        la.ev[i].name, lb.ev[i].name);
                abort();
            }
        if (!nl) break;
        s = nl + 1;
    }
    ss_clear();
    free(text);
    ss_jsonev_free(a);
    ss_jsonev_free(b);
    return 0;
}
