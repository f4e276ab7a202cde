/* A stand-in libnvidia-ml.so.1 for tests (CI has no GPU): it exports the NVML calls gpuvet uses
 * and answers them from a real `nvidia-smi -q -x` file named by $GPUVET_MOCK_NVML_XML, so the
 * NVML path of gpuvet can be checked against the --nvidia-smi path on the same data.
 * Built twice: the current driver's exports, and with MOCK_OLD_DRIVER an old driver's (no _v2/_v3
 * symbols, no clock *event* reasons, no remapped rows, no MIG, no GPU max link generation). */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <time.h>
#include <unistd.h>

#include "mock.h"

#define OK 0
#define NOT_INITIALIZED 1
#define INVALID_ARGUMENT 2
#define NOT_SUPPORTED 3
#define NOT_FOUND 6
#define INSUFFICIENT_SIZE 7
#define GPU_IS_LOST 15
#define ARGUMENT_VERSION_MISMATCH 25

typedef int nvmlReturn_t;
typedef struct mock_device *nvmlDevice_t;

struct pci_info {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

double mock_busy_until;
double mock_host_seconds;

double mock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9 - mock_host_seconds;
}

/* While copies run the GPU is in P0 and its link at max_link_gen, or at $GPUVET_MOCK_LOAD_GEN
 * (a link that cannot train higher). */
static bool busy(void) { return mock_now() < mock_busy_until; }

static xmlDoc *doc;
static xmlNode *gpus[64];
static unsigned ngpus;

static xmlNode *child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
            return c;
    return NULL;
}

static xmlNode *at(const xmlNode *n, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    const xmlNode *cur = n;
    for (char *p = strtok_r(buf, "/", &save); p && cur; p = strtok_r(NULL, "/", &save))
        cur = child(cur, p);
    return (xmlNode *)cur;
}

/* The element's text, or NULL for missing and "N/A" (what NVML answers NOT_SUPPORTED for). */
static const char *text(const xmlNode *n, const char *path, char *buf, size_t size)
{
    xmlNode *e = at(n, path);
    if (!e)
        return NULL;
    xmlChar *raw = xmlNodeGetContent(e);
    snprintf(buf, size, "%s", raw ? (const char *)raw : "");
    xmlFree(raw);
    char *s = buf;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
        s[--len] = '\0';
    return *s && strcmp(s, "N/A") ? s : NULL;
}

static nvmlReturn_t number(nvmlDevice_t dev, const char *path, double *out)
{
    char buf[256];
    const char *t = text((xmlNode *)dev, path, buf, sizeof buf);
    char *end;
    if (!t)
        return NOT_SUPPORTED;
    *out = strtod(t, &end);
    return end == t ? NOT_SUPPORTED : OK;
}

static nvmlReturn_t uint_at(nvmlDevice_t dev, const char *path, unsigned *out)
{
    double v;
    nvmlReturn_t rc = number(dev, path, &v);
    if (rc == OK)
        *out = (unsigned)v;
    return rc;
}

/* Enabled/Yes/Active -> 1, Disabled/No/Not Active -> 0. */
static nvmlReturn_t state_at(nvmlDevice_t dev, const char *path, int *out)
{
    char buf[64];
    const char *t = text((xmlNode *)dev, path, buf, sizeof buf);
    if (!t)
        return NOT_SUPPORTED;
    *out = !strcmp(t, "Enabled") || !strcmp(t, "Yes") || !strcmp(t, "Active");
    return OK;
}

static nvmlReturn_t string_at(nvmlDevice_t dev, const char *path, char *out, unsigned len)
{
    char buf[256];
    const char *t = dev ? text((xmlNode *)dev, path, buf, sizeof buf) : text(xmlDocGetRootElement(doc), path, buf, sizeof buf);
    if (!t)
        return NOT_SUPPORTED;
    if (strlen(t) + 1 > len)
        return INSUFFICIENT_SIZE;
    snprintf(out, len, "%s", t);
    return OK;
}

/* $GPUVET_MOCK_NVML_TIMELINE replays a GPU timeline for `gpuvet watch`: one row per second since
 * nvmlInit (the last row holds on), "sm mem used_mib rx_kb_s tx_kb_s sm_mhz mem_mhz events power_mw"
 * with events in hex (NVML's clock-event bits); '#' starts a comment. Every GPU reads the same row. */
