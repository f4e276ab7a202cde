/* EDAC's DIMM positions in the forms the drivers write (drivers/edac/edac_mc.c: dimm_location is
 * "%s %d " per layer, the layers csrow, branch, channel, slot, memory; skx/i10nm and sb_edac write
 * the socket into the label). */
#include <criterion/criterion.h>

#include "probe/probe.h"

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
