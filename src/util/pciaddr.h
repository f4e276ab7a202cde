/* PCI function addresses ("bus ids"): the one parser and the one formatter. The same function is
 * spelt "0000:17:00.0" by sysfs and lspci, "00000000:17:00.0" by nvidia-smi and NVML's busId,
 * "0000:17:00.0" by NVML's busIdLegacy, in upper or lower case; Intel VMD puts devices in domains
 * above 0xffff ("10000:01:00.0" in sysfs). Every bus id gpuvet reads is parsed here and every bus
 * id it stores or prints is formatted here, so ids from different sources compare equal. */
#ifndef GPUVET_UTIL_PCIADDR_H
#define GPUVET_UTIL_PCIADDR_H

#include <stdbool.h>
#include <stdint.h>

struct pci_address {
    uint32_t domain;   /* 32 bits: VMD's domains start at 0x10000 */
    uint8_t bus;
    uint8_t device;    /* 0..0x1f */
    uint8_t function;  /* 0..7 */
};

/* Room for the longest form, "ffffffff:ff:1f.7", with its NUL. */
#define PCI_ADDRESS_LEN 20

/* [domain:]bus:device.function in hex, either case: domain 1-8 digits (absent means 0), bus and
 * device 1-2 digits, function one digit 0-7; blanks around it are ignored (a line read from a
 * file). Nothing else is accepted: no sign, no 0x, no trailing text. */
bool pci_address_parse(const char *text, struct pci_address *out);

/* The kernel's sysfs name, "%04x:%02x:%02x.%x" lowercase (VMD: "10000:01:00.0"): the form gpuvet
 * stores and prints. */
void pci_address_format(const struct pci_address *a, char out[PCI_ADDRESS_LEN]);

/* lspci's short form: "17:00.0" in domain 0, the sysfs form in any other (VMD: "10000:01:00.0"). */
void pci_address_format_short(const struct pci_address *a, char out[PCI_ADDRESS_LEN]);

/* NVML's busId and nvidia-smi's form, "%08X:%02X:%02X.%X" (dcgm-exporter's pci_bus_id label). */
void pci_address_format_nvml(const struct pci_address *a, char out[PCI_ADDRESS_LEN]);

/* Any accepted form rewritten in the sysfs form; false (out untouched) when it is not a bus id. */
bool pci_address_normalise(const char *text, char out[PCI_ADDRESS_LEN]);

/* Whether text is exactly a sysfs device name (a /sys/bus/pci/devices entry, a path component),
 * as the kernel writes it: lowercase, the domain given with at least 4 digits. */
bool pci_address_is_sysfs_name(const char *text);

/* Whether two texts name the same PCI function, whatever form each is in; false when either is
 * not a bus id. */
bool pci_address_same(const char *a, const char *b);

#endif