struct timeline_row {
    unsigned sm, mem, used_mib, rx_kb_s, tx_kb_s, sm_mhz, mem_mhz, power_mw;
    unsigned long long events;
};
static struct timeline_row timeline[256];
static int timeline_rows;
static double timeline_start;

static void timeline_load(void)
{
    const char *path = getenv("GPUVET_MOCK_NVML_TIMELINE");
    FILE *f = path && *path ? fopen(path, "r") : NULL;
    char line[256];
    timeline_rows = 0;
    timeline_start = mock_now();
    while (f && timeline_rows < 256 && fgets(line, sizeof line, f)) {
        struct timeline_row *r = &timeline[timeline_rows];
        if (line[0] != '#' && sscanf(line, "%u %u %u %u %u %u %u %llx %u", &r->sm, &r->mem, &r->used_mib, &r->rx_kb_s,
                                     &r->tx_kb_s, &r->sm_mhz, &r->mem_mhz, &r->events, &r->power_mw) == 9)
            timeline_rows++;
    }
    if (f)
        fclose(f);
}

/* The row for now, or NULL without a timeline. */
static const struct timeline_row *timeline_now(void)
{
    if (!timeline_rows)
        return NULL;
    int row = (int)(mock_now() - timeline_start);
    return &timeline[row < timeline_rows ? row : timeline_rows - 1];
}

static nvmlReturn_t init(void)
{
    timeline_load();
    const char *path = getenv("GPUVET_MOCK_NVML_XML");
    if (!path || !(doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)))
        return 9; /* DRIVER_NOT_LOADED */
    ngpus = 0;
    for (xmlNode *c = xmlDocGetRootElement(doc)->children; c && ngpus < 64; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "gpu"))
            gpus[ngpus++] = c;
    return OK;
}

nvmlReturn_t nvmlInit(void) { return init(); }
nvmlReturn_t nvmlShutdown(void)
{
    xmlFreeDoc(doc);
    doc = NULL;
    return OK;
}
const char *nvmlErrorString(nvmlReturn_t rc)
{
    return rc == NOT_SUPPORTED ? "Not Supported" : rc == 23 ? "Insufficient Resources" : "mock error";
}
nvmlReturn_t nvmlSystemGetDriverVersion(char *out, unsigned len) { return string_at(NULL, "driver_version", out, len); }
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *out)
{
    char buf[32];
    int major, minor;
    const char *t = text(xmlDocGetRootElement(doc), "cuda_version", buf, sizeof buf);
    if (!t || sscanf(t, "%d.%d", &major, &minor) != 2)
        return NOT_SUPPORTED;
    *out = major * 1000 + minor * 10;
    return OK;
}
/* $GPUVET_MOCK_NVML_HANG names a call that never returns, as on a GPU that stopped answering. */
static void hang_if(const char *call)
{
    const char *hang = getenv("GPUVET_MOCK_NVML_HANG");
    if (hang && !strcmp(hang, call))
        for (;;)
            pause();
}

/* $GPUVET_MOCK_NVML_COUNT (e.g. 4294967295) overrides the count, as a broken driver might report;
 * handles past the file's GPUs still cannot be opened. */
static nvmlReturn_t count_all(unsigned *count)
{
    hang_if("count");
    if (!doc)
        return NOT_INITIALIZED;
    const char *forced = getenv("GPUVET_MOCK_NVML_COUNT");
    *count = forced && *forced ? (unsigned)strtoul(forced, NULL, 10) : ngpus;
    return OK;
}
/* A current driver's v1 count skips GPUs this user may not open while v2 counts them; the mock
 * plays that one GPU is such, so a caller that mixes v1 count with v2 handles loses a GPU. */
nvmlReturn_t nvmlDeviceGetCount(unsigned *count)
{
    nvmlReturn_t rc = count_all(count);
#ifndef MOCK_OLD_DRIVER
    if (rc == OK && *count > 0)
        --*count;
#endif
    return rc;
}
/* $GPUVET_MOCK_NVML_LOST names GPU indexes ("3" or "1,3") that answer "GPU is lost", as a GPU that
 * fell off the bus does: its handle opens and its PCI info answers, every other call fails. */
static bool lost(unsigned i)
{
    const char *list = getenv("GPUVET_MOCK_NVML_LOST");
    for (const char *p = list; p && *p;) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (v == i)
            return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}
