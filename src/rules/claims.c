/* CLAIM_MISMATCH: the provider's label against reality. One evaluator per claim key, in one table
 * (the parser validates files against the same table). Keys whose facts this audit does not
 * observe report "unknown", never "pass". */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "claims/claims.h"
#include "rules/checks.h"
#include "util/i18n.h"
#include "util/sanitize.h"
#include "util/parse.h"
#include "util/gputable.h"
#include "util/units.h"

#define MAX_STORAGE_CLAIMS 64

struct claim_eval {
    const struct machine *m;
    const struct thresholds *t;
    const struct claim_set *set;
    int storage_disk[MAX_STORAGE_CLAIMS]; /* per storage[] index: index into m->storage.devices, -1 none */
};

static void set_verdict(struct claim *c, enum claim_verdict v, json_t *found, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_verdict(struct claim *c, enum claim_verdict v, json_t *found, const char *fmt, ...)
{
    json_decref(c->found);
    c->found = found ? found : json_null();
    c->verdict = v;
    free(c->message);
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&c->message, fmt, ap) < 0)
        c->message = NULL;
    va_end(ap);
}

/* ---- cpu ---- */

/* Lower-case words of a CPU model, without trademarks, "CPU", "@" and clock figures, so that
 * "Xeon Gold 6348" matches "Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz". */
static int model_words(const char *model, char words[][32], int max)
{
    int n = 0;
    const char *p = model;
    while (*p && n < max) {
        if (!strncasecmp(p, "(r)", 3) || !strncasecmp(p, "(tm)", 4)) {
            p += p[1] == 'r' || p[1] == 'R' ? 3 : 4;
            continue;
        }
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.') {
            p++;
            continue;
        }
        int len = 0;
        while ((isalnum((unsigned char)p[len]) || p[len] == '-' || p[len] == '.') && len < 31)
            len++;
        for (int i = 0; i < len; i++)
            words[n][i] = (char)tolower((unsigned char)p[i]);
        words[n][len] = '\0';
        p += len;
        size_t wl = strlen(words[n]);
        bool clock = wl > 3 && !strcmp(words[n] + wl - 3, "ghz");
        if (!clock && strcmp(words[n], "cpu") && strcmp(words[n], "processor"))
            n++;
    }
    return n;
}

static void eval_cpu_model(struct claim *c, const struct claim_eval *e)
{
    const char *found = e->m->cpu.model;
    if (!found) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("the CPU model is unknown"));
        return;
    }
    char claimed[16][32], actual[32][32];
    int nc = model_words(json_string_value(c->claimed), claimed, 16), na = model_words(found, actual, 32);
    for (int i = 0; i < nc; i++) {
        bool seen = false;
        for (int k = 0; k < na && !seen; k++)
            seen = !strcmp(claimed[i], actual[k]);
        if (!seen) {
            set_verdict(c, CLAIM_MISMATCH, json_text(found), _("\"%s\" is not in the CPU's model name"), claimed[i]);
            return;
        }
    }
    set_verdict(c, CLAIM_PASS, json_text(found), _("every word of the claim is in the CPU's model name"));
}

static void eval_count(struct claim *c, int found, const char *what)
{
    json_int_t claimed = json_integer_value(c->claimed);
    if (found <= 0)
        /* TRANSLATORS: %s is "sockets", "threads" or "physical cores". */
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("the number of %s is unknown"), _(what));
    else if (found == claimed)
        /* TRANSLATORS: "16 threads": a count and "sockets", "threads" or "physical cores". */
        set_verdict(c, CLAIM_PASS, json_integer(found), _("%d %s"), found, _(what));
    else
        set_verdict(c, CLAIM_MISMATCH, json_integer(found), _("%d %s found, %lld claimed"), found, _(what),
                    (long long)claimed);
}

static void eval_cpu_sockets(struct claim *c, const struct claim_eval *e)
{
    eval_count(c, e->m->cpu.sockets, N_("sockets"));
}

static void eval_cpu_threads(struct claim *c, const struct claim_eval *e)
{
    eval_count(c, e->m->cpu.threads, N_("threads"));
}

