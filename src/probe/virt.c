/* Is this a VM or a container, and which? The answer decides which facts can be trusted:
 * a VM's PCIe ports, NUMA layout and ECC claims come from the hypervisor (SPEC: VIRT_LIMITS). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "probe/probe.h"
#include "util/fsrecord.h"
#include "util/fsroot.h"
#include "util/i18n.h"

struct signature {
    const char *needle;
    const char *name;
};

/* DMI vendor/product strings of hypervisors (as systemd-detect-virt matches them). */
static const struct signature dmi_vms[] = {
    {"KVM", "kvm"},           {"OpenStack", "kvm"},    {"QEMU", "qemu"},       {"VMware", "vmware"},
    {"VMW", "vmware"},        {"innotek GmbH", "oracle"}, {"VirtualBox", "oracle"}, {"Xen", "xen"},
    {"Bochs", "bochs"},       {"Parallels", "parallels"}, {"BHYVE", "bhyve"},    {"Amazon EC2", "amazon"},
    {"Google Compute Engine", "google"}, {"Alibaba Cloud ECS", "alibaba"}, {"Virtual Machine", "microsoft"},
};

const char *virt_hypervisor_named_by(const char *dmi_text)
{
    for (size_t i = 0; dmi_text && i < sizeof dmi_vms / sizeof dmi_vms[0]; i++)
        if (strstr(dmi_text, dmi_vms[i].needle))
            return dmi_vms[i].name;
    return NULL;
}

/* Joins two observations: "first; second" in the given language. */
static char *join_evidence(const char *first, const char *second, const char *separator)
{
    char *joined;
    if (asprintf(&joined, "%s%s%s", first ? first : "", first ? separator : "", second) < 0)
        return NULL;
    return joined;
}

/* Adds one observation. The model keeps the English list (JSON); the list in the reader's language
 * is kept as its translation, which _() gives where it is printed (util/i18n.h). The arguments are
 * file contents and paths, the same in both languages. */
