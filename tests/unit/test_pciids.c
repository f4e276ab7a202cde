/* util/pciids: one pass over a mapped pci.ids that names every wanted device and stops once the
 * vendors they belong to are passed (the rest of the 1.3 MB file is never read). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/pciids.h"

static char dir[64], path[128];

/* A small database in pci.ids' layout, then `tail` (lines after the vendors). */
static void write_db(const char *tail)
{
    snprintf(dir, sizeof dir, "/tmp/gpuvet-pciids-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/pci.ids", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("# comment\n"
          "1000  Broadcom / LSI\n"
          "\t0014  MegaRAID Tri-Mode SAS3516\n"
          "10de  NVIDIA Corporation\r\n"
          "\t2330  GH100 [H100 SXM5 80GB]\r\n"
          "\t\t10de 16c1  H100 SXM5 80GB\n"
          "15b3  Mellanox Technologies\n"
          "\t101b  MT28908 Family [ConnectX-6]\n",
          f);
    fputs(tail, f);
    fclose(f);
    setenv("GPUVET_PCI_IDS", path, 1);
}

static void done(struct pciids_name *n, int count)
{
    for (int i = 0; i < count; i++) {
        free(n[i].vendor_name);
        free(n[i].device_name);
    }
    unsetenv("GPUVET_PCI_IDS");
    tree_remove(dir);
}

Test(pciids, names_every_wanted_device_in_any_order)
{
    write_db("C 00  Unclassified device\n");
    struct pciids_name n[] = {{.vendor_id = 0x15b3, .device_id = 0x101b},
                              {.vendor_id = 0x10de, .device_id = 0x2330},
                              {.vendor_id = 0x10de, .device_id = 0x16c1}, /* a subsystem id, not a device */
                              {.vendor_id = 0x1000, .device_id = 0xffff}, /* not listed */
                              {.vendor_id = 0x8086, .device_id = 0x1234}}; /* vendor not listed */
    char err[256] = "";
    cr_assert_eq(pciids_lookup(n, 5, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(n[0].vendor_name, "Mellanox Technologies");
    cr_expect_str_eq(n[0].device_name, "MT28908 Family [ConnectX-6]");
    cr_expect_str_eq(n[1].vendor_name, "NVIDIA Corporation");
    cr_expect_str_eq(n[1].device_name, "GH100 [H100 SXM5 80GB]", "the \\r of a CRLF line is not in the name");
    cr_expect_null(n[2].device_name);
    cr_expect_str_eq(n[3].vendor_name, "Broadcom / LSI");
    cr_expect_null(n[3].device_name);
    cr_expect_null(n[4].vendor_name);
    done(n, 5);
}

/* Once every wanted vendor's block is passed nothing more is read: the over-long line after it is
 * never reached. A device of a vendor further on still reads up to it and is refused there. */
Test(pciids, stops_after_the_last_wanted_vendor)
{
    char *tail = malloc(5200);
    strcpy(tail, "8086  Intel Corporation\n#");
    size_t at = strlen(tail);
    memset(tail + at, 'y', 5000);
    strcpy(tail + at + 5000, "\n9005  Adaptec\n");
    write_db(tail);
    free(tail);
    struct pciids_name n[] = {{.vendor_id = 0x10de, .device_id = 0x2330}};
    char err[256] = "";
    cr_expect_eq(pciids_lookup(n, 1, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(n[0].device_name, "GH100 [H100 SXM5 80GB]");
    free(n[0].vendor_name);
    free(n[0].device_name);
    struct pciids_name later[] = {{.vendor_id = 0x10de, .device_id = 0x2330}, {.vendor_id = 0x9005, .device_id = 1}};
    char want[256];
    snprintf(want, sizeof want, "%s:10: line longer than 4096 bytes", path);
    cr_expect_eq(pciids_lookup(later, 2, err, sizeof err), -1);
    cr_expect_str_eq(err, want);
    cr_expect_str_eq(later[0].vendor_name, "NVIDIA Corporation", "names read before the bad line are kept");
    cr_expect_null(later[1].vendor_name);
    done(later, 2);
}

Test(pciids, missing_or_empty_database_names_nothing)
{
    setenv("GPUVET_PCI_IDS", "/nonexistent/pci.ids", 1);
    struct pciids_name n[] = {{.vendor_id = 0x10de, .device_id = 0x2330}};
    char err[256] = "";
    cr_expect_eq(pciids_lookup(n, 1, err, sizeof err), 0);
    cr_expect_null(n[0].vendor_name);
    write_db("");
    FILE *f = fopen(path, "w"); /* emptied */
    fclose(f);
    cr_expect_eq(pciids_lookup(n, 1, err, sizeof err), 0);
    cr_expect_null(n[0].vendor_name);
    done(n, 1);
}
