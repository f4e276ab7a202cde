/* EDAC's DIMM positions in the forms the drivers write (drivers/edac/edac_mc.c: dimm_location is
 * "%s %d " per layer, the layers csrow, branch, channel, slot, memory; skx/i10nm and sb_edac write
 * the socket into the label). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "testutil.h"
#include "util/fsroot.h"

static void expect_position(const char *label, const char *location, int socket, int channel)
{
    int s, c;
    edac_position(label, location, &s, &c);
    cr_expect_eq(s, socket, "%s | %s: socket %d", label ? label : "-", location ? location : "-", s);
    cr_expect_eq(c, channel, "%s | %s: channel %d", label ? label : "-", location ? location : "-", c);
}

Test(edac_position, every_driver_family)
{
    /* skx_edac / i10nm: one controller per memory controller; the socket is the SrcID. */
    expect_position("CPU_SrcID#1_MC#2_Chan#1_DIMM#0", "channel 1 slot 0 ", 1, 2 * 64 + 1);
    /* sb_edac (Sandy Bridge to Broadwell EP): the home agent in place of MC. */
    expect_position("CPU_SrcID#0_Ha#1_Chan#3_DIMM#1", "channel 3 slot 1 ", 0, 64 + 3);
    /* amd64_edac: chip select and channel, the default label; no socket in either. */
    expect_position("mc#1csrow#2channel#1", "csrow 2 channel 1 ", -1, 1);
    /* i5000 / i5400 / i7300: two channels per branch. */
    expect_position(NULL, "branch 1 channel 0 slot 2 ", -1, 64);
    expect_position(NULL, "branch 0 channel 1 slot 0 ", -1, 1);
    /* Drivers with one layer for all memory: no channel. */
    expect_position("mc#0memory#5", "memory 5 ", -1, -1);
    /* A board label written by rasdaemon or a user, and garbage. */
    expect_position("DIMM_A1", "channel 2 slot 0 ", -1, 2);
    expect_position("DIMM_A1", NULL, -1, -1);
    expect_position(NULL, "channel 99999 slot 0 ", -1, -1);
    expect_position(NULL, "", -1, -1);
}

/* A hostile label's numbers are no position: too large for an int (the socket came out -1 and the
 * channel then had the controller's offset added past INT_MAX), or longer than any driver writes. */
Test(edac_position, hostile_numbers_are_no_position)
{
    expect_position("CPU#4294967295Channel#2147483647_DIMM#0", NULL, -1, -1);
    expect_position("CPU_SrcID#4294967295_MC#4294967295_Chan#4294967295_DIMM#0", NULL, -1, -1);
    expect_position("CPU_SrcID#99999999999999999999_Channel#1_DIMM#0", NULL, -1, -1);
    expect_position("CPU_SrcID#0_MC#300_Chan#1_DIMM#0", NULL, -1, -1);
    expect_position(NULL, "channel 99999999999999999999 slot 0 ", -1, -1);
    expect_position("CPU#1Channel#2_DIMM#0", NULL, 1, 2);
}

Test(edac_position, i7core_label_names_socket_and_channel)
{
    /* i7core_edac's label (rasdaemon pull request 142, a Xeon X3470: "CPU#0Channel#1_DIMM#0"). */
    expect_position("CPU#0Channel#1_DIMM#0", "channel 1 slot 0 ", 0, 1);
    expect_position("CPU#1Channel#2_DIMM#1", NULL, 1, 2);
}

/* edac_read_dimms on trees laid out as Documentation/admin-guide/ras.rst describes them: mcN/dimmM
 * or mcN/rankM (dimm_label, dimm_location, size in MiB), or the legacy mcN/csrowK (size_mb for the
 * row over its channels, chM_dimm_label, chM_ce_count, mem_type, edac_mode). Each file is written
 * under a fresh root; entry e is "DIR/FILE=TEXT". */
static char *edac_tree(const char *const *entries)
{
    char tmpl[] = "/tmp/gpuvet-edac-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    for (int i = 0; entries[i]; i++) {
        char rel[256], cmd[1024];
        const char *eq = strchr(entries[i], '=');
        cr_assert_not_null(eq);
        snprintf(rel, sizeof rel, "sys/devices/system/edac/mc/%.*s", (int)(eq - entries[i]), entries[i]);
        snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\"", tmpl, rel);
        cr_assert_eq(system(cmd), 0);
        char text[128];
        snprintf(text, sizeof text, "%s\n", eq + 1);
        tree_write(tmpl, rel, text);
    }
    return strdup(tmpl);
}

struct read_result {
    struct dimm *d;
    int n, ungrouped;
};

static struct read_result read_tree(const char *const *entries, int sockets)
{
    char *root = edac_tree(entries);
    fsroot_set(root);
    struct machine m;
    machine_init(&m);
    m.cpu.sockets = sockets;
    struct read_result r;
    r.n = edac_read_dimms(&m, &r.d, &r.ungrouped);
    machine_free(&m);
    fsroot_set(NULL);
    tree_remove(root);
    free(root);
    return r;
}

