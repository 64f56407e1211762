/* ss_timefmt.c - civil date arithmetic for timestamps (proleptic Gregorian calendar). */
#include "ss_timefmt.h"

#include <ctype.h>
#include <stdio.h>

/* days since 1970-01-01 of a civil date (Howard Hinnant's well-known algorithm) */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)**p)) return -1;
        v = v * 10 + (*(*p)++ - '0');
    }
    *out = v;
    return 0;
}

int ss_time_parse(const char *s, int64_t *ns)
{
    int zoned = 0; /* DS-Analyzer's timestamps have no zone */
    return ss_time_parse_zone(s, ns, &zoned) != 0 || zoned ? -1 : 0;
}

int ss_time_parse_zone(const char *s, int64_t *ns, int *zoned)
{
    int Y, M, D, h, mi, se;
    const char *p = s;
    while (*p == ' ') p++;
    if (digits(&p, 4, &Y) || *p++ != '-' || digits(&p, 2, &M) || *p++ != '-' || digits(&p, 2, &D)) return -1;
    if (*p != ' ' && *p != 'T') return -1;
    p++;
    if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' || digits(&p, 2, &se)) return -1;
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    if (M < 1 || M > 12 || D < 1 || D > mdays[M - 1] || (M == 2 && D == 29 && !leap) || h > 23 || mi > 59 ||
        se > 60)
        return -1;
    int64_t frac = 0;
    if (*p == '.') {
        p++;
        int n = 0;
        while (isdigit((unsigned char)*p) && n < 9) {
            frac = frac * 10 + (*p++ - '0');
            n++;
        }
        if (n == 0 || isdigit((unsigned char)*p)) return -1;
        for (; n < 9; n++) frac *= 10;
    }
    /* a time zone: Z, or +HH:MM, +HHMM, +HH (and -): the time is moved to UTC */
    int zone = 0, off = 0;
    if (*p == 'Z' || *p == 'z') {
        zone = 1;
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
        if (digits(&p, 2, &oh)) return -1;
        if (*p == ':') {
            p++;
            if (digits(&p, 2, &om)) return -1; /* +HH:MM: the minutes must follow */
        } else if (isdigit((unsigned char)*p) && digits(&p, 2, &om)) {
            return -1;
        }
        if (oh > 23 || om > 59) return -1;
        zone = 1;
        off = sign * (oh * 3600 + om * 60);
    }
    while (*p == ' ') p++;
    if (*p) return -1;
    if (zoned) *zoned = zone;
    int64_t secs = days_from_civil(Y, M, D) * 86400 + h * 3600 + mi * 60 + se - off, v;
    /* nanoseconds since 1970 fit int64 for the years 1678 to 2261 */
    if (__builtin_mul_overflow(secs, (int64_t)1000000000, &v) || __builtin_add_overflow(v, frac, &v)) return -1;
    *ns = v;
    return 0;
}

void ss_time_format_iso(int64_t ns, char *buf, int bufsize)
{
    int64_t secs = ns >= 0 ? ns / 1000000000LL : -((-ns + 999999999LL) / 1000000000LL);
    int64_t rem = ns - secs * 1000000000LL;
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t sod = secs - days * 86400;
    int y, m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(buf, (size_t)bufsize, "%04d-%02d-%02dT%02d:%02d:%02d.%06lld", y, m, d, (int)(sod / 3600),
             (int)(sod / 60 % 60), (int)(sod % 60), (long long)(rem / 1000));
}
