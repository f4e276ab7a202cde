#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"
#include "util/suggest.h"
#include "util/i18n.h"

const char *option_name(const struct option *options, int val)
{
    for (const struct option *opt = options; opt->name; opt++)
        if (opt->val == val)
            return opt->name;
    return "?";
}

int option_error(const struct option *options, char **argv)
{
    /* getopt_long has said what was wrong (under argv[0], "gpuvet COMMAND"); the element it stopped
     * at is argv[optind - 1]. A misspelt long option gets the closest real one, not the whole usage. */
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    const char *suggestion = NULL;
    if (!strncmp(arg, "--", 2) && arg[2]) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
        const char *names[128];
        size_t count = 0;
        bool known = false;
        for (const struct option *opt = options; opt->name && count < 128; opt++) {
            names[count++] = opt->name;
            known = known || !strncmp(opt->name, name, strlen(name)); /* missing argument or ambiguous */
        }
        if (!known)
            suggestion = closest_name(name, names, count);
    }
    if (suggestion)
        fprintf(stderr, _("%s: did you mean --%s?  (%s --help lists the options)\n"), argv[0], suggestion, argv[0]);
    else
        fprintf(stderr, _("%s: %s --help lists the options\n"), argv[0], argv[0]);
    return EXIT_CANNOT_RUN;
}
