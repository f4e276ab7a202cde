/* Memory rules: channels populated per socket, mixed DIMMs, downclocked DIMMs, ECC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"

#define GIB (1024.0 * 1024 * 1024)
#define ROOT_FIX "sudo gpuvet audit (SMBIOS is readable by root only), or: sudo dmidecode > dmi.txt; gpuvet audit --dmidecode dmi.txt"

/* No DIMM facts, or facts a VM made up: an unknown finding says why. Returns true when it did. */
static bool memory_unknown(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (ctx->machine->virt.vm) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?}", "hypervisor", ctx->machine->virt.hypervisor), NULL,
                    "a virtual machine: its DIMM table is made up by the hypervisor and proves nothing about the host");
        return true;
    }
    if (mem->ndimms == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?}", "reason", mem->unknown_reason), ROOT_FIX,
                    "no DIMM information: %s", mem->unknown_reason ? mem->unknown_reason : "no source");
        return true;
    }
    return false;
}

static json_t *socket_locators(const struct memory_info *mem, int socket)
{
    json_t *arr = json_array();
    for (int i = 0; i < mem->ndimms; i++)
        if (mem->dimms[i].socket == socket)
            json_array_append_new(arr, json_string(mem->dimms[i].locator ? mem->dimms[i].locator : "?"));
    return arr;
}

/* One socket: pass only when the locators prove every channel holds a DIMM; warn when they prove one
 * empty (a full channel map, or fewer DIMMs than channels); otherwise unknown, saying why. */
static void judge_socket_channels(struct audit_ctx *ctx, int s, int channels)
{
    const struct memory_info *mem = &ctx->machine->memory;
    char subject[32];
    snprintf(subject, sizeof subject, "socket %d", s);
    int dimms = memory_socket_dimms(mem, s);
    int unnamed, named = memory_socket_named_channels(mem, s, &unnamed);
    int populated = memory_socket_channels(mem, s);
    const char *basis = populated >= 0 ? "channels from locators"
                        : named > 0    ? "channels from locators for some DIMMs, DIMM count for the rest"
                                       : "DIMM count per socket (locators name no channel)";
    json_t *ev = json_pack("{s:i, s:i, s:o, s:i, s:i, s:i, s:s, s:s, s:s?, s:o}", "socket", s, "dimms", dimms,
                           "populated_channels", populated >= 0 ? json_integer(populated) : json_null(),
                           "named_channels", named, "dimms_without_channel", unnamed, "channels_per_socket", channels,
                           "platform", mem->platform.name, "basis", basis, "locator_scheme", mem->locator_scheme,
                           "locators", socket_locators(mem, s));
    char fix[160];
    if (populated > channels) {
        finding_add(ctx, SEV_UNKNOWN, subject, ev, NULL,
                    "the locators name %d channels on socket %d, more than the %d of the platform (%s): the channel "
                    "map or the platform row is wrong for this board", populated, s, channels, mem->platform.name);
    } else if (populated == channels) {
        finding_add(ctx, SEV_PASS, subject, ev, NULL, "all %d memory channels populated on socket %d", channels, s);
    } else if (populated >= 0) {
        snprintf(fix, sizeof fix, "add DIMMs so that each of the %d channels of socket %d holds one (the board "
                 "manual gives the slot order)", channels, s);
        finding_add(ctx, ctx_severity(ctx), subject, ev, fix,
                    "%d of %d memory channels populated on socket %d (%d DIMMs): bandwidth is %d/%d of what the "
                    "platform gives", populated, channels, s, dimms, populated, channels);
    } else if (named + unnamed < channels) {
        snprintf(fix, sizeof fix, "add DIMMs to socket %d so that each of its %d channels holds one", s, channels);
        finding_add(ctx, ctx_severity(ctx), subject, ev, fix,
                    "%d DIMMs on socket %d for %d channels: at most %d of %d channels populated (locators name "
                    "no channel for %d of them)", dimms, s, channels, named + unnamed, channels, unnamed);
    } else {
        finding_add(ctx, SEV_UNKNOWN, subject, ev, "read the slot of each DIMM against the board's population guide",
                    "%d DIMMs on socket %d for %d channels, but the locators (%s) name no channel for %d of them: "
                    "as many DIMMs as channels does not prove every channel holds one (two in one channel leave "
                    "another empty)", dimms, s, channels, mem->locator_scheme ? mem->locator_scheme : "no known scheme",
                    unnamed);
    }
}

void check_mem_channels_underpopulated(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (memory_unknown(ctx))
        return;
    int channels = mem->platform.channels_per_socket;
    if (channels <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?, s:i}", "reason", mem->platform_unknown_reason, "dimms",
                                                           mem->ndimms),
                    NULL, "channels per socket unknown: %s",
                    mem->platform_unknown_reason ? mem->platform_unknown_reason : "CPU not identified");
        return;
    }
    int unplaced = memory_socket_dimms(mem, -1);
    if (unplaced > 0) {
        /* Locators name no socket: only the total can be judged. */
        int need = channels * (mem->sockets > 0 ? mem->sockets : 1);
        json_t *ev = json_pack("{s:i, s:i, s:i, s:s}", "dimms", mem->ndimms, "sockets", mem->sockets,
                               "channels_per_socket", channels, "basis", "total count (locators name no socket)");
        if (mem->ndimms < need)
            finding_add(ctx, ctx_severity(ctx), "machine", ev, "populate one DIMM per channel on every socket",
                        "%d DIMMs for %d channels (%d sockets x %d): at least %d channels are empty", mem->ndimms, need,
                        mem->sockets, channels, need - mem->ndimms);
        else
            finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                        "%d DIMMs for %d channels, but the locators name no socket or channel: cannot tell whether "
                        "every channel holds one", mem->ndimms, need);
        return;
    }
    for (int s = 0; s < mem->sockets; s++)
        judge_socket_channels(ctx, s, channels);
}

