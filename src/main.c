#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"
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
    {"cost", cmd_cost, "rank GPU offers by effective price per dense TFLOPS-hour"},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_usage(FILE *out)
{
    fputs("usage: gpuvet [--data DIR] COMMAND [options]   (gpuvet COMMAND --help for its options)\n\n", out);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "  --data DIR   read the data tables (gpus.csv, cpu-platforms.csv) from DIR instead of the\n"
          "               built-in copies; every table must be there ($GPUVET_DATA_DIR does the same)\n"
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

int main(int argc, char **argv)
{
    int first = 1;
    while (first < argc && !strncmp(argv[first], "--data", 6) && (argv[first][6] == '\0' || argv[first][6] == '=')) {
        const char *dir = argv[first][6] == '=' ? argv[first] + 7 : first + 1 < argc ? argv[++first] : NULL;
        if (!dir || !*dir) {
            fputs("gpuvet: --data wants a folder (gpuvet --help)\n", stderr);
            return EXIT_CANNOT_RUN;
        }
        data_set_dir(dir);
        first++;
    }
    if (first >= argc || !strcmp(argv[first], "--help") || !strcmp(argv[first], "-h") ||
        (!strcmp(argv[first], "help") && first + 1 >= argc)) {
        print_usage(first >= argc ? stderr : stdout);
        return first >= argc ? EXIT_CANNOT_RUN : 0;
    }
    if (!strcmp(argv[first], "--version") || !strcmp(argv[first], "version")) {
        printf("gpuvet %s\n", GPUVET_VERSION);
        return 0;
    }
    bool help = !strcmp(argv[first], "help"); /* gpuvet help COMMAND = gpuvet COMMAND --help */
    const char *name = argv[first + help];
    const struct command *cmd = find_command(name);
    if (!cmd)
        return unknown_command(name);
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
    argv[first] = program;
    return cmd->run(argc - first, argv + first);
}
