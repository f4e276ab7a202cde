/* The board slot map table (data/board-slot-maps.csv): on server models whose DIMM locators name the
 * processor and a slot number but no channel, the vendor's manual says which channel each slot is
 * wired to. Matched on SMBIOS type 1 vendor and product; one row per model family, a source each. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/datadir.h"
#include "util/i18n.h"

#define SLOT_MAP_FILE "board-slot-maps.csv"
#define SLOT_MAP_FIELDS 8
#define SLOT_MAP_MAX_SLOTS 64

enum slot_map_field { S_NAME, S_VENDOR, S_PRODUCT, S_SCHEME, S_CHANNELS, S_SLOTS, S_DOCUMENT, S_SOURCE };

static bool matches(const char *regex, const char *text)
{
    regex_t re;
    if (!text || regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0)
        return false;
    bool ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* Reads the ';'-separated channel names into map->slot_channel as indexes 0..channels-1 (first
 * appearance order). NULL when the row is usable, else what is wrong with it. */
static const char *read_slots(struct board_slot_map *map, char *list, int channels)
{
    char *names[SLOT_MAP_MAX_SLOTS];
    int nnames = 0;
    char *save = NULL;
    for (char *t = strtok_r(list, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        if (map->nslots == SLOT_MAP_MAX_SLOTS)
            return N_("more slots than the table allows");
        int k = 0;
        while (k < nnames && strcmp(names[k], t))
            k++;
        if (k == nnames)
            names[nnames++] = t;
        map->slot_channel[map->nslots++] = k;
    }
    if (map->nslots == 0)
        return N_("no slots");
    if (nnames != channels)
        return N_("slot_channels must name as many channels as the channels field");
    return NULL;
}

/* The table's scheme names, in enum board_slot_layout order, with the locator each names in the audit. */
static const struct {
    const char *name, *example;
} layouts[] = {{"proc-dimm", "PROC 1 DIMM 3"}, {"dimm-cpu", "DIMM 3 + CPU 1"}, {"dimm", "DIMM03"}};

static int layout_of(const char *name)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (!strcmp(name, layouts[i].name))
            return (int)i;
    return -1;
}

/* NULL for a usable row (then in *map), else what is wrong with it (an N_() text). */
static const char *row_problem(char **f, struct board_slot_map *map)
{
    if (layout_of(f[S_SCHEME]) < 0)
        return N_("scheme must be proc-dimm, dimm-cpu or dimm");
    int channels = atoi(f[S_CHANNELS]);
    if (channels <= 0)
        return N_("no channel count");
    regex_t re;
    for (int i = S_VENDOR; i <= S_PRODUCT; i++) {
        if (!*f[i] || regcomp(&re, f[i], REG_EXTENDED | REG_NOSUB) != 0)
            return N_("vendor_regex and product_regex must be regular expressions");
        regfree(&re);
    }
    if (!*f[S_DOCUMENT] || !*f[S_SOURCE])
        return N_("no document or source");
    memset(map, 0, sizeof *map);
    map->channels = channels;
    return read_slots(map, f[S_SLOTS], channels);
}

int board_slot_table_check(FILE *f, const char *label, char *err, size_t errlen)
{
    struct line_reader r;
    line_reader_init(&r, f, label, TEXT_LINE_MAX);
    char *fields[SLOT_MAP_FIELDS];
    int n, rc = 0;
    while (rc == 0 && (n = data_row_next(&r, fields, SLOT_MAP_FIELDS, err, errlen)) > 0) {
        struct board_slot_map row;
        rc = data_row_error(label, r.number, n, SLOT_MAP_FIELDS, n == SLOT_MAP_FIELDS ? row_problem(fields, &row) : NULL,
                            err, errlen);
    }
    line_reader_free(&r);
    fclose(f);
    return rc == 0 && n == 0 ? 0 : -1;
}

