/* The NVSwitch fabric seen from the host: NVIDIA PCI functions of the "other bridge" class
 * (0x0680, the NVSwitches of HGX/DGX A100 and H100 boards), and whether NVIDIA's fabric manager
 * (the nv-fabricmanager daemon) runs: without it the GPUs of such a board never finish joining the
 * fabric and CUDA fails with error 802, "system not yet initialized" (NVIDIA Fabric Manager User
 * Guide). Also the uptime that turns counters since boot into a mean rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"

#define NVIDIA_VENDOR 0x10de
#define BRIDGE_OTHER_CLASS 0x0680
/* More PCI functions than any server has: the scan stops there. */
#define MAX_PCI_FUNCTIONS 8192

static int count_nvswitches(void)
{
    char **names;
    int n = fs_list("/sys/bus/pci/devices", &names);
    if (n < 0)
        return -1;
    int found = 0;
    for (int i = 0; i < n && i < MAX_PCI_FUNCTIONS; i++) {
        char path[512];
        long vendor, class_id;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", names[i]);
        if (!fs_read_long(path, &vendor) || vendor != NVIDIA_VENDOR)
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", names[i]);
        if (fs_read_long(path, &class_id) && (class_id >> 8) == BRIDGE_OTHER_CLASS)
            found++;
    }
    fs_list_free(names, n);
    return found;
}

/* The kernel keeps 15 characters of a command's name: "nv-fabricmanager" is "nv-fabricmanage". */
static bool is_fabric_manager(const char *comm) { return !strncmp(comm, "nv-fabricmanage", 15); }

static void find_fabric_manager(struct machine *m)
{
    struct fault_info *f = &m->faults;
    if (m->virt.container) {
        /* A container sees its own processes: the host's daemon is out of sight. */
        f->fabric_manager_unknown = N_("in a container, the host's processes are not visible");
        return;
    }
    struct proc_ticks *procs;
    int n = proc_ticks_read(&procs);
    if (n <= 0) {
        f->fabric_manager_unknown = fsroot_is_live() ? N_("the process list (/proc) could not be read")
                                                     : N_("the recorded tree holds no process list");
        free(procs);
        return;
    }
    f->fabric_manager = 0;
    for (int i = 0; i < n; i++)
        if (!procs[i].kernel_thread && procs[i].state != 'Z' && is_fabric_manager(procs[i].name))
            f->fabric_manager = 1;
    free(procs);
}

void probe_fabric(struct machine *m)
{
    char *uptime = fs_read("/proc/uptime");
    double up;
    if (uptime && sscanf(uptime, "%lf", &up) == 1 && up > 0 && up < 1e10)
        m->faults.uptime_s = up;
    free(uptime);
    m->faults.nvswitches = count_nvswitches();
    if (m->faults.nvswitches > 0)
        find_fabric_manager(m);
}
