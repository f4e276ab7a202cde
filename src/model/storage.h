/* Block storage: the whole disks of the machine, and which of them hold `/` and the dataset. */
#ifndef GPUVET_MODEL_STORAGE_H
#define GPUVET_MODEL_STORAGE_H

#include <stdbool.h>
#include <stdint.h>

enum storage_transport {
    TRANSPORT_UNKNOWN,
    TRANSPORT_NVME,
    TRANSPORT_SATA,   /* libata: SATA/PATA drives, also behind a SAS HBA */
    TRANSPORT_SAS,
    TRANSPORT_SCSI,   /* another SCSI host (RAID controller volume, FC, iSCSI) */
    TRANSPORT_VIRTIO,
    TRANSPORT_USB,
    TRANSPORT_MMC,
    TRANSPORT_PMEM,   /* persistent memory namespace */
};

struct block_device {
    char *name;           /* "sda", "nvme0n1", "vda" */
    char *vendor, *model; /* trimmed; NULL unknown */
    int64_t size_bytes;   /* -1 unknown */
    enum storage_transport transport;
    int rotational;       /* 1 spinning, 0 not, -1 unknown */
    bool removable;
    char *pci_bus_id;     /* the PCI function of its controller (NVMe: the drive); NULL none */
    int numa_node;        /* of that PCI function; -1 unknown */
    bool holds_root, holds_data;
};

/* Where a path lives: the mount that covers it and the disks below that mount. */
struct storage_location {
    char *path;           /* the path asked about: "/" or the --data-dir */
    char *mountpoint;     /* NULL when no mount table could be read */
    char *fstype, *source;
    bool network_fs;      /* nfs, lustre, cifs, ...: no local disk holds it */
    char **disks;         /* names of the whole disks below the mount (partitions and dm/md resolved) */
    int ndisks;
    char *unknown_reason; /* why the disks are unknown; NULL when they are known or network_fs */
    int64_t free_bytes;   /* statvfs, live machine only; -1 unknown */
};

struct storage_info {
    bool listed;          /* /sys/class/block (or /sys/block) could be read */
    struct block_device *devices;
    int ndevices;
    struct storage_location root;
    bool has_data;        /* --data-dir was given */
    struct storage_location data;
};

void storage_free(struct storage_info *s);
const char *storage_transport_name(enum storage_transport t);
const struct block_device *storage_device(const struct storage_info *s, const char *name);

#endif
