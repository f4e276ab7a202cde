/* Memory rules: channels populated per socket, mixed DIMMs, downclocked DIMMs, ECC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "rules/hints.h"
#include "util/i18n.h"
#include "util/sanitize.h"
#include "util/units.h"


/* No DIMM facts, or facts a VM made up: an unknown finding says why. Returns true when it did. */
static bool memory_unknown(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (ctx->machine->virt.vm) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?}", "hypervisor", ctx->machine->virt.hypervisor), NULL,
                    _("a virtual machine: its DIMM table is made up by the hypervisor and proves nothing about the host"));
        return true;
    }
    if (mem->ndimms == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?}", "reason", mem->unknown_reason), hint_smbios_fix(ctx->machine),
                    _("no DIMM information: %s"), mem->unknown_reason ? _(mem->unknown_reason) : _("no source"));
        return true;
    }
    return false;
}

static json_t *socket_locators(const struct memory_info *mem, int socket)
{
    json_t *arr = json_array();
    for (int i = 0; i < mem->ndimms; i++)
        if (mem->dimms[i].socket == socket)
            json_array_append_new(arr, json_text(mem->dimms[i].locator ? mem->dimms[i].locator : "?"));
    return arr;
}

/* Full slots prove nothing when the arrays do not confirm the slot count: says so. True when it did. */
static bool report_slots_unconfirmed(struct audit_ctx *ctx, const char *subject, json_t *ev)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (memory_slots_confirmed(mem))
        return false;
    char declared[64];
    snprintf(declared, sizeof declared, "%s", _("no count of"));
    if (mem->slots_declared >= 0)
        snprintf(declared, sizeof declared, "%d", mem->slots_declared);
    json_object_set_new(ev, "slots_declared", mem->slots_declared >= 0 ? json_integer(mem->slots_declared) : json_null());
    finding_add(ctx, SEV_UNKNOWN, subject, ev, _("read the slot of each DIMM against the board's population guide"),
                _("the DIMMs fill all %d slots the SMBIOS table lists, but its memory arrays declare %s slots (some "
                  "BIOSes list only the populated ones): the slot count is not known, nor whether every channel holds "
                  "a DIMM"),
                mem->slots_total, declared);
    return true;
}

/* Slots per socket, where the locators name no channel: when every slot of the socket holds a DIMM
 * (no empty slot placed on it, none that no locator places, no persistent module) and the slots are
 * k x the CPU's channels, every channel holds one. The listed slots count only when the type-16
 * arrays declare as many (summed over all of them, so every slot of every socket is listed). Returns
 * true when it added the finding: a pass, or an unknown saying the slot count is not confirmed.
 * A socket with one slot or more empty proves nothing by counting: a board may wire a channel to one
 * slot (12 slots on 8 channels leave four channels a single slot), and that slot may be the empty
 * one. A per-channel limit m would make more than (channels - 1) x m DIMMs a proof (pigeonhole), but
 * no limit holds on every board: buffered boards exceed the CPU's own (Cisco's UCS B250 M2 has 48
 * slots on two Xeon 5600s, 3 channels x 3 DIMMs each), and cpu-platforms.csv gives none. */
static bool judge_socket_full(struct audit_ctx *ctx, const char *subject, int s, int channels, json_t *ev)
{
    const struct memory_info *mem = &ctx->machine->memory;
    int slots = memory_socket_full_slots(mem, s);
    if (slots == 0)
        return false;
    if (report_slots_unconfirmed(ctx, subject, ev))
        return true;
    json_object_set_new(ev, "basis", json_string(_("every slot populated")));
    json_object_set_new(ev, "populated_channels", json_integer(channels));
    json_object_set_new(ev, "slots", json_integer(slots));
    json_object_set_new(ev, "slots_declared", json_integer(mem->slots_declared));
    finding_add(ctx, SEV_PASS, subject, ev, NULL,
                _("all %d slots of socket %d hold a DIMM (%d = %d x %d channels): every channel is populated"), slots, s,
                slots, slots / channels, channels);
    return true;
}

/* Locators that place no DIMM on a socket: when every slot of the machine holds a DIMM, every
 * socket is full; with k x channels slots per socket (the total split evenly) every channel holds one. */
