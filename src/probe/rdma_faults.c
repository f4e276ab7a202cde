/* InfiniBand/RoCE port error counters (/sys/class/infiniband/DEV/ports/N/counters, the
 * PortCounters of the InfiniBand specification that `perfquery` and `ibqueryerrors` show), and
 * what GPUDirect RDMA needs on the host: NVIDIA's peer-memory module (nvidia_peermem, or the
 * older nv_peer_mem) loaded, and PCIe ACS not redirecting peer traffic on the switch ports between
 * a GPU and an RDMA NIC (NCCL's troubleshooting guide: ACS forces peer-to-peer transfers up to the
 * root complex, which cuts their bandwidth or makes them fail). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/pciaddr.h"

#define RDMA_DIR "/sys/class/infiniband"
#define MAX_RDMA_PORTS 256
#define NVIDIA_VENDOR 0x10de

static void read_port_counters(struct fault_info *f, const char *device, const char *port)
{
    char *end;
    long number = strtol(port, &end, 10);
    if (*end || number <= 0 || number > 255 || f->nib >= MAX_RDMA_PORTS)
        return;
    struct ib_port_errors e = {.port = (int)number};
    snprintf(e.device, sizeof e.device, "%s", device);
    bool any = false;
    for (int c = 0; c < IB_COUNTERS; c++) {
        char path[512];
        long v;
        snprintf(path, sizeof path, RDMA_DIR "/%s/ports/%s/counters/%s", device, port, ib_counter_name(c));
        e.counters[c] = fs_read_long(path, &v) && v >= 0 ? v : -1;
        any |= e.counters[c] >= 0;
    }
    if (!any)
        return;
    struct ib_port_errors *grown = realloc(f->ib, (size_t)(f->nib + 1) * sizeof *grown);
    if (!grown)
        return;
    f->ib = grown;
    f->ib[f->nib++] = e;
}

void probe_ib_errors(struct machine *m)
{
    char **devices;
    int n = fs_list(RDMA_DIR, &devices);
    for (int i = 0; i < n; i++) {
        char dir[512], **ports;
        snprintf(dir, sizeof dir, RDMA_DIR "/%s/ports", devices[i]);
        int np = fs_list(dir, &ports);
        for (int p = 0; p < np; p++)
            read_port_counters(&m->faults, devices[i], ports[p]);
        if (np >= 0)
            fs_list_free(ports, np);
    }
    if (n >= 0)
        fs_list_free(devices, n);
}

/* --- GPUDirect RDMA ------------------------------------------------------------------------------ */

static bool has_nvidia_gpu(const struct machine *m)
{
    for (int i = 0; i < m->npci; i++)
        if (m->pci[i].role == PCI_ROLE_ACCELERATOR && m->pci[i].vendor_id == NVIDIA_VENDOR)
            return true;
    return m->gpus.count > 0;
}

static void find_peermem(struct fault_info *f)
{
    static const char *const modules[] = {"nvidia_peermem", "nv_peer_mem"};
    char *list = fs_read("/proc/modules");
    if (!list && fs_last_failure())
        f->peermem_failure = strdup(fs_last_failure()); /* a buffer the next read overwrites */
    else if (!list)
        f->peermem_missing = probe_missing_reason();
    if (list) {
        f->peermem = 0;
        for (size_t i = 0; i < 2 && f->peermem == 0; i++)
            for (const char *line = list; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                size_t len = strlen(modules[i]);
                if (!strncmp(line, modules[i], len) && line[len] == ' ') {
                    f->peermem = 1;
                    f->peermem_module = strdup(modules[i]);
                    break;
                }
            }
        free(list);
        return;
    }
    for (size_t i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/module/%s", modules[i]);
        if (fs_is_dir(path)) {
            f->peermem = 1;
            f->peermem_module = strdup(modules[i]);
            return;
        }
    }
    if (fs_is_dir("/sys/module/nvidia"))
        f->peermem = 0; /* the module list is readable and holds the driver, not the peer-memory module */
    if (f->peermem >= 0) {
        free(f->peermem_failure);
        f->peermem_failure = NULL;
        f->peermem_missing = NULL;
    }
}

/* Which NVIDIA kernel module runs, from the first line of /proc/driver/nvidia/version: "NVRM
 * version: NVIDIA UNIX Open Kernel Module for x86_64  555.58.02 ..." for the open GPU kernel
 * modules, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.76 ..." for the proprietary one.
 * Only the open one exports GPU memory as DMA-BUF. 1 open, 0 proprietary, -1 unknown. */
static int find_open_module(void)
{
    char *text = fs_read("/proc/driver/nvidia/version");
    if (!text)
        return -1;
    char *eol = strchr(text, '\n');
    if (eol)
        *eol = '\0';
    int open = -1;
    if (!strncmp(text, "NVRM version: NVIDIA UNIX ", 26))
        open = strstr(text, "Open Kernel Module") ? 1 : strstr(text, "Kernel Module") ? 0 : -1;
    free(text);
    return open;
}