/* The usual trick: hyperthreads sold as cores. */
static void eval_cpu_cores(struct claim *c, const struct claim_eval *e)
{
    const struct cpu_info *cpu = &e->m->cpu;
    eval_count(c, cpu->cores, N_("physical cores"));
    json_int_t claimed = json_integer_value(c->claimed);
    if (c->verdict == CLAIM_MISMATCH && cpu->threads > cpu->cores && claimed == cpu->threads)
        set_verdict(c, CLAIM_MISMATCH, json_integer(cpu->cores),
                    _("%d physical cores x %d threads each = %d threads: the claim counts threads as cores"), cpu->cores,
                    cpu->threads / cpu->cores, cpu->threads);
}

/* ---- memory ---- */

/* MemTotal is what the kernel manages: installed memory less the page map (1.6 %), firmware
 * reservations, the kernel image and crashkernel. Linux keeps no "5 %" of RAM (that is ext4's
 * reserved blocks). Installed DIMMs, where known, are the better comparison; this audit
 * compares with MemTotal. */
static void eval_memory_gb(struct claim *c, const struct claim_eval *e)
{
    /* Installed DIMMs (SMBIOS, EDAC) are what the label counts: module sizes are binary GB. */
    int64_t installed = e->m->memory.installed_bytes;
    if (installed > 0) {
        double claimed_gb = json_number_value(c->claimed), found_gb = installed / GIB;
        if (found_gb >= claimed_gb * 0.99 && found_gb <= claimed_gb * 1.01)
            set_verdict(c, CLAIM_PASS, json_real(found_gb), _("%d DIMMs hold %.0f GB"), e->m->memory.ndimms, found_gb);
        else
            set_verdict(c, CLAIM_MISMATCH, json_real(found_gb), _("%d DIMMs hold %.0f GB, %g GB claimed"),
                        e->m->memory.ndimms, found_gb, claimed_gb);
        return;
    }
    int64_t total = e->m->kernel.mem_total_bytes;
    if (total < 0) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("MemTotal unknown (/proc/meminfo not read)"));
        return;
    }
    double claimed = json_number_value(c->claimed), found = total / GIB;
    double share = e->t->claim_memory_page_map_share, fixed = e->t->claim_memory_fixed_reserve_bytes / GIB;
    double lowest = claimed * (1 - share) - fixed;
    json_t *f = json_real(((long)(found * 10 + 0.5)) / 10.0);
    if (found < lowest)
        set_verdict(c, CLAIM_MISMATCH, f,
                    _("MemTotal is %.1f GiB; %g GB installed would leave at least %.1f GiB (%.1f %% page map and "
                      "%.0f GiB firmware and kernel): about %.0f GB are installed"), found, claimed, lowest,
                    share * 100, fixed, (found + fixed) / (1 - share));
    else if (found > claimed)
        set_verdict(c, CLAIM_PASS, f, _("MemTotal %.1f GiB is more than the %g GB claimed"), found, claimed);
    else
        set_verdict(c, CLAIM_PASS, f, _("MemTotal %.1f GiB fits %g GB installed (page map, firmware and kernel "
                                        "take %.1f GiB)"), found, claimed, claimed - found);
}

static void eval_memory_type(struct claim *c, const struct claim_eval *e)
{
    const struct memory_info *mem = &e->m->memory;
    const char *claimed = json_string_value(c->claimed);
    if (mem->ndimms == 0 || !mem->dimms[0].type) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("DIMM types unknown: %s"),
                    mem->unknown_reason ? _(mem->unknown_reason) : _("no DIMM source was readable"));
        return;
    }
    for (int i = 0; i < mem->ndimms; i++)
        if (!mem->dimms[i].type || strcasecmp(mem->dimms[i].type, claimed)) {
            set_verdict(c, CLAIM_MISMATCH, json_text(mem->dimms[i].type ? mem->dimms[i].type : "unknown"),
                        _("%s is %s, %s claimed"), mem->dimms[i].locator ? mem->dimms[i].locator : _("a DIMM"),
                        mem->dimms[i].type ? mem->dimms[i].type : _("of unknown type"), claimed);
            return;
        }
    set_verdict(c, CLAIM_PASS, json_text(mem->dimms[0].type), _("all %d DIMMs are %s"), mem->ndimms, mem->dimms[0].type);
}

/* What the memory runs at, not what the modules are rated for: a BIOS may run 3200 MT/s DIMMs
 * at 2933. */
