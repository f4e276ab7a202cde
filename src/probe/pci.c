/* PCI devices from /sys/bus/pci/devices: the accelerators, NICs and NVMe drives, with current and
 * maximum link of the device and of every bridge up to its root port. Our own walker has no
 * 16-bit domain limit (hwloc 2.9 drops VMD's 10000: devices). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/pciaddr.h"
#include "util/pciids.h"

#define PCI_DIR "/sys/bus/pci/devices"

char *pci_bus_id_of_path(const char *sysfs_path)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", sysfs_path);
    char *last = NULL, *save = NULL;
    for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save))
        if (pci_address_is_sysfs_name(comp))
            last = comp;
    return last ? strdup(last) : NULL;
}

static bool read_hex(struct machine *m, const char *dir, const char *attr, unsigned *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, attr);
    long v;
    if (fs_read_long(path, &v) && v >= 0) {
        *out = (unsigned)v;
        return true;
    }
    if (fs_exists(path))
        machine_problem(m, path, "is not a number");
    return false;
}

static void read_link(struct machine *m, const char *dir, struct pci_link *link)
{
    static const char *const attrs[] = {"current_link_speed", "current_link_width", "max_link_speed",
                                        "max_link_width"};
    char *text[4];
    char path[512];
    bool any = false;
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, attrs[i]);
        text[i] = fs_read(path);
        any |= text[i] != NULL;
    }
    link->known = parse_link_speed(text[0], &link->cur_gt_s) && parse_link_width(text[1], &link->cur_width) &&
                  parse_link_speed(text[2], &link->max_gt_s) && parse_link_width(text[3], &link->max_width);
    /* "Unknown speed" and width 0 are the kernel's words for "no link info" (VMs, some root
     * complex integrated devices); anything else unparsable is worth a problem report. */
    for (int i = 0; any && !link->known && i < 4; i++) {
        if (!text[i] || !strncmp(text[i], "Unknown", 7) || !strcmp(text[i], "0"))
            continue;
        double d;
        int w;
        bool ok = (i % 2 == 0) ? parse_link_speed(text[i], &d) : parse_link_width(text[i], &w);
        if (!ok) {
            snprintf(path, sizeof path, "%s/%s", dir, attrs[i]);
            if (i % 2)
                machine_problem(m, path, "holds \"%.40s\", not a PCIe link width", text[i]);
            else
                machine_problem(m, path, "holds \"%.40s\", not a PCIe link speed", text[i]);
        }
    }
    for (int i = 0; i < 4; i++)
        free(text[i]);
    if (!link->known)
        memset(link, 0, sizeof *link);
}

/* Display adapters that compute nothing: BMC display chips on server boards and the adapters
 * hypervisors emulate. Names as pci.ids gives them (QEMU's stdvga and EC2's VGA are not listed
 * there: QEMU docs/specs/standard-vga.rst, and lspci on EC2 instances). */
#define ANY_DEVICE 0x10000u
static const struct display_only {
    unsigned vendor_id, device_id;
} display_only[] = {
    {0x1a03, ANY_DEVICE}, /* ASPEED BMC (ASPEED Graphics Family) */
    {0x102b, 0x0522}, /* Matrox MGA G200e [Pilot] ServerEngines BMC */
    {0x102b, 0x0530}, /* Matrox MGA G200EV BMC */
    {0x102b, 0x0532}, /* Matrox MGA G200eW WPCM450 BMC */
    {0x102b, 0x0533}, /* Matrox MGA G200EH BMC (HPE iLO) */
    {0x102b, 0x0534}, /* Matrox G200eR2 BMC */
    {0x102b, 0x0536}, /* Integrated Matrox G200eW3 BMC */
    {0x102b, 0x0538}, /* Matrox MGA G200eH3 BMC (HPE iLO) */
    {0x19e5, 0x1711}, /* Huawei Hi171x iBMC with VGA */
    {0x101b, 0x0452}, /* Maxim VSC452 SuperBMC with video */
    {0x1002, 0x515e}, /* ATI ES1000 (embedded server video) */
    {0x1013, 0x00b8}, /* Cirrus GD 5446 (QEMU/Xen emulated) */
    {0x1234, 0x1111}, /* Bochs/QEMU standard VGA */
    {0x1af4, 0x1050}, /* Red Hat Virtio 1.0 GPU */
    {0x1b36, 0x0100}, /* Red Hat QXL paravirtual graphic card */
    {0x15ad, 0x0405}, /* VMware SVGA II Adapter */
    {0x15ad, 0x0710}, /* VMware SVGA Adapter */
    {0x1414, 0x5353}, /* Microsoft Hyper-V virtual VGA */
    {0x80ee, 0xbeef}, /* VirtualBox Graphics Adapter */
    {0x1d0f, 0x1111}, /* Amazon EC2 VGA */
};

