/* The dmidecode text parser on the corpus reports. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"

#define REPORT(name) GPUVET_TEST_SOURCE "/fixtures/dmidecode/" name ".dmidecode.txt"

Test(dmidecode, supermicro_processors_memory_and_supplies)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24"), &d, &err), 0, "%s", err);
    cr_assert_eq(d.narrays, 1);
    cr_assert_eq(d.arrays[0].use, DMI_USE_SYSTEM_MEMORY);
    cr_assert_eq(d.arrays[0].ecc, DMI_ECC_SINGLE_BIT);
    cr_assert_eq(d.arrays[0].slots, 24);
    int installed = 0;
    for (int i = 0; i < d.ndevices; i++)
        installed += d.devices[i].size_bytes > 0;
    cr_assert_eq(d.ncpus, 2);
    cr_assert_str_eq(d.cpus[0].version, "Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz");
    cr_assert_eq(d.cpus[0].cpuid_family, 6);
    cr_assert_eq(d.cpus[0].cpuid_model, 85);
    cr_assert_eq(d.cpus[0].cores, 10);
    cr_assert_eq(d.npsus, 4);
    cr_assert_eq(d.psus[0].max_watts, 2000);
    cr_assert_eq(installed, 4);
    dmi_data_free(&d);
}

Test(dmidecode, sizes_in_gb_and_mb_and_empty_slots)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("hpe-dl380-gen11-2p-xeon-ddr5-8of32"), &d, &err), 0, "%s", err);
    int installed = 0;
    for (int i = 0; i < d.ndevices; i++) {
        if (d.devices[i].size_bytes == 0)
            continue;
        installed++;
        cr_assert_eq(d.devices[i].size_bytes, 32ull << 30);
        cr_assert_str_eq(d.devices[i].type, "DDR5");
        cr_assert_eq(d.devices[i].total_width, 80);
        cr_assert_eq(d.devices[i].configured_mts, 5200);
        cr_assert_null(d.devices[i].bank_locator, "\"Not Specified\" is no bank locator");
    }
    cr_assert_eq(installed, 8);
    cr_assert_eq(d.npsus, 2);
    cr_assert_str_eq(d.psus[1].status, "Critical");
    dmi_data_free(&d);
}

Test(dmidecode, amd_engineering_sample_has_a_cpuid_signature)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("amd-ethanolx-2p-epyc-ddr4-16of32-p0-channel-a"), &d, &err), 0, "%s", err);
    cr_assert_eq(d.cpus[0].cpuid_family, 25);
    cr_assert_eq(d.cpus[0].cpuid_model, 1);
    dmi_data_free(&d);
}

Test(dmidecode, text_that_is_not_dmidecode_is_refused)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_parse("Size: 16 GB\nLocator: DIMM 1\n", &d, &err), -1);
    cr_assert(strstr(err, "not dmidecode output"), "%s", err);
    free(err);
    dmi_data_free(&d);
}

/* A report cut in the middle of a block keeps what came before. */
Test(dmidecode, truncated_report)
{
    const char *text = "Handle 0x0030, DMI type 17, 40 bytes\nMemory Device\n\tArray Handle: 0x002F\n\tSize: 16";
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_parse(text, &d, &err), 0);
    cr_assert_eq(d.ndevices, 1);
    cr_assert_eq(d.devices[0].size_bytes, 0, "\"16\" without a unit is no size");
    dmi_data_free(&d);
}

/* OEM type 202 arrives as "Header and Data" hex lines: HPE's DIMM location records. */
Test(dmidecode, hpe_dimm_location_records_from_their_hex_bytes)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("hpe-dl360-gen10-2p-xeon-ddr4-16of24"), &d, &err), 0, "%s", err);
    cr_assert_eq(d.nhpe_dimms, 24);
    int found = 0;
    for (int i = 0; i < d.nhpe_dimms; i++) {
        const struct dmi_hpe_dimm *h = &d.hpe_dimms[i];
        if (h->device_handle != 0x0021) /* PROC 1 DIMM 7 */
            continue;
        found++;
        cr_assert_eq(h->processor, 1);
        cr_assert_eq(h->controller, 1);
        cr_assert_eq(h->channel, 1);
    }
    cr_assert_eq(found, 1);
    dmi_data_free(&d);
}

/* Intel Optane in App Direct mode (Supermicro) and a BIOS that sets the Non-Volatile bit on plain
 * Micron RDIMMs whose type is just "DRAM" (Huawei RH2288 V3). */