static void eval_memory_mts(struct claim *c, const struct claim_eval *e)
{
    const struct memory_info *mem = &e->m->memory;
    int running = memory_effective_mts(mem);
    json_int_t claimed = json_integer_value(c->claimed);
    int rated = 0;
    for (int i = 0; i < mem->ndimms; i++)
        if (mem->dimms[i].speed_mts > 0 && (!rated || mem->dimms[i].speed_mts < rated))
            rated = mem->dimms[i].speed_mts;
    if (running <= 0)
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("memory speed unknown: %s"),
                    mem->unknown_reason ? _(mem->unknown_reason) : _("the DIMMs give no speed"));
    else if (running < claimed)
        set_verdict(c, CLAIM_MISMATCH, json_integer(running), _("memory runs at %d MT/s (modules rated %d), %lld claimed"),
                    running, rated, (long long)claimed);
    else
        set_verdict(c, CLAIM_PASS, json_integer(running), _("memory runs at %d MT/s"), running);
}

/* "8-channel memory" on a label means every channel of every socket holds a DIMM. */
static void eval_memory_channels(struct claim *c, const struct claim_eval *e)
{
    const struct memory_info *mem = &e->m->memory;
    json_int_t claimed = json_integer_value(c->claimed);
    if (mem->ndimms == 0 || !mem->channels_from_locators || mem->sockets <= 0) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("populated channels unknown: %s"),
                    mem->ndimms == 0 ? (mem->unknown_reason ? _(mem->unknown_reason) : _("no DIMM source was readable"))
                                     : _("the DIMM locators name no channel"));
        return;
    }
    int lowest = -1, which = 0;
    for (int s = 0; s < mem->sockets; s++) {
        int n = memory_socket_channels(mem, s);
        if (lowest < 0 || n < lowest) {
            lowest = n;
            which = s;
        }
    }
    if (lowest < claimed)
        set_verdict(c, CLAIM_MISMATCH, json_integer(lowest),
                    mem->platform.channels_per_socket ? _("socket %d has DIMMs in %d channels, %lld claimed per socket")
                                                      : _("socket %d has DIMMs in %d channels, %lld claimed"),
                    which, lowest, (long long)claimed);
    else
        set_verdict(c, CLAIM_PASS, json_integer(lowest), _("every socket has DIMMs in %d channels"), lowest);
}

/* ---- gpus ---- */

/* A claim that names a part of the GPU table by its id (what `--expect` writes, "h100-sxm5-80gb")
 * is judged by the part each GPU's name resolves to: nvidia-smi calls an H100 SXM5 "NVIDIA H100
 * 80GB HBM3", without "SXM5". 1 judged, 0 the claim is no table id. */
static int eval_gpus_part(struct claim *c, const struct gpu_set *gpus)
{
    struct gpu_table table;
    char err[512], note[256];
    if (gpu_table_load_default(&table, err, sizeof err) != 0)
        return 0;
    const char *claimed = json_string_value(c->claimed);
    bool is_id = false;
    for (int i = 0; i < table.count && !is_id; i++)
        is_id = !strcasecmp(table.gpus[i].id, claimed);
    if (!is_id) {
        gpu_table_free(&table);
        return 0;
    }
    for (int g = 0; g < gpus->count; g++) {
        const char *name = gpus->items[g].name ? gpus->items[g].name : "";
        if (!*name) {
            set_verdict(c, CLAIM_UNKNOWN, NULL, _("GPU %d's product name is not in the evidence"), g);
            gpu_table_free(&table);
            return 1;
        }
        const struct gpu_spec *spec = gpu_lookup(&table, name, note, sizeof note, err, sizeof err);
        if (!spec) {
            set_verdict(c, CLAIM_UNKNOWN, json_text(name), _("GPU %d is \"%s\", a part gpuvet's GPU table does not know"),
                        g, name);
            gpu_table_free(&table);
            return 1;
        }
        if (strcasecmp(spec->id, claimed)) {
            set_verdict(c, CLAIM_MISMATCH, json_string(spec->id), _("GPU %d is \"%s\", the part %s"), g, name, spec->id);
            gpu_table_free(&table);
            return 1;
        }
    }
    set_verdict(c, CLAIM_PASS, json_string(claimed), _("all %d GPUs are the part %s"), gpus->count, claimed);
    gpu_table_free(&table);
    return 1;
}

