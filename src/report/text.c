/* The report for people. A first screen (<= SUMMARY_LINES lines) with the machine, the verdict
 * per workload and the worst problems with their fix; then the details: the machine, findings
 * grouped by area (worst area first, worst finding first, repeated findings of a rule once), and
 * the verdict line again. No line is wider than the terminal (report_columns): long lines wrap at a space. */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/wrap.h"
#include "util/output.h"
#include "util/parse.h"
#include "util/datadir.h"
#include "util/i18n.h"
#include "util/width.h"
#include "util/units.h"

#define SUMMARY_LINES 25

struct style {
    const char *bold, *dim, *reset;
    const char *sev[SEV_FAIL + 1];
    size_t columns; /* the width every line keeps within (report_columns) */
};

static struct style make_style(bool colour)
{
    struct style s = {"", "", "", {"", "", "", "", ""}, REPORT_COLUMNS};
    if (colour) {
        s = (struct style){"\033[1m", "\033[2m", "\033[0m",
                           {"\033[32m", "\033[36m", "\033[35m", "\033[33m", "\033[1;31m"}, REPORT_COLUMNS};
    }
    return s;
}

static const char *or_unknown(const char *s) { return s ? s : _("unknown"); }

/* A NUMA node as the GPU section shows one: its number, or "?" when the kernel gives none (-1). */
static const char *node_shown(int node)
{
    static char ring[4][16];
    static int next;
    char *buf = ring[next++ % 4];
    if (node < 0)
        snprintf(buf, sizeof ring[0], "?");
    else
        snprintf(buf, sizeof ring[0], "%d", node);
    return buf;
}

/* Cells of a table padded to display columns (a Chinese character takes two), in a ring of
 * buffers so that one printf can take several. */
static const char *cell(const char *s, size_t cols)
{
    static char ring[8][256];
    static int next;
    char *buf = ring[next++ % 8];
    buf[0] = '\0';
    append_padded(buf, sizeof ring[0], s, cols);
    return buf;
}

/* The labels people read: severities, verdicts and report areas, upper-case in English. */
const char *severity_label(enum severity s)
{
    switch (s) {
    case SEV_PASS: return _("PASS");
    case SEV_INFO: return _("INFO");
    case SEV_UNKNOWN: return _("UNKNOWN");
    case SEV_WARN: return _("WARN");
    case SEV_FAIL: return _("FAIL");
    }
    return "?";
}

const char *finding_subject_shown(const char *subject, char *buf, size_t n)
{
    static const char *const words[] = {N_("machine"), N_("network"), N_("dataset")};
    if (!subject || !i18n_translating())
        return subject;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(subject, words[i]))
            return _(words[i]);
    int socket, end = 0;
    if (sscanf(subject, "socket %d%n", &socket, &end) == 1 && !subject[end]) {
        /* TRANSLATORS: a finding's subject: a CPU socket's number. */
        snprintf(buf, n, _("socket %d"), socket);
        return buf;
    }
    const char *power = "power supply ";
    if (!strncmp(subject, power, strlen(power))) {
        /* TRANSLATORS: a finding's subject: a power supply's name from the SMBIOS table. */
        snprintf(buf, n, _("power supply %s"), subject + strlen(power));
        return buf;
    }
    return subject;
}

static const char *verdict_label(enum verdict v)
{
    switch (v) {
    case VERDICT_PASS: return _("PASS");
    case VERDICT_INCONCLUSIVE: return _("INCONCLUSIVE");
    case VERDICT_WARN: return _("WARN");
    case VERDICT_FAIL: return _("FAIL");
    }
    return "?";
}

static const char *area_label(const char *area)
{
    static const char *const names[][2] = {
        {"pcie", N_("PCIE")},     {"gpu", N_("GPU")},         {"numa", N_("NUMA")},       {"kernel", N_("KERNEL")},
        {"cpu", N_("CPU")},       {"memory", N_("MEMORY")},   {"network", N_("NETWORK")}, {"power", N_("POWER")},
        {"storage", N_("STORAGE")}, {"virt", N_("VIRT")},     {"claims", N_("CLAIMS")},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i][0], area))
            return _(names[i][1]);
    return area;
}

static void link_text(char *buf, size_t n, const struct pci_link *l)
{
    if (!l->known) {
        snprintf(buf, n, _("link unknown"));
        return;
    }
    int cg = pcie_generation(l->cur_gt_s), mg = pcie_generation(l->max_gt_s);
    if (cg == mg && l->cur_width == l->max_width)
        snprintf(buf, n, _("Gen%d x%d"), cg, l->cur_width);
    else
        snprintf(buf, n, _("Gen%d x%d (max Gen%d x%d)"), cg, l->cur_width, mg, l->max_width);
}

static void print_cpu(FILE *o, const struct machine *m, const struct style *st)
{
    const struct cpu_info *c = &m->cpu;
    fprintf(o, "%sCPU%s     %s\n", st->bold, st->reset, or_unknown(c->model));
    if (c->sockets <= 0 && c->cores <= 0 && c->threads <= 0)
        return; /* not in the evidence, or unreadable: no "0 sockets, 0 cores" */
    fprintf(o, i18n_plural("        %d socket, %d cores, %d threads", "        %d sockets, %d cores, %d threads",
                           (unsigned long)c->sockets),
            c->sockets, c->cores, c->threads);
    if (c->usable_threads > 0)
        fprintf(o, _(" (%d usable)"), c->usable_threads);
    if (c->base_mhz > 0)
        fprintf(o, _("; base %.0f MHz"), c->base_mhz);
    if (c->max_mhz > 0)
        fprintf(o, _("; max %.0f MHz"), c->max_mhz);
    /* AVX2, AVX-512 and AMX are x86 extensions: on an ARM or other CPU they do not apply. */
    bool x86 = !c->arch || !strcmp(c->arch, "x86_64") || !strcmp(c->arch, "i686") || !strcmp(c->arch, "i386") ||
               !strcmp(c->arch, "x86");
    if (c->flags_known && x86)
        fprintf(o, _("; avx2 %s, avx512f %s, amx %s"), c->avx2 ? _("yes") : _("no"), c->avx512f ? _("yes") : _("no"),
                c->amx ? _("yes") : _("no"));
    fputc('\n', o);
}

