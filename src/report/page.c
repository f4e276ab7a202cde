/* The facts the HTML page and the Markdown ticket share (report/page.h). */
#include <stdlib.h>
#include <string.h>

#include "report/page.h"
#include "util/parse.h"
#include "util/pciaddr.h"
#include "util/i18n.h"
#include "util/output_file.h"
#include "util/sanitize.h"
#include "util/units.h"


/* ---- every page: escaping and frame ---- */

/* A character of s that may not be written as it is (a control byte, a byte that begins no UTF-8
 * character: util/sanitize.h) as \xNN; 0 when the character at s is printable (*len its bytes). */
static bool page_escaped(FILE *o, const char *s, size_t *len)
{
    unsigned char shown;
    enum text_piece kind = text_piece_at(s, strnlen(s, 4), len, &shown);
    if (kind == TEXT_PRINTABLE)
        return false;
    fprintf(o, "\\x%02x", shown);
    return true;
}

void html_text(FILE *o, const char *s)
{
    for (size_t n = 1; s && *s; s += n) {
        n = 1;
        switch (*s) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        case '\'': fputs("&#39;", o); break;
        case '\n': case '\t': fputc(*s, o); break;
        default:
            if (!page_escaped(o, s, &n))
                fwrite(s, 1, n, o);
        }
    }
}

static const char style[] =
    ":root{--fail:#c40000;--warn:#b35c00;--unknown:#6b4fa0;--info:#1f6f8b;--pass:#2d7a2d}"
    "*{box-sizing:border-box}"
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:960px;"
    "padding:12px;color:#1b1b1b;line-height:1.4;overflow-wrap:anywhere}"
    "h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.6em}"
    "code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}"
    "pre{white-space:pre-wrap;background:#f4f4f4;padding:6px;margin:4px 0}"
    ".verdict{display:inline-block;padding:4px 12px;border-radius:4px;color:#fff;font-weight:bold;font-size:1.2em}"
    ".sev-fail{background:var(--fail)}.sev-warn{background:var(--warn)}.sev-unknown{background:var(--unknown)}"
    ".sev-info{background:var(--info)}.sev-pass{background:var(--pass)}"
    ".tag{display:inline-block;min-width:4.5em;text-align:center;padding:0 4px;border-radius:3px;color:#fff;"
    "font-size:.8em;font-weight:bold}"
    ".finding{border-left:5px solid #999;padding:4px 8px;margin:8px 0;background:#fafafa;break-inside:avoid}"
    ".finding.fail{border-color:var(--fail)}.finding.warn{border-color:var(--warn)}"
    ".finding.unknown{border-color:var(--unknown)}.finding.info{border-color:var(--info)}"
    ".finding .msg{margin:2px 0}.evidence{color:#444;font-size:.9em}"
    ".scroll{overflow-x:auto}table{border-collapse:collapse;margin:6px 0}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
    /* a cell breaks between words, and inside one only when it overflows: "anywhere" (the body's)
     * lets a table squeeze its headers and host names letter by letter */
    "td,th{overflow-wrap:break-word}"
    /* a Chinese header breaks between any two characters, "异常节点" one a line: only at spaces */
    "th{word-break:keep-all}"
    "td.num{text-align:right}tr.odd td{background:#fff0e0}"
    /* a host name kept whole (fleet_html.c: a browser breaks after each '-') */
    ".nb{white-space:nowrap}"
    /* a host list takes no more than its share; the names in it wrap between hosts */
    "td.hosts{width:30%}"
    /* the picture takes the page's width (its labels the room that gives), never more */
    "svg.topology{width:100%;height:auto;max-width:100%;display:block}"
    "svg .strong{font-weight:bold}"
    ".dimm{background:#cfe8cf}.dimm.mismatched{background:#ffd0a0;outline:2px solid var(--warn)}"
    ".dimm.empty{background:#fff;color:#888}"
    ".bar{background:#eee;height:14px;min-width:120px;position:relative}"
    ".bar span{display:block;height:14px;background:#4a7fb5}"
    ".bar.low span{background:var(--fail)}"
    ".muted{color:#666}nav a{margin-right:10px}"
    "@media (max-width:600px){body{padding:6px;font-size:15px}td,th{padding:2px 4px}nav a{display:inline-block}"
    /* a wide table (fleet_html.c: table.stack) stacks its rows on a phone: each cell under its
     * column's name, nothing off the right edge */
    "table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:auto}"
    "table.stack tr:first-child{display:none}table.stack tr{border:1px solid #ccc;margin:6px 0}"
    "table.stack td{border:none;text-align:left}"
    "table.stack td::before{font-weight:bold}}"
    "@media print{nav{display:none}body{max-width:none;font-size:10pt}h2{break-after:avoid}"
    ".finding,table,svg{break-inside:avoid}a{color:inherit;text-decoration:none}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}";

