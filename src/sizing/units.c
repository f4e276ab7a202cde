#include "sizing/units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

static bool parse_number(const char *s, double *out, char **end)
{
    errno = 0;
    *out = strtod(s, end);
    return *end != s && !errno && isfinite(*out) && *out > 0;
}

bool parse_quantity(const char *s, double *out)
{
    char *end;
    if (!parse_number(s, out, &end))
        return false;
    static const struct {
        const char *suffix;
        double scale;
    } suffixes[] = {{"", 1}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (!strcasecmp(end, suffixes[i].suffix)) {
            *out *= suffixes[i].scale;
            return true;
        }
    return false;
}

bool parse_bytes(const char *s, double *out)
{
    char *end;
    if (!parse_number(s, out, &end))
        return false;
    while (*end == ' ')
        end++;
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1},     {"B", 1},     {"KB", 1e3},          {"MB", 1e6},           {"GB", 1e9},
                 {"TB", 1e12}, {"KiB", 1024}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(end, units[i].unit)) {
            *out *= units[i].scale;
            return true;
        }
    return false;
}

bool parse_fraction(const char *s, double *out)
{
    char *end;
    if (!parse_number(s, out, &end))
        return false;
    if (*end == '%' && !end[1])
        *out /= 100;
    else if (*end)
        return false;
    return *out > 0 && *out <= 1;
}