static void eval_gpus_model(struct claim *c, const struct claim_eval *e)
{
    const struct gpu_set *gpus = &e->m->gpus;
    if (gpus->count == 0) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("GPU models unknown: %s"),
                    gpus->unknown_reason ? _(gpus->unknown_reason) : _("no NVIDIA driver or nvidia-smi evidence was read"));
        return;
    }
    if (eval_gpus_part(c, gpus))
        return;
    char claimed[16][32], actual[32][32];
    int nc = model_words(json_string_value(c->claimed), claimed, 16);
    for (int g = 0; g < gpus->count; g++) {
        const char *name = gpus->items[g].name ? gpus->items[g].name : "";
        int na = model_words(name, actual, 32);
        for (int i = 0; i < nc; i++) {
            bool seen = false;
            for (int k = 0; k < na && !seen; k++)
                seen = !strcmp(claimed[i], actual[k]);
            if (!seen) {
                set_verdict(c, CLAIM_MISMATCH, json_text(name), _("GPU %d is \"%s\": \"%s\" is not in its name"), g,
                            name, claimed[i]);
                return;
            }
        }
    }
    set_verdict(c, CLAIM_PASS, json_text(gpus->items[0].name ? gpus->items[0].name : ""),
                _("all %d GPUs match"), gpus->count);
}

/* Drivers report a little less than the label (an "80 GB" H100 shows 79.6 GiB): 5 % slack. */
static void eval_gpus_memory_gb(struct claim *c, const struct claim_eval *e)
{
    const struct gpu_set *gpus = &e->m->gpus;
    double claimed = json_number_value(c->claimed), lowest = -1;
    for (int g = 0; g < gpus->count; g++) {
        double gb = gpus->items[g].memory_total_bytes > 0 ? gpus->items[g].memory_total_bytes / GIB : -1;
        if (gb < 0) {
            lowest = -1;
            break;
        }
        if (lowest < 0 || gb < lowest)
            lowest = gb;
    }
    if (lowest < 0)
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("GPU memory unknown: %s"),
                    gpus->unknown_reason ? _(gpus->unknown_reason) : _("no NVIDIA driver or nvidia-smi evidence was read"));
    else if (lowest < claimed * 0.95)
        set_verdict(c, CLAIM_MISMATCH, json_real(lowest), _("a GPU has %.1f GB, %g GB claimed"), lowest, claimed);
    else
        set_verdict(c, CLAIM_PASS, json_real(lowest), _("each GPU has %.1f GB or more"), lowest);
}

static void eval_gpus_count(struct claim *c, const struct claim_eval *e)
{
    int n = machine_accelerator_count(e->m);
    /* An audit of nvidia-smi evidence alone has no PCI bus: count the GPUs it lists. */
    if (!e->m->pci_scanned) {
        if (!e->m->gpus.probed || e->m->gpus.count == 0) {
            set_verdict(c, CLAIM_UNKNOWN, NULL, _("no PCI bus or GPU list was read"));
            return;
        }
        n = e->m->gpus.attached_gpus > 0 ? e->m->gpus.attached_gpus : e->m->gpus.count;
    }
    json_int_t claimed = json_integer_value(c->claimed);
    bool pci = e->m->pci_scanned;
    if (n == claimed)
        set_verdict(c, CLAIM_PASS, json_integer(n),
                    pci ? i18n_plural("%d accelerator on PCI", "%d accelerators on PCI", (unsigned long)n)
                        : i18n_plural("%d GPU in the nvidia-smi evidence", "%d GPUs in the nvidia-smi evidence",
                                      (unsigned long)n),
                    n);
    else
        set_verdict(c, CLAIM_MISMATCH, json_integer(n),
                    pci ? i18n_plural("%d accelerator on PCI, %lld claimed", "%d accelerators on PCI, %lld claimed",
                                      (unsigned long)n)
                        : i18n_plural("%d GPU in the nvidia-smi evidence, %lld claimed",
                                      "%d GPUs in the nvidia-smi evidence, %lld claimed", (unsigned long)n),
                    n, (long long)claimed);
}

/* The generation an accelerator can run at: the lower of its own and its slot's maximum (GPUs
 * drop their current speed at idle, so the current speed says nothing). */
static int platform_gen(const struct pci_device *d)
{
    double gt = d->link.max_gt_s;
    if (d->npath > 0 && d->path[0].link.known && d->path[0].link.max_gt_s < gt)
        gt = d->path[0].link.max_gt_s;
    return pcie_generation(gt);
}