void md_text(FILE *o, const char *s)
{
    for (size_t n = 1; s && *s; s += n) {
        n = 1;
        if (*s == '\n' || *s == '\r' || *s == '\t')
            fputc(' ', o);
        else if (strchr("\\`*[]<>|~", *s))
            fprintf(o, "\\%c", *s);
        else if (!page_escaped(o, s, &n))
            fwrite(s, 1, n, o);
    }
}

void page_html_begin(FILE *o, const char *title)
{
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* The page may fetch nothing: no script, font, image or style from anywhere. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
          "<title>",
          i18n_translating() ? "zh-CN" : "en");
    html_text(o, title);
    fprintf(o, "</title>\n<style>%s</style></head>\n<body>\n", style);
}

void page_html_end(FILE *o)
{
    fputs(_("<footer class=\"muted\"><p>Written by gpuvet; this page loads nothing from the network.</p></footer>\n"), o);
    fputs("</body></html>\n", o);
}

void page_html_section_begin(FILE *o, const char *id, const char *title)
{
    fputs("<section id=\"", o);
    html_text(o, id);
    fputs("\"><h2>", o);
    html_text(o, title);
    fputs("</h2>\n", o);
}

void page_html_section_end(FILE *o)
{
    fputs("</section>\n", o);
}

void page_md_heading(FILE *o, int level, const char *title)
{
    fprintf(o, "\n%.*s ", level, "######");
    md_text(o, title);
    fputs("\n\n", o);
}

/* ---- the audit page's sections ---- */

const struct page_section audit_sections[AUDIT_NSECTIONS] = {
    [AUDIT_PROBLEMS] = {"problems", N_("Problems"), N_("Problems to fix")},
    [AUDIT_CLAIMS] = {"claims", N_("Label vs reality"), N_("Label vs reality")},
    [AUDIT_TOPOLOGY] = {"topology", N_("Topology"), N_("Topology")},
    [AUDIT_MEMORY] = {"memory", N_("Memory"), N_("Memory: DIMM slots per socket and channel")},
    [AUDIT_NUMA] = {"numa", N_("NUMA"), N_("NUMA distances")},
    [AUDIT_BENCH] = {"bench", N_("Measured"), N_("Measured against theory")},
    [AUDIT_FINDINGS] = {"findings", N_("All findings"), N_("All findings")},
};

bool audit_section_shown(const struct audit_report *r, enum audit_section s)
{
    if (s == AUDIT_CLAIMS)
        return r->claims != NULL;
    if (s == AUDIT_BENCH)
        return r->machine->bench.loaded;
    return true;
}

void audit_section_title(char *buf, size_t n, const struct audit_report *r, enum audit_section s)
{
    if (s == AUDIT_FINDINGS)
        snprintf(buf, n, _("%s (workload %s)"), _(audit_sections[s].title), workload_name(r->workload));
    else
        snprintf(buf, n, "%s", _(audit_sections[s].title));
}

void audit_sections_write(FILE *o, const struct audit_report *r, const struct audit_section_writer *w)
{
    for (int i = 0; i < AUDIT_NSECTIONS; i++) {
        if (!audit_section_shown(r, (enum audit_section)i))
            continue;
        char title[256];
        audit_section_title(title, sizeof title, r, (enum audit_section)i);
        w->begin(o, audit_sections[i].id, title);
        w->draw[i](o, r);
        if (w->end)
            w->end(o);
    }
}

enum verdict page_verdict(const struct audit_report *r)
{
    return r->verdicts ? r->verdicts->verdicts[r->workload].verdict : VERDICT_INCONCLUSIVE;
}

