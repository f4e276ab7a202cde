#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "util/deadline.h"
#include "util/output.h"
#include "util/datadir.h"
#include "util/suggest.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* also the NAME line of its man page (man/gpuvet-NAME.man) */
};

static const struct command commands[] = {
    {"audit", cmd_audit, "find the traps of this server (or a recorded one)"},
    {"bench", cmd_bench, "measure memory, NUMA latency, PCIe, storage, jitter and JPEG decode"},
    {"explain", cmd_explain, "print why a rule exists and what it checks"},
    {"snapshot", cmd_snapshot, "record this machine for an offline audit"},
    {"gpus", cmd_gpus, "list the GPU table, or resolve GPU names"},
    {"plan", cmd_plan, "size GPUs, host RAM, CPU cores, storage and network for a workload"},
    {"health", cmd_health, "the fast check for Slurm's HealthCheckProgram (drains with --slurm)"},
    {"cost", cmd_cost, "rank GPU offers by effective price per dense TFLOPS-hour"},
    {"fleet", cmd_fleet, "group many nodes' audits by configuration and name the odd nodes"},
    {"compare", cmd_compare, "two machines' audits side by side, differences first"},
    {"watch", cmd_watch, "watch a running job and name what keeps its GPUs waiting"},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_usage(FILE *out)
{
    fputs("usage: gpuvet [--data DIR] COMMAND [options]   (gpuvet COMMAND --help for its options)\n\n", out);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "  --data DIR   read the data tables (gpus.csv, cpu-platforms.csv) from DIR instead of the\n"
          "               built-in copies, before or after COMMAND; every table must be there\n"
          "               ($GPUVET_DATA_DIR does the same)\n"
          "  --version    print the version and exit\n"
          "  --help       print this list and exit (gpuvet help COMMAND: that command's options)\n",
          out);
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[COMMAND_COUNT];
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        names[i] = commands[i].name;
    const char *closest = closest_name(name, names, COMMAND_COUNT);
    if (closest) {
        fprintf(stderr, "gpuvet: unknown command '%s'; did you mean %s?\n", name, closest);
    } else {
        fprintf(stderr, "gpuvet: unknown command '%s'\n", name);
        print_usage(stderr);
    }
    return EXIT_CANNOT_RUN;
}

/* Takes `--data DIR` (or --data=DIR) out of argv wherever it stands, before or after the command: left
 * to the command's getopt, `gpuvet audit --data DIR` would be read as the abbreviation of --data-dir. */
static int take_data_option(int *argc, char **argv)
{
    for (int i = 1; i < *argc;) {
        bool joined = !strncmp(argv[i], "--data=", 7);
        if (strcmp(argv[i], "--data") != 0 && !joined) {
            i++;
            continue;
        }
        const char *dir = joined ? argv[i] + 7 : i + 1 < *argc ? argv[i + 1] : NULL;
        if (!dir || !*dir) {
            fputs("gpuvet: --data wants a folder (gpuvet --help)\n", stderr);
            return -1;
        }
        data_set_dir(dir);
        int taken = joined ? 1 : 2;
        memmove(&argv[i], &argv[i + taken], sizeof *argv * (size_t)(*argc - i - taken + 1));
        *argc -= taken;
    }
    return 0;
}

static int run(int argc, char **argv)
{
    if (take_data_option(&argc, argv) != 0)
        return EXIT_CANNOT_RUN;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc < 3)) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_CANNOT_RUN : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("gpuvet %s\n", GPUVET_VERSION);
        return 0;
    }
    bool help = !strcmp(argv[1], "help"); /* gpuvet help COMMAND = gpuvet COMMAND --help */
    const struct command *cmd = find_command(argv[1 + help]);
    if (!cmd)
        return unknown_command(argv[1 + help]);
    char error[4200];
    if (data_dir_check(error, sizeof error) != 0) {
        fprintf(stderr, "gpuvet: %s\n", error);
        return EXIT_CANNOT_RUN;
    }
    /* getopt_long's messages start with argv[0]: make them "gpuvet audit: ...". */
    char program[64];
    snprintf(program, sizeof program, "gpuvet %s", cmd->name);
    char *help_argv[] = {program, "--help", NULL};
    if (help)
        return cmd->run(2, help_argv);
    argv[1] = program;
    return cmd->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    output_guard_std_fds();
    int rc = run(argc, argv);
    /* A report that did not reach stdout (closed, disk full) is no result at all. */
    if (output_finish() != 0)
        rc = EXIT_CANNOT_RUN;
    if (deadline_abandoned_any())
        _exit(rc); /* see util/deadline.h: no destructor may wait on the hung thread */
    return rc;
}
