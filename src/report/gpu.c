/* The GPU part of the reports: per-GPU facts, the driver and CUDA versions, the `nvidia-smi topo
 * -m`-like matrix (JSON and text), and --redact, which hides identifying values everywhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/parse.h"
#include "util/pciaddr.h"
#include "util/i18n.h"
#include "util/jsonval.h"
#include "util/units.h"

static json_t *num_or_null(long long v) { return v >= 0 ? json_integer(v) : json_null(); }
/* isfinite: jansson refuses inf, and a NULL value would drop the key. */
static json_t *real_or_null(double v) { return v >= 0 && isfinite(v) ? json_real(v) : json_null(); }
static json_t *tristate(int v) { return v == GPU_UNKNOWN ? json_null() : json_boolean(v == GPU_ON); }

json_t *gpu_clock_events_json(bool known, uint64_t bits)
{
    if (!known)
        return json_null();
    json_t *arr = json_array();
    for (int i = 0; i < gpu_event_names_count; i++)
        if (bits & gpu_event_names[i].bit)
            json_array_append_new(arr, json_string(gpu_event_names[i].name));
    return arr;
}

static json_t *nvlinks_json(const struct gpu *g)
{
    if (!g->nvlink_known && g->nnvlinks == 0) /* `nvidia-smi nvlink -e` alone lists links, state unknown */
        return json_null();
    json_t *arr = json_array();
    for (int k = 0; k < g->nnvlinks; k++) {
        const struct gpu_nvlink *l = &g->nvlinks[k];
        json_t *errors = json_object();
        static const char *const names[GPU_NVLINK_COUNTERS] = {"replay", "recovery", "crc_flit", "crc_data"};
        for (int c = 0; c < GPU_NVLINK_COUNTERS; c++)
            json_object_set_new(errors, names[c], l->errors[c] >= 0 ? json_integer(l->errors[c]) : json_null());
        json_array_append_new(arr, json_pack("{s:i, s:o, s:o, s:o, s:o}", "link", l->link, "active", tristate(l->active),
                                             "remote_bus_id", json_string_or_null(*l->remote_bus_id ? l->remote_bus_id : NULL),
                                             "version", num_or_null(l->version), "errors", errors));
    }
    return arr;
}

static json_t *load_json(const struct gpu *g)
{
    if (g->load.done)
        return json_pack("{s:i, s:i, s:i, s:f, s:n}", "pstate", g->load.pstate, "gen", g->load.gen, "width",
                         g->load.width, "h2d_bytes_s", g->load.h2d_bytes_s, "error");
    if (g->load.error)
        return json_pack("{s:n, s:n, s:n, s:n, s:s}", "pstate", "gen", "width", "h2d_bytes_s", "error", g->load.error);
    return json_null();
}