/* "FAIL", "WARN", ... for people: the catalogue has them (report/text.c marks them). */
static void upper_label(char out[16], const char *name)
{
    char upper[16];
    snprintf(upper, sizeof upper, "%s", name);
    for (char *p = upper; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    snprintf(out, 16, "%s", _(upper));
}

void page_verdict_upper(char out[16], enum verdict v) { upper_label(out, verdict_name(v)); }

enum severity page_verdict_colour(enum verdict v)
{
    static const enum severity colour[] = {[VERDICT_PASS] = SEV_PASS, [VERDICT_INCONCLUSIVE] = SEV_UNKNOWN,
                                           [VERDICT_WARN] = SEV_WARN, [VERDICT_FAIL] = SEV_FAIL};
    return colour[v];
}

void page_workload_line(char *buf, size_t n, const struct workload_verdict *v)
{
    char upper[16];
    page_verdict_upper(upper, v->verdict);
    size_t len = (size_t)snprintf(buf, n, _("%s: %s, checked %d of %d checks"), workload_name(v->workload), upper,
                                  v->checked, v->applicable);
    bool first = true;
    for (int i = 0; i < v->ngaps && len < n; i++) {
        if (!v->gaps[i].key)
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s%s", first ? _("; unknown: ") : _(", "), gap_fact_text(&v->gaps[i]),
                                v->gaps[i].reason ? _(" (") : "", v->gaps[i].reason ? gap_reason_text(&v->gaps[i]) : "",
                                v->gaps[i].reason ? _(")") : "");
        first = false;
    }
}

void page_severity_upper(char out[16], enum severity s) { upper_label(out, severity_name(s)); }

void page_machine_summary(char *buf, size_t n, const struct machine *m)
{
    const struct cpu_info *c = &m->cpu;
    size_t len = (size_t)snprintf(buf, n, "%s", c->model ? c->model : _("CPU model unknown"));
#define APPEND(...) (len += len < n ? (size_t)snprintf(buf + len, n - len, __VA_ARGS__) : 0)
    if (c->sockets > 0)
        APPEND(_("; %d socket%s, %d cores, %d threads"), c->sockets, c->sockets == 1 ? "" : "s", c->cores, c->threads);
    if (m->memory.installed_bytes >= 0)
        APPEND(_("; %.0f GiB installed"), m->memory.installed_bytes / GIB);
    else if (m->kernel.mem_total_bytes >= 0)
        APPEND(_("; %.0f GiB usable"), m->kernel.mem_total_bytes / GIB);
    int accelerators = machine_accelerator_count(m);
    if (m->gpus.count > accelerators)
        accelerators = m->gpus.count;
    /* No accelerator where the PCI bus was not read is not "0 accelerators" (text.c says the same);
     * evidence files without a GPU source say nothing of them. */
    if (accelerators > 0 || m->pci_scanned)
        APPEND(_("; %d accelerator%s"), accelerators, accelerators == 1 ? "" : "s");
    else if (!machine_from_evidence(m))
        APPEND(_("; %s"), _("accelerators unknown (the PCI bus could not be read)"));
    if (m->virt.known)
        /* TRANSLATORS: before "virtual machine" or "bare metal" in the machine's summary line. */
        APPEND(_("; %s"), m->virt.vm ? _("virtual machine") : _("bare metal"));
#undef APPEND
}

void page_link_text(char *buf, size_t n, int gen, int width)
{
    if (gen <= 0 && width <= 0) {
        snprintf(buf, n, _("link unknown"));
        return;
    }
    report_link_text(buf, n, gen, width);
}

/* ---- topology tree ---- */

struct tree_node {
    struct topo_item item;
    int first_child, last_child, next_sibling;
};

struct tree_builder {
    struct tree_node *nodes;
    int count, cap;
};

static int tree_add(struct tree_builder *b, int parent, enum topo_kind kind)
{
    if (b->count == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 32;
        b->nodes = realloc(b->nodes, (size_t)b->cap * sizeof *b->nodes);
    }
    int i = b->count++;
    memset(&b->nodes[i], 0, sizeof b->nodes[i]);
    b->nodes[i].item.kind = kind;
    b->nodes[i].first_child = b->nodes[i].last_child = b->nodes[i].next_sibling = -1;
    if (parent >= 0) {
        struct tree_node *p = &b->nodes[parent];
        if (p->last_child >= 0)
            b->nodes[p->last_child].next_sibling = i;
        else
            p->first_child = i;
        p->last_child = i;
    }
    return i;
}