/* The lowest value over the accelerators with a known link; its bus id in *which. */
static int lowest_accelerator(const struct machine *m, bool width, const char **which, int *with_link)
{
    int lowest = 0;
    *with_link = 0;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR || !d->link.known)
            continue;
        (*with_link)++;
        int v = width ? d->link.cur_width : platform_gen(d);
        if (!lowest || v < lowest) {
            lowest = v;
            *which = d->bus_id;
        }
    }
    return lowest;
}

static void eval_gpus_link(struct claim *c, const struct claim_eval *e, bool width)
{
    const char *which = NULL;
    int with_link;
    int lowest = lowest_accelerator(e->m, width, &which, &with_link);
    json_int_t claimed = json_integer_value(c->claimed);
    if (with_link == 0)
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("no accelerator with known PCIe link attributes"));
    else if (lowest < claimed)
        set_verdict(c, CLAIM_MISMATCH, json_integer(lowest),
                    width ? _("%s has negotiated width x%d (lower of the card's and its slot's maximum for the "
                              "generation), %lld claimed")
                          : _("%s has platform generation Gen%d (lower of the card's and its slot's maximum for the "
                              "generation), %lld claimed"),
                    which, lowest, (long long)claimed);
    else
        set_verdict(c, CLAIM_PASS, json_integer(lowest),
                    width ? _("lowest negotiated width x%d over %d accelerators")
                          : _("lowest platform generation Gen%d over %d accelerators"),
                    lowest, with_link);
}

static void eval_gpus_pcie_gen(struct claim *c, const struct claim_eval *e) { eval_gpus_link(c, e, false); }

/* Active NVLinks of the GPU with the fewest, against the part's count (18 on an H100 SXM). */
static void eval_gpus_nvlinks(struct claim *c, const struct claim_eval *e)
{
    const struct gpu_set *gpus = &e->m->gpus;
    int lowest = -1, known = 0;
    const char *which = NULL;
    for (int g = 0; g < gpus->count; g++) {
        if (!gpus->items[g].nvlink_known)
            continue;
        int active = 0;
        for (int k = 0; k < gpus->items[g].nnvlinks; k++)
            active += gpus->items[g].nvlinks[k].active == 1;
        known++;
        if (lowest < 0 || active < lowest)
            lowest = active, which = gpus->items[g].bus_id;
    }
    json_int_t claimed = json_integer_value(c->claimed);
    if (known == 0)
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("NVLink state unknown: %s"),
                    gpus->count == 0 ? (gpus->unknown_reason ? _(gpus->unknown_reason) : _("no GPU was listed"))
                                     : _("the GPU source does not report NVLinks (NVML does; nvidia-smi -q -x does not)"));
    else if (lowest < claimed)
        set_verdict(c, CLAIM_MISMATCH, json_integer(lowest), _("%s has %d active NVLinks, the part has %lld"), which, lowest,
                    (long long)claimed);
    else
        set_verdict(c, CLAIM_PASS, json_integer(lowest), _("each of %d GPUs has %d or more active NVLinks"), known, lowest);
}

/* The NVSwitch fabric an 8-GPU HGX board joins its GPUs through: every GPU registered with it. */
static void eval_gpus_fabric(struct claim *c, const struct claim_eval *e)
{
    const struct gpu_set *gpus = &e->m->gpus;
    int known = 0;
    for (int g = 0; g < gpus->count; g++) {
        const struct gpu *x = &gpus->items[g];
        if (x->fabric_state == GPU_FABRIC_UNKNOWN || x->fabric_state == GPU_FABRIC_NOT_SUPPORTED)
            continue;
        known++;
        if (x->fabric_state != GPU_FABRIC_COMPLETED || x->fabric_status_ok == 0) {
            set_verdict(c, CLAIM_MISMATCH, json_string(gpu_fabric_state_name(x->fabric_state)),
                        _("%s is not registered with the NVSwitch fabric (state %s%s%s)"), x->bus_id,
                        gpu_fabric_state_name(x->fabric_state), x->fabric_status ? ", " : "",
                        x->fabric_status ? x->fabric_status : "");
            return;
        }
    }
    if (known == 0)
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("NVSwitch fabric state unknown: %s"),
                    gpus->count == 0 ? (gpus->unknown_reason ? _(gpus->unknown_reason) : _("no GPU was listed"))
                                     : _("no GPU reports a fabric registration (NVML reports it on Hopper and later)"));
    else
        set_verdict(c, CLAIM_PASS, json_string("completed"), _("%d GPUs registered with the NVSwitch fabric"), known);
}
static void eval_gpus_pcie_width(struct claim *c, const struct claim_eval *e) { eval_gpus_link(c, e, true); }

