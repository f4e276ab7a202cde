#include "builtin/builtin.h"

const char *option_name(const struct option *options, int val)
{
    for (const struct option *opt = options; opt->name; opt++)
        if (opt->val == val)
            return opt->name;
    return "?";
}
