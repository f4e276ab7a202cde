/* Host memory from SMBIOS (table, raw entries or dmidecode text), joined with EDAC and the CPU
 * platform table; power supplies (type 39) and CPU package power limits (RAPL). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probe/dmi.h"
#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"

/* Locator schemes, most explicit first (research/inventory.md §3.6), each checked on real linuxhw/DMI
 * reports (tests/unit/test_locators.c). Sub-match numbers say where the socket, the memory controller
 * (die/node) and the channel are; 0 = not in this scheme. A letter channel ("A") counts from 'A'.
 * Schemes without a channel name the socket only. */
struct locator_scheme {
    const char *name;
    bool bank;            /* matched against the bank locator, else the locator */
    const char *regex;
    int socket, controller, channel;
};

static const struct locator_scheme schemes[] = {
    /* AMI Aptio (Supermicro, Gigabyte, Quanta): P = socket, Node = memory controller. */
    {"P0_Node0_Channel0_Dimm0", true, "^P([0-9]+)_Node([0-9]+)_Channel([0-9]+)_Dimm[0-9]+$", 1, 2, 3},
    /* The same without the P (Huawei, Inspur, Hyve, Sugon, Lenovo): Node is the socket. */
    {"_Node0_Channel0_Dimm0", true, "^([A-Z][0-9]+)?_Node([0-9]+)_Channel([0-9]+)_Dimm[0-9]+$", 2, 0, 3},
    {"NODE 0 CHANNEL 0 DIMM 0", true, "^NODE ([0-9]+) CHANNEL ([0-9]+) DIMM [0-9]+", 1, 0, 2},
    {"SOCKET 0 CHANNEL 0 DIMM 0", true, "^SOCKET ([0-9]+) CHANNEL ([0-9]+) DIMM [0-9]+", 1, 0, 2},
    {"P0 CHANNEL A", true, "^P([0-9]+) CHANNEL ([A-Z])$", 1, 0, 2},
    {"P1-DIMMA1", false, "^P([0-9]+)[-_]DIMM_?([A-Z])[0-9]+$", 1, 0, 2},
    /* Supermicro X8 (Nehalem/Westmere): the digit is the channel, the letter the slot in it. */
    {"P1-DIMM1A", false, "^P([0-9]+)[-_](DIMM)?([0-9])[A-Z]$", 1, 0, 3},
    {"DIMM_P0_A0", false, "^DIMM_P([0-9]+)_([A-Z])[0-9]+$", 1, 0, 2},
    {"CPU1_DIMM_A0", false, "^CPU_?([0-9]+)[_ ][Dd][Ii][Mm][Mm][_ ]?([A-Z])(_?[0-9]+)?$", 1, 0, 2},
    {"CPU0_A0", false, "^CPU([0-9]+)_([A-Z])[0-9]+$", 1, 0, 2},
    /* Inspur M5/M6: CPU, channel, DIMM. */
    {"CPU0_C0D0", false, "^CPU([0-9]+)_C([0-9]+)D[0-9]+$", 1, 0, 2},
    /* Tyan: socket, memory controller, channel letter. */
    {"P0_MC0_DIM_CH_A0", false, "^P([0-9]+)_MC([0-9]+)_DIM_CH_([A-Z])[0-9]+$", 1, 2, 3},
    /* Huawei/xFusion: three digits, socket channel slot ("DIMM010 J21" is socket 0, channel 1). */
    {"DIMM000", false, "^DIMM([0-9])([0-9])[0-9]( .*)?$", 1, 0, 2},
    /* Tyan S7012 (Xeon 5500/5600): socket, channel letter, slot. */
    {"P0-ChA-DIMM0", false, "^P([0-9]+)-Ch([A-Z])-DIMM[0-9]+$", 1, 0, 2},
    /* Supermicro X8 BIOS naming of the "P1-DIMM1A" slots: the digit is the channel, the letter the slot. */
    {"NODE0-1A", false, "^NODE([0-9]+)-([0-9])[A-Z]$", 1, 0, 2},
    /* Socket only. */
    {"/SYS/MB/P0 (Oracle/Sun)", true, "^/SYS/MB/P([0-9]+)$", 1, 0, 0},
    {"PROC 1 DIMM 3", false, "^PROC +([0-9]+) +DIMM +[0-9]+", 1, 0, 0},
    {"DIMM1_CPU0", false, "^DIMM[0-9]+_CPU([0-9]+)$", 1, 0, 0},
    {"CPU1_DIMM_3", false, "^CPU([0-9]+)[-_ ]DIMM[-_ ]?[0-9]+$", 1, 0, 0},
    {"DIMM 1 + CPU 1", true, "^CPU ?([0-9]+)$", 1, 0, 0},
};

/* The number (or letter, counted from 'A') inside one sub-match, its own digits only ("DIMM130"
 * holds three one-digit groups). */
