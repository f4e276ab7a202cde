#include "model/network.h"

#include <stdlib.h>
#include <string.h>

void network_free(struct network_info *n)
{
    for (int i = 0; i < n->nports; i++) {
        struct nic_port *p = &n->ports[i];
        free(p->name);
        free(p->pci_bus_id);
        free(p->driver);
        free(p->link_layer);
        free(p->rdma.device);
        free(p->rdma.state);
        free(p->rdma.link_layer);
        free(p->unknown_reason);
    }
    free(n->ports);
    memset(n, 0, sizeof *n);
}

const char *link_state_name(enum link_state s)
{
    switch (s) {
    case LINK_UNKNOWN: return "unknown";
    case LINK_DOWN: return "down";
    case LINK_UP: return "up";
    }
    return "unknown";
}

bool nic_port_usable(const struct nic_port *p) { return p->state == LINK_UP && p->speed_mbps > 0; }
