/* The binary SMBIOS table (DSP0134): entry points 2.x/3.x, the structure walk and the structures
 * gpuvet uses (types 1, 4, 9, 16, 17, 39). This is where hostile input arrives (a file handed over
 * by a provider, a corrupt firmware table): every offset and string index is checked against the
 * structure's length and the table's end, and anything cut short is skipped, never read past. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/inputfile.h"

#define SMBIOS_TABLE_LIMIT (1u << 20) /* SMBIOS 3 tables may reach 4 GiB in theory; real ones are <64 KiB */
#define DUMP_TABLE_OFFSET 32          /* dmidecode --dump-bin puts the table here */

struct structure {
    const uint8_t *p;      /* formatted area */
    size_t len;            /* its length (header byte 1) */
    const uint8_t *strings;
    size_t strings_len;    /* up to and excluding the terminating double NUL */
};

static unsigned byte_at(const struct structure *s, size_t off) { return off < s->len ? s->p[off] : 0; }
static unsigned word_at(const struct structure *s, size_t off)
{
    return off + 2 <= s->len ? (unsigned)s->p[off] | (unsigned)s->p[off + 1] << 8 : 0;
}
static uint32_t dword_at(const struct structure *s, size_t off)
{
    return off + 4 <= s->len ? (uint32_t)word_at(s, off) | (uint32_t)word_at(s, off + 2) << 16 : 0;
}

/* String number idx of the structure (1-based; 0 = none), trimmed; NULL when absent, out of
 * range, or only blanks (Dell fills empty slots' strings with spaces). */
static char *string_at(const struct structure *s, size_t off)
{
    unsigned idx = byte_at(s, off);
    if (idx == 0)
        return NULL;
    const uint8_t *p = s->strings, *end = s->strings + s->strings_len;
    for (unsigned i = 1; i < idx && p < end; i++) {
        const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
        if (!nul)
            return NULL;
        p = nul + 1;
    }
    if (p >= end)
        return NULL;
    const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
    size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);
    while (n > 0 && (p[0] == ' ' || p[0] == '\t')) {
        p++;
        n--;
    }
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n == 0)
        return NULL;
    char *out = strndup((const char *)p, n);
    for (char *c = out; c && *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
            *c = '?'; /* control bytes would break reports */
    return out;
}

static const char *memory_type_name(unsigned code)
{
    static const char *const names[] = {
        [0x01] = "Other", [0x02] = "Unknown", [0x03] = "DRAM", [0x04] = "EDRAM", [0x05] = "VRAM",
        [0x06] = "SRAM", [0x07] = "RAM", [0x08] = "ROM", [0x09] = "Flash", [0x0A] = "EEPROM",
        [0x0B] = "FEPROM", [0x0C] = "EPROM", [0x0D] = "CDRAM", [0x0E] = "3DRAM", [0x0F] = "SDRAM",
        [0x10] = "SGRAM", [0x11] = "RDRAM", [0x12] = "DDR", [0x13] = "DDR2", [0x14] = "DDR2 FB-DIMM",
        [0x18] = "DDR3", [0x19] = "FBD2", [0x1A] = "DDR4", [0x1B] = "LPDDR", [0x1C] = "LPDDR2",
        [0x1D] = "LPDDR3", [0x1E] = "LPDDR4", [0x1F] = "Logical non-volatile device", [0x20] = "HBM",
        [0x21] = "HBM2", [0x22] = "DDR5", [0x23] = "LPDDR5", [0x24] = "HBM3",
    };
    return code < sizeof names / sizeof names[0] && names[code] ? names[code] : NULL;
}

#define GROW(arr, count)                                                                           \
    ((arr) = grow((arr), (size_t)(count) + 1, sizeof *(arr)), (arr) ? &(arr)[(count)++] : NULL)

static void *grow(void *arr, size_t n, size_t size)
{
    void *p = realloc(arr, n * size);
    if (!p) {
        free(arr);
        return NULL;
    }
    memset((char *)p + (n - 1) * size, 0, size);
    return p;
}