/* ---- storage ---- */

static const char *const STORAGE_TYPES[] = {"nvme", "ssd", "hdd", "sata", "sas", "virtio", NULL};

/* 1 match, 0 no match, -1 unknown (a virtual disk's rotational flag is the hypervisor's choice). */
static int type_matches(const struct machine *m, const struct block_device *d, const char *type)
{
    if (!strcasecmp(type, "ssd") || !strcasecmp(type, "hdd")) {
        if (d->rotational < 0 || d->transport == TRANSPORT_VIRTIO || m->virt.vm)
            return -1;
        return d->rotational == (!strcasecmp(type, "hdd") ? 1 : 0);
    }
    if (d->transport == TRANSPORT_UNKNOWN)
        return -1;
    return !strcasecmp(type, storage_transport_name(d->transport));
}

static bool size_matches(const struct block_device *d, double claimed_gb, double tolerance)
{
    return d->size_bytes > 0 && claimed_gb > 0 && d->size_bytes / GB >= claimed_gb * (1 - tolerance) &&
           d->size_bytes / GB <= claimed_gb * (1 + tolerance);
}

static const struct claim *storage_claim(const struct claim_set *set, int index, const char *field)
{
    for (int i = 0; i < set->count; i++) {
        const struct claim *c = &set->items[i];
        if (c->index == index && !strcmp(strrchr(claim_kinds[c->kind].key, '.') + 1, field))
            return c;
    }
    return NULL;
}

/* Each storage[] claim gets the unused disk that matches it best (type, then size). */
static void match_storage(struct claim_eval *e)
{
    const struct storage_info *s = &e->m->storage;
    bool used[256] = {false};
    for (int i = 0; i < MAX_STORAGE_CLAIMS; i++) {
        e->storage_disk[i] = -1;
        const struct claim *type = storage_claim(e->set, i, "type"), *gb = storage_claim(e->set, i, "gb");
        if (!type && !gb)
            continue;
        int best = -1, best_score = -1;
        for (int d = 0; d < s->ndevices && d < 256; d++) {
            if (used[d])
                continue;
            int score = (type && type_matches(e->m, &s->devices[d], json_string_value(type->claimed)) == 1) * 2 +
                        (gb && size_matches(&s->devices[d], json_number_value(gb->claimed),
                                            e->t->claim_storage_size_tolerance));
            if (score > best_score) {
                best = d;
                best_score = score;
            }
        }
        if (best >= 0) {
            used[best] = true;
            e->storage_disk[i] = best;
        }
    }
}

static const struct block_device *matched_disk(struct claim *c, const struct claim_eval *e)
{
    const struct storage_info *s = &e->m->storage;
    if (!s->listed) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("block devices unknown (no /sys/class/block or /sys/block)"));
        return NULL;
    }
    int d = c->index < MAX_STORAGE_CLAIMS ? e->storage_disk[c->index] : -1;
    if (d < 0) {
        set_verdict(c, CLAIM_MISMATCH, NULL,
                    i18n_plural("no disk left for this claim (%d disk found)", "no disk left for this claim (%d disks found)",
                                (unsigned long)s->ndevices),
                    s->ndevices);
        return NULL;
    }
    return &s->devices[d];
}

static void eval_storage_type(struct claim *c, const struct claim_eval *e)
{
    const struct block_device *d = matched_disk(c, e);
    if (!d)
        return;
    const char *claimed = json_string_value(c->claimed);
    char found[64];
    bool flag_trusted = d->transport != TRANSPORT_VIRTIO && !e->m->virt.vm;
    snprintf(found, sizeof found, "%s%s", storage_transport_name(d->transport),
             !flag_trusted ? "" : d->rotational == 1 ? " hdd" : d->rotational == 0 ? " ssd" : "");
    int match = type_matches(e->m, d, claimed);
    if (match < 0)
        set_verdict(c, CLAIM_UNKNOWN, json_text(found),
                    flag_trusted ? _("%s shows no rotational flag: whether it is %s is unknown")
                                 : _("%s is a virtual disk: whether the storage behind it is %s is unknown"),
                    d->name, claimed);
    else
        set_verdict(c, match ? CLAIM_PASS : CLAIM_MISMATCH, json_text(found), _("%s is %s"), d->name, found);
}