static json_t *gpu_json(const struct machine *m, const struct gpu *g)
{
    const struct pci_device *d = gpu_pci_device(m, g);
    json_t *o = json_object();
    json_object_set_new(o, "bus_id", json_string(g->bus_id));
    json_object_set_new(o, "name", json_string_or_null(g->name));
    json_object_set_new(o, "brand", json_string_or_null(g->brand));
    json_object_set_new(o, "uuid", json_string_or_null(g->uuid));
    json_object_set_new(o, "serial", json_string_or_null(g->serial));
    json_object_set_new(o, "vbios", json_string_or_null(g->vbios));
    json_object_set_new(o, "memory_bytes", num_or_null(g->memory_total_bytes));
    json_object_set_new(o, "pci_device_found", json_boolean(d != NULL));
    json_object_set_new(o, "numa_node", num_or_null(gpu_numa_node(m, g)));
    json_object_set_new(o, "cpu_affinity", json_string_or_null(g->cpu_affinity));
    json_object_set_new(o, "persistence_mode", tristate(g->persistence));
    json_object_set_new(o, "pstate", num_or_null(g->pstate));
    json_object_set_new(o, "virtualization_mode", json_string_or_null(g->virtualization_mode));
    json_object_set_new(o, "pcie", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "current_gen",
                                             num_or_null(g->pcie_gen_current), "max_gen", num_or_null(g->pcie_gen_max),
                                             "gpu_max_gen", num_or_null(g->pcie_gen_gpu_max), "current_width",
                                             num_or_null(g->pcie_width_current), "max_width",
                                             num_or_null(g->pcie_width_max), "replay_counter",
                                             num_or_null(g->pcie_replays)));
    json_object_set_new(o, "ecc", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "current", tristate(g->ecc_current),
                                            "pending", tristate(g->ecc_pending), "corrected_volatile",
                                            num_or_null(g->ecc_corrected_volatile), "uncorrected_volatile",
                                            num_or_null(g->ecc_uncorrected_volatile), "corrected_aggregate",
                                            num_or_null(g->ecc_corrected_aggregate), "uncorrected_aggregate",
                                            num_or_null(g->ecc_uncorrected_aggregate)));
    json_object_set_new(o, "retired_pages", json_pack("{s:o, s:o, s:o}", "single_bit", num_or_null(g->retired_sbe),
                                                      "double_bit", num_or_null(g->retired_dbe), "pending",
                                                      tristate(g->retired_pending)));
    json_object_set_new(o, "remapped_rows", json_pack("{s:o, s:o, s:o, s:o}", "correctable",
                                                      num_or_null(g->remapped_correctable), "uncorrectable",
                                                      num_or_null(g->remapped_uncorrectable), "pending",
                                                      tristate(g->remap_pending), "failure",
                                                      tristate(g->remap_failure)));
    json_object_set_new(o, "clocks_mhz", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "graphics",
                                                   num_or_null(g->clock_graphics_mhz), "sm", num_or_null(g->clock_sm_mhz),
                                                   "memory", num_or_null(g->clock_mem_mhz), "max_graphics",
                                                   num_or_null(g->max_graphics_mhz), "max_sm", num_or_null(g->max_sm_mhz),
                                                   "max_memory", num_or_null(g->max_mem_mhz)));
    json_object_set_new(o, "clock_events", gpu_clock_events_json(g->clock_events_known, g->clock_events));
    json_object_set_new(o, "power_w", json_pack("{s:o, s:o}", "draw", real_or_null(g->power_draw_w), "limit",
                                                real_or_null(g->power_limit_w)));
    json_object_set_new(o, "temperature_c", json_pack("{s:o, s:o}", "gpu", num_or_null(g->temperature_c), "slowdown",
                                                      num_or_null(g->slowdown_temperature_c)));
    json_object_set_new(o, "utilization_percent", json_pack("{s:o, s:o}", "gpu", num_or_null(g->utilization_gpu),
                                                            "memory", num_or_null(g->utilization_memory)));
    json_object_set_new(o, "mig", json_pack("{s:o, s:o}", "current", tristate(g->mig_current), "pending",
                                            tristate(g->mig_pending)));
    json_object_set_new(o, "nvlinks", nvlinks_json(g));
    json_object_set_new(o, "nvlinks_expected", num_or_null(g->nvlinks_expected));
    json_object_set_new(o, "nvlink_speed_mbps", num_or_null(g->nvlink_speed_mbps));
    json_object_set_new(o, "fabric", g->fabric_state == GPU_FABRIC_UNKNOWN
                                         ? json_null()
                                         : json_pack("{s:s, s:o}", "state", gpu_fabric_state_name(g->fabric_state),
                                                     "status", json_string_or_null(g->fabric_status)));
    json_object_set_new(o, "load_check", load_json(g));
    return o;
}

json_t *gpus_to_json(const struct machine *m)
{
    if (!m->gpus.source)
        return json_null(); /* no NVIDIA source described the GPUs: not "zero GPUs" */
    json_t *arr = json_array();
    for (int i = 0; i < m->gpus.count; i++)
        json_array_append_new(arr, gpu_json(m, &m->gpus.items[i]));
    return arr;
}

