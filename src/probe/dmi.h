/* What gpuvet takes from SMBIOS, whichever form it came in (the binary table, per-entry raw
 * files, or `dmidecode` text). smbios.c and dmidecode.c fill it; memory.c turns it into the model. */
#ifndef GPUVET_PROBE_DMI_H
#define GPUVET_PROBE_DMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SMBIOS codes (DSP0134) used by both parsers. */
#define DMI_USE_SYSTEM_MEMORY 0x03
#define DMI_ECC_UNKNOWN 0x02
#define DMI_ECC_NONE 0x03
#define DMI_ECC_PARITY 0x04
#define DMI_ECC_SINGLE_BIT 0x05
#define DMI_ECC_MULTI_BIT 0x06
#define DMI_ECC_CRC 0x07
#define DMI_TECH_DRAM 0x03
#define DMI_TECH_NVDIMM_N 0x04
#define DMI_TECH_NVDIMM_F 0x05
#define DMI_TECH_NVDIMM_P 0x06
#define DMI_TECH_OPTANE 0x07 /* "Intel Optane (DC) persistent memory", "Intel persistent memory" */

struct dmi_processor {      /* type 4 */
    char *socket, *manufacturer, *version;
    int cpuid_family, cpuid_model; /* x86 signature; -1 unknown (ARM, or no ID) */
    int cores, threads;     /* 0 unknown */
    int max_mhz;            /* 0 unknown */
    bool populated;
    uint32_t cpuid_eax_text; /* dmidecode text: the ID's signature until the manufacturer is known */
};

struct dmi_array {          /* type 16 */
    unsigned handle;
    int use;                /* DMI_USE_*; 0 unknown */
    int ecc;                /* DMI_ECC_*; 0 unknown */
    int slots;              /* -1 unknown */
};

struct dmi_memdev {         /* type 17 */
    unsigned handle, array_handle;
    char *locator, *bank_locator, *type, *manufacturer, *part;
    uint64_t size_bytes;    /* 0: no module installed */
    int total_width, data_width; /* bits; -1 unknown */
    int speed_mts, configured_mts; /* 0 unknown */
    int rank;               /* 0 unknown */
    bool detail_non_volatile; /* type detail bit 12 "Non-Volatile" */
    int technology;         /* SMBIOS 3.2 memory technology: DMI_TECH_*; 0 unknown */
};

struct dmi_slot {           /* type 9 */
    char *designation;
    int in_use;             /* 1 in use, 0 available, -1 unknown */
};

struct dmi_psu {            /* type 39 */
    char *name;
    int max_watts;          /* -1 unknown */
    bool present;
    char *status;           /* "OK", "Non-critical", ...; NULL unknown */
};

struct dmi_hpe_dimm {       /* HPE OEM type 202, DIMM location record (channel fields from Gen10 on) */
    unsigned device_handle; /* the type 17 it locates */
    int processor;          /* 1-based; 0 unknown */
    int controller, channel; /* 1-based; 0 unknown (Gen9 and older records stop before them) */
};
/* More memory devices (DIMM slots) than any server has (the largest hold 96 per node, with CXL
 * expanders a few hundred): a table or dmidecode file past it is refused, not numbered. */
#define DMI_MAX_MEMORY_DEVICES 1024
/* What SMBIOS can state: a power supply's Max Power Capacity is a WORD of watts (0x8000 "unknown",
 * so at most 32,767 W: a larger one is unknown); a processor's Core Count 2 and Thread Count 2 are
 * WORDs, and a dmidecode file past them is refused (dmidecode.c), never summed into a wrapped count. */
#define DMI_MAX_PSU_WATTS 32767
#define DMI_MAX_PROCESSOR_CORES 65535
/* No board has more sockets: the sum of their cores stays far inside an int. */
#define DMI_MAX_PROCESSORS 1024
/* A size no DIMM has (dmidecode text past 16 TB): the file is refused. */
#define DMI_SIZE_INVALID UINT64_MAX
#define DMI_STR(x) #x
#define DMI_XSTR(x) DMI_STR(x)

struct dmi_data {
    char *source;           /* what it was read from (a path, "dmidecode FILE") */
    int version_major, version_minor; /* 0 unknown */
    char *system_vendor, *system_product; /* type 1 */
    struct dmi_processor *cpus; int ncpus;
    struct dmi_array *arrays; int narrays;
    struct dmi_memdev *devices; int ndevices;
    struct dmi_slot *slots; int nslots;
    struct dmi_psu *psus; int npsus;
    struct dmi_hpe_dimm *hpe_dimms; int nhpe_dimms; /* type 202 whatever the vendor: only HP/HPE's mean this */
    int repeated_structures; /* dmidecode text: structures whose handle came before (read once) */
};

void dmi_data_free(struct dmi_data *d);

/* Type 4's ID holds the CPUID signature only on x86 (Intel, AMD). */
bool dmi_manufacturer_is_x86(const char *manufacturer);
/* CPUID leaf-1 EAX -> display family and model (extended fields folded in); leaves them when eax is 0. */
void dmi_cpuid_signature(uint32_t eax, int *family, int *model);

/* Decodes the formatted area (header included) of an HPE type-202 record: handle at 0x04, processor
 * at 0x08, memory controller at 0x0D and channel at 0x0E (OpenDMI's HP/HPE DIMM location record).
 * Appends it to d; false when too short to name a type 17 or out of memory. */
bool dmi_add_hpe_dimm(struct dmi_data *d, const uint8_t *p, size_t len);

/* Decodes an SMBIOS structure table (len bytes) into d, which must be zeroed. Every offset and
 * string index is bounds-checked; structures that are cut short are skipped. Returns the number of
 * structures decoded, or -1 when the table holds none (the reason in *error, static). */
int smbios_decode_table(const uint8_t *table, size_t len, struct dmi_data *d, const char **error);

/* Parses an entry point (`_SM_` 2.x or `_SM3_` 3.x). On success returns 0 and fills the version,
 * the table's address and its (maximum) length. */
int smbios_parse_entry_point(const uint8_t *ep, size_t len, int *major, int *minor, uint64_t *table_addr,
                             uint32_t *table_len, const char **error);

/* Reads a `dmidecode --dump-bin` file (entry point at 0, table at 32) into d. 0, or -1 with a
 * message in *error (malloc'd). */
int smbios_load_dump(const char *path, struct dmi_data *d, char **error);
/* Reads the live (or recorded) table: /sys/firmware/dmi/tables, else /sys/firmware/dmi/entries.
 * 0, or -1 with the reason in *error (malloc'd). */
int smbios_load_sysfs(struct dmi_data *d, char **error);

/* Parses `dmidecode` text output. 0, or -1 with a message in *error (malloc'd). */
int dmidecode_parse(const char *text, struct dmi_data *d, char **error);
int dmidecode_load(const char *path, struct dmi_data *d, char **error);

#endif