static void print_numa(FILE *o, const struct machine *m, const struct style *st)
{
    fprintf(o, "%sNUMA%s   ", st->bold, st->reset);
    if (m->nnodes == 0)
        fprintf(o, _(" unknown\n"));
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        char *cpus = format_cpulist(n->cpus);
        fprintf(o, _("%s node %d: CPUs %s, "), i ? "       " : "", n->id, cpus && *cpus ? cpus : _("none"));
        if (n->memory_known)
            fprintf(o, "%.1f GiB", n->memory_bytes / GIB);
        else
            fprintf(o, _("memory unknown"));
        if (n->distances) {
            fprintf(o, _("; distances"));
            for (int k = 0; k < m->nnodes; k++)
                fprintf(o, " %d", n->distances[k]);
        }
        fputc('\n', o);
        free(cpus);
    }
}

static void print_pci(FILE *o, const struct machine *m, const struct style *st)
{
    const char *const titles[] = {_("accelerators"), _("NICs"), _("NVMe")};
    if (!m->pci_scanned) {
        /* No bus was read: no "accelerators: 0" above GPUs that nvidia-smi lists. */
        fprintf(o, _("%sPCI%s     devices unknown (%s)%s\n"), st->bold, st->reset,
                machine_from_evidence(m) ? _("not in the evidence files") : _("the PCI bus could not be read"),
                m->gpus.count > 0 ? _("; the GPUs below are from the NVIDIA source") : "");
        return;
    }
    fprintf(o, "%sPCI%s\n", st->bold, st->reset);
    for (int role = PCI_ROLE_ACCELERATOR; role <= PCI_ROLE_NVME; role++) {
        int n = 0;
        for (int i = 0; i < m->npci; i++)
            n += m->pci[i].role == (enum pci_role)role;
        fprintf(o, "        %s%s%d\n", titles[role], _(": "), n); /* a full-width colon in Chinese */
        for (int i = 0; i < m->npci; i++) {
            const struct pci_device *d = &m->pci[i];
            if (d->role != (enum pci_role)role)
                continue;
            char link[96];
            link_text(link, sizeof link, &d->link);
            char ids[64];
            if (d->missing)
                /* TRANSLATORS: %s lists the PCI ID files the tree lacks ("vendor, device"). */
                snprintf(ids, sizeof ids, _("[no %s file]"), d->missing);
            else
                snprintf(ids, sizeof ids, "[%04x:%04x]", d->vendor_id, d->device_id);
            fprintf(o, _("          %s  %s %s %s  node %s%s  %s\n"), d->bus_id, or_unknown(d->vendor_name),
                    d->device_name ? d->device_name : "", ids, node_shown(d->numa_node), d->numa_derived ? _(" (from local CPUs)") : "",
                    link);
            if (d->npath > 0) {
                fprintf(o, _("          %s  path:"), st->dim);
                for (int k = 0; k < d->npath; k++) {
                    link_text(link, sizeof link, &d->path[k].link);
                    fprintf(o, "%s %s %s", k ? " <-" : "", d->path[k].bus_id, link);
                }
                fprintf(o, "%s\n", st->reset);
            }
        }
    }
}

/* The claims table: the provider's label next to what the machine is. */
static void print_claims(FILE *o, const struct claim_set *set, const struct style *st)
{
    if (!set)
        return;
    if (set->file)
        fprintf(o, _("%sLabel vs reality%s (%s)\n"), st->bold, st->reset, set->file);
    else
        fprintf(o, _("%sLabel vs reality%s (--expect \"%s\")\n"), st->bold, st->reset, set->listing);
    /* Narrower columns on a narrow terminal: the verdict stays on the row. */
    int key_w = st->columns < 100 ? 24 : 28, value_w = st->columns < 100 ? 17 : 22;
    fprintf(o, "  %s %s %s %s\n", cell(_("claim"), key_w), cell(_("claimed"), value_w), cell(_("found"), value_w),
            _("verdict"));
    for (int i = 0; i < set->count; i++) {
        const struct claim *c = &set->items[i];
        char *claimed = json_dumps(c->claimed, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)),
             *found = json_dumps(c->found, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
        enum severity sev = c->verdict == CLAIM_MISMATCH ? SEV_FAIL : c->verdict == CLAIM_PASS ? SEV_PASS : SEV_UNKNOWN;
        fprintf(o, "  %s %s %s %s%s%s\n", cell(c->key, key_w), cell(claimed ? claimed : "?", value_w),
                cell(c->found && !json_is_null(c->found) && found ? found : _("unknown"), value_w), st->sev[sev], _(claim_verdict_label(c->verdict)),
                st->reset);
        /* The arithmetic on a line of its own, so the table keeps its columns within the width. */
        if (*claim_message_text(c))
            fprintf(o, "      %s%s%s\n", st->dim, claim_message_text(c), st->reset);
        free(claimed);
        free(found);
    }
    fputc('\n', o);
}

static void print_location(FILE *o, const char *what, const struct storage_location *l)
{
    fprintf(o, "        %s %s%s", what, l->path, _(": "));
    if (l->network_fs)
        fprintf(o, _("network filesystem %s from %s"), l->fstype, l->source);
    else if (l->ndisks == 0)
        fprintf(o, _("disk unknown (%s)"), l->unknown_reason ? _(l->unknown_reason) : _("no mount found"));
    for (int i = 0; i < l->ndisks; i++)
        fprintf(o, "%s%s", i ? ", " : _("on "), l->disks[i]);
    if (l->mountpoint && !l->network_fs)
        fprintf(o, _(" (%s mounted on %s, %s)"), l->source, l->mountpoint, l->fstype);
    if (l->free_bytes >= 0)
        fprintf(o, _("; %.1f GB free"), l->free_bytes / GB);
    fputc('\n', o);
}

static void print_storage(FILE *o, const struct machine *m, const struct style *st)
{
    const struct storage_info *s = &m->storage;
    fprintf(o, _("%sStorage%s %s\n"), st->bold, st->reset, s->listed ? "" : _("block devices unknown"));
    for (int i = 0; i < s->ndevices; i++) {
        const struct block_device *d = &s->devices[i];
        char size[32];
        snprintf(size, sizeof size, "%s", _("size unknown"));
        if (d->size_bytes >= 0)
            snprintf(size, sizeof size, "%.1f GB", d->size_bytes / GB);
        fprintf(o, _("        %s %s %s %s %s%s%s  node %s%s%s\n"), cell(d->name, 10),
                cell(storage_transport_name(d->transport), 7), cell(size, 14),
                /* virtio-blk reports rotational 1 whatever backs it, and in a VM any disk's flag is the
                 * hypervisor's choice: unknown, not a spinning disk */
                cell(d->rotational == 1 && d->transport != TRANSPORT_VIRTIO && !m->virt.vm ? _("rotational")
                     : d->rotational == 0                                   ? _("solid state")
                                                                            : _("rotation unknown"),
                     15),
                d->vendor ? d->vendor : "", d->vendor ? " " : "", d->model ? d->model : _("model unknown"),
                node_shown(d->numa_node),
                d->holds_root ? "  [/]" : "", d->holds_data ? _("  [data]") : "");
    }
    if (s->root.path)
        /* TRANSLATORS: before the path of the folder the system (/) or the data is on. */
        print_location(o, _("system"), &s->root);
    if (s->has_data)
        print_location(o, _("data"), &s->data);
}

