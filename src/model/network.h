/* Network: every physical NIC port (netdev), RDMA ports joined to them, and NICs seen only on PCI
 * (no driver, or no netdev recorded). */
#ifndef GPUVET_MODEL_NETWORK_H
#define GPUVET_MODEL_NETWORK_H

#include <stdbool.h>

enum link_state { LINK_UNKNOWN, LINK_DOWN, LINK_UP };

struct rdma_port {
    char *device;         /* "mlx4_0", "mlx5_1" */
    int port;             /* 1-based port number */
    char *state;          /* "ACTIVE", "DOWN", "INIT", ... NULL unknown */
    double rate_gbps;     /* "56 Gb/sec (4X FDR)" -> 56; 0 unknown */
    char *link_layer;     /* "InfiniBand" or "Ethernet" (RoCE); NULL unknown */
};

struct nic_port {
    char *name;           /* netdev name; the RDMA port ("mlx4_0/1") or the PCI bus id when it has none */
    char *pci_bus_id;     /* NULL for NICs not on PCI */
    char *driver;         /* bound kernel driver; NULL none or unknown */
    enum link_state state;
    long speed_mbps;      /* negotiated: the netdev's speed, else the RDMA port's rate; -1 unknown */
    bool speed_from_rdma; /* speed_mbps is the RDMA port's rate (IPoIB reports none) */
    char *link_layer;     /* "Ethernet", "InfiniBand"; NULL unknown */
    int numa_node;        /* -1 unknown */
    bool has_rdma;
    struct rdma_port rdma;
    char *unknown_reason; /* why state or speed are unknown; NULL when both are known */
};

struct network_info {
    bool listed;          /* /sys/class/net could be read */
    struct nic_port *ports;
    int nports;
};

void network_free(struct network_info *n);
const char *link_state_name(enum link_state s);
/* Up and with a known speed: what a multi-node job could use. */
bool nic_port_usable(const struct nic_port *p);

#endif
