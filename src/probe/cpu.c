/* /proc/cpuinfo and cpufreq: what hwloc does not give (flags, the hypervisor bit) and what it
 * may lack in a recorded tree (model name, clocks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"

/* Value of the first "key<TAB>: value" line, malloc'd. */
static char *cpuinfo_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, key, klen) != 0)
            continue;
        const char *p = line + klen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ')
            p++;
        const char *end = strchr(p, '\n');
        return strndup(p, end ? (size_t)(end - p) : strlen(p));
    }
    return NULL;
}

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* ARM cores name themselves by implementer and part number only (arm64 cputype.h). */
static const struct arm_part {
    unsigned implementer, part;
    const char *name;
} arm_parts[] = {
    {0x41, 0xd08, "ARM Cortex-A72"},  {0x41, 0xd0b, "ARM Cortex-A76"},   {0x41, 0xd0c, "ARM Neoverse-N1"},
    {0x41, 0xd40, "ARM Neoverse-V1"}, {0x41, 0xd49, "ARM Neoverse-N2"},  {0x41, 0xd4f, "ARM Neoverse-V2"},
    {0x41, 0xd84, "ARM Neoverse-V3"}, {0x41, 0xd8e, "ARM Neoverse-N3"},  {0x41, 0xd85, "ARM Cortex-X925"},
    {0x41, 0xd87, "ARM Cortex-A725"}, {0x48, 0xd01, "HiSilicon Kunpeng-920"}, {0xc0, 0xac3, "AmpereOne"},
    {0x46, 0x001, "Fujitsu A64FX"},
};

/* "ARM Cortex-X925 + ARM Cortex-A725" for the distinct parts listed in cpuinfo. */
static char *arm_model_name(const char *info)
{
    char names[256] = "";
    unsigned implementer = 0;
    for (const char *line = info; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        unsigned v;
        if (sscanf(line, "CPU implementer : %x", &v) == 1 || sscanf(line, "CPU implementer\t: %x", &v) == 1)
            implementer = v;
        if (sscanf(line, "CPU part\t: %x", &v) != 1 && sscanf(line, "CPU part : %x", &v) != 1)
            continue;
        for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
            if (arm_parts[i].implementer == implementer && arm_parts[i].part == v && !strstr(names, arm_parts[i].name)) {
                size_t n = strlen(names);
                snprintf(names + n, sizeof names - n, "%s%s", n ? " + " : "", arm_parts[i].name);
            }
    }
    return names[0] ? strdup(names) : NULL;
}

/* "Intel(R) Xeon(R) Silver 4108 CPU @ 1.80GHz" carries the nominal clock. */
static double mhz_from_model_name(const char *model)
{
    const char *at = model ? strrchr(model, '@') : NULL;
    if (!at)
        return 0;
    double ghz = atof(at + 1);
    return strstr(at, "GHz") && ghz > 0.1 && ghz < 10 ? ghz * 1000 : 0;
}

static void read_cpufreq(struct cpu_info *c)
{
    long khz;
    if (c->max_mhz <= 0 && fs_read_long("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", &khz) && khz > 0)
        c->max_mhz = khz / 1000.0;
    if (c->base_mhz <= 0 && fs_read_long("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency", &khz) && khz > 0)
        c->base_mhz = khz / 1000.0;
    if (c->base_mhz <= 0)
        c->base_mhz = mhz_from_model_name(c->model);
}

void probe_cpu(struct machine *m)
{
    struct cpu_info *c = &m->cpu;
    char *info = fs_read("/proc/cpuinfo");
    if (!info) {
        machine_problem_missing(m, "/proc/cpuinfo", probe_missing_reason(), N_("CPU model and flags unknown"));
        read_cpufreq(c);
        return;
    }
    if (!c->model)
        c->model = cpuinfo_value(info, "model name");
    if (!c->vendor)
        c->vendor = cpuinfo_value(info, "vendor_id");
    char *flags = cpuinfo_value(info, "flags");
    if (flags) {
        c->flags_known = true;
        c->avx2 = has_word(flags, "avx2");
        c->avx512f = has_word(flags, "avx512f");
        c->amx = has_word(flags, "amx_tile");
        c->hypervisor_flag = has_word(flags, "hypervisor");
        if (!c->arch)
            c->arch = strdup(has_word(flags, "lm") ? "x86_64" : "x86");
        if (c->family < 0) {
            char *fam = cpuinfo_value(info, "cpu family"), *mod = cpuinfo_value(info, "model");
            if (fam && mod) {
                c->family = atoi(fam);
                c->model_number = atoi(mod);
            }
            free(fam);
            free(mod);
        }
    } else {
        /* ARM lists "Features"; the x86 vector flags do not apply there. */
        char *features = cpuinfo_value(info, "Features");
        c->flags_known = features != NULL;
        if (features && !c->arch)
            c->arch = strdup(has_word(features, "asimd") ? "aarch64" : "arm");
        if (!c->vendor)
            c->vendor = cpuinfo_value(info, "CPU implementer");
        if (!c->model)
            c->model = arm_model_name(info);
        free(features);
    }
    if (!c->flags_known)
        machine_problem(m, "/proc/cpuinfo", "has no flags or Features line: CPU flags unknown");
    free(flags);
    free(info);
    read_cpufreq(c);
}
