/* ss_number.c - decimal-only number parsing. */
#include "ss_number.h"

#include <ctype.h>
#include <stdlib.h>

double ss_strtod_decimal(const char *s, char **end)
{
    double v = strtod(s, end);
    for (const char *p = s; p < *end; p++)
        if (isalpha((unsigned char)*p) && *p != 'e' && *p != 'E') {
            *end = (char *)s;
            return 0.0;
        }
    return v;
}

const char *ss_plural(long n, const char *one, const char *many) { return n == 1 ? one : many; }