static void print_network(FILE *o, const struct machine *m, const struct style *st)
{
    const struct network_info *n = &m->network;
    fprintf(o, _("%sNetwork%s %s\n"), st->bold, st->reset, n->listed || n->nports ? "" : _("interfaces unknown"));
    for (int i = 0; i < n->nports; i++) {
        const struct nic_port *p = &n->ports[i];
        char speed[32];
        snprintf(speed, sizeof speed, "%s", _("speed unknown"));
        if (p->speed_mbps > 0)
            snprintf(speed, sizeof speed, "%g Gb/s", p->speed_mbps / 1000.0);
        fprintf(o, _("        %s %s %s %s %s node %s"), cell(p->name, 14), cell(link_state_name(p->state), 7),
                cell(speed, 14), cell(or_unknown(p->link_layer), 10), cell(or_unknown(p->driver), 10),
                node_shown(p->numa_node));
        if (p->has_rdma)
            fprintf(o, _("  RDMA %s port %d %s"), p->rdma.device, p->rdma.port, or_unknown(p->rdma.state));
        if (p->unknown_reason)
            /* TRANSLATORS: why a NIC's link is unknown, in parentheses; the other two %s are terminal
             * colour codes (or nothing). */
            fprintf(o, _("  %s(%s)%s"), st->dim, _(p->unknown_reason), st->reset);
        fputc('\n', o);
    }
}

static void print_kernel(FILE *o, const struct machine *m, const struct style *st)
{
    const struct kernel_info *k = &m->kernel;
    fprintf(o, _("%sKernel%s  %s; THP %s; swap "), st->bold, st->reset, or_unknown(k->release), or_unknown(k->thp_enabled));
    if (k->swap_total_bytes < 0)
        fputs(_("unknown"), o);
    else
        fprintf(o, "%.1f GiB", k->swap_total_bytes / GIB);
    char swappiness[32];
    snprintf(swappiness, sizeof swappiness, "%s", _("unknown"));
    if (k->swappiness >= 0)
        snprintf(swappiness, sizeof swappiness, "%d", k->swappiness);
    fprintf(o, _(" (swappiness %s); NUMA balancing %s; isolated CPUs %s; governor %s\n"), swappiness,
            k->numa_balancing < 0 ? _("unknown") : k->numa_balancing ? _("on") : _("off"),
            k->isolated_cpus ? (*k->isolated_cpus ? k->isolated_cpus : _("none")) : _("unknown"),
            k->cpufreq_present ? k->governor : _("none (no cpufreq)"));
}

static void print_virt(FILE *o, const struct machine *m, const struct style *st)
{
    const struct virt_info *v = &m->virt;
    fprintf(o, _("%sVirt%s    %s"), st->bold, st->reset, !v->known ? _("unknown") : v->vm ? _("virtual machine") : _("bare metal"));
    if (v->vm && v->hypervisor)
        fprintf(o, " (%s)", v->hypervisor);
    else if (v->vm && v->evidence)
        fprintf(o, _(" (hypervisor unknown; %s)"), _(v->evidence));
    if (v->container)
        fprintf(o, _(", container (%s)"), v->container_kind);
    fputc('\n', o);
}