static int submatch_int(const char *s, const regmatch_t *m)
{
    if (m->rm_so < 0)
        return -1;
    const char *p = s + m->rm_so;
    if (*p >= 'A' && *p <= 'Z')
        return *p - 'A';
    int v = 0;
    for (regoff_t i = m->rm_so; i < m->rm_eo && s[i] >= '0' && s[i] <= '9' && v < 100000; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* Dell PowerEdge: locator A1..A12 / B1..B12 (or DIMM_A1). The letter is the socket. Slots 1..N of a
 * socket with N channels hold the first DIMM of each channel (the white-tab slots, filled first).
 * Beyond N the map is board specific: slot k shares a channel with k-N on boards with 2N or 3N slots
 * per socket (R740xd, T420, XC750xa owner's manuals; Dell's own EDAC label table, github.com/dell/edac
 * edac.pl: R620, R720, T620, M620, R820 put A1-A4 on channels 0-3 and A5-A8, A9-A12 behind them), not
 * on the R540 (10 slots on 6 channels, A9 on channel 3): there the channel is left unnamed.
 * slots_per_socket 0 when not known. */
static bool map_dell(const char *locator, int channels, int slots_per_socket, int *socket, int *channel)
{
    regex_t re;
    regmatch_t mt[3];
    if (regcomp(&re, "^(DIMM_)?([A-Z])([0-9]+)$", REG_EXTENDED) != 0)
        return false;
    bool ok = regexec(&re, locator, 3, mt, 0) == 0;
    regfree(&re);
    if (!ok)
        return false;
    int slot = atoi(locator + mt[2].rm_so + 1);
    *socket = locator[mt[2].rm_so] - 'A';
    *channel = -1;
    if (channels > 0 && slot > 0 && slot <= channels)
        *channel = slot - 1;
    else if (channels > 0 && slot > channels && slots_per_socket > 0 && slots_per_socket % channels == 0)
        *channel = (slot - 1) % channels;
    return true;
}

const char *memory_locator_scheme(const char *locator, const char *bank_locator, int *socket, int *channel)
{
    *socket = *channel = -1;
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
        const struct locator_scheme *s = &schemes[i];
        const char *text = s->bank ? bank_locator : locator;
        regex_t re;
        regmatch_t mt[5];
        if (!text || regcomp(&re, s->regex, REG_EXTENDED) != 0)
            continue;
        bool ok = regexec(&re, text, 5, mt, 0) == 0;
        regfree(&re);
        if (!ok)
            continue;
        *socket = submatch_int(text, &mt[s->socket]);
        if (s->channel) {
            int controller = s->controller ? submatch_int(text, &mt[s->controller]) : 0;
            *channel = controller * 64 + submatch_int(text, &mt[s->channel]);
        }
        return s->name;
    }
    return NULL;
}

/* Type-17 slots of system memory whose Dell locator names this socket letter (empty ones too). */
static int dell_slots_of_socket(const struct dmi_data *dmi, char letter)
{
    int n = 0;
    for (int i = 0; dmi && i < dmi->ndevices; i++) {
        const char *l = dmi->devices[i].locator;
        if (!l)
            continue;
        if (!strncmp(l, "DIMM_", 5))
            l += 5;
        n += l[0] == letter && l[1] >= '0' && l[1] <= '9';
    }
    return n;
}

static bool is_hpe(const char *vendor)
{
    return vendor && (!strncmp(vendor, "HPE", 3) || !strncmp(vendor, "HP", 2) || strstr(vendor, "Hewlett"));
}

/* HPE's own DIMM location record (type 202, ProLiant Gen10 and later) names the processor and the
 * channel of each slot: the slot numbers alone do not ("PROC 1 DIMM 3..10" is 4 of 6 channels on a
 * DL360 Gen10). */
static bool map_hpe_record(struct dimm *d, const char *vendor, const struct dmi_data *dmi)
{
    if (!is_hpe(vendor) || !dmi || !d->smbios_handle)
        return false;
    for (int i = 0; i < dmi->nhpe_dimms; i++) {
        const struct dmi_hpe_dimm *h = &dmi->hpe_dimms[i];
        if (h->device_handle != d->smbios_handle || h->processor <= 0 || h->channel <= 0)
            continue;
        d->socket = h->processor;
        d->channel = h->channel; /* numbered across the processor's controllers */
        return true;
    }
    return false;
}

/* Boards whose locators name the processor and slot only ("PROC 1 DIMM 3", "DIMM 3" + "CPU 1"): the
 * vendor's slot map (data/board-slot-maps.csv) names the channel, when the CPU has the board's
 * channel count (a CPU with fewer leaves slots unwired). */
static bool map_board_slot(struct dimm *d, const struct board_slot_map *map, int channels)
{
    if (!map || map->channels != channels)
        return false;
    return board_slot_map_place(map, d->locator, d->bank_locator, &d->socket, &d->channel);
}

/* Fills dimm->socket (raw, normalised later) and ->channel; returns the scheme's name or NULL. */
static const char *map_locator(struct dimm *d, const char *vendor, const struct board_slot_map *slot_map, int channels,
                               const struct dmi_data *dmi)
{
    if (map_hpe_record(d, vendor, dmi))
        return "HPE DIMM location record (SMBIOS type 202)";
    if (map_board_slot(d, slot_map, channels))
        return slot_map->scheme;
    int socket, channel; /* EDAC DIMMs arrive placed: a locator that matches nothing keeps that */
    const char *name = memory_locator_scheme(d->locator, d->bank_locator, &socket, &channel);
    if (name && channel >= 0) {
        d->socket = socket;
        d->channel = channel;
        return name;
    }
    /* Dell's slot order before a socket-only scheme: the PowerEdge C6220 II and C8220 write "DIMM_A1"
     * with bank "CPU1", which names the socket the letter already names and no channel (their type-17
     * entries run A1, A5, A2, A6 ...: slot k beside k + 4, as on the 2N-slot boards above). */
    int dell_socket, dell_channel;
    if (vendor && strstr(vendor, "Dell") && d->locator) {
        const char *l = !strncmp(d->locator, "DIMM_", 5) ? d->locator + 5 : d->locator;
        if (map_dell(d->locator, channels, dell_slots_of_socket(dmi, l[0]), &dell_socket, &dell_channel) &&
            (!name || (!strcmp(name, "DIMM 1 + CPU 1") && dell_socket == socket - 1))) {
            /* The bank's socket number is kept (renumbered later with the other DIMMs'); a bank naming
             * another processor than the letter (A is CPU1) contradicts the reading: socket only then. */
            d->socket = name ? socket : dell_socket;
            d->channel = dell_channel;
            return "Dell A1/B1 (slot order)";
        }
    }
    /* A socket-only scheme ("CPU1_DIMM3", a board label registered over EDAC's) says less than the
     * place EDAC gave: that place stays. */
    if (name && (d->socket < 0 || d->channel < 0)) {
        d->socket = socket;
        d->channel = channel;
    }
    return name;
}

static int socket_rank(const int *seen, int nseen, int socket)
{
    int rank = 0;
    for (int k = 0; k < nseen; k++)
        rank += seen[k] < socket;
    return rank;
}

/* Locators number sockets from 0 or from 1 depending on the vendor: renumber the ones seen 0..n-1
 * (persistent modules follow the DIMMs' numbering). */
static int normalise_sockets(struct memory_info *mem)
{
    int seen[64], nseen = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        int s = mem->dimms[i].socket;
        bool dup = false;
        for (int k = 0; k < nseen && !dup; k++)
            dup = seen[k] == s;
        if (s >= 0 && !dup && nseen < 64)
            seen[nseen++] = s;
    }
    for (int i = 0; i < mem->ndimms; i++)
        if (mem->dimms[i].socket >= 0)
            mem->dimms[i].socket = socket_rank(seen, nseen, mem->dimms[i].socket);
    for (int i = 0; i < mem->npersistent; i++)
        if (mem->persistent[i].socket >= 0)
            mem->persistent[i].socket = socket_rank(seen, nseen, mem->persistent[i].socket);
    /* An empty slot on a socket no DIMM names cannot be ranked against the others: left unplaced. */
    for (int i = 0; i < mem->nempty_slots; i++) {
        struct dimm *e = &mem->empty_slots[i];
        bool known = false;
        for (int k = 0; k < nseen && !known; k++)
            known = seen[k] == e->socket;
        e->socket = known ? socket_rank(seen, nseen, e->socket) : -1;
    }
    return nseen;
}

