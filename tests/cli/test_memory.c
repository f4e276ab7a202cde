/* gpuvet audit on real SMBIOS evidence: the corpus dmidecode reports with the verdicts the corpus
 * README gives, a binary table built from real raw entries, and the replayed Dell tree. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dmitable.h"
#include "testutil.h"

#define REPORT(name) GPUVET_TEST_SOURCE "/fixtures/dmidecode/" name ".dmidecode.txt"
#define DELL "sysroot/32em64t-2n8c+1mic"
#define SKYLAKE_SP "sysroot/32intel64-2p8co2t+8ve"

static json_t *audit_dmidecode(const char *path, const char *workload)
{
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, "--workload", workload, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static json_t *memory_of(json_t *doc) { return json_object_get(json_object_get(doc, "machine"), "memory"); }

/* The MEM_CHANNELS_UNDERPOPULATED severity of socket N. */
/* memory.sockets[socket].populated_channels of an audit document (-1 when it is not a number). */
static long long populated_channels(json_t *doc, int socket)
{
    json_t *v = json_object_get(json_array_get(json_object_get(memory_of(doc), "sockets"), (size_t)socket),
                                "populated_channels");
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static const char *channel_verdict(json_t *doc, int socket)
{
    char subject[32];
    snprintf(subject, sizeof subject, "socket %d", socket);
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", subject);
    cr_assert_eq(json_array_size(f), 1, "one finding for %s", subject);
    static char sev[16];
    snprintf(sev, sizeof sev, "%s", json_string_value(json_object_get(json_array_get(f, 0), "severity")));
    json_decref(f);
    return sev;
}

struct expectation {
    const char *report;
    int dimms, channels_per_socket;
    int populated_per_socket; /* -1: the locators do not prove it */
    const char *verdict;      /* for general; cv-train turns warn into fail */
};

/* linuxhw/DMI reports (tests/fixtures/README.md), each for a locator scheme the first corpus lacked. */

static const struct expectation corpus[] = {
    {"supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24", 4, 6, 2, "warn"},
    {"hpe-dl380-gen11-2p-xeon-ddr5-8of32", 8, 8, 4, "warn"}, /* channels from HPE's type-202 records */
    {"supermicro-as4124gs-tnr-2p-epyc-ddr4-16of32", 16, 8, 8, "pass"},
    {"gigabyte-g482-z54-2p-epyc-ddr4-16of32", 16, 8, 8, "pass"},
    {"supermicro-sys4028gr-tr2-2p-xeon-ddr4-8of24-nodimm-locators", 8, 4, 4, "pass"},
    {"huawei-taishan200-2p-kunpeng-ddr4-16of32", 16, 8, 8, "pass"},
    {"amd-ethanolx-2p-epyc-ddr4-16of32-p0-channel-a", 16, 8, 8, "pass"},
    /* 8 DIMMs per socket in slots 3-10: HPE's type-202 records put them on 4 of 6 channels. */
    {"hpe-dl360-gen10-2p-xeon-ddr4-16of24", 16, 6, 4, "warn"},
    /* DIMM000 / _Node0_Channel0_Dimm0: 2 DIMMs on channels 0, 1, 3, 4; 2 and 5 empty. */
    {"huawei-1288h-v5-2p-xeon-ddr4-16of24-dimm000", 16, 6, 4, "warn"},
    {"inspur-nf5280m6-2p-xeon-ddr4-16of32-cpu0-c0d0", 16, 8, 8, "pass"},
    {"tyan-b7109-2p-xeon-ddr4-10of24-mc-ch", 10, 6, 5, "warn"},
    /* Plain RDIMMs flagged Non-Volatile by the BIOS stay RAM. */
    {"huawei-rh2288-v3-2p-xeon-ddr4-4of16-nonvolatile-bit", 4, 4, 2, "warn"},
    /* 4 DRAM DIMMs per socket on channels A-D; the 4 Optane modules beside them are not DRAM channels. */
    {"supermicro-sys2029u-tn24r4t-2p-xeon-ddr4-8of24-optane8", 8, 6, 4, "warn"},
    /* "PROC  1 DIMM  1" (double spaces), Gen8: no type-202 channel. 4 DIMMs for 4 channels proves nothing. */
    {"hp-dl360p-gen8-2p-xeon-ddr3-8of24-proc-double-space", 8, 4, -1, "unknown"},
    /* 2 DIMMs for 4 channels: at least 2 empty, whatever the slots. */
    {"hp-dl380p-gen8-2p-xeon-ddr3-4of24", 4, 4, -1, "warn"},
    /* DIMMn_CPUm names the socket only; 6 DRAM DIMMs for 6 channels is no proof. */
    {"dell-precision-7920-2p-xeon-ddr4-12of24-optane8", 12, 6, -1, "unknown"},
    /* Xeon 5600, "PROC 1 DIMM 1G": the DL380 G7 user guide's slot map (slots 1-3 are channel 1). */
    {"hp-dl380-g7-2p-xeon-e5620-ddr3-2of18", 2, 3, 1, "warn"},
    {"hp-dl380-g7-2p-xeon-x5660-ddr3-11of18-quad-rank", 11, 3, 3, "pass"},
    /* DL380 G6 (its own guide's table, the same layout): 2D and 3A share channel 1, 6B and 9C are
     * channels 2 and 3. Four DIMMs for three channels proved nothing without the map. */
    {"hp-dl380-g6-2p-xeon-e5520-ddr3-8of18", 8, 3, 3, "pass"},
    /* DL360e Gen8 (E5-2400, 3 channels): its guide pairs slots 1-2, 3-4, 5-6; two DIMMs in one pair. */
    {"hp-dl360e-gen8-2p-xeon-e5-2450l-ddr3-4of12", 4, 3, 1, "warn"},
    /* Lenovo "DIMM 3" + bank "CPU 1": the SR650 V2 manual's slot table puts slots 1,3,7,10,14,16 on
     * channels B,A,C,G,E,F: 6 of the Silver 4310's 8 channels, D and H empty. */
    {"lenovo-sr650-v2-2p-xeon-silver4310-ddr4-12of32-dimm-cpu", 12, 8, 6, "warn"},
    /* Opteron 6172 (G34, 4 channels) on a Supermicro H8: P1-DIMM1A, the digit the channel. */
    {"supermicro-h8dgu-2p-opteron-6172-ddr3-6of16", 6, 4, 2, "warn"},
    /* "DIMM A1" with bank "CHANNEL A": six letters for 2 x 3 channels. */
    {"quanta-qssc-98j-2p-xeon-ddr3-8of18-dimm-a1", 8, 3, 3, "pass"},
    /* Tyan S7012 "P0-ChD-DIMM0..2": three DIMMs on one channel of socket 0. */
    {"tyan-s7012-2p-xeon-ddr3-6of18-p0-chd", 6, 3, 1, "warn"},
    /* IBM x3550 M3 "DIMM01".."DIMM18", the bank locator naming no processor: the x3550 M3 manual's
     * table puts 01-09 on CPU 1 and 10-18 on CPU 2, three slots per channel. DIMMs 02,03,06,09 and
     * 11,12,15,18 reach all 3 channels; 03,06 and 12,15 reach channels 0 and 1 only. */
    {"ibm-x3550-m3-2p-xeon-e5645-ddr3-8of18-dimm01", 8, 3, 3, "pass"},
    {"ibm-x3550-m3-2p-xeon-e5645-ddr3-4of18-dimm01", 4, 3, 2, "warn"},
    /* Fujitsu "DIMM-1A": slot 1 of channel A. Letters A-F for 2 x 3 channels (TX200 S5), A-H for
     * 2 x 4 (RX2530 M1), each DIMM in slot 1: 1A-1F all 3 channels; 1A,1B and 1E,1F 2 of 4. */
    {"fujitsu-tx200-s5-2p-xeon-x5550-ddr3-6of18-dimm-1a", 6, 3, 3, "pass"},
    {"fujitsu-rx2530-m1-2p-xeon-ddr4-4of24-dimm-1a", 4, 4, 2, "warn"},
    /* Dell C6220 II / C8220 "DIMM_A1" with bank "CPU1": Dell's slot order (A1-A4 the first slot of
     * channels 0-3), not the bank's socket-only name. A1-A4 and B1-B4: 4 of 4; A1 and B1: 1 of 4. */
    {"dell-c6220-ii-2p-xeon-e5-2670-ddr3-8of16-dimm-a1-bank-cpu", 8, 4, 4, "pass"},
    {"dell-c8220-2p-xeon-e5-2680-ddr3-2of16-dimm-a1-bank-cpu", 2, 4, 1, "warn"},
};

Test(memory_cli, every_corpus_report_gets_its_verdict)
{
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        const struct expectation *e = &corpus[i];
        char path[512];
        snprintf(path, sizeof path, REPORT("%s"), e->report);
        json_t *doc = audit_dmidecode(path, "general");
        json_t *mem = memory_of(doc);
        cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), (size_t)e->dimms, "%s", e->report);
        cr_assert_eq(json_integer_value(json_object_get(mem, "channels_per_socket")), e->channels_per_socket, "%s",
                     e->report);
        json_t *sockets = json_object_get(mem, "sockets");
        cr_assert_eq(json_array_size(sockets), 2, "%s: two sockets", e->report);
        for (int s = 0; s < 2; s++) {
            json_t *populated = json_object_get(json_array_get(sockets, (size_t)s), "populated_channels");
            if (e->populated_per_socket < 0)
                cr_assert(json_is_null(populated), "%s: no channel map", e->report);
            else
                cr_assert_eq(json_integer_value(populated), e->populated_per_socket, "%s socket %d", e->report, s);
            cr_assert_str_eq(channel_verdict(doc, s), e->verdict, "%s socket %d", e->report, s);
        }
        cr_assert_str_eq(json_string_value(json_object_get(mem, "ecc")), "on", "%s", e->report);
        cr_assert_eq(count_findings(doc, "MEM_ECC_DISABLED", "pass"), 1, "%s", e->report);
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "machine"), "source")), "evidence");
        json_decref(doc);
    }
}