static bool lost_device(nvmlDevice_t d)
{
    for (unsigned i = 0; i < ngpus; i++)
        if ((nvmlDevice_t)gpus[i] == d)
            return lost(i);
    return false;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *dev)
{
    if (i >= ngpus)
        return INVALID_ARGUMENT;
    *dev = (nvmlDevice_t)gpus[i];
    return OK;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *o, unsigned n)
{
    return lost_device(d) ? GPU_IS_LOST : string_at(d, "product_name", o, n);
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *o, unsigned n) { return string_at(d, "uuid", o, n); }
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *o, unsigned n) { return string_at(d, "serial", o, n); }
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t d, char *o, unsigned n) { return string_at(d, "vbios_version", o, n); }

static nvmlReturn_t pci_info(nvmlDevice_t d, struct pci_info *p)
{
    char buf[64];
    const char *t = text((xmlNode *)d, "pci/pci_bus_id", buf, sizeof buf);
    if (!t || sscanf(t, "%x:%x:%x", &p->domain, &p->bus, &p->device) != 3)
        return NOT_SUPPORTED;
    snprintf(p->bus_id, sizeof p->bus_id, "%s", t);
    return OK;
}
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d, struct pci_info *p) { return pci_info(d, p); }

struct memory_v1 {
    unsigned long long total, free, used;
};
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, struct memory_v1 *m)
{
    const struct timeline_row *row = timeline_now();
    double used_mib = 0;
    if (!row)
        number(d, "fb_memory_usage/used", &used_mib);
    m->used = (unsigned long long)((row ? row->used_mib : used_mib) * 1048576);
    double mib;
    nvmlReturn_t rc = number(d, "fb_memory_usage/total", &mib);
    if (rc == OK)
        m->total = (unsigned long long)(mib * 1048576);
    return rc;
}
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *o) { return state_at(d, "persistence_mode", o); }
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t d, int *o)
{
    if (busy()) {
        *o = 0;
        return OK;
    }
    char buf[16];
    const char *t = text((xmlNode *)d, "performance_state", buf, sizeof buf);
    if (!t || t[0] != 'P')
        return NOT_SUPPORTED;
    *o = atoi(t + 1);
    return OK;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *o)
{
    const char *stuck = getenv("GPUVET_MOCK_LOAD_GEN");
    if (busy() && stuck && *stuck) {
        *o = (unsigned)atoi(stuck);
        return OK;
    }
    if (busy())
        return uint_at(d, "pci/pci_gpu_link_info/pcie_gen/max_link_gen", o);
    return uint_at(d, "pci/pci_gpu_link_info/pcie_gen/current_link_gen", o);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *o)
{
    return uint_at(d, "pci/pci_gpu_link_info/pcie_gen/max_link_gen", o);
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned *o)
{
    return uint_at(d, "pci/pci_gpu_link_info/link_widths/current_link_width", o);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned *o)
{
    return uint_at(d, "pci/pci_gpu_link_info/link_widths/max_link_width", o);
}
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned *o) { return uint_at(d, "pci/replay_counter", o); }
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *cur, int *pending)
{
    nvmlReturn_t rc = state_at(d, "ecc_mode/current_ecc", cur);
    return rc == OK ? state_at(d, "ecc_mode/pending_ecc", pending) : rc;
}
/* $GPUVET_MOCK_GPU_ECC_RISE=busid[,busid]: that GPU's volatile uncorrected count grows by one at
 * each read after the first, as on a GPU whose memory fails while it is loaded; -1 for the others. */