static int tree_find_child(const struct tree_builder *b, int parent, enum topo_kind kind, const char *bus_id)
{
    for (int c = b->nodes[parent].first_child; c >= 0; c = b->nodes[c].next_sibling)
        if (b->nodes[c].item.kind == kind && !strcmp(b->nodes[c].item.bus_id, bus_id))
            return c;
    return -1;
}

static void flatten(const struct tree_builder *b, int node, int depth, struct topo_tree *t)
{
    int at = t->count++;
    t->items[at] = b->nodes[node].item;
    t->items[at].depth = depth;
    for (int c = b->nodes[node].first_child; c >= 0; c = b->nodes[c].next_sibling)
        flatten(b, c, depth + 1, t);
    t->items[at].last_descendant = t->count - 1;
}

/* The worst PCIE_LINK_DEGRADED finding of a device decides its colour, so the picture and the
 * findings agree: warn/fail red, info (an idle GPU's lower speed) amber. */
static enum link_state_mark link_mark(const struct findings *f, const char *bus_id, bool link_known)
{
    enum severity worst = SEV_PASS;
    bool found = false, capped = false;
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        if (!pci_address_same(it->subject, bus_id))
            continue;
        /* A link its port caps (PCIE_SLOT_CAPPED) trained as far as it can: drawn apart from a
         * degraded one, but never as a link at its max. */
        if (!strcmp(it->rule->id, "PCIE_SLOT_CAPPED") && it->severity >= SEV_WARN)
            capped = true;
        if (strcmp(it->rule->id, "PCIE_LINK_DEGRADED") != 0)
            continue;
        found = true;
        if (it->severity > worst)
            worst = it->severity;
    }
    if (worst >= SEV_WARN)
        return LINK_MARK_DEGRADED;
    if (capped)
        return LINK_MARK_CAPPED;
    if (worst == SEV_INFO)
        return LINK_MARK_SLOW;
    if (worst == SEV_UNKNOWN || (!found && !link_known))
        return LINK_MARK_UNKNOWN;
    return LINK_MARK_OK;
}

static void pci_link_detail(char *buf, size_t n, const struct pci_link *l)
{
    if (!l->known) {
        snprintf(buf, n, _("link unknown"));
        return;
    }
    char cur[32], max[32];
    page_link_text(cur, sizeof cur, pcie_generation(l->cur_gt_s), l->cur_width);
    page_link_text(max, sizeof max, pcie_generation(l->max_gt_s), l->max_width);
    snprintf(buf, n, _("%s (max %s)"), cur, max);
}

static void gpu_link_detail(char *buf, size_t n, const struct gpu *g)
{
    char cur[32], max[32];
    page_link_text(cur, sizeof cur, g->pcie_gen_current, g->pcie_width_current);
    page_link_text(max, sizeof max, g->pcie_gen_max, g->pcie_width_max);
    snprintf(buf, n, _("%s (max %s)"), cur, max);
}

static const char *device_kind(const struct pci_device *d)
{
    if (d->role == PCI_ROLE_NIC)
        return "NIC";
    if (d->role == PCI_ROLE_NVME)
        return "NVMe";
    return (d->class_id >> 16) == 0x03 ? "GPU" : _("accelerator");
}

/* The NUMA node item of a node id, creating "NUMA node unknown" under the machine on demand. */
static int node_item(struct tree_builder *b, const int *node_items, const struct machine *m, int node, int *unknown)
{
    for (int i = 0; i < m->nnodes; i++)
        if (m->nodes[i].id == node)
            return node_items[i];
    if (*unknown < 0) {
        *unknown = tree_add(b, 0, TOPO_NUMA);
        snprintf(b->nodes[*unknown].item.label, sizeof b->nodes[*unknown].item.label, _("NUMA node unknown"));
        snprintf(b->nodes[*unknown].item.detail, sizeof b->nodes[*unknown].item.detail,
                 _("devices whose node the source does not tell"));
    }
    return *unknown;
}

