#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"

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
    {"cost", cmd_cost, "rank GPU offers by effective price per dense TFLOPS-hour"},
    {"watch", cmd_watch, "watch a running job and name what keeps its GPUs waiting"},
};

static void print_usage(FILE *out)
{
    fputs("usage: gpuvet COMMAND [options]   (gpuvet COMMAND --help for its options)\n\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
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
