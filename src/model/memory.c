#include "model/memory.h"

#include <stdlib.h>
#include <string.h>


void memory_info_init(struct memory_info *mem)
{
    memset(mem, 0, sizeof *mem);
    mem->installed_bytes = mem->usable_bytes = -1;
    mem->slots_total = mem->slots_declared = -1;
    mem->edac_ce = mem->edac_ue = -1;
    mem->pcie_slots_total = mem->pcie_slots_free = -1;
}

int memory_socket_empty_slots(const struct memory_info *mem, int socket)
{
    int n = 0;
    for (int i = 0; i < mem->nempty_slots; i++)
        n += mem->empty_slots[i].socket == socket;
    return n;
}

int memory_socket_persistent(const struct memory_info *mem, int socket)
{
    int n = 0;
    for (int i = 0; i < mem->npersistent; i++)
        n += mem->persistent[i].socket == socket;
    return n;
}

bool memory_slots_confirmed(const struct memory_info *mem)
{
    return mem->slots_total > 0 && mem->slots_declared == mem->slots_total;
}

int memory_socket_dimms(const struct memory_info *mem, int socket)
{
    int n = 0;
    for (int i = 0; i < mem->ndimms; i++)
        n += mem->dimms[i].socket == socket;
    return n;
}

int memory_socket_named_channels(const struct memory_info *mem, int socket, int *unnamed)
{
    int n = 0;
    *unnamed = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        const struct dimm *d = &mem->dimms[i];
        if (d->socket != socket)
            continue;
        if (d->channel < 0) {
            (*unnamed)++;
            continue;
        }
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = mem->dimms[k].socket == socket && mem->dimms[k].channel == d->channel;
        n += !seen;
    }
    return n;
}

const char *platform_scope_name(enum platform_scope scope)
{
    switch (scope) {
    case PLATFORM_MODEL: return "model";
    case PLATFORM_MODELS: return "models";
    case PLATFORM_FAMILY: break;
    }
    return "family";
}

int memory_max_dimms_per_channel(const struct memory_info *mem)
{
    if (!mem->channels_from_locators)
        return 0;
    int most = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        const struct dimm *d = &mem->dimms[i];
        if (d->socket < 0 || d->channel < 0)
            return 0;
        int same = 0;
        for (int k = 0; k < mem->ndimms; k++)
            same += mem->dimms[k].socket == d->socket && mem->dimms[k].channel == d->channel;
        /* A persistent module in a DRAM channel loads it as a second DIMM does (Intel's Optane
         * population rules run such channels at the 2DPC speed). */
        for (int k = 0; k < mem->npersistent; k++)
            same += mem->persistent[k].socket == d->socket && mem->persistent[k].channel == d->channel;
        if (same > most)
            most = same;
    }
    return most;
}

int memory_socket_channels_from_locators(const struct memory_info *mem, int socket)
{
    int unnamed, named = memory_socket_named_channels(mem, socket, &unnamed);
    int platform = mem->platform.channels_per_socket;
    if (unnamed == 0 || (platform > 0 && named >= platform))
        return named;
    return -1;
}

int memory_socket_full_slots(const struct memory_info *mem, int socket)
{
    int channels = mem->platform.channels_per_socket;
    if (channels <= 0 || memory_socket_persistent(mem, socket) > 0 || memory_socket_persistent(mem, -1) > 0 ||
        memory_socket_empty_slots(mem, socket) > 0 || memory_socket_empty_slots(mem, -1) > 0)
        return 0;
    int per = channels;
    if (socket < 0) {
        if (mem->nempty_slots > 0 || mem->npersistent > 0)
            return 0;
        per = channels * (mem->sockets > 0 ? mem->sockets : 1);
    }
    int dimms = socket < 0 ? mem->ndimms : memory_socket_dimms(mem, socket);
    return dimms >= per && dimms % per == 0 ? dimms : 0;
}

int memory_socket_channels(const struct memory_info *mem, int socket)
{
    int named_proof = memory_socket_channels_from_locators(mem, socket);
    if (named_proof >= 0)
        return named_proof;
    int unnamed, named = memory_socket_named_channels(mem, socket, &unnamed);
    int platform = mem->platform.channels_per_socket;
    if (platform > 0 && named + unnamed >= platform && memory_slots_confirmed(mem) &&
        memory_socket_full_slots(mem, socket) > 0)
        return platform;
    return -1;
}

int memory_effective_mts(const struct memory_info *mem)
{
    int mts = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        int v = mem->dimms[i].configured_mts ? mem->dimms[i].configured_mts : mem->dimms[i].speed_mts;
        if (v > 0 && (mts == 0 || v < mts))
            mts = v;
    }
    return mts;
}

double memory_socket_bandwidth(const struct memory_info *mem, int socket)
{
    int mts = memory_effective_mts(mem);
    int channels = memory_socket_channels(mem, socket);
    if (channels < 0) {
        /* Unproven: more DIMMs than channels cannot add bandwidth; this is the most it can be. */
        channels = memory_socket_dimms(mem, socket);
        if (mem->platform.channels_per_socket > 0 && channels > mem->platform.channels_per_socket)
            channels = mem->platform.channels_per_socket;
    }
    return mts > 0 ? (double)channels * mts * 1e6 * 8 : 0;
}

void memory_info_free(struct memory_info *mem)
{
    free(mem->source);
    free(mem->unknown_reason);
    free(mem->ecc_evidence);
    for (int i = 0; i < mem->ndimms; i++) {
        free(mem->dimms[i].locator);
        free(mem->dimms[i].bank_locator);
        free(mem->dimms[i].type);
    }
    free(mem->dimms);
    for (int i = 0; i < mem->npersistent; i++) {
        free(mem->persistent[i].locator);
        free(mem->persistent[i].bank_locator);
        free(mem->persistent[i].type);
    }
    free(mem->persistent);
    for (int i = 0; i < mem->nempty_slots; i++) {
        free(mem->empty_slots[i].locator);
        free(mem->empty_slots[i].bank_locator);
        free(mem->empty_slots[i].type);
    }
    free(mem->empty_slots);
    free(mem->locator_scheme);
    free(mem->platform.name);
    free(mem->platform.ddr);
    free(mem->platform.source);
    free(mem->platform.source_label);
    free(mem->platform.dpc_source);
    free(mem->platform.dpc_source_label);
    free(mem->platform_unknown_reason);
    free(mem->sockets_disputed);
    free(mem->edac_placement);
    memory_info_init(mem);
}

void power_info_free(struct power_info *p)
{
    free(p->unknown_reason);
    for (int i = 0; i < p->nsupplies; i++) {
        free(p->supplies[i].name);
        free(p->supplies[i].status);
    }
    free(p->supplies);
    free(p->cpu_tdp_source);
    memset(p, 0, sizeof *p);
}
