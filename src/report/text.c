/* The report for people: the machine first, then findings grouped by area (worst area first,
 * worst finding first), then one verdict line. */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/output.h"
#include "util/parse.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

struct style {
    const char *bold, *dim, *reset;
    const char *sev[SEV_FAIL + 1];
};

static struct style make_style(bool colour)
{
    struct style s = {"", "", "", {"", "", "", "", ""}};
    if (colour) {
        s = (struct style){"\033[1m", "\033[2m", "\033[0m",
                           {"\033[32m", "\033[36m", "\033[35m", "\033[33m", "\033[1;31m"}};
    }
    return s;
}

static void upper(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
    dst[i] = '\0';
}

static const char *or_unknown(const char *s) { return s ? s : "unknown"; }

static void link_text(char *buf, size_t n, const struct pci_link *l)
{
    if (!l->known) {
        snprintf(buf, n, "link unknown");
        return;
    }
    int cg = pcie_generation(l->cur_gt_s), mg = pcie_generation(l->max_gt_s);
    snprintf(buf, n, "Gen%d x%d (max Gen%d x%d)", cg, l->cur_width, mg, l->max_width);
}

static void print_cpu(FILE *o, const struct machine *m, const struct style *st)
{
    const struct cpu_info *c = &m->cpu;
    fprintf(o, "%sCPU%s     %s\n", st->bold, st->reset, or_unknown(c->model));
    fprintf(o, "        %d socket%s, %d cores, %d threads", c->sockets, c->sockets == 1 ? "" : "s", c->cores, c->threads);
    if (c->usable_threads > 0)
        fprintf(o, " (%d usable)", c->usable_threads);
    if (c->base_mhz > 0)
        fprintf(o, "; base %.0f MHz", c->base_mhz);
    if (c->max_mhz > 0)
        fprintf(o, "; max %.0f MHz", c->max_mhz);
    if (c->flags_known)
        fprintf(o, "; avx2 %s, avx512f %s, amx %s", c->avx2 ? "yes" : "no", c->avx512f ? "yes" : "no",
                c->amx ? "yes" : "no");
    fputc('\n', o);
}

static void print_numa(FILE *o, const struct machine *m, const struct style *st)
{
    fprintf(o, "%sNUMA%s   ", st->bold, st->reset);
    if (m->nnodes == 0)
        fprintf(o, " unknown\n");
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        char *cpus = format_cpulist(n->cpus);
        fprintf(o, "%s node %d: CPUs %s, ", i ? "       " : "", n->id, cpus && *cpus ? cpus : "none");
        if (n->memory_known)
            fprintf(o, "%.1f GiB", n->memory_bytes / GIB);
        else
            fprintf(o, "memory unknown");
        if (n->distances) {
            fprintf(o, "; distances");
            for (int k = 0; k < m->nnodes; k++)
                fprintf(o, " %d", n->distances[k]);
        }
        fputc('\n', o);
        free(cpus);
    }
}

static void print_pci(FILE *o, const struct machine *m, const struct style *st)
{
    static const char *const titles[] = {"accelerators", "NICs", "NVMe"};
    fprintf(o, "%sPCI%s\n", st->bold, st->reset);
    for (int role = PCI_ROLE_ACCELERATOR; role <= PCI_ROLE_NVME; role++) {
        int n = 0;
        for (int i = 0; i < m->npci; i++)
            n += m->pci[i].role == (enum pci_role)role;
        fprintf(o, "        %s: %d\n", titles[role], n);
        for (int i = 0; i < m->npci; i++) {
            const struct pci_device *d = &m->pci[i];
            if (d->role != (enum pci_role)role)
                continue;
            char link[96];
            link_text(link, sizeof link, &d->link);
            fprintf(o, "          %s  %s %s [%04x:%04x]  node %d%s  %s\n", d->bus_id, or_unknown(d->vendor_name),
                    d->device_name ? d->device_name : "", d->vendor_id, d->device_id, d->numa_node,
                    d->numa_derived ? " (from local CPUs)" : "", link);
            if (d->npath > 0) {
                fprintf(o, "          %s  path:", st->dim);
                for (int k = 0; k < d->npath; k++) {
                    link_text(link, sizeof link, &d->path[k].link);
                    fprintf(o, "%s %s %s", k ? " <-" : "", d->path[k].bus_id, link);
                }
                fprintf(o, "%s\n", st->reset);
            }
        }
    }
}