static bool judge_machine_full(struct audit_ctx *ctx, int sockets, int channels, json_t *ev)
{
    const struct memory_info *mem = &ctx->machine->memory;
    int slots = memory_socket_full_slots(mem, -1);
    if (slots == 0)
        return false;
    if (report_slots_unconfirmed(ctx, "machine", ev))
        return true;
    json_object_set_new(ev, "basis", json_string(_("every slot populated")));
    json_object_set_new(ev, "slots", json_integer(slots));
    json_object_set_new(ev, "slots_declared", json_integer(mem->slots_declared));
    finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                _("all %d slots of the machine hold a DIMM (%d = %d sockets x %d x %d channels): every channel of "
                  "every socket is populated"), slots, slots, sockets, slots / (sockets * channels), channels);
    return true;
}

/* One socket: pass only when the locators prove every channel holds a DIMM; warn when they prove one
 * empty (a full channel map, or fewer DIMMs than channels); otherwise unknown, saying why. */
static void judge_socket_channels(struct audit_ctx *ctx, int s, int channels)
{
    const struct memory_info *mem = &ctx->machine->memory;
    char subject[32];
    snprintf(subject, sizeof subject, "socket %d", s); /* subjects stay English, like the rule IDs */
    int dimms = memory_socket_dimms(mem, s);
    int unnamed, named = memory_socket_named_channels(mem, s, &unnamed);
    int populated = memory_socket_channels_from_locators(mem, s);
    const char *basis = populated >= 0 ? _("channels from locators")
                        : named > 0    ? _("channels from locators for some DIMMs, DIMM count for the rest")
                                       : _("DIMM count per socket (locators name no channel)");
    json_t *ev = json_pack("{s:i, s:i, s:o, s:i, s:i, s:i, s:s, s:s, s:s?, s:o}", "socket", s, "dimms", dimms,
                           "populated_channels", populated >= 0 ? json_integer(populated) : json_null(),
                           "named_channels", named, "dimms_without_channel", unnamed, "channels_per_socket", channels,
                           "platform", mem->platform.name, "basis", basis, "locator_scheme", mem->locator_scheme,
                           "locators", socket_locators(mem, s));
    char fix[160];
    if (populated > channels) {
        finding_add(ctx, SEV_UNKNOWN, subject, ev, NULL,
                    _("the locators name %d channels on socket %d, more than the %d of the platform (%s): the channel "
                    "map or the platform row is wrong for this board"), populated, s, channels, mem->platform.name);
    } else if (populated == channels) {
        finding_add(ctx, SEV_PASS, subject, ev, NULL, _("all %d memory channels populated on socket %d"), channels, s);
    } else if (populated >= 0) {
        snprintf(fix, sizeof fix, _("add DIMMs so that each of the %d channels of socket %d holds one (the board "
                 "manual gives the slot order)"), channels, s);
        finding_add(ctx, ctx_severity(ctx), subject, ev, fix,
                    _("%d of %d memory channels populated on socket %d (%d DIMMs): bandwidth is %d/%d of what the "
                    "platform gives"), populated, channels, s, dimms, populated, channels);
    } else if (named + unnamed < channels) {
        snprintf(fix, sizeof fix, _("add DIMMs to socket %d so that each of its %d channels holds one"), s, channels);
        finding_add(ctx, ctx_severity(ctx), subject, ev, fix,
                    _("%d DIMMs on socket %d for %d channels: at most %d of %d channels populated (locators name "
                    "no channel for %d of them)"), dimms, s, channels, named + unnamed, channels, unnamed);
    } else if (!judge_socket_full(ctx, subject, s, channels, ev)) {
        finding_add(ctx, SEV_UNKNOWN, subject, ev, _("read the slot of each DIMM against the board's population guide"),
                    _("%d DIMMs on socket %d for %d channels, but the locators (%s) name no channel for %d of them: "
                    "as many DIMMs as channels does not prove every channel holds one (two in one channel leave "
                    "another empty)"), dimms, s, channels, mem->locator_scheme ? mem->locator_scheme : _("no known scheme"),
                    unnamed);
    }
}