/* Distinct channel keys of the DIMMs on one socket below `key`: the key's index 0..n-1. first[k]
 * says DIMM k is the first to hold its (socket, channel), so each key counts once: quadratic, not
 * cubic, over all DIMMs. */
static int channel_index(const struct memory_info *mem, const bool *first, int socket, int key)
{
    int below = 0;
    for (int k = 0; k < mem->ndimms; k++) {
        const struct dimm *o = &mem->dimms[k];
        below += first[k] && o->socket == socket && o->channel >= 0 && o->channel < key;
    }
    return below;
}

static bool dram_channel_key(const struct memory_info *mem, int socket, int key)
{
    for (int k = 0; k < mem->ndimms; k++)
        if (mem->dimms[k].socket == socket && mem->dimms[k].channel == key)
            return true;
    return false;
}

/* Channel keys (controller * 64 + channel) become 0..n-1 per socket, in locator order; a persistent
 * module gets the index of the DRAM channel it shares, or none (-1). */
static void number_channels(struct memory_info *mem)
{
    bool *first = calloc((size_t)mem->ndimms + 1, sizeof *first);
    if (!first)
        return;
    for (int k = 0; k < mem->ndimms; k++) {
        first[k] = true;
        for (int j = 0; j < k && first[k]; j++)
            first[k] = !(mem->dimms[j].socket == mem->dimms[k].socket && mem->dimms[j].channel == mem->dimms[k].channel);
    }
    for (int i = 0; i < mem->ndimms; i++) {
        struct dimm *d = &mem->dimms[i];
        d->channel_index = d->channel >= 0 && d->socket >= 0 ? channel_index(mem, first, d->socket, d->channel) : -1;
    }
    for (int i = 0; i < mem->npersistent; i++) {
        struct dimm *p = &mem->persistent[i];
        p->channel_index = p->channel >= 0 && p->socket >= 0 && dram_channel_key(mem, p->socket, p->channel)
                               ? channel_index(mem, first, p->socket, p->channel)
                               : -1;
    }
    free(first);
    for (int i = 0; i < mem->ndimms; i++)
        mem->dimms[i].channel = mem->dimms[i].channel_index;
    for (int i = 0; i < mem->npersistent; i++)
        mem->persistent[i].channel = mem->persistent[i].channel_index;
}

