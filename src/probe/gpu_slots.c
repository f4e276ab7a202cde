/* Empty ports beside accelerators: a PCIe switch whose downstream ports hold two or more
 * accelerators and one that holds nothing may have lost a GPU from the bus altogether (a GPU that
 * fell off before the kernel enumerated it leaves no device behind). Only a hint for GPU_LOST:
 * switches have spare ports by design, so without --expect-gpus nothing is claimed. */
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/pciaddr.h"

/* PCI functions listed in a sysfs device folder: its children on the bus below. */
static int pci_children(const char *dir, char ***names)
{
    char **all = NULL;
    int n = fs_list(dir, &all), kept = 0;
    for (int i = 0; i < n; i++) {
        if (pci_address_is_sysfs_name(all[i]))
            all[kept++] = all[i];
        else
            free(all[i]);
    }
    *names = all;
    return n < 0 ? -1 : kept;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static bool seen_switch(const struct empty_port_hints *s, const char *sw)
{
    for (int i = 0; i < s->count; i++)
        if (!strcmp(s->items[i].switch_port, sw))
            return true;
    return false;
}

void probe_gpu_slots(struct machine *m)
{
    struct empty_port_hints *s = &m->empty_ports;
    for (int i = 0; i < m->npci && s->count < 8; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR || d->npath < 2)
            continue;
        const char *sw = d->path[1].bus_id; /* the switch's upstream port; path[0] its downstream one */
        if (seen_switch(s, sw))
            continue;
        char link[600];
        snprintf(link, sizeof link, "/sys/bus/pci/devices/%s", d->bus_id);
        char *real = fs_resolve(link);
        char *cut = real ? strrchr(real, '/') : NULL; /* .../UP/DOWN/DEV -> .../UP */
        if (cut) {
            *cut = '\0';
            cut = strrchr(real, '/');
        }
        if (!cut) {
            free(real);
            continue;
        }
        *cut = '\0';
        char **ports = NULL;
        int nports = pci_children(real, &ports);
        int accelerators = 0;
        char empty[32] = "";
        for (int p = 0; p < nports; p++) {
            char dir[1200];
            snprintf(dir, sizeof dir, "%s/%s", real, ports[p]);
            char **below = NULL;
            int nbelow = pci_children(dir, &below);
            if (nbelow == 0 && !empty[0])
                snprintf(empty, sizeof empty, "%s", ports[p]);
            for (int b = 0; b < nbelow; b++)
                for (int k = 0; k < m->npci; k++)
                    accelerators += m->pci[k].role == PCI_ROLE_ACCELERATOR && !strcmp(m->pci[k].bus_id, below[b]);
            free_names(below, nbelow > 0 ? nbelow : 0);
        }
        free_names(ports, nports > 0 ? nports : 0);
        free(real);
        if (accelerators >= 2 && empty[0]) {
            snprintf(s->items[s->count].switch_port, 32, "%s", sw);
            snprintf(s->items[s->count].empty_port, 32, "%s", empty);
            s->items[s->count].accelerators = accelerators;
            s->count++;
        }
    }
}
