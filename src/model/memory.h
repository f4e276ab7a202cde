/* Host memory (DIMMs, channels, ECC), power supplies and CPU contention: the facts of issues 3
 * and 7 (power). Unknown markers: -1 for counts and sizes, 0 for speeds, NULL for strings. */
#ifndef GPUVET_MODEL_MEMORY_H
#define GPUVET_MODEL_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

enum ecc_state { ECC_UNKNOWN, ECC_OFF, ECC_ON };

struct dimm {
    char *locator, *bank_locator;
    unsigned smbios_handle; /* its type-17 handle (joins vendor records); 0 none */
    int socket;            /* 0-based; -1 unknown */
    int channel;           /* index within the socket (controller folded in), 0..n-1; -1 unknown */
    int channel_index;     /* scratch for numbering channels */
    uint64_t size_bytes;
    char *type;            /* "DDR4", "DDR5", ...; NULL unknown */
    int speed_mts, configured_mts; /* 0 unknown */
    int rank;              /* 0 unknown */
    int total_width, data_width; /* bits; -1 unknown */
    long ce_count, ue_count; /* EDAC per-DIMM counters; -1 unknown */
};

/* How much of the CPU a platform row pins down: one SKU, a range whose every model runs the same
 * speed, or a whole family whose speed is the lowest of its models (the model itself is unlisted). */
enum platform_scope { PLATFORM_FAMILY, PLATFORM_MODELS, PLATFORM_MODEL };

#define PLATFORM_MAX_DPC 3

/* "family", "models", "model": the words of the table's scope column. */
const char *platform_scope_name(enum platform_scope scope);

/* A CPU platform row of data/cpu-platforms.csv. */
struct cpu_platform {
    char *name, *ddr, *source;
    char *source_label;    /* "Intel ARK", "AMD", ... named after the source's site */
    char *dpc_source;      /* where the DIMMs-per-channel figures come from; NULL none */
    char *dpc_source_label;
    int channels_per_socket;
    int mts;               /* top MT/s at one DIMM per channel */
    int mts_at_dpc[PLATFORM_MAX_DPC + 1]; /* [n]: top MT/s with n DIMMs in a channel; 0 unknown */
    enum platform_scope scope;
    int max_sockets;       /* the most sockets the model runs in (its source page); 0 not recorded */
};

struct memory_info {
    char *source;          /* where the DIMMs came from ("/sys/firmware/dmi/tables/DMI", a file, "edac"); NULL none */
    char *unknown_reason;  /* why no DIMM source was readable, with the command to run */
    int64_t installed_bytes; /* sum of DIMMs; -1 unknown */
    int64_t usable_bytes;  /* MemTotal; -1 unknown */
    enum ecc_state ecc;
    char *ecc_evidence;    /* what the ECC verdict rests on */
    struct dimm *dimms;    /* populated RAM modules only */
    int ndimms;
    /* Persistent memory modules (Intel Optane, NVDIMM): listed apart, in no RAM total or channel count. */
    struct dimm *persistent;
    int npersistent;
    int64_t persistent_bytes;
    int slots_total;       /* DIMM slots of system-memory arrays; -1 unknown */
    int slots_declared;    /* sum of the system-memory arrays' Number Of Devices (type 16); -1 unknown */
    /* Empty type-17 slots of system memory, placed on a socket by their locators as DIMMs are
     * (socket -1: not placed); only locator, bank_locator and socket are meaningful. */
    struct dimm *empty_slots;
    int nempty_slots;
    int sockets;           /* sockets the DIMMs are spread over (from locators, or the CPU count) */
    char *sockets_disputed; /* why that count is in doubt (more than the CPU model runs in); NULL not */
    char *edac_placement;  /* SMBIOS DIMMs placed on channels by EDAC, or why not; NULL not tried */
    bool channels_from_locators; /* every DIMM's channel is named; false: some (or all) only by socket */
    char *locator_scheme;  /* which pattern mapped the locators ("P0_Node0_Channel0_Dimm0", ...) */
    struct cpu_platform platform; /* channels_per_socket 0 when the CPU is not in the table */
    char *platform_unknown_reason;
    bool memory_controller_in_chipset; /* front-side-bus CPU: no channels of its own to count */
    bool edac_present;
    long edac_ce, edac_ue; /* totals over the memory controllers; -1 unknown */
    int pcie_slots_total, pcie_slots_free; /* SMBIOS type 9; -1 unknown */
};

struct power_supply {
    char *name;
    int max_watts;         /* -1 unknown */
    bool present;
    char *status;          /* "OK", "Non-critical", "Critical"; NULL unknown */
};

struct power_info {
    bool known;            /* SMBIOS was read (supplies may still be 0: the table lists none) */
    char *unknown_reason;
    struct power_supply *supplies;
    int nsupplies;
    double cpu_tdp_watts;  /* sum of package power limits (RAPL PL1); 0 unknown */
    char *cpu_tdp_source;
};

/* Distinct channels the locators name on one socket; *unnamed gets the socket's DIMMs whose channel
 * the locators do not name. */
int memory_socket_named_channels(const struct memory_info *mem, int socket, int *unnamed);
/* Populated channels of one socket that the locators prove (every DIMM's channel named, or as many
 * named channels as the platform has), or -1. */
int memory_socket_channels_from_locators(const struct memory_info *mem, int socket);
/* The slots of one socket when every one holds a DIMM (no empty slot placed on it or on no socket,
 * no persistent module) and they are k >= 1 times the platform's channels; 0 otherwise. Socket -1:
 * the whole machine, every slot of which holds a DIMM, k x sockets x channels. Whether the listed
 * slots are all the board has is memory_slots_confirmed's to say. */
int memory_socket_full_slots(const struct memory_info *mem, int socket);
/* Populated channels of one socket: from the locators, else all of them when every slot of the
 * (confirmed) slot count holds a DIMM and the locators leave room for it; -1 unproven. */
int memory_socket_channels(const struct memory_info *mem, int socket);
/* DIMMs on one socket. */
int memory_socket_dimms(const struct memory_info *mem, int socket);
/* Empty slots, and persistent modules, on one socket (socket -1: those no locator places). */
int memory_socket_empty_slots(const struct memory_info *mem, int socket);
int memory_socket_persistent(const struct memory_info *mem, int socket);
/* Whether every slot the type-17 entries list is one the type-16 arrays declare and vice versa:
 * the listed slots are all the board has (some BIOSes list only the populated ones). */
bool memory_slots_confirmed(const struct memory_info *mem);
/* Most DIMMs in one channel over all sockets; 0 when a DIMM has no channel (locators name none). */
int memory_max_dimms_per_channel(const struct memory_info *mem);
/* Lowest configured (else rated) MT/s of the DIMMs; 0 unknown. */
int memory_effective_mts(const struct memory_info *mem);
/* channels x MT/s x 8 bytes for one socket's populated channels (at most min(DIMMs, platform
 * channels) when unproven); 0 unknown. */
double memory_socket_bandwidth(const struct memory_info *mem, int socket);

void memory_info_init(struct memory_info *mem);
void memory_info_free(struct memory_info *mem);
void power_info_free(struct power_info *p);

#endif