static bool is_system_memory(const struct dmi_data *dmi, unsigned array_handle)
{
    for (int i = 0; i < dmi->narrays; i++)
        if (dmi->arrays[i].handle == array_handle)
            return dmi->arrays[i].use == DMI_USE_SYSTEM_MEMORY;
    return true; /* no array to join to (raw type-17 entries alone): keep it */
}

/* A ROM or flash part listed as a memory device (raw entries come without their array) is no DIMM. */
static bool is_firmware_store(const char *type)
{
    return type && (!strcmp(type, "Flash") || !strcmp(type, "ROM") || !strcmp(type, "EEPROM") ||
                    !strcmp(type, "EPROM") || !strcmp(type, "FEPROM"));
}

/* Intel Optane and NVDIMMs by their technology or type; by the Non-Volatile type detail only where
 * the entry does not also call itself DRAM (a Huawei RH2288 V3 BIOS sets the bit on plain RDIMMs). */
static bool is_persistent(const struct dmi_memdev *dev)
{
    if (dev->technology >= DMI_TECH_NVDIMM_N && dev->technology <= DMI_TECH_OPTANE)
        return true;
    if (dev->type && !strcmp(dev->type, "Logical non-volatile device"))
        return true;
    return dev->detail_non_volatile && dev->technology != DMI_TECH_DRAM && !(dev->type && !strcmp(dev->type, "DRAM"));
}

/* Fujitsu PRIMERGY letters the channel after the slot digit: "DIMM-1A" is memory slot 1 of channel A
 * (Fujitsu's upgrade and maintenance manuals, "memory slot 1 / channel A (DIMM-1A)"). Supermicro's X8
 * "P1-DIMM1A" reads the other way round, so only on Fujitsu's boards. */
static bool is_fujitsu(const char *vendor)
{
    return vendor && !strncasecmp(vendor, "FUJITSU", 7);
}

/* The channel letter of "DIMM_A1", "DIMM A1", "ChannelA_Dimm1", "ChannelA-DIMM0", and on Fujitsu's
 * boards "DIMM-1A"; 0 when not of that form. */
static char letter_of(const char *locator, const char *regex)
{
    regex_t re;
    regmatch_t mt[3];
    if (!locator || regcomp(&re, regex, REG_EXTENDED) != 0)
        return 0;
    bool ok = regexec(&re, locator, 3, mt, 0) == 0;
    regfree(&re);
    return ok ? locator[mt[2].rm_so] : 0;
}

static char channel_letter(const char *locator, bool fujitsu)
{
    char c = fujitsu ? letter_of(locator, "^(DIMM[-_ ][0-9])([A-Z])$") : 0;
    return c ? c : letter_of(locator, "^(DIMM[_ ]|Channel)([A-Z])([-_]D[Ii][Mm][Mm])?[0-9]+$");
}

/* Boards that letter their channels on across sockets (A-H on a 2 x 4-channel board: ETegro, ASUS,
 * Intel): when every slot of the table is lettered and there are exactly sockets x channels letters,
 * the k-th letter is channel k % N of socket k / N. Any other count proves nothing. */
static const char *map_letters_across_sockets(struct memory_info *mem, const struct dmi_data *dmi, int sockets,
                                              const char *vendor)
{
    bool fujitsu = is_fujitsu(vendor);
    int channels = mem->platform.channels_per_socket;
    if (!dmi || channels <= 0 || sockets <= 0 || mem->ndimms == 0)
        return NULL;
    bool used[26] = {false};
    int letters = 0;
    for (int i = 0; i < dmi->ndevices; i++) {
        const struct dmi_memdev *dev = &dmi->devices[i];
        if (!is_system_memory(dmi, dev->array_handle) || is_firmware_store(dev->type))
            continue;
        char c = channel_letter(dev->locator, fujitsu);
        if (!c)
            return NULL;
        letters += !used[c - 'A'];
        used[c - 'A'] = true;
    }
    if (letters != sockets * channels)
        return NULL;
    for (int i = 0; i < mem->ndimms; i++) {
        struct dimm *d = &mem->dimms[i];
        char c = channel_letter(d->locator, fujitsu);
        int rank = 0;
        for (int k = 0; k < c - 'A'; k++)
            rank += used[k];
        d->socket = rank / channels;
        d->channel = rank % channels;
    }
    return fujitsu ? "Fujitsu DIMM-1A (channel letters run on across sockets)"
                   : "DIMM_A1 / ChannelA (letters run on across sockets)";
}

/* More sockets than the CPU model runs in: a BIOS that lists a processor entry for a socket a
 * one-socket board does not have, or locators naming a CPU the board cannot hold. The count is in
 * doubt, so the per-socket rules say so rather than judge an empty socket that is not there. */