Test(memory_cli, underpopulated_fails_for_cv_training)
{
    json_t *doc = audit_dmidecode(REPORT("supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24"), "cv-train");
    cr_assert_str_eq(channel_verdict(doc, 0), "fail");
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 0");
    json_t *ev = json_object_get(json_array_get(f, 0), "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "locator_scheme")), "P0_Node0_Channel0_Dimm0");
    json_decref(f);
    json_decref(doc);
}

/* HP Gen9 locators name no channel; every one of the 12 slots per socket (3 x 4 channels, as both
 * arrays declare) holds a DIMM, so every channel does. */
Test(memory_cli, every_slot_full_proves_every_channel)
{
    json_t *doc = audit_dmidecode(REPORT("hp-dl360-gen9-2p-xeon-e5-2695v4-ddr4-24of24"), "general");
    for (int s = 0; s < 2; s++)
        cr_assert_str_eq(channel_verdict(doc, s), "pass");
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 1");
    json_t *finding = json_array_get(f, 0), *ev = json_object_get(finding, "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "basis")), "every slot populated");
    cr_assert_eq(json_integer_value(json_object_get(ev, "slots")), 12);
    cr_assert_eq(json_integer_value(json_object_get(ev, "slots_declared")), 24);
    cr_assert_str_eq(json_string_value(json_object_get(finding, "message")),
                     "all 12 slots of socket 1 hold a DIMM (12 = 3 x 4 channels): every channel is populated");
    json_t *socket = json_array_get(json_object_get(memory_of(doc), "sockets"), 1);
    cr_assert_eq(json_integer_value(json_object_get(socket, "populated_channels")), 4);
    json_decref(f);
    json_decref(doc);
}

/* DL380 G6 with 5 and 4 DIMMs: socket 0 holds slots 1-3, 6, 9 (all 3 channels), socket 1 slots
 * 1-3 and 6, so three DIMMs share channel 1 and channel 3 is empty: more DIMMs than channels, yet
 * underpopulated. The finding names the guide the map comes from. */
Test(memory_cli, a_slot_map_finds_an_empty_channel_behind_more_dimms_than_channels)
{
    json_t *doc = audit_dmidecode(REPORT("hp-dl380-g6-2p-xeon-l5640-ddr3-9of18-3dpc"), "general");
    cr_assert_str_eq(channel_verdict(doc, 0), "pass");
    cr_assert_str_eq(channel_verdict(doc, 1), "warn");
    cr_assert_eq(populated_channels(doc, 0), 3);
    cr_assert_eq(populated_channels(doc, 1), 2);
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 1");
    json_t *ev = json_object_get(json_array_get(f, 0), "evidence");
    cr_assert_eq(json_integer_value(json_object_get(ev, "dimms")), 4);
    const char *scheme = json_string_value(json_object_get(ev, "locator_scheme"));
    cr_assert(scheme && strstr(scheme, "HP ProLiant DL380 G6 Server User Guide"), "%s", scheme);
    json_decref(f);
    json_decref(doc);
}

/* The x3250 M3's table lists only its 4 populated slots; the array declares 6: no slot count. */
Test(memory_cli, full_slots_without_the_arrays_count_stay_unknown)
{
    json_t *doc = audit_dmidecode(REPORT("ibm-x3250-m3-1p-xeon-x3430-ddr3-4-listed-of-6"), "general");
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 0");
    json_t *finding = json_array_get(f, 0);
    const char *message = json_string_value(json_object_get(finding, "message"));
    cr_assert(message && strstr(message, "declare 6 slots"), "%s", message);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(finding, "evidence"), "slots_declared")), 6);
    cr_assert_str_eq(channel_verdict(doc, 0), "unknown");
    json_decref(f);
    json_decref(doc);
}

