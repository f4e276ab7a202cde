#include "dmitable.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void append(uint8_t **buf, size_t *len, const void *data, size_t n)
{
    *buf = realloc(*buf, *len + n);
    cr_assert_not_null(*buf);
    memcpy(*buf + *len, data, n);
    *len += n;
}

uint8_t *dmi_table_from_raw_entries(size_t *len)
{
    uint8_t *table = NULL;
    *len = 0;
    /* type 16, length 0x17, handle 0x1000: location 3, use 3 (System Memory), ECC 6 (Multi-bit),
     * max capacity 0x80000000 (see extended), error handle 0xFFFE, 24 devices, extended 768 GiB */
    const uint8_t array[] = {16, 0x17, 0x00, 0x10, 0x03, 0x03, 0x06, 0x00, 0x00, 0x00, 0x80, 0xFE, 0xFF,
                             24, 0,    0,    0,    0,    0,    0,    0xC0, 0,    0,    0,    0};
    append(&table, len, array, sizeof array);
    for (int i = 0; i < 24; i++) {
        char path[512];
        snprintf(path, sizeof path, GPUVET_TEST_SOURCE "/fixtures/dmi-raw/17-%d/raw", i);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        uint8_t raw[4096];
        size_t n = fread(raw, 1, sizeof raw, f);
        fclose(f);
        cr_assert_gt(n, 0x06);
        raw[4] = 0x00; /* array handle -> the type 16 above */
        raw[5] = 0x10;
        append(&table, len, raw, n);
    }
    const uint8_t end[] = {127, 4, 0xFF, 0xFE, 0, 0};
    append(&table, len, end, sizeof end);
    return table;
}

const char *dmi_dump_file(const uint8_t *table, size_t len)
{
    static char path[] = "/tmp/gpuvet-dmi-dumpXXXXXX";
    strcpy(path, "/tmp/gpuvet-dmi-dumpXXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    uint8_t ep[32] = "_SM3_";
    ep[0x06] = 0x18; /* length */
    ep[0x07] = 3;    /* version 3.0 */
    ep[0x08] = 0;
    ep[0x0A] = 1;    /* entry point revision */
    for (int i = 0; i < 4; i++)
        ep[0x0C + i] = (uint8_t)(len >> (8 * i));
    ep[0x10] = 32;   /* table address, rewritten to the file offset as dmidecode does */
    uint8_t sum = 0;
    for (int i = 0; i < 0x18; i++)
        sum = (uint8_t)(sum + ep[i]);
    ep[0x05] = (uint8_t)(0x100 - sum);
    cr_assert_eq(write(fd, ep, sizeof ep), (ssize_t)sizeof ep);
    cr_assert_eq(write(fd, table, len), (ssize_t)len);
    close(fd);
    return path;
}