static void read_result_free(struct read_result *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->d[i].locator);
        free(r->d[i].bank_locator);
        free(r->d[i].type);
    }
    free(r->d);
}

/* An e7xxx-style chipset in dual-channel mode, built to the legacy layout: rows 0 and 1 are the two
 * sides of the DIMM pair in slot 1 (one DIMM per channel, 512 MiB a side), row 2 a single-sided pair;
 * the labels as a labels database (edac-ctl --register-labels) writes them, one per slot. */
Test(edac_read, legacy_csrows_with_board_labels_give_modules_and_ranks)
{
    static const char *const tree[] = {
        "mc0/ce_count=0",
        "mc0/csrow0/size_mb=1024", "mc0/csrow0/mem_type=Registered-DDR", "mc0/csrow0/edac_mode=S4ECD4ED",
        "mc0/csrow0/ch0_dimm_label=DIMM_1A", "mc0/csrow0/ch0_ce_count=2",
        "mc0/csrow0/ch1_dimm_label=DIMM_1B", "mc0/csrow0/ch1_ce_count=0",
        "mc0/csrow1/size_mb=1024", "mc0/csrow1/mem_type=Registered-DDR",
        "mc0/csrow1/ch0_dimm_label=DIMM_1A", "mc0/csrow1/ch0_ce_count=3",
        "mc0/csrow1/ch1_dimm_label=DIMM_1B", "mc0/csrow1/ch1_ce_count=0",
        "mc0/csrow2/size_mb=512", "mc0/csrow2/mem_type=Registered-DDR",
        "mc0/csrow2/ch0_dimm_label=DIMM_2A", "mc0/csrow2/ch0_ce_count=0",
        "mc0/csrow2/ch1_dimm_label=DIMM_2B", "mc0/csrow2/ch1_ce_count=0",
        NULL};
    struct read_result r = read_tree(tree, 1);
    cr_assert_eq(r.n, 4);
    cr_expect_eq(r.ungrouped, 0);
    static const struct {
        const char *label;
        int channel, rank;
        long mib, ce;
    } want[] = {{"DIMM_1A", 0, 2, 1024, 5}, {"DIMM_1B", 1, 2, 1024, 0}, {"DIMM_2A", 0, 1, 256, 0}, {"DIMM_2B", 1, 1, 256, 0}};
    for (int i = 0; i < 4; i++) {
        cr_expect_str_eq(r.d[i].locator, want[i].label);
        cr_expect_eq(r.d[i].channel, want[i].channel, "%s", want[i].label);
        cr_expect_eq(r.d[i].socket, 0, "one controller, one socket: %s", want[i].label);
        cr_expect_eq(r.d[i].rank, want[i].rank, "%s: rank %d", want[i].label, r.d[i].rank);
        cr_expect_eq(r.d[i].size_bytes, (uint64_t)want[i].mib << 20, "%s", want[i].label);
        cr_expect_eq(r.d[i].ce_count, want[i].ce, "%s", want[i].label);
        cr_expect_str_eq(r.d[i].type, "DDR");
    }
    read_result_free(&r);
}

/* The same rows as a kernel before 3.5 left them, labels empty: which rows share a DIMM is unknown,
 * so each row-channel stays apart and is counted as ungrouped; no rank is claimed. A row whose size
 * does not split evenly over its channels is not believed. */
Test(edac_read, legacy_csrows_without_labels_stay_apart)
{
    static const char *const tree[] = {
        "mc0/csrow0/size_mb=1024", "mc0/csrow0/ch0_dimm_label=", "mc0/csrow0/ch0_ce_count=0",
        "mc0/csrow0/ch1_dimm_label=", "mc0/csrow0/ch1_ce_count=0",
        "mc0/csrow1/size_mb=1024", "mc0/csrow1/ch0_ce_count=0", "mc0/csrow1/ch1_ce_count=0",
        "mc0/csrow2/size_mb=1023", "mc0/csrow2/ch0_ce_count=0", "mc0/csrow2/ch1_ce_count=0",
        NULL};
    struct read_result r = read_tree(tree, 1);
    cr_assert_eq(r.n, 4);
    cr_expect_eq(r.ungrouped, 4);
    for (int i = 0; i < 4; i++) {
        cr_expect_null(r.d[i].locator);
        cr_expect_eq(r.d[i].rank, 0);
        cr_expect_eq(r.d[i].size_bytes, (uint64_t)512 << 20);
        cr_expect_eq(r.d[i].channel, i % 2);
    }
    cr_expect_str_eq(r.d[3].bank_locator, "csrow 1 channel 1 ");
    read_result_free(&r);
}