Test(memory_cli, hpe_channels_come_from_its_dimm_location_records_and_a_supply_is_critical)
{
    json_t *doc = audit_dmidecode(REPORT("hpe-dl380-gen11-2p-xeon-ddr5-8of32"), "general");
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 1");
    json_t *ev = json_object_get(json_array_get(f, 0), "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "basis")), "channels from locators");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "locator_scheme")),
                     "HPE DIMM location record (SMBIOS type 202)");
    cr_assert_eq(json_integer_value(json_object_get(ev, "populated_channels")), 4);
    json_decref(f);
    /* Power Supply 2 reports "Present, Critical" in the report. */
    cr_assert_eq(count_findings(doc, "POWER_SUPPLY", "warn"), 1);
    json_t *psu = findings_of(doc, "POWER_SUPPLY", "power supply Power Supply 2");
    cr_assert_eq(json_array_size(psu), 1);
    json_decref(psu);
    /* No GPU power known from a dmidecode file: headroom is unknown, not passed. */
    cr_assert_eq(count_findings(doc, "POWER_SUPPLY", "unknown"), 1);
    json_t *power = json_object_get(json_object_get(doc, "machine"), "power");
    cr_assert_eq(json_array_size(power), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(power, 0), "max_watts")), 1000);
    json_decref(doc);
}

/* Optane is listed apart: not a DIMM of RAM, not in installed_bytes, not a DRAM channel. */
Test(memory_cli, persistent_memory_is_not_ram)
{
    json_t *doc = audit_dmidecode(REPORT("supermicro-sys2029u-tn24r4t-2p-xeon-ddr4-8of24-optane8"), "general");
    json_t *mem = memory_of(doc);
    cr_assert_eq(json_integer_value(json_object_get(mem, "installed_bytes")), 8ll << 34, "8 x 16 GB of DRAM");
    json_t *pmem = json_object_get(mem, "persistent_modules");
    cr_assert_eq(json_array_size(pmem), 8);
    cr_assert_eq(json_integer_value(json_object_get(mem, "persistent_bytes")), 8ll * 129408 << 20);
    cr_assert_eq(json_integer_value(json_object_get(mem, "dimm_slots_free")), 8);
    json_t *first = json_array_get(pmem, 0);
    cr_assert_str_eq(json_string_value(json_object_get(first, "locator")), "P1-DIMMA2");
    cr_assert_eq(json_integer_value(json_object_get(first, "socket")), 0);
    cr_assert_eq(json_integer_value(json_object_get(first, "channel")), 0, "beside P1-DIMMA1 on channel A");
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(mem, "dimms"), i, d)
        cr_assert_str_eq(json_string_value(json_object_get(d, "type")), "DDR4");
    json_decref(doc);
    struct run_result r = run_gpuvet("audit", "--dmidecode", REPORT("supermicro-sys2029u-tn24r4t-2p-xeon-ddr4-8of24-optane8"),
                                     NULL);
    cr_assert(strstr(r.out, "persistent memory"), "%s", r.out);
    cr_assert(strstr(r.out, "8 modules, 1011.0 GiB"), "%s", r.out);
    run_result_free(&r);
}

Test(memory_cli, one_power_supply_is_no_redundancy)
{
    json_t *doc = audit_dmidecode(REPORT("gigabyte-g482-z54-2p-epyc-ddr4-16of32"), "general");
    cr_assert_eq(count_findings(doc, "POWER_SUPPLY", "info"), 1);
    json_decref(doc);
}

Test(memory_cli, a_vm_report_proves_nothing_about_ecc_or_dimms)
{
    json_t *doc = audit_dmidecode(REPORT("qemu-standard-pc-vm"), "llm-train");
    cr_assert_eq(count_findings(doc, "MEM_ECC_DISABLED", "unknown"), 1);
    cr_assert_eq(count_findings(doc, "MEM_ECC_DISABLED", "pass"), 0, "QEMU's Multi-bit ECC claim is not trusted");
    cr_assert_eq(count_findings(doc, "MEM_CHANNELS_UNDERPOPULATED", "unknown"), 1);
    cr_assert(json_is_true(json_object_get(json_object_get(json_object_get(doc, "machine"), "virtualization"), "vm")));
    json_decref(doc);
}