static void add_packages(struct tree_builder *b, const struct machine *m, int *package_of_node)
{
    for (int i = 0; i < m->nnodes; i++)
        package_of_node[i] = 0;
    if (!m->topology)
        return;
    int npackages = hwloc_get_nbobjs_by_type(m->topology, HWLOC_OBJ_PACKAGE);
    for (int p = 0; p < npackages; p++) {
        hwloc_obj_t pkg = hwloc_get_obj_by_type(m->topology, HWLOC_OBJ_PACKAGE, p);
        int item = tree_add(b, 0, TOPO_PACKAGE);
        struct topo_item *it = &b->nodes[item].item;
        snprintf(it->label, sizeof it->label, _("Package %u"), pkg->os_index);
        int cores = hwloc_get_nbobjs_inside_cpuset_by_type(m->topology, pkg->cpuset, HWLOC_OBJ_CORE);
        int threads = hwloc_get_nbobjs_inside_cpuset_by_type(m->topology, pkg->cpuset, HWLOC_OBJ_PU);
        char core_text[48], thread_text[48];
        snprintf(core_text, sizeof core_text, i18n_plural("%d core", "%d cores", (unsigned long)cores), cores);
        snprintf(thread_text, sizeof thread_text, i18n_plural("%d thread", "%d threads", (unsigned long)threads),
                 threads);
        snprintf(it->detail, sizeof it->detail, "%s%s%s", core_text, _(", "), thread_text);
        for (int i = 0; i < m->nnodes; i++)
            if (!package_of_node[i] && !hwloc_bitmap_iszero(m->nodes[i].cpus) &&
                hwloc_bitmap_intersects(pkg->cpuset, m->nodes[i].cpus))
                package_of_node[i] = item;
    }
}

static void add_pci_device(struct tree_builder *b, const struct audit_report *r, const struct pci_device *d,
                           int parent)
{
    const struct machine *m = r->machine;
    for (int k = d->npath - 1; k >= 0; k--) {
        const struct pci_hop *hop = &d->path[k];
        int found = tree_find_child(b, parent, TOPO_BRIDGE, hop->bus_id);
        if (found < 0) {
            found = tree_add(b, parent, TOPO_BRIDGE);
            struct topo_item *it = &b->nodes[found].item;
            snprintf(it->bus_id, sizeof it->bus_id, "%s", hop->bus_id);
            snprintf(it->label, sizeof it->label, "%s %s", k == d->npath - 1 ? _("root port") : _("bridge"), hop->bus_id);
            pci_link_detail(it->detail, sizeof it->detail, &hop->link);
            it->mark = hop->link.known ? LINK_MARK_OK : LINK_MARK_UNKNOWN;
        }
        parent = found;
    }
    int item = tree_add(b, parent, TOPO_DEVICE);
    struct topo_item *it = &b->nodes[item].item;
    const struct gpu *g = gpu_set_find(&m->gpus, d->bus_id);
    snprintf(it->bus_id, sizeof it->bus_id, "%s", d->bus_id);
    it->role = d->role;
    if (g && g->name)
        snprintf(it->label, sizeof it->label, "%s %s %s", device_kind(d), d->bus_id, g->name);
    else
        snprintf(it->label, sizeof it->label, "%s %s %s%s%s", device_kind(d), d->bus_id,
                 d->vendor_name ? d->vendor_name : "", d->vendor_name ? " " : "",
                 d->device_name ? d->device_name : "");
    if (g && gpu_link_known(g))
        gpu_link_detail(it->detail, sizeof it->detail, g);
    else
        pci_link_detail(it->detail, sizeof it->detail, &d->link);
    it->mark = link_mark(r->findings, d->bus_id, d->link.known || (g && gpu_link_known(g)));
}

