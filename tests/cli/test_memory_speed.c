/* MEM_SPEED_DOWNCLOCKED on real dmidecode reports: the configured speed judged against the top
 * speed of the CPU *model* for the DIMMs per channel the machine has. Reports from linuxhw/DMI
 * (CC BY 4.0), some rewritten with sed into the neighbouring case the rule must tell apart. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define REPORT(name) GPUVET_TEST_SOURCE "/fixtures/dmidecode/" name ".dmidecode.txt"

static json_t *audit_report(const char *path)
{
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

/* The report with a sed expression applied, audited. */
static json_t *audit_rewritten(const char *report, const char *sed)
{
    char dir[] = "/tmp/gpuvet-speed-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048], path[600];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    snprintf(cmd, sizeof cmd, "sed -E '%s' '%s' > '%s'", sed, report, path);
    cr_assert_eq(system(cmd), 0);
    json_t *doc = audit_report(path);
    tree_remove(dir);
    return doc;
}

/* The one MEM_SPEED_DOWNCLOCKED finding (borrowed). */
static json_t *speed_finding(json_t *doc)
{
    json_t *f = findings_of(doc, "MEM_SPEED_DOWNCLOCKED", "machine");
    cr_assert_eq(json_array_size(f), 1);
    json_t *one = json_array_get(f, 0);
    json_decref(f); /* the finding itself stays in doc */
    return one;
}

static const char *severity_of(json_t *f) { return json_string_value(json_object_get(f, "severity")); }
static const char *message_of(json_t *f) { return json_string_value(json_object_get(f, "message")); }

struct speed_case {
    const char *report;
    const char *severity;
    const char *message_part; /* must appear in the message */
};

static const struct speed_case reports[] = {
    /* Two Gold 6430 at 4400 with 4800 DIMMs: the 6430 is a DDR5-4400 part (a family row said 4800). */
    {"graviton-s2122-2p-xeon-gold6430-ddr5-4400", "pass", "4400 MT/s is the top speed of the Xeon Gold 6430"},
    /* E5-2640 v4 at 2133 with 2400 DIMMs: the E5-2600 v4 family tops out at 2400, this model at 2133. */
    {"cisco-ucsc-c220-m4s-2p-xeon-e5-2640v4-2133", "pass", "2133 MT/s is the top speed of the Xeon E5-2640 v4"},
    /* E5-2680 v4, two DIMMs per channel, 2133 DIMMs at 1866: below the 2133 of 2DPC. */
    {"supermicro-x10dri-2p-xeon-e5-2680v4-2dpc-1866", "warn", "with 2 DIMMs per channel"},
    /* Gold 5122 (a 2666 part among 2400 Gold 51xx) with DDR4-2400 DIMMs: the DIMMs are the limit. */
    {"hpe-dl380-gen10-2p-xeon-gold5122-ddr4-2400-dimms", "info", "slow DIMMs, not a downclock"},
    /* Gold 6526Y at 5200 with 5600 DIMMs, locators without channels. */
    {"hpe-dl380-gen11-2p-xeon-ddr5-8of32", "pass", "5200 MT/s is the top speed of the Xeon Gold 6526Y"},
    /* Silver 4114 at 2400 with 2666 DIMMs. */
    {"supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24", "pass", "2400 MT/s is the top speed of every Xeon Silver 41xx"},
    {"supermicro-sys4028gr-tr2-2p-xeon-ddr4-8of24-nodimm-locators", "pass", "rated 2400"},
    {"supermicro-as4124gs-tnr-2p-epyc-ddr4-16of32", "pass", "rated 3200"},
    {"gigabyte-g482-z54-2p-epyc-ddr4-16of32", "pass", "rated 3200"},
    {"huawei-taishan200-2p-kunpeng-ddr4-16of32", "pass", "rated 2933"},
    {"amd-ethanolx-2p-epyc-ddr4-16of32-p0-channel-a", "pass", "rated 3200"},
    {"qemu-standard-pc-vm", "unknown", "virtual machine"},
    /* E5620 at 1066 with 1333 DIMMs, one per channel: the E5620 is a DDR3-1066 part. */
    {"hp-dl380-g7-2p-xeon-e5620-ddr3-2of18", "pass", "1066 MT/s is the top speed of the Xeon E5620"},
    /* X5660 at 800 with quad-rank DIMMs, 2 per channel: the 1066 of 2DPC is for single- and dual-rank. */
    {"hp-dl380-g7-2p-xeon-x5660-ddr3-11of18-quad-rank", "unknown", "the DIMMs are quad-rank"},
    /* L5640 at 800 with 1333 DIMMs: the DL380 G6 slot map puts 3 DIMMs on channel 1, and 800 is
     * the 3-per-channel speed (unknown before the map: the channels were not known). */
    {"hp-dl380-g6-2p-xeon-l5640-ddr3-9of18-3dpc", "pass", "with 3 DIMMs per channel"},
    /* A Xeon 5400 has no memory controller: no CPU speed applies. */
    {"intel-s5000psl-2p-xeon-e5430-fsb", "unknown", "not given"},
};

