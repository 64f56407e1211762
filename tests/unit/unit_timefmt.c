/* unit_timefmt.c - ISO 8601 timestamps (io/import/ss_timefmt.h): parsing to nanoseconds with 0 to 9
 * fraction digits, leap days, time zones, rejected inputs, and formatting with microseconds. The
 * expected seconds are worked out by hand from day counts (and agree with `date -u -d ... +%s`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ss_timefmt.h"

#define NS 1000000000LL

static void parses_to(const char *s, int64_t want)
{
    int64_t got = -12345;
    if (ss_time_parse_zone(s, &got, NULL) != 0) fail_msg("'%s' was rejected", s);
    if (got != want) fail_msg("'%s': got %lld ns, expected %lld", s, (long long)got, (long long)want);
}

static void rejected(const char *s)
{
    int64_t got = 0;
    if (ss_time_parse_zone(s, &got, NULL) != -1) fail_msg("'%s' was accepted as %lld ns", s, (long long)got);
}

static void formats_to(int64_t ns, const char *want)
{
    char buf[64];
    memset(buf, 'x', sizeof buf);
    ss_time_format_iso(ns, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* 1970-01-01 00:00:00 is 0; 2000-01-01 is 30 years with 7 leap days (72 76 80 84 88 92 96):
 * 30 x 365 + 7 = 10957 days = 946684800 s. */
static void test_epochs(void **state)
{
    (void)state;
    parses_to("1970-01-01 00:00:00", 0);
    parses_to("1970-01-01 00:00:01", NS);
    parses_to("1970-01-02 00:00:00", 86400 * NS);
    parses_to("2000-01-01 00:00:00", 946684800LL * NS);
    parses_to("2000-01-01T00:00:00", 946684800LL * NS);
    parses_to("1969-12-31 23:59:59", -1 * NS);
}

/* 2021-09-01: from 2000-01-01, 21 years with 6 leap days (00 04 08 12 16 20) = 7671 days to
 * 2021-01-01, + 243 (Jan 31 Feb 28 Mar 31 Apr 30 May 31 Jun 30 Jul 31 Aug 31) = 7914 days;
 * 946684800 + 7914 x 86400 = 1630454400; + 19:48:46 = 71326 s -> 1630525726 s. */
static void test_fraction_digits(void **state)
{
    (void)state;
    const int64_t base = 1630525726LL * NS;
    parses_to("2021-09-01 19:48:46", base);
    parses_to("2021-09-01 19:48:46.7", base + 700000000);
    parses_to("2021-09-01 19:48:46.72", base + 720000000);
    parses_to("2021-09-01 19:48:46.728", base + 728000000);
    parses_to("2021-09-01 19:48:46.7280", base + 728000000);
    parses_to("2021-09-01 19:48:46.72808", base + 728080000);
    parses_to("2021-09-01 19:48:46.728082", base + 728082000);
    parses_to("2021-09-01 19:48:46.7280821", base + 728082100);
    parses_to("2021-09-01 19:48:46.72808212", base + 728082120);
    parses_to("2021-09-01 19:48:46.728082123", base + 728082123);
    parses_to("2021-09-01 19:48:46.000000001", base + 1);
    parses_to("2021-09-01 19:48:46.999999999", base + 999999999);
    parses_to("2021-09-01T19:48:46.728082", base + 728082000);
}

/* 2020-02-29: 7305 days from 2000-01-01 to 2020-01-01 (5 leap days), + 31 + 28 = 7364 days:
 * 946684800 + 636249600 = 1582934400; + 12 h -> 1582977600.
 * 2000-02-29 23:59:59 (2000 is a leap year: divisible by 400): 946684800 + (31 + 28) x 86400
 * + 86399 = 951868799. 2024-03-01 follows 2024-02-29: 1709251200.
 * 2100-03-01: 2100 is not a leap year, so Feb 28 is followed by Mar 1: 4107542400. */
static void test_leap_days(void **state)
{
    (void)state;
    parses_to("2020-02-29 12:00:00", 1582977600LL * NS);
    parses_to("2000-02-29 23:59:59.5", 951868799LL * NS + 500000000);
    parses_to("2024-02-29 00:00:00", (1709251200LL - 86400) * NS);
    parses_to("2024-03-01 00:00:00", 1709251200LL * NS);
    parses_to("2100-02-28 00:00:00", (4107542400LL - 86400) * NS);
    parses_to("2100-03-01 00:00:00", 4107542400LL * NS);
    parses_to("2021-12-31 23:59:59", (1640995200LL - 1) * NS); /* 2022-01-01 = 1640995200 */
}

