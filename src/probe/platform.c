/* The CPU platform table (data/cpu-platforms.csv): memory channels per socket, DDR generation and
 * MT/s, matched on the model string or, for engineering samples without a name, on CPUID. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/datadir.h"

#define PLATFORM_FILE "cpu-platforms.csv"
#define PLATFORM_FIELDS 8

static bool cpuid_listed(const char *list, int model)
{
    char *copy = strdup(list), *save = NULL;
    bool found = false;
    for (char *t = copy ? strtok_r(copy, ";", &save) : NULL; t && !found; t = strtok_r(NULL, ";", &save))
        found = atoi(t) == model;
    free(copy);
    return found;
}

/* Splits a CSV line (no quoting: the table has no commas inside fields). */
static int split(char *line, char **fields, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static bool row_matches(char **f, const struct cpu_info *c, bool by_name)
{
    if (by_name) {
        regex_t re;
        if (!c->model || !*f[1] || regcomp(&re, f[1], REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
            return false;
        bool ok = regexec(&re, c->model, 0, NULL, 0) == 0;
        regfree(&re);
        return ok;
    }
    return *f[2] && *f[3] && c->family == atoi(f[2]) && cpuid_listed(f[3], c->model_number);
}

void probe_cpu_platform(struct machine *m)
{
    struct memory_info *mem = &m->memory;
    FILE *f = data_open(PLATFORM_FILE);
    if (!f) {
        if (asprintf(&mem->platform_unknown_reason, "%s not found (set GPUVET_DATA_DIR): %s", PLATFORM_FILE,
                     strerror(errno)) < 0)
            mem->platform_unknown_reason = NULL;
        machine_problem(m, PLATFORM_FILE, "not found in the data folders (set GPUVET_DATA_DIR)");
        return;
    }
    /* Two passes: every row by name first, so a named CPU never falls to a CPUID row of a sibling. */
    for (int pass = 0; pass < 2 && !mem->platform.name; pass++) {
        rewind(f);
        char line[1024];
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            line[strcspn(line, "\r\n")] = '\0';
            if (line[0] == '#' || line[0] == '\0')
                continue;
            char *fields[PLATFORM_FIELDS];
            if (split(line, fields, PLATFORM_FIELDS) != PLATFORM_FIELDS || atoi(fields[4]) <= 0) {
                if (pass == 0)
                    machine_problem(m, PLATFORM_FILE, "line %d: expected %d fields with a channel count", lineno,
                                    PLATFORM_FIELDS);
                continue;
            }
            if (!row_matches(fields, &m->cpu, pass == 0))
                continue;
            mem->platform.name = strdup(fields[0]);
            mem->platform.channels_per_socket = atoi(fields[4]);
            mem->platform.ddr = strdup(fields[5]);
            mem->platform.mts = atoi(fields[6]);
            mem->platform.source = strdup(fields[7]);
            break;
        }
    }
    fclose(f);
    if (!mem->platform.name) {
        char *why;
        if (asprintf(&why, "CPU \"%s\" (family %d, model %d) is not in %s", m->cpu.model ? m->cpu.model : "unknown",
                     m->cpu.family, m->cpu.model_number, PLATFORM_FILE) < 0)
            why = NULL;
        mem->platform_unknown_reason = why;
    }
}
