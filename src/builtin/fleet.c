#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "fleet/fleet.h"
#include "report/fleet_report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/output_file.h"
#include "util/parse.h"

static const struct opt_command fleet_command_help = {
    .name = "fleet",
    .usage = N_("usage: gpuvet fleet [--json] [--html FILE] [--markdown FILE] [--tolerance PERCENT] FILE|DIR...\n"
                "\n"
                "Reads gpuvet.audit/1 and gpuvet.bench/1 documents (files, or every *.json of a directory; one "
                "of each per host, joined by host name; in a directory, other JSON files are skipped and only the "
                "newest document of a host is read, each with a note), groups the nodes by CPU and accelerator "
                "models, and names the nodes that differ from their group's majority (CPU count, DIMMs per "
                "channel, accelerator links, driver and CUDA, kernel settings), bench figures below the group's "
                "median, and problem findings present on only some nodes.\n"
                "\n"),
    .footer = N_("exit status: 0 every node alike, 1 odd nodes, fields without a majority, low figures or a fail "
                 "finding on any node, 2 could not run\n"),
};

int cmd_fleet(int argc, char **argv)
{
    bool json = false;
    const char *html_file = NULL, *markdown_file = NULL;
    double tolerance = 5;
    struct opt table[] = {
        OPT_PERCENT("tolerance", &tolerance, 100, "PERCENT",
                    N_("how far below the group's median a bench figure may fall (default %s)")),
        OPT_FLAG("json", 'j', &json, N_("write the gpuvet.fleet/1 document (docs/fleet-json.md)")),
        OPT_FILE("html", 0, &html_file, "FILE",
                 N_("also write one self-contained HTML page (groups, odd nodes, low figures); FILE - writes it to "
                    "standard output instead of the text report")),
        OPT_FILE("markdown", 0, &markdown_file, "FILE",
                 N_("also write the same content as GitHub-flavoured Markdown (- likewise)")),
        OPT_END(),
    };
    int parsed = opt_parse(&fleet_command_help, table, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (optind >= argc) {
        print_error("fleet", _("give the audit and bench documents (files or directories)"));
        opt_usage(stderr, &fleet_command_help, table);
        return EXIT_CANNOT_RUN;
    }
    struct fleet f;
    fleet_init(&f);
    char why[8192];
    for (int i = optind; i < argc; i++) {
        if (fleet_add_path(&f, argv[i], why, sizeof why) != 0) {
            print_error("fleet", "%s", why);
            fleet_free(&f);
            return EXIT_CANNOT_RUN;
        }
    }
    for (int i = 0; i < f.nnotes; i++)
        print_note_to(stderr, "fleet", _("note: %s"), f.notes[i]);
    struct fleet_analysis a;
    fleet_analyse(&f, tolerance / 100, &a);
    int rc = 0;
    if (html_file && fleet_report_to_file(html_file, fleet_report_html, &f, &a) != 0)
        rc = -1;
    if (markdown_file && fleet_report_to_file(markdown_file, fleet_report_markdown, &f, &a) != 0)
        rc = -1;
    bool stdout_taken = output_is_stdout(html_file) || output_is_stdout(markdown_file);
    if (rc == 0 && !stdout_taken)
        rc = json ? fleet_report_json(stdout, &f, &a) : fleet_report_text(stdout, &f, &a);
    int found = 0;
    for (int i = 0; i < a.ngroups; i++)
        found += a.groups[i].nodd + a.groups[i].nsplits + a.groups[i].nlow;
    found += a.nattention; /* odd_hosts and the exit status name the same nodes */
    /* A FAIL on every node (or on a lone node) is no odd one out, but it is no fleet in order. */
    found += (int)(fleet_failing_nodes(&f) > 0);
    const char **apart;
    size_t napart = fleet_unplain_hosts(&f, &apart);
    for (size_t i = 0; i < napart; i++)
        print_note_to(stderr, "fleet", _("host name \"%s\" is not a Slurm host name (letters, digits, '-', '.', '_'): it is "
                               "listed apart, in no hostlist"),
                    apart[i]);
    free(apart);
    fleet_analysis_free(&a);
    fleet_free(&f);
    return rc != 0 ? EXIT_CANNOT_RUN : found ? 1 : 0;
}
