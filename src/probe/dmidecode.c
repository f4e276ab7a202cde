/* `dmidecode` text output (what providers hand out): the same structures as the binary table,
 * read from "Handle 0x0031, DMI type 17, 40 bytes" blocks of "\tKey: Value" lines. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"
#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/linereader.h"

#define DMIDECODE_FILE_LIMIT (16u << 20)

/* dmidecode prints these where the table has no string (index 0) or a placeholder. */
static char *value_or_null(const char *v)
{
    if (!*v || !strcmp(v, "Not Specified") || !strcmp(v, "Unknown") || !strcmp(v, "Not Provided"))
        return NULL;
    return strdup(v);
}

static void set_string(char **field, const char *v)
{
    free(*field);
    *field = value_or_null(v);
}

/* "72 bits" -> 72; "Unknown" -> -1. */
static int leading_int(const char *v, int unknown)
{
    char *end;
    long n = strtol(v, &end, 10);
    return end == v || n < 0 || n > 1000000000L ? unknown : (int)n;
}

/* A count at the start of v; 0 for garbage or a negative one; INT_MAX for one past it, so that
 * dmidecode_load refuses it by name instead of taking it for unknown. */
static int leading_count(const char *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (end == v || n < 0)
        return 0;
    return errno == ERANGE || n > INT_MAX ? INT_MAX : (int)n;
}

/* Sets *error to the message (NULL without memory) and returns -1: a file refused by name. */
static int refused(char **error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refused(char **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(error, fmt, ap) < 0)
        *error = NULL;
    va_end(ap);
    return -1;
}

/* "16384 MB", "32 GB", "1 TB", "512 kB" -> bytes; "No Module Installed" and garbage -> 0. */
static uint64_t size_bytes(const char *v)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end != ' ')
        return 0;
    if (v[strspn(v, " ")] == '-')
        return DMI_SIZE_INVALID; /* strtoull would wrap it */
    /* Past 2^40 of any unit (or 16 TiB in all) a shift would wrap into a plausible size. */
    if (n > (1ull << 40) || (!strncmp(end + 1, "TB", 2) && n > 16) || (!strncmp(end + 1, "GB", 2) && n > (16u << 10)) ||
        (!strncmp(end + 1, "MB", 2) && n > (16u << 20)))
        return DMI_SIZE_INVALID;
    end++;
    if (!strncmp(end, "kB", 2) || !strncmp(end, "KB", 2))
        return n << 10;
    if (!strncmp(end, "MB", 2))
        return n << 20;
    if (!strncmp(end, "GB", 2))
        return n << 30;
    if (!strncmp(end, "TB", 2))
        return n << 40;
    return 0;
}

static int ecc_code(const char *v)
{
    static const char *const names[] = {"Other", "Unknown", "None", "Parity", "Single-bit ECC", "Multi-bit ECC", "CRC"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(v, names[i]))
            return (int)i + 1;
    return 0;
}

/* "54 06 05 00 FF FB EB BF": the first four bytes, little-endian. */
static uint32_t id_eax(const char *v)
{
    unsigned b[4];
    if (sscanf(v, "%x %x %x %x", &b[0], &b[1], &b[2], &b[3]) != 4)
        return 0;
    return (uint32_t)(b[0] & 0xFF) | (uint32_t)(b[1] & 0xFF) << 8 | (uint32_t)(b[2] & 0xFF) << 16 |
           (uint32_t)(b[3] & 0xFF) << 24;
}

static void *append(void *arr, int *count, size_t size)
{
    char *p = realloc(arr, (size_t)(*count + 1) * size);
    if (!p)
        return NULL;
    memset(p + (size_t)*count * size, 0, size);
    (*count)++;
    return p;
}

static void processor_field(struct dmi_processor *c, const char *key, const char *v)
{
    if (!strcmp(key, "Socket Designation"))
        set_string(&c->socket, v);
    else if (!strcmp(key, "Manufacturer"))
        set_string(&c->manufacturer, v);
    else if (!strcmp(key, "Version"))
        set_string(&c->version, v);
    else if (!strcmp(key, "ID"))
        c->cpuid_eax_text = id_eax(v);
    else if (!strcmp(key, "Max Speed"))
        c->max_mhz = leading_int(v, 0);
    else if (!strcmp(key, "Status"))
        c->populated = !strncmp(v, "Populated", 9);
    else if (!strcmp(key, "Core Count"))
        c->cores = leading_count(v);
    else if (!strcmp(key, "Thread Count"))
        c->threads = leading_count(v);
}