/* Adds v to a JSON array of distinct integers. */
static void add_distinct(json_t *arr, json_int_t v)
{
    size_t i;
    json_t *it;
    json_array_foreach(arr, i, it) if (json_integer_value(it) == v) return;
    json_array_append_new(arr, json_integer(v));
}

void check_mem_dimms_mixed(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (memory_unknown(ctx))
        return;
    json_t *sizes = json_array(), *speeds = json_array(), *ranks = json_array();
    for (int i = 0; i < mem->ndimms; i++) {
        add_distinct(sizes, (json_int_t)mem->dimms[i].size_bytes);
        if (mem->dimms[i].speed_mts > 0)
            add_distinct(speeds, mem->dimms[i].speed_mts);
        if (mem->dimms[i].rank > 0)
            add_distinct(ranks, mem->dimms[i].rank);
    }
    bool mixed = json_array_size(sizes) > 1 || json_array_size(speeds) > 1 || json_array_size(ranks) > 1;
    json_t *ev = json_pack("{s:o, s:o, s:o, s:i}", "sizes_bytes", sizes, "speeds_mts", speeds, "ranks", ranks, "dimms",
                           mem->ndimms);
    if (mixed)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, "use identical DIMMs (size, speed, rank) in every channel",
                    "DIMMs differ in size, speed or rank: channels interleave unevenly and run at the slowest "
                    "module's speed");
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, "%d identical DIMMs (%.0f GiB each)", mem->ndimms,
                    mem->dimms[0].size_bytes / GIB);
}

void check_mem_speed_downclocked(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (memory_unknown(ctx))
        return;
    int rated = 0, configured = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        const struct dimm *d = &mem->dimms[i];
        if (d->speed_mts > 0 && (rated == 0 || d->speed_mts < rated))
            rated = d->speed_mts;
        if (d->configured_mts > 0 && (configured == 0 || d->configured_mts < configured))
            configured = d->configured_mts;
    }
    if (rated == 0 || configured == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, "the DIMMs' rated or configured speed is not given");
        return;
    }
    int expected = rated;
    if (mem->platform.mts > 0 && mem->platform.mts < expected)
        expected = mem->platform.mts;
    json_t *ev = json_pack("{s:i, s:i, s:o, s:i}", "rated_mts", rated, "configured_mts", configured, "platform_mts",
                           mem->platform.mts > 0 ? json_integer(mem->platform.mts) : json_null(), "expected_mts",
                           expected);
    if (configured < expected)
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    "check the BIOS memory frequency setting and the population (two DIMMs per channel lower the speed)",
                    "memory runs at %d MT/s, below the %d MT/s that both the DIMMs (%d) and the platform (%s) allow",
                    configured, expected, rated, mem->platform.mts > 0 ? mem->platform.name : "unknown");
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, "memory runs at %d MT/s (DIMMs rated %d)", configured, rated);
}

void check_mem_ecc_disabled(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    json_t *ev = json_pack("{s:s?, s:b}", "evidence", mem->ecc_evidence, "edac", mem->edac_present);
    if (ctx->machine->virt.vm) {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, "ask the provider whether the host runs ECC memory",
                    "a virtual machine: the SMBIOS ECC claim is the hypervisor's (QEMU always says Multi-bit ECC)");
    } else if (mem->ecc == ECC_ON) {
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, "ECC memory is on");
    } else if (mem->ecc == ECC_OFF) {
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    "use ECC (R)DIMMs and enable ECC in the BIOS; silent bit flips corrupt long training runs",
                    "memory has no ECC");
    } else {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, ROOT_FIX, "ECC state unknown: %s",
                    mem->unknown_reason ? mem->unknown_reason : "the SMBIOS table does not say");
    }
}

void check_mem_ecc_errors(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (ctx->machine->source && !strcmp(ctx->machine->source, "evidence")) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    "an SMBIOS evidence file carries no error counters (EDAC is read on the machine itself)");
        return;
    }
    if (!mem->edac_present) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, "load the EDAC driver of the platform (e.g. modprobe skx_edac)",
                    "no EDAC memory controller: the kernel counts no memory errors here");
        return;
    }
    json_t *ev = json_pack("{s:o, s:o}", "ce_count", mem->edac_ce >= 0 ? json_integer(mem->edac_ce) : json_null(),
                           "ue_count", mem->edac_ue >= 0 ? json_integer(mem->edac_ue) : json_null());
    if (mem->edac_ue > 0)
        finding_add(ctx, SEV_FAIL, "machine", ev, "replace the failing DIMM (see edac-util -v or the BMC's event log)",
                    "%ld uncorrected memory errors since boot", mem->edac_ue);
    else if (mem->edac_ce > 0)
        finding_add(ctx, SEV_WARN, "machine", ev, "watch /sys/devices/system/edac/mc/mc*/ce_count: a rising count "
                    "means a DIMM is failing",
                    "%ld corrected memory errors since boot (one reading cannot tell whether they are rising)",
                    mem->edac_ce);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, "no memory errors counted since boot");
}