void check_mem_channels_underpopulated(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (memory_unknown(ctx))
        return;
    int channels = mem->platform.channels_per_socket;
    if (mem->memory_controller_in_chipset) {
        /* Not "locators unread": the per-socket rule has nothing to count here. Still unknown, since
         * the chipset's own channels may be half empty and SMBIOS does not say. */
        finding_add(ctx, SEV_UNKNOWN, "machine",
                    json_pack("{s:b, s:s, s:s?, s:i}", "rule_applies", false, "basis",
                              "front-side bus: the memory controller is in the chipset", "reason",
                              mem->platform_unknown_reason, "dimms", mem->ndimms),
                    NULL, _("the per-socket channel rule does not apply: %s"),
                    mem->platform_unknown_reason ? _(mem->platform_unknown_reason) : _("no memory controller in the CPU"));
        return;
    }
    if (channels <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?, s:i}", "reason", mem->platform_unknown_reason, "dimms",
                                                           mem->ndimms),
                    NULL, _("channels per socket unknown: %s"),
                    mem->platform_unknown_reason ? _(mem->platform_unknown_reason) : _("CPU not identified"));
        return;
    }
    if (mem->sockets_disputed) {
        /* Judging "socket 1" of a one-socket board would fail a socket that is not there. */
        finding_add(ctx, SEV_UNKNOWN, "machine",
                    json_pack("{s:s, s:i, s:i, s:i, s:i}", "basis", "socket count in doubt", "sockets", mem->sockets,
                              "cpu_max_sockets", mem->platform.max_sockets, "dimms", mem->ndimms,
                              "channels_per_socket", channels),
                    _("check how many processors the board holds: `dmidecode -t 4` (`Status: Populated`), `lscpu`"),
                    _("channels per socket not judged: %s"), _(mem->sockets_disputed));
        return;
    }
    int unplaced = memory_socket_dimms(mem, -1);
    if (unplaced > 0) {
        /* Locators name no socket: only the total can be judged. */
        int need = channels * (mem->sockets > 0 ? mem->sockets : 1);
        json_t *ev = json_pack("{s:i, s:i, s:i, s:s}", "dimms", mem->ndimms, "sockets", mem->sockets,
                               "channels_per_socket", channels, "basis", _("total count (locators name no socket)"));
        if (mem->ndimms < need)
            finding_add(ctx, ctx_severity(ctx), "machine", ev, _("populate one DIMM per channel on every socket"),
                        _("%d DIMMs for %d channels (%d sockets x %d): at least %d channels are empty"), mem->ndimms, need,
                        mem->sockets, channels, need - mem->ndimms);
        else if (!judge_machine_full(ctx, mem->sockets > 0 ? mem->sockets : 1, channels, ev))
            finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                        _("%d DIMMs for %d channels, but the locators name no socket or channel: cannot tell whether "
                        "every channel holds one"), mem->ndimms, need);
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
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("use identical DIMMs (size, speed, rank) in every channel"),
                    _("DIMMs differ in size, speed or rank: channels interleave unevenly and run at the slowest "
                    "module's speed"));
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("%d identical DIMMs (%.0f GiB each)"), mem->ndimms,
                    mem->dimms[0].size_bytes / GIB);
}

/* The CPU's top speed for the DIMMs per channel the machine has, or the range it may have. */
struct speed_limit {
    int dpc;              /* DIMMs per channel from the locators; 0 unknown */
    int per_socket;       /* most DIMMs on one socket */
    int dpc_low, dpc_high; /* without a channel map: the DIMMs per channel the count allows */
    int best;             /* top MT/s at dpc_low; 0 no figure */
    int worst;            /* lower bound of the top MT/s at dpc_high; 0 none */
};

static int top_at_dpc(const struct cpu_platform *p, int dpc)
{
    return dpc >= 1 && dpc <= PLATFORM_MAX_DPC ? p->mts_at_dpc[dpc] : 0;
}

/* Speeds only drop as DIMMs are added: the first figure at dpc or more is a lower bound of the top
 * speed at dpc (a 3DPC figure bounds a missing 2DPC one). 0: none. */
static int floor_at_dpc(const struct cpu_platform *p, int dpc)
{
    for (int d = dpc > 1 ? dpc : 1; d <= PLATFORM_MAX_DPC; d++)
        if (p->mts_at_dpc[d] > 0)
            return p->mts_at_dpc[d];
    return 0;
}

