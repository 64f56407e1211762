/* ss_timefmt.h - ISO 8601 timestamps ("2021-09-01 19:48:46.728082", 'T' or a space, 0 to 9
 * fraction digits, an optional zone) to integer nanoseconds and back. */
#ifndef SS_TIMEFMT_H
#define SS_TIMEFMT_H

#include <stdint.h>

/* Parses s, without a time zone, into nanoseconds since 1970-01-01 00:00:00 (the time is
 * taken as given). Returns 0 on success, -1 when s is not such a timestamp. */
int ss_time_parse(const char *s, int64_t *ns);
/* The same, also with a zone (Z, or +HH:MM, +HHMM, +HH and their -: the time is moved to
 * UTC); *zoned (may be NULL) = 1 when s gave one. */
int ss_time_parse_zone(const char *s, int64_t *ns, int *zoned);

/* Formats ns as "YYYY-MM-DDTHH:MM:SS.ffffff" (microseconds; ns must be whole us). */
void ss_time_format_iso(int64_t ns, char *buf, int bufsize);

#endif