static void print_memory(FILE *o, const struct machine *m, const struct style *st)
{
    const struct memory_info *mem = &m->memory;
    fprintf(o, _("%sMemory%s  "), st->bold, st->reset);
    if (mem->installed_bytes >= 0)
        fprintf(o, _("%.1f GiB installed"), mem->installed_bytes / GIB);
    else
        fprintf(o, _("installed unknown"));
    if (mem->usable_bytes >= 0)
        fprintf(o, _(", %.1f GiB usable"), mem->usable_bytes / GIB);
    fprintf(o, _("; ECC %s"), mem->ecc == ECC_ON ? _("on") : mem->ecc == ECC_OFF ? _("off") : _("unknown"));
    if (mem->edac_present)
        fprintf(o, _(" (EDAC: %ld corrected, %ld uncorrected)"), mem->edac_ce, mem->edac_ue);
    if (mem->platform.name)
        fprintf(o, _("; platform %s: %d channels/socket, %s-%d"), mem->platform.name, mem->platform.channels_per_socket,
                mem->platform.ddr, mem->platform.mts);
    fputc('\n', o);
    if (mem->ndimms == 0 && mem->unknown_reason)
        fprintf(o, _("        DIMMs unknown: %s\n"), _(mem->unknown_reason));
    for (int s = 0; mem->ndimms > 0 && s < mem->sockets; s++) {
        fprintf(o, _("        socket %d: %d DIMMs"), s, memory_socket_dimms(mem, s));
        if (memory_socket_channels(mem, s) >= 0)
            fprintf(o, _(" on %d channels"), memory_socket_channels(mem, s));
        double bw = memory_socket_bandwidth(mem, s);
        if (bw > 0)
            fprintf(o, _(", %.1f GB/s theoretical"), bw / GB);
        fputc('\n', o);
    }
    for (int i = 0; i < mem->ndimms; i++) {
        const struct dimm *d = &mem->dimms[i];
        char channel[16] = "?";
        if (d->channel >= 0)
            snprintf(channel, sizeof channel, "%d", d->channel);
        fprintf(o, _("        %s%s %s%ssocket %d ch %-2s %4.0f GiB %s %4d/%4d MT/s %dR %d/%d bit%s\n"), st->dim,
                cell(or_unknown(d->locator), 14), d->bank_locator && *d->bank_locator ? d->bank_locator : "",
                d->bank_locator && *d->bank_locator ? " " : "", d->socket, channel, d->size_bytes / GIB,
                cell(or_unknown(d->type), 5), d->speed_mts, d->configured_mts, d->rank, d->total_width, d->data_width,
                st->reset);
    }
    if (mem->npersistent > 0)
        fprintf(o, _("        persistent memory (Optane/NVDIMM, not RAM, not in the channel count): %d modules, %.1f GiB\n"),
                mem->npersistent, mem->persistent_bytes / GIB);
    for (int i = 0; i < mem->npersistent; i++) {
        const struct dimm *d = &mem->persistent[i];
        fprintf(o, _("        %s%s %s socket %2d  %4.0f GiB %s%s\n"), st->dim, cell(or_unknown(d->locator), 14),
                cell(d->bank_locator ? d->bank_locator : "", 24), d->socket, d->size_bytes / GIB, or_unknown(d->type), st->reset);
    }
    if (mem->slots_total >= 0)
        fprintf(o, _("        free: %d of %d DIMM slots"), mem->slots_total - mem->ndimms - mem->npersistent,
                mem->slots_total);
    if (mem->pcie_slots_total >= 0)
        fprintf(o, _("%s%d of %d PCIe slots"), mem->slots_total >= 0 ? ", " : _("        free: "), mem->pcie_slots_free,
                mem->pcie_slots_total);
    if (mem->slots_total >= 0 || mem->pcie_slots_total >= 0)
        fputs(_(" (room to grow)\n"), o);
    const struct power_info *p = &m->power;
    fprintf(o, _("%sPower%s   "), st->bold, st->reset);
    if (p->nsupplies == 0)
        fprintf(o, _("supplies unknown"));
    for (int i = 0; i < p->nsupplies; i++) {
        char watts[32];
        if (p->supplies[i].max_watts > 0)
            snprintf(watts, sizeof watts, "%d W", p->supplies[i].max_watts);
        else
            snprintf(watts, sizeof watts, "%s", _("capacity unknown")); /* never "-1 W" */
        fprintf(o, "%s%s %s %s", i ? ", " : "", or_unknown(p->supplies[i].name), watts,
                p->supplies[i].present ? or_unknown(p->supplies[i].status) : _("absent"));
    }
    if (p->cpu_tdp_watts > 0)
        fprintf(o, _("; CPU package limits %.0f W"), p->cpu_tdp_watts);
    fputc('\n', o);
    const struct contention_info *c = &m->contention;
    if (!c->sampled && machine_from_evidence(m))
        return; /* "Not in the evidence files" says it */
    fprintf(o, _("%sCPU use%s "), st->bold, st->reset);
    if (!c->sampled) {
        fprintf(o, _("not sampled: %s\n"), or_unknown(c->unknown_reason ? _(c->unknown_reason) : NULL));
        return;
    }
    fprintf(o, _("%.1f s: user %.1f%%, system %.1f%%, iowait %.1f%%, irq %.1f%%, steal %.1f%%; load %.2f\n"), c->seconds,
            c->total.user * 100, c->total.system * 100, c->total.iowait * 100, c->total.irq * 100,
            c->total.steal * 100, c->load1);
    for (int i = 0; i < c->nprocs && i < 5; i++)
        fprintf(o, _("        %s%5.1f%%  %s (pid %d)%s%s\n"), st->dim, c->procs[i].share * 100, c->procs[i].name,
                c->procs[i].pid, c->procs[i].kernel_thread ? _(" [kernel thread]") : "", st->reset);
}

/* What `--bench FILE` or `--bench-quick` measured: the numbers MEM_BANDWIDTH_LOW,
 * PCIE_BANDWIDTH_LOW and STORAGE_SLOW_DATA judge, each with why when it is missing. */
static void print_measured(FILE *o, const struct machine *m, const struct style *st)
{
    const struct bench_results *b = &m->bench;
    if (!b->loaded)
        return;
    fprintf(o, _("%sMeasured%s (%s)\n"), st->bold, st->reset, b->source);
    if (b->mem_triad_bytes_s > 0)
        fprintf(o, _("        memory: triad %.2f GB/s, whole machine\n"), b->mem_triad_bytes_s / GB);
    else
        fprintf(o, _("        memory: %s\n"), or_unknown(_(b->mem_unmeasured)));
    if (b->storage_seq_read_bytes_s > 0)
        fprintf(o, _("        storage: sequential read %.2f GB/s, random read %.0f IOPS (%s %s)\n"),
                b->storage_seq_read_bytes_s / GB, b->storage_rand_read_iops, b->storage_file ? _("file") : _("in"),
                or_unknown(b->storage_file ? b->storage_file : b->storage_dir));
    else
        fprintf(o, _("        storage: %s\n"), or_unknown(_(b->storage_unmeasured)));
    for (int i = 0; i < b->npcie; i++) {
        const struct bench_gpu_copy *c = &b->pcie[i];
        fprintf(o, _("        pcie %s: host to device %.1f GB/s, device to host %.1f GB/s (pinned"), c->bus_id,
                c->h2d_pinned_bytes_s / GB, c->d2h_pinned_bytes_s / GB);
        if (c->near_node >= 0)
            fprintf(o, _(", host memory on node %d"), c->near_node);
        fprintf(o, ")\n");
    }
    if (b->npcie == 0)
        fprintf(o, _("        pcie: %s\n"), or_unknown(_(b->pcie_unmeasured)));
}

/* Appends text to a fixed buffer, cut with "..." when it does not fit. */
static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + used, n - used, fmt, ap);
    va_end(ap);
    if (w >= 0 && (size_t)w >= n - used && n > 4)
        memcpy(buf + n - 4, "...", 4);
}

/* A first-screen line within `width` display columns: wrapped at a space (never between a number
 * and its unit), continuing 8 columns in, or under the command of a "fix: " line, so that the fix,
 * a process name or a reason is read whole. Returns the lines written. */
static int print_cut(FILE *o, const char *line, size_t width)
{
    size_t len = strlen(line);
    if (display_width_n(line, len) <= width) {
        fprintf(o, "%s\n", line);
        return 1;
    }
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) {
        size_t keep = display_prefix(line, len, width - 3);
        fprintf(o, "%.*s...\n", (int)keep, line);
        return 1;
    }
    print_wrapped(m, line, len, width, _("fix: "));
    fclose(m);
    fputs(buf, o);
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    free(buf);
    return lines;
}