/* Seed 000 §4.1's table: the provider's label next to what the machine is. */
static void print_claims(FILE *o, const struct claim_set *set, const struct style *st)
{
    if (!set)
        return;
    fprintf(o, "%sLabel vs reality%s (%s)\n", st->bold, st->reset, set->file);
    fprintf(o, "  %-28s %-22s %-22s %s\n", "claim", "claimed", "found", "verdict");
    for (int i = 0; i < set->count; i++) {
        const struct claim *c = &set->items[i];
        char *claimed = json_dumps(c->claimed, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)),
             *found = json_dumps(c->found, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
        enum severity sev = c->verdict == CLAIM_MISMATCH ? SEV_FAIL : c->verdict == CLAIM_PASS ? SEV_PASS : SEV_UNKNOWN;
        char verdict[16];
        upper(verdict, claim_verdict_name(c->verdict), sizeof verdict);
        fprintf(o, "  %-28s %-22s %-22s %s%-8s%s %s%s%s\n", c->key, claimed ? claimed : "?",
                c->found && !json_is_null(c->found) && found ? found : "unknown", st->sev[sev], verdict, st->reset,
                st->dim, c->message ? c->message : "", st->reset);
        free(claimed);
        free(found);
    }
    fputc('\n', o);
}

static void print_location(FILE *o, const char *what, const struct storage_location *l)
{
    fprintf(o, "        %s %s: ", what, l->path);
    if (l->network_fs)
        fprintf(o, "network filesystem %s from %s", l->fstype, l->source);
    else if (l->ndisks == 0)
        fprintf(o, "disk unknown (%s)", l->unknown_reason ? l->unknown_reason : "no mount found");
    for (int i = 0; i < l->ndisks; i++)
        fprintf(o, "%s%s", i ? ", " : "on ", l->disks[i]);
    if (l->mountpoint && !l->network_fs)
        fprintf(o, " (%s mounted on %s, %s)", l->source, l->mountpoint, l->fstype);
    if (l->free_bytes >= 0)
        fprintf(o, "; %.1f GB free", l->free_bytes / 1e9);
    fputc('\n', o);
}

static void print_storage(FILE *o, const struct machine *m, const struct style *st)
{
    const struct storage_info *s = &m->storage;
    fprintf(o, "%sStorage%s %s\n", st->bold, st->reset, s->listed ? "" : "block devices unknown");
    for (int i = 0; i < s->ndevices; i++) {
        const struct block_device *d = &s->devices[i];
        char size[32] = "size unknown";
        if (d->size_bytes >= 0)
            snprintf(size, sizeof size, "%.1f GB", d->size_bytes / 1e9);
        fprintf(o, "        %-10s %-7s %-14s %-15s %s%s%s  node %d%s%s\n", d->name,
                storage_transport_name(d->transport), size,
                d->rotational == 1 ? "rotational" : d->rotational == 0 ? "solid state" : "rotation unknown",
                d->vendor ? d->vendor : "", d->vendor ? " " : "", or_unknown(d->model), d->numa_node,
                d->holds_root ? "  [/]" : "", d->holds_data ? "  [data]" : "");
    }
    if (s->root.path)
        print_location(o, "system", &s->root);
    if (s->has_data)
        print_location(o, "data", &s->data);
}

