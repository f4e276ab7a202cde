/* PCIe Advanced Error Reporting counters of every accelerator and of every port on its way to the
 * root port: sysfs aer_dev_correctable, aer_dev_nonfatal and aer_dev_fatal (the kernel's
 * Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats): one "Name count" line per error bit
 * and a TOTAL_ERR_COR / TOTAL_ERR_NONFATAL / TOTAL_ERR_FATAL line, counted since boot. A function
 * without AER (or a kernel without CONFIG_PCIEAER) has no such files: its counts stay unknown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"

static const char *const files[AER_KINDS] = {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"};

/* Parses one file into the total and the names of the counters above zero. false: malformed. */
static bool parse_aer(const char *text, const char *total_name, int64_t *total, char **nonzero)
{
    char names[256] = "";
    size_t used = 0;
    int64_t sum = 0;
    bool have_total = false, any = false;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char name[64];
        unsigned long long v;
        char copy[160];
        snprintf(copy, sizeof copy, "%.*s", (int)(len < sizeof copy - 1 ? len : sizeof copy - 1), line);
        if (len > 0) {
            if (sscanf(copy, "%63s %llu", name, &v) != 2 || v > (unsigned long long)INT64_MAX / 2)
                return false;
            any = true;
            if (!strcmp(name, total_name)) {
                have_total = true;
                *total = (int64_t)v;
            } else if (!strncmp(name, "TOTAL_", 6)) {
                return false; /* another file's total: not this kind */
            } else {
                sum = sum > INT64_MAX / 2 - (int64_t)v ? INT64_MAX / 2 : sum + (int64_t)v; /* hostile files saturate */
                if (v > 0 && used < sizeof names - 1)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s %llu", used ? ", " : "", name, v);
            }
        }
        line = end ? end + 1 : NULL;
    }
    if (!any)
        return false;
    if (!have_total)
        *total = sum;
    *nonzero = used ? strdup(names) : NULL;
    return true;
}

static void read_function(struct machine *m, const char *bus_id, const char *gpu, bool is_gpu)
{
    struct fault_info *f = &m->faults;
    for (int i = 0; i < f->naer; i++)
        if (!strcmp(f->aer[i].bus_id, bus_id))
            return; /* a switch port above several GPUs is read once, for the first */
    struct aer_counts c = {.is_gpu = is_gpu};
    snprintf(c.bus_id, sizeof c.bus_id, "%s", bus_id);
    snprintf(c.of_gpu, sizeof c.of_gpu, "%s", gpu);
    bool any = false;
    for (int k = 0; k < AER_KINDS; k++) {
        c.total[k] = -1;
        char path[512];
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", bus_id, files[k]);
        char *text = fs_read(path);
        if (!text)
            continue;
        if (parse_aer(text, aer_kind_name(k), &c.total[k], &c.nonzero[k]))
            any = true;
        else {
            c.total[k] = -1;
            machine_problem(m, path, "not the kernel's AER counter format (\"Name count\" lines): unknown");
        }
        free(text);
    }
    if (!any)
        return;
    struct aer_counts *grown = realloc(f->aer, (size_t)(f->naer + 1) * sizeof *grown);
    if (!grown) {
        for (int k = 0; k < AER_KINDS; k++)
            free(c.nonzero[k]);
        return;
    }
    f->aer = grown;
    f->aer[f->naer++] = c;
}

void probe_aer(struct machine *m)
{
    if (!m->pci_scanned)
        return;
    m->faults.aer_read = true;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        read_function(m, d->bus_id, d->bus_id, true);
        for (int h = 0; h < d->npath; h++)
            read_function(m, d->path[h].bus_id, d->bus_id, false);
    }
}
