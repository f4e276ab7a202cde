#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "report/explain_text.h"
#include "rules/rule.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/suggest.h"

static const struct opt_command explain_command_help = {
    .name = "explain",
    .usage = N_("usage: gpuvet explain RULE_ID|PREFIX|WORKLOAD\n"
                "\n"
                "Prints a rule's rationale and its severity per workload, the rules whose IDs start with "
                "PREFIX (PCIE lists the PCIe rules), or the key facts a workload's verdict needs.\n"
                "\n"
                "workloads: %s\n"
                "rules: gpuvet audit --list-rules\n"
                "exit status: 0 explained, 2 no such rule, prefix or workload\n"),
};

static int no_such_rule(const char *query)
{
    const char *names[256];
    size_t count = 0;
    for (int i = 0; i < rules_count && count < 256; i++)
        names[count++] = rules_table[i].id;
    for (int w = 0; w < WORKLOAD_COUNT && count < 256; w++)
        names[count++] = workload_name((enum workload)w);
    const char *closest = closest_name(query, names, count);
    if (closest)
        print_error("explain", _("no rule, rule prefix or workload '%s'; did you mean %s?"), query, closest);
    else
        print_error("explain", _("no rule, rule prefix or workload '%s' (gpuvet audit --list-rules lists the rules)"),
                    query);
    return EXIT_CANNOT_RUN;
}

int cmd_explain(int argc, char **argv)
{
    /* the workloads of the rules' table, the one list (the shell completion reads this line) */
    char workloads[256] = "";
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        snprintf(workloads + strlen(workloads), sizeof workloads - strlen(workloads), "%s%s", w ? " " : "",
                 workload_name((enum workload)w));
    struct opt_command help = explain_command_help;
    help.operands = workloads;
    struct opt table[] = {OPT_END()};
    int parsed = opt_parse(&help, table, argc, argv); /* --hepl: did you mean --help? */
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (argc - optind != 1) {
        if (optind == argc)
            print_error("explain", _("give a rule ID, rule prefix or workload"));
        else
            print_error("explain", _("unexpected argument '%s'"), argv[optind + 1]);
        opt_usage(stderr, &help, table);
        return EXIT_CANNOT_RUN;
    }
    const char *query = argv[optind];
    enum workload w;
    if (workload_parse(query, &w)) {
        explain_text_workload(stdout, w, query);
        return 0;
    }
    const struct rule *r = rule_find(query);
    if (!r)
        return explain_text_prefixed(stdout, query) > 0 ? 0 : no_such_rule(query);
    explain_text_rule(stdout, r);
    return 0;
}