static void print_network(FILE *o, const struct machine *m, const struct style *st)
{
    const struct network_info *n = &m->network;
    fprintf(o, "%sNetwork%s %s\n", st->bold, st->reset, n->listed || n->nports ? "" : "interfaces unknown");
    for (int i = 0; i < n->nports; i++) {
        const struct nic_port *p = &n->ports[i];
        char speed[32] = "speed unknown";
        if (p->speed_mbps > 0)
            snprintf(speed, sizeof speed, "%g Gb/s", p->speed_mbps / 1000.0);
        fprintf(o, "        %-14s %-7s %-14s %-10s %-10s node %d", p->name, link_state_name(p->state), speed,
                or_unknown(p->link_layer), or_unknown(p->driver), p->numa_node);
        if (p->has_rdma)
            fprintf(o, "  RDMA %s port %d %s", p->rdma.device, p->rdma.port, or_unknown(p->rdma.state));
        if (p->unknown_reason)
            fprintf(o, "  %s(%s)%s", st->dim, p->unknown_reason, st->reset);
        fputc('\n', o);
    }
}

static void print_kernel(FILE *o, const struct machine *m, const struct style *st)
{
    const struct kernel_info *k = &m->kernel;
    fprintf(o, "%sKernel%s  %s; THP %s; swap ", st->bold, st->reset, or_unknown(k->release), or_unknown(k->thp_enabled));
    if (k->swap_total_bytes < 0)
        fprintf(o, "unknown");
    else
        fprintf(o, "%.1f GiB", k->swap_total_bytes / GIB);
    char swappiness[16] = "unknown";
    if (k->swappiness >= 0)
        snprintf(swappiness, sizeof swappiness, "%d", k->swappiness);
    fprintf(o, " (swappiness %s); NUMA balancing %s; isolated CPUs %s; governor %s\n", swappiness,
            k->numa_balancing < 0 ? "unknown" : k->numa_balancing ? "on" : "off",
            k->isolated_cpus ? (*k->isolated_cpus ? k->isolated_cpus : "none") : "unknown",
            k->cpufreq_present ? k->governor : "none (no cpufreq)");
    const struct virt_info *v = &m->virt;
    fprintf(o, "%sVirt%s    %s", st->bold, st->reset, !v->known ? "unknown" : v->vm ? "virtual machine" : "bare metal");
    if (v->vm && v->hypervisor)
        fprintf(o, " (%s)", v->hypervisor);
    if (v->container)
        fprintf(o, ", container (%s)", v->container_kind);
    fputc('\n', o);
}