static void decode_system(const struct structure *s, struct dmi_data *d)
{
    if (s->len < 0x08 || d->system_vendor || d->system_product)
        return; /* the first type 1 describes the system; a second one (corrupt table) is ignored */
    d->system_vendor = string_at(s, 0x04);
    d->system_product = string_at(s, 0x05);
}

bool dmi_manufacturer_is_x86(const char *manufacturer)
{
    return strstr(manufacturer, "Intel") || strstr(manufacturer, "AMD") || strstr(manufacturer, "Advanced Micro");
}

void dmi_cpuid_signature(uint32_t eax, int *family, int *model)
{
    if (!eax)
        return;
    unsigned f = (eax >> 8) & 0xF, m = (eax >> 4) & 0xF;
    if (f == 0xF)
        f += (eax >> 20) & 0xFF;
    if (f == 0x6 || f >= 0xF)
        m |= ((eax >> 16) & 0xF) << 4;
    *family = (int)f;
    *model = (int)m;
}

static void decode_processor(const struct structure *s, struct dmi_data *d)
{
    if (s->len < 0x1A)
        return;
    struct dmi_processor *c = GROW(d->cpus, d->ncpus);
    if (!c)
        return;
    c->socket = string_at(s, 0x04);
    c->manufacturer = string_at(s, 0x07);
    c->version = string_at(s, 0x10);
    c->max_mhz = (int)word_at(s, 0x14);
    c->populated = byte_at(s, 0x18) & 0x40;
    c->cpuid_family = c->cpuid_model = -1;
    /* On x86 the first four ID bytes are the CPUID leaf-1 EAX signature; ARM puts MIDR there. */
    bool x86 = c->manufacturer && dmi_manufacturer_is_x86(c->manufacturer);
    if (x86)
        dmi_cpuid_signature(dword_at(s, 0x08), &c->cpuid_family, &c->cpuid_model);
    if (s->len >= 0x26) {
        c->cores = (int)byte_at(s, 0x23);
        c->threads = (int)byte_at(s, 0x25);
    }
    if (s->len >= 0x30) { /* SMBIOS 3.0: 0xFF means "see the word fields" */
        if (c->cores == 0xFF)
            c->cores = (int)word_at(s, 0x2A);
        if (c->threads == 0xFF)
            c->threads = (int)word_at(s, 0x2E);
    }
}

static void decode_slot(const struct structure *s, struct dmi_data *d)
{
    if (s->len < 0x0C)
        return;
    struct dmi_slot *sl = GROW(d->slots, d->nslots);
    if (!sl)
        return;
    sl->designation = string_at(s, 0x04);
    unsigned usage = byte_at(s, 0x07);
    sl->in_use = usage == 0x04 ? 1 : usage == 0x03 ? 0 : -1;
}

static void decode_array(const struct structure *s, unsigned handle, struct dmi_data *d)
{
    if (s->len < 0x0F)
        return;
    struct dmi_array *a = GROW(d->arrays, d->narrays);
    if (!a)
        return;
    a->handle = handle;
    a->use = (int)byte_at(s, 0x05);
    a->ecc = (int)byte_at(s, 0x06);
    a->slots = (int)word_at(s, 0x0D);
}

static uint64_t memdev_size(const struct structure *s)
{
    unsigned size = word_at(s, 0x0C);
    if (size == 0 || size == 0xFFFF)
        return 0;
    if (size == 0x7FFF && s->len >= 0x20)
        return (uint64_t)(dword_at(s, 0x1C) & 0x7FFFFFFF) << 20;
    return size & 0x8000 ? (uint64_t)(size & 0x7FFF) << 10 : (uint64_t)size << 20;
}

static int memdev_speed(const struct structure *s, size_t off, size_t ext_off)
{
    unsigned v = word_at(s, off);
    if (v == 0xFFFF)
        return s->len >= ext_off + 4 ? (int)(dword_at(s, ext_off) & 0x7FFFFFFF) : 0;
    return (int)v;
}

