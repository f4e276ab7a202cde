/* The verdict per workload: FAIL, WARN, INCONCLUSIVE or PASS, and the coverage behind it. */
#include "rules/verdict.h"
#include "util/i18n.h"

#include <stdlib.h>
#include <string.h>

#define BIT(w) (1u << (w))
#define GPU_WORKLOADS (BIT(WL_GENERAL) | BIT(WL_CV_TRAIN) | BIT(WL_LLM_TRAIN) | BIT(WL_LLM_INFER) | BIT(WL_RENDER))
#define ALL_WORKLOADS (GPU_WORKLOADS | BIT(WL_HPC))

/* Where a fact can come from: the machine itself (live, or a recorded tree), or the evidence
 * files an offline audit is given. */
enum holder {
    FROM_MACHINE = 1,  /* /sys and /proc: live or a `gpuvet snapshot` tree */
    FROM_SMBIOS = 2,   /* --dmidecode, --dmi-table */
    FROM_NVIDIA = 4,   /* --nvidia-smi */
    FROM_BENCH = 8,    /* --bench */
    FROM_KERNEL_LOG = 16, /* --kernel-log */
    FROM_ANY = 31,
};

struct fact_rule {
    const char *rule_id;
    const char *fact;
    unsigned holders;
    unsigned key;      /* workloads whose verdict needs the fact */
    const char *why;   /* why it is key (NULL when it is key for none) */
};

/* Which rules establish which fact, and for which workloads a fact is key. The choice: a fact is
 * key when a workload's fail-level problem could hide behind it, and when a well-run machine of
 * that kind can show it (so the verdict is not INCONCLUSIVE by design). Measurements (bench),
 * history (EDAC counters, CPU use sampled now), software on top (CUDA runtime, kernel settings)
 * and what the renter chooses (dataset disk, binding) are reported but not key. */
