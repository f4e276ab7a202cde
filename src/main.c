#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
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

static void print_usage_unwrapped(FILE *out)
{
    fputs(_("usage: gpuvet [--data DIR] [--lang zh|en] COMMAND [options]   (gpuvet COMMAND --help for its options)\n\n"),
          out);
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        fputs("  ", out);
        fput_padded(out, commands[i].name, 10);
        fprintf(out, " %s\n", _(commands[i].summary));
    }
    fputs(_("\n"
          "  --data DIR   read the data tables (gpus.csv, cpu-platforms.csv) from DIR instead of the\n"
          "               built-in copies, before or after COMMAND; every table must be there\n"
          "               ($GPUVET_DATA_DIR does the same)\n"
          "  --version    print the version and exit\n"
          "  --lang zh|en messages, help and reports for people in Simplified Chinese or English\n"
          "               (default: from LC_ALL, LC_MESSAGES or LANG); JSON stays English\n"
          "  --help       print this list and exit (gpuvet help COMMAND: that command's options)\n"),
          out);
}

/* The list at the terminal's width, each summary continuing under its column. */
static void print_usage(FILE *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        print_usage_unwrapped(out);
        return;
    }
    print_usage_unwrapped(m);
    fclose(m);
    print_help(out, text);
    free(text);
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

/* A word gpuvet does not know where the command stands, a misspelt command (`audi`) or global option
 * (`--verison`): the closest one is named, else the usage printed. */
static int unknown_command(const char *word)
{
    static const char *const global_options[] = {"data", "lang", "version", "help"};
    bool option = word[0] == '-';
    const char *names[COMMAND_COUNT];
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        names[i] = commands[i].name;
    char bare[64]; /* "--dta=DIR" -> "dta" */
    snprintf(bare, sizeof bare, "%.*s", (int)strcspn(word + strspn(word, "-"), "="), word + strspn(word, "-"));
    const char *closest = option ? closest_name(bare, global_options, sizeof global_options / sizeof global_options[0])
                                 : closest_name(word, names, COMMAND_COUNT);
    if (closest) {
        fprintf(stderr, option ? _("gpuvet: unknown option '%s'; did you mean --%s?\n")
                               : _("gpuvet: unknown command '%s'; did you mean %s?\n"), word, closest);
    } else {
        fprintf(stderr, option ? _("gpuvet: unknown option '%s'\n") : _("gpuvet: unknown command '%s'\n"), word);
        print_usage(stderr);
    }
    return EXIT_CANNOT_RUN;
}

/* Takes a global option (`--data DIR`, `--lang L`, or --NAME=VALUE) out of argv wherever it stands,
 * before or after the command: left to the command's getopt, `gpuvet audit --data DIR` would be read as
 * the abbreviation of --data-dir. *value gets the last one given (NULL: none); -1 when it lacks its value. */
static int take_global_option(int *argc, char **argv, const char *name, const char **value)
{
    size_t len = strlen(name);
    for (int i = 1; i < *argc;) {
        bool joined = !strncmp(argv[i], name, len) && argv[i][len] == '=';
        if (strcmp(argv[i], name) != 0 && !joined) {
            i++;
            continue;
        }
        const char *v = joined ? argv[i] + len + 1 : i + 1 < *argc ? argv[i + 1] : NULL;
        if (!v || !*v)
            return -1;
        *value = v;
        int taken = joined ? 1 : 2;
        memmove(&argv[i], &argv[i + taken], sizeof *argv * (size_t)(*argc - i - taken + 1));
        *argc -= taken;
    }
    return 0;
}

static int run(int argc, char **argv)
{
    const char *lang = NULL, *data = NULL;
    int lang_taken = take_global_option(&argc, argv, "--lang", &lang);
    if (lang_taken != 0 || i18n_init(lang) != 0) {
        i18n_init(NULL);
        fprintf(stderr, _("gpuvet: --lang wants zh or en, not '%s'\n"), lang_taken ? "" : lang);
        return EXIT_CANNOT_RUN;
    }
    if (take_global_option(&argc, argv, "--data", &data) != 0) {
        fputs(_("gpuvet: --data wants a folder (gpuvet --help)\n"), stderr);
        return EXIT_CANNOT_RUN;
    }
    if (data)
        data_set_dir(data);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc < 3)) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_CANNOT_RUN : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        /* The commit and date are CMake's, read when it configured (CMakeLists.txt). */
        printf("gpuvet %s (commit %s, %s; built %s)\n", GPUVET_VERSION, GPUVET_COMMIT, GPUVET_DESCRIBE,
               GPUVET_BUILD_DATE);
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
    opterr = 0; /* the commands' option errors are ours (option_error), in the user's language */
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
