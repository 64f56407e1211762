/* ss_status.c - status codes, their texts and the recorded error message. */
#include "ss_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char ss_msg[2048];
static int ss_msg_set;

const char *ss_strerror(ss_status st)
{
    switch (st) {
    case SS_OK: return "success";
    case SS_EUSAGE: return "usage error";
    case SS_ECONFIG: return "configuration error";
    case SS_EIO: return "input/output error";
    case SS_EDATA: return "invalid data";
    case SS_ENOMEM: return "out of memory";
    case SS_EMPI: return "MPI error";
    case SS_EINTERNAL: return "internal error";
    }
    return "unknown error";
}

ss_status ss_fail(ss_status st, const char *fmt, ...)
{
    if (!ss_msg_set) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ss_msg, sizeof ss_msg, fmt, ap);
        va_end(ap);
        ss_msg_set = 1;
    }
    return st;
}

void ss_errprefix(const char *fmt, ...)
{
    if (!ss_msg_set) return;
    char prefix[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t pl = strlen(prefix), ml = strlen(ss_msg);
    if (pl + 2 + ml + 1 > sizeof ss_msg) ml = sizeof ss_msg - pl - 3; /* pl < 1024 < sizeof ss_msg */
    memmove(ss_msg + pl + 2, ss_msg, ml);
    memcpy(ss_msg, prefix, pl);
    ss_msg[pl] = ':';
    ss_msg[pl + 1] = ' ';
    ss_msg[pl + 2 + ml] = '\0';
}

const char *ss_errmsg(void) { return ss_msg_set ? ss_msg : ""; }

void ss_clear(void)
{
    ss_msg[0] = '\0';
    ss_msg_set = 0;
}

int ss_exit_code(ss_status st)
{
    if (st == SS_OK) return 0;
    if (st == SS_EUSAGE || st == SS_ECONFIG) return 2;
    return 1;
}

void ss_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("stallsim: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