static void decode_memdev(const struct structure *s, unsigned handle, struct dmi_data *d)
{
    if (s->len < 0x15)
        return;
    struct dmi_memdev *m = GROW(d->devices, d->ndevices);
    if (!m)
        return;
    m->handle = handle;
    m->array_handle = word_at(s, 0x04);
    unsigned tw = word_at(s, 0x08), dw = word_at(s, 0x0A);
    m->total_width = tw == 0xFFFF ? -1 : (int)tw;
    m->data_width = dw == 0xFFFF ? -1 : (int)dw;
    m->size_bytes = memdev_size(s);
    m->locator = string_at(s, 0x10);
    m->bank_locator = string_at(s, 0x11);
    const char *type = memory_type_name(byte_at(s, 0x12));
    m->type = type ? strdup(type) : NULL;
    m->detail_non_volatile = word_at(s, 0x13) & 0x1000; /* type detail bit 12 (DSP0134 7.18.3) */
    if (s->len >= 0x29) {
        unsigned tech = byte_at(s, 0x28); /* memory technology (DSP0134 7.18.6) */
        m->technology = tech >= DMI_TECH_DRAM && tech <= DMI_TECH_OPTANE ? (int)tech : 0;
    }
    if (s->len >= 0x17)
        m->speed_mts = memdev_speed(s, 0x15, 0x54);
    if (s->len >= 0x1B) {
        m->manufacturer = string_at(s, 0x17);
        m->part = string_at(s, 0x1A);
    }
    if (s->len >= 0x1C)
        m->rank = (int)(byte_at(s, 0x1B) & 0x0F);
    if (s->len >= 0x22)
        m->configured_mts = memdev_speed(s, 0x20, 0x58);
}

static void decode_psu(const struct structure *s, struct dmi_data *d)
{
    if (s->len < 0x10)
        return;
    struct dmi_psu *p = GROW(d->psus, d->npsus);
    if (!p)
        return;
    p->name = string_at(s, 0x06);
    if (!p->name)
        p->name = string_at(s, 0x05);
    unsigned watts = word_at(s, 0x0C);
    p->max_watts = watts >= 0x8000 || watts == 0 ? -1 : (int)watts; /* 0x8000 unknown; past it no value */
    unsigned ch = word_at(s, 0x0E);
    p->present = ch & 0x02;
    static const char *const status[] = {NULL, "Other", NULL, "OK", "Non-critical", "Critical"};
    unsigned code = (ch >> 7) & 0x07;
    p->status = code < 6 && status[code] ? strdup(status[code]) : NULL;
}

bool dmi_add_hpe_dimm(struct dmi_data *d, const uint8_t *p, size_t len)
{
    if (len < 0x09)
        return false;
    struct dmi_hpe_dimm *h = GROW(d->hpe_dimms, d->nhpe_dimms);
    if (!h)
        return false;
    h->device_handle = (unsigned)p[0x04] | (unsigned)p[0x05] << 8;
    h->processor = p[0x08] == 0xFF ? 0 : p[0x08];
    h->controller = len > 0x0D ? p[0x0D] : 0;
    h->channel = len > 0x0E ? p[0x0E] : 0;
    return true;
}

int smbios_decode_table(const uint8_t *table, size_t len, struct dmi_data *d, const char **error)
{
    int decoded = 0;
    size_t pos = 0;
    while (pos + 4 <= len) {
        struct structure s = {.p = table + pos, .len = table[pos + 1]};
        unsigned type = table[pos], handle = (unsigned)table[pos + 2] | (unsigned)table[pos + 3] << 8;
        if (s.len < 4 || s.len > len - pos)
            break; /* a structure shorter than its header or past the end: nothing after it can be trusted */
        /* The string set ends with two NULs; find them inside the table. */
        size_t spos = pos + s.len, end = spos;
        while (end + 1 < len && !(table[end] == 0 && table[end + 1] == 0))
            end++;
        if (end + 1 >= len)
            break;
        s.strings = table + spos;
        s.strings_len = end - spos;
        switch (type) {
        case 1: decode_system(&s, d); break;
        case 4: decode_processor(&s, d); break;
        case 9: decode_slot(&s, d); break;
        case 16: decode_array(&s, handle, d); break;
        case 17: decode_memdev(&s, handle, d); break;
        case 39: decode_psu(&s, d); break;
        case 202: dmi_add_hpe_dimm(d, s.p, s.len); break;
        default: break;
        }
        decoded++;
        pos = end + 2;
        if (type == 127)
            break;
    }
    if (decoded == 0) {
        *error = len == 0 ? "the table is empty" : "no complete SMBIOS structure in the table";
        return -1;
    }
    if (d->ndevices > DMI_MAX_MEMORY_DEVICES) {
        *error = "more than " DMI_XSTR(DMI_MAX_MEMORY_DEVICES) " memory devices (type 17): no server has that many";
        return -1;
    }
    return decoded;
}