Test(dmidecode, persistent_memory_fields)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("supermicro-sys2029u-tn24r4t-2p-xeon-ddr4-8of24-optane8"), &d, &err), 0, "%s",
                 err);
    int optane = 0, dram = 0;
    for (int i = 0; i < d.ndevices; i++) {
        const struct dmi_memdev *m = &d.devices[i];
        if (m->technology == DMI_TECH_OPTANE) {
            optane++;
            cr_assert(m->detail_non_volatile);
            cr_assert_str_eq(m->type, "Logical non-volatile device");
        } else if (m->technology == DMI_TECH_DRAM && m->size_bytes > 0) {
            dram++;
            cr_assert(!m->detail_non_volatile);
        }
    }
    cr_assert_eq(optane, 8);
    cr_assert_eq(dram, 8);
    dmi_data_free(&d);
    memset(&d, 0, sizeof d);
    cr_assert_eq(dmidecode_load(REPORT("huawei-rh2288-v3-2p-xeon-ddr4-4of16-nonvolatile-bit"), &d, &err), 0, "%s",
                 err);
    int flagged = 0;
    for (int i = 0; i < d.ndevices; i++)
        if (d.devices[i].size_bytes > 0) {
            flagged += d.devices[i].detail_non_volatile;
            cr_assert_str_eq(d.devices[i].type, "DRAM");
            cr_assert_eq(d.devices[i].technology, 0, "SMBIOS 2.8: no technology field");
        }
    cr_assert_eq(flagged, 4);
    dmi_data_free(&d);
}

/* dmidecode 2.6 (ASUS K8N-DL, 2x Opteron 246, an LKML post of 2005): "Handle 0x0004" alone, the
 * type on the next line, fields two tabs in. Every fact of the new layout is read. */
Test(dmidecode, before_2_7_handle_and_type_on_two_lines)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("asus-k8n-dl-2p-opteron246-dmidecode-2.6"), &d, &err), 0, "%s", err);
    cr_expect_eq(d.version_major, 2);
    cr_expect_eq(d.version_minor, 3);
    cr_assert_eq(d.ncpus, 2);
    cr_expect_str_eq(d.cpus[1].version, "AMD Opteron(tm) Processor 246");
    cr_expect(d.cpus[0].populated && d.cpus[1].populated);
    cr_expect_eq(d.cpus[0].max_mhz, 3700);
    cr_expect_eq(d.cpus[0].cpuid_family, 15);
    cr_expect_eq(d.cpus[0].cpuid_model, 5);
    cr_assert_eq(d.narrays, 1);
    cr_expect_eq(d.arrays[0].use, DMI_USE_SYSTEM_MEMORY);
    cr_expect_eq(d.arrays[0].slots, 6);
    cr_assert_eq(d.ndevices, 6);
    cr_expect_eq(d.devices[5].size_bytes, 1024ull << 20);
    cr_expect_str_eq(d.devices[5].locator, "A5");
    cr_expect_str_eq(d.devices[5].bank_locator, "Bank10/11");
    cr_expect_eq(d.devices[5].array_handle, 0x28);
    cr_expect_eq(d.devices[5].total_width, 72);
    cr_expect_str_eq(d.system_product, "System Product Name");
    cr_expect_eq(d.repeated_structures, 0);
    dmi_data_free(&d);

    /* The two layouts mixed line by line are not one structure: a lone handle line then a field. */
    struct dmi_data m = {0};
    cr_assert_eq(dmidecode_parse("Handle 0x0001\n\tManufacturer: X\nHandle 0x0002\n\tDMI type 1, 25 bytes.\n"
                                 "\tSystem Information\n\t\tManufacturer: Y\n", &m, &err), 0, "%s", err);
    cr_expect_str_eq(m.system_vendor, "Y");
    dmi_data_free(&m);
}

/* linuxhw's ASUS TS100-E7-PI4 report holds the whole table twice: each handle is read once (one
 * processor, two DIMMs), and the repeats are counted. */
Test(dmidecode, a_table_listed_twice_is_read_once)
{
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(REPORT("asus-ts100-e7-pi4-1p-xeon-e3-1230v2-report-twice"), &d, &err), 0, "%s", err);
    cr_expect_eq(d.ncpus, 1);
    int installed = 0;
    for (int i = 0; i < d.ndevices; i++)
        installed += d.devices[i].size_bytes > 0;
    cr_expect_eq(installed, 2);
    cr_expect_eq(d.repeated_structures, 62);
    dmi_data_free(&d);
}
