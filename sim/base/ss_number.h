/* ss_number.h - the one syntax of numbers that stallsim reads (scenario files, --set,
 * command-line options, CSV cells): decimal only. */
#ifndef SS_NUMBER_H
#define SS_NUMBER_H

/* strtod restricted to decimal notation: [whitespace][sign]digits[.digits][(e|E)[sign]digits].
 * Hexadecimal ("0x10", "0x1p3"), "inf", "infinity" and "nan" are not numbers: for them, as
 * for any text that is not a number, *end is set to s (nothing converted) and 0 returned. */
double ss_strtod_decimal(const char *s, char **end);

/* "GPU" or "GPUs" for n GPUs: plural(n, "GPU", "GPUs"), so that counts read "1 GPU". */
const char *ss_plural(long n, const char *one, const char *many);

#endif
