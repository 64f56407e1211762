/* ss_status.h - the one error convention of stallsim: status codes, ss_strerror, and a
 * per-process message buffer that names what was wrong and where. */
#ifndef SS_STATUS_H
#define SS_STATUS_H

typedef enum {
    SS_OK = 0,
    SS_EUSAGE,   /* bad command line                       -> exit 2 */
    SS_ECONFIG,  /* bad scenario file or --set override     -> exit 2 */
    SS_EIO,      /* a file could not be opened, read, written -> exit 1 */
    SS_EDATA,    /* a file was read but its content is wrong -> exit 1 */
    SS_ENOMEM,   /* allocation failure                       -> exit 1 */
    SS_EMPI,     /* an MPI call failed                       -> exit 1 */
    SS_EINTERNAL /* a bug                                    -> exit 1 */
} ss_status;

/* Short generic text for a status code ("configuration error", ...). */
const char *ss_strerror(ss_status st);

/* Records a detailed, printf-formatted message for the failure and returns st, so that
 * error paths read `return ss_fail(SS_EDATA, "%s: dataset %s: ...", ...)`. The first
 * message recorded wins until ss_clear() is called: the root cause is what users see. */
ss_status ss_fail(ss_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Puts "<context>: " in front of the recorded message, if there is one (for callers that
 * know where a failing value came from, e.g. the scenario file that named a trace). */
void ss_errprefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The recorded message ("" when none). */
const char *ss_errmsg(void);

/* Forgets the recorded message. */
void ss_clear(void);

/* Process exit status for a status code (sim/cli/COMMANDS.md, "Exit status": 0 ok, 2 usage/config, 1 other). */
int ss_exit_code(ss_status st);

/* Prints "stallsim: warning: ..." to stderr. */
void ss_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