static void dispute_sockets(struct machine *m, int from_locators)
{
    struct memory_info *mem = &m->memory;
    int max = mem->platform.max_sockets;
    if (max <= 0 || mem->sockets <= max)
        return;
    const char *model = m->cpu.model ? m->cpu.model : mem->platform.name;
    const char *source = mem->platform.source_label ? mem->platform.source_label : "";
    if (m->cpu.sockets > max && m->source && !strcmp(m->source, "evidence"))
        /* TRANSLATORS: processor entries counted, the CPU model, the most sockets it runs in, the source. */
        i18n_asprintf(&mem->sockets_disputed,
                      "SMBIOS lists %d populated processor entries, but the %s runs in at most %d socket(s) (%s)",
                      m->cpu.sockets, model, max, source);
    else if (m->cpu.sockets > max)
        /* TRANSLATORS: sockets counted, the CPU model, the most sockets it runs in, the source. */
        i18n_asprintf(&mem->sockets_disputed, "%d sockets counted, but the %s runs in at most %d socket(s) (%s)",
                      m->cpu.sockets, model, max, source);
    else
        /* TRANSLATORS: sockets the DIMM locators name, the CPU model, the most sockets it runs in, the source. */
        i18n_asprintf(&mem->sockets_disputed,
                      "the DIMM locators name %d sockets, but the %s runs in at most %d socket(s) (%s)",
                      from_locators, model, max, source);
}

static void map_channels(struct machine *m, const char *vendor, const char *product, const struct dmi_data *dmi)
{
    struct memory_info *mem = &m->memory;
    struct board_slot_map board;
    const struct board_slot_map *slot_map = board_slot_map_find(m, vendor, product, &board) ? &board : NULL;
    const char *scheme = NULL;
    bool all_channels = mem->ndimms > 0;
    for (int i = 0; i < mem->ndimms; i++) {
        struct dimm *d = &mem->dimms[i];
        const char *s = map_locator(d, vendor, slot_map, mem->platform.channels_per_socket, dmi);
        if (s && !scheme)
            scheme = s;
        all_channels = all_channels && d->channel >= 0;
    }
    if (!scheme && (scheme = map_letters_across_sockets(mem, dmi, m->cpu.sockets, vendor)))
        all_channels = true;
    for (int i = 0; i < mem->npersistent; i++)
        map_locator(&mem->persistent[i], vendor, slot_map, mem->platform.channels_per_socket, dmi);
    for (int i = 0; i < mem->nempty_slots; i++)
        map_locator(&mem->empty_slots[i], vendor, slot_map, mem->platform.channels_per_socket, dmi);
    int sockets = normalise_sockets(mem);
    /* One socket and locators that name none: every DIMM is on it. */
    if (sockets == 0 && m->cpu.sockets == 1) {
        for (int i = 0; i < mem->ndimms; i++)
            mem->dimms[i].socket = 0;
        for (int i = 0; i < mem->npersistent; i++)
            mem->persistent[i].socket = 0;
        for (int i = 0; i < mem->nempty_slots; i++)
            mem->empty_slots[i].socket = 0;
        sockets = 1;
    }
    mem->sockets = sockets > m->cpu.sockets ? sockets : m->cpu.sockets;
    dispute_sockets(m, sockets);
    number_channels(mem);
    mem->channels_from_locators = all_channels;
    mem->locator_scheme = scheme ? strdup(scheme) : NULL;
    board_slot_map_free(&board);
}

struct size_order {
    uint64_t size;
    int socket, rank, index;
};

static int by_socket_size_order(const void *a, const void *b)
{
    const struct size_order *x = a, *y = b;
    if (x->socket != y->socket)
        return x->socket < y->socket ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return x->index - y->index;
}

/* Every DIMM of the list has a known rank (SMBIOS type 17 "Rank", or EDAC's chip selects per label). */
static bool ranks_known(const struct dimm *d, int n)
{
    for (int i = 0; i < n; i++)
        if (d[i].rank <= 0)
            return false;
    return n > 0;
}

/* SMBIOS DIMMs whose locators name no channel, placed by the kernel's EDAC view of the same DIMMs:
 * the two lists must hold as many DIMMs, of the same sizes (per socket, where the locators name
 * sockets) and, where both sides give every DIMM's rank, the same ranks; they are paired in order
 * within each size and rank. Chip-select entries EDAC could not make into modules (default labels)
 * still pair when the counts and sizes agree: equal size lists have equal totals, so every DIMM is
 * listed, once. Identical DIMMs may be paired with the wrong twin, which changes no channel count.
 * Says in mem->edac_placement what was done, or why not: no guess is placed. */