static long long ecc_rise(nvmlDevice_t d)
{
    static _Atomic unsigned long long reads[64]; /* by the device's address: one listed GPU at a time */
    const char *v = getenv("GPUVET_MOCK_GPU_ECC_RISE");
    char buf[64];
    const char *bus = text((xmlNode *)d, "pci/pci_bus_id", buf, sizeof buf);
    if (!v || !bus)
        return -1;
    /* nvidia-smi writes 00000000:81:00.0; the knob may say 0000:81:00.0: compare from the bus. */
    const char *tail = strchr(bus, ':');
    if (!tail || !strstr(v, tail))
        return -1;
    unsigned slot = (unsigned)(((uintptr_t)d >> 4) % 64);
    return (long long)reads[slot]++;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *o)
{
    static const char *const paths[2][2] = {{"ecc_errors/volatile/single_bit/total", "ecc_errors/aggregate/single_bit/total"},
                                            {"ecc_errors/volatile/double_bit/total", "ecc_errors/aggregate/double_bit/total"}};
    double v;
    if (type < 0 || type > 1 || counter < 0 || counter > 1)
        return INVALID_ARGUMENT;
    nvmlReturn_t rc = number(d, paths[type][counter], &v);
    if (rc == OK)
        *o = (unsigned long long)v;
    long long rise = type == 1 && counter == 0 ? ecc_rise(d) : -1;
    if (rise >= 0) { /* the file's count (0 where it gives none) and the rise */
        *o = (rc == OK ? *o : 0) + (unsigned long long)rise;
        rc = OK;
    }
    return rc;
}
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned *count, unsigned long long *addresses)
{
    unsigned n;
    nvmlReturn_t rc = uint_at(d, cause ? "retired_pages/double_bit_retirement/retired_count"
                                       : "retired_pages/multiple_single_bit_retirement/retired_count", &n);
    if (rc != OK)
        return rc;
    unsigned room = *count;
    *count = n;
    if (room < n)
        return INSUFFICIENT_SIZE;
    for (unsigned i = 0; addresses && i < n; i++)
        addresses[i] = 0;
    return OK;
}
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int *o)
{
    return state_at(d, "retired_pages/pending_retirement", o);
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *o)
{
    const struct timeline_row *row = timeline_now();
    if (row && (type == 1 || type == 2)) {
        *o = type == 1 ? row->sm_mhz : row->mem_mhz;
        return OK;
    }
    static const char *const p[] = {"clocks/graphics_clock", "clocks/sm_clock", "clocks/mem_clock"};
    return type >= 0 && type < 3 ? uint_at(d, p[type], o) : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *o)
{
    static const char *const p[] = {"max_clocks/graphics_clock", "max_clocks/sm_clock", "max_clocks/mem_clock"};
    return type >= 0 && type < 3 ? uint_at(d, p[type], o) : INVALID_ARGUMENT;
}

static nvmlReturn_t clock_reasons(nvmlDevice_t d, unsigned long long *o)
{
    const struct timeline_row *row = timeline_now();
    if (row) {
        *o = row->events;
        return OK;
    }
    static const char *const names[] = {"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
                                        "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
                                        "hw_power_brake_slowdown", "display_clocks_setting"};
    const char *group = child((xmlNode *)d, "clocks_event_reasons") ? "clocks_event_reasons/clocks_event_reason_"
                                                                     : "clocks_throttle_reasons/clocks_throttle_reason_";
    bool any = false;
    *o = 0;
    for (int i = 0; i < 9; i++) {
        char path[160];
        int on;
        snprintf(path, sizeof path, "%s%s", group, names[i]);
        if (state_at(d, path, &on) == OK) {
            any = true;
            *o |= (unsigned long long)on << i;
        }
    }
    return any ? OK : NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *o) { return clock_reasons(d, o); }

static nvmlReturn_t watts(nvmlDevice_t d, const char *const *paths, unsigned *mw)
{
    for (; *paths; paths++) {
        double w;
        if (number(d, *paths, &w) == OK) {
            *mw = (unsigned)(w * 1000 + 0.5);
            return OK;
        }
    }
    return NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw)
{
    hang_if("power");
    const struct timeline_row *row = timeline_now();
    if (row) {
        *mw = row->power_mw;
        return OK;
    }
    static const char *const p[] = {"gpu_power_readings/power_draw", "gpu_power_readings/instant_power_draw",
                                    "power_readings/power_draw", NULL};
    return watts(d, p, mw);
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
    static const char *const p[] = {"power_readings/enforced_power_limit", "gpu_power_readings/current_power_limit", NULL};
    return watts(d, p, mw);
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *o)
{
    return sensor == 0 ? uint_at(d, "temperature/gpu_temp", o) : INVALID_ARGUMENT;
}
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int which, unsigned *o)
{
    return which == 1 ? uint_at(d, "temperature/gpu_temp_slow_threshold", o) : NOT_SUPPORTED;
}
struct utilization {
    unsigned gpu, memory;
};
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, struct utilization *u)
{
    const struct timeline_row *row = timeline_now();
    if (row) {
        u->gpu = row->sm;
        u->memory = row->mem;
        return OK;
    }
    nvmlReturn_t rc = uint_at(d, "utilization/gpu_util", &u->gpu);
    return rc == OK ? uint_at(d, "utilization/memory_util", &u->memory) : rc;
}
/* nvmlGpuVirtualizationMode_t from nvidia-smi's words for it. */
nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t d, unsigned *o)
{
    static const char *const modes[] = {"None", "Pass-Through", "VGPU", "Host VGPU", "Host VSGA"};
    char buf[64];
    const char *t = text((xmlNode *)d, "gpu_virtualization_mode/virtualization_mode", buf, sizeof buf);
    for (unsigned i = 0; t && i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(t, modes[i])) {
            *o = i;
            return OK;
        }
    return NOT_SUPPORTED;
}

