#include "model/machine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/i18n.h"
#include "util/parse.h"

void machine_init(struct machine *m)
{
    memset(m, 0, sizeof *m);
    m->cpu.family = m->cpu.model_number = -1;
    m->kernel.swap_total_bytes = -1;
    m->kernel.mem_total_bytes = -1;
    m->kernel.swappiness = -1;
    m->kernel.numa_balancing = -1;
    gpu_set_init(&m->gpus);

    memory_info_init(&m->memory);
    contention_info_init(&m->contention);
    fault_info_init(&m->faults);
}

static void cpu_free(struct cpu_info *c)
{
    free(c->vendor);
    free(c->model);
    free(c->arch);
    free(c->usable_cpus);
}

static void kernel_free(struct kernel_info *k)
{
    free(k->release);
    free(k->thp_enabled);
    free(k->thp_defrag);
    free(k->isolated_cpus);
    free(k->nohz_full);
    free(k->governor);
    free(k->cmdline);
}

void machine_free(struct machine *m)
{
    free(m->hostname);
    free(m->source);
    cpu_free(&m->cpu);
    for (int i = 0; i < m->nnodes; i++) {
        hwloc_bitmap_free(m->nodes[i].cpus);
        free(m->nodes[i].distances);
    }
    free(m->nodes);
    for (int i = 0; i < m->npci; i++) {
        struct pci_device *d = &m->pci[i];
        free(d->vendor_name);
        free(d->device_name);
        free(d->driver);
        free(d->missing);
        hwloc_bitmap_free(d->local_cpus);
        free(d->path);
    }
    free(m->pci);
    kernel_free(&m->kernel);
    free(m->virt.hypervisor);
    free(m->virt.container_kind);
    free(m->virt.evidence);
    storage_free(&m->storage);
    network_free(&m->network);
    gpu_set_free(&m->gpus);

    memory_info_free(&m->memory);
    power_info_free(&m->power);
    contention_info_free(&m->contention);
    fault_info_free(&m->faults);
    kernel_log_free(&m->kernel_log);
    for (int i = 0; i < m->nproblems; i++) {
        free(m->problems[i].path);
        free(m->problems[i].message);
        free(m->problems[i].message_local);
    }
    free(m->problems);
    bench_results_free(&m->bench);
    if (m->topology)
        hwloc_topology_destroy(m->topology);
    memset(m, 0, sizeof *m);
}

/* Takes message and local (may be NULL: the English one is shown). */
static void add_problem(struct machine *m, const char *path, char *message, char *local)
{
    struct input_problem *grown = realloc(m->problems, (size_t)(m->nproblems + 1) * sizeof *grown);
    if (!grown) {
        free(message);
        free(local);
        return;
    }
    m->problems = grown;
    m->problems[m->nproblems].path = strdup(path);
    m->problems[m->nproblems].message = message;
    m->problems[m->nproblems].message_local = local;
    m->nproblems++;
}

/* NULL when the translation says nothing new (English chosen, or no translation). */
static char *local_copy(const char *english, const char *local)
{
    return english && local && strcmp(english, local) ? strdup(local) : NULL;
}

void machine_problem(struct machine *m, const char *path, const char *fmt, ...)
{
    char *msg, *local;
    va_list ap;
    va_start(ap, fmt);
    i18n_vformat_pair(&msg, &local, fmt, ap);
    va_end(ap);
    if (local && !strcmp(local, msg)) {
        free(local);
        local = NULL;
    }
    add_problem(m, path, msg, local);
}

void machine_problem_reason(struct machine *m, const char *path, const char *reason)
{
    add_problem(m, path, strdup(reason), local_copy(reason, _(reason)));
}

void machine_problem_copy(struct machine *m, const struct input_problem *p)
{
    add_problem(m, p->path ? p->path : "?", strdup(p->message ? p->message : "(no message: out of memory)"),
                p->message_local ? strdup(p->message_local) : NULL);
}

void machine_problem_missing(struct machine *m, const char *path, const char *reason, const char *what)
{
    char *msg = NULL, *local = NULL;
    if (asprintf(&msg, "%s: %s", reason, what) < 0)
        msg = NULL;
    /* TRANSLATORS: why a file is missing, then what is unknown because of it. */
    if (msg && i18n_translating() && asprintf(&local, _("%s: %s"), _(reason), _(what)) < 0)
        local = NULL;
    add_problem(m, path, msg, local);
}

const char *machine_problem_text(const struct input_problem *p)
{
    return p->message_local ? p->message_local : p->message ? p->message : "";
}

bool machine_from_evidence(const struct machine *m) { return m->source && !strcmp(m->source, "evidence"); }
bool machine_is_live(const struct machine *m) { return m->source && !strcmp(m->source, "live"); }
bool machine_from_sysroot(const struct machine *m) { return m->source && !strncmp(m->source, "sysroot:", 8); }

const struct numa_node *machine_node(const struct machine *m, int id)
{
    for (int i = 0; i < m->nnodes; i++)
        if (m->nodes[i].id == id)
            return &m->nodes[i];
    return NULL;
}

int machine_cpu_node_count(const struct machine *m)
{
    int n = 0;
    for (int i = 0; i < m->nnodes; i++)
        if (!hwloc_bitmap_iszero(m->nodes[i].cpus))
            n++;
    return n;
}

int machine_accelerator_count(const struct machine *m)
{
    int n = 0;
    for (int i = 0; i < m->npci; i++)
        n += m->pci[i].role == PCI_ROLE_ACCELERATOR;
    return n;
}

const char *pci_role_name(enum pci_role role)
{
    switch (role) {
    case PCI_ROLE_ACCELERATOR: return "accelerator";
    case PCI_ROLE_NIC: return "nic";
    case PCI_ROLE_NVME: return "nvme";
    }
    return "?";
}

bool pci_class_is_accelerator(unsigned class_id)
{
    unsigned base = class_id >> 16, sub = (class_id >> 8) & 0xff;
    return base == 0x03 || base == 0x12 || (base == 0x0b && sub == 0x40);
}

bool pci_class_is_bridge(unsigned class_id) { return (class_id >> 8) == 0x0604 || (class_id >> 8) == 0x0609; }

double pci_link_gb_s(double gt_s, int width) { return pcie_lane_gb_s(gt_s) * width; }
