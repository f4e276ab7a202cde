/* Reading audit and bench documents into fleet nodes (fleet.h). The field list and the JSON keys
 * each is taken from are documented in docs/fleet-json.md. */
#include "fleet/fleet.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fleet/pool.h"
#include "fleet/prune.h"
#include "util/i18n.h"
#include "util/pciaddr.h"
#include "util/units.h"
#include "util/output.h"

const struct fleet_field_info fleet_fields[FLEET_NFIELDS] = {
    [FF_CPU_MODEL] = {"cpu.model", N_("CPU"), false},
    [FF_CPU_COUNT] = {"cpu.count", N_("CPU count"), false},
    [FF_MEMORY_CHANNELS] = {"memory.channels", N_("memory channels"), false},
    [FF_DIMMS] = {"memory.dimms", N_("DIMMs"), true},
    [FF_ACCELERATORS] = {"accelerators", N_("accelerators"), false},
    [FF_LINKS] = {"accelerators.links", N_("accelerator links"), true},
    [FF_DRIVER] = {"nvidia.driver_version", N_("NVIDIA driver"), false},
    [FF_CUDA] = {"nvidia.cuda_version", N_("CUDA (driver)"), false},
    [FF_KERNEL] = {"kernel.release", N_("kernel"), false},
    [FF_THP] = {"kernel.thp", N_("transparent huge pages"), false},
    [FF_NUMA_BALANCING] = {"kernel.numa_balancing", N_("NUMA balancing"), false},
    [FF_GOVERNOR] = {"kernel.cpufreq_governor", N_("cpufreq governor"), false},
    [FF_SWAP] = {"kernel.swap", N_("swap"), false},
    [FF_VIRTUALIZATION] = {"virtualization", N_("virtualization"), false},
};

const struct fleet_metric_info fleet_metrics[FLEET_NMETRICS] = {
    [FM_MEMORY_TRIAD] = {"memory_triad_bytes_s", N_("memory triad"), "GB/s", GB},
    [FM_PCIE_H2D] = {"pcie_h2d_pinned_bytes_s", N_("PCIe host-to-device (slowest GPU)"), "GB/s", GB},
    [FM_PCIE_D2H] = {"pcie_d2h_pinned_bytes_s", N_("PCIe device-to-host (slowest GPU)"), "GB/s", GB},
    [FM_STORAGE_SEQ_READ] = {"storage_seq_read_bytes_s", N_("storage sequential read"), "GB/s", GB},
    [FM_STORAGE_RAND_READ] = {"storage_rand_read_iops", N_("storage random read"), "IOPS", 1},
    [FM_DECODE] = {"decode_images_s", N_("JPEG decode, all cores"), "images/s", 1},
    [FM_GPU_ALLREDUCE] = {"gpu_allreduce_busbw_bytes_s", N_("GPU all-reduce (NCCL bus bandwidth)"), "GB/s", GB},
};

static const char UNKNOWN[] = "unknown";
/* The audit could not read the PCI bus (machine.listed.pci false): no accelerator is not "none". */
static const char PCI_UNREAD[] = "unknown (the PCI bus could not be read)";

/* Whether the audit read the PCI bus: listed.pci, or (older audits) an accelerators list. */
static bool pci_listed(json_t *machine)
{
    json_t *said = json_object_get(json_object_get(machine, "listed"), "pci");
    return json_is_boolean(said) ? json_is_true(said) : json_is_array(json_object_get(machine, "accelerators"));
}

/* ---- a growable string ---- */

struct strbuf {
    char *s;
    size_t len, cap;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
        if (b->len == 0)
            b->s[0] = '\0';
    }
}