/* KB/s; counter 0 is what the GPU sent (TX), 1 what it received (RX). Only a timeline has them. */
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned *o)
{
    (void)d;
    const struct timeline_row *row = timeline_now();
    if (!row)
        return NOT_SUPPORTED;
    if (counter != 0 && counter != 1)
        return INVALID_ARGUMENT;
    *o = counter == 0 ? row->tx_kb_s : row->rx_kb_s;
    return OK;
}
/* NVLink: `-q -x` carries none, so $GPUVET_MOCK_NVLINK describes it, words apart by spaces:
 * "LINKS" (each GPU's link count, all active, NVLink version 4), then "down=G:L" (GPU index G's
 * link L inactive), "version=N", and "replay=G:L:N", "recovery=...", "crc_flit=...", "crc_data=..."
 * (that link's error counter), "speed=MBPS" (the links' common speed, nvmlDeviceGetFieldValues; the
 * old driver's library lacks the call). Unset: no NVLink (NOT_SUPPORTED), as before. */
static unsigned gpu_index(nvmlDevice_t d)
{
    for (unsigned i = 0; i < ngpus; i++)
        if ((xmlNode *)d == gpus[i])
            return i;
    return ~0u;
}

static bool nvlink_spec(unsigned *links)
{
    const char *spec = getenv("GPUVET_MOCK_NVLINK");
    return spec && sscanf(spec, "%u", links) == 1;
}

/* The value a "name=G:L[:N]" word gives this GPU's link (1 for down=G:L); false when none does. */
static bool nvlink_word(const char *name, unsigned gpu, unsigned link, unsigned long long *value)
{
    const char *spec = getenv("GPUVET_MOCK_NVLINK");
    size_t len = strlen(name);
    for (const char *p = spec; p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL) {
        unsigned g, l;
        unsigned long long v = 1;
        if (!strncmp(p, name, len) && p[len] == '=' && sscanf(p + len + 1, "%u:%u:%llu", &g, &l, &v) >= 2 &&
            g == gpu && l == link) {
            *value = v;
            return true;
        }
    }
    return false;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned link, int *o)
{
    unsigned links;
    unsigned long long down;
    if (!nvlink_spec(&links) || link >= links)
        return NOT_SUPPORTED;
    *o = !nvlink_word("down", gpu_index(d), link, &down);
    return OK;
}
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned link, unsigned *o)
{
    unsigned links;
    (void)d;
    if (!nvlink_spec(&links) || link >= links)
        return NOT_SUPPORTED;
    const char *v = strstr(getenv("GPUVET_MOCK_NVLINK"), "version=");
    *o = v ? (unsigned)atoi(v + 8) : 4;
    return OK;
}
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t d, unsigned link, int counter, unsigned long long *o)
{
    static const char *const names[] = {"replay", "recovery", "crc_flit", "crc_data"};
    unsigned links;
    unsigned long long down;
    if (!nvlink_spec(&links) || link >= links || counter < 0 || counter > 3)
        return counter > 4 ? INVALID_ARGUMENT : NOT_SUPPORTED;
    if (nvlink_word("down", gpu_index(d), link, &down))
        return NOT_SUPPORTED; /* an inactive link counts nothing */
    if (!nvlink_word(names[counter], gpu_index(d), link, o))
        *o = 0;
    return OK;
}

#ifndef MOCK_OLD_DRIVER
/* nvmlFieldValue_t; only the NVLink speed field (90) is answered: "speed=MBPS" in
 * $GPUVET_MOCK_NVLINK, else NOT_SUPPORTED in the value's own status. */