static void test_bad_inputs(void **state)
{
    (void)state;
    rejected("");
    rejected("   ");
    rejected("2021-09-01");
    rejected("2021-09-01 19:48");
    rejected("2021/09/01 19:48:46");
    rejected("2021-9-01 19:48:46");
    rejected("21-09-01 19:48:46");
    rejected("2021-09-01 19:48:46.");           /* a point without digits */
    rejected("2021-09-01 19:48:46.7280821234"); /* 10 fraction digits */
    rejected("2021-09-01 19:48:46.72a");
    rejected("2021-09-01 19:48:46x");
    rejected("2021-09-01 19:48:46 +02:00");
    rejected("2021-09-01_19:48:46");
    rejected("2021-13-01 00:00:00");
    rejected("2021-00-10 00:00:00");
    rejected("2021-09-00 00:00:00");
    rejected("2021-09-31 00:00:00");
    rejected("2021-04-31 00:00:00");
    rejected("2021-01-32 00:00:00");
    rejected("2021-09-01 24:00:00");
    rejected("2021-09-01 19:60:00");
    rejected("2021-09-01 19:48:61");
    rejected("abcd-ef-gh ij:kl:mn");
}

/* A zone moves the time to UTC: 12:00+02:00 is 10:00Z, 12:00-05:30 is 17:30Z; Z and +00:00
 * change nothing; the zone is reported. 2024-05-01 is 19844 days after 1970-01-01 (54 years,
 * 13 leap days, and 121 days of 2024's January to April): 1714521600 s. */
static void test_zones(void **state)
{
    (void)state;
    const int64_t noon = (1714521600LL + 12 * 3600) * NS;
    int64_t ns = 0;
    int zoned = -1;
    parses_to("2024-05-01T12:00:00Z", noon);
    parses_to("2024-05-01T12:00:00+00:00", noon);
    parses_to("2024-05-01T12:00:00+02:00", noon - 2 * 3600 * NS);
    parses_to("2024-05-01T12:00:00+0200", noon - 2 * 3600 * NS);
    parses_to("2024-05-01T12:00:00+02", noon - 2 * 3600 * NS);
    parses_to("2024-05-01T12:00:00.5-05:30", noon + (5 * 3600 + 30 * 60) * NS + NS / 2);
    assert_int_equal(ss_time_parse_zone("2024-05-01T12:00:00+02:00", &ns, &zoned), 0);
    assert_int_equal(zoned, 1);
    assert_int_equal(ss_time_parse_zone("2024-05-01T12:00:00", &ns, &zoned), 0);
    assert_int_equal(zoned, 0);
    /* DS-Analyzer's parser (ss_time_parse) takes no zone */
    assert_int_equal(ss_time_parse("2024-05-01T12:00:00Z", &ns), -1);
    assert_int_equal(ss_time_parse("2024-05-01T12:00:00", &ns), 0);
    rejected("2024-05-01T12:00:00+2:00");
    rejected("2024-05-01T12:00:00+24:00");
    rejected("2024-05-01T12:00:00+02:60");
    rejected("2024-05-01T12:00:00ZZ");
    rejected("2024-05-01T12:00:00+02:00:00");
    rejected("2024-05-01T12:00:00+02:");
    rejected("2024-05-01T12:00:00+02:0");
}

/* February 29 exists only in leap years: 2021, 2023 and 1900, 2100 (centuries not divisible by
 * 400) have none. */
static void test_feb29_of_common_years(void **state)
{
    (void)state;
    rejected("2021-02-29 00:00:00");
    rejected("2023-02-29 12:00:00.5");
    rejected("1900-02-29 00:00:00");
    rejected("2100-02-29 00:00:00");
    rejected("2021-02-30 00:00:00");
}

static void test_format_iso(void **state)
{
    (void)state;
    formats_to(0, "1970-01-01T00:00:00.000000");
    formats_to(946684800LL * NS, "2000-01-01T00:00:00.000000");
    formats_to(1630525726LL * NS + 728082000, "2021-09-01T19:48:46.728082");
    formats_to(1582977600LL * NS + 1000, "2020-02-29T12:00:00.000001");
    formats_to(951868799LL * NS + 999999000, "2000-02-29T23:59:59.999999");
    formats_to(-1000, "1969-12-31T23:59:59.999999");
    formats_to(-86400 * NS, "1969-12-31T00:00:00.000000");
    formats_to(4107542400LL * NS, "2100-03-01T00:00:00.000000");
    /* a small buffer is cut, not overrun */
    char small[11];
    memset(small, 'x', sizeof small);
    ss_time_format_iso(0, small, sizeof small);
    assert_string_equal(small, "1970-01-01");
}

/* parse -> format gives the text back (with T) for microsecond timestamps */
static void test_round_trip(void **state)
{
    (void)state;
    const char *in[] = {"2021-09-01 19:48:46.728082", "2020-02-29 00:00:00.000001", "1999-12-31 23:59:59.999999",
                        "2038-01-19 03:14:08.000000", "1970-01-01 00:00:00.000000"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        int64_t ns;
        assert_int_equal(ss_time_parse(in[i], &ns), 0);
        char want[40], got[40];
        snprintf(want, sizeof want, "%s", in[i]);
        want[10] = 'T';
        ss_time_format_iso(ns, got, sizeof got);
        assert_string_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_fraction_digits),
        cmocka_unit_test(test_leap_days),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_zones),
        cmocka_unit_test(test_feb29_of_common_years),
        cmocka_unit_test(test_format_iso),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