static json_t *topology_json(const struct machine *m)
{
    const struct gpu_set *s = &m->gpus;
    json_t *ids = json_array(), *matrix = json_array(), *nodes = json_array(), *cpus = json_array();
    for (int i = 0; i < s->count; i++) {
        const struct gpu *a = &s->items[i];
        json_array_append_new(ids, json_string(a->bus_id));
        json_t *row = json_array();
        for (int j = 0; j < s->count; j++) {
            char level[8] = "X";
            if (i != j)
                gpu_link_level(m, a, &s->items[j], level);
            json_array_append_new(row, json_string(level));
        }
        json_array_append_new(matrix, row);
        json_array_append_new(nodes, num_or_null(gpu_numa_node(m, a)));
        const struct pci_device *d = gpu_pci_device(m, a);
        char *list = d && !hwloc_bitmap_iszero(d->local_cpus) ? format_cpulist(d->local_cpus) : NULL;
        json_array_append_new(cpus, json_string_or_null(list ? list : a->cpu_affinity));
        free(list);
    }
    return json_pack("{s:o, s:o, s:o, s:o}", "gpus", ids, "matrix", matrix, "numa_node", nodes, "cpu_affinity", cpus);
}

json_t *nvidia_to_json(const struct machine *m)
{
    const struct gpu_set *s = &m->gpus;
    if (!s->probed)
        return json_null();
    json_t *cuda = json_null();
    if (s->cuda_major >= 0) {
        char v[16];
        snprintf(v, sizeof v, "%d.%d", s->cuda_major, s->cuda_minor);
        cuda = json_string(v);
    }
    json_t *runtimes = json_null();
    if (s->runtimes_searched) {
        runtimes = json_array();
        for (int i = 0; i < s->nruntimes; i++) {
            const struct cuda_runtime *r = &s->runtimes[i];
            json_array_append_new(runtimes, json_pack("{s:o, s:s?, s:i, s:o}", "path", json_string_or_null(r->path), "kind", r->kind,
                                                      "major", r->major, "minor", num_or_null(r->minor)));
        }
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "source", json_string_or_null(s->source), "unknown_reason",
                     json_string_or_null(s->unknown_reason), "driver_version", json_string_or_null(s->driver_version),
                     "cuda_version", cuda, "attached_gpus", num_or_null(s->attached_gpus), "cuda_runtimes", runtimes,
                     "topology", topology_json(m));
}