/* "8x NEC Corporation Vector Engine 1.0, 1x ..." for the accelerators (GPUs by NVIDIA's name). */
static void accelerator_summary(char *buf, size_t n, const struct machine *m)
{
    const char *names[16];
    int counts[16], nnames = 0, total = 0;
    int count = m->gpus.count > 0 ? m->gpus.count : m->npci;
    for (int i = 0; i < count; i++) {
        const char *name;
        if (m->gpus.count > 0) {
            name = m->gpus.items[i].name ? m->gpus.items[i].name : _("NVIDIA GPU");
        } else {
            if (m->pci[i].role != PCI_ROLE_ACCELERATOR)
                continue;
            name = m->pci[i].device_name ? m->pci[i].device_name : _("unnamed device");
        }
        total++;
        int k = 0;
        while (k < nnames && strcmp(names[k], name))
            k++;
        if (k == nnames && nnames < 16) {
            names[nnames] = name;
            counts[nnames++] = 0;
        }
        if (k < nnames)
            counts[k]++;
    }
    if (total == 0) {
        append(buf, n, m->pci_scanned ? _("no accelerator seen") : _("accelerators unknown (the PCI bus could not be read)"));
        return;
    }
    append(buf, n, i18n_plural("%d accelerator: ", "%d accelerators: ", (unsigned long)total), total);
    for (int k = 0; k < nnames; k++)
        append(buf, n, _("%s%dx %s"), k ? ", " : "", counts[k], names[k]);
    if (m->gpus.count > 0 && gpu_set_from_nvidia_smi(&m->gpus))
        append(buf, n, _(" (from nvidia-smi)"));
}

static int summary_machine(FILE *o, const struct audit_report *r, const struct style *st)
{
    const struct machine *m = r->machine;
    const struct cpu_info *c = &m->cpu;
    char line[512] = "";
    append(line, sizeof line, _("%sMachine%s  "), st->bold, st->reset);
    if (c->cores > 0) {
        if (c->sockets > 1)
            append(line, sizeof line, _("%dx "), c->sockets);
        append(line, sizeof line, _("%s, %d cores/%d threads"), c->model ? c->model : _("CPU model unknown"), c->cores,
               c->threads);
    } else {
        append(line, sizeof line, machine_from_evidence(m) ? _("CPU not in the evidence") : _("CPU unknown"));
    }
    const struct memory_info *mem = &m->memory;
    if (mem->installed_bytes >= 0)
        append(line, sizeof line, ", %.0f GiB", mem->installed_bytes / GIB);
    else if (mem->usable_bytes >= 0)
        append(line, sizeof line, _(", %.0f GiB usable"), mem->usable_bytes / GIB);
    int lines = print_cut(o, line, st->columns);
    line[0] = '\0';
    append(line, sizeof line, "         %s", !m->virt.known ? "" : m->virt.vm ? _("VM; ") : _("bare metal; "));
    accelerator_summary(line, sizeof line, m);
    return lines + print_cut(o, line, st->columns);
}

/* The rules behind a workload's fail and warn findings, worst first: "PCIE_SLOT_CAPPED, ...". */
static void problem_rules(char *buf, size_t n, const struct findings *f)
{
    const struct rule *seen[64];
    int nseen = 0;
    for (int i = 0; i < f->count && nseen < 64; i++) {
        if (f->items[i].severity < SEV_WARN)
            continue;
        bool dup = false;
        for (int k = 0; k < nseen; k++)
            dup |= seen[k] == f->items[i].rule;
        if (!dup) {
            append(buf, n, "%s%s", nseen ? ", " : "", f->items[i].rule->id);
            seen[nseen++] = f->items[i].rule;
        }
    }
}

/* The key facts a verdict lacks: "DIMMs, memory ECC". */
static void key_gap_list(char *buf, size_t n, const struct workload_verdict *v)
{
    for (int i = 0, shown = 0; i < v->ngaps; i++)
        if (v->gaps[i].key)
            append(buf, n, "%s%s", shown++ ? _(", ") : "", gap_fact_text(&v->gaps[i]));
}

/* The severity whose colour a verdict is printed in (INCONCLUSIVE in unknown's). */
static enum severity verdict_colour(enum verdict v)
{
    return v == VERDICT_FAIL ? SEV_FAIL : v == VERDICT_WARN ? SEV_WARN : v == VERDICT_PASS ? SEV_PASS : SEV_UNKNOWN;
}

/* One line, cut at a word with " ..." where it would wrap: the other workloads' verdicts are the
 * whole of them; their reasons are below. */
static int print_one_line(FILE *o, const char *line, size_t width)
{
    size_t len = strlen(line);
    if (display_width_n(line, len) <= width) {
        fprintf(o, "%s\n", line);
        return 1;
    }
    size_t keep = display_prefix(line, len, width - 4);
    while (keep > 0 && line[keep] != ' ')
        keep--;
    while (keep > 0 && (line[keep - 1] == ' ' || line[keep - 1] == ','))
        keep--;
    fprintf(o, "%.*s ...\n", (int)keep, line);
    return 1;
}

static int summary_verdict_line(FILE *o, const struct audit_report *r, enum workload w, const struct style *st,
                                bool one_line)
{
    const struct workload_verdict *v = &r->verdicts->verdicts[w];
    char line[2048] = "";
    enum severity colour = verdict_colour(v->verdict);
    append(line, sizeof line, "  %s%-10s%s %s%s%s ", w == r->workload ? st->bold : "", workload_name(w),
           w == r->workload ? st->reset : "", st->sev[colour], cell(verdict_label(v->verdict), 12), st->reset);
    if (v->verdict == VERDICT_FAIL || v->verdict == VERDICT_WARN) {
        if (v->fails)
            append(line, sizeof line, _("%d fail%s"), v->fails, v->warns ? _(", ") : "");
        if (v->warns)
            append(line, sizeof line, _("%d warn"), v->warns);
        /* TRANSLATORS: between "1 fail, 2 warn" and the rule IDs. */
        append(line, sizeof line, "%s", _(": "));
        problem_rules(line, sizeof line, &r->verdicts->findings[w]);
        if (v->ngaps && v->gaps[0].key) {
            append(line, sizeof line, _("; unknown: "));
            key_gap_list(line, sizeof line, v);
        }
    } else if (v->verdict == VERDICT_INCONCLUSIVE) {
        append(line, sizeof line, _("unknown: "));
        key_gap_list(line, sizeof line, v);
    } else {
        append(line, sizeof line, _("checked %d of %d checks"), v->checked, v->applicable);
    }
    return one_line ? print_one_line(o, line, st->columns) : print_cut(o, line, st->columns);
}

/* The groups worth a line on the first screen or in the details. */
static bool group_shown(const struct finding_group *g, const struct machine *m, bool verbose)
{
    const struct finding *it = g->members[0];
    if (verbose)
        return true;
    return it->severity != SEV_PASS && !finding_outside_evidence(m, it);
}