/* Recorded labels: edac-ctl --print-labels on an ASRock X99M Killer (rasdaemon issue 52) lists
 * mc0/csrow0/ch0_dimm_label .. ch3_dimm_label holding sb_edac's CPU_SrcID#0_Ha#0_Chan#N_DIMM#0 (the
 * legacy rows of a DIMM-layer driver: one DIMM each, the rank not given). The size is built (not in
 * the listing): 4 x 8 GiB. */
Test(edac_read, legacy_csrow_of_a_dimm_layer_driver)
{
    static const char *const tree[] = {
        "mc0/csrow0/size_mb=32768",
        "mc0/csrow0/ch0_dimm_label=CPU_SrcID#0_Ha#0_Chan#0_DIMM#0", "mc0/csrow0/ch0_ce_count=0",
        "mc0/csrow0/ch1_dimm_label=CPU_SrcID#0_Ha#0_Chan#1_DIMM#0", "mc0/csrow0/ch1_ce_count=0",
        "mc0/csrow0/ch2_dimm_label=CPU_SrcID#0_Ha#0_Chan#2_DIMM#0", "mc0/csrow0/ch2_ce_count=0",
        "mc0/csrow0/ch3_dimm_label=CPU_SrcID#0_Ha#0_Chan#3_DIMM#0", "mc0/csrow0/ch3_ce_count=0",
        NULL};
    struct read_result r = read_tree(tree, 1);
    cr_assert_eq(r.n, 4);
    cr_expect_eq(r.ungrouped, 0);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(r.d[i].channel, i);
        cr_expect_eq(r.d[i].socket, 0);
        cr_expect_eq(r.d[i].rank, 0, "a DIMM-layer label names a DIMM, not a rank");
        cr_expect_eq(r.d[i].size_bytes, (uint64_t)8192 << 20);
    }
    read_result_free(&r);
}

/* Recorded labels: ras-mc-ctl --print-labels on an ASUS PRIME X570-PRO (amd64_edac; rasdaemon pull
 * request 44): "mc0 csrow 2 channel 0" and "csrow 3 channel 0" DIMM_B2, "csrow 2 channel 1" and
 * "csrow 3 channel 1" DIMM_A2; the default labels before registering were "mc#0csrow#2channel#1".
 * The rank* entries and their 8 GiB sizes are built (the listing gives none). With both layouts
 * present (CONFIG_EDAC_LEGACY_SYSFS), the rank* entries are read and the csrow rows not again. */
Test(edac_read, amd64_chip_selects_under_board_labels_are_dual_rank_modules)
{
    static const char *const labelled[] = {
        "mc0/rank4/size=8192", "mc0/rank4/dimm_location=csrow 2 channel 0 ", "mc0/rank4/dimm_label=DIMM_B2",
        "mc0/rank5/size=8192", "mc0/rank5/dimm_location=csrow 2 channel 1 ", "mc0/rank5/dimm_label=DIMM_A2",
        "mc0/rank6/size=8192", "mc0/rank6/dimm_location=csrow 3 channel 0 ", "mc0/rank6/dimm_label=DIMM_B2",
        "mc0/rank7/size=8192", "mc0/rank7/dimm_location=csrow 3 channel 1 ", "mc0/rank7/dimm_label=DIMM_A2",
        "mc0/rank7/dimm_mem_type=Unbuffered-DDR4",
        "mc0/csrow2/size_mb=16384", "mc0/csrow2/ch0_dimm_label=DIMM_B2", "mc0/csrow2/ch1_dimm_label=DIMM_A2",
        NULL};
    struct read_result r = read_tree(labelled, 1);
    cr_assert_eq(r.n, 2);
    cr_expect_eq(r.ungrouped, 0);
    cr_expect_str_eq(r.d[0].locator, "DIMM_B2");
    cr_expect_eq(r.d[0].channel, 0);
    cr_expect_str_eq(r.d[1].locator, "DIMM_A2");
    cr_expect_eq(r.d[1].channel, 1);
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(r.d[i].rank, 2);
        cr_expect_eq(r.d[i].size_bytes, (uint64_t)16384 << 20);
    }
    read_result_free(&r);

    static const char *const defaults[] = {
        "mc0/rank4/size=8192", "mc0/rank4/dimm_location=csrow 2 channel 0 ", "mc0/rank4/dimm_label=mc#0csrow#2channel#0",
        "mc0/rank5/size=8192", "mc0/rank5/dimm_location=csrow 2 channel 1 ", "mc0/rank5/dimm_label=mc#0csrow#2channel#1",
        "mc0/rank6/size=8192", "mc0/rank6/dimm_location=csrow 3 channel 0 ", "mc0/rank6/dimm_label=DIMM_B2",
        NULL};
    r = read_tree(defaults, 1);
    cr_expect_eq(r.n, 3, "one default label leaves the controller's chip selects apart");
    cr_expect_eq(r.ungrouped, 2);
    for (int i = 0; i < r.n; i++)
        cr_expect_eq(r.d[i].rank, 0);
    read_result_free(&r);
}