static int ceil_div(int a, int b) { return b > 0 ? (a + b - 1) / b : 0; }

static struct speed_limit speed_limit_of(const struct memory_info *mem)
{
    struct speed_limit l = {0};
    const struct cpu_platform *p = &mem->platform;
    l.dpc = memory_max_dimms_per_channel(mem);
    if (l.dpc > 0) {
        l.dpc_low = l.dpc_high = l.dpc;
        l.best = top_at_dpc(p, l.dpc);
        l.worst = floor_at_dpc(p, l.dpc);
        return l;
    }
    int sockets = mem->sockets > 0 ? mem->sockets : 1, channels = p->channels_per_socket;
    int per_socket = ceil_div(memory_socket_dimms(mem, -1), sockets);
    for (int s = 0; s < mem->sockets; s++)
        if (memory_socket_dimms(mem, s) > per_socket)
            per_socket = memory_socket_dimms(mem, s);
    /* With no channel named, any channel may hold up to its slot count (the board's slots per channel). */
    int slots_per_channel =
        mem->slots_total > 0 ? ceil_div(mem->slots_total, sockets * channels) : PLATFORM_MAX_DPC;
    l.per_socket = per_socket;
    l.dpc_low = ceil_div(per_socket, channels);
    l.dpc_high = per_socket < slots_per_channel ? per_socket : slots_per_channel;
    if (l.dpc_high > PLATFORM_MAX_DPC)
        l.dpc_high = PLATFORM_MAX_DPC;
    if (l.dpc_high < l.dpc_low)
        l.dpc_high = l.dpc_low;
    l.best = top_at_dpc(p, l.dpc_low);
    l.worst = floor_at_dpc(p, l.dpc_high);
    return l;
}

/* "the top speed of the Xeon E5-2640 v4 with 2 DIMMs per channel (Intel ARK)" and its variants. */
static void describe_top(char *buf, size_t len, const struct cpu_platform *p, int dpc)
{
    char per_channel[48] = "";
    if (dpc > 0)
        snprintf(per_channel, sizeof per_channel, _(" with %d DIMM%s per channel"), dpc, dpc > 1 ? "s" : "");
    /* Figures for 2 or 3 DIMMs per channel come from a second source: name both. */
    char sources[160];
    if (dpc > 1 && p->dpc_source_label)
        snprintf(sources, sizeof sources, _("%s; with %d per channel: %s"), p->source_label, dpc, p->dpc_source_label);
    else
        snprintf(sources, sizeof sources, "%s", p->source_label);
    if (p->scope == PLATFORM_FAMILY)
        snprintf(buf, len, _("the lowest top speed of any %s%s (%s; this model is not in the table)"), p->name,
                 per_channel, sources);
    else
        snprintf(buf, len, p->scope == PLATFORM_MODEL ? _("the top speed of the %s%s (%s)")
                                                      : _("the top speed of every %s%s (%s)"),
                 p->name, per_channel, sources);
}

/* Firmware rounds speed grades both ways (2933 or 2934, 1066 or 1067): within 1 % is the same grade. */
static bool reaches(int mts, int limit) { return (long)mts * 100 >= (long)limit * 99; }

#define QUAD_RANK_UNKNOWN                                                                                        \
    _("memory runs at %d MT/s, below %d MT/s, but the DIMMs are quad-rank: the table's figures for %s are for "  \
      "single- and dual-rank DIMMs, and quad-rank ones run slower at the same population")