static bool checksum_ok(const uint8_t *p, size_t n)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = (uint8_t)(sum + p[i]);
    return sum == 0;
}

int smbios_parse_entry_point(const uint8_t *ep, size_t len, int *major, int *minor, uint64_t *table_addr,
                             uint32_t *table_len, const char **error)
{
    if (len >= 0x18 && !memcmp(ep, "_SM3_", 5)) {
        size_t eplen = ep[0x06];
        if (eplen < 0x18 || eplen > len || !checksum_ok(ep, eplen)) {
            *error = "SMBIOS 3 entry point has a bad length or checksum";
            return -1;
        }
        *major = ep[0x07];
        *minor = ep[0x08];
        *table_len = (uint32_t)ep[0x0C] | (uint32_t)ep[0x0D] << 8 | (uint32_t)ep[0x0E] << 16 | (uint32_t)ep[0x0F] << 24;
        *table_addr = 0;
        for (int i = 7; i >= 0; i--)
            *table_addr = *table_addr << 8 | ep[0x10 + i];
        return 0;
    }
    if (len >= 0x1E && !memcmp(ep, "_SM_", 4)) {
        size_t eplen = ep[0x05];
        /* 0x1E is a length some firmware writes by mistake; dmidecode accepts it too. */
        if ((eplen != 0x1F && eplen != 0x1E) || eplen > len || !checksum_ok(ep, eplen) ||
            memcmp(ep + 0x10, "_DMI_", 5)) {
            *error = "SMBIOS 2 entry point has a bad length, checksum or _DMI_ anchor";
            return -1;
        }
        *major = ep[0x06];
        *minor = ep[0x07];
        *table_len = (uint32_t)ep[0x16] | (uint32_t)ep[0x17] << 8;
        *table_addr = (uint64_t)ep[0x18] | (uint64_t)ep[0x19] << 8 | (uint64_t)ep[0x1A] << 16 |
                      (uint64_t)ep[0x1B] << 24;
        return 0;
    }
    *error = "no SMBIOS entry point (_SM_ or _SM3_) at the start";
    return -1;
}

int smbios_load_dump(const char *path, struct dmi_data *d, char **error)
{
    FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
    if (!f) {
        if (asprintf(error, "%s: %s", path, input_file_error(errno)) < 0)
            *error = NULL;
        return -1;
    }
    uint8_t *buf = malloc(SMBIOS_TABLE_LIMIT);
    size_t n = buf ? fread(buf, 1, SMBIOS_TABLE_LIMIT, f) : 0;
    fclose(f);
    int major, minor;
    uint64_t addr;
    uint32_t tlen;
    const char *why = NULL;
    int rc = -1;
    if (buf && smbios_parse_entry_point(buf, n, &major, &minor, &addr, &tlen, &why) == 0) {
        /* dmidecode rewrites the address to the table's offset in the file (32). */
        if (addr < DUMP_TABLE_OFFSET || addr >= n) {
            why = "the entry point's table address is not inside the file (not a dmidecode --dump-bin file?)";
        } else {
            size_t avail = n - (size_t)addr, tl = tlen < avail ? tlen : avail;
            d->version_major = major;
            d->version_minor = minor;
            rc = smbios_decode_table(buf + addr, tl, d, &why) < 0 ? -1 : 0;
        }
    }
    free(buf);
    if (rc == 0)
        d->source = strdup(path);
    else if (asprintf(error, "%s: %s", path, why ? why : "out of memory") < 0)
        *error = NULL;
    return rc;
}

