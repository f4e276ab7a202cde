#include <string.h>

#include "report/plan_balance.h"
#include "util/i18n.h"

void plan_balance_print_text(FILE *out, json_t *balance)
{
    if (!json_is_object(balance))
        return;
    const char *unit = json_string_value(json_object_get(balance, "unit"));
    const char *neck = json_string_value(json_object_get(balance, "bottleneck"));
    fprintf(out, _("\nBalance per node, in %s (the job runs at its slowest stage):\n"), unit ? unit : "?");
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get(balance, "stages"), i, s) {
        const char *name = json_string_value(json_object_get(s, "name"));
        json_t *cap = json_object_get(s, "capacity");
        char shown[32] = "-";
        if (json_is_number(cap))
            balance_format_count(json_number_value(cap), shown, sizeof shown);
        const char *formula = json_string_value(json_object_get(s, "formula"));
        fprintf(out, "  %s %-12s %14s  %s\n", neck && name && !strcmp(name, neck) ? ">" : " ", name ? name : "?",
                shown, _(json_string_value(json_object_get(s, "basis"))));
        fprintf(out, "      %s\n", json_string_value(json_object_get(s, "source")));
        if (formula)
            fprintf(out, "      = %s\n", formula);
    }
    fprintf(out, "  %s\n", json_string_value(json_object_get(balance, "advice")));
}
