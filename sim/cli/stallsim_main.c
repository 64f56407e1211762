/* stallsim_main.c - the stallsim command: dispatch to run, info, import, gen, compare, doc. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ss_atomic.h"
#include "ss_cmd.h"
#include "ss_model.h"
#include "ss_screen.h"
#include "ss_version.h"

static const char usage[] =
    "usage: stallsim COMMAND [ARGS]\n"
    "\n"
    "Replays a measured multi-GPU data-loading timeline under what-if scenarios.\n"
    "\n"
    "commands:\n"
    "  run CONFIG.ini [--set SECTION.KEY=VALUE]... [--out DIR] [--json] [--quiet] [--explain]\n"
    "                 [--verbose] [--timing] [--progress]\n"
    "                          run the sweep of a scenario file (also under mpirun -np N)\n"
    "  import FORMAT INPUT... -o TRACE.h5\n"
    "                          convert a trace (dsanalyzer, pytorch, dftracer, profiler, table;\n"
    "                          see import --list) into a stalltrace file\n"
    "  info TRACE.h5 [--warmup N] [--verbose]\n"
    "                          describe a trace: GPUs, iterations, epochs, means, calibration\n"
    "  gen -o TRACE.h5 [...]   write a synthetic, self-consistent trace\n"
    "  compare A [B ...] [--csv FILE] [--warmup N] [--threshold S] [--epoch E] [--match]\n"
    "                          [--scenario TEXT] [--spread] [--with-eval]\n"
    "                          measured traces and sweep results side by side, with differences\n"
    "  doc keys|columns        the reference of the scenario keys or the output columns (Markdown)\n"
    "  --help, --version       this text, the version\n"
    "\n"
    "'stallsim help COMMAND' describes each command. Exit status: 0 success,\n"
    "2 usage or configuration error, 1 any other failure.\n";

/* Where a [trace] key of a scenario file was set, to begin a message ("file.ini:3: "), into
 * buf: "" for an option (opt) or a --set, which the message's key names already. */
static const char *key_where(const ss_config *cfg, int opt, const char *key, char *buf, size_t n)
{
    const char *o = opt ? "" : ss_config_origin(cfg, "trace", key);
    snprintf(buf, n, "%s%s", strncmp(o, "--set", 5) ? o : "", o[0] && strncmp(o, "--set", 5) ? ": " : "");
    return buf;
}

ss_status ss_cmd_check_selection(long selected, const ss_config *cfg, const char *trace, ss_trace_file *t,
                                 const char *epoch_opt, const char *warmup_opt)
{
    if (selected > 0) return SS_OK;
    /* an option or key the user gave is a usage (option) or configuration (key) error; a
     * default that the trace cannot meet is the trace's (a data error) */
    const int opt = epoch_opt[0] == '-';
    const char *eq = opt ? " " : " = ";
    char where[SS_PATH_MAX + 64];
    if (!cfg->epoch_all) {
        int found = 0;
        char list[160];
        ss_status st = ss_trace_epochs(t, cfg->epoch, &found, list, sizeof list);
        if (st != SS_OK) return st;
        const int given = ss_config_given(cfg, "trace", "epoch");
        if (!found && !given)
            return ss_fail(SS_EDATA, "%s: the trace has no epoch %ld, the default of %s (its epochs: %s): choose one",
                           trace, cfg->epoch, epoch_opt, list);
        if (!found)
            return ss_fail(opt ? SS_EUSAGE : SS_ECONFIG, "%s%s%s%ld: the trace %s has no epoch %ld (its epochs: %s)",
                           key_where(cfg, opt, "epoch", where, sizeof where), epoch_opt, eq, cfg->epoch, trace,
                           cfg->epoch, list);
    }
    char what[256];
    if (cfg->epoch_all) snprintf(what, sizeof what, "no iteration of the trace %s", trace);
    else snprintf(what, sizeof what, "no iteration of epoch %ld of the trace %s", cfg->epoch, trace);
    if (!ss_config_given(cfg, "trace", "warmup_iterations"))
        return ss_fail(SS_EDATA,
                       "%s has an index of %ld or more, the default warm-up left out (%s): nothing to summarise (set "
                       "%s lower, 0 keeps every iteration)",
                       what, cfg->warmup_iterations, warmup_opt, warmup_opt);
    return ss_fail(opt ? SS_EUSAGE : SS_ECONFIG,
                   "%s%s%s%ld: %s has an index that high: nothing to summarise (the %s shorter than the warm-up "
                   "left out; set %s lower, 0 keeps every iteration)",
                   key_where(cfg, opt, "warmup_iterations", where, sizeof where), warmup_opt, eq,
                   cfg->warmup_iterations, what, cfg->epoch_all ? "epochs are" : "epoch is", warmup_opt);
}