#define SPEED_FIX                                                                                                \
    _("check the BIOS memory frequency and power profile settings, and that the DIMMs are the type the board runs " \
      "at full speed")

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
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("the DIMMs' rated or configured speed is not given"));
        return;
    }
    /* Quad-rank DIMMs load the channel more: they run below the single- and dual-rank figures the
     * table gives (HP's Xeon 5500 table: 1066 MT/s at one per channel where dual-rank run 1333). */
    bool quad_rank = false;
    for (int i = 0; i < mem->ndimms; i++)
        quad_rank = quad_rank || mem->dimms[i].rank >= 4;
    const struct cpu_platform *p = &mem->platform;
    bool have_platform = p->name && p->channels_per_socket > 0;
    struct speed_limit l = have_platform ? speed_limit_of(mem) : (struct speed_limit){0};
    json_t *possible = l.dpc == 0 && l.dpc_low > 0 ? json_pack("[i, i]", l.dpc_low, l.dpc_high) : json_null();
    json_t *ev = json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:s?, s:s?, s:s?, s:s?}", "rated_mts", rated,
                           "configured_mts", configured, "cpu_top_mts", l.best > 0 ? json_integer(l.best) : json_null(),
                           "cpu_top_mts_worst_case", l.worst > 0 ? json_integer(l.worst) : json_null(),
                           "dimms_per_channel", l.dpc > 0 ? json_integer(l.dpc) : json_null(),
                           "dimms_per_channel_possible", possible, "platform", p->name, "platform_scope",
                           have_platform ? platform_scope_name(p->scope) : NULL, "source", p->source, "dpc_source",
                           p->dpc_source);
    char top[256];
    if (reaches(configured, rated)) {
        if (l.best > 0 && !reaches(rated, l.best)) {
            describe_top(top, sizeof top, p, l.dpc);
            finding_add(ctx, SEV_INFO, "machine", ev, _("DIMMs rated for the CPU's speed would add bandwidth"),
                        _("the DIMMs run at their rated %d MT/s, below the %d MT/s that is %s: slow DIMMs, not a "
                        "downclock"), configured, l.best, top);
        } else {
            finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("memory runs at its DIMMs' rated %d MT/s"), configured);
        }
        return;
    }
    /* Below the DIMMs' rating: the CPU's top speed for this population decides. */
    if (!have_platform) {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                    _("memory runs at %d MT/s, below the DIMMs' rated %d, and the CPU's top speed is unknown: %s"),
                    configured, rated,
                    mem->platform_unknown_reason ? _(mem->platform_unknown_reason) : _("CPU not identified"));
        return;
    }
    if (l.best == 0) {
        /* No figure for this population, but no population runs faster than one DIMM per channel. */
        if (p->scope != PLATFORM_FAMILY && reaches(configured, p->mts)) {
            describe_top(top, sizeof top, p, 0);
            finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("%d MT/s is %s with any number of DIMMs per channel "
                        "(DIMMs rated %d)"), p->mts, top, rated);
            return;
        }
        int floor = l.worst > 0 && l.worst < rated ? l.worst : rated;
        if (l.worst > 0 && !reaches(configured, floor) && quad_rank) {
            finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL, QUAD_RANK_UNKNOWN, configured, floor, p->name);
            return;
        }
        if (l.worst > 0 && !reaches(configured, floor)) {
            finding_add(ctx, ctx_severity(ctx), "machine", ev, SPEED_FIX,
                        _("memory runs at %d MT/s, below %d MT/s, what %s runs with %d DIMMs per channel or more (%s), "
                        "and the DIMMs' rated %d"), configured, floor, p->name, l.dpc_high,
                        p->dpc_source_label ? p->dpc_source_label : p->source_label, rated);
            return;
        }
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                    _("memory runs at %d MT/s with %s%d DIMMs per channel, below the DIMMs' rated %d; the table gives "
                    "no top speed of %s at that population"), configured, l.dpc ? "" : _("at least "), l.dpc_low, rated,
                    p->name);
        return;
    }
    /* Without a channel map, more DIMMs than channels proves at least dpc_low per channel. */
    describe_top(top, sizeof top, p, l.dpc ? l.dpc : l.dpc_low > 1 ? l.dpc_low : 0);
    if (reaches(configured, l.best)) {
        if (p->scope == PLATFORM_FAMILY)
            finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                        _("memory runs at %d MT/s (DIMMs rated %d): at or above %d MT/s, %s; whether this model runs "
                        "faster is unknown"), configured, rated, l.best, top);
        else
            finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("%d MT/s is %s (DIMMs rated %d)"), l.best, top, rated);
        return;
    }
    int worst_expected = l.worst > 0 && l.worst < rated ? l.worst : rated;
    if (quad_rank && (l.dpc > 0 || (l.worst > 0 && !reaches(configured, worst_expected)))) {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL, QUAD_RANK_UNKNOWN, configured, l.dpc > 0 ? l.best : worst_expected,
                    p->name);
        return;
    }
    if (l.dpc > 0 || (l.worst > 0 && !reaches(configured, worst_expected))) {
        if (l.dpc > 0)
            finding_add(ctx, ctx_severity(ctx), "machine", ev, SPEED_FIX,
                        _("memory runs at %d MT/s, below the %d MT/s that is %s, and the DIMMs' rated %d"), configured,
                        l.best, top, rated);
        else
            finding_add(ctx, ctx_severity(ctx), "machine", ev, SPEED_FIX,
                        _("memory runs at %d MT/s, below %d MT/s even with %d DIMM%s per channel (the locators name "
                        "no channel; %d MT/s is %s), and the DIMMs' rated %d"), configured, worst_expected, l.dpc_high,
                        l.dpc_high > 1 ? "s" : "", l.best, top, rated);
        return;
    }
    char derated[256];
    snprintf(derated, sizeof derated, "%s", _("the table has no figure for it"));
    if (l.worst > 0)
        snprintf(derated, sizeof derated, _("there the top speed is %d MT/s"), l.worst);
    finding_add(ctx, SEV_UNKNOWN, "machine", ev,
                _("name the slots: sudo dmidecode -t 17 (Locator, Bank Locator) against the board manual"),
                _("memory runs at %d MT/s, below the %d MT/s that is %s; but the locators name no channel, and %d "
                "DIMMs per socket may put %d DIMMs in one channel (%s)"), configured, l.best, top, l.per_socket,
                l.dpc_high, derated);
}

