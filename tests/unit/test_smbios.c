/* The SMBIOS binary parser on real raw entries, and on every way a table can be cut or broken. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dmitable.h"
#include "probe/dmi.h"

Test(smbios, decodes_the_dell_raw_entries)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    struct dmi_data d = {0};
    const char *err = NULL;
    cr_assert_eq(smbios_decode_table(table, len, &d, &err), 26); /* array + 24 devices + end */
    cr_assert_eq(d.narrays, 1);
    cr_assert_eq(d.arrays[0].use, DMI_USE_SYSTEM_MEMORY);
    cr_assert_eq(d.arrays[0].ecc, DMI_ECC_MULTI_BIT);
    cr_assert_eq(d.ndevices, 24);
    int populated = 0;
    for (int i = 0; i < d.ndevices; i++) {
        const struct dmi_memdev *m = &d.devices[i];
        cr_assert_eq(m->array_handle, 0x1000);
        cr_assert_not_null(m->locator);
        cr_assert(!strncmp(m->locator, "DIMM_", 5), "%s", m->locator);
        if (m->size_bytes == 0) {
            cr_assert_null(m->manufacturer, "empty slot strings are blanks: %s", m->manufacturer);
            continue;
        }
        populated++;
        cr_assert_eq(m->size_bytes, 4096ull << 20);
        cr_assert_str_eq(m->type, "DDR3");
        cr_assert_eq(m->speed_mts, 1600);
        cr_assert_eq(m->configured_mts, 1600);
        cr_assert_eq(m->rank, 2);
        cr_assert_eq(m->total_width, 72);
        cr_assert_eq(m->data_width, 64);
    }
    cr_assert_eq(populated, 8);
    dmi_data_free(&d);
    free(table);
}

/* Every prefix of the table: no read past the end, never more devices than the whole has. */
Test(smbios, truncated_tables_decode_what_is_complete)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    int last = 0;
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
        memcpy(copy, table, cut);
        struct dmi_data d = {0};
        const char *err = NULL;
        int n = smbios_decode_table(copy, cut, &d, &err);
        if (n < 0)
            cr_assert_not_null(err);
        cr_assert_leq(d.ndevices, 24);
        cr_assert_geq(d.ndevices, last, "a longer prefix never loses devices");
        last = d.ndevices;
        dmi_data_free(&d);
        free(copy);
    }
    cr_assert_eq(last, 24);
    free(table);
}

Test(smbios, a_structure_shorter_than_its_header_stops_the_walk)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    size_t second = 25; /* the type-16 array is 23 bytes + 2 NULs; the first device follows */
    cr_assert_eq(table[second], 17);
    table[second + 1] = 2;
    struct dmi_data d = {0};
    const char *err = NULL;
    cr_assert_eq(smbios_decode_table(table, len, &d, &err), 1);
    cr_assert_eq(d.ndevices, 0);
    dmi_data_free(&d);
    free(table);
}

Test(smbios, string_indexes_past_the_strings_give_null)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    table[25 + 0x10] = 200; /* locator string #200 of the first device */
    table[25 + 0x11] = 0;   /* bank locator: none */
    struct dmi_data d = {0};
    const char *err = NULL;
    cr_assert_gt(smbios_decode_table(table, len, &d, &err), 0);
    cr_assert_null(d.devices[0].locator);
    cr_assert_null(d.devices[0].bank_locator);
    dmi_data_free(&d);
    free(table);
}

/* Corrupted bytes anywhere (a fixed seed, so a failure reproduces): never a crash. */
Test(smbios, corrupted_tables_never_crash)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    srand(3);
    for (int round = 0; round < 2000; round++) {
        uint8_t *copy = malloc(len);
        memcpy(copy, table, len);
        for (int k = 0; k < 1 + round % 8; k++)
            copy[(size_t)rand() % len] = (uint8_t)rand();
        struct dmi_data d = {0};
        const char *err = NULL;
        smbios_decode_table(copy, len, &d, &err);
        cr_assert_leq(d.ndevices, (int)len / 4);
        dmi_data_free(&d);
        free(copy);
    }
    free(table);
}