static bool identifying_key(const char *key)
{
    static const char *const keys[] = {"hostname", "serial", "uuid", "mac", "mac_address", "permanent_address",
                                       "serial_number", "asset_tag"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

void report_redact(json_t *value)
{
    if (json_is_array(value)) {
        size_t i;
        json_t *item;
        json_array_foreach(value, i, item) report_redact(item);
    } else if (json_is_object(value)) {
        const char *key;
        json_t *item;
        json_object_foreach(value, key, item)
        {
            if (identifying_key(key) && json_is_string(item))
                json_object_set_new(value, key, json_string(REDACTED));
            else
                report_redact(item);
        }
    }
}

/* A number with a prefix and unit, or "?" when unknown (< 0). */
static void num_text(char *buf, size_t n, long long v, const char *prefix, const char *unit)
{
    if (v < 0)
        snprintf(buf, n, "%s?", prefix);
    else
        snprintf(buf, n, "%s%lld%s", prefix, v, unit);
}

void report_link_text(char *buf, size_t n, int gen, int width)
{
    char g[8] = "?", w[8] = "?";
    if (gen > 0)
        snprintf(g, sizeof g, "%d", gen);
    if (width > 0)
        snprintf(w, sizeof w, "%d", width);
    snprintf(buf, n, _("Gen%s x%s"), g, w);
}

/* TRANSLATORS: a GPU setting nvidia-smi reports as not applicable ("ECC n/a"). */
static const char *onoff(int v) { return v == GPU_ON ? _("on") : v == GPU_OFF ? _("off") : _("n/a"); }

void print_gpus(FILE *o, const struct machine *m, bool redact, const char *bold, const char *reset)
{
    const struct gpu_set *s = &m->gpus;
    if (!s->probed)
        return;
    fprintf(o, "%sGPUs%s    ", bold, reset);
    if (s->count == 0) {
        fprintf(o, _("unknown: %s\n"), s->unknown_reason ? _(s->unknown_reason) : _("no GPU reported"));
        return;
    }
    char cuda[16];
    snprintf(cuda, sizeof cuda, "%s", _("unknown"));
    if (s->cuda_major >= 0)
        snprintf(cuda, sizeof cuda, "%d.%d", s->cuda_major, s->cuda_minor);
    fprintf(o, _("%d NVIDIA (driver %s, CUDA %s; from %s"), s->count, s->driver_version ? s->driver_version : _("unknown"),
            cuda, s->source ? s->source : "?");
    if (s->attached_gpus >= 0 && s->attached_gpus != s->count)
        fprintf(o, _("; the source says %d attached"), s->attached_gpus);
    fputs(_(")\n"), o);
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        char mem[16], node[16], pstate[8], cur[16], max[16];
        num_text(mem, sizeof mem, g->memory_total_bytes < 0 ? -1 : (g->memory_total_bytes + (1 << 29)) >> 30, "", " GiB");
        num_text(node, sizeof node, gpu_numa_node(m, g), _("node "), "");
        num_text(pstate, sizeof pstate, g->pstate, "P", "");
        report_link_text(cur, sizeof cur, g->pcie_gen_current, g->pcie_width_current);
        report_link_text(max, sizeof max, g->pcie_gen_max, g->pcie_width_max);
        fprintf(o, _("        %s  %s, %s, %s, %s, %s (max %s), ECC %s, persistence %s, MIG %s\n"), g->bus_id,
                g->name ? g->name : _("unknown"), mem, node, pstate, cur, max, onoff(g->ecc_current),
                onoff(g->persistence), onoff(g->mig_current));
        char sm[16], memclk[16], maxsm[16], maxmem[16], draw[16], limit[16], temp[16], slow[16];
        num_text(sm, sizeof sm, g->clock_sm_mhz, "", "");
        num_text(memclk, sizeof memclk, g->clock_mem_mhz, "", "");
        num_text(maxsm, sizeof maxsm, g->max_sm_mhz, "", "");
        num_text(maxmem, sizeof maxmem, g->max_mem_mhz, "", "");
        num_text(draw, sizeof draw, g->power_draw_w < 0 ? -1 : (long long)(g->power_draw_w + 0.5), "", " W");
        num_text(limit, sizeof limit, g->power_limit_w < 0 ? -1 : (long long)(g->power_limit_w + 0.5), "", " W");
        num_text(temp, sizeof temp, g->temperature_c, "", " C");
        num_text(slow, sizeof slow, g->slowdown_temperature_c, "", " C");
        fprintf(o, _("          uuid %s, serial %s; SM/memory %s/%s MHz (max %s/%s); %s of %s; %s (slowdown %s)\n"),
                redact ? REDACTED : g->uuid ? g->uuid : "?", redact ? REDACTED : g->serial ? g->serial : "?", sm,
                memclk, maxsm, maxmem, draw, limit, temp, slow);
        if (g->load.done)
            fprintf(o, _("          under load: P%d, Gen%d x%d, %.1f GB/s host to device\n"), g->load.pstate, g->load.gen,
                    g->load.width, g->load.h2d_bytes_s / GB);
        else if (g->load.error)
            fprintf(o, _("          load check: %s\n"), _(g->load.error));
    }
    if (s->count < 2)
        return;
    /* The matrix as `nvidia-smi topo -m` prints it. */
    fprintf(o, "        %-13s", "");
    for (int j = 0; j < s->count; j++)
        fprintf(o, " GPU%-4d", j);
    fprintf(o, _(" NUMA  CPU affinity\n"));
    for (int i = 0; i < s->count; i++) {
        struct pci_address address;
        char bus[PCI_ADDRESS_LEN] = "?";
        if (pci_address_parse(s->items[i].bus_id, &address))
            pci_address_format_short(&address, bus);
        fprintf(o, "        GPU%-2d %-8s", i, bus);
        for (int j = 0; j < s->count; j++) {
            char level[8] = "X";
            if (i != j)
                gpu_link_level(m, &s->items[i], &s->items[j], level);
            fprintf(o, " %-7s", level);
        }
        const struct pci_device *d = gpu_pci_device(m, &s->items[i]);
        char *list = d && !hwloc_bitmap_iszero(d->local_cpus) ? format_cpulist(d->local_cpus) : NULL;
        int node = gpu_numa_node(m, &s->items[i]);
        const char *cpus = list ? list : s->items[i].cpu_affinity;
        if (node >= 0)
            fprintf(o, " %-5d %s\n", node, cpus ? cpus : "?");
        else
            fprintf(o, " %-5s %s\n", "?", cpus ? cpus : "?");
        free(list);
    }
}