void topo_tree_build(const struct audit_report *r, struct topo_tree *t)
{
    const struct machine *m = r->machine;
    struct tree_builder b = {0};
    int root = tree_add(&b, -1, TOPO_MACHINE);
    struct topo_item *top = &b.nodes[root].item;
    snprintf(top->label, sizeof top->label, "%s%s%s", _("Machine"), m->hostname ? " " : "", m->hostname ? m->hostname : "");
    if (m->kernel.mem_total_bytes >= 0)
        snprintf(top->detail, sizeof top->detail, _("%.1f GiB usable memory"), m->kernel.mem_total_bytes / GIB);

    int *package_of_node = calloc((size_t)m->nnodes + 1, sizeof *package_of_node);
    int *node_items = calloc((size_t)m->nnodes + 1, sizeof *node_items);
    add_packages(&b, m, package_of_node);
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        node_items[i] = tree_add(&b, package_of_node[i], TOPO_NUMA);
        struct topo_item *it = &b.nodes[node_items[i]].item;
        snprintf(it->label, sizeof it->label, _("NUMA node %d"), n->id);
        char *cpus = format_cpulist(n->cpus);
        char memory[32];
        snprintf(memory, sizeof memory, "%s", _("memory unknown"));
        if (n->memory_known)
            snprintf(memory, sizeof memory, "%.1f GiB", n->memory_bytes / GIB);
        snprintf(it->detail, sizeof it->detail, "%s, CPUs %s", memory, cpus && *cpus ? cpus : "none");
        free(cpus);
    }
    int unknown_node = -1;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        const struct gpu *g = gpu_set_find(&m->gpus, d->bus_id);
        int node = g ? gpu_numa_node(m, g) : d->numa_node;
        add_pci_device(&b, r, d, node_item(&b, node_items, m, node, &unknown_node));
    }
    /* GPUs an NVIDIA source describes that sysfs did not list (an nvidia-smi file alone). */
    for (int i = 0; i < m->gpus.count; i++) {
        const struct gpu *g = &m->gpus.items[i];
        if (gpu_pci_device(m, g))
            continue;
        int item = tree_add(&b, node_item(&b, node_items, m, gpu_numa_node(m, g), &unknown_node), TOPO_DEVICE);
        struct topo_item *it = &b.nodes[item].item;
        snprintf(it->bus_id, sizeof it->bus_id, "%s", g->bus_id);
        it->role = PCI_ROLE_ACCELERATOR;
        snprintf(it->label, sizeof it->label, "GPU %s %s", g->bus_id, g->name ? g->name : "");
        gpu_link_detail(it->detail, sizeof it->detail, g);
        it->mark = link_mark(r->findings, g->bus_id, gpu_link_known(g));
    }
    free(package_of_node);
    free(node_items);
    if (b.count == 1 && !*b.nodes[0].item.detail)
        snprintf(b.nodes[0].item.detail, sizeof b.nodes[0].item.detail, _("no CPU, NUMA or PCI facts in the sources"));
    t->items = calloc((size_t)b.count, sizeof *t->items);
    t->count = 0;
    flatten(&b, root, 0, t);
    free(b.nodes);
}

void topo_tree_free(struct topo_tree *t)
{
    free(t->items);
    t->items = NULL;
    t->count = 0;
}

/* ---- DIMMs ---- */

static bool same_module(const struct dimm *a, const struct dimm *b)
{
    return a->size_bytes == b->size_bytes && a->speed_mts == b->speed_mts &&
           ((!a->type && !b->type) || (a->type && b->type && !strcmp(a->type, b->type)));
}

bool page_dimm_mismatched(const struct memory_info *mem, const struct dimm *d)
{
    /* The most common module is the reference; ties go to the first seen. */
    int best = -1, best_count = 0;
    for (int i = 0; i < mem->ndimms; i++) {
        int count = 0;
        for (int k = 0; k < mem->ndimms; k++)
            count += same_module(&mem->dimms[i], &mem->dimms[k]);
        if (count > best_count) {
            best = i;
            best_count = count;
        }
    }
    return best >= 0 && !same_module(&mem->dimms[best], d);
}

int page_socket_channel_count(const struct memory_info *mem, int socket)
{
    int channels = mem->platform.channels_per_socket;
    for (int i = 0; i < mem->ndimms; i++)
        if (mem->dimms[i].socket == socket && mem->dimms[i].channel + 1 > channels)
            channels = mem->dimms[i].channel + 1;
    return channels;
}

int page_slots_per_channel(const struct memory_info *mem)
{
    int channels = mem->platform.channels_per_socket;
    if (mem->slots_total <= 0 || mem->sockets <= 0 || channels <= 0 || !mem->channels_from_locators)
        return 0;
    int per_socket_channels = mem->sockets * channels;
    return mem->slots_total % per_socket_channels ? 0 : mem->slots_total / per_socket_channels;
}

void page_memory_summary(char *buf, size_t n, const struct memory_info *mem)
{
    size_t len = 0;
#define APPEND(...) (len += len < n ? (size_t)snprintf(buf + len, n - len, __VA_ARGS__) : 0)
    if (mem->installed_bytes >= 0)
        APPEND(_("%.1f GiB installed"), mem->installed_bytes / GIB);
    else
        APPEND(_("installed memory unknown"));
    APPEND(_("; ECC %s"), mem->ecc == ECC_ON ? _("on") : mem->ecc == ECC_OFF ? _("off") : _("unknown"));
    if (mem->platform.name)
        APPEND(_("; platform %s: %d channels per socket, %s-%d"), mem->platform.name, mem->platform.channels_per_socket,
               mem->platform.ddr ? mem->platform.ddr : "DDR?", mem->platform.mts);
    if (mem->slots_total >= 0)
        APPEND(_("; %d of %d DIMM slots free"), mem->slots_total - mem->ndimms, mem->slots_total);
#undef APPEND
}