Test(memory_cli, evidence_alone_describes_the_machine_in_the_file)
{
    json_t *doc = audit_dmidecode(REPORT("supermicro-sys4028gr-tr2-2p-xeon-ddr4-8of24-nodimm-locators"), "general");
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    cr_assert_str_eq(json_string_value(json_object_get(cpu, "model")), "Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz");
    cr_assert_eq(json_integer_value(json_object_get(cpu, "sockets")), 2);
    cr_assert(json_is_null(json_object_get(cpu, "steal_ratio")));
    cr_assert_eq(count_findings(doc, "CPU_CONTENTION", "unknown"), 1, "nothing of that machine to sample");
    /* 4 channels x 2400 MT/s x 8 bytes per socket */
    cr_assert_float_eq(json_real_value(json_object_get(memory_of(doc), "theoretical_bandwidth_bytes_s")),
                       2 * 4 * 2400e6 * 8, 1);
    json_decref(doc);
}

/* The Supermicro quirk: a BIOS ROM listed as a memory device of a Flash array is not a DIMM. */
Test(memory_cli, devices_outside_system_memory_arrays_are_not_dimms)
{
    char dir[] = "/tmp/gpuvet-rom-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    FILE *in = fopen(REPORT("supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24"), "r");
    cr_assert_not_null(in);
    char path[512];
    snprintf(path, sizeof path, "%s/with-rom.txt", dir);
    FILE *out = fopen(path, "w");
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    fputs("\nHandle 0x7000, DMI type 16, 23 bytes\nPhysical Memory Array\n\tLocation: System Board Or Motherboard\n"
          "\tUse: Flash Memory\n\tError Correction Type: None\n\tNumber Of Devices: 1\n\n"
          "Handle 0x7001, DMI type 17, 40 bytes\nMemory Device\n\tArray Handle: 0x7000\n\tSize: 32 MB\n"
          "\tLocator: BIOS\n\tBank Locator: ROM0\n\tType: Flash\n\n", out);
    fclose(out);
    json_t *doc = audit_dmidecode(path, "general");
    cr_assert_eq(json_array_size(json_object_get(memory_of(doc), "dimms")), 4);
    cr_assert_eq(json_integer_value(json_object_get(memory_of(doc), "installed_bytes")), 4ll * 8192 << 20);
    cr_assert_str_eq(json_string_value(json_object_get(memory_of(doc), "ecc")), "on",
                     "the Flash array's 'None' is not the system memory's ECC");
    json_decref(doc);
    tree_remove(dir);
}

/* Supermicro's X8 "P1-DIMM1A" puts the channel in the digit: "DIMM-1A" is read as Fujitsu's channel A
 * only on a Fujitsu board. The same TX200 S5 report under another vendor name proves nothing. */
Test(memory_cli, fujitsu_channel_letters_only_on_fujitsu_boards)
{
    char dir[] = "/tmp/gpuvet-fts-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    FILE *in = fopen(REPORT("fujitsu-tx200-s5-2p-xeon-x5550-ddr3-6of18-dimm-1a"), "r");
    cr_assert_not_null(in);
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/other-vendor.txt", dir);
    FILE *out = fopen(path, "w");
    int renamed = 0;
    while (fgets(line, sizeof line, in)) {
        if (strstr(line, "Manufacturer: FUJITSU")) {
            fputs("\tManufacturer: Example Systems\n", out);
            renamed++;
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    cr_assert_gt(renamed, 0);
    json_t *doc = audit_dmidecode(path, "general");
    cr_assert_eq(count_findings(doc, "MEM_CHANNELS_UNDERPOPULATED", "pass"), 0);
    cr_assert_gt(count_findings(doc, "MEM_CHANNELS_UNDERPOPULATED", "unknown"), 0);
    json_decref(doc);
    tree_remove(dir);
}

Test(memory_cli, binary_table_from_the_raw_entries)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    const char *path = dmi_dump_file(table, len);
    struct run_result r = run_gpuvet("audit", "--dmi-table", path, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *mem = memory_of(doc);
    cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 8);
    cr_assert_eq(json_integer_value(json_object_get(mem, "installed_bytes")), 8ll << 32);
    cr_assert_eq(json_integer_value(json_object_get(mem, "dimm_slots")), 24);
    cr_assert_eq(json_integer_value(json_object_get(mem, "dimm_slots_free")), 16);
    json_t *dimm = json_array_get(json_object_get(mem, "dimms"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(dimm, "type")), "DDR3");
    cr_assert_eq(json_integer_value(json_object_get(dimm, "configured_mts")), 1600);
    /* The table alone has no processor: channels per socket cannot be known. */
    cr_assert_eq(count_findings(doc, "MEM_CHANNELS_UNDERPOPULATED", "unknown"), 1);
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
    free(table);
}

Test(memory_cli, truncated_or_foreign_tables_are_refused_with_the_file_name)
{
    size_t len;
    uint8_t *table = dmi_table_from_raw_entries(&len);
    const char *path = dmi_dump_file(table, 0); /* an entry point and no table */
    struct run_result r = run_gpuvet("audit", "--dmi-table", path, "--json", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, path), "%s", r.err);
    run_result_free(&r);
    unlink(path);
    r = run_gpuvet("audit", "--dmidecode", GPUVET_TEST_SOURCE "/fixtures/dmi-raw/17-0/raw", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "17-0/raw"), "%s", r.err);
    run_result_free(&r);
    free(table);
}