/* dmidecode's names for SMBIOS 3.2 memory technologies (Optane's changed between versions). */
static int technology_code(const char *v)
{
    if (!strcmp(v, "DRAM"))
        return DMI_TECH_DRAM;
    if (!strcmp(v, "NVDIMM-N"))
        return DMI_TECH_NVDIMM_N;
    if (!strcmp(v, "NVDIMM-F"))
        return DMI_TECH_NVDIMM_F;
    if (!strcmp(v, "NVDIMM-P"))
        return DMI_TECH_NVDIMM_P;
    if (strstr(v, "persistent memory"))
        return DMI_TECH_OPTANE;
    return 0;
}

static void memdev_field(struct dmi_memdev *m, const char *key, const char *v)
{
    if (!strcmp(key, "Array Handle"))
        m->array_handle = (unsigned)strtoul(v, NULL, 16);
    else if (!strcmp(key, "Total Width"))
        m->total_width = leading_int(v, -1);
    else if (!strcmp(key, "Data Width"))
        m->data_width = leading_int(v, -1);
    else if (!strcmp(key, "Size"))
        m->size_bytes = size_bytes(v);
    else if (!strcmp(key, "Locator"))
        set_string(&m->locator, v);
    else if (!strcmp(key, "Bank Locator"))
        set_string(&m->bank_locator, v);
    else if (!strcmp(key, "Type"))
        set_string(&m->type, v);
    else if (!strcmp(key, "Type Detail"))
        m->detail_non_volatile = strstr(v, "Non-Volatile") != NULL;
    else if (!strcmp(key, "Memory Technology"))
        m->technology = technology_code(v);
    else if (!strcmp(key, "Speed"))
        m->speed_mts = leading_int(v, 0);
    else if (!strcmp(key, "Configured Memory Speed") || !strcmp(key, "Configured Clock Speed"))
        m->configured_mts = leading_int(v, 0);
    else if (!strcmp(key, "Rank"))
        m->rank = leading_int(v, 0);
    else if (!strcmp(key, "Manufacturer"))
        set_string(&m->manufacturer, v);
    else if (!strcmp(key, "Part Number"))
        set_string(&m->part, v);
}

static void psu_field(struct dmi_psu *p, const char *key, const char *v)
{
    if (!strcmp(key, "Name") || (!strcmp(key, "Location") && !p->name))
        set_string(&p->name, v);
    else if (!strcmp(key, "Max Power Capacity"))
        p->max_watts = leading_count(v) > 0 ? leading_count(v) : -1; /* "0 W" means not given */
    else if (!strcmp(key, "Status")) {
        p->present = !strncmp(v, "Present", 7);
        const char *state = strchr(v, ',');
        state = state ? state + 1 : "";
        while (*state == ' ')
            state++;
        set_string(&p->status, state);
    }
}

/* One "\tKey: Value" line of the structure of `type` that was opened last. */
static void structure_field(struct dmi_data *d, int type, const char *key, const char *v)
{
    switch (type) {
    case 1:
        if (!strcmp(key, "Manufacturer"))
            set_string(&d->system_vendor, v);
        else if (!strcmp(key, "Product Name"))
            set_string(&d->system_product, v);
        break;
    case 4: processor_field(&d->cpus[d->ncpus - 1], key, v); break;
    case 9:
        if (!strcmp(key, "Designation"))
            set_string(&d->slots[d->nslots - 1].designation, v);
        else if (!strcmp(key, "Current Usage"))
            d->slots[d->nslots - 1].in_use = !strcmp(v, "In Use") ? 1 : !strcmp(v, "Available") ? 0 : -1;
        break;
    case 16: {
        struct dmi_array *a = &d->arrays[d->narrays - 1];
        if (!strcmp(key, "Use"))
            a->use = !strcmp(v, "System Memory") ? DMI_USE_SYSTEM_MEMORY : 1;
        else if (!strcmp(key, "Error Correction Type"))
            a->ecc = ecc_code(v);
        else if (!strcmp(key, "Number Of Devices"))
            a->slots = leading_int(v, -1);
        break;
    }
    case 17: memdev_field(&d->devices[d->ndevices - 1], key, v); break;
    case 39: psu_field(&d->psus[d->npsus - 1], key, v); break;
    default: break;
    }
}

