#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "probe/probe.h"
#include "util/deadline.h"
#include "util/output.h"
#include "util/datadir.h"
#include "util/i18n.h"
#include "util/suggest.h"
#include "util/width.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* also the NAME line of its man page (man/gpuvet-NAME.man) */
};

static const struct command commands[] = {
    {"audit", cmd_audit, N_("find the traps of this server (or a recorded one)")},
    {"bench", cmd_bench, N_("measure memory, NUMA latency, PCIe, storage, jitter, JPEG decode and GPUs")},
    {"explain", cmd_explain, N_("print why a rule exists and what it checks")},
    {"snapshot", cmd_snapshot, N_("record this machine for an offline audit")},
    {"gpus", cmd_gpus, N_("list the GPU table, or resolve GPU names")},
    {"plan", cmd_plan, N_("size GPUs, host RAM, CPU cores, storage and network for a workload")},
    {"health", cmd_health, N_("the fast check for Slurm's HealthCheckProgram (drains with --slurm)")},
    {"cost", cmd_cost, N_("rank GPU offers by effective price per dense TFLOPS-hour")},
    {"fleet", cmd_fleet, N_("group many nodes' audits by configuration and name the odd nodes")},
    {"compare", cmd_compare, N_("two machines' audits side by side, differences first")},
    {"watch", cmd_watch, N_("watch a running job and name what keeps its GPUs waiting")},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

/* gpuvet's own options, declared once (builtin/parse_options.h): --help, the man page gpuvet(1),
 * `gpuvet --list-options` and the completion come from this table. --data and --lang are taken
 * wherever they stand, before or after COMMAND. */
static struct {
    const char *data, *lang;
    bool version;
} global;
static struct opt global_options[] = {
    {.kind = OPT_KIND_DIR, .name = "data", .value = &global.data, .metavar = "DIR", .flags = OPT_ANYWHERE,
     .help = N_("read the data tables (gpus.csv, cpu-platforms.csv) from DIR instead of the built-in copies, before "
                "or after COMMAND; every table must be there ($GPUVET_DATA_DIR does the same)")},
    OPT_FLAG("version", 0, &global.version, N_("print the version and exit")),
    {.kind = OPT_KIND_STRING, .name = "lang", .value = &global.lang, .metavar = "zh|en", .flags = OPT_ANYWHERE,
     .help = N_("messages, help and reports for people in Simplified Chinese or English (default: from LC_ALL, "
                "LC_MESSAGES or LANG); JSON stays English")},
    OPT_END(),
};

/* gpuvet --help: the usage line, the commands (from commands[]) and the options. list gets the
 * commands' lines (the caller frees it). */
static struct opt_command usage_of(char **list)
{
    size_t len = 0;
    FILE *m = open_memstream(list, &len);
    if (m) {
        for (size_t i = 0; i < COMMAND_COUNT; i++) {
            fputs("  ", m);
            fput_padded(m, commands[i].name, 10);
            fprintf(m, " %s\n", _(commands[i].summary));
        }
        fputc('\n', m);
        fclose(m);
    }
    return (struct opt_command){
        .usage = N_("usage: gpuvet [--data DIR] [--lang zh|en] COMMAND [options]   (gpuvet COMMAND --help for its "
                    "options)\n\n%s"),
        .operands = m ? *list : "",
        .stop_at_operand = true,
        .help_help = N_("print this list and exit (gpuvet help COMMAND: that command's options)"),
    };
}

static void print_usage(FILE *out)
{
    char *list = NULL;
    struct opt_command usage = usage_of(&list);
    opt_usage(out, &usage, global_options);
    free(list);
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

/* A word gpuvet does not know where the command stands (`audi`): the closest command is named, else
 * the usage printed. */
static int unknown_command(const char *word)
{
    const char *names[COMMAND_COUNT];
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        names[i] = commands[i].name;
    const char *closest = closest_name(word, names, COMMAND_COUNT);
    if (closest) {
        fprintf(stderr, _("gpuvet: unknown command '%s'; did you mean %s?\n"), word, closest);
    } else {
        fprintf(stderr, _("gpuvet: unknown command '%s'\n"), word);
        print_usage(stderr);
    }
    return EXIT_CANNOT_RUN;
}

/* --lang's language for messages and help: false after saying why not. */
static bool set_language(const char *lang, bool missing)
{
    if (!missing && i18n_init(lang) == 0)
        return true;
    i18n_init(NULL);
    fprintf(stderr, _("gpuvet: --lang wants zh or en, not '%s'\n"), missing ? "" : lang);
    return false;
}

static void print_version(void)
{
    /* The commit and date are CMake's, read when it configured (CMakeLists.txt). */
    printf("gpuvet %s (commit %s, %s; built %s)\n", GPUVET_VERSION, GPUVET_COMMIT, GPUVET_DESCRIBE, GPUVET_BUILD_DATE);
}

/* gpuvet's options before COMMAND (--help, --version, --list-options, a misspelt one named with the
 * closest, --lang and --data abbreviated): 0 with argv[optind] the command, -1 when done (exit 0),
 * else the exit status. */
static int parse_global_options(int argc, char **argv)
{
    const char *lang = global.lang;
    char *list = NULL;
    struct opt_command usage = usage_of(&list);
    argv[0] = "gpuvet"; /* option_error's prefix */
    int rc = opt_parse(&usage, global_options, argc, argv);
    free(list);
    if (rc == 0 && global.lang != lang && !set_language(global.lang, false))
        return EXIT_CANNOT_RUN;
    if (rc == 0 && global.version) {
        print_version();
        return -1;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    const struct opt *missing = opt_take_anywhere(global_options, &argc, argv);
    if (!set_language(global.lang, missing && !strcmp(missing->name, "lang")))
        return EXIT_CANNOT_RUN;
    if (missing) {
        fputs(_("gpuvet: --data wants a folder (gpuvet --help)\n"), stderr);
        return EXIT_CANNOT_RUN;
    }
    opterr = 0; /* option errors are ours (option_error), in the user's language */
    if (argc >= 2 && argv[1][0] == '-') {
        int rc = parse_global_options(argc, argv);
        if (rc)
            return rc < 0 ? 0 : rc;
        argv += optind - 1;
        argc -= optind - 1;
    }
    if (global.data)
        data_set_dir(global.data);
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_CANNOT_RUN;
    }
    if (!strcmp(argv[1], "help") && argc < 3) {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "version")) {
        print_version();
        return 0;
    }
    bool help = !strcmp(argv[1], "help"); /* gpuvet help COMMAND = gpuvet COMMAND --help */
    const struct command *cmd = find_command(argv[1 + help]);
    if (!cmd)
        return unknown_command(argv[1 + help]);
    char error[4200];
    if (probe_data_tables_check(error, sizeof error) != 0) {
        print_error(NULL, "%s", error);
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