Test(memory_cli, dell_tree_replay_has_all_four_channels_per_socket)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(DELL), "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *mem = memory_of(doc);
    cr_assert_str_eq(json_string_value(json_object_get(mem, "source")), "/sys/firmware/dmi/entries");
    cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 8);
    cr_assert_eq(json_integer_value(json_object_get(mem, "channels_per_socket")), 4);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(mem, "platform"), "name")), "Xeon E5-2680");
    cr_assert_str_eq(channel_verdict(doc, 0), "pass");
    cr_assert_str_eq(channel_verdict(doc, 1), "pass");
    cr_assert_eq(count_findings(doc, "CPU_STEAL", "unknown"), 1, "a recorded tree has nothing to sample");
    json_decref(doc);
    run_result_free(&r);
}

/* Take DIMM_A3 out of the Dell tree: socket 0 keeps 3 of its 4 channels. */
Test(memory_cli, dell_tree_without_one_dimm_is_underpopulated)
{
    char *dir = fixture_copy(DELL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s/sys/firmware/dmi/entries' && for e in 17-*; do "
                              "grep -q 'DIMM_A3' $e/raw && find $e -type d -exec chmod u+w {} + && rm -rf $e; done; true", dir);
    cr_assert_eq(system(cmd), 0);
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(json_array_size(json_object_get(memory_of(doc), "dimms")), 7);
    cr_assert_str_eq(channel_verdict(doc, 0), "warn");
    cr_assert_str_eq(channel_verdict(doc, 1), "pass");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* `gpuvet snapshot` of the tree src into dir/snap, which must hold the file `recorded` (relative to
 * the snapshot), and the audit of that snapshot. */
static json_t *snapshot_replayed(const char *src, const char *dir, const char *recorded)
{
    char snap[600], path[1200];
    snprintf(snap, sizeof snap, "%s/snap", dir);
    struct run_result r = run_gpuvet("snapshot", "--sysroot", src, snap, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    snprintf(path, sizeof path, "%s/%s", snap, recorded);
    cr_assert_eq(access(path, R_OK), 0, "%s recorded", path);
    r = run_gpuvet("audit", "--sysroot", snap, "--json", NULL);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

Test(memory_cli, snapshot_records_the_dmi_entries)
{
    char dir[] = "/tmp/gpuvet-snap-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    json_t *doc = snapshot_replayed(fixture(DELL), dir, "sys/firmware/dmi/entries/17-0/raw");
    cr_assert_eq(json_array_size(json_object_get(memory_of(doc), "dimms")), 8);
    json_decref(doc);
    tree_remove(dir);
}

/* EDAC counters as drivers/edac/edac_mc_sysfs.c lays them out, added to the Dell tree. */
Test(memory_cli, edac_uncorrected_errors_fail)
{
    char *dir = fixture_copy(DELL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/sys/devices/system/edac/mc/mc0/dimm0'", dir);
    cr_assert_eq(system(cmd), 0);
    tree_write(dir, "sys/devices/system/edac/mc/mc0/ce_count", "3\n");
    tree_write(dir, "sys/devices/system/edac/mc/mc0/ue_count", "1\n");
    tree_write(dir, "sys/devices/system/edac/mc/mc0/dimm0/size", "4096\n");
    tree_write(dir, "sys/devices/system/edac/mc/mc0/dimm0/dimm_edac_mode", "SECDED\n");
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    cr_assert_eq(r.status, 1, "an uncorrected error is a fail");
    json_t *doc = run_json(&r);
    cr_assert_eq(count_findings(doc, "MEM_ECC_ERRORS", "fail"), 1);
    json_t *edac = json_object_get(memory_of(doc), "edac");
    cr_assert_eq(json_integer_value(json_object_get(edac, "ce_count")), 3);
    cr_assert_eq(json_array_size(json_object_get(memory_of(doc), "dimms")), 8, "SMBIOS stays the DIMM source");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* Writes text to the EDAC file sys/devices/system/edac/mc/REL of a copied tree, its folders made. */
static void edac_write(const char *dir, const char *text, const char *rel_format, ...)
{
    char rel[256], path[512], cmd[1024];
    va_list ap;
    va_start(ap, rel_format);
    vsnprintf(rel, sizeof rel, rel_format, ap);
    va_end(ap);
    snprintf(path, sizeof path, "sys/devices/system/edac/mc/%s", rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\"", dir, path);
    cr_assert_eq(system(cmd), 0);
    tree_write(dir, path, text);
}

/* One EDAC DIMM entry (dimm* of the DIMM-layer drivers): mcN/dimmM with its size, label and
 * location, and the controller's mc_name. */
static void edac_dimm(const char *dir, int mc, const char *mc_name, int index, long mib, const char *label,
                      const char *location)
{
    char text[96];
    snprintf(text, sizeof text, "%s\n", mc_name);
    edac_write(dir, text, "mc%d/mc_name", mc);
    snprintf(text, sizeof text, "%ld\n", mib);
    edac_write(dir, text, "mc%d/dimm%d/size", mc, index);
    snprintf(text, sizeof text, "%s\n", label);
    edac_write(dir, text, "mc%d/dimm%d/dimm_label", mc, index);
    edac_write(dir, location, "mc%d/dimm%d/dimm_location", mc, index);
}

static char *tree_without_smbios(void)
{
    char *dir = fixture_copy(DELL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "find '%s/sys/firmware' -type d -exec chmod u+w {} + && rm -rf '%s/sys/firmware/dmi'",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    return dir;
}

/* Without SMBIOS, EDAC's DIMMs keep the place their skx/i10nm labels give (drivers/edac/skx_common.c
 * writes "CPU_SrcID#%u_MC#%u_Chan#%u_DIMM#%u"): no locator scheme may wipe it. Dell tree, SMBIOS
 * entries removed, three DIMMs per socket on channels 0-2 of 4. */
Test(memory_cli, edac_labels_place_dimms_without_smbios)
{
    char *dir = tree_without_smbios();
    char cmd[1024];
    for (int socket = 0; socket < 2; socket++)
        for (int chan = 0; chan < 3; chan++) {
            char path[256], label[64];
            snprintf(path, sizeof path, "%s/sys/devices/system/edac/mc/mc%d/dimm%d", dir, socket, chan);
            snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
            cr_assert_eq(system(cmd), 0);
            snprintf(path, sizeof path, "sys/devices/system/edac/mc/mc%d/dimm%d/size", socket, chan);
            tree_write(dir, path, "8192\n");
            snprintf(path, sizeof path, "sys/devices/system/edac/mc/mc%d/dimm%d/dimm_label", socket, chan);
            snprintf(label, sizeof label, "CPU_SrcID#%d_MC#0_Chan#%d_DIMM#0\n", socket, chan);
            tree_write(dir, path, label);
        }
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *mem = memory_of(doc);
    cr_assert_str_eq(json_string_value(json_object_get(mem, "source")), "edac");
    cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 6);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(mem, "sockets"), 1),
                                                    "populated_channels")),
                 3);
    cr_assert_str_eq(channel_verdict(doc, 0), "warn");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* A Supermicro X11DPi-NT with four DIMMs, as `ras-mc-ctl --print-labels` showed it in rasdaemon pull
 * request 139: one DIMM at "channel 0 slot 0" of each of mc0..mc3, the kernel's labels already
 * replaced by the board's (`--register-labels`: P1-DIMMA1, P1-DIMMD1, P2-DIMMA1, P2-DIMMD1; mc3's,
 * cut off in the listing, is P2-DIMMD1 in rasdaemon's labels/supermicro). skx_edac registers a
 * controller per memory controller, two per socket, and names each "Skylake Socket#%d IMC#%d"
 * (drivers/edac/skx_common.c); the Supermicro locator scheme reads the same socket and channel from
 * the labels, and the two agree. The recorded two-socket Xeon Silver 4108 tree (six channels a
 * socket, no SMBIOS table) carries them: two of six channels per socket. */
Test(memory_cli, edac_registered_labels_placed_by_controller_name)
{
    char *dir = fixture_copy(SKYLAKE_SP);
    static const char *const labels[] = {"P1-DIMMA1", "P1-DIMMD1", "P2-DIMMA1", "P2-DIMMD1"};
    for (int mc = 0; mc < 4; mc++) {
        char name[64];
        snprintf(name, sizeof name, "Skylake Socket#%d IMC#%d", mc / 2, mc % 2);
        edac_dimm(dir, mc, name, 0, 16384, labels[mc], "channel 0 slot 0 "); /* the size is not in the source */
    }
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *mem = memory_of(doc);
    cr_assert_str_eq(json_string_value(json_object_get(mem, "source")), "edac");
    cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 4);
    for (int socket = 0; socket < 2; socket++) {
        cr_assert_eq(populated_channels(doc, socket), 2,
                     "socket %d", socket);
        cr_assert_str_eq(channel_verdict(doc, socket), "warn", "socket %d", socket);
    }
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* Labels that name the socket but no channel: a Lenovo ThinkStation P920 under rasdaemon's labels
 * database (labels/lenovo: CPU1_DIMM3 is CPU_SrcID#0_MC#0_Chan#0, CPU1_DIMM4 CPU_SrcID#0_MC#1_Chan#0,
 * ...). The channel is dimm_location's, and each controller's channel 0 is its own only through
 * mc_name's IMC number: read without it, mc0's and mc1's channel 0 would be one channel. Six DIMMs
 * on socket 0 (every channel), four on socket 1 (IMC 1's channels 1 and 2 empty). */
Test(memory_cli, edac_socket_only_labels_keep_each_controllers_channels)
{
    char *dir = fixture_copy(SKYLAKE_SP);
    static const char *const slot_of[2][3] = {{"3", "5", "1"}, {"4", "6", "2"}}; /* [imc][channel] */
    for (int mc = 0; mc < 4; mc++) {
        int socket = mc / 2, imc = mc % 2;
        char name[64];
        snprintf(name, sizeof name, "Skylake Socket#%d IMC#%d", socket, imc);
        for (int chan = 0; chan < 3; chan++) {
            if (socket == 1 && imc == 1 && chan > 0)
                continue;
            char label[32], location[32];
            snprintf(label, sizeof label, "CPU%d_DIMM%s", socket + 1, slot_of[imc][chan]);
            snprintf(location, sizeof location, "channel %d slot 0 ", chan);
            edac_dimm(dir, mc, name, chan * 2, 16384, label, location); /* sizes made up */
        }
    }
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *mem = memory_of(doc);
    cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 10);
    cr_assert_eq(populated_channels(doc, 0), 6);
    cr_assert_eq(populated_channels(doc, 1), 4);
    cr_assert_str_eq(channel_verdict(doc, 0), "pass");
    cr_assert_str_eq(channel_verdict(doc, 1), "warn");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* `snapshot` records the EDAC files the audit read (labels, locations, mc_name), so the recorded tree
 * places the DIMMs as the machine did: the P920 tree above, snapshotted and replayed. */
Test(memory_cli, snapshot_records_the_edac_tree)
{
    char *dir = fixture_copy(SKYLAKE_SP);
    for (int mc = 0; mc < 4; mc++) {
        char name[64], label[32];
        snprintf(name, sizeof name, "Skylake Socket#%d IMC#%d", mc / 2, mc % 2);
        snprintf(label, sizeof label, "CPU%d_DIMM%d", mc / 2 + 1, 3 + mc % 2);
        edac_dimm(dir, mc, name, 0, 16384, label, "channel 0 slot 0 ");
    }
    json_t *doc = snapshot_replayed(dir, dir, "sys/devices/system/edac/mc/mc3/mc_name");
    for (int socket = 0; socket < 2; socket++)
        cr_assert_eq(populated_channels(doc, socket), 2,
                     "socket %d replayed", socket);
    json_decref(doc);
    tree_remove(dir);
    free(dir);
}

/* An Intel S2600WTT (two Broadwell-EP, two home agents each) as its EDAC debug boot log shows it
 * (Mingli Yu on LKML, 2024-12-05, "Why there is additional info print when run mce-inject"): four
 * controllers with two 8 GiB DIMMs each at "channel 0 slot 0" and "channel 1 slot 0" (dimm0, dimm3),
 * and MC0 is socket 1 ("Broadwell SrcID#1_Ha#0"), MC1 socket 0: the controller index is no socket.
 * The kernel labels them "CPU_SrcID#%u_Ha#%u_Chan#%u_DIMM#%u" (sb_edac.c); with those, and again with
 * board labels registered over them, each socket holds a DIMM on its four channels, carried here by
 * the recorded two-socket E5-2680 tree (four channels a socket, SMBIOS removed). */
Test(memory_cli, edac_sb_edac_home_agents_of_a_broadwell_board)
{
    for (int registered = 0; registered < 2; registered++) {
        char *dir = tree_without_smbios();
        static const int socket_of_mc[] = {1, 0, 1, 0}, agent_of_mc[] = {0, 0, 1, 1};
        for (int mc = 0; mc < 4; mc++) {
            char name[64];
            snprintf(name, sizeof name, "Broadwell SrcID#%d_Ha#%d", socket_of_mc[mc], agent_of_mc[mc]);
            for (int chan = 0; chan < 2; chan++) {
                char label[64], location[32];
                if (registered)
                    snprintf(label, sizeof label, "CPU%d_DIMM_%c1", socket_of_mc[mc] + 1,
                             "ABCD"[agent_of_mc[mc] * 2 + chan]);
                else
                    snprintf(label, sizeof label, "CPU_SrcID#%d_Ha#%d_Chan#%d_DIMM#0", socket_of_mc[mc],
                             agent_of_mc[mc], chan);
                snprintf(location, sizeof location, "channel %d slot 0 ", chan);
                edac_dimm(dir, mc, name, chan * 3, 8192, label, location);
            }
        }
        struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
        json_t *doc = run_json(&r);
        json_t *mem = memory_of(doc);
        cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 8);
        for (int socket = 0; socket < 2; socket++) {
            cr_assert_eq(populated_channels(doc, socket), 4, "socket %d, %s labels", socket,
                         registered ? "board" : "kernel");
            cr_assert_str_eq(channel_verdict(doc, socket), "pass", "socket %d", socket);
        }
        json_decref(doc);
        run_result_free(&r);
        tree_remove(dir);
        free(dir);
    }
}

/* A Dell PowerEdge R720 (two Xeon E5-2600, 128 GB, CentOS 6.2) as Jeff Layton listed its EDAC tree
 * in "Monitoring Memory Errors" (ADMIN Magazine): sb_edac before its home-agent field, the legacy
 * layout only, eight csrows on mc0, each one DIMM on ch0 whatever channel its label names,
 * "CPU_SrcID#0_Channel#0_DIMM#0" .. "CPU_SrcID#0_Channel#3_DIMM#1". mc1 is not listed there: it is
 * taken as the same with SrcID#1, the sizes as 128 GB over the 16 rows, and mc_name as that sb_edac
 * writes it ("Sandy Bridge Socket#%d", mc_idx). Carried by the recorded two-socket E5-2680 tree
 * (SMBIOS removed): two DIMMs on each of the four channels of both sockets. */
Test(memory_cli, edac_sb_edac_labels_of_linux_3)
{
    char *dir = tree_without_smbios();
    for (int socket = 0; socket < 2; socket++)
        for (int row = 0; row < 8; row++) {
            char text[64];
            snprintf(text, sizeof text, "Sandy Bridge Socket#%d\n", socket);
            edac_write(dir, text, "mc%d/mc_name", socket);
            edac_write(dir, "8192\n", "mc%d/csrow%d/size_mb", socket, row);
            snprintf(text, sizeof text, "CPU_SrcID#%d_Channel#%d_DIMM#%d\n", socket, row / 2, row % 2);
            edac_write(dir, text, "mc%d/csrow%d/ch0_dimm_label", socket, row);
        }
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *mem = memory_of(doc);
    cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 16);
    for (int socket = 0; socket < 2; socket++) {
        cr_assert_eq(populated_channels(doc, socket), 4, "socket %d", socket);
        cr_assert_str_eq(channel_verdict(doc, socket), "pass", "socket %d", socket);
    }
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* The platform table is looked up in $GPUVET_DATA_DIR first; a folder without it is an error that names
 * the file, not an audit with the channel count quietly unknown. */
Test(memory_cli, data_dir_override)
{
    setenv("GPUVET_DATA_DIR", "/nonexistent-gpuvet-data", 1);
    struct run_result r = run_gpuvet("audit", "--dmidecode", REPORT("supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24"),
                                     "--json", NULL);
    unsetenv("GPUVET_DATA_DIR");
    cr_assert_eq(r.status, 2, "%s", r.out);
    /* The first table missing in the folder's listing order is named (board-slot-maps.csv, cpu-platforms.csv, ...). */
    cr_assert(strstr(r.err, "/nonexistent-gpuvet-data/board-slot-maps.csv: No such file") ||
                  strstr(r.err, "/nonexistent-gpuvet-data/cpu-platforms.csv: No such file"),
              "%s", r.err);
    cr_assert_str_eq(r.out, "");
    run_result_free(&r);
    setenv("GPUVET_DATA_DIR", GPUVET_TEST_SOURCE "/../data", 1);
    json_t *doc = audit_dmidecode(REPORT("supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24"), "general");
    unsetenv("GPUVET_DATA_DIR");
    cr_assert_eq(json_integer_value(json_object_get(memory_of(doc), "channels_per_socket")), 6);
    json_decref(doc);
}

/* A real report with its locators rewritten (sed expression) into another vendor's scheme. */
static json_t *audit_rewritten(const char *report, const char *sed)
{
    char dir[] = "/tmp/gpuvet-loc-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sed -E '%s' '%s' > '%s/report.txt'", sed, report, dir);
    cr_assert_eq(system(cmd), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    json_t *doc = audit_dmidecode(path, "general");
    tree_remove(dir);
    return doc;
}

#define SM4028 REPORT("supermicro-sys4028gr-tr2-2p-xeon-ddr4-8of24-nodimm-locators")

Test(memory_cli, other_vendor_locator_schemes)
{
    static const struct {
        const char *sed, *scheme;
        int populated; /* per socket; -1 no channel map */
    } cases[] = {
        {"s/Bank Locator: P([12])_Node0_Channel([0-9])_Dimm1/Bank Locator: NODE \\1 CHANNEL \\2 DIMM 0/",
         "NODE 0 CHANNEL 0 DIMM 0", 4},
        {"s/Bank Locator: P([12])_Node0_Channel([0-9])_Dimm1/Bank Locator: SOCKET \\1 CHANNEL \\2 DIMM 0/",
         "SOCKET 0 CHANNEL 0 DIMM 0", 4},
        {"s/Bank Locator: P[12]_Node.*/Bank Locator: BANK 0/; s/Locator: P([12])_DIMM([A-D])1/Locator: CPU\\1_DIMM_\\21/",
         "CPU1_DIMM_A0", 4},
        {"s/Bank Locator: P([12])_Node.*/Bank Locator: CPU \\1/; s/Locator: P[12]_DIMM[A-H]1/Locator: DIMM 1/",
         "DIMM 1 + CPU 1", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = audit_rewritten(SM4028, cases[i].sed);
        json_t *mem = memory_of(doc);
        cr_assert_str_eq(json_string_value(json_object_get(mem, "locator_scheme")), cases[i].scheme);
        cr_assert_eq(json_array_size(json_object_get(mem, "dimms")), 8);
        for (int s = 0; s < 2; s++) {
            json_t *populated = json_object_get(json_array_get(json_object_get(mem, "sockets"), (size_t)s),
                                                "populated_channels");
            if (cases[i].populated < 0)
                cr_assert(json_is_null(populated), "%s", cases[i].scheme);
            else
                cr_assert_eq(json_integer_value(populated), cases[i].populated, "%s", cases[i].scheme);
            /* Four DIMMs for four channels named by socket only prove nothing: two may share one. */
            cr_assert_str_eq(channel_verdict(doc, s), cases[i].populated < 0 ? "unknown" : "pass", "%s socket %d",
                             cases[i].scheme, s);
        }
        json_decref(doc);
    }
}

#define C6220 REPORT("dell-c6220-ii-2p-xeon-e5-2670-ddr3-8of16-dimm-a1-bank-cpu")

/* Dell's slot order is read only where the bank agrees with the letter (A is CPU1) and the board is a
 * Dell: the C6220 II report with its banks swapped, or under another vendor's name, names the
 * socket only and 4 DIMMs for 4 channels prove nothing. */
Test(memory_cli, dell_slot_order_needs_a_dell_whose_bank_agrees)
{
    static const struct {
        const char *sed, *scheme;
    } cases[] = {
        {"s/Bank Locator: CPU1/Bank Locator: CPUX/; s/Bank Locator: CPU2/Bank Locator: CPU1/; "
         "s/Bank Locator: CPUX/Bank Locator: CPU2/",
         "DIMM 1 + CPU 1"},
        {"s/Manufacturer: Dell Inc./Manufacturer: Example Systems/", "DIMM 1 + CPU 1"},
        {"s/Bank Locator: CPU[12]/Bank Locator: Not Specified/", "Dell A1/B1 (slot order)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = audit_rewritten(C6220, cases[i].sed);
        json_t *mem = memory_of(doc);
        cr_assert_str_eq(json_string_value(json_object_get(mem, "locator_scheme")), cases[i].scheme, "case %zu", i);
        bool dell = !strcmp(cases[i].scheme, "Dell A1/B1 (slot order)");
        for (int s = 0; s < 2; s++)
            cr_assert_str_eq(channel_verdict(doc, s), dell ? "pass" : "unknown", "case %zu socket %d", i, s);
        json_decref(doc);
    }
}

/* Socket 0 keeps its 4 DIMMs, but two channels hold two each and two hold none. */
Test(memory_cli, two_dimms_per_channel_is_not_full_population)
{
    json_t *doc = audit_rewritten(SM4028, "s/P1_Node0_Channel2_Dimm1/P1_Node0_Channel0_Dimm2/; "
                                          "s/P1_Node0_Channel3_Dimm1/P1_Node0_Channel1_Dimm2/");
    json_t *socket0 = json_array_get(json_object_get(memory_of(doc), "sockets"), 0);
    cr_assert_eq(json_integer_value(json_object_get(socket0, "dimms")), 4);
    cr_assert_eq(json_integer_value(json_object_get(socket0, "populated_channels")), 2);
    cr_assert_str_eq(channel_verdict(doc, 0), "warn");
    cr_assert_str_eq(channel_verdict(doc, 1), "pass");
    json_decref(doc);
}

/* A Xeon 5400 (front-side bus): the channels are the chipset's, which SMBIOS does not place; the
 * per-socket rule does not apply, and the finding says so rather than blaming the locators. */
Test(memory_cli, front_side_bus_xeon_says_why_channels_are_unknown)
{
    json_t *doc = audit_dmidecode(REPORT("intel-s5000psl-2p-xeon-e5430-fsb"), "general");
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "machine");
    cr_assert_eq(json_array_size(f), 1);
    json_t *only = json_array_get(f, 0);
    cr_assert_str_eq(json_string_value(json_object_get(only, "severity")), "unknown");
    const char *msg = json_string_value(json_object_get(only, "message"));
    cr_assert(strstr(msg, "has no memory controller") && strstr(msg, "front-side bus"), "%s", msg);
    cr_assert(strstr(msg, "rule does not apply"), "%s", msg);
    /* Counted apart from "could not read the locators": the evidence says the rule does not apply. */
    cr_assert(json_is_false(json_object_get(json_object_get(only, "evidence"), "rule_applies")));
    cr_assert(json_is_true(json_object_get(memory_of(doc), "memory_controller_in_chipset")));
    cr_assert(json_is_null(json_object_get(memory_of(doc), "channels_per_socket")));
    json_decref(f);
    json_decref(doc);
}