/* Opens a structure of a type we keep; returns false when memory ran out. */
static bool open_structure(struct dmi_data *d, int type, unsigned handle)
{
    void *p = NULL;
    switch (type) {
    case 1: return true;
    case 4:
        if ((p = append(d->cpus, &d->ncpus, sizeof *d->cpus))) {
            d->cpus = p;
            d->cpus[d->ncpus - 1].cpuid_family = d->cpus[d->ncpus - 1].cpuid_model = -1;
        }
        break;
    case 9:
        if ((p = append(d->slots, &d->nslots, sizeof *d->slots))) {
            d->slots = p;
            d->slots[d->nslots - 1].in_use = -1;
        }
        break;
    case 16:
        if ((p = append(d->arrays, &d->narrays, sizeof *d->arrays))) {
            d->arrays = p;
            d->arrays[d->narrays - 1].handle = handle;
            d->arrays[d->narrays - 1].slots = -1;
        }
        break;
    case 17:
        if ((p = append(d->devices, &d->ndevices, sizeof *d->devices))) {
            d->devices = p;
            d->devices[d->ndevices - 1].handle = handle;
            d->devices[d->ndevices - 1].total_width = d->devices[d->ndevices - 1].data_width = -1;
        }
        break;
    case 39:
        if ((p = append(d->psus, &d->npsus, sizeof *d->psus))) {
            d->psus = p;
            d->psus[d->npsus - 1].max_watts = -1;
        }
        break;
    default: return true;
    }
    return p != NULL;
}

static void finish_processors(struct dmi_data *d)
{
    for (int i = 0; i < d->ncpus; i++) {
        struct dmi_processor *c = &d->cpus[i];
        if (c->manufacturer && dmi_manufacturer_is_x86(c->manufacturer))
            dmi_cpuid_signature(c->cpuid_eax_text, &c->cpuid_family, &c->cpuid_model);
    }
}

/* "\t\tCA 1C D3 00 ..." lines of an OEM structure's "Header and Data:" -> raw bytes. */
static void append_hex_bytes(const char *line, uint8_t *raw, size_t *len, size_t cap)
{
    unsigned b;
    int used;
    while (*len < cap && sscanf(line, " %2x%n", &b, &used) == 1) {
        raw[(*len)++] = (uint8_t)b;
        line += used;
    }
}

/* The OEM structures gpuvet reads from their raw bytes (type 202 of HPE). */
static void finish_oem(struct dmi_data *d, int type, const uint8_t *raw, size_t len)
{
    if (type == 202 && len > 0)
        dmi_add_hpe_dimm(d, raw, len);
}

/* dmidecode 2.7 and later write "Handle 0x0029, DMI type 17, 27 bytes" and the fields one tab in;
 * before 2.7, "Handle 0x0029" alone, "\tDMI type 17, 27 bytes." on the next line, the structure's
 * name one tab in and its fields two (dmidecode 2.6 in an LKML post of 2005, tests/fixtures/dmidecode).
 * A handle listed again (a report pasted twice into one file, linuxhw's ASUS TS100-E7-PI4) is the
 * same structure: read once, counted in d->repeated_structures. */
