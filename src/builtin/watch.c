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
#include "util/parse.h"
#include "watch/session.h"
#include "util/i18n.h"
#include "util/output.h"

static const char usage[] =
     N_("usage: gpuvet watch [options] -- COMMAND [ARGS...]   start the job and watch it\n"
    "       gpuvet watch [options] --pid PID               attach to a running job (its process tree)\n"
    "       gpuvet watch [options]                         watch the machine\n"
    "       gpuvet watch --replay FILE [--json]            diagnose a saved timeline or nvidia-smi dmon log\n"
    "\n"
    "Samples the GPUs (NVML) and the host (CPU split, the job's processes and threads, its data\n"
    "disk, swapping, network) every interval, then names the bottleneck: INPUT_CPU_BOUND,\n"
    "INPUT_IO_BOUND, LAUNCH_BOUND, HOST_CONTENTION, PCIE_BOUND, GPU_THROTTLED, MEMORY_PRESSURE,\n"
    "NUMA_MISPLACED or GPU_BOUND (`gpuvet explain ID`).\n"
    "\n"
    "  --interval S    seconds between samples (default %g)\n"
    "  --duration S    stop watching after S seconds (default: when the job ends, or Ctrl-C)\n"
    "  --json          write the gpuvet.watch/1 timeline and diagnosis (docs/watch-json.md); with\n"
    "                  a COMMAND, whose output is on stdout, only with --output FILE\n"
    "  --output FILE   write the report to FILE (replaced atomically; --json --output run.json saves\n"
    "                  the timeline), not stdout\n"
    "  --replay FILE   read a gpuvet.watch/1 file or an `nvidia-smi dmon -s pucvmet` log instead\n"
    "\n"
    "With a COMMAND, its output passes through untouched and gpuvet's goes to stderr; the exit status\n"
    "is the command's (128+N when killed by signal N, 127 when it cannot be started). Otherwise:\n"
    "0 watched, 2 could not run (bad usage, no such process, one that may not be read, a bad file).\n");

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

/* The usage with its default interval, the one the options start from. */
static void print_usage(FILE *o)
{
    char *text = NULL;
    if (asprintf(&text, _(usage), WATCH_INTERVAL_DEFAULT) < 0)
        abort();
    print_help(o, text);
    free(text);
}

/* Longest --interval or --duration: 115 days, past any job a person would watch. */
#define WATCH_MAX_SECONDS 1e7

int cmd_watch(int argc, char **argv)
{
    static const struct option options[] = {
        {"interval", required_argument, NULL, 'i'}, {"duration", required_argument, NULL, 'd'},
        {"json", optional_argument, NULL, 'j'},     {"replay", required_argument, NULL, 'r'},
        {"pid", required_argument, NULL, 'p'},      {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    struct watch_options o = {.interval = WATCH_INTERVAL_DEFAULT};
    int c;
    optind = 1;
    /* "+": options end at the first non-option, so the command's own options stay its own. */
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'i': ok = option_seconds("watch", "interval", optarg, false, WATCH_MAX_SECONDS, &o.interval); break;
        case 'd': ok = option_seconds("watch", "duration", optarg, false, WATCH_MAX_SECONDS, &o.duration); break;
        case 'j':
            /* --json FILE named the file once: refused, so an old command line never writes over
             * FILE nor runs it as the COMMAND */
            if (optarg || (optind < argc && names_a_file(argv[optind]))) {
                print_error("watch",
                            _("--json writes the document to stdout; to write it to a file, use --json --output %s"),
                            optarg ? optarg : argv[optind]);
                return EXIT_CANNOT_RUN;
            }
            o.json = true;
            break;
        case 'o': o.output_path = optarg; break;
        case 'r': o.replay_path = optarg; break;
        case 'p': ok = option_int("watch", "pid", optarg, 1, INT_MAX, &o.pid); break;
        case 'h': print_usage(stdout); return 0;
        default: return option_error(options, argv);
        }
        if (!ok)
            return EXIT_CANNOT_RUN;
    }
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
        print_usage(stderr);
        return EXIT_CANNOT_RUN;
    }
    return watch_run(&o);
}
