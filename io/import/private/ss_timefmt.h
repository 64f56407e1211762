/* ss_timefmt.h - DS-Analyzer timestamps ("2021-09-01 19:48:46.728082", 0 to 9 fraction
 * digits, no time zone) to integer nanoseconds and back to ISO 8601. */
#ifndef SS_TIMEFMT_H
#define SS_TIMEFMT_H

#include <stdint.h>

/* Parses s into nanoseconds since 1970-01-01 00:00:00 (the zone is taken as given).
 * Returns 0 on success, -1 when s is not such a timestamp. */
int ss_time_parse(const char *s, int64_t *ns);

/* Formats ns as "YYYY-MM-DDTHH:MM:SS.ffffff" (microseconds; ns must be whole us). */
void ss_time_format_iso(int64_t ns, char *buf, int bufsize);

#endif
