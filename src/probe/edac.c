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

/* Where a DIMM sits, from what the drivers write (drivers/edac/edac_mc.c): dimm_location is "%s %d "
 * per layer of the controller, the layers named csrow, branch, channel, slot or memory: "channel 2
 * slot 0 " (skx, i10nm, sb_edac, ie31200), "csrow 3 channel 1 " (amd64_edac, older chipsets), "branch 1
 * channel 0 slot 2 " (i5000, i5400, i7300: two channels per branch), "memory 5 " (no layer but the
 * DIMM: no channel). The socket is in the label skx_edac/i10nm ("CPU_SrcID#1_MC#0_Chan#0_DIMM#0")
 * and sb_edac ("CPU_SrcID#1_Ha#0_Chan#2_DIMM#0") write, not in the controller's index: those drivers
 * register a controller per memory controller (a kernel log line "EDAC skx MC2: ... SOCKET 1" on
 * CPU_SrcID#1_MC#0), amd64_edac one per node; i7core_edac writes "CPU#0Channel#1_DIMM#0". Channel keys are controller * 64 + channel, as the
 * locator schemes', so two controllers' channel 0 stay two channels. */
/* A label's numbers are positions (a socket, controller, channel, slot: each under 256 in every
 * driver); a longer or larger one is no position (and would overflow the channel arithmetic), so
 * at most 3 digits are read (sscanf's own overflow is undefined) and values over 255 refused. */
#define EDAC_POSITION_MAX 255u

static bool positions_valid(unsigned a, unsigned b, unsigned c)
{
    return a <= EDAC_POSITION_MAX && b <= EDAC_POSITION_MAX && c <= EDAC_POSITION_MAX;
}

