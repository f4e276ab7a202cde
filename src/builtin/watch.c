#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "util/parse.h"
#include "watch/session.h"
#include "util/i18n.h"
#include "util/output.h"

static const struct opt_command watch_command_help = {
    .name = "watch",
    .stop_at_operand = true,
    .usage = N_("usage: gpuvet watch [options] -- COMMAND [ARGS...]   start the job and watch it\n"
                "       gpuvet watch [options] --pid PID               attach to a running job\n"
                "       gpuvet watch [options]                         watch the machine\n"
                "       gpuvet watch --replay FILE [--json]            diagnose a saved timeline\n"
                "\n"
                "Samples the GPUs (NVML) and the host (CPU split, the job's processes and threads, its data "
                "disk, swapping, network) every interval, then names the bottleneck: INPUT_CPU_BOUND, "
                "INPUT_IO_BOUND, LAUNCH_BOUND, HOST_CONTENTION, PCIE_BOUND, GPU_THROTTLED, MEMORY_PRESSURE, "
                "NUMA_MISPLACED or GPU_BOUND (`gpuvet explain ID`).\n"
                "\n"),
    .footer = N_("With a COMMAND, its output passes through untouched and gpuvet's goes to stderr; the exit status "
                 "is the command's (128+N when killed by signal N, 127 when it cannot be started). Otherwise: "
                 "0 watched, 2 could not run (bad usage, no such process, one that may not be read, a bad file).\n"),
};

/* An argument after --json that names a file (FILE.json, or a path that is not a program to run),
 * as `--json FILE` did before --json meant stdout. */
static bool names_a_file(const char *arg)
{
    size_t len = strlen(arg);
    if (arg[0] == '-')
        return false;
    if (len >= 5 && !strcasecmp(arg + len - 5, ".json"))
        return true;
    struct stat st;
    bool runnable = stat(arg, &st) == 0 && S_ISREG(st.st_mode) && access(arg, X_OK) == 0;
    return strchr(arg, '/') && !runnable;
}

/* Longest --interval or --duration: 115 days, past any job a person would watch. */
#define WATCH_MAX_SECONDS 1e7

/* --json, with the command line it is on: an argument after it that names a file is refused. */
struct json_option {
    bool *json;
    int argc;
    char **argv;
};

static enum opt_result take_json(const char *cmd, const struct opt *row, const char *value)
{
    const struct json_option *j = row->value;
    /* --json FILE named the file once: refused, so an old command line never writes over FILE nor runs
     * it as the COMMAND */
    if (value || (optind < j->argc && names_a_file(j->argv[optind]))) {
        print_error(cmd, _("--json writes the document to stdout; to write it to a file, use --json --output %s"),
                    value ? value : j->argv[optind]);
        return OPT_BAD;
    }
    *j->json = true;
    return OPT_TAKEN;
}

int cmd_watch(int argc, char **argv)
{
    struct watch_options o = {.interval = WATCH_INTERVAL_DEFAULT};
    struct json_option json = {&o.json, argc, argv};
    struct opt table[] = {
        OPT_SECONDS("interval", 0, &o.interval, WATCH_MAX_SECONDS, 0, "S", N_("seconds between samples (default %s)")),
        OPT_SECONDS("duration", 0, &o.duration, WATCH_MAX_SECONDS, 0, "S",
                    N_("stop watching after S seconds (default: when the job ends, or Ctrl-C)")),
        OPT_INT("pid", 0, &o.pid, 1, INT_MAX, "PID", N_("attach to this running job (its process tree)")),
        OPT_CALLBACK("json", 0, &json, take_json, OPT_OPTIONAL_VALUE, NULL,
                     N_("write the gpuvet.watch/1 timeline and diagnosis (docs/watch-json.md); with a COMMAND, whose "
                        "output is on stdout, only with --output FILE")),
        OPT_FILE("output", 0, &o.output_path, "FILE",
                 N_("write the report to FILE (replaced atomically; --json --output run.json saves the timeline), not "
                    "stdout")),
        OPT_FILE("replay", 0, &o.replay_path, "FILE",
                 N_("read a gpuvet.watch/1 file or an `nvidia-smi dmon -s pucvmet` log instead")),
        OPT_END(),
    };
    int parsed = opt_parse(&watch_command_help, table, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (optind < argc)
        o.command = &argv[optind];
    if (o.json && o.command && !o.output_path) {
        print_error("watch", "%s",
                    _("with a COMMAND, stdout is the command's: write the --json document to a file with --output FILE"));
        return EXIT_CANNOT_RUN;
    }
    int modes = (o.command != NULL) + (o.pid != 0) + (o.replay_path != NULL);
    if (modes > 1) {
        print_error("watch", _("give one of COMMAND, --pid or --replay"));
        opt_usage(stderr, &watch_command_help, table);
        return EXIT_CANNOT_RUN;
    }
    return watch_run(&o);
}