static void place_from_edac(struct machine *m)
{
    struct memory_info *mem = &m->memory;
    if (mem->ndimms == 0 || mem->channels_from_locators || (mem->source && !strcmp(mem->source, "edac")))
        return;
    struct dimm *e = NULL;
    int ungrouped, ne = edac_read_dimms(m, &e, &ungrouped), placed = 0;
    for (int i = 0; i < ne; i++)
        placed += e[i].socket >= 0 && e[i].channel >= 0;
    bool by_socket = true;
    for (int i = 0; i < mem->ndimms; i++)
        by_socket = by_socket && mem->dimms[i].socket >= 0;
    bool by_rank = ranks_known(mem->dimms, mem->ndimms) && ranks_known(e, ne);
    struct size_order *a = calloc((size_t)mem->ndimms + 1, sizeof *a), *b = calloc((size_t)ne + 1, sizeof *b);
    bool same = a && b && ne == mem->ndimms && placed == ne, same_rank = true;
    for (int i = 0; same && i < ne; i++) {
        a[i] = (struct size_order){mem->dimms[i].size_bytes, by_socket ? mem->dimms[i].socket : 0,
                                   by_rank ? mem->dimms[i].rank : 0, i};
        b[i] = (struct size_order){e[i].size_bytes, by_socket ? e[i].socket : 0, by_rank ? e[i].rank : 0, i};
    }
    if (same) {
        qsort(a, (size_t)ne, sizeof *a, by_socket_size_order);
        qsort(b, (size_t)ne, sizeof *b, by_socket_size_order);
        for (int i = 0; same && i < ne; i++)
            same = a[i].size == b[i].size && a[i].socket == b[i].socket;
        for (int i = 0; same && i < ne; i++)
            same_rank = same_rank && a[i].rank == b[i].rank;
    }
    if (ne == 0) {
        /* no EDAC DIMMs: nothing to say */
    } else if (same && same_rank) {
        for (int i = 0; i < ne; i++) {
            mem->dimms[a[i].index].socket = e[b[i].index].socket;
            mem->dimms[a[i].index].channel = e[b[i].index].channel;
        }
        normalise_sockets(mem);
        number_channels(mem);
        mem->channels_from_locators = true;
        free(mem->locator_scheme);
        mem->locator_scheme = strdup(by_rank ? "EDAC dimm_label / dimm_location (SMBIOS DIMMs matched by size, rank "
                                               "and order)"
                                             : "EDAC dimm_label / dimm_location (SMBIOS DIMMs matched by size and order)");
        if (by_rank && by_socket)
            i18n_asprintf(&mem->edac_placement,
                          "%d SMBIOS DIMMs placed on the channels EDAC names (matched by size and rank per socket, "
                          "and order)",
                          ne);
        else if (by_rank)
            i18n_asprintf(&mem->edac_placement,
                          "%d SMBIOS DIMMs placed on the channels EDAC names (matched by size, rank and order)", ne);
        else if (by_socket)
            i18n_asprintf(&mem->edac_placement,
                          "%d SMBIOS DIMMs placed on the channels EDAC names (matched by size per socket and order; "
                          "ranks not compared: not known on both sides)",
                          ne);
        else
            i18n_asprintf(&mem->edac_placement,
                          "%d SMBIOS DIMMs placed on the channels EDAC names (matched by size and order; ranks not "
                          "compared: not known on both sides)",
                          ne);
    } else if (placed < ne) {
        i18n_asprintf(&mem->edac_placement, "EDAC names the channel of %d of its %d DIMMs: not used to place them",
                      placed, ne);
    } else if (ne != mem->ndimms && ungrouped > 0) {
        /* TRANSLATORS: EDAC's entries, those of them with no board label, SMBIOS's DIMMs. */
        i18n_asprintf(&mem->edac_placement,
                      "EDAC lists %d entries, %d of them chip selects under the kernel's default labels, "
                      "SMBIOS %d DIMMs: which chip selects share a DIMM is not known, not used",
                      ne, ungrouped, mem->ndimms);
    } else if (ne != mem->ndimms) {
        i18n_asprintf(&mem->edac_placement, "EDAC lists %d DIMMs, SMBIOS %d: they do not match, not used", ne,
                      mem->ndimms);
    } else if (!same) {
        mem->edac_placement = strdup(by_socket ? N_("the DIMM sizes EDAC lists per socket differ from SMBIOS's: they "
                                                    "do not match, not used")
                                               : N_("the DIMM sizes EDAC lists differ from SMBIOS's: they do not match, "
                                                    "not used")); /* translated where printed */
    } else {
        mem->edac_placement = strdup(N_("the DIMM ranks EDAC gives (chip selects under one label) differ from "
                                        "SMBIOS's Rank: they do not match, not used")); /* translated where printed */
    }
    free(a);
    free(b);
    for (int i = 0; i < ne; i++) {
        free(e[i].locator);
        free(e[i].bank_locator);
        free(e[i].type);
    }
    free(e);
}

static void take_module(struct dimm *d, const struct dmi_memdev *dev)
{
    d->smbios_handle = dev->handle;
    d->locator = dev->locator ? strdup(dev->locator) : NULL;
    d->bank_locator = dev->bank_locator ? strdup(dev->bank_locator) : NULL;
    d->type = dev->type ? strdup(dev->type) : NULL;
    d->size_bytes = dev->size_bytes;
    d->speed_mts = dev->speed_mts;
    d->configured_mts = dev->configured_mts;
    d->rank = dev->rank;
    d->total_width = dev->total_width;
    d->data_width = dev->data_width;
    d->socket = d->channel = -1;
    d->ce_count = d->ue_count = -1;
}