void page_dimm_text(char *buf, size_t n, const struct dimm *d)
{
    snprintf(buf, n, "%s %.0f GiB %s %d MT/s", d->locator ? d->locator : "unknown", d->size_bytes / GIB,
             d->type ? d->type : "unknown", d->configured_mts ? d->configured_mts : d->speed_mts);
}

/* One evidence value for people: a string as it is, a number or boolean as JSON writes it, an
 * object as "(key=value, ...)" and an array as "[a, b]", strings unquoted, null members left out. */
static void evidence_value(FILE *o, const json_t *value, int depth)
{
    if (json_is_string(value)) {
        fputs(json_string_value(value), o);
        return;
    }
    if (depth < 4 && json_is_object(value)) {
        const char *key;
        json_t *member;
        bool first = true;
        fputc('(', o);
        json_object_foreach((json_t *)value, key, member)
        {
            if (json_is_null(member))
                continue;
            fprintf(o, "%s%s=", first ? "" : ", ", key);
            evidence_value(o, member, depth + 1);
            first = false;
        }
        fputc(')', o);
        return;
    }
    if (depth < 4 && json_is_array(value)) {
        size_t i;
        json_t *item;
        fputc('[', o);
        json_array_foreach(value, i, item)
        {
            fputs(i ? ", " : "", o);
            evidence_value(o, item, depth + 1);
        }
        fputc(']', o);
        return;
    }
    char *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6));
    fputs(text ? text : "?", o);
    free(text);
}

/* A string the finding's message or fix already says word for word (a reason, the command of a
 * fix): the evidence line would only repeat it. Short values ("nic") are kept. */
static bool evidence_repeats(const struct finding *it, const json_t *value)
{
    const char *s = json_string_value(value);
    return s && strlen(s) >= 12 && ((it->message && strstr(it->message, s)) || (it->fix && strstr(it->fix, s)));
}

char *page_evidence_text(const struct finding *it)
{
    const json_t *evidence = it->evidence;
    if (!json_is_object(evidence) || json_object_size(evidence) == 0)
        return NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    const char *key;
    json_t *value;
    bool first = true;
    json_object_foreach((json_t *)evidence, key, value)
    {
        if (json_is_null(value) || evidence_repeats(it, value))
            continue; /* a fact the rule had no value for: "key = null" tells a reader nothing */
        fprintf(o, "%s%s = ", first ? "" : "; ", key);
        evidence_value(o, value, 0);
        first = false;
    }
    fclose(o);
    if (first) {
        free(out);
        return NULL;
    }
    return out;
}

void page_claim_texts(const struct claim *c, char **claimed, char **found)
{
    *claimed = json_dumps(c->claimed, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
    *found = c->found && !json_is_null(c->found) ? json_dumps(c->found, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) : NULL;
}

/* ---- bench ---- */

static double evidence_number(const json_t *evidence, const char *key)
{
    return json_number_value(json_object_get(evidence, key));
}

/* The worst severity of rule's findings (about the device bus_id, when given) that judged a measure:
 * SEV_PASS when there are none, and an unknown (nothing to judge) is no mark either. */
static enum severity rule_severity(const struct findings *f, const char *rule, const char *bus_id)
{
    enum severity worst = SEV_PASS;
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        if (strcmp(it->rule->id, rule) != 0 || it->severity == SEV_UNKNOWN)
            continue;
        if (bus_id && !pci_address_same(it->subject, bus_id))
            continue;
        if (it->severity > worst)
            worst = it->severity;
    }
    return worst;
}