static const struct fact_rule facts[] = {
    {"PCIE_LINK_DEGRADED", N_("PCIe links"), FROM_MACHINE | FROM_NVIDIA, GPU_WORKLOADS,
     N_("a GPU at x8 delivers half the host<->device bandwidth it was sold with")},
    {"PCIE_SLOT_CAPPED", N_("PCIe links"), FROM_MACHINE, 0, NULL},
    {"PCIE_UPLINK_SHARED", N_("PCIe switches"), FROM_MACHINE, 0, NULL},
    {"PCIE_BANDWIDTH_LOW", N_("measured PCIe bandwidth"), FROM_BENCH, 0, NULL},
    {"GPU_MEMORY_BW_LOW", N_("measured GPU memory bandwidth"), FROM_BENCH, 0, NULL},
    {"GPU_COMPUTE_LOW", N_("measured GPU compute"), FROM_BENCH, 0, NULL},
    {"GPU_MEMORY_ERRORS", N_("GPU memory test"), FROM_BENCH, 0, NULL},
    {"GPU_BURN_FAILED", N_("GPU burn-in"), FROM_BENCH, 0, NULL},
    {"GPU_P2P_LOW", N_("measured GPU-to-GPU copies"), FROM_BENCH, 0, NULL},
    {"GPU_NCCL_LOW", N_("measured GPU all-reduce"), FROM_BENCH, 0, NULL},
    {"GPU_ECC_OFF", N_("GPU ECC"), FROM_MACHINE | FROM_NVIDIA, BIT(WL_LLM_TRAIN) | BIT(WL_HPC),
     N_("a flipped bit silently corrupts a weeks-long run")},
    {"GPU_RETIRED_PAGES", N_("GPU memory health"), FROM_MACHINE | FROM_NVIDIA, 0, NULL},
    {"GPU_THROTTLE", N_("GPU clocks"), FROM_MACHINE | FROM_NVIDIA, GPU_WORKLOADS,
     N_("a GPU slowed by heat or power delivers a fraction of what is paid for")},
    {"GPU_DRIVER_CUDA", N_("CUDA runtime"), FROM_MACHINE, 0, NULL},
    {"GPU_PERSISTENCE_OFF", N_("GPU settings"), FROM_MACHINE | FROM_NVIDIA, 0, NULL},
    {"GPU_MIG_ON", N_("GPU settings"), FROM_MACHINE | FROM_NVIDIA, 0, NULL},
    {"GPU_NVLINK_DOWN", N_("NVLink"), FROM_MACHINE, BIT(WL_LLM_TRAIN),
     N_("tensor and pipeline parallel training lives on the GPU-to-GPU links")},
    {"GPU_P2P_CROSS_SOCKET", N_("GPU peer paths"), FROM_MACHINE, 0, NULL},
    {"GPU_NVLINK_ERRORS", N_("NVLink"), FROM_MACHINE, 0, NULL},
    {"GPU_FABRIC_NOT_READY", N_("NVSwitch fabric"), FROM_MACHINE | FROM_NVIDIA, 0, NULL},
    {"PCIE_AER_ERRORS", N_("PCIe error counters"), FROM_MACHINE | FROM_NVIDIA, 0, NULL},
    {"NET_IB_ERRORS", N_("network error counters"), FROM_MACHINE, 0, NULL},
    {"NET_GPUDIRECT", N_("network"), FROM_MACHINE, 0, NULL},
    {"GPU_XID_ERRORS", N_("kernel log"), FROM_MACHINE | FROM_KERNEL_LOG, 0, NULL},
    {"GPU_LOST", N_("GPU count"), FROM_ANY, 0, NULL},
    {"NUMA_GPU_NODE_NO_MEMORY", N_("GPU NUMA placement"), FROM_MACHINE, GPU_WORKLOADS,
     N_("a GPU whose node has no memory or CPUs is fed across the socket interconnect")},
    {"NUMA_GPU_NODE_NO_CPUS", N_("GPU NUMA placement"), FROM_MACHINE, GPU_WORKLOADS,
     N_("the process feeding a GPU should run on the GPU's node")},
    {"NUMA_AFFINITY_UNKNOWN", N_("GPU NUMA placement"), FROM_MACHINE, 0, NULL},
    {"NUMA_MEMORY_IMBALANCE", N_("NUMA memory"), FROM_MACHINE, 0, NULL},
    {"NUMA_BINDING", N_("GPU NUMA placement"), FROM_MACHINE, 0, NULL},
    {"CPU_GOVERNOR", N_("CPU clocks"), FROM_MACHINE, 0, NULL},
    {"CPU_CORES_PER_GPU", N_("CPU cores per GPU"), FROM_MACHINE | FROM_SMBIOS,
     BIT(WL_CV_TRAIN) | BIT(WL_LLM_TRAIN) | BIT(WL_LLM_INFER),
     N_("the data loader and the process driving each GPU need physical cores beside it")},
    {"CPU_FREQ_LOW", N_("CPU clocks"), FROM_MACHINE | FROM_SMBIOS, 0, NULL},
    {"STORAGE_SLOW_DATA", N_("dataset storage"), FROM_MACHINE, 0, NULL},
    {"NET_MULTINODE", N_("network"), FROM_MACHINE, ALL_WORKLOADS,
     N_("asked for with --nodes: a multi-node job is only as fast as its network")},
    {"CLAIM_MISMATCH", N_("claimed spec"), FROM_ANY, 0, NULL},
    {"MEM_CHANNELS_UNDERPOPULATED", N_("DIMMs"), FROM_SMBIOS | FROM_MACHINE, BIT(WL_CV_TRAIN) | BIT(WL_HPC),
     N_("empty memory channels cut the host memory bandwidth that decoding and stencils live on")},
    {"MEM_DIMMS_MIXED", N_("DIMMs"), FROM_SMBIOS | FROM_MACHINE, 0, NULL},
    {"MEM_SPEED_DOWNCLOCKED", N_("DIMMs"), FROM_SMBIOS | FROM_MACHINE, 0, NULL},
    {"MEM_BANDWIDTH_LOW", N_("measured memory bandwidth"), FROM_BENCH, 0, NULL},
    {"MEM_ECC_DISABLED", N_("memory ECC"), FROM_SMBIOS | FROM_MACHINE, BIT(WL_LLM_TRAIN) | BIT(WL_HPC),
     N_("a flipped bit in host memory silently corrupts a checkpoint or a simulation step")},
    {"MEM_ECC_ERRORS", N_("memory error counters"), FROM_MACHINE, 0, NULL},
    {"CPU_CONTENTION", N_("CPU use"), FROM_MACHINE, 0, NULL},
    {"CPU_STEAL", N_("CPU use"), FROM_MACHINE, 0, NULL},
    {"CPU_THROTTLE", N_("CPU use"), FROM_MACHINE, 0, NULL},
    {"POWER_SUPPLY", N_("power supplies"), FROM_SMBIOS | FROM_MACHINE, 0, NULL},
    {"KERNEL_THP", N_("kernel settings"), FROM_MACHINE, 0, NULL},
    {"KERNEL_SWAP", N_("kernel settings"), FROM_MACHINE, 0, NULL},
    {"KERNEL_NUMA_BALANCING", N_("kernel settings"), FROM_MACHINE, 0, NULL},
    {"KERNEL_ISOLCPUS", N_("kernel settings"), FROM_MACHINE, 0, NULL},
    {"VIRT_LIMITS", N_("virtualization"), FROM_MACHINE | FROM_SMBIOS, 0, NULL},
};