void check_mem_ecc_disabled(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    json_t *ev = json_pack("{s:s?, s:b}", "evidence", mem->ecc_evidence, "edac", mem->edac_present);
    if (ctx->machine->virt.vm) {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, _("ask the provider whether the host runs ECC memory"),
                    _("a virtual machine: the SMBIOS ECC claim is the hypervisor's (QEMU always says Multi-bit ECC)"));
    } else if (mem->ecc == ECC_ON) {
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("ECC memory is on"));
    } else if (mem->ecc == ECC_OFF) {
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    _("use ECC (R)DIMMs and enable ECC in the BIOS; silent bit flips corrupt long training runs"),
                    _("memory has no ECC"));
    } else {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, hint_smbios_fix(ctx->machine), _("ECC state unknown: %s"),
                    mem->unknown_reason ? _(mem->unknown_reason) : _("the SMBIOS table does not say"));
    }
}

void check_mem_ecc_errors(struct audit_ctx *ctx)
{
    const struct memory_info *mem = &ctx->machine->memory;
    if (machine_from_evidence(ctx->machine)) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    _("an SMBIOS evidence file carries no error counters (EDAC is read on the machine itself)"));
        return;
    }
    if (!mem->edac_present) {
        /* The platform's own driver; none to name on ARM/POWER (firmware reports) or in a VM. */
        const char *module = ctx->machine->virt.vm ? NULL : hint_edac_module(&ctx->machine->cpu);
        char fix[96];
        if (module)
            snprintf(fix, sizeof fix, _("load the platform's EDAC driver: sudo modprobe %s"), module);
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, module ? fix : NULL,
                    _("no EDAC memory controller: the kernel counts no memory errors here"));
        return;
    }
    json_t *ev = json_pack("{s:o, s:o}", "ce_count", mem->edac_ce >= 0 ? json_integer(mem->edac_ce) : json_null(),
                           "ue_count", mem->edac_ue >= 0 ? json_integer(mem->edac_ue) : json_null());
    if (mem->edac_ue > 0)
        finding_add(ctx, SEV_FAIL, "machine", ev, _("replace the failing DIMM (see edac-util -v or the BMC's event log)"),
                    _("%ld uncorrected memory errors since boot"), mem->edac_ue);
    else if (mem->edac_ce > 0)
        finding_add(ctx, SEV_WARN, "machine", ev, _("watch /sys/devices/system/edac/mc/mc*/ce_count: a rising count "
                    "means a DIMM is failing"),
                    _("%ld corrected memory errors since boot (one reading cannot tell whether they are rising)"),
                    mem->edac_ce);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("no memory errors counted since boot"));
}