static bool is_display_only(unsigned vendor_id, unsigned device_id)
{
    for (size_t i = 0; i < sizeof display_only / sizeof display_only[0]; i++)
        if (display_only[i].vendor_id == vendor_id &&
            (display_only[i].device_id == ANY_DEVICE || display_only[i].device_id == device_id))
            return true;
    return false;
}

static bool role_of(unsigned class_id, unsigned vendor_id, unsigned device_id, enum pci_role *role)
{
    if ((class_id >> 16) == 0x03 && is_display_only(vendor_id, device_id))
        return false;
    if (pci_class_is_accelerator(class_id))
        *role = PCI_ROLE_ACCELERATOR;
    else if ((class_id >> 16) == 0x02)
        *role = PCI_ROLE_NIC;
    else if ((class_id >> 8) == 0x0108)
        *role = PCI_ROLE_NVME;
    else
        return false;
    return true;
}

/* The bridges from the device up to its root port, from its resolved sysfs path
 * /sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/.../<device>. */
static void read_path(struct machine *m, struct pci_device *d, const char *real)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", real);
    char *slash = strrchr(copy, '/');
    while (slash && slash > copy) {
        *slash = '\0';
        const char *name = strrchr(copy, '/') + 1;
        if (!pci_address_is_sysfs_name(name))
            break;
        struct pci_hop *grown = realloc(d->path, (size_t)(d->npath + 1) * sizeof *grown);
        if (!grown)
            break;
        d->path = grown;
        struct pci_hop *hop = &d->path[d->npath++];
        memset(hop, 0, sizeof *hop);
        snprintf(hop->bus_id, sizeof hop->bus_id, "%s", name);
        read_hex(m, copy, "class", &hop->class_id);
        read_link(m, copy, &hop->link);
        slash = strrchr(copy, '/');
    }
}

/* Vendor and device names from pci.ids, looked up for all devices in one pass. */
static void name_devices(struct machine *m)
{
    if (m->npci == 0)
        return;
    struct pciids_name *names = calloc((size_t)m->npci, sizeof *names);
    if (!names)
        return;
    for (int i = 0; i < m->npci; i++) {
        names[i].vendor_id = m->pci[i].vendor_id;
        names[i].device_id = m->pci[i].device_id;
    }
    char err[512];
    if (pciids_lookup(names, m->npci, err, sizeof err) != 0)
        machine_problem_reason(m, "pci.ids", err);
    for (int i = 0; i < m->npci; i++) {
        m->pci[i].vendor_name = names[i].vendor_name;
        m->pci[i].device_name = names[i].device_name;
    }
    free(names);
}

/* The kernel says -1 in VMs and on single-node boxes, and old kernels have no numa_node file; a
 * local_cpulist within one node's CPUs still tells where the device is (it can be smaller than
 * the node's list when some of the node's CPUs are offline or not present). */
static void derive_numa_node(const struct machine *m, struct pci_device *d)
{
    if (d->numa_node >= 0 || machine_cpu_node_count(m) < 2 || hwloc_bitmap_iszero(d->local_cpus))
        return;
    int found = -1, matches = 0;
    for (int i = 0; i < m->nnodes; i++)
        if (!hwloc_bitmap_iszero(m->nodes[i].cpus) && hwloc_bitmap_isincluded(d->local_cpus, m->nodes[i].cpus)) {
            found = m->nodes[i].id;
            matches++;
        }
    if (matches == 1) {
        d->numa_node = found;
        d->numa_derived = true;
    }
}