int page_bench_rates(const struct audit_report *r, struct page_rate *out, int max)
{
    const struct machine *m = r->machine;
    const struct bench_results *b = &m->bench;
    int n = 0;
    if (!b->loaded)
        return 0;
    memset(out, 0, (size_t)max * sizeof *out);
    if (b->mem_triad_bytes_s > 0 && n < max) {
        struct page_rate *rate = &out[n++];
        const char *why = NULL;
        snprintf(rate->what, sizeof rate->what, _("memory, STREAM triad (whole machine)"));
        rate->measured_gb_s = b->mem_triad_bytes_s / GB;
        rate->theory_gb_s = machine_memory_theoretical_bytes_s(m, &why) / GB;
        rate->severity = rule_severity(r->findings, "MEM_BANDWIDTH_LOW", NULL);
        if (rate->theory_gb_s > 0)
            snprintf(rate->theory_basis, sizeof rate->theory_basis, _("populated channels x %d MT/s x 8 bytes"),
                     memory_effective_mts(&m->memory));
        else
            snprintf(rate->theory_basis, sizeof rate->theory_basis, _("unknown: %s"), why ? why : _("no DIMM facts"));
    }
    for (int i = 0; i < b->npcie && n + 1 < max; i++) {
        const struct bench_gpu_copy *c = &b->pcie[i];
        /* The rule's own figure: what the loaded link achieves (PCIE_BANDWIDTH_LOW's evidence). */
        const json_t *evidence = NULL;
        for (int f = 0; f < r->findings->count && !evidence; f++) {
            const struct finding *it = &r->findings->items[f];
            if (!strcmp(it->rule->id, "PCIE_BANDWIDTH_LOW") && pci_address_same(it->subject, c->bus_id) &&
                json_object_get(it->evidence, "achievable_bytes_s"))
                evidence = it->evidence;
        }
        for (int k = 0; k < 2; k++) {
            struct page_rate *rate = &out[n++];
            snprintf(rate->what, sizeof rate->what, _("PCIe %s %s, pinned"), c->bus_id,
                     k == 0 ? _("host to device") : _("device to host"));
            rate->measured_gb_s = (k == 0 ? c->h2d_pinned_bytes_s : c->d2h_pinned_bytes_s) / GB;
            rate->theory_gb_s = evidence ? evidence_number(evidence, "achievable_bytes_s") / GB : 0;
            rate->severity = rule_severity(r->findings, "PCIE_BANDWIDTH_LOW", c->bus_id);
            if (evidence)
                snprintf(rate->theory_basis, sizeof rate->theory_basis, _("achievable on Gen%.0f x%.0f"),
                         evidence_number(evidence, "link_gen"), evidence_number(evidence, "link_width"));
            else
                snprintf(rate->theory_basis, sizeof rate->theory_basis, _("unknown: the GPU's link is not known"));
        }
    }
    const struct {
        const char *what, *why;
    } unmeasured[] = {{N_("memory"), b->mem_unmeasured},
                      {N_("storage"), b->storage_unmeasured},
                      {"PCIe", b->pcie_unmeasured}};
    for (size_t i = 0; i < sizeof unmeasured / sizeof unmeasured[0] && n < max; i++) {
        if (!unmeasured[i].why)
            continue;
        struct page_rate *rate = &out[n++];
        snprintf(rate->what, sizeof rate->what, "%s", _(unmeasured[i].what));
        snprintf(rate->theory_basis, sizeof rate->theory_basis, _("not measured: %s"), _(unmeasured[i].why));
    }
    if (b->storage_seq_read_bytes_s > 0 && n < max) {
        struct page_rate *rate = &out[n++];
        snprintf(rate->what, sizeof rate->what, _("storage, sequential read (%s)"),
                 b->storage_file ? b->storage_file : b->storage_dir ? b->storage_dir : "?");
        rate->measured_gb_s = b->storage_seq_read_bytes_s / GB;
        snprintf(rate->theory_basis, sizeof rate->theory_basis, _("no theoretical figure for a disk"));
    }
    return n;
}

bool page_distance_range(const struct machine *m, int *lo, int *hi)
{
    bool any = false;
    for (int i = 0; i < m->nnodes; i++) {
        if (!m->nodes[i].distances)
            continue;
        for (int k = 0; k < m->nnodes; k++) {
            int d = m->nodes[i].distances[k];
            if (!any || d < *lo)
                *lo = d;
            if (!any || d > *hi)
                *hi = d;
            any = true;
        }
    }
    return any;
}

int report_to_file(const char *path, int (*fn)(FILE *, const struct audit_report *), const struct audit_report *r)
{
    FILE *out = output_open(path, "audit");
    return out ? output_close(out, path, "audit", fn(out, r)) : -1;
}