static void add_evidence(struct virt_info *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_evidence(struct virt_info *v, const char *fmt, ...)
{
    char *piece, *local_piece;
    va_list ap;
    va_start(ap, fmt);
    i18n_vformat_pair(&piece, &local_piece, fmt, ap);
    va_end(ap);
    if (!piece) {
        free(local_piece);
        return;
    }
    char *joined = join_evidence(v->evidence, piece, "; ");
    if (joined && local_piece) {
        /* TRANSLATORS: the separator between two observations of the virtualization evidence. */
        i18n_keep_translation(joined, join_evidence(v->evidence ? _(v->evidence) : NULL, local_piece, _("; ")));
    }
    if (joined) {
        free(v->evidence);
        v->evidence = joined;
    }
    free(piece);
    free(local_piece);
}

static void detect_dmi(struct virt_info *v)
{
    static const char *const files[] = {"/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name",
                                        "/sys/class/dmi/id/board_vendor", "/sys/class/dmi/id/bios_vendor"};
    for (size_t f = 0; f < sizeof files / sizeof files[0] && !v->hypervisor; f++) {
        char *text = fs_read(files[f]);
        for (size_t i = 0; text && i < sizeof dmi_vms / sizeof dmi_vms[0]; i++)
            if (strstr(text, dmi_vms[i].needle)) {
                v->vm = true;
                v->hypervisor = strdup(dmi_vms[i].name);
                add_evidence(v, "DMI says \"%s\"", text);
                break;
            }
        free(text);
    }
}

/* A snapshot keeps the CPUID leaf here, since it is no file of the recorded machine. */
#define RECORDED_CPUID_SIGNATURE "/gpuvet/cpuid-hypervisor"

/* The hypervisor's CPUID leaf 0x40000000 signature. Read live only: in a replay it would describe
 * the host, so a replay reads what the snapshot recorded. */
static char *cpuid_signature(void)
{
    if (!fsroot_is_live())
        return fs_read(RECORDED_CPUID_SIGNATURE);
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    for (int i = 11; i >= 0 && sig[i] == ' '; i--)
        sig[i] = '\0';
    fs_record_text(RECORDED_CPUID_SIGNATURE, sig);
    return strdup(sig);
#else
    return NULL;
#endif
}

static void detect_cpuid(struct virt_info *v)
{
    static const struct signature ids[] = {
        {"KVMKVMKVM", "kvm"}, {"Microsoft Hv", "microsoft"}, {"VMwareVMware", "vmware"},
        {"XenVMMXenVMM", "xen"}, {"TCGTCGTCGTCG", "qemu"}, {"ACRNACRNACRN", "acrn"},
        {"bhyve bhyve", "bhyve"}, {"lrpepyh  vr", "parallels"}, {"QNXQVMBSQG", "qnx"},
    };
    char *sig = cpuid_signature();
    for (size_t i = 0; sig && i < sizeof ids / sizeof ids[0]; i++)
        if (!strncmp(sig, ids[i].needle, strlen(ids[i].needle)) ||
            (sig[0] == ' ' && !strncmp(sig + 1, ids[i].needle, strlen(ids[i].needle)))) {
            v->hypervisor = strdup(ids[i].name);
            add_evidence(v, "CPUID hypervisor leaf \"%s\"", sig);
            break;
        }
    free(sig);
}

static void detect_container(struct virt_info *v)
{
    static const struct signature cgroup_marks[] = {
        {"/kubepods", "kubernetes"}, {"/docker", "docker"}, {"/libpod", "podman"}, {"/lxc", "lxc"},
        {"/machine.slice/", "systemd-nspawn"},
    };
    char *kind = fs_read("/run/systemd/container");
    if (kind) {
        v->container_kind = kind;
        add_evidence(v, "/run/systemd/container says %s", kind);
    } else if (fs_exists("/run/.containerenv")) {
        v->container_kind = strdup("podman");
        add_evidence(v, "%s exists", "/run/.containerenv");
    } else if (fs_exists("/.dockerenv")) {
        v->container_kind = strdup("docker");
        add_evidence(v, "%s exists", "/.dockerenv");
    } else {
        char *cgroup = fs_read("/proc/1/cgroup");
        for (size_t i = 0; cgroup && i < sizeof cgroup_marks / sizeof cgroup_marks[0]; i++)
            if (strstr(cgroup, cgroup_marks[i].needle)) {
                v->container_kind = strdup(cgroup_marks[i].name);
                add_evidence(v, "/proc/1/cgroup names %s", cgroup_marks[i].needle);
                break;
            }
        free(cgroup);
    }
    v->container = v->container_kind != NULL;
}

void probe_virt(struct machine *m)
{
    struct virt_info *v = &m->virt;
    bool x86 = m->cpu.flags_known && m->cpu.arch && !strncmp(m->cpu.arch, "x86", 3);
    if (m->cpu.hypervisor_flag) {
        v->vm = true;
        add_evidence(v, "the CPU flags include \"%s\"", "hypervisor");
    }
    char *xen = fs_read("/sys/hypervisor/type");
    if (xen) {
        v->vm = true;
        v->hypervisor = xen;
        add_evidence(v, "/sys/hypervisor/type says %s", xen);
    }
    if (!v->hypervisor)
        detect_dmi(v);
    if (v->vm && !v->hypervisor)
        detect_cpuid(v);
    detect_container(v);
    /* Bare metal is a conclusion only where the CPU would say otherwise (x86's flag); elsewhere
     * it rests on DMI alone, and the evidence says so. */
    v->known = v->vm || x86 || fs_exists("/sys/class/dmi/id/sys_vendor");
    if (!v->vm && x86)
        add_evidence(v, "no hypervisor flag in /proc/cpuinfo, no hypervisor in DMI");
    else if (!v->vm && !x86)
        add_evidence(v, "no hypervisor named by DMI or /sys/hypervisor (this CPU has no hypervisor flag)");
}

/* Each mode once, however many GPUs share it. */
static void add_gpu_evidence(struct virt_info *v, const char *source, const char *mode, bool hosts)
{
    char piece[128];
    snprintf(piece, sizeof piece, "%s: %s%s", source, mode, hosts ? " (this machine hosts the GPU's guests)" : "");
    if (v->evidence && strstr(v->evidence, piece))
        return;
    if (hosts)
        /* TRANSLATORS: where the GPU's virtualization mode was read (nvml, nvidia-smi), then the mode. */
        add_evidence(v, "%s: %s (this machine hosts the GPU's guests)", source, mode);
    else
        add_evidence(v, "%s: %s", source, mode);
}

void virt_from_gpus(struct machine *m, const char *source)
{
    struct virt_info *v = &m->virt;
    for (int i = 0; i < m->gpus.count; i++) {
        const char *mode = m->gpus.items[i].virtualization_mode;
        /* A guest's driver sees its GPU as passed through or as a vGPU slice, even where the
         * hypervisor hides itself from the CPU flags (as it often does for passed-through GPUs). */
        if (gpu_virtualization_in_guest(mode)) {
            v->known = v->vm = true;
            add_gpu_evidence(v, source, mode, false);
        } else if (gpu_virtualization_on_host(mode)) {
            add_gpu_evidence(v, source, mode, true);
        }
    }
}
