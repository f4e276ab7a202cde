/* Vendor and device names from the pci.ids database of the machine gpuvet runs on. */
#ifndef GPUVET_UTIL_PCIIDS_H
#define GPUVET_UTIL_PCIIDS_H

#include <stddef.h>

/* One device to name: the ids in, the malloc'd names out. */
struct pciids_name {
    unsigned vendor_id, device_id;
    char *vendor_name, *device_name;
};

/* Fills vendor_name/device_name of each entry in one pass over pci.ids ($GPUVET_PCI_IDS, else the
 * system's copy); leaves them NULL when the database is not installed (package pci.ids) or lacks
 * the id. -1 with "PATH:LINE: line longer than N bytes" in err when a line is over the cap (the
 * names read before it are kept), or with "PATH: reason" when GPUVET_PCI_IDS names a file that
 * util/inputfile.h refuses (a FIFO, a folder: never waited on); else 0. */
int pciids_lookup(struct pciids_name *names, int count, char *err, size_t errlen);

#endif
