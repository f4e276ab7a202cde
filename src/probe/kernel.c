/* Kernel settings that matter for GPU jobs: THP, swap, NUMA balancing, isolated CPUs, governors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/parse.h"

static char *read_choice(struct machine *m, const char *path)
{
    char *text = fs_read(path);
    if (!text)
        return NULL;
    char *choice = parse_bracketed_choice(text);
    if (!choice)
        machine_problem(m, path, "holds \"%.40s\", no [selected] choice", text);
    free(text);
    return choice;
}

static int read_int(struct machine *m, const char *path)
{
    long v;
    if (fs_read_long(path, &v))
        return (int)v;
    if (fs_exists(path))
        machine_problem(m, path, "is not a number");
    return -1;
}

static char *read_cpulist(struct machine *m, const char *path)
{
    char *text = fs_read(path);
    if (!text)
        return NULL;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char *out = NULL;
    /* nohz_full reads "(null)" when the feature is built in but unused. */
    if (strstr(text, "(null)"))
        out = strdup("");
    else if (parse_cpulist(text, set))
        out = format_cpulist(set);
    else
        machine_problem(m, path, "is not a cpulist (\"%.40s\")", text);
    hwloc_bitmap_free(set);
    free(text);
    return out;
}

/* Counts governors over cpufreq policies (one per clock domain), or per CPU on old kernels. */
static void read_governors(struct kernel_info *k)
{
    const char *dir = "/sys/devices/system/cpu/cpufreq";
    char **names;
    int count = fs_list(dir, &names);
    bool policies = false;
    for (int i = 0; i < count; i++)
        policies |= !strncmp(names[i], "policy", 6);
    if (!policies) {
        fs_list_free(names, count);
        dir = "/sys/devices/system/cpu";
        count = fs_list(dir, &names);
    }
    struct { char name[32]; int n; } seen[8];
    int nseen = 0;
    for (int i = 0; i < count; i++) {
        char path[256];
        const char *n = names[i];
        if (policies ? strncmp(n, "policy", 6) != 0 : (strncmp(n, "cpu", 3) != 0 || n[3] < '0' || n[3] > '9'))
            continue;
        snprintf(path, sizeof path, policies ? "%s/%s/scaling_governor" : "%s/%s/cpufreq/scaling_governor", dir, n);
        char *gov = fs_read(path);
        if (!gov)
            continue;
        k->cpufreq_present = true;
        int j = 0;
        while (j < nseen && strcmp(seen[j].name, gov) != 0)
            j++;
        if (j == nseen && nseen < 8) {
            snprintf(seen[nseen].name, sizeof seen[nseen].name, "%s", gov);
            seen[nseen++].n = 0;
        }
        if (j < nseen)
            seen[j].n++;
        free(gov);
    }
    fs_list_free(names, count);
    int best = -1, total = 0;
    for (int j = 0; j < nseen; j++) {
        total += seen[j].n;
        if (best < 0 || seen[j].n > seen[best].n)
            best = j;
    }
    if (best >= 0) {
        k->governor = strdup(seen[best].name);
        k->governor_cpus = seen[best].n;
        k->governor_other = total - seen[best].n;
    }
}

void probe_kernel(struct machine *m)
{
    struct kernel_info *k = &m->kernel;
    k->release = fs_read("/proc/sys/kernel/osrelease");
    if (!k->release) {
        char *version = fs_read("/proc/version");
        char rel[128];
        if (version && sscanf(version, "Linux version %127s", rel) == 1)
            k->release = strdup(rel);
        free(version);
    }
    k->cmdline = fs_read("/proc/cmdline");
    k->thp_enabled = read_choice(m, "/sys/kernel/mm/transparent_hugepage/enabled");
    k->thp_defrag = read_choice(m, "/sys/kernel/mm/transparent_hugepage/defrag");
    char *meminfo = fs_read("/proc/meminfo");
    uint64_t swap;
    if (meminfo && parse_meminfo_bytes(meminfo, "SwapTotal", &swap))
        k->swap_total_bytes = (int64_t)swap;
    else if (meminfo)
        machine_problem(m, "/proc/meminfo", "has no SwapTotal line");
    uint64_t total;
    if (meminfo && parse_meminfo_bytes(meminfo, "MemTotal", &total))
        k->mem_total_bytes = (int64_t)total;
    free(meminfo);
    k->swappiness = read_int(m, "/proc/sys/vm/swappiness");
    k->numa_balancing = read_int(m, "/proc/sys/kernel/numa_balancing");
    k->isolated_cpus = read_cpulist(m, "/sys/devices/system/cpu/isolated");
    k->nohz_full = read_cpulist(m, "/sys/devices/system/cpu/nohz_full");
    read_governors(k);
}