struct field_value {
    unsigned field_id, scope_id;
    long long timestamp, latency_usec;
    unsigned value_type;
    nvmlReturn_t status;
    union {
        double d;
        unsigned ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
    } value;
};
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int count, struct field_value *values)
{
    (void)d;
    if (count < 0 || (count > 0 && !values))
        return INVALID_ARGUMENT;
    const char *spec = getenv("GPUVET_MOCK_NVLINK");
    const char *speed = spec ? strstr(spec, "speed=") : NULL;
    for (int i = 0; i < count; i++) {
        values[i].status = NOT_SUPPORTED;
        if (values[i].field_id == 90 && speed) {
            values[i].value_type = 1;
            values[i].value.ui = (unsigned)strtoul(speed + 6, NULL, 10);
            values[i].status = OK;
        }
    }
    return OK;
}
#endif

/* Fabric: the file's own <fabric><state>/<status> (nvidia-smi's words). "N/A" is a GPU outside any
 * fabric: NOT_SUPPORTED, as NVML answers on PCIe GPUs. */
#define INSUFFICIENT_RESOURCES 23
static nvmlReturn_t fabric(nvmlDevice_t d, unsigned char *state, nvmlReturn_t *status)
{
    static const char *const states[] = {"Not Supported", "Not Started", "In Progress", "Completed"};
    char buf[64];
    const char *t = text((xmlNode *)d, "fabric/state", buf, sizeof buf);
    if (!t)
        return NOT_SUPPORTED;
    for (unsigned char i = 0; i < 4; i++)
        if (!strcmp(t, states[i])) {
            *state = i;
            const char *st = text((xmlNode *)d, "fabric/status", buf, sizeof buf);
            *status = !st || !strcmp(st, "Success") ? OK : !strcmp(st, "Insufficient Resources") ? INSUFFICIENT_RESOURCES : 999;
            return OK;
        }
    return NOT_SUPPORTED;
}
struct fabric_v1 {
    unsigned char cluster_uuid[16];
    nvmlReturn_t status;
    unsigned clique_id;
    unsigned char state;
};
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t d, struct fabric_v1 *f)
{
    memset(f, 0, sizeof *f);
    return fabric(d, &f->state, &f->status);
}

#ifndef MOCK_OLD_DRIVER
nvmlReturn_t nvmlInit_v2(void) { return init(); }
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *o) { return nvmlSystemGetCudaDriverVersion(o); }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) { return count_all(count); }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *dev) { return nvmlDeviceGetHandleByIndex(i, dev); }
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, struct pci_info *p) { return pci_info(d, p); }
struct memory_v2 {
    unsigned version;
    unsigned long long total, reserved, free, used;
};
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, struct memory_v2 *m)
{
    /* The real library checks the version word: sizeof | 2 << 24 (NVML_STRUCT_VERSION). */
    if (m->version != (unsigned)(sizeof(struct memory_v2) | 2u << 24))
        return ARGUMENT_VERSION_MISMATCH;
    struct memory_v1 v1;
    nvmlReturn_t rc = nvmlDeviceGetMemoryInfo(d, &v1);
    m->total = v1.total;
    m->used = v1.used;
    return rc;
}
struct fabric_v2 {
    unsigned version;
    unsigned char cluster_uuid[16];
    nvmlReturn_t status;
    unsigned clique_id;
    unsigned char state;
    unsigned health_mask;
};
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t d, struct fabric_v2 *f)
{
    if (f->version != (unsigned)(sizeof(struct fabric_v2) | 2u << 24))
        return ARGUMENT_VERSION_MISMATCH;
    return fabric(d, &f->state, &f->status);
}
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *o)
{
    return uint_at(d, "pci/pci_gpu_link_info/pcie_gen/max_device_link_gen", o);
}
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *o) { return clock_reasons(d, o); }
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failure)
{
    int p, f;
    nvmlReturn_t rc = uint_at(d, "remapped_rows/remapped_row_corr", corr);
    if (rc == OK)
        rc = uint_at(d, "remapped_rows/remapped_row_unc", unc);
    if (rc == OK)
        rc = state_at(d, "remapped_rows/remapped_row_pending", &p);
    if (rc == OK)
        rc = state_at(d, "remapped_rows/remapped_row_failure", &f);
    if (rc == OK) {
        *pending = (unsigned)p;
        *failure = (unsigned)f;
    }
    return rc;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *cur, unsigned *pending)
{
    int c, p;
    nvmlReturn_t rc = state_at(d, "mig_mode/current_mig", &c);
    if (rc == OK)
        rc = state_at(d, "mig_mode/pending_mig", &p);
    if (rc == OK) {
        *cur = (unsigned)c;
        *pending = (unsigned)p;
    }
    return rc;
}
#endif
