/* NICs: physical netdevs from /sys/class/net (link state, speed, driver, NUMA node), RDMA ports
 * from /sys/class/infiniband joined to them through their PCI function, and PCI NICs that have
 * neither (no driver, or a netdev in another namespace). Virtual interfaces (lo, bridges, VLANs,
 * bonds, tunnels) and software RDMA (rxe, siw, scif) carry no link of their own and are left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"

#define NET_DIR "/sys/class/net"
#define RDMA_DIR "/sys/class/infiniband"
/* ARPHRD_ETHER and ARPHRD_INFINIBAND from <linux/if_arp.h>. */
#define NET_TYPE_ETHER 1
#define NET_TYPE_INFINIBAND 32

static const struct pci_device *pci_lookup(const struct machine *m, const char *bus_id)
{
    for (int i = 0; bus_id && i < m->npci; i++)
        if (!strcmp(m->pci[i].bus_id, bus_id))
            return &m->pci[i];
    return NULL;
}

static struct nic_port *add_port(struct network_info *n)
{
    struct nic_port *grown = realloc(n->ports, (size_t)(n->nports + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    n->ports = grown;
    struct nic_port *p = &n->ports[n->nports++];
    memset(p, 0, sizeof *p);
    p->speed_mbps = -1;
    p->numa_node = -1;
    return p;
}

/* The driver of the port's parent device (virtio_net, not virtio-pci, for a virtio NIC) and the
 * NUMA node of its PCI function. */
static void read_device_side(struct machine *m, struct nic_port *p, const char *device_link)
{
    char path[1024];
    char *device = fs_resolve(device_link);
    if (device) {
        snprintf(path, sizeof path, "%s/driver", device);
        char *driver = fs_resolve(path);
        if (driver && strcmp(driver, path) != 0)
            p->driver = strdup(strrchr(driver, '/') + 1);
        free(driver);
        free(device);
    }
    const struct pci_device *d = pci_lookup(m, p->pci_bus_id);
    if (d) {
        p->numa_node = d->numa_node;
        if (!p->driver && d->driver)
            p->driver = strdup(d->driver);
        return;
    }
    long node;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", p->pci_bus_id ? p->pci_bus_id : "");
    if (p->pci_bus_id && fs_read_long(path, &node))
        p->numa_node = node >= 0 ? (int)node : -1;
}

static enum link_state read_state(const char *real)
{
    char *oper = fs_readf("%s/operstate", real);
    enum link_state s = LINK_UNKNOWN;
    if (oper && !strcmp(oper, "up"))
        s = LINK_UP;
    else if (oper && (!strcmp(oper, "down") || !strcmp(oper, "lowerlayerdown") || !strcmp(oper, "notpresent")))
        s = LINK_DOWN;
    free(oper);
    if (s != LINK_UNKNOWN)
        return s;
    /* Drivers without operstate support say "unknown": the carrier still tells. */
    char *carrier = fs_readf("%s/carrier", real);
    if (carrier && (!strcmp(carrier, "1") || !strcmp(carrier, "0")))
        s = carrier[0] == '1' ? LINK_UP : LINK_DOWN;
    free(carrier);
    return s;
}

/* port_index: the port of this netdev on its PCI function, 0-based (dev_port; dev_id on old
 * kernels), to join it with its RDMA port. */
static void read_netdev(struct machine *m, const char *name, const char *real, int *port_index)
{
    struct nic_port *p = add_port(&m->network);
    if (!p)
        return;
    p->name = strdup(name);
    p->pci_bus_id = pci_bus_id_of_path(real);
    char path[1024];
    snprintf(path, sizeof path, "%s/device", real);
    read_device_side(m, p, path);
    p->state = read_state(real);

    snprintf(path, sizeof path, "%s/speed", real);
    char *speed = fs_read(path);
    char *end = NULL;
    long v = speed ? strtol(speed, &end, 10) : -1;
    /* Down links and IPoIB read empty, -1 or (u32)-1: unknown, not garbage. */
    if (speed && end != speed && *end == '\0' && v > 0 && v < 4294967295L)
        p->speed_mbps = v;
    else if (speed && *speed && strcmp(speed, "-1") && strcmp(speed, "4294967295"))
        machine_problem(m, path, "holds \"%.40s\", not a link speed in Mb/s", speed);
    free(speed);

    long type;
    snprintf(path, sizeof path, "%s/type", real);
    if (fs_read_long(path, &type) && (type == NET_TYPE_ETHER || type == NET_TYPE_INFINIBAND))
        p->link_layer = strdup(type == NET_TYPE_ETHER ? "Ethernet" : "InfiniBand");

    long index = 0;
    snprintf(path, sizeof path, "%s/dev_port", real);
    if (!fs_read_long(path, &index)) {
        snprintf(path, sizeof path, "%s/dev_id", real);
        if (!fs_read_long(path, &index))
            index = 0;
    }
    *port_index = index >= 0 && index < 64 ? (int)index : 0;
}

/* Netdevs; port_index[i] is the port of m->network.ports[i] on its PCI function. */
static int *list_netdevs(struct machine *m)
{
    char **names;
    int count = fs_list(NET_DIR, &names);
    if (count < 0) {
        machine_problem_missing(m, NET_DIR, probe_missing_reason(), N_("network interfaces unknown"));
        return NULL;
    }
    m->network.listed = true;
    int *port_index = calloc((size_t)count + 1, sizeof *port_index);
    for (int i = 0; port_index && i < count; i++) {
        char link[512];
        snprintf(link, sizeof link, NET_DIR "/%s", names[i]);
        char *real = fs_resolve(link);
        if (real && !strstr(real, "/devices/virtual/"))
            read_netdev(m, names[i], real, &port_index[m->network.nports]);
        free(real);
    }
    fs_list_free(names, count);
    return port_index;
}

/* "4: ACTIVE" -> "ACTIVE". */
static char *after_colon(const char *s)
{
    const char *c = s ? strchr(s, ':') : NULL;
    if (!c)
        return s ? strdup(s) : NULL;
    while (*++c == ' ')
        ;
    return strdup(c);
}

static void read_rdma_port(struct machine *m, const char *dir, struct rdma_port *r)
{
    char *state = fs_readf("%s/state", dir);
    r->state = after_colon(state);
    free(state);
    char *rate = fs_readf("%s/rate", dir);
    char *end = NULL;
    double gbps = rate ? strtod(rate, &end) : 0;
    /* 1 Pb/s: far above any link; past it (or inf) the rate is not believed. */
    if (rate && end != rate && gbps > 0 && gbps < 1e6 && !strncmp(end, " Gb/sec", 7))
        r->rate_gbps = gbps;
    else if (rate)
        machine_problem(m, dir, "rate holds \"%.40s\", not \"N Gb/sec (...)\"", rate);
    free(rate);
    r->link_layer = fs_readf("%s/link_layer", dir);
}

static void join_rdma(struct nic_port *p, const struct rdma_port *r)
{
    p->has_rdma = true;
    p->rdma.device = strdup(r->device);
    p->rdma.port = r->port;
    p->rdma.state = r->state ? strdup(r->state) : NULL;
    p->rdma.rate_gbps = r->rate_gbps;
    p->rdma.link_layer = r->link_layer ? strdup(r->link_layer) : NULL;
    if (p->speed_mbps < 0 && r->rate_gbps > 0) {
        p->speed_mbps = (long)(r->rate_gbps * 1000);
        p->speed_from_rdma = true;
    }
    if (!p->link_layer && r->link_layer)
        p->link_layer = strdup(r->link_layer);
    if (p->state == LINK_UNKNOWN && r->state)
        p->state = !strcmp(r->state, "ACTIVE") ? LINK_UP : LINK_DOWN;
}

static void read_rdma_device(struct machine *m, const char *name, const int *port_index, int nnetdevs)
{
    char link[512], ports_dir[1024];
    snprintf(link, sizeof link, RDMA_DIR "/%s", name);
    char *real = fs_resolve(link);
    char *bus = real ? pci_bus_id_of_path(real) : NULL;
    if (!bus) {
        free(real);
        return;
    }
    snprintf(ports_dir, sizeof ports_dir, "%s/ports", real);
    char **ports;
    int nports = fs_list(ports_dir, &ports);
    if (nports < 0)
        machine_problem_missing(m, ports_dir, probe_missing_reason(), N_("the RDMA device's ports are unknown"));
    for (int k = 0; k < nports; k++) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/%s", ports_dir, ports[k]);
        struct rdma_port r = {.device = (char *)name, .port = atoi(ports[k])};
        read_rdma_port(m, dir, &r);
        struct nic_port *owner = NULL;
        for (int i = 0; i < nnetdevs && !owner; i++) {
            struct nic_port *p = &m->network.ports[i];
            if (p->pci_bus_id && !strcmp(p->pci_bus_id, bus) && (port_index[i] + 1 == r.port || nports == 1))
                owner = p;
        }
        if (!owner && (owner = add_port(&m->network))) {
            /* An RDMA port without a netdev (IPoIB not loaded): still a link a job can use. */
            char port_name[300];
            snprintf(port_name, sizeof port_name, "%s/%d", name, r.port);
            owner->name = strdup(port_name);
            owner->pci_bus_id = strdup(bus);
            snprintf(link, sizeof link, "%s/device", real);
            read_device_side(m, owner, link);
        }
        if (owner)
            join_rdma(owner, &r);
        free(r.state);
        free(r.link_layer);
    }
    fs_list_free(ports, nports);
    free(bus);
    free(real);
}

static void list_rdma(struct machine *m, const int *port_index, int nnetdevs)
{
    char **names;
    int count = fs_list(RDMA_DIR, &names);
    /* No /sys/class/infiniband is the normal case of a box without RDMA: not a problem. */
    for (int i = 0; i < count; i++)
        read_rdma_device(m, names[i], port_index, nnetdevs);
    fs_list_free(names, count);
}

static bool has_port_on(const struct network_info *n, const char *bus_id)
{
    for (int i = 0; i < n->nports; i++)
        if (n->ports[i].pci_bus_id && !strcmp(n->ports[i].pci_bus_id, bus_id))
            return true;
    return false;
}

/* PCI NICs with no netdev and no RDMA port: listed so that nobody takes the box for NIC-less. */
static void add_silent_pci_nics(struct machine *m)
{
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_NIC || has_port_on(&m->network, d->bus_id))
            continue;
        struct nic_port *p = add_port(&m->network);
        if (!p)
            return;
        p->name = strdup(d->bus_id);
        p->pci_bus_id = strdup(d->bus_id);
        p->driver = d->driver ? strdup(d->driver) : NULL;
        p->numa_node = d->numa_node;
        if (!d->driver)
            p->unknown_reason = strdup(N_("no driver bound: the NIC has no netdev, its link is unknown"));
        else if (fsroot_is_live())
            /* TRANSLATORS: %s is a kernel driver's name (mlx5_core). */
            i18n_asprintf(&p->unknown_reason, "driver %s is bound but no netdev is visible (another network "
                                              "namespace, e.g. a container)", d->driver);
        else
            i18n_asprintf(&p->unknown_reason, "driver %s is bound but its netdev is not in the recorded tree",
                          d->driver);
    }
}

static void explain_unknowns(struct network_info *n)
{
    for (int i = 0; i < n->nports; i++) {
        struct nic_port *p = &n->ports[i];
        if (p->unknown_reason || (p->state != LINK_UNKNOWN && (p->speed_mbps > 0 || p->state == LINK_DOWN)))
            continue;
        int rc = p->state == LINK_UNKNOWN
                     ? asprintf(&p->unknown_reason, "%s", N_("neither operstate nor carrier tells whether the link is up"))
                     : asprintf(&p->unknown_reason, "%s", N_("the link is up but the driver reports no speed"));
        if (rc < 0)
            p->unknown_reason = NULL;
    }
}

void probe_network(struct machine *m)
{
    int *port_index = list_netdevs(m);
    int nnetdevs = port_index ? m->network.nports : 0;
    list_rdma(m, port_index, nnetdevs);
    free(port_index);
    add_silent_pci_nics(m);
    explain_unknowns(&m->network);
}