static void read_device(struct machine *m, const char *name)
{
    char link_path[512];
    snprintf(link_path, sizeof link_path, PCI_DIR "/%s", name);
    char *real = fs_resolve(link_path);
    if (!real) {
        machine_problem(m, link_path, "cannot be resolved");
        return;
    }
    unsigned class_id, vendor_id = PCI_ID_UNKNOWN, device_id = PCI_ID_UNKNOWN;
    enum pci_role role;
    char vf_path[600];
    snprintf(vf_path, sizeof vf_path, "%s/physfn", real);
    /* SR-IOV virtual functions share their parent's link; listing them would repeat it. */
    if (!read_hex(m, real, "class", &class_id) || fs_exists(vf_path)) {
        free(real);
        return;
    }
    /* Some recorded trees keep only class and local_cpus of a function: it is still there, of an
     * unknown vendor (and then no emulated or BMC display can be ruled out). */
    bool have_vendor = read_hex(m, real, "vendor", &vendor_id), have_device = read_hex(m, real, "device", &device_id);
    if (!role_of(class_id, vendor_id, device_id, &role)) {
        free(real);
        return;
    }
    char missing[32] = "";
    if (!have_vendor || !have_device)
        snprintf(missing, sizeof missing, "%s%s%s", have_vendor ? "" : "vendor", !have_vendor && !have_device ? ", " : "",
                 have_device ? "" : "device");
    struct pci_device *grown = realloc(m->pci, (size_t)(m->npci + 1) * sizeof *grown);
    if (!grown) {
        free(real);
        return;
    }
    m->pci = grown;
    struct pci_device *d = &m->pci[m->npci++];
    memset(d, 0, sizeof *d);
    snprintf(d->bus_id, sizeof d->bus_id, "%s", name);
    d->class_id = class_id;
    d->role = role;
    d->vendor_id = vendor_id;
    d->device_id = device_id;
    if (*missing) {
        d->missing = strdup(missing);
        const char *listed_as = role == PCI_ROLE_ACCELERATOR ? N_("an accelerator")
                                : role == PCI_ROLE_NIC       ? N_("a nic")
                                                             : N_("an nvme");
        char *why;
        /* TRANSLATORS: a PCI class code, the ID files missing ("vendor, device"), what the device is
         * listed as ("an accelerator"), then the note on display devices or nothing. */
        i18n_asprintf(&why, "has class 0x%06x but these ID files are missing or unreadable: %s; listed as %s of "
                      "unknown vendor%s", class_id, missing, _(listed_as),
                      (class_id >> 16) == 0x03 ? _(" (without IDs a BMC or emulated display cannot be ruled out)") : "");
        if (why)
            machine_problem_reason(m, link_path, why);
        free(why);
    }
    read_hex(m, real, "subsystem_vendor", &d->subsystem_vendor_id);
    read_hex(m, real, "subsystem_device", &d->subsystem_device_id);

    char path[600];
    long node;
    snprintf(path, sizeof path, "%s/numa_node", real);
    d->numa_node = -1;
    if (fs_read_long(path, &node))
        d->numa_node = node >= 0 ? (int)node : -1;
    else if (fs_exists(path))
        machine_problem(m, path, "is not a number: the device's NUMA node is unknown");

    d->local_cpus = hwloc_bitmap_alloc();
    snprintf(path, sizeof path, "%s/local_cpulist", real);
    char *text = fs_read(path);
    if (text && !parse_cpulist(text, d->local_cpus))
        machine_problem(m, path, "is not a cpulist (\"%.40s\")", text);
    if (!text) {
        snprintf(path, sizeof path, "%s/local_cpus", real);
        text = fs_read(path);
        if (text && !parse_cpumask(text, d->local_cpus))
            machine_problem(m, path, "is not a cpumask (\"%.40s\")", text);
    }
    free(text);
    derive_numa_node(m, d);

    snprintf(path, sizeof path, "%s/driver", real);
    char *driver = fs_resolve(path);
    if (driver && strcmp(driver, path) != 0)
        d->driver = strdup(strrchr(driver, '/') + 1);
    free(driver);

    read_link(m, real, &d->link);
    read_path(m, d, real);
    free(real);
}

void probe_pci(struct machine *m)
{
    char **names;
    int count = fs_list(PCI_DIR, &names);
    if (count < 0) {
        machine_problem_missing(m, PCI_DIR, probe_missing_reason(), N_("PCI devices unknown"));
        return;
    }
    m->pci_scanned = true;
    for (int i = 0; i < count; i++)
        if (pci_address_is_sysfs_name(names[i]))
            read_device(m, names[i]);
    fs_list_free(names, count);
    name_devices(m);
}