static const struct pci_device *pci_find(const struct machine *m, const char *bus_id)
{
    for (int i = 0; i < m->npci; i++)
        if (pci_address_same(m->pci[i].bus_id, bus_id))
            return &m->pci[i];
    return NULL;
}

#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ID_ACS 0x000d
#define PCI_ACS_CTRL 6
/* ACS control bits that send peer traffic up to the root: P2P request redirect, completion
 * redirect, egress control (PCIe base specification, ACS extended capability). */
#define PCI_ACS_RR 0x0004
#define PCI_ACS_CR 0x0008
#define PCI_ACS_EC 0x0020

static unsigned get32(const unsigned char *b, size_t at)
{
    return b[at] | (unsigned)b[at + 1] << 8 | (unsigned)b[at + 2] << 16 | (unsigned)b[at + 3] << 24;
}

/* The port's ACS redirect state from its config space: 1 on, 0 off or no ACS capability, -1 with
 * the reason when the extended space is not readable (only root reads past the first 64 bytes). */
int pci_acs_redirect(const unsigned char *config, size_t len, const char **why)
{
    if (len < 0x1000) {
        *why = len <= 256 ? N_("the extended PCI configuration space is readable by root only")
                          : N_("the PCI configuration space is shorter than 4096 bytes");
        return -1;
    }
    size_t at = PCI_EXT_CAP_START;
    /* At most one capability per dword of the extended space: a loop in the list ends here. */
    for (int steps = 0; steps < (0x1000 - PCI_EXT_CAP_START) / 4 && at >= PCI_EXT_CAP_START && at + 8 <= len; steps++) {
        unsigned header = get32(config, at);
        if (header == 0 || header == 0xffffffffu)
            break;
        if ((header & 0xffff) == PCI_EXT_CAP_ID_ACS) {
            unsigned ctrl = config[at + PCI_ACS_CTRL] | (unsigned)config[at + PCI_ACS_CTRL + 1] << 8;
            return (ctrl & (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC)) ? 1 : 0;
        }
        size_t next = (header >> 20) & 0xffc;
        if (next <= at)
            break;
        at = next;
    }
    return 0;
}

static void check_port(struct fault_info *f, const char *port, const char *gpu, const char *nic)
{
    for (int i = 0; i < f->nacs; i++)
        if (!strcmp(f->acs[i].bus_id, port))
            return;
    struct acs_port *grown = realloc(f->acs, (size_t)(f->nacs + 1) * sizeof *grown);
    if (!grown)
        return;
    f->acs = grown;
    struct acs_port *a = &f->acs[f->nacs++];
    memset(a, 0, sizeof *a);
    snprintf(a->bus_id, sizeof a->bus_id, "%s", port);
    snprintf(a->gpu, sizeof a->gpu, "%s", gpu);
    snprintf(a->nic, sizeof a->nic, "%s", nic);
    char path[512];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/config", port);
    size_t len = 0;
    unsigned char *config = fs_read_bin(path, 0x1000, &len);
    const char *why = NULL;
    a->redirect = config ? pci_acs_redirect(config, len, &why) : -1;
    if (!config)
        why = N_("the PCI configuration space is not readable");
    if (a->redirect < 0)
        a->unknown_reason = strdup(why);
    free(config);
}

/* The switch ports between a GPU and a NIC below one switch: each side's hops up to (not
 * including) the first port they share. Devices that meet only at a root port share no switch. */
static void check_pair(struct fault_info *f, const struct pci_device *gpu, const struct pci_device *nic)
{
    for (int g = 0; g < gpu->npath; g++)
        for (int n = 0; n < nic->npath; n++) {
            if (strcmp(gpu->path[g].bus_id, nic->path[n].bus_id))
                continue;
            if (g == gpu->npath - 1)
                return; /* they meet at the root port: no switch between them */
            for (int k = 0; k < g; k++)
                check_port(f, gpu->path[k].bus_id, gpu->bus_id, nic->bus_id);
            for (int k = 0; k < n; k++)
                check_port(f, nic->path[k].bus_id, gpu->bus_id, nic->bus_id);
            return;
        }
}

void probe_gpudirect(struct machine *m)
{
    bool rdma = false;
    for (int i = 0; i < m->network.nports; i++)
        rdma |= m->network.ports[i].has_rdma;
    if (!rdma || !has_nvidia_gpu(m))
        return;
    m->faults.gpudirect_probed = true;
    find_peermem(&m->faults);
    m->faults.nvidia_open = find_open_module();
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *gpu = &m->pci[i];
        if (gpu->role != PCI_ROLE_ACCELERATOR || gpu->vendor_id != NVIDIA_VENDOR)
            continue;
        for (int p = 0; p < m->network.nports; p++) {
            const struct nic_port *port = &m->network.ports[p];
            const struct pci_device *nic = port->has_rdma && port->pci_bus_id ? pci_find(m, port->pci_bus_id) : NULL;
            if (nic)
                check_pair(&m->faults, gpu, nic);
        }
    }
}