static void eval_storage_gb(struct claim *c, const struct claim_eval *e)
{
    const struct block_device *d = matched_disk(c, e);
    if (!d)
        return;
    double claimed = json_number_value(c->claimed), tol = e->t->claim_storage_size_tolerance;
    if (d->size_bytes < 0) {
        set_verdict(c, CLAIM_UNKNOWN, NULL, _("the size of %s is unknown"), d->name);
        return;
    }
    double found = d->size_bytes / GB;
    json_t *f = json_real(((long)(found * 10 + 0.5)) / 10.0);
    if (found < claimed * (1 - tol))
        set_verdict(c, CLAIM_MISMATCH, f, _("%s holds %.1f GB, less than %g GB (drives are sold rounded, so %.0f %% "
                      "less is accepted)"), d->name, found, claimed, tol * 100);
    else
        set_verdict(c, CLAIM_PASS, f, _("%s holds %.1f GB"), d->name, found);
}

/* ---- network ---- */

static void eval_network_gbps(struct claim *c, const struct claim_eval *e)
{
    const struct network_info *n = &e->m->network;
    const struct nic_port *best = NULL;
    int unknown = 0;
    for (int i = 0; i < n->nports; i++) {
        const struct nic_port *p = &n->ports[i];
        if (p->speed_mbps > 0 && (!best || p->speed_mbps > best->speed_mbps))
            best = p;
        unknown += p->speed_mbps <= 0 && p->state != LINK_DOWN;
    }
    double claimed = json_number_value(c->claimed);
    double found = best ? best->speed_mbps / 1000.0 : 0;
    if (found >= claimed)
        set_verdict(c, CLAIM_PASS, json_real(found), _("%s links at %g Gb/s"), best->name, found);
    else if (unknown || !n->listed) {
        if (best)
            set_verdict(c, CLAIM_UNKNOWN, json_real(found),
                        i18n_plural("the fastest known link is %s at %g Gb/s; %d NIC shows no speed",
                                    "the fastest known link is %s at %g Gb/s; %d NICs show no speed", (unsigned long)unknown),
                        best->name, found, unknown);
        else
            set_verdict(c, CLAIM_UNKNOWN, NULL,
                        i18n_plural("no NIC reports a speed; %d NIC shows no speed",
                                    "no NIC reports a speed; %d NICs show no speed", (unsigned long)unknown),
                        unknown);
    }
    else if (best)
        set_verdict(c, CLAIM_MISMATCH, json_real(found), _("the fastest NIC, %s, links at %g Gb/s"), best->name, found);
    else
        set_verdict(c, CLAIM_MISMATCH, NULL, _("no NIC reports a link speed (every link is down)"));
}

/* NICs that link at the claimed speed (network.gbps when the claim gives it, else any known). */
static void eval_network_ports(struct claim *c, const struct claim_eval *e)
{
    const struct network_info *n = &e->m->network;
    double gbps = 0;
    for (int i = 0; i < e->set->count; i++)
        if (!strcmp(e->set->items[i].key, "network.gbps"))
            gbps = json_number_value(e->set->items[i].claimed);
    int fast = 0, unknown = 0;
    for (int i = 0; i < n->nports; i++) {
        const struct nic_port *p = &n->ports[i];
        if (p->speed_mbps > 0 && p->speed_mbps / 1000.0 >= gbps)
            fast++;
        unknown += p->speed_mbps <= 0 && p->state != LINK_DOWN;
    }
    json_int_t claimed = json_integer_value(c->claimed);
    if (fast >= claimed)
        set_verdict(c, CLAIM_PASS, json_integer(fast), _("%d NIC ports link at %g Gb/s or more"), fast, gbps);
    else if (unknown || !n->listed)
        set_verdict(c, CLAIM_UNKNOWN, json_integer(fast),
                    _("%d NIC ports link at %g Gb/s or more; %d show no speed"), fast, gbps, unknown);
    else
        set_verdict(c, CLAIM_MISMATCH, json_integer(fast), _("%d NIC ports link at %g Gb/s or more, %lld claimed"), fast,
                    gbps, (long long)claimed);
}

