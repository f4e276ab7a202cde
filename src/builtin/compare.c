#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "fleet/fleet.h"
#include "report/fleet_report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/output_file.h"

static const struct opt_command compare_command_help = {
    .name = "compare",
    .usage = N_("usage: gpuvet compare [--json] [--html FILE] [--markdown FILE] A.json B.json\n"
                "\n"
                "Two machines side by side (two providers' trial boxes, a good node and a bad one): their "
                "gpuvet.audit/1 (or gpuvet.bench/1) documents, differences first, then what is the same, bench "
                "figures, and problem findings only one of them has.\n"
                "\n"),
    .footer = N_("exit status: 0 no difference, 1 differences or a fail finding on either side, 2 could not run\n"),
};

int cmd_compare(int argc, char **argv)
{
    bool json = false;
    const char *html_file = NULL, *markdown_file = NULL;
    struct opt table[] = {
        OPT_FLAG("json", 'j', &json, N_("write the gpuvet.compare/1 document (docs/fleet-json.md)")),
        OPT_FILE("html", 0, &html_file, "FILE",
                 N_("also write the comparison as one self-contained HTML page; FILE - writes it to standard output "
                    "instead of the text report")),
        OPT_FILE("markdown", 0, &markdown_file, "FILE", N_("also write it as GitHub-flavoured Markdown (- likewise)")),
        OPT_END(),
    };
    int parsed = opt_parse(&compare_command_help, table, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (argc - optind != 2) {
        print_error("compare", _("give exactly two documents"));
        opt_usage(stderr, &compare_command_help, table);
        return EXIT_CANNOT_RUN;
    }
    /* One fleet per side: two trial boxes may well carry the same host name. */
    struct fleet sides[2];
    char why[8192];
    int status = 0;
    for (int i = 0; i < 2; i++)
        fleet_init(&sides[i]);
    for (int i = 0; i < 2 && status == 0; i++) {
        if (fleet_add_path(&sides[i], argv[optind + i], why, sizeof why) != 0 || sides[i].count != 1) {
            if (sides[i].count > 1)
                snprintf(why, sizeof why, _("%s: give one document, not a directory of them"), argv[optind + i]);
            print_error("compare", "%s", why);
            status = EXIT_CANNOT_RUN;
        }
    }
    if (status == 0) {
        int differences = fleet_node_differences(&sides[0].nodes[0], &sides[1].nodes[0]);
        int rc = 0;
        if (html_file && compare_report_to_file(html_file, compare_report_html, &sides[0], &sides[1]) != 0)
            rc = -1;
        if (markdown_file && compare_report_to_file(markdown_file, compare_report_markdown, &sides[0], &sides[1]) != 0)
            rc = -1;
        bool stdout_taken = output_is_stdout(html_file) || output_is_stdout(markdown_file);
        if (rc == 0 && !stdout_taken)
            rc = json ? compare_report_json(stdout, &sides[0], &sides[1])
                      : compare_report_text(stdout, &sides[0], &sides[1]);
        /* Two machines alike that both FAIL are not in order: the status says so. */
        bool fails = fleet_failing_nodes(&sides[0]) + fleet_failing_nodes(&sides[1]) > 0;
        status = rc != 0 ? EXIT_CANNOT_RUN : differences || fails ? 1 : 0;
    }
    fleet_free(&sides[0]);
    fleet_free(&sides[1]);
    return status;
}