/* "0000:1b:00.0" or "0000:1b:00.0, 0000:1c:00.0 and 6 more". */
static void group_subjects(char *buf, size_t n, const struct finding_group *g, int listed)
{
    char shown[128];
    for (int i = 0; i < g->count && i < listed; i++)
        append(buf, n, "%s%s", i ? _(", ") : "", finding_subject_shown(g->members[i]->subject, shown, sizeof shown));
    if (g->count > listed)
        append(buf, n, _(" and %d more"), g->count - listed);
}

/* Rows shown on the first screen of what differs from the listing; the rest are in Details. */
#define LISTING_ROWS_SHOWN 5

/* Claims i..end-1 that read as one row: storage[] entries of one field, value and verdict. */
static int same_row_end(const struct claim_set *set, int i)
{
    const struct claim *c = &set->items[i];
    int end = i + 1;
    if (c->index < 0)
        return end;
    for (int k = i + 1; k < set->count; k++) {
        const struct claim *d = &set->items[k];
        if (d->index < 0)
            break;
        if (d->kind != c->kind)
            continue;
        if (d->verdict != c->verdict || !json_equal(d->claimed, c->claimed))
            break;
        end = k + 1;
    }
    return end;
}

/* "Listing vs this machine": what `--expect` said, what matches in one line, and each claim that
 * differs or is unknown with why; the words that made no claim. */
static int summary_listing(FILE *o, const struct claim_set *set, const struct style *st, int room)
{
    if (!set || !set->listing)
        return 0;
    char line[4096] = "";
    int lines = 0;
    fputc('\n', o);
    append(line, sizeof line, _("%sListing vs this machine%s (\"%s\")"), st->bold, st->reset, set->listing);
    lines += 1 + print_cut(o, line, st->columns);
    line[0] = '\0';
    int matching = 0, shown = 0, differing = 0;
    for (int i = 0; i < set->count; i++)
        if (set->items[i].verdict == CLAIM_PASS)
            append(line, sizeof line, "%s%s", matching++ ? _(", ") : _("  matches: "), set->items[i].key);
    if (matching)
        lines += print_cut(o, line, st->columns);
    /* Mismatches first: they are what the listing got wrong; unknowns after. */
    for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < set->count;) {
        const struct claim *c = &set->items[i];
        int end = same_row_end(set, i);
        if (c->verdict == (pass == 0 ? CLAIM_MISMATCH : CLAIM_UNKNOWN)) {
            differing++;
            /* a row takes up to 2 lines; "... more" and the words not read keep theirs */
            if (shown < LISTING_ROWS_SHOWN && lines + 2 <= room - 2) {
                char *claimed = json_dumps(c->claimed, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
                enum severity sev = c->verdict == CLAIM_MISMATCH ? SEV_FAIL : SEV_UNKNOWN;
                line[0] = '\0';
                append(line, sizeof line, "  %s%s%s %s", st->sev[sev], cell(_(claim_verdict_label(c->verdict)), 8),
                       st->reset, c->key);
                if (end - i > 1)
                    append(line, sizeof line, _(" (%d disks)"), end - i);
                /* TRANSLATORS: a listing's claim: the listed value, then why it differs or is unknown. */
                append(line, sizeof line, _(": listed %s; %s"), claimed ? claimed : "?", claim_message_text(c));
                lines += print_cut(o, line, st->columns);
                free(claimed);
                shown++;
            }
        }
        i = end;
    }
    if (differing > shown) {
        fprintf(o, _("  ... %d more under Label vs reality below\n"), differing - shown);
        lines++;
    }
    if (!differing) {
        fprintf(o, _("  every listed figure matches\n"));
        lines++;
    }
    if (set->unparsed && json_array_size(set->unparsed)) {
        line[0] = '\0';
        size_t k;
        json_t *w;
        json_array_foreach(set->unparsed, k, w)
            append(line, sizeof line, "%s\"%s\"", k ? _(", ") : _("  not read (no claim made): "), json_string_value(w));
        lines += print_cut(o, line, st->columns);
    }
    return lines;
}

