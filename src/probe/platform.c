/* The CPU platform table (data/cpu-platforms.csv): memory channels per socket, DDR generation and
 * the top MT/s per DIMMs-per-channel, per CPU model where the vendor publishes it, else per family;
 * matched on the model string or, for engineering samples without a name, on CPUID. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/datadir.h"
#include "util/i18n.h"

#define PLATFORM_FILE "cpu-platforms.csv"
#define PLATFORM_FIELDS 13
/* channels_per_socket of a CPU without a memory controller (front-side bus: it is in the chipset). */
#define CHANNELS_IN_CHIPSET "chipset"

enum platform_field {
    F_NAME, F_REGEX, F_CPUID_FAMILY, F_CPUID_MODELS, F_CHANNELS, F_DDR, F_MTS, F_MTS_2DPC, F_MTS_3DPC, F_SCOPE,
    F_SOURCE, F_DPC_SOURCE, F_MAX_SOCKETS
};

static int scope_of(const char *word)
{
    for (int s = PLATFORM_FAMILY; s <= PLATFORM_MODEL; s++)
        if (!strcmp(word, platform_scope_name((enum platform_scope)s)))
            return s;
    return -1;
}

/* Messages name the source by its publisher ("2133 MT/s is the top speed of ... (Intel ARK)"). */
static const char *source_label(const char *url)
{
    static const struct {
        const char *host_part, *label;
    } sites[] = {
        {"intel.com/content/www/us/en/products/sku/", "Intel ARK"},
        {"s2600cw", "Intel Server Board S2600CW TPS"},
        {"lenovo/x3550-m5", "Lenovo System x3550 M5 manual"},
        {"proliant-dl320-g6", "HP ProLiant DL320 G6 user guide"},
        {"wwt.com", "WWT's Intel memory population guide"},
        {"frankdenneman.nl", "Frank Denneman"},
        {"hardwarealdia.com", "Intel's Cooper Lake launch figures"},
        {"ark.intel.com", "Intel ARK"},
        {"intel.com", "Intel"},
        {"amd.com", "AMD"},
        {"hisilicon.com", "HiSilicon"},
        {"amperecomputing.com", "Ampere"},
    };
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++)
        if (strstr(url, sites[i].host_part))
            return sites[i].label;
    return url;
}

static bool cpuid_listed(const char *list, int model)
{
    char *copy = strdup(list), *save = NULL;
    bool found = false;
    for (char *t = copy ? strtok_r(copy, ";", &save) : NULL; t && !found; t = strtok_r(NULL, ";", &save))
        found = atoi(t) == model;
    free(copy);
    return found;
}

int data_row_next(struct line_reader *r, char **fields, int max, char *err, size_t errlen)
{
    int got;
    while ((got = line_reader_next(r, err, errlen)) > 0) {
        char *line = r->line;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        int n = 0;
        for (char *p = line; p; n++) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            /* Fields beyond max are counted, not kept: the caller rejects the row by its count. */
            if (n < max)
                fields[n] = p;
            p = comma ? comma + 1 : NULL;
        }
        return n;
    }
    return got;
}

void data_row_field_count_problem(struct machine *m, const char *file, int lineno, int nfields, int expected)
{
    machine_problem(m, file, "line %d: %d fields, expected %d (see the header; fields hold no commas)", lineno,
                    nfields, expected);
}

int data_row_error(const char *file, int lineno, int nfields, int expected, const char *problem, char *err,
                   size_t errlen)
{
    if (nfields != expected)
        /* TRANSLATORS: a data table, a line number, the fields found in it, the fields a row has. */
        snprintf(err, errlen, _("%s:%d: %d fields, expected %d (see the header; fields hold no commas)"), file,
                 lineno, nfields, expected);
    else if (problem)
        /* TRANSLATORS: a data table, a line number, what is wrong with that row. */
        snprintf(err, errlen, _("%s:%d: %s (see the header)"), file, lineno, _(problem));
    return nfields != expected || problem ? -1 : 0;
}

