/* EDAC (/sys/devices/system/edac/mc): world-readable, so it is the memory source for non-root
 * runs. A memory controller registered here means the kernel runs an ECC driver; its counters are
 * the corrected (ce) and uncorrected (ue) errors since boot. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"
#include "probe/probe.h"
#include "util/fsroot.h"

#define EDAC_MC "/sys/devices/system/edac/mc"
/* 16 TiB: more than any DIMM; a size past it is not believed (and 1024 of them still fit int64). */
#define EDAC_DIMM_MAX_MIB (16L << 20)

/* "CPU_SrcID#0_MC#1_Chan#2_DIMM#0" (skx/i10nm) or a dimm_location "channel 2 slot 0". */
static void edac_position(const char *label, const char *location, int *socket, int *channel)
{
    unsigned src, mc, chan, slot;
    if (label && sscanf(label, "CPU_SrcID#%u_MC#%u_Chan#%u_DIMM#%u", &src, &mc, &chan, &slot) == 4) {
        *socket = (int)src;
        *channel = (int)(mc * 64 + chan);
    } else if (location && (sscanf(location, "channel %u", &chan) == 1 ||
                            sscanf(location, "csrow %*u channel %u", &chan) == 1)) {
        *channel = (int)chan;
    }
}

static long read_count(const char *dir, const char *name)
{
    char path[512];
    long v;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fs_read_long(path, &v) && v >= 0 ? v : -1;
}

/* Adds a counter to a total (-1 unknown), saturating: a file's huge count must not wrap around to
 * a small or negative one. */
static void add_count(long *total, long count)
{
    if (count < 0)
        return;
    long base = *total < 0 ? 0 : *total;
    *total = count > LONG_MAX - base ? LONG_MAX : base + count;
}

/* Adds the DIMMs of one controller to the model (only when SMBIOS gave none). */
static void add_dimms(struct memory_info *mem, const char *mc_dir, int mc_index, char **ecc_mode)
{
    char **names;
    int n = fs_list(mc_dir, &names);
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], "dimm", 4) && strncmp(names[i], "rank", 4))
            continue;
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", mc_dir, names[i]);
        long mib = read_count(dir, "size");
        if (mib <= 0)
            continue;
        if (mib > EDAC_DIMM_MAX_MIB) /* would wrap the byte count into a plausible size */
            continue;
        if (mem->ndimms >= DMI_MAX_MEMORY_DEVICES)
            break;
        struct dimm *grown = realloc(mem->dimms, (size_t)(mem->ndimms + 1) * sizeof *grown);
        if (!grown)
            break;
        mem->dimms = grown;
        struct dimm *d = &mem->dimms[mem->ndimms++];
        memset(d, 0, sizeof *d);
        d->locator = fs_readf("%s/dimm_label", dir);
        d->bank_locator = fs_readf("%s/dimm_location", dir);
        char *type = fs_readf("%s/dimm_mem_type", dir);
        /* "Registered-DDR4" -> "DDR4" */
        const char *dash = type ? strrchr(type, '-') : NULL;
        d->type = type ? strdup(dash ? dash + 1 : type) : NULL;
        free(type);
        d->size_bytes = (uint64_t)mib << 20;
        d->socket = -1;
        d->channel = -1;
        d->total_width = d->data_width = -1;
        edac_position(d->locator, d->bank_locator, &d->socket, &d->channel);
        if (d->socket < 0 && d->channel >= 0)
            d->socket = mc_index; /* one controller per socket on the drivers without a SrcID label */
        d->ce_count = read_count(dir, "dimm_ce_count");
        d->ue_count = read_count(dir, "dimm_ue_count");
        if (!*ecc_mode)
            *ecc_mode = fs_readf("%s/dimm_edac_mode", dir);
        mem->installed_bytes = (mem->installed_bytes < 0 ? 0 : mem->installed_bytes) + (int64_t)d->size_bytes;
    }
    fs_list_free(names, n > 0 ? n : 0);
}

void probe_edac(struct machine *m)
{
    struct memory_info *mem = &m->memory;
    char **names;
    int n = fs_list(EDAC_MC, &names);
    bool dimms_from_edac = mem->ndimms == 0;
    char *ecc_mode = NULL;
    int controllers = 0;
    for (int i = 0; i < n; i++) {
        int index;
        if (sscanf(names[i], "mc%d", &index) != 1)
            continue;
        char dir[256];
        snprintf(dir, sizeof dir, EDAC_MC "/%s", names[i]);
        controllers++;
        long ce = read_count(dir, "ce_count"), ue = read_count(dir, "ue_count");
        add_count(&mem->edac_ce, ce);
        add_count(&mem->edac_ue, ue);
        if (dimms_from_edac && mem->ndimms < DMI_MAX_MEMORY_DEVICES)
            add_dimms(mem, dir, index, &ecc_mode);
    }
    if (mem->ndimms >= DMI_MAX_MEMORY_DEVICES)
        machine_problem(m, EDAC_MC, "lists %d DIMMs or more: only the first %d are kept (no server has more)",
                        DMI_MAX_MEMORY_DEVICES, DMI_MAX_MEMORY_DEVICES);
    fs_list_free(names, n > 0 ? n : 0);
    mem->edac_present = controllers > 0;
    if (!controllers)
        return;
    if (dimms_from_edac && mem->ndimms > 0) {
        free(mem->source);
        mem->source = strdup("edac");
    }
    char piece[256];
    snprintf(piece, sizeof piece, "EDAC: %d memory controller%s registered%s%s", controllers,
             controllers == 1 ? "" : "s", ecc_mode ? ", DIMM mode " : "", ecc_mode ? ecc_mode : "");
    char *joined;
    if (asprintf(&joined, "%s%s%s", mem->ecc_evidence ? mem->ecc_evidence : "", mem->ecc_evidence ? "; " : "",
                 piece) >= 0) {
        free(mem->ecc_evidence);
        mem->ecc_evidence = joined;
    }
    /* An ECC driver with DIMMs in a correcting mode is proof of ECC; SMBIOS may say nothing. */
    if (mem->ecc == ECC_UNKNOWN && ecc_mode && strcmp(ecc_mode, "None") && strcmp(ecc_mode, "Unknown"))
        mem->ecc = ECC_ON;
    free(ecc_mode);
}