/* Facts of the machine model that no single rule reports but every verdict of a workload needs. */
static const char ACCELERATORS[] = N_("accelerators"), CPU[] = N_("CPU");
static const char ACCELERATORS_WHY[] = N_("a GPU workload judged without seeing a GPU has judged nothing that matters"),
                  CPU_WHY[] = N_("cores and clocks run the job and feed its GPUs");

static const char *const names[] = {
    [VERDICT_PASS] = "pass", [VERDICT_INCONCLUSIVE] = "inconclusive", [VERDICT_WARN] = "warn", [VERDICT_FAIL] = "fail"};

const char *verdict_name(enum verdict v) { return v <= VERDICT_FAIL ? names[v] : "?"; }

static const struct fact_rule *fact_of(const struct rule *r)
{
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
        if (!strcmp(facts[i].rule_id, r->id))
            return &facts[i];
    return NULL;
}

/* The holders an evidence-file audit was given; every holder for a live or recorded machine. */
static unsigned holders_given(const struct machine *m)
{
    if (!machine_from_evidence(m))
        return FROM_ANY;
    unsigned given = 0;
    if (m->memory.source)
        given |= FROM_SMBIOS;
    if (gpu_set_from_nvidia_smi(&m->gpus))
        given |= FROM_NVIDIA;
    if (m->bench.loaded)
        given |= FROM_BENCH;
    if (m->kernel_log.read)
        given |= FROM_KERNEL_LOG;
    return given;
}

bool finding_outside_evidence(const struct machine *m, const struct finding *f)
{
    if (f->severity != SEV_UNKNOWN || !machine_from_evidence(m))
        return false;
    const struct fact_rule *fr = fact_of(f->rule);
    /* A rule the table does not know is never hidden: unknown stays visible. */
    if (!fr)
        return false;
    /* PCIE_LINK_DEGRADED's "machine" finding is the sysfs half: nvidia-smi judges the GPUs apart. */
    unsigned holders = fr->holders;
    if (!strcmp(fr->rule_id, "PCIE_LINK_DEGRADED") && !strcmp(f->subject, "machine"))
        holders = FROM_MACHINE;
    return (holders & holders_given(m)) == 0;
}