bool board_slot_map_find(struct machine *m, const char *vendor, const char *product, struct board_slot_map *out)
{
    memset(out, 0, sizeof *out);
    if (!vendor || !product)
        return false;
    char label[PATH_MAX];
    FILE *f = data_open(SLOT_MAP_FILE, label, sizeof label);
    if (!f) { /* only when a --data or GPUVET_DATA_DIR folder lacks it: gpuvet checks that at start */
        char *why = i18n_strerror(errno);
        if (why)
            machine_problem_reason(m, label, why);
        free(why);
        return false;
    }
    struct line_reader r;
    line_reader_init(&r, f, label, TEXT_LINE_MAX);
    char *fields[SLOT_MAP_FIELDS], err[PATH_MAX + 128];
    int nfields;
    bool found = false;
    /* The whole table is read, so a broken row is reported whatever the machine. */
    while ((nfields = data_row_next(&r, fields, SLOT_MAP_FIELDS, err, sizeof err)) > 0) {
        if (nfields != SLOT_MAP_FIELDS) {
            data_row_field_count_problem(m, label, r.number, nfields, SLOT_MAP_FIELDS);
            continue;
        }
        struct board_slot_map row;
        const char *problem = row_problem(fields, &row);
        if (problem) {
            machine_problem(m, label, "line %d: %s (see the header)", r.number, problem);
            continue;
        }
        if (found || !matches(fields[S_VENDOR], vendor) || !matches(fields[S_PRODUCT], product))
            continue;
        found = true;
        *out = row;
        out->layout = (enum board_slot_layout)layout_of(fields[S_SCHEME]);
        if (asprintf(&out->scheme, "%s (slot map: %s)", layouts[out->layout].example, fields[S_DOCUMENT]) < 0)
            out->scheme = NULL;
        out->source = strdup(fields[S_SOURCE]);
    }
    if (nfields < 0)
        machine_problem_reason(m, label, err);
    line_reader_free(&r);
    fclose(f);
    return found && out->scheme;
}

void board_slot_map_free(struct board_slot_map *map)
{
    free(map->scheme);
    free(map->source);
    memset(map, 0, sizeof *map);
}

/* The number after the prefix word ("PROC  1" -> 1; spaces as the BIOS pads them). -1 if none. */
static int number_after(const char *text, const char *regex)
{
    regex_t re;
    regmatch_t mt[2];
    if (!text || regcomp(&re, regex, REG_EXTENDED | REG_ICASE) != 0)
        return -1;
    bool ok = regexec(&re, text, 2, mt, 0) == 0;
    regfree(&re);
    return ok ? atoi(text + mt[1].rm_so) : -1;
}

bool board_slot_map_place(const struct board_slot_map *map, const char *locator, const char *bank_locator,
                          int *socket, int *channel)
{
    int proc = -1, slot = -1;
    switch (map->layout) {
    case SLOT_LAYOUT_PROC_DIMM:
        proc = number_after(locator, "^PROC +([0-9]+) +DIMM +[0-9]+[A-Z]? *$");
        slot = number_after(locator, "^PROC +[0-9]+ +DIMM +([0-9]+)[A-Z]? *$");
        break;
    case SLOT_LAYOUT_DIMM_CPU:
        proc = number_after(bank_locator, "^CPU ?([0-9]+) *$");
        slot = number_after(locator, "^DIMM ?([0-9]+) *$");
        if (proc >= 1)
            slot -= (proc - 1) * map->nslots;
        break;
    case SLOT_LAYOUT_DIMM:
        slot = number_after(locator, "^DIMM ?([0-9]+) *$");
        if (slot >= 1) {
            proc = (slot - 1) / map->nslots + 1;
            slot -= (proc - 1) * map->nslots;
        }
        break;
    }
    if (proc < 1 || slot < 1 || slot > map->nslots)
        return false;
    *socket = proc;
    *channel = map->slot_channel[slot - 1];
    return true;
}