void edac_position(const char *label, const char *location, int *socket, int *channel)
{
    unsigned src, mc, chan, slot;
    *socket = *channel = -1;
    if (label && (sscanf(label, "CPU_SrcID#%3u_MC#%3u_Chan#%3u_DIMM#%3u", &src, &mc, &chan, &slot) == 4 ||
                  sscanf(label, "CPU_SrcID#%3u_Ha#%3u_Chan#%3u_DIMM#%3u", &src, &mc, &chan, &slot) == 4)) {
        if (positions_valid(src, mc, chan)) {
            *socket = (int)src;
            *channel = (int)(mc * 64 + chan);
        }
        return;
    }
    /* sb_edac before its home-agent field (as CentOS 6 ran it): one controller per socket. */
    if (label && sscanf(label, "CPU_SrcID#%3u_Channel#%3u_DIMM#%3u", &src, &chan, &slot) == 3) {
        if (positions_valid(src, chan, slot)) {
            *socket = (int)src;
            *channel = (int)chan;
        }
        return;
    }
    /* i7core_edac: one controller per socket, "CPU#%uChannel#%u_DIMM#%u". */
    if (label && sscanf(label, "CPU#%3uChannel#%3u_DIMM#%3u", &src, &chan, &slot) == 3) {
        if (positions_valid(src, chan, slot)) {
            *socket = (int)src;
            *channel = (int)chan;
        }
        return;
    }
    if (!location)
        return;
    int branch = -1, ch = -1;
    const char *p = location;
    char layer[16];
    int value, used;
    while (sscanf(p, " %15[a-z] %4d%n", layer, &value, &used) == 2) {
        if (value < 0 || value > 255)
            return; /* not a position any driver writes */
        if (!strcmp(layer, "branch"))
            branch = value;
        else if (!strcmp(layer, "channel"))
            ch = value;
        p += used;
    }
    if (ch >= 0)
        *channel = branch >= 0 ? branch * 64 + ch : ch;
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

/* What an EDAC label says of the entry it names. The kernel's own labels of the DIMM-layer drivers
 * name one DIMM (skx/i10nm, sb_edac, and i7core_edac's "CPU#0Channel#1_DIMM#0"); edac_mc.c's default
 * for other drivers, "mc#0csrow#2channel#1", or an empty label (kernels before 3.5) names a position
 * only; anything else is a board label a user or rasdaemon's labels database wrote ("DIMM_A2"), the
 * same on every chip select of one module. */
enum label_kind { LABEL_NONE, LABEL_DIMM_LAYER, LABEL_BOARD };

static enum label_kind label_kind(const char *label)
{
    unsigned a, b, c, d;
    if (!label || !*label || !strncmp(label, "mc#", 3))
        return LABEL_NONE;
    if (sscanf(label, "CPU_SrcID#%u_MC#%u_Chan#%u_DIMM#%u", &a, &b, &c, &d) == 4 ||
        sscanf(label, "CPU_SrcID#%u_Ha#%u_Chan#%u_DIMM#%u", &a, &b, &c, &d) == 4 ||
        sscanf(label, "CPU_SrcID#%u_Channel#%u_DIMM#%u", &a, &b, &c) == 3 ||
        sscanf(label, "CPU#%uChannel#%u_DIMM#%u", &a, &b, &c) == 3)
        return LABEL_DIMM_LAYER;
    return LABEL_BOARD;
}

/* Where a controller sits, for entries whose label does not say (a board label registered over the
 * kernel's, `ras-mc-ctl --register-labels`): the socket, and the unit of that socket (its memory
 * controller or home agent) that keeps two units' channel 0 apart, as the kernel's labels do. */
struct controller_place {
    int socket, unit;
};

/* mc_name as skx/i10nm write it ("Skylake Socket#1 IMC#0", "Intel_10nm Socket#0 IMC#3",
 * skx_common.c), sb_edac ("Haswell SrcID#1_Ha#0", sb_edac.c) and sb_edac before its home-agent field
 * ("Sandy Bridge Socket#1": one controller per socket); else the topology's answer (amd64_edac and the
 * rest name no socket: as many controllers as sockets, one each, or none known). */
static struct controller_place controller_place(const char *mc_dir, int socket_of_mc)
{
    struct controller_place place = {socket_of_mc, 0};
    char *name = fs_readf("%s/mc_name", mc_dir);
    const char *at = name ? strstr(name, "Socket#") : NULL;
    unsigned socket, unit;
    if (at && sscanf(at, "Socket#%u IMC#%u", &socket, &unit) == 2 && socket < 64 && unit < 64)
        place = (struct controller_place){(int)socket, (int)unit};
    else if (at && sscanf(at, "Socket#%u", &socket) == 1 && socket < 64)
        place = (struct controller_place){(int)socket, 0};
    else if ((at = name ? strstr(name, "SrcID#") : NULL) && sscanf(at, "SrcID#%u_Ha#%u", &socket, &unit) == 2 &&
             socket < 64 && unit < 64)
        place = (struct controller_place){(int)socket, (int)unit};
    free(name);
    return place;
}

/* Appends one EDAC entry to mem (taking label, location and type); false when mem is full. */
static bool add_entry(struct memory_info *mem, char *label, char *location, char *type, long mib, long ce, long ue,
                      struct controller_place place)
{
    struct dimm *grown =
        mem->ndimms < DMI_MAX_MEMORY_DEVICES ? realloc(mem->dimms, (size_t)(mem->ndimms + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(label);
        free(location);
        free(type);
        return false;
    }
    mem->dimms = grown;
    struct dimm *d = &mem->dimms[mem->ndimms++];
    memset(d, 0, sizeof *d);
    if (label && !*label) {
        free(label);
        label = NULL;
    }
    d->locator = label;
    d->bank_locator = location;
    /* "Registered-DDR4" -> "DDR4" */
    const char *dash = type ? strrchr(type, '-') : NULL;
    d->type = type ? strdup(dash ? dash + 1 : type) : NULL;
    free(type);
    d->size_bytes = (uint64_t)mib << 20;
    d->total_width = d->data_width = -1;
    edac_position(d->locator, d->bank_locator, &d->socket, &d->channel);
    if (d->socket < 0 && d->channel >= 0 && place.socket >= 0) {
        d->socket = place.socket;
        d->channel += place.unit * 64;
    }
    d->ce_count = ce;
    d->ue_count = ue;
    mem->installed_bytes = (mem->installed_bytes < 0 ? 0 : mem->installed_bytes) + (int64_t)d->size_bytes;
    return true;
}

static void free_entry(struct dimm *d)
{
    free(d->locator);
    free(d->bank_locator);
    free(d->type);
}

/* The channels of a legacy csrow directory: bit N for each chN_dimm_label or chN_ce_count file. */
static unsigned csrow_channels(const char *csrow_dir)
{
    char **names;
    int n = fs_list(csrow_dir, &names);
    unsigned mask = 0;
    for (int i = 0; i < n; i++) {
        unsigned ch;
        char rest[16];
        if (sscanf(names[i], "ch%u_%15s", &ch, rest) == 2 && ch < 32 &&
            (!strcmp(rest, "dimm_label") || !strcmp(rest, "ce_count")))
            mask |= 1u << ch;
    }
    fs_list_free(names, n > 0 ? n : 0);
    return mask;
}

/* The legacy layout (Documentation/admin-guide/ras.rst, "csrowX directories"; the only one before
 * Linux 3.5, kept under CONFIG_EDAC_LEGACY_SYSFS): csrowN/size_mb is the row's size over all its
 * channels, mem_type and edac_mode are the row's, chM_dimm_label and chM_ce_count the channel's. The
 * kernel keeps no size per channel: the row's channels (the DIMMs read together across them) are
 * taken as equal shares, and a row whose size does not split evenly is not believed. Each channel of
 * a row is one entry, located "csrow N channel M " as the newer layout writes it. */
static void add_csrows(struct memory_info *mem, const char *mc_dir, struct controller_place place, char **ecc_mode)
{
    char **names;
    int n = fs_list(mc_dir, &names);
    for (int i = 0; i < n; i++) {
        unsigned row;
        char tail;
        if (sscanf(names[i], "csrow%u%c", &row, &tail) != 1 || row > 255)
            continue;
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", mc_dir, names[i]);
        long mib = read_count(dir, "size_mb");
        unsigned mask = csrow_channels(dir);
        int channels = __builtin_popcount(mask);
        if (mib <= 0 || mib > EDAC_DIMM_MAX_MIB || channels == 0 || mib % channels)
            continue;
        if (!*ecc_mode)
            *ecc_mode = fs_readf("%s/edac_mode", dir);
        for (unsigned ch = 0; ch < 32; ch++) {
            if (!(mask & (1u << ch)))
                continue;
            char file[32], *location;
            snprintf(file, sizeof file, "ch%u_ce_count", ch);
            if (asprintf(&location, "csrow %u channel %u ", row, ch) < 0)
                location = NULL;
            if (!add_entry(mem, fs_readf("%s/ch%u_dimm_label", dir, ch), location, fs_readf("%s/mem_type", dir),
                           mib / channels, read_count(dir, file), -1, place))
                break;
        }
    }
    fs_list_free(names, n > 0 ? n : 0);
}

/* Chip-select entries (rank*, legacy csrows) of one controller, entries [first, ndimms) of mem, made
 * into DIMMs: those under one board label on one channel are one module, its rank the number of chip
 * selects (csrows) it holds. An entry under a kernel default label or none leaves which entries share
 * a module unknown: then none is merged and *ungrouped counts them. DIMM-layer labels are DIMMs. */
static void group_ranks(struct memory_info *mem, int first, const bool *chip_select, int *ungrouped)
{
    int unknown = 0;
    for (int i = first; i < mem->ndimms; i++)
        unknown += chip_select[i - first] && label_kind(mem->dimms[i].locator) == LABEL_NONE;
    if (unknown) {
        *ungrouped += unknown;
        return;
    }
    int kept = first;
    for (int i = first; i < mem->ndimms; i++) {
        struct dimm *d = &mem->dimms[i];
        bool board = chip_select[i - first] && label_kind(d->locator) == LABEL_BOARD;
        struct dimm *same = NULL;
        for (int j = first; board && j < kept && !same; j++)
            if (mem->dimms[j].rank > 0 && mem->dimms[j].channel == d->channel &&
                !strcmp(mem->dimms[j].locator, d->locator))
                same = &mem->dimms[j];
        if (same) {
            same->size_bytes += d->size_bytes;
            same->rank++;
            add_count(&same->ce_count, d->ce_count);
            add_count(&same->ue_count, d->ue_count);
            free_entry(d);
            continue;
        }
        if (board)
            d->rank = 1;
        mem->dimms[kept++] = *d;
    }
    mem->ndimms = kept;
}

/* Adds the DIMMs of one controller to mem: its dimm* (DIMM-layer drivers) and rank* (chip-select
 * drivers, edac_mc_sysfs.c: mci->csbased) entries, else its legacy csrow* rows. socket_of_mc: the
 * socket of this controller when the topology says (as many controllers as sockets), else -1. */
static void add_dimms(struct memory_info *mem, const char *mc_dir, int socket_of_mc, char **ecc_mode, int *ungrouped)
{
    struct controller_place place = controller_place(mc_dir, socket_of_mc);
    bool *chip_select = calloc(DMI_MAX_MEMORY_DEVICES, sizeof *chip_select);
    if (!chip_select)
        return;
    int first = mem->ndimms;
    char **names;
    int n = fs_list(mc_dir, &names);
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], "dimm", 4) && strncmp(names[i], "rank", 4))
            continue;
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", mc_dir, names[i]);
        long mib = read_count(dir, "size");
        if (mib <= 0 || mib > EDAC_DIMM_MAX_MIB) /* past it would wrap the byte count into a plausible size */
            continue;
        int at = mem->ndimms;
        if (!add_entry(mem, fs_readf("%s/dimm_label", dir), fs_readf("%s/dimm_location", dir),
                       fs_readf("%s/dimm_mem_type", dir), mib, read_count(dir, "dimm_ce_count"),
                       read_count(dir, "dimm_ue_count"), place))
            break;
        chip_select[at - first] = !strncmp(names[i], "rank", 4);
        if (!*ecc_mode)
            *ecc_mode = fs_readf("%s/dimm_edac_mode", dir);
    }
    fs_list_free(names, n > 0 ? n : 0);
    if (mem->ndimms == first) {
        add_csrows(mem, mc_dir, place, ecc_mode);
        for (int i = first; i < mem->ndimms; i++)
            chip_select[i - first] = true;
    }
    group_ranks(mem, first, chip_select, ungrouped);
    free(chip_select);
}

