#include "util/parse.h"
#include "util/i18n.h"
#include "util/linereader.h"
#include "util/output.h"
#include "util/units.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool parse_link_speed(const char *text, double *gt_s)
{
    if (!text)
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || v <= 0 || v > 1024)
        return false;
    while (*end == ' ')
        end++;
    if (strncmp(end, "GT/s", 4) != 0)
        return false;
    *gt_s = v;
    return true;
}

bool parse_link_width(const char *text, int *width)
{
    if (!text)
        return false;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    while (*end == ' ' || *end == '\n')
        end++;
    if (end == text || *end || errno || v <= 0 || v > 64)
        return false;
    *width = (int)v;
    return true;
}

double pcie_lane_gb_s(double gt_s)
{
    if (gt_s <= 0)
        return 0;
    if (gt_s <= 5.0)
        return gt_s * 0.8 / 8.0; /* Gen1/2: 8b/10b */
    if (gt_s <= 32.0)
        return gt_s * 128.0 / 130.0 / 8.0; /* Gen3-5: 128b/130b */
    return gt_s * 242.0 / 256.0 / 8.0; /* Gen6+: FLIT mode */
}

/* GT/s of PCIe generations 1, 2, 3... */
static const double pcie_rates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0};

int pcie_generation(double gt_s)
{
    for (size_t i = 0; i < sizeof pcie_rates / sizeof pcie_rates[0]; i++)
        if (gt_s > pcie_rates[i] * 0.95 && gt_s < pcie_rates[i] * 1.05)
            return (int)i + 1;
    return 0;
}

double pcie_generation_gt_s(int gen)
{
    return gen > 0 && (size_t)gen <= sizeof pcie_rates / sizeof pcie_rates[0] ? pcie_rates[gen - 1] : 0;
}

bool parse_cpulist(const char *text, hwloc_bitmap_t set)
{
    hwloc_bitmap_zero(set);
    if (!text)
        return false;
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == '\0' || *p == '\n')
        return true;
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return false;
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p))
                return false;
            b = strtoul(p, &end, 10);
            p = end;
            /* "0-31:2/8" stride syntax is kernel command-line only; sysfs never prints it. */
        }
        if (b < a || b > 1u << 20)
            return false;
        hwloc_bitmap_set_range(set, (unsigned)a, (int)b);
        if (*p == ',') {
            p++;
            continue;
        }
        while (*p == ' ' || *p == '\n')
            p++;
        return *p == '\0';
    }
}

bool parse_cpumask(const char *text, hwloc_bitmap_t set)
{
    hwloc_bitmap_zero(set);
    if (!text)
        return false;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    if (n == 0)
        return false;
    unsigned bit = 0;
    for (size_t i = n; i-- > 0;) {
        char c = text[i];
        if (c == ',')
            continue;
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            return false;
        for (int k = 0; k < 4; k++)
            if (v & (1 << k))
                hwloc_bitmap_set(set, bit + (unsigned)k);
        bit += 4;
    }
    return true;
}

char *format_cpulist(hwloc_const_bitmap_t set)
{
    char *s = NULL;
    if (hwloc_bitmap_list_asprintf(&s, set) < 0)
        return strdup("");
    return s;
}

bool parse_meminfo_bytes(const char *text, const char *key, uint64_t *bytes)
{
    if (!text)
        return false;
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *p = line;
        if (!strncmp(p, "Node ", 5)) {
            p += 5;
            while (isdigit((unsigned char)*p))
                p++;
            while (*p == ' ')
                p++;
        }
        if (strncmp(p, key, klen) != 0 || p[klen] != ':')
            continue;
        p += klen + 1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || errno)
            return false;
        while (*end == ' ')
            end++;
        if (!strncmp(end, "kB", 2)) {
            if (v > INT64_MAX / 1024)
                return false; /* wrapped, it would be a plausible size */
            v *= 1024;
        }
        if (v > INT64_MAX)
            return false;
        *bytes = v;
        return true;
    }
    return false;
}

char *parse_bracketed_choice(const char *text)
{
    if (!text)
        return NULL;
    const char *a = strchr(text, '[');
    const char *b = a ? strchr(a, ']') : NULL;
    if (!a || !b || b == a + 1)
        return NULL;
    return strndup(a + 1, (size_t)(b - a - 1));
}