static struct coverage_gap *gap_for(struct workload_verdict *v, const char *fact)
{
    for (int i = 0; i < v->ngaps; i++)
        if (v->gaps[i].fact == fact || !strcmp(v->gaps[i].fact, fact))
            return &v->gaps[i];
    struct coverage_gap *grown = realloc(v->gaps, (size_t)(v->ngaps + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    v->gaps = grown;
    struct coverage_gap *g = &v->gaps[v->ngaps++];
    *g = (struct coverage_gap){.fact = fact};
    return g;
}

static void add_gap(struct workload_verdict *v, const char *fact, const char *reason, const char *reason_local,
                    bool key, bool outside)
{
    struct coverage_gap *g = gap_for(v, fact);
    if (!g)
        return;
    if (!g->reason && reason) {
        g->reason = strdup(reason);
        g->reason_local = reason_local ? strdup(reason_local) : NULL;
    }
    g->checks++;
    g->key |= key;
    /* A fact is outside the evidence only when every unknown check of it is. */
    g->outside_evidence = g->checks == 1 ? outside : g->outside_evidence && outside;
}

/* The model facts: a key fact known counts as one check passed, unknown as one gap. */
static void judge_model_facts(struct workload_verdict *v, const struct machine *m, enum workload w)
{
    bool evidence = machine_from_evidence(m);
    unsigned given = holders_given(m);
    if (BIT(w) & GPU_WORKLOADS) {
        v->applicable++;
        if (machine_accelerator_count(m) > 0 || m->gpus.count > 0) {
            v->checked++;
        } else {
            const char *why = !m->pci_scanned ? (evidence ? N_("no PCI devices or GPUs in the evidence files")
                                                          : N_("the PCI bus could not be read"))
                              : m->virt.vm    ? N_("none on the PCI bus (a VM without a GPU passed through)")
                                              : N_("none on the PCI bus");
            add_gap(v, ACCELERATORS, why, NULL, true, evidence && !(given & FROM_NVIDIA));
        }
    }
    v->applicable++;
    if (m->cpu.cores > 0)
        v->checked++;
    else
        add_gap(v, CPU, evidence ? N_("the CPU is not in the evidence files") : N_("the number of cores could not be read"),
                NULL, true, evidence && !(given & FROM_SMBIOS));
}

/* Whether an unknown finding leaves a key fact unknown. PCIe links are key for the accelerators'
 * links: a virtual NIC without link attributes, or NICs missing from an nvidia-smi file that reports
 * every GPU's link, do not make a GPU verdict inconclusive. */
static bool is_key(const struct fact_rule *fr, const struct finding *f, const struct machine *m, enum workload w)
{
    if (!(fr->key & BIT(w)))
        return false;
    if (strcmp(fr->rule_id, "PCIE_LINK_DEGRADED") != 0)
        return true;
    /* The bus unread: the GPUs' links are still known when an NVIDIA source reported them. */
    if (!strcmp(f->subject, "machine"))
        return m->gpus.count == 0;
    for (int i = 0; i < m->npci; i++)
        if (!strcmp(m->pci[i].bus_id, f->subject))
            return m->pci[i].role == PCI_ROLE_ACCELERATOR;
    return true; /* a subject the bus does not list: an NVIDIA GPU's own view */
}

static int gap_order(const void *a, const void *b)
{
    const struct coverage_gap *x = a, *y = b;
    return (int)y->key - (int)x->key;
}

void verdict_judge(struct workload_verdict *out, const struct machine *m, enum workload w, const struct findings *f)
{
    *out = (struct workload_verdict){.workload = w};
    judge_model_facts(out, m, w);
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        out->applicable++;
        out->fails += it->severity == SEV_FAIL;
        out->warns += it->severity == SEV_WARN;
        if (it->severity != SEV_UNKNOWN) {
            out->checked++;
            continue;
        }
        const struct fact_rule *fr = fact_of(it->rule);
        bool outside = finding_outside_evidence(m, it);
        out->outside_evidence += outside;
        add_gap(out, fr ? fr->fact : it->rule->id, it->message, it->message_local, fr && is_key(fr, it, m, w), outside);
    }
    /* Stable enough: qsort is not stable, so order by key only and keep table order otherwise. */
    for (int i = 1; i < out->ngaps; i++)
        for (int k = i; k > 0 && gap_order(&out->gaps[k - 1], &out->gaps[k]) > 0; k--) {
            struct coverage_gap t = out->gaps[k];
            out->gaps[k] = out->gaps[k - 1];
            out->gaps[k - 1] = t;
        }
    bool key_gap = out->ngaps > 0 && out->gaps[0].key;
    out->verdict = out->fails   ? VERDICT_FAIL
                   : out->warns ? VERDICT_WARN
                   : key_gap    ? VERDICT_INCONCLUSIVE
                                : VERDICT_PASS;
}

void workload_verdict_free(struct workload_verdict *v)
{
    for (int i = 0; i < v->ngaps; i++) {
        free(v->gaps[i].reason);
        free(v->gaps[i].reason_local);
    }
    free(v->gaps);
    v->gaps = NULL;
    v->ngaps = 0;
}

/* Facts and model reasons are English constants (N_ in this file), translated where printed. */
const char *gap_fact_text(const struct coverage_gap *g) { return _(g->fact); }
const char *gap_reason_text(const struct coverage_gap *g)
{
    return g->reason_local ? g->reason_local : g->reason ? _(g->reason) : _("unknown");
}

void verdict_set_build(struct verdict_set *set, const struct machine *m, const struct audit_inputs *inputs)
{
    memset(set, 0, sizeof *set);
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        rules_run(m, (enum workload)w, inputs, &set->findings[w]);
        verdict_judge(&set->verdicts[w], m, (enum workload)w, &set->findings[w]);
    }
}

void verdict_set_free(struct verdict_set *set)
{
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        findings_free(&set->findings[w]);
        workload_verdict_free(&set->verdicts[w]);
    }
}

void verdict_describe_key_facts(FILE *out, enum workload w)
{
    if (w >= WORKLOAD_COUNT)
        return;
    if (BIT(w) & GPU_WORKLOADS)
        fprintf(out, _("  %s (seen on the PCI bus or by the NVIDIA driver)\n      %s\n"), _(ACCELERATORS),
                _(ACCELERATORS_WHY));
    fprintf(out, _("  %s (its cores known)\n      %s\n"), _(CPU), _(CPU_WHY));
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        if (!(facts[i].key & BIT(w)))
            continue;
        bool shown = false;
        for (size_t k = 0; k < i; k++)
            shown |= (facts[k].key & BIT(w)) && !strcmp(facts[k].fact, facts[i].fact);
        if (shown)
            continue;
        fprintf(out, "  %s (", _(facts[i].fact));
        bool first = true;
        for (size_t k = i; k < sizeof facts / sizeof facts[0]; k++)
            if ((facts[k].key & BIT(w)) && !strcmp(facts[k].fact, facts[i].fact)) {
                fprintf(out, "%s%s", first ? "" : ", ", facts[k].rule_id);
                first = false;
            }
        fprintf(out, ")\n      %s\n", _(facts[i].why));
    }
}
