/* The NVSwitch fabric seen from the host: NVIDIA PCI functions of the "other bridge" class
 * (0x0680, the NVSwitches of HGX/DGX A100 and H100 boards), and whether NVIDIA's fabric manager
 * (the nv-fabricmanager daemon) runs: without it the GPUs of such a board never finish joining the
 * fabric and CUDA fails with error 802, "system not yet initialized" (NVIDIA Fabric Manager User
 * Guide). Also the uptime that turns counters since boot into a mean rate. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Whether a process named like the fabric manager is NVIDIA's daemon itself. Any user can give a
 * process that name (prctl PR_SET_NAME, or a renamed copy of a script), so the name alone proves
 * nothing: the real one runs /usr/bin/nv-fabricmanager (the executable /proc/PID/exe links to) as
 * root (Uid 0 in /proc/PID/status), and on the live machine that file is root's. 1 real, 0 not
 * (why in `why`), -1 the link cannot be read (not root, or a recorded tree without it). */
static int real_fabric_manager(int pid, char *why, size_t whylen)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    char *exe = fs_resolve(link);
    if (!exe || !strcmp(exe, link)) { /* unreadable, or not a link */
        free(exe);
        return -1;
    }
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    /* After a driver update the running binary reads "nv-fabricmanager (deleted)". */
    bool named = !strncmp(base, "nv-fabricmanager", 16) && (!base[16] || !strcmp(base + 16, " (deleted)"));
    long uid = -1;
    char *status = fs_readf("/proc/%d/status", pid);
    const char *u = status ? strstr(status, "\nUid:") : NULL;
    if (u)
        uid = strtol(u + 6, NULL, 10);
    free(status);
    long owner = 0;
    if (named && fsroot_is_live()) {
        struct stat st;
        int fd = fs_open(exe, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        owner = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (long)st.st_uid : -1;
        if (fd >= 0)
            close(fd);
    }
    int real = named && uid == 0 && owner == 0;
    if (!real)
        snprintf(why, whylen, "pid %d runs %.80s as uid %ld%s", pid, exe, uid,
                 named && owner != 0 ? ", a file not owned by root" : "");
    free(exe);
    return real;
}

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
    bool by_name = false;
    for (int i = 0; i < n && f->fabric_manager != 1; i++) {
        if (procs[i].kernel_thread || procs[i].state == 'Z' || !is_fabric_manager(procs[i].name))
            continue;
        char why[sizeof f->fabric_manager_not_real] = "";
        int real = real_fabric_manager(procs[i].pid, why, sizeof why);
        if (real == 1)
            f->fabric_manager = 1;
        else if (real < 0)
            by_name = true;
        else if (!f->fabric_manager_not_real[0])
            snprintf(f->fabric_manager_not_real, sizeof f->fabric_manager_not_real, "%s", why);
    }
    /* Only the name could be judged: running, and the finding says on what ground. */
    if (f->fabric_manager != 1 && by_name) {
        f->fabric_manager = 1;
        f->fabric_manager_by_name = true;
    }
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