int parse_int_row(const char *text, int *out, int max)
{
    if (!text)
        return -1;
    int n = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            return n;
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || n >= max)
            return -1;
        out[n++] = (int)v;
        p = end;
    }
}

int parse_proc_stat(const char *text, struct cpu_ticks **out)
{
    int n = 0, cap = 0;
    *out = NULL;
    /* Whole lines (sscanf must not read the next line's numbers as this one's). */
    char *buf = NULL;
    size_t capacity = 0;
    for (const char *line = text; text_line_next(&line, &buf, &capacity);) {
        if (strncmp(buf, "cpu", 3) != 0)
            continue;
        struct cpu_ticks t = {.cpu = -1};
        int used = 0;
        if (buf[3] != ' ' && (sscanf(buf + 3, "%d%n", &t.cpu, &used) != 1 || t.cpu < 0))
            continue;
        if (sscanf(buf + 3 + used, "%llu %llu %llu %llu %llu %llu %llu %llu", &t.user, &t.nice, &t.system, &t.idle,
                   &t.iowait, &t.irq, &t.softirq, &t.steal) < 4)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct cpu_ticks *grown = realloc(*out, (size_t)cap * sizeof *grown);
            if (!grown)
                break;
            *out = grown;
        }
        (*out)[n++] = t;
    }
    free(buf);
    return n;
}

unsigned long long cpu_ticks_total(const struct cpu_ticks *t)
{
    return t->user + t->nice + t->system + t->idle + t->iowait + t->irq + t->softirq + t->steal;
}

bool parse_pid_stat(const char *text, struct pid_stat *out)
{
    const char *open = text ? strchr(text, '(') : NULL, *close = text ? strrchr(text, ')') : NULL;
    if (!open || !close || close < open)
        return false;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%.*s", (int)(close - open - 1), open + 1);
    out->processor = -1;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
     * priority nice num_threads itrealvalue starttime vsize rss, 13 fields to exit_signal, processor */
    int n = sscanf(close + 1,
                   " %c %d %*d %*d %*d %*d %lu %*u %*u %lu %*u %llu %llu %*d %*d %*d %*d %d %*d %*u %*u %*d"
                   " %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*d %d",
                   &out->state, &out->ppid, &out->flags, &out->majflt, &out->utime, &out->stime, &out->threads,
                   &out->processor);
    return n >= 6;
}

int split_blanks(char *line, char **tokens, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && n < max; t = strtok_r(NULL, " \t\r\n", &save))
        tokens[n++] = t;
    return n;
}

/* ---- numbers users type ------------------------------------------------------------------ */

struct unit {
    const char *suffix;
    double scale;
};

static bool parse_positive(const char *s, double *out, char **end)
{
    errno = 0;
    *out = strtod(s, end);
    if (*end == s || errno || !isfinite(*out) || *out <= 0)
        return false;
    while (**end == ' ')
        (*end)++;
    return true;
}

/* Applies the unit that matches rest exactly (case-insensitive when fold, else case-sensitive). */
static bool apply_unit(const char *rest, const struct unit *units, size_t n, bool fold, double *value)
{
    for (size_t i = 0; i < n; i++)
        if (fold ? !strcasecmp(rest, units[i].suffix) : !strcmp(rest, units[i].suffix)) {
            *value *= units[i].scale;
            return isfinite(*value);
        }
    return false;
}

bool parse_quantity(const char *s, double *out)
{
    static const struct unit counts[] = {{"", 1}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}};
    char *end;
    return parse_positive(s, out, &end) && apply_unit(end, counts, sizeof counts / sizeof counts[0], true, out);
}

bool parse_token_count(const char *s, int max, int *out)
{
    static const struct unit tokens[] = {{"", 1}, {"K", 1024}, {"M", 1048576}};
    char *end;
    double v;
    if (!parse_positive(s, &v, &end) || !apply_unit(end, tokens, sizeof tokens / sizeof tokens[0], true, &v))
        return false;
    if (v != floor(v) || v < 1 || v > max)
        return false;
    *out = (int)v;
    return true;
}