/* The drivers without a SrcID label: one controller per socket only when there are as many as the
 * topology's sockets (amd64_edac registers one per node: on a first-generation EPYC four per
 * socket, and then the controller index is no socket). */
static int controllers_listed(char **names, int n)
{
    int controllers = 0, index;
    for (int i = 0; i < n; i++)
        controllers += sscanf(names[i], "mc%d", &index) == 1;
    return controllers;
}

int edac_read_dimms(const struct machine *m, struct dimm **out, int *ungrouped)
{
    *ungrouped = 0;
    struct memory_info list;
    memory_info_init(&list);
    char **names, *mode = NULL;
    int n = fs_list(EDAC_MC, &names);
    bool per_socket = m->cpu.sockets > 0 && controllers_listed(names, n) == m->cpu.sockets;
    for (int i = 0; i < n; i++) {
        int index;
        if (sscanf(names[i], "mc%d", &index) != 1 || list.ndimms >= DMI_MAX_MEMORY_DEVICES)
            continue;
        char dir[256];
        snprintf(dir, sizeof dir, EDAC_MC "/%s", names[i]);
        add_dimms(&list, dir, per_socket ? index : -1, &mode, ungrouped);
    }
    fs_list_free(names, n > 0 ? n : 0);
    free(mode);
    *out = list.dimms;
    return list.ndimms;
}

void probe_edac(struct machine *m)
{
    struct memory_info *mem = &m->memory;
    char **names;
    int n = fs_list(EDAC_MC, &names);
    bool per_socket = m->cpu.sockets > 0 && controllers_listed(names, n) == m->cpu.sockets;
    bool dimms_from_edac = mem->ndimms == 0;
    char *ecc_mode = NULL;
    int controllers = 0, ungrouped = 0;
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
            add_dimms(mem, dir, per_socket ? index : -1, &ecc_mode, &ungrouped);
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