static void sb_putc(struct strbuf *b, char c)
{
    if (!b->s || b->len + 2 > b->cap) {
        b->cap = (b->len + 2) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

static const char *sb_text(struct strbuf *b)
{
    return b->s ? b->s : "";
}

/* ---- reading values ---- */

static json_t *at(json_t *o, const char *path)
{
    char key[64];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path += n + (dot ? 1 : 0);
    }
    return o;
}

static double number_at(json_t *o, const char *path)
{
    json_t *v = at(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Appends a JSON scalar as text: strings with runs of blanks collapsed (CPU model names are
 * padded), numbers as written, null as "unknown". */
static void sb_scalar(struct strbuf *b, json_t *v)
{
    if (json_is_string(v)) {
        bool blank = false, any = false;
        for (const char *s = json_string_value(v); *s; s++) {
            if (*s == ' ' || *s == '\t') {
                blank = any;
                continue;
            }
            if (blank)
                sb_putc(b, ' ');
            sb_putc(b, *s);
            blank = false;
            any = true;
        }
    } else if (json_is_integer(v)) {
        sb_printf(b, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        sb_printf(b, "%g", json_real_value(v));
    } else if (json_is_boolean(v)) {
        sb_printf(b, "%s", json_is_true(v) ? "yes" : "no");
    } else {
        sb_printf(b, UNKNOWN);
    }
}

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the items (one per '\n'-separated line) so that order in the document does not matter. */
static void sort_items(struct strbuf *b)
{
    if (!b->s || !b->len)
        return;
    size_t n = 1;
    for (size_t i = 0; i < b->len; i++)
        n += b->s[i] == '\n';
    char **items = malloc(n * sizeof *items), *copy = strdup(b->s);
    if (!items || !copy)
        abort();
    size_t k = 0;
    for (char *save = NULL, *tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
        items[k++] = tok;
    qsort(items, k, sizeof *items, cmp_strings);
    b->len = 0;
    for (size_t i = 0; i < k; i++)
        sb_printf(b, "%s%s", i ? "\n" : "", items[i]);
    free(items);
    free(copy);
}

/* ---- the fields of an audit document ---- */

struct extract {
    struct strbuf field[FLEET_NFIELDS];
    struct strbuf class_key;
};

static void extract_cpu(struct extract *x, json_t *cpu)
{
    if (json_is_string(at(cpu, "model")))
        sb_scalar(&x->field[FF_CPU_MODEL], at(cpu, "model"));
    else
        sb_printf(&x->field[FF_CPU_MODEL], UNKNOWN);
    struct strbuf *c = &x->field[FF_CPU_COUNT];
    sb_printf(c, "sockets ");
    sb_scalar(c, at(cpu, "sockets"));
    sb_printf(c, ", cores ");
    sb_scalar(c, at(cpu, "cores"));
    sb_printf(c, ", threads ");
    sb_scalar(c, at(cpu, "threads"));
    sb_printf(&x->class_key, "%s", sb_text(&x->field[FF_CPU_MODEL]));
}

static void extract_memory(struct extract *x, json_t *memory)
{
    struct strbuf *ch = &x->field[FF_MEMORY_CHANNELS], *dimms = &x->field[FF_DIMMS];
    if (!json_is_string(at(memory, "source"))) {
        sb_printf(ch, UNKNOWN);
        sb_printf(dimms, UNKNOWN);
        return;
    }
    size_t i;
    json_t *s, *d;
    json_array_foreach(at(memory, "sockets"), i, s) {
        sb_printf(ch, "%ssocket ", i ? ", " : "");
        sb_scalar(ch, at(s, "socket"));
        sb_printf(ch, ": ");
        if (json_is_integer(at(s, "populated_channels"))) {
            sb_scalar(ch, at(s, "populated_channels"));
            sb_printf(ch, json_integer_value(at(s, "populated_channels")) == 1 ? " channel" : " channels");
        } else {
            sb_scalar(ch, at(s, "dimms"));
            sb_printf(ch, " DIMMs, channels unknown");
        }
    }
    if (!ch->len)
        sb_printf(ch, "no DIMMs");
    json_array_foreach(at(memory, "dimms"), i, d) {
        sb_printf(dimms, "%ssocket ", i ? "\n" : "");
        sb_scalar(dimms, at(d, "socket"));
        sb_printf(dimms, " channel ");
        sb_scalar(dimms, at(d, "channel"));
        sb_printf(dimms, " ");
        sb_scalar(dimms, at(d, "locator"));
        double size = number_at(d, "size_bytes");
        if (isnan(size))
            sb_printf(dimms, " size unknown");
        else
            sb_printf(dimms, " %g GiB", size / GIB);
        sb_printf(dimms, " ");
        sb_scalar(dimms, at(d, "type"));
        sb_printf(dimms, " ");
        sb_scalar(dimms, at(d, "configured_mts"));
        sb_printf(dimms, " MT/s");
    }
    if (!dimms->len)
        sb_printf(dimms, "none");
    sort_items(dimms);
}

/* The name a report gives an accelerator: NVIDIA's product name, else pci.ids names, else IDs. */
static void accelerator_name(struct strbuf *b, json_t *gpu, json_t *pci)
{
    if (json_is_string(at(gpu, "name")))
        sb_scalar(b, at(gpu, "name"));
    else if (json_is_string(at(pci, "device"))) {
        if (json_is_string(at(pci, "vendor"))) {
            sb_scalar(b, at(pci, "vendor"));
            sb_printf(b, " ");
        }
        sb_scalar(b, at(pci, "device"));
    } else if (json_is_string(at(pci, "vendor_id"))) {
        sb_scalar(b, at(pci, "vendor_id"));
        sb_printf(b, ":");
        sb_scalar(b, at(pci, "device_id"));
    } else {
        sb_printf(b, "unknown vendor");
    }
}

static json_t *gpu_by_bus(json_t *gpus, const char *bus)
{
    size_t i;
    json_t *g;
    json_array_foreach(gpus, i, g)
        if (bus && json_is_string(at(g, "bus_id")) && pci_address_same(json_string_value(at(g, "bus_id")), bus))
            return g;
    return NULL;
}

/* One accelerator: its name into `names` (one line each) and its link into the links field. The
 * current generation is left out: idle GPUs drop to Gen1 to save power. */
static void add_accelerator(struct extract *x, struct strbuf *names, json_t *gpu, json_t *pci)
{
    json_t *bus = gpu ? at(gpu, "bus_id") : at(pci, "bus_id");
    struct strbuf *links = &x->field[FF_LINKS];
    sb_printf(names, "%s", names->len ? "\n" : "");
    accelerator_name(names, gpu, pci);
    sb_printf(links, "%s", links->len ? "\n" : "");
    sb_scalar(links, bus);
    json_t *gen, *width, *max_width;
    if (gpu && json_is_object(at(gpu, "pcie")) && json_is_integer(at(gpu, "pcie.current_width"))) {
        gen = at(gpu, "pcie.max_gen"), width = at(gpu, "pcie.current_width"), max_width = at(gpu, "pcie.max_width");
    } else if (json_is_object(at(pci, "link"))) {
        gen = at(pci, "link.max_gen"), width = at(pci, "link.current_width"), max_width = at(pci, "link.max_width");
    } else {
        sb_printf(links, " link unknown");
        return;
    }
    sb_printf(links, " Gen");
    sb_scalar(links, gen);
    sb_printf(links, " x");
    sb_scalar(links, width);
    if (!json_equal(width, max_width)) {
        sb_printf(links, " of x");
        sb_scalar(links, max_width);
    }
}

/* "8x NVIDIA H200, 1x ASPEED..." from one name per line, and the class key's model list. */
static void count_names(struct extract *x, struct strbuf *names, bool listed)
{
    struct strbuf *acc = &x->field[FF_ACCELERATORS];
    sort_items(names);
    if (!names->len) {
        sb_printf(acc, "%s", listed ? "none" : PCI_UNREAD);
        return;
    }
    char *save = NULL, *copy = strdup(names->s), *prev = NULL;
    if (!copy)
        abort();
    int count = 0;
    for (char *tok = strtok_r(copy, "\n", &save);; tok = strtok_r(NULL, "\n", &save)) {
        if (prev && (!tok || strcmp(tok, prev))) {
            sb_printf(&x->class_key, "%s%s", acc->len ? " + " : "", prev);
            sb_printf(acc, "%s%dx %s", acc->len ? ", " : "", count, prev);
            count = 0;
        }
        if (!tok)
            break;
        prev = tok;
        count++;
    }
    free(copy);
}

static void extract_accelerators(struct extract *x, json_t *machine)
{
    json_t *gpus = at(machine, "gpus"), *pci, *gpu;
    struct strbuf names = {0};
    size_t i;
    json_array_foreach(at(machine, "accelerators"), i, pci) {
        json_t *bus = at(pci, "bus_id");
        add_accelerator(x, &names, gpu_by_bus(gpus, json_string_value(bus)), pci);
    }
    /* GPUs of an evidence-only audit have no PCI device read from sysfs. */
    json_array_foreach(gpus, i, gpu)
        if (!json_is_true(at(gpu, "pci_device_found")))
            add_accelerator(x, &names, gpu, NULL);
    sort_items(&x->field[FF_LINKS]);
    bool listed = pci_listed(machine);
    if (!x->field[FF_LINKS].len)
        sb_printf(&x->field[FF_LINKS], "%s", listed ? "none" : PCI_UNREAD);
    count_names(x, &names, listed);
    free(names.s);
}

static void version_field(struct strbuf *b, json_t *nvidia, const char *key, bool listed)
{
    if (!json_is_object(nvidia))
        sb_printf(b, "%s", listed ? "none (no NVIDIA device)" : PCI_UNREAD);
    else if (json_is_string(at(nvidia, key)))
        sb_scalar(b, at(nvidia, key));
    else
        sb_printf(b, UNKNOWN);
}

static void extract_kernel(struct extract *x, json_t *kernel, json_t *virt)
{
    sb_scalar(&x->field[FF_KERNEL], at(kernel, "release"));
    sb_printf(&x->field[FF_THP], "enabled ");
    sb_scalar(&x->field[FF_THP], at(kernel, "thp_enabled"));
    sb_printf(&x->field[FF_THP], ", defrag ");
    sb_scalar(&x->field[FF_THP], at(kernel, "thp_defrag"));
    sb_scalar(&x->field[FF_NUMA_BALANCING], at(kernel, "numa_balancing"));
    json_t *governor = at(kernel, "cpufreq_governor");
    if (json_is_string(governor))
        sb_scalar(&x->field[FF_GOVERNOR], governor);
    else
        sb_printf(&x->field[FF_GOVERNOR], "none (no cpufreq)");
    double swap = number_at(kernel, "swap_total_bytes");
    if (isnan(swap))
        sb_printf(&x->field[FF_SWAP], UNKNOWN);
    else if (swap == 0)
        sb_printf(&x->field[FF_SWAP], "off");
    else
        sb_printf(&x->field[FF_SWAP], "%.0f GiB", swap / GIB);
    struct strbuf *v = &x->field[FF_VIRTUALIZATION];
    json_t *vm = at(virt, "vm");
    if (json_is_true(vm)) {
        sb_printf(v, "VM, ");
        if (json_is_string(at(virt, "hypervisor")))
            sb_scalar(v, at(virt, "hypervisor"));
        else
            sb_printf(v, "hypervisor unknown");
    } else {
        sb_printf(v, json_is_false(vm) ? "bare metal" : UNKNOWN);
    }
    if (json_is_true(at(virt, "container"))) {
        sb_printf(v, ", container ");
        sb_scalar(v, at(virt, "container_kind"));
    }
}

/* ---- nodes ---- */

void fleet_init(struct fleet *f)
{
    memset(f, 0, sizeof *f);
}

void fleet_free(struct fleet *f)
{
    for (size_t i = 0; i < f->count; i++) {
        free(f->nodes[i].audit_file);
        free(f->nodes[i].bench_file);
        free(f->nodes[i].findings);
        free(f->nodes[i].findings_sorted);
        free(f->nodes[i].disagreeing_file);
    }
    free(f->nodes);
    for (int i = 0; i < f->nnotes; i++)
        free(f->notes[i]);
    free(f->notes);
    pool_free(&f->hosts);
    pool_free(&f->values);
    memset(f, 0, sizeof *f);
}

/* The node of a host, created on first sight. The host pool's counter holds index + 1. */
static struct fleet_node *node_for(struct fleet *f, const char *host)
{
    bool added;
    const char *name = pool_intern(&f->hosts, host, &added);
    if (!added)
        return &f->nodes[*fleet_counter(name) - 1];
    if (f->count == f->capacity) {
        f->capacity = f->capacity ? f->capacity * 2 : 64;
        f->nodes = realloc(f->nodes, f->capacity * sizeof *f->nodes);
        if (!f->nodes)
            abort();
    }
    struct fleet_node *n = &f->nodes[f->count++];
    memset(n, 0, sizeof *n);
    n->host = name;
    for (int m = 0; m < FLEET_NMETRICS; m++)
        n->metric[m] = NAN;
    *fleet_counter(name) = (int)f->count;
    return n;
}

/* The document's host name up to its first dot (the short name Slurm and --output's %h use; an
 * address stays whole), else the file's name without its directory and ".json". */
static void host_of(json_t *name, const char *path, char *out, size_t size)
{
    const char *s = json_string_value(name);
    if (s && *s && strcmp(s, "[redacted]")) {
        snprintf(out, size, "%s", s);
        bool address = strspn(out, "0123456789.:") == strlen(out);
        char *dot = strchr(out, '.');
        if (dot && dot != out && !address)
            *dot = '\0';
        return;
    }
    const char *base = strrchr(path, '/');
    snprintf(out, size, "%s", base ? base + 1 : path);
    size_t n = strlen(out);
    if (n > 5 && !strcmp(out + n - 5, ".json"))
        out[n - 5] = '\0';
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The key of a warn or fail finding, "fail RULE_ID subject", interned; NULL for another severity. */
static const char *finding_key(struct fleet *f, struct strbuf *key, json_t *finding)
{
    const char *severity = json_string_value(at(finding, "severity"));
    if (!severity || (strcmp(severity, "fail") && strcmp(severity, "warn")))
        return NULL;
    key->len = 0;
    sb_printf(key, "%s ", severity);
    sb_scalar(key, at(finding, "id"));
    sb_printf(key, " ");
    sb_scalar(key, at(finding, "subject"));
    return pool_intern(&f->values, key->s, NULL);
}

/* Appends interned finding keys to a node; a key it has already is dropped. */
static void add_findings(struct fleet_node *n, const char *const *keys, int nkeys)
{
    size_t room = (size_t)n->nfindings + (size_t)nkeys;
    n->findings = realloc(n->findings, (room ? room : 1) * sizeof *n->findings);
    if (!n->findings)
        abort();
    for (int i = 0; i < nkeys; i++)
        n->findings[n->nfindings++] = keys[i];
    free(n->findings_sorted);
    n->findings_sorted = malloc((n->nfindings ? (size_t)n->nfindings : 1) * sizeof *n->findings_sorted);
    if (!n->findings_sorted)
        abort();
    if (n->nfindings)
        memcpy(n->findings_sorted, n->findings, (size_t)n->nfindings * sizeof *n->findings);
    qsort(n->findings_sorted, (size_t)n->nfindings, sizeof *n->findings_sorted, compare_keys);
    /* One rule can report one subject several times (GPU_XID_ERRORS: one finding per Xid code of a
     * GPU): the node has that problem once, or "on N of M nodes" counts it twice. Interned keys are
     * equal strings at one address; duplicates are dropped in n log n, the first one kept in order. */
    int unique = 0;
    for (int k = 0; k < n->nfindings; k++)
        if (unique == 0 || n->findings_sorted[unique - 1] != n->findings_sorted[k])
            n->findings_sorted[unique++] = n->findings_sorted[k];
    if (unique < n->nfindings) {
        bool *taken = calloc((size_t)unique, sizeof *taken);
        if (!taken)
            abort();
        int kept = 0;
        for (int k = 0; k < n->nfindings; k++) {
            const char **at_key = bsearch(&n->findings[k], n->findings_sorted, (size_t)unique,
                                          sizeof *n->findings_sorted, compare_keys);
            size_t slot = (size_t)(at_key - n->findings_sorted);
            if (taken[slot])
                continue;
            taken[slot] = true;
            n->findings[kept++] = n->findings[k];
        }
        free(taken);
        n->nfindings = kept;
    }
}

bool fleet_node_has_finding(const struct fleet_node *n, const char *key)
{
    return n->nfindings > 0 &&
           bsearch(&key, n->findings_sorted, (size_t)n->nfindings, sizeof *n->findings_sorted, compare_keys);
}

/* The node of a host, its file recorded; NULL (with `why`) when that host has a document of this
 * kind already. */
static struct fleet_node *claim_node(struct fleet *f, const char *host, const char *path, bool audit, char *why,
                                     size_t why_size)
{
    struct fleet_node *n = node_for(f, host);
    char **file = audit ? &n->audit_file : &n->bench_file;
    if (*file) {
        snprintf(why, why_size,
                 audit ? _("%s: host %s has an audit document already (%s): give one per host")
                       : _("%s: host %s has a bench document already (%s): give one per host"),
                 path, host, *file);
        return NULL;
    }
    *file = strdup(path);
    *(audit ? &f->audits : &f->benches) += 1;
    return n;
}

static void keep_lower(double *kept, double value)
{
    if (!isnan(value) && (isnan(*kept) || value < *kept))
        *kept = value;
}

/* The slowest GPU's copies: the one a data-parallel job waits for. */
static void take_slowest_gpu(double *metric, json_t *pcie)
{
    size_t i;
    json_t *g;
    json_array_foreach(pcie, i, g) {
        keep_lower(&metric[FM_PCIE_H2D], number_at(g, "h2d_pinned_bytes_s"));
        keep_lower(&metric[FM_PCIE_D2H], number_at(g, "d2h_pinned_bytes_s"));
    }
}

/* What a node takes of one document, before the node is chosen: a directory's walk reads each
 * file once and adds only the newest document of each host and kind afterwards. Strings are
 * interned in f->values, so a taken document holds a few pointers, not its tree. */
struct taken {
    const char *field[FLEET_NFIELDS], *class_key; /* audit */
    const char **findings;                        /* warn and fail keys in document order */
    int nfindings;
    double metric[FLEET_NMETRICS];                /* a bench document's; an audit's machine.bench */
    bool has_bench;                               /* audit: machine.bench is an object */
    bool no_machine;                              /* audit without a "machine" object */
    char *unread;                                 /* the document is not one add_file reads: why */
};

static void taken_free(struct taken *t)
{
    free(t->findings);
    free(t->unread);
}

static void take_finding(struct taken *t, const char *key)
{
    if (!key)
        return;
    if ((t->nfindings & (t->nfindings - 1)) == 0) { /* room doubles at 0, 1, 2, 4, ... */
        t->findings = realloc(t->findings, (size_t)(t->nfindings ? t->nfindings * 2 : 1) * sizeof *t->findings);
        if (!t->findings)
            abort();
    }
    t->findings[t->nfindings++] = key;
}

/* prune's context for a document's findings: each one's key goes to the taken document as the
 * reader meets it (prune.h's take), so 40-85 findings an audit never stand as a tree. */
struct finding_taker {
    struct fleet *f;
    struct taken *t;
    struct strbuf key;
};

static void take_finding_element(json_t *finding, void *context)
{
    struct finding_taker *taker = context;
    if (!finding) /* a "findings" member begins: a later one replaces an earlier one */
        taker->t->nfindings = 0;
    else
        take_finding(taker->t, finding_key(taker->f, &taker->key, finding));
}

/* An audit's "findings" were taken while it was read (take_finding_element). */
static void take_audit(struct fleet *f, json_t *doc, struct taken *t)
{
    json_t *machine = at(doc, "machine");
    if (!json_is_object(machine)) {
        t->no_machine = true;
        return;
    }
    struct extract x = {0};
    extract_cpu(&x, at(machine, "cpu"));
    extract_memory(&x, at(machine, "memory"));
    sb_printf(&x.class_key, " / ");
    extract_accelerators(&x, machine);
    version_field(&x.field[FF_DRIVER], at(machine, "nvidia"), "driver_version", pci_listed(machine));
    version_field(&x.field[FF_CUDA], at(machine, "nvidia"), "cuda_version", pci_listed(machine));
    extract_kernel(&x, at(machine, "kernel"), at(machine, "virtualization"));
    for (int k = 0; k < FLEET_NFIELDS; k++) {
        t->field[k] = pool_intern(&f->values, sb_text(&x.field[k]), NULL);
        free(x.field[k].s);
    }
    t->class_key = pool_intern(&f->values, sb_text(&x.class_key), NULL);
    free(x.class_key.s);
    for (int m = 0; m < FLEET_NMETRICS; m++)
        t->metric[m] = NAN;
    json_t *bench = at(machine, "bench");
    t->has_bench = json_is_object(bench);
    if (t->has_bench) {
        t->metric[FM_MEMORY_TRIAD] = number_at(bench, "memory_triad_bytes_s");
        t->metric[FM_STORAGE_SEQ_READ] = number_at(bench, "storage_seq_read_bytes_s");
        t->metric[FM_STORAGE_RAND_READ] = number_at(bench, "storage_rand_read_iops");
        take_slowest_gpu(t->metric, at(bench, "pcie"));
        t->metric[FM_GPU_ALLREDUCE] = number_at(bench, "gpu_nccl.busbw_bytes_s");
    }
}

static void take_bench(struct fleet *f, json_t *doc, struct taken *t)
{
    t->nfindings = 0; /* a bench document's own "findings", if any, are not read */
    json_t *b = at(doc, "benchmarks");
    for (int m = 0; m < FLEET_NMETRICS; m++)
        t->metric[m] = NAN;
    t->metric[FM_MEMORY_TRIAD] = number_at(b, "memory.triad_bytes_s");
    t->metric[FM_STORAGE_SEQ_READ] = number_at(b, "storage.seq_read_bytes_s");
    t->metric[FM_STORAGE_RAND_READ] = number_at(b, "storage.rand_read_iops");
    t->metric[FM_DECODE] = number_at(b, "decode.images_s_all_cores");
    t->metric[FM_GPU_ALLREDUCE] = number_at(b, "gpu.nccl.busbw_bytes_s");
    take_slowest_gpu(t->metric, at(b, "pcie"));
    /* A GPU whose memory test found words that did not keep their pattern, or met an uncorrectable
     * ECC error, is what GPU_MEMORY_ERRORS fails in `audit --bench` (docs/bench-json.md): the node
     * has that finding, so it is not alike the others. */
    struct strbuf key = {0};
    json_t *g;
    size_t i;
    json_array_foreach(at(b, "gpu.gpus"), i, g) {
        json_t *memtest = at(g, "memtest");
        json_t *errors = at(memtest, "errors");
        bool failed = (json_is_integer(errors) && json_integer_value(errors) > 0) ||
                      json_is_true(at(memtest, "uncorrectable_ecc"));
        if (failed) {
            key.len = 0;
            sb_printf(&key, "fail GPU_MEMORY_ERRORS ");
            sb_scalar(&key, at(g, "bus_id"));
            take_finding(t, pool_intern(&f->values, key.s, NULL));
        }
    }
    free(key.s);
}

/* A taken document into the node of its host. */
static int add_taken(struct fleet *f, const struct taken *t, bool audit, const char *host, const char *path,
                     char *why, size_t why_size)
{
    if (audit && t->no_machine) {
        snprintf(why, why_size, _("%s: a gpuvet.audit/1 document without a \"machine\" object"), path);
        return -1;
    }
    struct fleet_node *n = claim_node(f, host, path, audit, why, why_size);
    if (!n)
        return -1;
    if (audit) {
        for (int k = 0; k < FLEET_NFIELDS; k++)
            n->field[k] = t->field[k];
        n->class_key = t->class_key;
        add_findings(n, t->findings, t->nfindings);
        /* An audit run with --bench carries the figures the rules judged; a bench document of the
         * same host, read before or after, takes precedence. */
        if (t->has_bench && !n->bench_file) {
            static const enum fleet_metric from_audit[] = {FM_MEMORY_TRIAD, FM_STORAGE_SEQ_READ, FM_STORAGE_RAND_READ,
                                                           FM_PCIE_H2D,     FM_PCIE_D2H,         FM_GPU_ALLREDUCE};
            for (size_t k = 0; k < sizeof from_audit / sizeof *from_audit; k++)
                n->metric[from_audit[k]] = t->metric[from_audit[k]];
        }
    } else {
        memcpy(n->metric, t->metric, sizeof n->metric);
        if (t->nfindings)
            add_findings(n, t->findings, t->nfindings);
    }
    return 0;
}

/* What a node keeps of a document (docs/fleet-json.md lists the fields); the rest is skipped. Only
 * the members the extractors above read are built: the tree of a whole "memory" or "gpus" was a
 * tenth of `gpuvet fleet`'s time. A list that holds something other than objects is kept whole, as
 * it was when its parent was. */
#define KEEP(key) {key, NULL, PRUNE_OBJECT, NULL}
#define KEEP_IN(key, members) {key, members, PRUNE_OBJECT, NULL}
#define KEEP_EACH(key, members, how) {key, members, how, NULL}
#define KEEP_FINDINGS {"findings", finding_keys, PRUNE_EACH, take_finding_element}
#define KEEP_END {NULL, NULL, PRUNE_OBJECT, NULL}
static const struct prune_keep finding_keys[] = {KEEP("id"), KEEP("severity"), KEEP("subject"), KEEP_END};
static const struct prune_keep pci_keys[] = {KEEP("bus_id"),    KEEP("vendor"), KEEP("device"), KEEP("vendor_id"),
                                             KEEP("device_id"), KEEP("link"),   KEEP_END};
static const struct prune_keep cpu_keys[] = {KEEP("model"), KEEP("sockets"), KEEP("cores"), KEEP("threads"), KEEP_END};
static const struct prune_keep socket_keys[] = {KEEP("socket"), KEEP("populated_channels"), KEEP("dimms"), KEEP_END};
static const struct prune_keep dimm_keys[] = {KEEP("socket"),     KEEP("channel"), KEEP("locator"), KEEP("size_bytes"),
                                              KEEP("type"),       KEEP("configured_mts"), KEEP_END};
static const struct prune_keep memory_keys[] = {KEEP("source"), KEEP_EACH("sockets", socket_keys, PRUNE_EACH_OR_WHOLE),
                                                KEEP_EACH("dimms", dimm_keys, PRUNE_EACH_OR_WHOLE), KEEP_END};
static const struct prune_keep gpu_link_keys[] = {KEEP("current_width"), KEEP("max_gen"), KEEP("max_width"), KEEP_END};
static const struct prune_keep gpu_keys[] = {KEEP("name"), KEEP("bus_id"), KEEP("pci_device_found"),
                                             KEEP_IN("pcie", gpu_link_keys), KEEP_END};
static const struct prune_keep nvidia_keys[] = {KEEP("driver_version"), KEEP("cuda_version"), KEEP_END};
static const struct prune_keep kernel_keys[] = {KEEP("release"),        KEEP("thp_enabled"),
                                                KEEP("thp_defrag"),     KEEP("numa_balancing"),
                                                KEEP("cpufreq_governor"), KEEP("swap_total_bytes"), KEEP_END};
static const struct prune_keep virtualization_keys[] = {KEEP("vm"), KEEP("hypervisor"), KEEP("container"),
                                                        KEEP("container_kind"), KEEP_END};
static const struct prune_keep listed_keys[] = {KEEP("pci"), KEEP_END};
static const struct prune_keep copy_keys[] = {KEEP("h2d_pinned_bytes_s"), KEEP("d2h_pinned_bytes_s"), KEEP_END};
static const struct prune_keep nccl_keys[] = {KEEP("busbw_bytes_s"), KEEP_END};
static const struct prune_keep audit_bench_keys[] = {KEEP("memory_triad_bytes_s"), KEEP("storage_seq_read_bytes_s"),
                                                     KEEP("storage_rand_read_iops"),
                                                     KEEP_EACH("pcie", copy_keys, PRUNE_EACH_OR_WHOLE),
                                                     KEEP_IN("gpu_nccl", nccl_keys), KEEP_END};
static const struct prune_keep triad_keys[] = {KEEP("triad_bytes_s"), KEEP_END};
static const struct prune_keep storage_keys[] = {KEEP("seq_read_bytes_s"), KEEP("rand_read_iops"), KEEP_END};
static const struct prune_keep decode_keys[] = {KEEP("images_s_all_cores"), KEEP_END};
static const struct prune_keep memtest_keys[] = {KEEP("errors"), KEEP("uncorrectable_ecc"), KEEP_END};
static const struct prune_keep bench_gpu_keys[] = {KEEP("bus_id"), KEEP_IN("memtest", memtest_keys), KEEP_END};
static const struct prune_keep gpu_bench_keys[] = {KEEP_IN("nccl", nccl_keys),
                                                   KEEP_EACH("gpus", bench_gpu_keys, PRUNE_EACH_OR_WHOLE), KEEP_END};
static const struct prune_keep benchmark_keys[] = {KEEP_IN("memory", triad_keys), KEEP_IN("storage", storage_keys),
                                                   KEEP_IN("decode", decode_keys), KEEP_IN("gpu", gpu_bench_keys),
                                                   KEEP_EACH("pcie", copy_keys, PRUNE_EACH_OR_WHOLE), KEEP_END};
static const struct prune_keep machine_keys[] = {KEEP("hostname"),
                                                 KEEP_IN("cpu", cpu_keys),
                                                 KEEP_IN("memory", memory_keys),
                                                 KEEP_EACH("accelerators", pci_keys, PRUNE_EACH),
                                                 KEEP_EACH("gpus", gpu_keys, PRUNE_EACH_OR_WHOLE),
                                                 KEEP_IN("nvidia", nvidia_keys),
                                                 KEEP_IN("kernel", kernel_keys),
                                                 KEEP_IN("virtualization", virtualization_keys),
                                                 KEEP_IN("bench", audit_bench_keys),
                                                 KEEP_IN("listed", listed_keys),
                                                 KEEP_END};
static const struct prune_keep document_keys[] = {KEEP("schema"),   KEEP_IN("machine", machine_keys),
                                                  KEEP_FINDINGS,
                                                  KEEP("hostname"), KEEP_IN("benchmarks", benchmark_keys), KEEP_END};

/* A document's host (host_of) and what its node takes. */
static void take_document(struct fleet *f, json_t *doc, bool audit, const char *path, char *host, size_t host_size,
                          struct taken *t)
{
    host_of(audit ? at(at(doc, "machine"), "hostname") : at(doc, "hostname"), path, host, host_size);
    if (audit)
        take_audit(f, doc, t);
    else
        take_bench(f, doc, t);
}

/* 1 an audit, 0 a bench document, -1 neither (with `why`). */
static int document_kind(json_t *doc, const char *path, char *why, size_t why_size)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (schema && !strcmp(schema, "gpuvet.audit/1"))
        return 1;
    if (schema && !strcmp(schema, "gpuvet.bench/1"))
        return 0;
    if (schema)
        snprintf(why, why_size, _("%s: schema \"%s\": neither gpuvet.audit/1 nor gpuvet.bench/1"), path, schema);
    else
        snprintf(why, why_size, _("%s: schema missing: neither gpuvet.audit/1 nor gpuvet.bench/1"), path);
    return -1;
}

static int add_file(struct fleet *f, const char *path, char *why, size_t why_size)
{
    char reason[512];
    struct taken t = {0};
    struct finding_taker taker = {f, &t, {0}};
    json_t *doc = prune_load_file(path, document_keys, &taker, reason, sizeof reason);
    free(taker.key.s);
    int rc = -1;
    if (!doc) {
        snprintf(why, why_size, "%s: %s", path, reason);
    } else {
        int kind = document_kind(doc, path, why, why_size);
        if (kind >= 0) {
            char host[256];
            take_document(f, doc, kind, path, host, sizeof host, &t);
            rc = add_taken(f, &t, kind, host, path, why, why_size);
        }
        json_decref(doc);
    }
    taken_free(&t);
    return rc;
}

static int json_name(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".json");
}

static void fleet_note(struct fleet *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fleet_note(struct fleet *f, const char *fmt, ...)
{
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    f->notes = realloc(f->notes, (size_t)(f->nnotes + 1) * sizeof *f->notes);
    if (!f->notes || !(f->notes[f->nnotes] = strdup(text)))
        abort();
    f->nnotes++;
}

/* One *.json of a directory, read once: its kind, host and time pick the documents to add, and
 * what its node takes waits in `taken` until then. */
struct candidate {
    char *file, *host;
    bool audit, left_out;
    time_t when;        /* generated_at, else the file's modification time */
    bool dated;         /* when is the document's own generated_at */
    struct taken taken;
};
static const struct prune_keep host_keys[] = {KEEP("hostname"), KEEP_END};
static const struct prune_keep candidate_keys[] = {KEEP("schema"), KEEP("generated_at"), KEEP_IN("machine", host_keys),
                                                   KEEP("hostname"), KEEP_END};
/* document_keys and candidate_keys together: what a directory's walk reads of each file. */
static const struct prune_keep walk_keys[] = {KEEP("schema"),   KEEP("generated_at"),
                                              KEEP_IN("machine", machine_keys),
                                              KEEP_FINDINGS,
                                              KEEP("hostname"), KEEP_IN("benchmarks", benchmark_keys), KEEP_END};

/* 1 a candidate; 0 not a gpuvet audit or bench document (skipped with a note); -1 unreadable.
 *
 * Each file is read once, by walk_keys. Where that fails, the file is read again as the walk
 * read it when it read each file twice, so that the same file gets the same message: by
 * candidate_keys (a failure is this file's error now), then by document_keys (a failure is kept
 * in `taken.unread`: an error only if this document is added, or is an older audit checked). */
static int candidate_read(struct fleet *f, struct candidate *c, char *why, size_t why_size)
{
    char reason[512];
    struct finding_taker taker = {f, &c->taken, {0}};
    json_t *doc = prune_load_file(c->file, walk_keys, &taker, reason, sizeof reason), *full = NULL;
    if (!doc) {
        if (!(doc = prune_load_file(c->file, candidate_keys, &taker, reason, sizeof reason))) {
            free(taker.key.s);
            snprintf(why, why_size, "%s: %s", c->file, reason);
            return -1;
        }
        if (!(full = prune_load_file(c->file, document_keys, &taker, reason, sizeof reason)) &&
            asprintf(&c->taken.unread, "%s: %s", c->file, reason) < 0)
            abort();
    } else {
        full = json_incref(doc);
    }
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    c->audit = schema && !strcmp(schema, "gpuvet.audit/1");
    if (!c->audit && !(schema && !strcmp(schema, "gpuvet.bench/1"))) {
        fleet_note(f, _("%s: skipped: not a gpuvet.audit/1 or gpuvet.bench/1 document"), c->file);
        free(taker.key.s);
        json_decref(doc);
        json_decref(full);
        return 0;
    }
    char host[256];
    host_of(c->audit ? at(at(doc, "machine"), "hostname") : at(doc, "hostname"), c->file, host, sizeof host);
    if (!(c->host = strdup(host)))
        abort();
    if (full) {
        char same_host[256];
        take_document(f, full, c->audit, c->file, same_host, sizeof same_host, &c->taken);
    }
    const char *when = json_string_value(json_object_get(doc, "generated_at"));
    struct tm tm = {0};
    const char *end = when ? strptime(when, UTC_TIME_FORMAT, &tm) : NULL;
    c->dated = end && !*end;
    struct stat st;
    c->when = c->dated ? timegm(&tm) : stat(c->file, &st) == 0 ? st.st_mtime : 0;
    free(taker.key.s);
    json_decref(doc);
    json_decref(full);
    return 1;
}

/* Candidates of one kind and host together, oldest first (as old: the later file name last). */
static int candidate_order(const void *a, const void *b)
{
    const struct candidate *x = *(struct candidate *const *)a, *y = *(struct candidate *const *)b;
    if (x->audit != y->audit)
        return x->audit ? -1 : 1;
    int by_host = strcmp(x->host, y->host);
    if (by_host)
        return by_host;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void time_text(time_t t, char *out, size_t size)
{
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, size, UTC_TIME_FORMAT, &tm))
        snprintf(out, size, "?");
}

/* Of the documents of one host and kind, only the newest is added; each other one gets a note. */
static void candidates_pick(struct fleet *f, struct candidate *c, int n)
{
    struct candidate **order = malloc((n > 0 ? (size_t)n : 1) * sizeof *order);
    if (!order)
        abort();
    for (int i = 0; i < n; i++)
        order[i] = &c[i];
    qsort(order, (size_t)n, sizeof *order, candidate_order);
    for (int i = 0; i + 1 < n; i++) {
        struct candidate *old = order[i], *next = order[i + 1];
        if (old->audit != next->audit || strcmp(old->host, next->host))
            continue;
        struct candidate *newest = next;
        for (int k = i + 2; k < n && order[k]->audit == old->audit && !strcmp(order[k]->host, old->host); k++)
            newest = order[k];
        old->left_out = true;
        char at_old[32], at_new[32];
        time_text(old->when, at_old, sizeof at_old);
        time_text(newest->when, at_new, sizeof at_new);
        fleet_note(f,
                   old->audit ? _("%s: left out: an older audit of host %s (%s%s) than %s (%s%s)")
                              : _("%s: left out: an older bench document of host %s (%s%s) than %s (%s%s)"),
                   old->file, old->host, at_old, old->dated ? "" : _(", file time"), newest->file, at_new,
                   newest->dated ? "" : _(", file time"));
    }
    free(order);
}

/* The first FAIL that one side has and the other lacks: `older` (interned keys, any order) against
 * the node's sorted findings. NULL when they agree. */
static const char *first_fail_differing(const struct fleet_node *n, const char **older, int nolder)
{
    for (int i = 0; i < nolder; i++)
        if (!strncmp(older[i], "fail ", 5) && !fleet_node_has_finding(n, older[i]))
            return older[i];
    for (int i = 0; i < n->nfindings; i++) {
        if (strncmp(n->findings[i], "fail ", 5))
            continue;
        bool held = false;
        for (int k = 0; k < nolder && !held; k++)
            held = older[k] == n->findings[i];
        if (!held)
            return n->findings[i];
    }
    return NULL;
}

/* An older audit of a host that was left out still counts where it disagrees with the newest on a
 * FAIL: a fault that one run saw and the next did not is not cleared by the later file alone. */
static int check_left_out_audit(struct fleet *f, const struct candidate *c, char *why, size_t why_size)
{
    if (c->taken.unread) {
        snprintf(why, why_size, "%s", c->taken.unread);
        return -1;
    }
    struct fleet_node *n = node_for(f, c->host);
    struct fleet_node older = {0};
    add_findings(&older, c->taken.findings, c->taken.nfindings);
    const char *differing = first_fail_differing(n, older.findings, older.nfindings);
    if (differing && !n->disagreeing_fail) {
        n->disagreeing_fail = differing;
        if (!(n->disagreeing_file = strdup(c->file)))
            abort();
        fleet_note(f, _("%s: an older audit of host %s disagrees with the newest on a FAIL (%s): the host is odd"),
                   c->file, c->host, differing);
    }
    free(older.findings);
    free(older.findings_sorted);
    return 0;
}

/* Every *.json of a directory: what is not a gpuvet document is skipped, and of several documents
 * of one host and kind only the newest is added (each with a note). */
static int add_directory(struct fleet *f, const char *path, char *why, size_t why_size)
{
    struct dirent **entries;
    int n = scandir(path, &entries, json_name, alphasort);
    if (n < 0) {
        snprintf(why, why_size, "%s: %s", path, i18n_error_text(errno));
        return -1;
    }
    struct candidate *c = calloc(n > 0 ? (size_t)n : 1, sizeof *c);
    if (!c)
        abort();
    int rc = 0, count = 0;
    for (int i = 0; i < n; i++) {
        int got = 0;
        if (rc == 0) {
            if (asprintf(&c[count].file, "%s/%s", path, entries[i]->d_name) < 0)
                abort();
            got = candidate_read(f, &c[count], why, why_size);
            if (got <= 0) {
                free(c[count].file);
                taken_free(&c[count].taken);
                memset(&c[count], 0, sizeof c[count]);
            }
        }
        if (got < 0)
            rc = -1;
        count += got > 0;
        free(entries[i]);
    }
    free(entries);
    candidates_pick(f, c, count);
    for (int i = 0; i < count; i++) {
        if (rc != 0 || c[i].left_out)
            continue;
        if (c[i].taken.unread) {
            snprintf(why, why_size, "%s", c[i].taken.unread);
            rc = -1;
        } else {
            rc = add_taken(f, &c[i].taken, c[i].audit, c[i].host, c[i].file, why, why_size);
        }
    }
    for (int i = 0; i < count; i++) {
        if (rc == 0 && c[i].left_out && c[i].audit)
            rc = check_left_out_audit(f, &c[i], why, why_size);
        free(c[i].file);
        free(c[i].host);
        taken_free(&c[i].taken);
    }
    free(c);
    if (rc == 0 && count == 0) {
        snprintf(why, why_size, _("%s: no gpuvet audit or bench documents (*.json) in this directory"), path);
        rc = -1;
    }
    return rc;
}

int fleet_add_path(struct fleet *f, const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "%s: %s", path, i18n_error_text(errno));
        return -1;
    }
    return S_ISDIR(st.st_mode) ? add_directory(f, path, why, why_size) : add_file(f, path, why, why_size);
}

char *fleet_items_missing(const char *a, const char *b)
{
    struct strbuf out = {0};
    size_t blen = strlen(b);
    for (const char *item = a; *item;) {
        const char *end = strchr(item, '\n');
        size_t n = end ? (size_t)(end - item) : strlen(item);
        bool found = false;
        for (const char *p = b; p && p < b + blen;) {
            const char *e = strchr(p, '\n');
            size_t m = e ? (size_t)(e - p) : strlen(p);
            if (m == n && !memcmp(p, item, n)) {
                found = true;
                break;
            }
            p = e ? e + 1 : NULL;
        }
        if (!found)
            sb_printf(&out, "%s%.*s", out.len ? "\n" : "", (int)n, item);
        item += n + (end ? 1 : 0);
    }
    return out.s;
}

int fleet_node_differences(const struct fleet_node *a, const struct fleet_node *b)
{
    int n = 0;
    for (int k = 0; k < FLEET_NFIELDS; k++)
        if (a->field[k] || b->field[k])
            n += !a->field[k] || !b->field[k] || strcmp(a->field[k], b->field[k]) != 0;
    return n;
}