ss_status ss_cmd_set_option(ss_config *cfg, const char *cmd, const char *opt, const char *key, const char *value)
{
    char set[512], section[64];
    const size_t dot = strcspn(key, ".");
    snprintf(section, sizeof section, "%.*s", (int)dot, key);
    if (key[dot] && ss_config_given(cfg, section, key + dot + 1))
        return ss_fail(SS_EUSAGE, "%s: %s is given twice: give it once", cmd, opt);
    snprintf(set, sizeof set, "%s=%s", key, value);
    if (ss_config_set(cfg, set) == SS_OK) return SS_OK;
    /* say it with the option the user typed, not the key behind it */
    const char *m = strstr(ss_errmsg(), "' ");
    char why[512];
    snprintf(why, sizeof why, "%s", m ? m + 2 : "is not valid");
    ss_clear();
    return ss_fail(SS_EUSAGE, "%s: %s '%s' %s", cmd, opt, value, why);
}

int ss_cmd_fail(ss_status st)
{
    const char *m = ss_errmsg();
    fprintf(stderr, "stallsim: %s\n", m[0] ? m : ss_strerror(st));
    return ss_exit_code(st);
}

int ss_cmd_print_lines(const char *t, const char *word, FILE *out)
{
    int left_out = 0;
    for (const char *p = t; p && *p;) {
        const size_t len = strcspn(p, "\n");
        char line[8192];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (!word || strstr(line, word)) fprintf(out, "%s\n", line);
        else left_out++;
        p += len + (p[len] == '\n');
    }
    return left_out;
}

/* rc, or 1 with a message where the standard output could not be written (a full disk
 * under `run --json > pred.json`, a closed pipe): what was asked for did not arrive. */
static int stdout_checked(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    int e = errno;
    fprintf(stderr, "stallsim: writing to the standard output failed: %s\n", e ? strerror(e) : "I/O error");
    return rc ? rc : 1;
}

int main(int argc, char **argv)
{
    /* a line is written when printed, also into a file or a pipe (a batch job's log,
     * mpirun's forwarding): an interrupted run keeps what it had said */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    char *help_of[4];
    if (!strcmp(cmd, "help") && argc == 3) { /* help COMMAND: COMMAND --help */
        help_of[0] = argv[0], help_of[1] = argv[2], help_of[2] = "--help", help_of[3] = NULL;
        argc = 3, argv = help_of, cmd = argv[1];
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return stdout_checked(0);
    }
    if (!strcmp(cmd, "--version")) {
        printf("stallsim %s\n", SS_VERSION);
        return stdout_checked(0);
    }
    int (*fn)(const ss_comm *, int, char **) = NULL;
    if (!strcmp(cmd, "run")) fn = ss_cmd_run;
    else if (!strcmp(cmd, "info")) fn = ss_cmd_info;
    else if (!strcmp(cmd, "import")) fn = ss_cmd_import;
    else if (!strcmp(cmd, "gen")) fn = ss_cmd_gen;
    else if (!strcmp(cmd, "compare")) fn = ss_cmd_compare;
    else if (!strcmp(cmd, "doc")) fn = ss_cmd_doc;
    if (!fn) {
        fprintf(stderr, "stallsim: unknown command '%s'\n\n%s", cmd, usage);
        return 2;
    }
    ss_status st = ss_models_register_options(); /* the models' sections of the scenario file */
    if (st != SS_OK) return ss_cmd_fail(st);
    ss_comm c;
    st = ss_comm_init(&c, &argc, &argv);
    if (st != SS_OK) return ss_cmd_fail(st);
    /* after MPI's start-up, which installs handlers of its own */
    ss_atomic_install_signals();
    int rc = stdout_checked(fn(&c, argc - 1, argv + 1));
    if (ss_screen_end() && rc == 0) rc = 1; /* a command's wrapped output (ss_screen_begin) */
    if (ss_atomic_unclosable()) {
        /* an HDF5 file could not be closed (full disk): libhdf5 1.10 would crash in its
         * exit handlers (at MPI_Finalize or exit), so the process ends without them */
        fflush(NULL);
        _exit(rc ? rc : 1);
    }
    ss_comm_finalize(&c);
    return rc;
}