Test(smbios, entry_points_2_and_3)
{
    uint8_t ep2[0x1F] = "_SM_";
    ep2[0x05] = 0x1F;
    ep2[0x06] = 2;
    ep2[0x07] = 8;
    memcpy(ep2 + 0x10, "_DMI_", 5);
    ep2[0x16] = 0x34;
    ep2[0x17] = 0x12;
    ep2[0x18] = 0x00;
    ep2[0x1B] = 0x7F;
    uint8_t sum = 0;
    for (int i = 0; i < 0x1F; i++)
        sum = (uint8_t)(sum + ep2[i]);
    ep2[0x04] = (uint8_t)(0x100 - sum);
    int major, minor;
    uint64_t addr;
    uint32_t tlen;
    const char *err = NULL;
    cr_assert_eq(smbios_parse_entry_point(ep2, sizeof ep2, &major, &minor, &addr, &tlen, &err), 0, "%s", err);
    cr_assert_eq(major, 2);
    cr_assert_eq(minor, 8);
    cr_assert_eq(tlen, 0x1234);
    cr_assert_eq(addr, 0x7F000000u);
    ep2[0x07] ^= 1; /* checksum no longer adds up */
    cr_assert_eq(smbios_parse_entry_point(ep2, sizeof ep2, &major, &minor, &addr, &tlen, &err), -1);
    cr_assert(strstr(err, "checksum"));
    cr_assert_eq(smbios_parse_entry_point((const uint8_t *)"_SM3_", 5, &major, &minor, &addr, &tlen, &err), -1);
    cr_assert_eq(smbios_parse_entry_point((const uint8_t *)"garbage garbage garbage garbage", 31, &major, &minor,
                                          &addr, &tlen, &err), -1);
}

Test(smbios, dump_file_round_trip)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    const char *path = dmi_dump_file(table, len);
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(smbios_load_dump(path, &d, &err), 0, "%s", err);
    cr_assert_eq(d.version_major, 3);
    cr_assert_eq(d.ndevices, 24);
    dmi_data_free(&d);
    unlink(path);
    free(table);
}

Test(smbios, a_text_file_is_not_a_dump)
{
    struct dmi_data d = {0};
    char *err = NULL;
    const char *path = GPUVET_TEST_SOURCE "/fixtures/dmidecode/qemu-standard-pc-vm.dmidecode.txt";
    cr_assert_eq(smbios_load_dump(path, &d, &err), -1);
    cr_assert(strstr(err, path) && strstr(err, "entry point"), "%s", err);
    free(err);
    dmi_data_free(&d);
}

/* HPE's DIMM location record (OEM type 202) as the DL360 Gen10 report in fixtures/dmidecode
 * prints it for PROC 1 DIMM 7 (type 17 handle 0x0021): processor 1, controller 1, channel 1. */
Test(smbios, hpe_dimm_location_record)
{
    static const uint8_t table[] = {
        0xCA, 0x1C, 0xD9, 0x00, 0x21, 0x00, 0xFF, 0x07, 0x01, 0x07, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01,
        0x41, 0x00, 0xAD, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 'P', '0', '3', '0', '5', '2',
        '-', '0', '9', '1', 0x00, 0x00,
        127, 4, 0xFF, 0xFF, 0x00, 0x00,
    };
    struct dmi_data d = {0};
    const char *err = NULL;
    cr_assert_eq(smbios_decode_table(table, sizeof table, &d, &err), 2);
    cr_assert_eq(d.nhpe_dimms, 1);
    cr_assert_eq(d.hpe_dimms[0].device_handle, 0x0021);
    cr_assert_eq(d.hpe_dimms[0].processor, 1);
    cr_assert_eq(d.hpe_dimms[0].controller, 1);
    cr_assert_eq(d.hpe_dimms[0].channel, 1);
    dmi_data_free(&d);
    /* A Gen9 record (13 bytes, ProLiant DL180 Gen9 in linuxhw/DMI) ends before the controller and channel. */
    static const uint8_t gen9[] = {0xCA, 0x0D, 0x99, 0x00, 0x09, 0x00, 0xFF, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 127, 4, 0xFF, 0xFF, 0x00, 0x00};
    cr_assert_eq(smbios_decode_table(gen9, sizeof gen9, &d, &err), 2);
    cr_assert_eq(d.nhpe_dimms, 1);
    cr_assert_eq(d.hpe_dimms[0].processor, 1);
    cr_assert_eq(d.hpe_dimms[0].channel, 0, "no channel in a Gen9 record");
    dmi_data_free(&d);
}