static int print_summary(FILE *o, const struct audit_report *r, const struct style *st, int budget)
{
    const struct machine *m = r->machine;
    const struct workload_verdict *sel = &r->verdicts->verdicts[r->workload];
    int lines = 0;
    lines += summary_machine(o, r, st) + 1;
    fputc('\n', o);
    fprintf(o, _("%sVerdict%s per workload (asked: %s)\n"), st->bold, st->reset,
            workload_name(r->workload));
    lines++;
    static const enum workload first_screen[] = {WL_GENERAL, WL_CV_TRAIN, WL_LLM_TRAIN, WL_LLM_INFER};
    bool asked_shown = false;
    for (size_t i = 0; i < sizeof first_screen / sizeof first_screen[0]; i++) {
        lines += summary_verdict_line(o, r, first_screen[i], st, first_screen[i] != r->workload);
        asked_shown |= first_screen[i] == r->workload;
    }
    if (!asked_shown)
        lines += summary_verdict_line(o, r, r->workload, st, false);
    char line[4096] = "";
    if (machine_from_evidence(m)) {
        append(line, sizeof line, _("  Evidence files only: %d of %d checks judged"), sel->checked, sel->applicable);
        if (sel->outside_evidence)
            append(line, sizeof line, _("; %d need the machine itself (--verbose lists them)"), sel->outside_evidence);
    } else {
        append(line, sizeof line, _("  Checked %d of %d checks for %s"), sel->checked, sel->applicable,
               workload_name(r->workload));
    }
    lines += print_cut(o, line, st->columns);
    if (sel->ngaps) {
        line[0] = '\0';
        /* The first screen names what the verdict needs; the facts it does not need are counted
         * here and named under "Not checked" below, so the answer stays on one screen. */
        int needed = 0;
        while (needed < sel->ngaps && sel->gaps[needed].key)
            needed++;
        if (needed) {
            /* TRANSLATORS: the label ("unknown, needed") and the facts after it. */
            append(line, sizeof line, _("  %s: "), _("unknown, needed"));
            for (int i = 0; i < needed; i++)
                append(line, sizeof line, "%s%s", i ? _(", ") : "", gap_fact_text(&sel->gaps[i]));
            if (sel->ngaps > needed)
                append(line, sizeof line, _("; %d more not needed (under Not checked)"), sel->ngaps - needed);
        } else {
            append(line, sizeof line, _("  unknown, not needed for the verdict: %d (under Not checked)"), sel->ngaps);
        }
        lines += print_cut(o, line, st->columns);
    }
    /* The worst problem keeps its place on the first screen: a blank line, the title, and two
     * lines each for the problem and its fix. */
    lines += summary_listing(o, r->claims, st, budget - lines - 6);
    struct finding_group *groups;
    int ngroups = findings_group(r->findings, &groups);
    int problems = 0;
    for (int i = 0; i < ngroups; i++)
        problems += groups[i].members[0]->severity >= SEV_WARN;
    fputc('\n', o);
    lines++;
    if (problems == 0) {
        fprintf(o, _("%sNo problem found%s%s\n"), st->bold, st->reset,
                sel->verdict == VERDICT_INCONCLUSIVE ? _(" in what could be checked: the verdict is not a pass") : "");
        lines++;
    } else {
        fprintf(o, _("%sWorst problems%s (%s)\n"), st->bold, st->reset, workload_name(r->workload));
        lines++;
        int shown = 0;
        for (int i = 0; i < ngroups; i++) {
            const struct finding_group *g = &groups[i];
            const struct finding *it = g->members[0];
            if (it->severity < SEV_WARN)
                break;
            /* Each problem is drawn aside first: it is shown only where it fits the screen whole
             * (the first one at least with its message), with a line left for "... more". */
            char *drawn = NULL;
            size_t drawn_len = 0;
            FILE *d = open_memstream(&drawn, &drawn_len);
            if (!d)
                break;
            line[0] = '\0';
            append(line, sizeof line, "  %s%s%s %s ", st->sev[it->severity], cell(severity_label(it->severity), 4),
                   st->reset, it->rule->id);
            group_subjects(line, sizeof line, g, 1);
            append(line, sizeof line, "%s%s", _(": "), finding_message(it));
            int message_lines = print_cut(d, line, st->columns);
            fflush(d);
            size_t message_len = drawn_len;
            int fix_lines = 0;
            if (it->fix) {
                line[0] = '\0';
                append(line, sizeof line, _("       fix: %s"), finding_fix(it));
                fix_lines = print_cut(d, line, st->columns);
            }
            fclose(d);
            bool more = i + 1 < ngroups && groups[i + 1].members[0]->severity >= SEV_WARN;
            int room = budget - lines - (more ? 1 : 0);
            if (message_lines + fix_lines <= room) {
                fputs(drawn, o);
                lines += message_lines + fix_lines;
                shown++;
            } else if (shown == 0 && message_lines <= room + (more ? 1 : 0)) {
                fwrite(drawn, 1, message_len, o);
                lines += message_lines;
                shown++;
            }
            free(drawn);
            if (shown <= i)
                break;
        }
        if (shown < problems) {
            fprintf(o, _("  ... %d more below\n"), problems - shown);
            lines++;
        }
    }
    finding_groups_free(groups, ngroups);
    return lines;
}

/* What the verdict could not see, and why: the key facts first. In an evidence-file audit the
 * facts the files cannot hold are one line (--verbose lists them too). */
static void print_coverage(FILE *o, const struct audit_report *r, const struct style *st, bool verbose)
{
    const struct workload_verdict *v = &r->verdicts->verdicts[r->workload];
    if (v->ngaps == 0)
        return;
    fprintf(o, _("\n%sNot checked%s (workload %s; key = the verdict needs it)\n"), st->bold, st->reset,
            workload_name(r->workload));
    for (int i = 0; i < v->ngaps; i++) {
        const struct coverage_gap *g = &v->gaps[i];
        if (g->outside_evidence && !g->key && !verbose)
            continue;
        /* TRANSLATORS: colour, "key" or blank, colour end, the fact, its reason. */
        fprintf(o, _("  %s%s%s %s: %s\n"), st->sev[SEV_UNKNOWN], cell(g->key ? _("key") : "", 4), st->reset,
                gap_fact_text(g), gap_reason_text(g));
    }
}

static void print_findings(FILE *o, const struct audit_report *r, const struct style *st, bool verbose)
{
    const struct findings *f = r->findings;
    const struct machine *m = r->machine;
    struct finding_group *groups;
    int ngroups = findings_group(f, &groups);
    /* Areas in order of their worst finding: findings are sorted worst first already. */
    const char *areas[32];
    int nareas = 0;
    for (int i = 0; i < f->count; i++) {
        bool seen = false;
        for (int a = 0; a < nareas; a++)
            seen |= !strcmp(areas[a], f->items[i].rule->area);
        if (!seen && nareas < 32)
            areas[nareas++] = f->items[i].rule->area;
    }
    fprintf(o, _("\n%sFindings%s (workload %s)\n"), st->bold, st->reset, workload_name(r->workload));
    int outside = 0;
    for (int a = 0; a < nareas; a++) {
        int passed = 0, listed = 0;
        for (int i = 0; i < ngroups; i++) {
            const struct finding_group *g = &groups[i];
            const struct finding *it = g->members[0];
            if (strcmp(it->rule->area, areas[a]) != 0)
                continue;
            if (!group_shown(g, m, verbose)) {
                if (it->severity == SEV_PASS)
                    passed += g->count;
                else
                    outside += g->count;
                continue;
            }
            if (listed++ == 0)
                fprintf(o, "  %s%s%s\n", st->bold, area_label(areas[a]), st->reset);
            char subjects[512] = "";
            group_subjects(subjects, sizeof subjects, g, 3);
            /* TRANSLATORS: colour, severity, colour end, rule ID, dim, subjects, colour end, the finding. */
            fprintf(o, _("    %s%s%s %s %s%s%s: %s\n"), st->sev[it->severity], cell(severity_label(it->severity), 7),
                    st->reset, it->rule->id, st->dim, subjects, st->reset, finding_message(it));
            if (it->fix && it->severity != SEV_PASS)
                fprintf(o, _("            fix: %s\n"), finding_fix(it));
        }
        if (passed) {
            if (listed == 0)
                fprintf(o, "  %s%s%s\n", st->bold, area_label(areas[a]), st->reset);
            fprintf(o, "    %s%s%s ", st->sev[SEV_PASS], cell(severity_label(SEV_PASS), 7), st->reset);
            fprintf(o, i18n_plural("%d check passed\n", "%d checks passed\n", (unsigned long)passed), passed);
        }
    }
    if (outside) {
        const struct workload_verdict *v = &r->verdicts->verdicts[r->workload];
        char facts[512] = "";
        int shown = 0;
        for (int i = 0; i < v->ngaps; i++)
            if (v->gaps[i].outside_evidence)
                append(facts, sizeof facts, "%s%s", shown++ ? _(", ") : "", gap_fact_text(&v->gaps[i]));
        fprintf(o, "  %s%s%s\n    ", st->bold, _("NOT IN THE EVIDENCE"), st->reset);
        fprintf(o, i18n_plural("%d check needs the machine itself or a `gpuvet snapshot` of it: %s (--verbose lists them)\n",
                               "%d checks need the machine itself or a `gpuvet snapshot` of it: %s (--verbose lists them)\n",
                               (unsigned long)outside),
                outside, facts);
    }
    finding_groups_free(groups, ngroups);
}

