/* Vendor and device names from the pci.ids database of the machine gpuvet runs on. */
#ifndef GPUVET_UTIL_PCIIDS_H
#define GPUVET_UTIL_PCIIDS_H

#include "model/machine.h"

/* Fills vendor_name/device_name of each device in one pass over pci.ids; leaves them NULL
 * when the database is not installed (package pci.ids) or lacks the id. */
void pciids_name_devices(struct pci_device *devices, int count);

#endif
