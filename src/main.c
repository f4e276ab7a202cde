#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "util/deadline.h"
#include "util/output.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
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
};

static void print_usage(FILE *out)
{
    fputs("usage: gpuvet COMMAND [options]   (gpuvet COMMAND --help for its options)\n\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

static int run(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_CANNOT_RUN : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("gpuvet %s\n", GPUVET_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpuvet: unknown command '%s'\n", argv[1]);
    print_usage(stderr);
    return EXIT_CANNOT_RUN;
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