static void take_dimms(struct memory_info *mem, const struct dmi_data *dmi)
{
    mem->dimms = calloc((size_t)dmi->ndevices + 1, sizeof *mem->dimms);
    mem->persistent = calloc((size_t)dmi->ndevices + 1, sizeof *mem->persistent);
    mem->empty_slots = calloc((size_t)dmi->ndevices + 1, sizeof *mem->empty_slots);
    if (!mem->dimms || !mem->persistent || !mem->empty_slots)
        return;
    int slots = 0;
    uint64_t total = 0;
    for (int i = 0; i < dmi->ndevices; i++) {
        const struct dmi_memdev *dev = &dmi->devices[i];
        if (!is_system_memory(dmi, dev->array_handle) || is_firmware_store(dev->type))
            continue; /* Supermicro lists the BIOS ROM as a memory device of a Flash array */
        slots++;
        if (dev->size_bytes == 0) {
            take_module(&mem->empty_slots[mem->nempty_slots++], dev);
            continue;
        }
        if (is_persistent(dev)) {
            /* Optane/NVDIMM: the OS sees it as pmem (or as memory behind a DRAM cache), not as RAM. */
            take_module(&mem->persistent[mem->npersistent++], dev);
            mem->persistent_bytes += (int64_t)dev->size_bytes;
            continue;
        }
        take_module(&mem->dimms[mem->ndimms++], dev);
        total += dev->size_bytes;
    }
    mem->slots_total = slots;
    mem->installed_bytes = (int64_t)total;
    /* The arrays' own slot count; unknown when a system-memory array does not give one. */
    int declared = 0, arrays = 0;
    for (int i = 0; i < dmi->narrays && declared >= 0; i++) {
        const struct dmi_array *a = &dmi->arrays[i];
        if (a->use != DMI_USE_SYSTEM_MEMORY)
            continue;
        arrays++;
        declared = a->slots >= 0 ? declared + a->slots : -1;
    }
    mem->slots_declared = arrays > 0 ? declared : -1;
}

static void append_text(char **dst, const char *piece)
{
    char *s;
    if (asprintf(&s, "%s%s%s", *dst ? *dst : "", *dst ? "; " : "", piece) < 0)
        return;
    free(*dst);
    *dst = s;
}

static const char *ecc_name(int code)
{
    static const char *const names[] = {"unknown", "Other", "Unknown", "None", "Parity", "Single-bit ECC",
                                        "Multi-bit ECC", "CRC"};
    return code >= 0 && code < 8 ? names[code] : "unknown";
}

/* ECC from type 16 (the array's error correction) and, where no array says, the DIMMs' widths. */
static void judge_ecc(struct memory_info *mem, const struct dmi_data *dmi)
{
    int on = 0, off = 0;
    char piece[160];
    for (int i = 0; i < dmi->narrays; i++) {
        const struct dmi_array *a = &dmi->arrays[i];
        if (a->use != DMI_USE_SYSTEM_MEMORY)
            continue;
        if (a->ecc == DMI_ECC_SINGLE_BIT || a->ecc == DMI_ECC_MULTI_BIT || a->ecc == DMI_ECC_CRC)
            on++;
        else if (a->ecc == DMI_ECC_NONE || a->ecc == DMI_ECC_PARITY)
            off++;
        snprintf(piece, sizeof piece, "SMBIOS type 16 array 0x%04x: %s", a->handle, ecc_name(a->ecc));
        append_text(&mem->ecc_evidence, piece);
    }
    int wide = 0, narrow = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        const struct dimm *d = &mem->dimms[i];
        if (d->total_width > 0 && d->data_width > 0)
            d->total_width > d->data_width ? wide++ : narrow++;
    }
    if (wide + narrow) {
        snprintf(piece, sizeof piece, "%d DIMMs wider than their data (ECC bits), %d not", wide, narrow);
        append_text(&mem->ecc_evidence, piece);
    }
    if (on && !off)
        mem->ecc = ECC_ON;
    else if (off && !on)
        mem->ecc = ECC_OFF;
    else if (!on && !off && wide && !narrow)
        mem->ecc = ECC_ON;
    else if (!on && !off && narrow && !wide)
        mem->ecc = ECC_OFF;
}

static void take_power(struct power_info *p, const struct dmi_data *dmi)
{
    p->known = true;
    p->supplies = calloc((size_t)dmi->npsus + 1, sizeof *p->supplies);
    if (!p->supplies)
        return;
    for (int i = 0; i < dmi->npsus; i++) {
        struct power_supply *s = &p->supplies[p->nsupplies++];
        s->name = dmi->psus[i].name ? strdup(dmi->psus[i].name) : NULL;
        s->max_watts = dmi->psus[i].max_watts;
        s->present = dmi->psus[i].present;
        s->status = dmi->psus[i].status ? strdup(dmi->psus[i].status) : NULL;
    }
}

/* More cores than any machine has (a sum of forged counts): left unknown. */
#define CPU_MAX_CORES (1 << 20)

/* Processors from type 4 where the system was not read (evidence-only audits). */
static void take_processors(struct cpu_info *c, const struct dmi_data *dmi)
{
    /* Summed wide: a binary table may list many processors of 65,535 cores each; a total past
     * CPU_MAX_CORES is no machine's and stays unknown, never a wrapped count. */
    long long sockets = 0, cores = 0, threads = 0;
    const struct dmi_processor *first = NULL;
    for (int i = 0; i < dmi->ncpus; i++) {
        const struct dmi_processor *p = &dmi->cpus[i];
        if (!p->populated)
            continue;
        first = first ? first : p;
        sockets++;
        cores += p->cores;
        threads += p->threads;
    }
    if (!first)
        return;
    if (sockets > CPU_MAX_CORES || cores > CPU_MAX_CORES || threads > CPU_MAX_CORES)
        sockets = cores = threads = 0;
    if (!c->model && first->version)
        c->model = strdup(first->version);
    if (!c->vendor && first->manufacturer)
        c->vendor = strdup(first->manufacturer);
    if (c->family < 0) {
        c->family = first->cpuid_family;
        c->model_number = first->cpuid_model;
    }
    if (!c->sockets)
        c->sockets = (int)sockets;
    if (!c->cores)
        c->cores = (int)cores;
    if (!c->threads)
        c->threads = (int)threads;
    if (c->max_mhz <= 0 && first->max_mhz > 0)
        c->max_mhz = first->max_mhz;
}