static void print_memory(FILE *o, const struct machine *m, const struct style *st)
{
    const struct memory_info *mem = &m->memory;
    fprintf(o, "%sMemory%s  ", st->bold, st->reset);
    if (mem->installed_bytes >= 0)
        fprintf(o, "%.1f GiB installed", mem->installed_bytes / GIB);
    else
        fprintf(o, "installed unknown");
    if (mem->usable_bytes >= 0)
        fprintf(o, ", %.1f GiB usable", mem->usable_bytes / GIB);
    fprintf(o, "; ECC %s", mem->ecc == ECC_ON ? "on" : mem->ecc == ECC_OFF ? "off" : "unknown");
    if (mem->edac_present)
        fprintf(o, " (EDAC: %ld corrected, %ld uncorrected)", mem->edac_ce, mem->edac_ue);
    if (mem->platform.name)
        fprintf(o, "; platform %s: %d channels/socket, %s-%d", mem->platform.name, mem->platform.channels_per_socket,
                mem->platform.ddr, mem->platform.mts);
    fputc('\n', o);
    if (mem->ndimms == 0 && mem->unknown_reason)
        fprintf(o, "        DIMMs unknown: %s\n", mem->unknown_reason);
    for (int s = 0; s < mem->sockets; s++) {
        fprintf(o, "        socket %d: %d DIMMs", s, memory_socket_dimms(mem, s));
        if (mem->channels_from_locators)
            fprintf(o, " on %d channels", memory_socket_channels(mem, s));
        double bw = memory_socket_bandwidth(mem, s);
        if (bw > 0)
            fprintf(o, ", %.1f GB/s theoretical", bw / 1e9);
        fputc('\n', o);
    }
    for (int i = 0; i < mem->ndimms; i++) {
        const struct dimm *d = &mem->dimms[i];
        fprintf(o, "        %s%-14s %-24s socket %2d ch %2d  %4.0f GiB %-5s %4d/%4d MT/s rank %d width %d/%d%s\n",
                st->dim, or_unknown(d->locator), d->bank_locator ? d->bank_locator : "", d->socket, d->channel,
                d->size_bytes / GIB, or_unknown(d->type), d->speed_mts, d->configured_mts, d->rank, d->total_width,
                d->data_width, st->reset);
    }
    if (mem->slots_total >= 0)
        fprintf(o, "        free: %d of %d DIMM slots", mem->slots_total - mem->ndimms, mem->slots_total);
    if (mem->pcie_slots_total >= 0)
        fprintf(o, "%s%d of %d PCIe slots", mem->slots_total >= 0 ? ", " : "        free: ", mem->pcie_slots_free,
                mem->pcie_slots_total);
    if (mem->slots_total >= 0 || mem->pcie_slots_total >= 0)
        fputs(" (room to grow)\n", o);
    const struct power_info *p = &m->power;
    fprintf(o, "%sPower%s   ", st->bold, st->reset);
    if (p->nsupplies == 0)
        fprintf(o, "supplies unknown");
    for (int i = 0; i < p->nsupplies; i++)
        fprintf(o, "%s%s %d W %s", i ? ", " : "", or_unknown(p->supplies[i].name), p->supplies[i].max_watts,
                p->supplies[i].present ? or_unknown(p->supplies[i].status) : "absent");
    if (p->cpu_tdp_watts > 0)
        fprintf(o, "; CPU package limits %.0f W", p->cpu_tdp_watts);
    fputc('\n', o);
    const struct contention_info *c = &m->contention;
    fprintf(o, "%sCPU use%s ", st->bold, st->reset);
    if (!c->sampled) {
        fprintf(o, "not sampled: %s\n", or_unknown(c->unknown_reason));
        return;
    }
    fprintf(o, "%.1f s: user %.1f%%, system %.1f%%, iowait %.1f%%, irq %.1f%%, steal %.1f%%; load %.2f\n", c->seconds,
            c->total.user * 100, c->total.system * 100, c->total.iowait * 100, c->total.irq * 100,
            c->total.steal * 100, c->load1);
    for (int i = 0; i < c->nprocs && i < 5; i++)
        fprintf(o, "        %s%5.1f%%  %s (pid %d)%s%s\n", st->dim, c->procs[i].share * 100, c->procs[i].name,
                c->procs[i].pid, c->procs[i].kernel_thread ? " [kernel thread]" : "", st->reset);
}

/* What `--bench FILE` or `--bench-quick` measured: the numbers MEM_BANDWIDTH_LOW,
 * PCIE_BANDWIDTH_LOW and STORAGE_SLOW_DATA judge, each with why when it is missing. */
static void print_measured(FILE *o, const struct machine *m, const struct style *st)
{
    const struct bench_results *b = &m->bench;
    if (!b->loaded)
        return;
    fprintf(o, "%sMeasured%s (%s)\n", st->bold, st->reset, b->source);
    if (b->mem_triad_bytes_s > 0)
        fprintf(o, "        memory: triad %.2f GB/s, whole machine\n", b->mem_triad_bytes_s / 1e9);
    else
        fprintf(o, "        memory: %s\n", or_unknown(b->mem_unmeasured));
    if (b->storage_seq_read_bytes_s > 0)
        fprintf(o, "        storage: sequential read %.2f GB/s, random read %.0f IOPS (%s %s)\n",
                b->storage_seq_read_bytes_s / 1e9, b->storage_rand_read_iops, b->storage_file ? "file" : "in",
                or_unknown(b->storage_file ? b->storage_file : b->storage_dir));
    else
        fprintf(o, "        storage: %s\n", or_unknown(b->storage_unmeasured));
    for (int i = 0; i < b->npcie; i++) {
        const struct bench_gpu_copy *c = &b->pcie[i];
        fprintf(o, "        pcie %s: host to device %.1f GB/s, device to host %.1f GB/s (pinned", c->bus_id,
                c->h2d_pinned_bytes_s / 1e9, c->d2h_pinned_bytes_s / 1e9);
        if (c->near_node >= 0)
            fprintf(o, ", host memory on node %d", c->near_node);
        fprintf(o, ")\n");
    }
    if (b->npcie == 0)
        fprintf(o, "        pcie: %s\n", or_unknown(b->pcie_unmeasured));
}