static int compare_entry_names(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b); /* 17-2 before 17-10 */
}

/* Concatenates /sys/firmware/dmi/entries/T-N/raw (each a structure with its strings) into a table. */
static uint8_t *load_entries(size_t *len)
{
    char **names;
    int n = fs_list("/sys/firmware/dmi/entries", &names);
    uint8_t *table = NULL;
    *len = 0;
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, compare_entry_names);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "/sys/firmware/dmi/entries/%s/raw", names[i]);
        size_t rlen;
        uint8_t *raw = fs_read_bin(path, 65536, &rlen);
        if (!raw)
            continue;
        uint8_t *grown = *len + rlen <= SMBIOS_TABLE_LIMIT ? realloc(table, *len + rlen) : NULL;
        if (grown) {
            table = grown;
            memcpy(table + *len, raw, rlen);
            *len += rlen;
        }
        free(raw);
    }
    fs_list_free(names, n > 0 ? n : 0);
    return table;
}

int smbios_load_sysfs(struct dmi_data *d, char **error)
{
    size_t eplen = 0, tlen = 0;
    const char *why = NULL;
    uint8_t *ep = fs_read_bin("/sys/firmware/dmi/tables/smbios_entry_point", 64, &eplen);
    int ep_errno = errno;
    uint8_t *table = ep ? fs_read_bin("/sys/firmware/dmi/tables/DMI", SMBIOS_TABLE_LIMIT, &tlen) : NULL;
    int rc = -1;
    if (ep && table) {
        int major, minor;
        uint64_t addr;
        uint32_t len;
        if (smbios_parse_entry_point(ep, eplen, &major, &minor, &addr, &len, &why) == 0) {
            d->version_major = major;
            d->version_minor = minor;
        }
        if (smbios_decode_table(table, tlen, d, &why) > 0) {
            d->source = strdup("/sys/firmware/dmi/tables/DMI");
            rc = 0;
        }
    } else {
        free(table);
        table = load_entries(&tlen);
        if (table && smbios_decode_table(table, tlen, d, &why) > 0) {
            d->source = strdup("/sys/firmware/dmi/entries");
            rc = 0;
        }
    }
    if (rc != 0) {
        const char *reason = why;
        if (!reason)
            reason = ep_errno == EACCES || ep_errno == EPERM
                         ? N_("readable by root only: run `sudo gpuvet audit`, or pass `sudo dmidecode` output with --dmidecode")
                     : fsroot_is_live()
                         ? N_("this system exposes no SMBIOS table (a VM or container without firmware tables)")
                         : N_("the recorded tree holds no SMBIOS table");
        if (asprintf(error, "%s", reason) < 0)
            *error = NULL;
    }
    free(ep);
    free(table);
    return rc;
}

void dmi_data_free(struct dmi_data *d)
{
    free(d->source);
    free(d->system_vendor);
    free(d->system_product);
    for (int i = 0; i < d->ncpus; i++) {
        free(d->cpus[i].socket);
        free(d->cpus[i].manufacturer);
        free(d->cpus[i].version);
    }
    free(d->cpus);
    free(d->arrays);
    for (int i = 0; i < d->ndevices; i++) {
        struct dmi_memdev *m = &d->devices[i];
        free(m->locator);
        free(m->bank_locator);
        free(m->type);
        free(m->manufacturer);
        free(m->part);
    }
    free(d->devices);
    for (int i = 0; i < d->nslots; i++)
        free(d->slots[i].designation);
    free(d->slots);
    for (int i = 0; i < d->npsus; i++) {
        free(d->psus[i].name);
        free(d->psus[i].status);
    }
    free(d->psus);
    free(d->hpe_dimms);
    memset(d, 0, sizeof *d);
}