/* An evidence file of a VM says so in its system strings (QEMU's table claims ECC). */
static void take_system(struct virt_info *v, const struct dmi_data *dmi)
{
    if (v->known)
        return;
    const char *hv = virt_hypervisor_named_by(dmi->system_vendor);
    if (!hv)
        hv = virt_hypervisor_named_by(dmi->system_product);
    v->known = true;
    v->vm = hv != NULL;
    v->hypervisor = hv ? strdup(hv) : NULL;
    /* TRANSLATORS: the vendor (or "unknown") and product the SMBIOS table names for the system. */
    i18n_asprintf(&v->evidence, "SMBIOS system: %s %s", dmi->system_vendor ? dmi->system_vendor : _("unknown"),
                  dmi->system_product ? dmi->system_product : "");
}

static void take_slots(struct memory_info *mem, const struct dmi_data *dmi)
{
    if (dmi->nslots == 0)
        return;
    mem->pcie_slots_total = dmi->nslots;
    mem->pcie_slots_free = 0;
    for (int i = 0; i < dmi->nslots; i++)
        mem->pcie_slots_free += dmi->slots[i].in_use == 0;
}

/* CPU package power limits (RAPL PL1, about the TDP) from powercap; world-readable. */
static void read_rapl(struct power_info *p)
{
    char **names;
    int n = fs_list("/sys/class/powercap", &names);
    double watts = 0;
    int packages = 0;
    for (int i = 0; i < n; i++) {
        /* intel-rapl:0, intel-rapl:1 are packages; intel-rapl:0:0 are their sub-zones. */
        if (strncmp(names[i], "intel-rapl:", 11) || strchr(names[i] + 11, ':'))
            continue;
        char path[256];
        long uw;
        snprintf(path, sizeof path, "/sys/class/powercap/%s/constraint_0_power_limit_uw", names[i]);
        if (fs_read_long(path, &uw) && uw > 0) {
            watts += uw / 1e6;
            packages++;
        }
    }
    fs_list_free(names, n > 0 ? n : 0);
    if (packages) {
        p->cpu_tdp_watts = watts;
        if (asprintf(&p->cpu_tdp_source, "RAPL package power limit (PL1) of %d package%s", packages,
                     packages == 1 ? "" : "s") < 0)
            p->cpu_tdp_source = NULL;
    }
}

void probe_memory(struct machine *m, const struct dmi_data *evidence)
{
    /* An evidence file alone describes another machine: nothing of this one is read. */
    bool read_system = !(m->source && !strcmp(m->source, "evidence"));
    memory_info_free(&m->memory);
    power_info_free(&m->power);
    struct memory_info *mem = &m->memory;
    struct dmi_data local = {0};
    const struct dmi_data *dmi = evidence;
    char *error = NULL;
    if (!dmi) {
        if (smbios_load_sysfs(&local, &error) == 0) {
            dmi = &local;
        } else {
            mem->unknown_reason = error;
            m->power.unknown_reason = error ? strdup(error) : NULL;
        }
    }
    if (dmi && dmi->repeated_structures > 0)
        machine_problem(m, dmi->source ? dmi->source : "SMBIOS",
                        "%d structures repeat a handle listed before (the table is in the file twice?): each "
                        "handle was read once", dmi->repeated_structures);
    if (dmi) {
        take_processors(&m->cpu, dmi);
        take_system(&m->virt, dmi);
        mem->source = dmi->source ? strdup(dmi->source) : strdup("SMBIOS");
        take_dimms(mem, dmi);
        judge_ecc(mem, dmi);
        take_slots(mem, dmi);
        take_power(&m->power, dmi);
    }
    probe_cpu_platform(m);
    if (read_system) {
        probe_edac(m);
        char *meminfo = fs_read("/proc/meminfo");
        uint64_t total;
        if (meminfo && parse_meminfo_bytes(meminfo, "MemTotal", &total))
            mem->usable_bytes = (int64_t)total;
        free(meminfo);
        read_rapl(&m->power);
    }
    /* Raw type-17 entries come without type 1; the kernel's dmi/id names the vendor. */
    char *vendor = dmi && dmi->system_vendor ? strdup(dmi->system_vendor)
                   : read_system             ? fs_read("/sys/class/dmi/id/sys_vendor")
                                             : NULL;
    char *product = dmi && dmi->system_product ? strdup(dmi->system_product)
                    : read_system              ? fs_read("/sys/class/dmi/id/product_name")
                                               : NULL;
    if (product)
        product[strcspn(product, "\n")] = '\0';
    map_channels(m, vendor, product, dmi);
    if (read_system)
        place_from_edac(m);
    free(vendor);
    free(product);
    if (!dmi && mem->ndimms == 0 && !mem->unknown_reason)
        mem->unknown_reason = strdup(N_("no SMBIOS table and no EDAC DIMMs")); /* translated where printed */
    dmi_data_free(&local);
}