static const char *const FABRICS[] = {"nvswitch", NULL};

const struct claim_kind claim_kinds[] = {
    {"cpu.model", CLAIM_STRING, NULL, eval_cpu_model},
    {"cpu.sockets", CLAIM_INTEGER, NULL, eval_cpu_sockets},
    {"cpu.cores", CLAIM_INTEGER, NULL, eval_cpu_cores},
    {"cpu.threads", CLAIM_INTEGER, NULL, eval_cpu_threads},
    {"memory.gb", CLAIM_NUMBER, NULL, eval_memory_gb},
    {"memory.type", CLAIM_STRING, NULL, eval_memory_type},
    {"memory.mts", CLAIM_INTEGER, NULL, eval_memory_mts},
    {"memory.channels_per_socket", CLAIM_INTEGER, NULL, eval_memory_channels},
    {"gpus.model", CLAIM_STRING, NULL, eval_gpus_model},
    {"gpus.count", CLAIM_INTEGER, NULL, eval_gpus_count},
    {"gpus.memory_gb", CLAIM_NUMBER, NULL, eval_gpus_memory_gb},
    {"gpus.pcie_gen", CLAIM_INTEGER, NULL, eval_gpus_pcie_gen},
    {"gpus.pcie_width", CLAIM_INTEGER, NULL, eval_gpus_pcie_width},
    {"gpus.nvlinks", CLAIM_INTEGER, NULL, eval_gpus_nvlinks},
    {"gpus.fabric", CLAIM_STRING, FABRICS, eval_gpus_fabric},
    {"storage[].type", CLAIM_STRING, STORAGE_TYPES, eval_storage_type},
    {"storage[].gb", CLAIM_NUMBER, NULL, eval_storage_gb},
    {"network.gbps", CLAIM_NUMBER, NULL, eval_network_gbps},
    {"network.ports", CLAIM_INTEGER, NULL, eval_network_ports},
};

const int claim_kinds_count = (int)(sizeof claim_kinds / sizeof claim_kinds[0]);

void claims_evaluate(struct claim_set *set, const struct machine *m, const struct thresholds *t)
{
    struct claim_eval e = {.m = m, .t = t, .set = set};
    match_storage(&e);
    i18n_english_begin();
    for (int i = 0; i < set->count; i++)
        claim_kinds[set->items[i].kind].evaluate(&set->items[i], &e);
    i18n_english_end();
    /* The reader's language: the evaluators are pure, so a second run gives the same verdict and
     * found value, and its message is kept beside the English one (which the JSON carries). */
    for (int i = 0; i18n_translating() && i < set->count; i++) {
        struct claim *c = &set->items[i];
        char *english = c->message;
        c->message = NULL;
        claim_kinds[c->kind].evaluate(c, &e);
        free(c->message_local);
        c->message_local = c->message;
        c->message = english;
    }
}

void check_claim_mismatch(struct audit_ctx *ctx)
{
    const struct claim_set *set = ctx->inputs->claims;
    for (int i = 0; set && i < set->count; i++) {
        const struct claim *c = &set->items[i];
        json_t *ev = json_pack("{s:O, s:O}", "claimed", c->claimed, "found", c->found);
        enum severity sev = c->verdict == CLAIM_MISMATCH ? ctx_severity(ctx)
                            : c->verdict == CLAIM_PASS   ? SEV_PASS
                                                         : SEV_UNKNOWN;
        char *claimed = json_dumps(c->claimed, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)),
             *found = json_dumps(c->found, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
        const char *message = i18n_translating() && c->message_local ? c->message_local : c->message;
        const char *fix = c->verdict == CLAIM_MISMATCH ? _("ask the provider to correct the offer, or to fix the machine")
                                                       : NULL;
        if (c->found && !json_is_null(c->found))
            finding_add(ctx, sev, c->key, ev, fix, _("claimed %s, found %s: %s"), claimed ? claimed : "?",
                        found ? found : "?", message ? message : "");
        else /* a value not found is said by the message ("GPU memory unknown: ..."), not as "null" */
            finding_add(ctx, sev, c->key, ev, fix, _("claimed %s: %s"), claimed ? claimed : "?", message ? message : "");
        free(claimed);
        free(found);
    }
}