Test(memory_speed_cli, every_report_gets_its_verdict)
{
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, GPUVET_TEST_SOURCE "/fixtures/dmidecode/%s.dmidecode.txt", reports[i].report);
        json_t *doc = audit_report(path);
        json_t *f = speed_finding(doc);
        cr_expect_str_eq(severity_of(f), reports[i].severity, "%s: %s", reports[i].report, message_of(f));
        cr_expect(strstr(message_of(f), reports[i].message_part), "%s: %s", reports[i].report, message_of(f));
        json_decref(doc);
    }
}

/* The evidence says what the verdict rests on: the model row, its scope, the DIMMs per channel. */
Test(memory_speed_cli, evidence_names_the_row_and_the_population)
{
    json_t *doc = audit_report(REPORT("supermicro-x10dri-2p-xeon-e5-2680v4-2dpc-1866"));
    json_t *ev = json_object_get(speed_finding(doc), "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "platform")), "Xeon E5-2680 v4");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "platform_scope")), "model");
    cr_assert_eq(json_integer_value(json_object_get(ev, "dimms_per_channel")), 2);
    cr_assert_eq(json_integer_value(json_object_get(ev, "cpu_top_mts")), 2133);
    cr_assert_eq(json_integer_value(json_object_get(ev, "configured_mts")), 1866);
    cr_assert_not_null(json_string_value(json_object_get(ev, "dpc_source")));
    json_t *platform = json_object_get(json_object_get(json_object_get(doc, "machine"), "memory"), "platform");
    cr_assert_eq(json_integer_value(json_object_get(platform, "mts")), 2400);
    cr_assert_eq(json_integer_value(json_object_get(platform, "mts_2dpc")), 2133);
    cr_assert_str_eq(json_string_value(json_object_get(platform, "scope")), "model");
    json_decref(doc);
}

/* The report rewritten by `sed` gets MEM_SPEED_DOWNCLOCKED `severity` with `part` in its message. */
static void expect_rewritten(const char *report, const char *sed, const char *severity, const char *part)
{
    json_t *doc = audit_rewritten(report, sed);
    json_t *f = speed_finding(doc);
    cr_expect_str_eq(severity_of(f), severity, "%s: %s", sed, message_of(f));
    cr_expect(strstr(message_of(f), part), "%s: %s", sed, message_of(f));
    json_decref(doc);
}

/* The same board with DDR4-2400 DIMMs at the 2DPC top speed is no longer a downclock. */
Test(memory_speed_cli, two_dimms_per_channel_at_their_top_speed_pass)
{
    expect_rewritten(REPORT("supermicro-x10dri-2p-xeon-e5-2680v4-2dpc-1866"),
                     "s/Configured Memory Speed: 1866/Configured Memory Speed: 2133/; s/^\\tSpeed: 2133/\\tSpeed: 2400/",
                     "pass", "2133 MT/s is the top speed of the Xeon E5-2680 v4 with 2 DIMMs per channel");
}

/* A model below its own top speed at one DIMM per channel is a downclock. */
Test(memory_speed_cli, below_the_model_top_speed_warns)
{
    expect_rewritten(REPORT("graviton-s2122-2p-xeon-gold6430-ddr5-4400"),
                     "s/Configured Memory Speed: 4400/Configured Memory Speed: 4000/", "warn",
                     "below the 4400 MT/s that is the top speed of the Xeon Gold 6430");
}

/* Locators name no channel and 2DPC is possible (16 slots, 8 channels per socket): a speed between the
 * 2DPC and the 1DPC top is not proven a downclock; below the 2DPC top it is. HPE's own DIMM location
 * records (OEM type 202) would name the channels: the rewrite hides them as an older BIOS would. */
Test(memory_speed_cli, unknown_channels_make_the_derated_speed_possible)
{
    const char *hpe = REPORT("hpe-dl380-gen11-2p-xeon-ddr5-8of32");
    expect_rewritten(hpe,
                     "s/DMI type 202,/DMI type 250,/; s/GOLD 6526Y/GOLD 6448Y/; "
                     "s/Configured Memory Speed: 5200/Configured Memory Speed: 4400/",
                     "unknown", "may put 2 DIMMs in one channel (there the top speed is 4400 MT/s)");
    expect_rewritten(hpe,
                     "s/DMI type 202,/DMI type 250,/; s/GOLD 6526Y/GOLD 6448Y/; "
                     "s/Configured Memory Speed: 5200/Configured Memory Speed: 4000/",
                     "warn", "even with 2 DIMMs per channel");
}

/* A model the table does not list falls to its family's lowest speed: at or above it nothing is proven. */
Test(memory_speed_cli, an_unlisted_model_is_judged_by_its_family_and_says_so)
{
    const char *cisco = REPORT("cisco-ucsc-c220-m4s-2p-xeon-e5-2640v4-2133");
    expect_rewritten(cisco, "s/E5-2640 v4/E5-2686 v4/", "unknown",
                     "the lowest top speed of any Xeon E5-2600 v4 with 1 DIMM per channel (Intel ARK; this model is "
                     "not in the table)");
    expect_rewritten(cisco, "s/E5-2640 v4/E5-2686 v4/; s/Configured Memory Speed: 2133/Configured Memory Speed: 1600/",
                     "warn", "below the 1866 MT/s that is the lowest top speed of any Xeon E5-2600 v4");
}

/* No row at all (a Westmere X5650 by name and CPUID): the CPU's limit is unknown, never a pass. */
Test(memory_speed_cli, no_row_is_unknown_not_a_pass)
{
    expect_rewritten(REPORT("cisco-ucsc-c220-m4s-2p-xeon-e5-2640v4-2133"),
                     "s/CPU E5-2640 v4 @ 2.40GHz/CPU E7- 4870 @ 2.40GHz/; s/ID: F1 06 04 00/ID: F2 06 02 00/",
                     "unknown", "the CPU's top speed is unknown: CPU \"Intel(R) Xeon(R) CPU E7- 4870 @ 2.40GHz\"");
}

/* Two DIMMs per channel on a CPU whose 2DPC speed the table lacks (Xeon Gold 62xx: boards run 2666 to
 * 2933 there): at the 1DPC top speed it passes, since no population runs faster; below it, the limit
 * is unknown. */
Test(memory_speed_cli, no_figure_for_the_population_is_unknown_below_the_top)
{
    const char *x10 = REPORT("supermicro-x10dri-2p-xeon-e5-2680v4-2dpc-1866");
    expect_rewritten(x10,
                     "s/CPU E5-2680 v4 @ 2.40GHz/Gold 6248 CPU @ 2.50GHz/; s/^\\tSpeed: 2133/\\tSpeed: 3200/; "
                     "s/Configured Memory Speed: 1866/Configured Memory Speed: 2933/",
                     "pass", "2933 MT/s is the top speed of every Xeon Gold 62xx (Cascade Lake) (Intel ARK) with any "
                     "number of DIMMs per channel");
    expect_rewritten(x10,
                     "s/CPU E5-2680 v4 @ 2.40GHz/Gold 6248 CPU @ 2.50GHz/; s/^\\tSpeed: 2133/\\tSpeed: 3200/; "
                     "s/Configured Memory Speed: 1866/Configured Memory Speed: 2666/",
                     "unknown", "with 2 DIMMs per channel, below the DIMMs' rated 3200; the table gives no top speed of "
                     "Xeon Gold 62xx (Cascade Lake) at that population");
}

/* Haswell-EP with two DIMMs per channel: boards run 1866 or 2133 there, so 1866 proves nothing; but no
 * population runs below the 1600 of three DIMMs per channel, so 1333 is a downclock. */
Test(memory_speed_cli, a_higher_population_figure_bounds_a_missing_one)
{
    const char *x10 = REPORT("supermicro-x10dri-2p-xeon-e5-2680v4-2dpc-1866");
    expect_rewritten(x10, "s/E5-2680 v4/E5-2680 v3/", "unknown",
                     "the table gives no top speed of Xeon E5-2680 v3 at that population");
    expect_rewritten(x10, "s/E5-2680 v4/E5-2680 v3/; s/Configured Memory Speed: 1866/Configured Memory Speed: 1333/",
                     "warn", "below 1600 MT/s, what Xeon E5-2680 v3 runs with 2 DIMMs per channel or more (Lenovo "
                     "System x3550 M5 manual)");
}
