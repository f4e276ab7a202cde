/* /proc/cpuinfo and cpufreq: what hwloc does not give (flags, the hypervisor bit) and what it
 * may lack in a recorded tree (model name, clocks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"

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
        machine_problem(m, "/proc/cpuinfo", "%s: CPU model and flags unknown", probe_missing_reason());
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
        free(features);
    }
    if (!c->flags_known)
        machine_problem(m, "/proc/cpuinfo", "has no flags or Features line: CPU flags unknown");
    free(flags);
    free(info);
    read_cpufreq(c);
}