bool parse_bytes(const char *s, double *out)
{
    /* Case matters for the b: "Gb" and "gb" are gigabits. The prefix letter may be either case. */
    static const struct unit sizes[] = {{"", 1},        {"B", 1},        {"KB", KB},      {"MB", MB},
                                        {"GB", GB},      {"TB", TB},      {"PB", PB},      {"KiB", KIB},
                                        {"MiB", MIB},    {"GiB", GIB},    {"TiB", TIB}};
    char *end;
    if (!parse_positive(s, out, &end))
        return false;
    char unit[8];
    size_t len = strlen(end);
    if (len >= sizeof unit)
        return false;
    /* The prefix letter in either case: "gB" is "GB"; the b decides bytes or bits. */
    memcpy(unit, end, len + 1);
    if (len >= 2)
        unit[0] = (char)toupper((unsigned char)unit[0]);
    return apply_unit(unit, sizes, sizeof sizes / sizeof sizes[0], false, out);
}

bool parse_fraction(const char *s, double *out)
{
    char *end;
    if (!parse_positive(s, out, &end))
        return false;
    if (*end == '%' && !end[1])
        *out /= 100;
    else if (*end)
        return false;
    return *out > 0 && *out <= 1;
}

bool parse_seconds(const char *s, double *out)
{
    static const struct unit durations[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"m", 60}, {"min", 60}, {"h", 3600}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return false;
    if (!apply_unit(end, durations, sizeof durations / sizeof durations[0], false, &v))
        return false;
    *out = v;
    return true;
}

/* ---- command-line option values ---------------------------------------------------------- */

bool option_invalid(const char *cmd, const char *opt, const char *value, const char *expected)
{
    /* TRANSLATORS: the last %s is what the option wants, as a noun phrase: "a size (...)". */
    print_error(cmd, _("--%s %s: expected %s"), opt, value, _(expected));
    return false;
}

bool option_int(const char *cmd, const char *opt, const char *value, long min, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < min || v > max || v < INT_MIN || v > INT_MAX) {
        print_error(cmd, _("--%s %s: expected a whole number from %ld to %ld"), opt, value, min, max);
        return false;
    }
    *out = (int)v;
    return true;
}

bool option_bytes(const char *cmd, const char *opt, const char *value, double *out)
{
    return parse_bytes(value, out) || option_invalid(cmd, opt, value, _("a size (sizes are bytes: 150GB, 1.2TB, 512MiB; a lower-case b means bits)"));
}

bool option_tokens(const char *cmd, const char *opt, const char *value, int max, int *out)
{
    if (parse_token_count(value, max, out))
        return true;
    print_error(cmd, _("--%s %s: expected a token count from 1 to %d (4096, 8k = 8192, 128k)"), opt, value, max);
    return false;
}

bool option_seconds(const char *cmd, const char *opt, const char *value, bool zero_ok, double max, double *out)
{
    double v;
    if (parse_seconds(value, &v) && (zero_ok || v > 0) && v <= max) {
        *out = v;
        return true;
    }
    if (zero_ok)
        print_error(cmd, _("--%s %s: expected seconds in [0, %.10g] (20, 1.5s, 500ms, 5m)"), opt, value, max);
    else
        print_error(cmd, _("--%s %s: expected seconds in (0, %.10g] (20, 1.5s, 500ms, 5m)"), opt, value, max);
    return false;
}

bool option_percent(const char *cmd, const char *opt, const char *value, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    bool number = end != value;
    if (number && *end == '%')
        end++;
    if (number && !*end && !errno && v >= 0 && v < max) {
        *out = v;
        return true;
    }
    print_error(cmd, _("--%s %s: expected a percentage from 0 to below %.10g (5 or 5%%)"), opt, value, max);
    return false;
}

bool option_fraction(const char *cmd, const char *opt, const char *value, double *out)
{
    return parse_fraction(value, out) || option_invalid(cmd, opt, value, _("a fraction in (0, 1]: 0.68 or 68%"));
}

bool option_positive(const char *cmd, const char *opt, const char *value, double *out)
{
    return parse_quantity(value, out) ||
           option_invalid(cmd, opt, value, _("a positive number (counts: 7B, 70e9, 2.5k, 2T; 1e21)"));
}