int dmidecode_parse(const char *text, struct dmi_data *d, char **error)
{
    int type = -1, structures = 0, depth = 1; /* depth: the tabs before a field of the open structure */
    /* Each line whole (a copy, cut at its fields' separators below): the text is in memory already. */
    char *line = NULL;
    size_t capacity = 0;
    uint8_t raw[256];
    size_t rawlen = 0;
    bool in_raw = false, handle_alone = false;
    unsigned alone = 0;
    uint8_t *seen = calloc(0x10000 / 8, 1); /* handles already opened */
    if (!seen) {
        *error = strdup("out of memory");
        return -1;
    }
    for (const char *p = text; text_line_next(&p, &line, &capacity);) {
        size_t l = strlen(line);
        while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        unsigned handle, t;
        int major, minor, used = 0;
        bool opens = false;
        if (sscanf(line, "Handle 0x%x, DMI type %u,", &handle, &t) == 2) {
            opens = true;
            depth = 1;
        } else if (sscanf(line, "Handle 0x%x%n", &handle, &used) == 1 && line[used] == '\0') {
            finish_oem(d, type, raw, rawlen);
            rawlen = 0;
            in_raw = false;
            type = -1;
            handle_alone = true;
            alone = handle;
            continue;
        } else if (handle_alone && sscanf(line, "\tDMI type %u,", &t) == 1) {
            opens = true;
            handle = alone;
            depth = 2;
        }
        handle_alone = false;
        if (opens) {
            finish_oem(d, type, raw, rawlen);
            rawlen = 0;
            in_raw = false;
            structures++;
            handle &= 0xFFFF;
            if (seen[handle / 8] & (1u << (handle % 8))) {
                d->repeated_structures++;
                type = -1; /* its fields are the first copy's */
                continue;
            }
            seen[handle / 8] |= (uint8_t)(1u << (handle % 8));
            type = (int)t;
            if (!open_structure(d, type, handle)) {
                free(line);
                free(seen);
                *error = strdup("out of memory");
                return -1;
            }
        } else if (sscanf(line, "SMBIOS %d.%d", &major, &minor) == 2 && strstr(line, "present")) {
            d->version_major = major;
            d->version_minor = minor;
        } else if (in_raw && (int)strspn(line, "\t") == depth + 1) {
            append_hex_bytes(line + depth + 1, raw, &rawlen, sizeof raw);
        } else if (type >= 0 && (int)strspn(line, "\t") == depth) {
            in_raw = type == 202 && !strcmp(line + depth, "Header and Data:");
            char *colon = strstr(line, ": ");
            if (!colon) {
                colon = strchr(line, ':');
                if (!colon || colon[1] != '\0')
                    continue;
            }
            *colon = '\0';
            const char *value = colon[1] ? colon + 2 : "";
            structure_field(d, type, line + depth, value);
        } else if (line[0] == '\0') {
            finish_oem(d, type, raw, rawlen);
            rawlen = 0;
            in_raw = false;
            type = -1;
        }
    }
    free(seen);
    free(line);
    finish_oem(d, type, raw, rawlen);
    if (structures == 0) {
        *error = strdup("no \"Handle 0x..., DMI type N\" blocks: not dmidecode output");
        return -1;
    }
    for (int i = 0; i < d->ndevices; i++)
        if (d->devices[i].size_bytes == DMI_SIZE_INVALID) {
            if (asprintf(error, "memory device %s: its Size is negative or more than 16 TB, which no DIMM holds",
                         d->devices[i].locator ? d->devices[i].locator : "(no locator)") < 0)
                *error = NULL;
            return -1;
        }
    if (d->ndevices > DMI_MAX_MEMORY_DEVICES) {
        if (asprintf(error, "%d memory devices, more than the %d any server has: not read", d->ndevices,
                     DMI_MAX_MEMORY_DEVICES) < 0)
            *error = NULL;
        return -1;
    }
    /* A capacity past the WORD's 15 bits has bit 15 set, SMBIOS's "unknown": dmidecode prints the raw
     * 0xFFFF as "65535 W" (a Supermicro X9DRi report of the corpus does). Unknown, not a refusal of
     * the whole report, and never a wrapped "-1 W". */
    for (int i = 0; i < d->npsus; i++)
        if (d->psus[i].max_watts > DMI_MAX_PSU_WATTS)
            d->psus[i].max_watts = -1;
    if (d->ncpus > DMI_MAX_PROCESSORS)
        return refused(error, "%d processors, more than the %d any board has: not read", d->ncpus, DMI_MAX_PROCESSORS);
    for (int i = 0; i < d->ncpus; i++)
        if (d->cpus[i].cores > DMI_MAX_PROCESSOR_CORES || d->cpus[i].threads > DMI_MAX_PROCESSOR_CORES)
            return refused(error, "processor %s: its Core Count or Thread Count is more than the %d SMBIOS can state",
                           d->cpus[i].socket ? d->cpus[i].socket : "(no socket)", DMI_MAX_PROCESSOR_CORES);
    finish_processors(d);
    return 0;
}

int dmidecode_load(const char *path, struct dmi_data *d, char **error)
{
    FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
    char *msg = NULL;
    if (!f) {
        if (asprintf(error, "%s: %s", path, input_file_error(errno)) < 0)
            *error = NULL;
        return -1;
    }
    char *text = malloc(DMIDECODE_FILE_LIMIT + 1);
    size_t n = text ? fread(text, 1, DMIDECODE_FILE_LIMIT, f) : 0;
    fclose(f);
    if (!text) {
        *error = strdup("out of memory");
        return -1;
    }
    text[n] = '\0';
    if (memchr(text, '\0', n)) {
        msg = strdup("holds NUL bytes: a binary file (use --dmi-table for dmidecode --dump-bin files)");
    } else if (dmidecode_parse(text, d, &msg) == 0) {
        d->source = strdup(path);
    }
    free(text);
    if (msg) {
        if (asprintf(error, "%s: %s", path, msg) < 0)
            *error = NULL;
        free(msg);
        return -1;
    }
    return 0;
}
