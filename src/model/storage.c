#include "model/storage.h"

#include <stdlib.h>
#include <string.h>

static void location_free(struct storage_location *l)
{
    free(l->path);
    free(l->mountpoint);
    free(l->fstype);
    free(l->source);
    for (int i = 0; i < l->ndisks; i++)
        free(l->disks[i]);
    free(l->disks);
    free(l->unknown_reason);
}

void storage_free(struct storage_info *s)
{
    for (int i = 0; i < s->ndevices; i++) {
        free(s->devices[i].name);
        free(s->devices[i].vendor);
        free(s->devices[i].model);
        free(s->devices[i].pci_bus_id);
    }
    free(s->devices);
    location_free(&s->root);
    location_free(&s->data);
    memset(s, 0, sizeof *s);
}

const char *storage_transport_name(enum storage_transport t)
{
    switch (t) {
    case TRANSPORT_UNKNOWN: return "unknown";
    case TRANSPORT_NVME: return "nvme";
    case TRANSPORT_SATA: return "sata";
    case TRANSPORT_SAS: return "sas";
    case TRANSPORT_SCSI: return "scsi";
    case TRANSPORT_VIRTIO: return "virtio";
    case TRANSPORT_USB: return "usb";
    case TRANSPORT_MMC: return "mmc";
    case TRANSPORT_PMEM: return "pmem";
    }
    return "unknown";
}

const struct block_device *storage_device(const struct storage_info *s, const char *name)
{
    for (int i = 0; i < s->ndevices; i++)
        if (!strcmp(s->devices[i].name, name))
            return &s->devices[i];
    return NULL;
}