static bool row_matches(char **f, const struct cpu_info *c, bool by_name)
{
    if (by_name) {
        regex_t re;
        if (!c->model || !*f[F_REGEX] || regcomp(&re, f[F_REGEX], REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
            return false;
        bool ok = regexec(&re, c->model, 0, NULL, 0) == 0;
        regfree(&re);
        return ok;
    }
    return *f[F_CPUID_FAMILY] && *f[F_CPUID_MODELS] && c->family == atoi(f[F_CPUID_FAMILY]) &&
           cpuid_listed(f[F_CPUID_MODELS], c->model_number);
}

/* A row the loader can use: "chipset" with no speeds, or a channel count, a 1DPC speed, DPC speeds that do
 * not exceed it, a scope; with check_regex, a model regex that compiles (the table check does that: the
 * probe leaves it out, since a row's regex is compiled anyway when it is tried, and compiling all 260 twice
 * cost a quarter of an audit). Returns an N_() text, NULL for a usable row. */
static const char *row_problem(char **f, bool check_regex)
{
    regex_t re;
    if (check_regex && *f[F_REGEX]) {
        if (regcomp(&re, f[F_REGEX], REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
            return N_("model_regex is not a regular expression");
        regfree(&re);
    }
    if (!strcmp(f[F_CHANNELS], CHANNELS_IN_CHIPSET))
        return *f[F_MTS] || *f[F_MTS_2DPC] || *f[F_MTS_3DPC] ? N_("a CPU without a memory controller has no MT/s")
               : *f[F_SOURCE]                                ? NULL
                                                             : N_("no source");
    if (atoi(f[F_CHANNELS]) <= 0)
        return N_("no channel count");
    int mts = atoi(f[F_MTS]), dpc2 = atoi(f[F_MTS_2DPC]), dpc3 = atoi(f[F_MTS_3DPC]);
    if (mts <= 0)
        return N_("no MT/s");
    if (dpc2 < 0 || dpc2 > mts || dpc3 < 0 || dpc3 > mts || (dpc3 && dpc2 && dpc3 > dpc2))
        return N_("DIMMs-per-channel speeds must not exceed the 1DPC speed");
    if (scope_of(f[F_SCOPE]) < 0)
        return N_("scope must be model, models or family");
    if (!*f[F_SOURCE])
        return N_("no source");
    if (*f[F_MAX_SOCKETS] && (atoi(f[F_MAX_SOCKETS]) < 1 || atoi(f[F_MAX_SOCKETS]) > 32))
        return N_("max_sockets must be empty or 1 to 32");
    return NULL;
}

int cpu_platform_table_check(FILE *f, const char *label, char *err, size_t errlen)
{
    struct line_reader r;
    line_reader_init(&r, f, label, TEXT_LINE_MAX);
    char *fields[PLATFORM_FIELDS];
    int n, rc = 0;
    while (rc == 0 && (n = data_row_next(&r, fields, PLATFORM_FIELDS, err, errlen)) > 0)
        rc = data_row_error(label, r.number, n, PLATFORM_FIELDS, n == PLATFORM_FIELDS ? row_problem(fields, true) : NULL,
                            err, errlen);
    line_reader_free(&r);
    fclose(f);
    return rc == 0 && n == 0 ? 0 : -1;
}

static void platform_from_row(struct cpu_platform *p, char **f)
{
    p->name = strdup(f[F_NAME]);
    p->channels_per_socket = atoi(f[F_CHANNELS]);
    p->ddr = strdup(f[F_DDR]);
    p->mts = p->mts_at_dpc[1] = atoi(f[F_MTS]);
    p->mts_at_dpc[2] = atoi(f[F_MTS_2DPC]);
    p->mts_at_dpc[3] = atoi(f[F_MTS_3DPC]);
    p->scope = (enum platform_scope)scope_of(f[F_SCOPE]);
    p->source = strdup(f[F_SOURCE]);
    p->source_label = strdup(source_label(f[F_SOURCE]));
    p->dpc_source = *f[F_DPC_SOURCE] ? strdup(f[F_DPC_SOURCE]) : NULL;
    p->dpc_source_label = p->dpc_source ? strdup(source_label(p->dpc_source)) : NULL;
    p->max_sockets = atoi(f[F_MAX_SOCKETS]);
}

/* A front-side-bus CPU: the channels are the chipset's, which SMBIOS does not name per DIMM, so
 * the platform stays unknown with the reason. */
static void chipset_memory_reason(struct memory_info *mem, char **f)
{
    mem->memory_controller_in_chipset = true;
    /* TRANSLATORS: a CPU's name (Xeon E5450), then the source of that fact (a vendor's page). */
    i18n_asprintf(&mem->platform_unknown_reason,
                  "the %s has no memory controller: memory hangs off the chipset over the front-side bus (%s), "
                  "and SMBIOS does not say which chipset channel holds each DIMM",
                  f[F_NAME], source_label(f[F_SOURCE]));
}

void probe_cpu_platform(struct machine *m)
{
    struct memory_info *mem = &m->memory;
    char label[PATH_MAX];
    FILE *f = data_open(PLATFORM_FILE, label, sizeof label);
    if (!f) { /* only when a --data or GPUVET_DATA_DIR folder lacks it: gpuvet checks that at start */
        int error = errno;
        /* TRANSLATORS: a data table's path, then the system's error text (No such file or directory). */
        i18n_asprintf(&mem->platform_unknown_reason, "%s: %s", label, i18n_error_text(error));
        char *why = i18n_strerror(error);
        if (why)
            machine_problem_reason(m, label, why);
        free(why);
        return;
    }
    /* Two passes: every row by name first, so a named CPU never falls to a CPUID row of a sibling. The
     * first pass reads the whole table, so a broken row is reported whatever the CPU. */
    bool matched = false;
    for (int pass = 0; pass < 2 && !matched; pass++) {
        rewind(f);
        struct line_reader r;
        line_reader_init(&r, f, label, TEXT_LINE_MAX);
        char *fields[PLATFORM_FIELDS], err[PATH_MAX + 128];
        int nfields;
        while ((nfields = data_row_next(&r, fields, PLATFORM_FIELDS, err, sizeof err)) > 0) {
            if (nfields != PLATFORM_FIELDS) {
                if (pass == 0)
                    data_row_field_count_problem(m, label, r.number, nfields, PLATFORM_FIELDS);
                continue;
            }
            const char *problem = row_problem(fields, false);
            if (problem) {
                if (pass == 0)
                    machine_problem(m, label, "line %d: %s (see the header)", r.number, problem);
                continue;
            }
            if (matched || !row_matches(fields, &m->cpu, pass == 0))
                continue;
            matched = true;
            if (!strcmp(fields[F_CHANNELS], CHANNELS_IN_CHIPSET))
                chipset_memory_reason(mem, fields);
            else
                platform_from_row(&mem->platform, fields);
        }
        if (nfields < 0 && pass == 0)
            machine_problem_reason(m, label, err);
        line_reader_free(&r);
    }
    fclose(f);
    if (!matched) {
        /* TRANSLATORS: a CPU's model name (or "unknown"), its CPUID family and model, then a data table. */
        i18n_asprintf(&mem->platform_unknown_reason, "CPU \"%s\" (family %d, model %d) is not in %s",
                      m->cpu.model ? m->cpu.model : _("unknown"), m->cpu.family, m->cpu.model_number, PLATFORM_FILE);
    }
}
