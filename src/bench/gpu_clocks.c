#include "bench/gpu_clocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "util/deadline.h"
#include "util/pciaddr.h"

struct bench_nvml {
    struct nvml nvml;
    int rc;
    char err[256];
};

static void open_work(void *p)
{
    struct bench_nvml *b = p;
    b->rc = nvml_open(&b->nvml, b->err, sizeof b->err);
}

static void open_free(void *p)
{
    struct bench_nvml *b = p;
    if (b->rc == 0)
        nvml_close(&b->nvml);
    free(b);
}

struct bench_nvml *bench_nvml_open(char *why, size_t n)
{
    struct bench_nvml *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, n, "no memory for NVML's state");
        return NULL;
    }
    b->rc = -1;
    double limit = deadline_seconds("GPUVET_DEADLINE_NVML_S", DEADLINE_NVML_S);
    /* nvmlInit wakes every GPU of a node without persistence mode: seconds, or no answer at all. */
    if (!deadline_run(open_work, b, open_free, limit)) {
        snprintf(why, n, "NVML did not answer within %.3g s", limit);
        return NULL;
    }
    if (b->rc != 0) {
        snprintf(why, n, "NVML could not be used (%s)", b->err);
        free(b);
        return NULL;
    }
    return b;
}

void bench_nvml_close(struct bench_nvml *b, bool answering)
{
    if (b && answering)
        open_free(b);
}

void gpu_clocks_begin(struct gpu_clocks *c, struct bench_nvml *b, const char *nvml_why, const char *bus_id)
{
    memset(c, 0, sizeof *c);
    c->temperature_max_c = -1;
    c->power_max_w = -1;
    if (!b) {
        snprintf(c->why, sizeof c->why, "%s", nvml_why && *nvml_why ? nvml_why : "NVML not opened");
        return;
    }
    const struct nvml *n = &b->nvml;
    unsigned count = 0;
    if (n->device_count(&count) != NVML_SUCCESS)
        count = 0;
    for (unsigned i = 0; i < count && i < GPU_MAX_PER_NODE; i++) {
        nvml_device dev;
        struct nvml_pci_info pci;
        char id[PCI_ADDRESS_LEN];
        memset(&pci, 0, sizeof pci);
        if (n->device_by_index(i, &dev) != NVML_SUCCESS || !n->pci_info || n->pci_info(dev, &pci) != NVML_SUCCESS)
            continue;
        nvml_pci_bus_id(&pci, id);
        if (pci_address_same(id, bus_id)) {
            c->nvml = n;
            c->dev = dev;
            return;
        }
    }
    snprintf(c->why, sizeof c->why, "NVML lists no GPU at %s", bus_id);
}

void gpu_clocks_sample(struct gpu_clocks *c)
{
    if (!c->nvml)
        return;
    const struct nvml *n = c->nvml;
    unsigned mhz, mw, celsius;
    unsigned long long events;
    c->samples++;
    if (n->clock && n->clock(c->dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS && c->nsm_mhz < GPU_CLOCK_SAMPLES_MAX)
        c->sm_mhz[c->nsm_mhz++] = mhz;
    if (n->clock_events && n->clock_events(c->dev, &events) == NVML_SUCCESS) {
        c->events |= events;
        c->events_known = true;
    }
    if (n->temperature && n->temperature(c->dev, 0, &celsius) == NVML_SUCCESS && celsius < 200 &&
        (int)celsius > c->temperature_max_c)
        c->temperature_max_c = (int)celsius;
    double w;
    if (n->power_usage && n->power_usage(c->dev, &mw) == NVML_SUCCESS && nvml_power_w(mw, &w) && w > c->power_max_w)
        c->power_max_w = w;
}

static int compare_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

json_t *gpu_clocks_json(const struct gpu_clocks *c)
{
    if (!c->nvml)
        return json_pack("{s:s}", "unseen", c->why);
    json_t *o = json_pack("{s:i}", "samples", c->samples);
    if (c->nsm_mhz > 0) {
        unsigned sorted[GPU_CLOCK_SAMPLES_MAX];
        memcpy(sorted, c->sm_mhz, (size_t)c->nsm_mhz * sizeof sorted[0]);
        qsort(sorted, (size_t)c->nsm_mhz, sizeof sorted[0], compare_unsigned);
        json_object_set_new(o, "sm_clock_mhz_median", json_integer(sorted[c->nsm_mhz / 2]));
        json_object_set_new(o, "sm_clock_mhz_max", json_integer(sorted[c->nsm_mhz - 1]));
    }
    if (c->events_known) {
        json_t *names = json_array();
        for (int i = 0; i < gpu_event_names_count; i++)
            if (c->events & gpu_event_names[i].bit)
                json_array_append_new(names, json_string(gpu_event_names[i].name));
        json_object_set_new(o, "clock_events", names);
    }
    if (c->temperature_max_c >= 0)
        json_object_set_new(o, "temperature_c_max", json_integer(c->temperature_max_c));
    if (c->power_max_w >= 0)
        json_object_set_new(o, "power_w_max", json_real(c->power_max_w));
    return o;
}