static void print_findings(FILE *o, const struct audit_report *r, const struct style *st, bool verbose)
{
    const struct findings *f = r->findings;
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
    fprintf(o, "\n%sFindings%s (workload %s)\n", st->bold, st->reset, workload_name(r->workload));
    for (int a = 0; a < nareas; a++) {
        char area[32];
        upper(area, areas[a], sizeof area);
        fprintf(o, "  %s%s%s\n", st->bold, area, st->reset);
        int passed = 0;
        for (int i = 0; i < f->count; i++) {
            const struct finding *it = &f->items[i];
            if (strcmp(it->rule->area, areas[a]) != 0)
                continue;
            if (it->severity == SEV_PASS && !verbose) {
                passed++;
                continue;
            }
            char sev[16];
            upper(sev, severity_name(it->severity), sizeof sev);
            fprintf(o, "    %s%-7s%s %s %s%s%s: %s\n", st->sev[it->severity], sev, st->reset, it->rule->id, st->dim,
                    it->subject, st->reset, it->message);
            if (it->fix && it->severity != SEV_PASS)
                fprintf(o, "            fix: %s\n", it->fix);
        }
        if (passed)
            fprintf(o, "    %s%-7s%s %d check%s passed\n", st->sev[SEV_PASS], "PASS", st->reset, passed,
                    passed == 1 ? "" : "s");
    }
}

static int report_text_unescaped(FILE *o, const struct audit_report *r, bool colour, bool verbose)
{
    struct style st = make_style(colour);
    const struct machine *m = r->machine;
    fprintf(o, "%sgpuvet audit%s of %s (%s)\n\n", st.bold, st.reset,
            r->redact && m->hostname ? REDACTED : or_unknown(m->hostname), or_unknown(m->source));
    print_claims(o, r->claims, &st);
    print_cpu(o, m, &st);
    print_numa(o, m, &st);
    print_pci(o, m, &st);
    print_gpus(o, m, r->redact, st.bold, st.reset);
    print_storage(o, m, &st);
    print_network(o, m, &st);
    print_kernel(o, m, &st);
    print_memory(o, m, &st);
    print_measured(o, m, &st);
    print_findings(o, r, &st, verbose);
    if (m->nproblems) {
        fprintf(o, "\n%sInput problems%s (facts from these files are reported as unknown)\n", st.bold, st.reset);
        for (int i = 0; i < m->nproblems; i++)
            fprintf(o, "    %s: %s\n", m->problems[i].path, m->problems[i].message ? m->problems[i].message : "");
    }
    enum severity verdict = report_verdict(r->findings);
    char v[16];
    upper(v, severity_name(verdict), sizeof v);
    fprintf(o, "\n%sVerdict: %s%s%s — %d fail, %d warn, %d unknown, %d info, %d pass (%.0f ms)\n", st.bold,
            st.sev[verdict], v, st.reset, findings_count(r->findings, SEV_FAIL), findings_count(r->findings, SEV_WARN),
            findings_count(r->findings, SEV_UNKNOWN), findings_count(r->findings, SEV_INFO),
            findings_count(r->findings, SEV_PASS), r->elapsed_ms);
    return 0;
}

/* Strings from evidence files (names, locators, problem messages) may hold terminal escape codes:
 * the report is written whole, then every control character but the report's own colours is
 * escaped on its way out. */
int report_text(FILE *o, const struct audit_report *r, bool colour, bool verbose)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return report_text_unescaped(o, r, colour, verbose);
    int rc = report_text_unescaped(mem, r, colour, verbose);
    fclose(mem);
    const struct style st = make_style(true);
    const char *const own[] = {st.bold, st.dim, st.reset, st.sev[0], st.sev[1], st.sev[2], st.sev[3], st.sev[4], NULL};
    if (text_write_escaped(o, text, len, colour ? own : NULL) != 0)
        rc = -1;
    free(text);
    return rc;
}