struct section {
    bool absent; /* not in the evidence files */
    const char *name;
    void (*print)(FILE *o, const struct machine *m, const struct style *st);
};

/* Where a data table came from, in the reader's language; the option and variable names stay. */
static const char *data_origin_shown(enum data_origin origin)
{
    switch (origin) {
    /* TRANSLATORS: a data table compiled into the binary ("gpus.csv built-in"). */
    case DATA_BUILT_IN: return _("built-in");
    /* TRANSLATORS: a data table read from the installed share/gpuvet folder. */
    case DATA_INSTALLED: return _("installed");
    case DATA_OPTION:
    case DATA_ENVIRONMENT: break;
    }
    return data_origin_name(origin);
}

static void print_sections(FILE *o, const struct machine *m, const struct style *st, const struct section *sections,
                           size_t count, char *absent, size_t n)
{
    for (size_t i = 0; i < count; i++) {
        if (sections[i].absent)
            append(absent, n, "%s%s", *absent ? _(", ") : "", sections[i].name);
        else if (sections[i].print)
            sections[i].print(o, m, st);
    }
}

static int report_text_unescaped(FILE *out, const struct audit_report *r, bool colour, bool verbose, size_t columns)
{
    struct style st = make_style(colour);
    st.columns = columns;
    const struct machine *m = r->machine;
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    if (!o)
        return -1;
    fprintf(o, _("%sgpuvet audit%s of %s (%s)\n"), st.bold, st.reset,
            r->redact && m->hostname ? REDACTED : or_unknown(m->hostname), or_unknown(m->source));
    print_summary(o, r, &st, SUMMARY_LINES - 1);
    fprintf(o, _("\n%sDetails%s\n"), st.bold, st.reset);
    print_claims(o, r->claims, &st);
    bool evidence = machine_from_evidence(m);
    /* In an evidence-file audit a part the files do not hold is named once, not printed empty. */
    const struct section before_gpus[] = {
        {evidence && !m->cpu.model && m->cpu.cores <= 0, "CPU", print_cpu},
        {evidence && m->nnodes == 0, _("NUMA nodes"), print_numa},
        {false, NULL, print_pci},
    };
    const struct section after_gpus[] = {
        {evidence && !m->storage.listed && m->storage.ndevices == 0, _("storage"), print_storage},
        {evidence && !m->network.listed && m->network.nports == 0, _("network"), print_network},
        {evidence && !m->kernel.release, _("kernel"), print_kernel},
        {evidence && !m->virt.known, _("virtualization"), print_virt},
        {evidence && !m->memory.source, _("memory, power supplies"), print_memory},
        {evidence, _("CPU use"), NULL},
    };
    char absent[256] = "";
    print_sections(o, m, &st, before_gpus, sizeof before_gpus / sizeof before_gpus[0], absent, sizeof absent);
    print_gpus(o, m, r->redact, st.bold, st.reset);
    print_sections(o, m, &st, after_gpus, sizeof after_gpus / sizeof after_gpus[0], absent, sizeof absent);
    if (*absent)
        fprintf(o, _("%sNot in the evidence files%s: %s\n"), st.bold, st.reset, absent);
    print_measured(o, m, &st);
    print_coverage(o, r, &st, verbose);
    print_findings(o, r, &st, verbose);
    if (m->nproblems) {
        fprintf(o, _("\n%sInput problems%s (facts from these files are reported as unknown)\n"), st.bold, st.reset);
        for (int i = 0; i < m->nproblems; i++)
            fprintf(o, "    %s: %s\n", m->problems[i].path, machine_problem_text(&m->problems[i]));
    }
    int ntables;
    const struct data_table_use *tables = data_tables_used(&ntables);
    for (int i = 0; i < ntables; i++)
        fprintf(o, "%s%s %s%s%s%s%s", i ? _(", ") : _("\nData tables: "), tables[i].name, data_origin_shown(tables[i].origin),
                *tables[i].path ? " (" : "", tables[i].path, *tables[i].path ? ")" : "", i + 1 == ntables ? "\n" : "");
    const struct workload_verdict *v = &r->verdicts->verdicts[r->workload];
    enum severity sev = verdict_colour(v->verdict);
    const char *name = verdict_label(v->verdict);
    fprintf(o, _("\n%sVerdict: %s%s%s (%s) — %d fail, %d warn, %d unknown, %d info, %d pass; checked %d of %d (%.0f ms)\n"),
            st.bold, st.sev[sev], name, st.reset, workload_name(r->workload), findings_count(r->findings, SEV_FAIL),
            findings_count(r->findings, SEV_WARN), findings_count(r->findings, SEV_UNKNOWN),
            findings_count(r->findings, SEV_INFO), findings_count(r->findings, SEV_PASS), v->checked, v->applicable,
            r->elapsed_ms);
    fclose(o);
    print_wrapped(out, buf, len, st.columns, _("fix: "));
    free(buf);
    return 0;
}

/* Strings from evidence files (names, locators, problem messages) may hold terminal escape codes:
 * the report is written whole, then every control character but the report's own colours is
 * escaped on its way out. */
struct text_args {
    const struct audit_report *r;
    bool colour, verbose;
    size_t columns;
};

static int render_text(FILE *out, const void *ctx)
{
    const struct text_args *x = ctx;
    return report_text_unescaped(out, x->r, x->colour, x->verbose, x->columns);
}

int report_text(FILE *o, const struct audit_report *r, bool colour, bool verbose)
{
    const struct style st = make_style(true);
    const char *const own[] = {st.bold, st.dim, st.reset, st.sev[0], st.sev[1], st.sev[2], st.sev[3], st.sev[4], NULL};
    /* The width of the terminal the report goes to: the rendering itself writes into memory. */
    const struct text_args x = {r, colour, verbose, (size_t)report_columns(o)};
    return text_render_escaped(o, render_text, &x, colour ? own : NULL);
}
