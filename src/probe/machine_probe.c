#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"

const char *probe_missing_reason(void)
{
    /* A file that is there but unreadable, oversized or not a regular file says so. */
    const char *failure = fs_last_failure();
    if (failure)
        return failure;
    return fsroot_is_live() ? N_("not exposed by this kernel or not readable") : N_("not in the recorded tree");
}

char *probe_hostname(void)
{
    char *name = fs_read("/proc/sys/kernel/hostname");
    if (!name && fsroot_is_live()) {
        char buf[HOST_NAME_MAX + 1];
        if (gethostname(buf, sizeof buf) == 0) {
            buf[HOST_NAME_MAX] = '\0';
            name = strdup(buf);
        }
    }
    return name;
}

int probe_machine(struct machine *m, const struct probe_request *req)
{
    if (!req->read_system) {
        /* Only evidence files describe the machine: nothing was looked for on this one. */
        m->missing_reason = N_("not in the evidence files (this machine is not read)");
        m->source = strdup("evidence");
        m->kernel_log.unknown_reason = strdup(N_("not in the evidence files: give --kernel-log FILE"));
        return 0;
    }
    m->missing_reason = probe_missing_reason();
    if (!fs_is_dir("/")) {
        machine_problem(m, fsroot_get(), "no such folder (or not a folder): give a recorded machine's root");
        return -1;
    }
    if (!fs_is_dir("/sys") || !fs_is_dir("/proc")) {
        machine_problem(m, fsroot_get(), "holds no sys/ and proc/ folders: not a machine root");
        return -1;
    }
    if (fsroot_is_live()) {
        m->source = strdup("live");
    } else if (asprintf(&m->source, "sysroot:%s", fsroot_get()) < 0) {
        m->source = NULL;
    }
    m->hostname = probe_hostname();
    probe_topology(m);
    probe_cpu(m);
    probe_numa(m);
    probe_pci(m);
    probe_storage(m, req->deadline_cap_s);
    probe_network(m);
    probe_kernel(m);
    probe_virt(m);
    probe_nvidia(m, req->deadline_cap_s);
    probe_gpu_specs(m);
    probe_fabric(m);
    probe_aer(m);
    probe_ib_errors(m);
    probe_gpudirect(m);

    probe_memory(m, NULL);
    probe_kernel_log(m, req->xid);
    probe_gpu_slots(m);
    return 0;
}
