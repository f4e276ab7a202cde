#include "sizing/balance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/machine.h"
#include "sizing/demand.h"
#include "sizing/jsonfile.h"
#include "sizing/offers.h"
#include "sizing/plan.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/units.h"

/* Identifiers in JSON; the text report shows them translated. */
static const char *const basis_names[] = {N_("measured"), N_("published"), N_("given"),
                                          N_("estimated"),  N_("unknown"),   N_("not_used")};

const char *balance_basis_name(enum balance_basis b) { return basis_names[b]; }

/* ---- reading the job from the plan document ------------------------------------------------ */

static double num(json_t *obj, const char *key) { return json_number_value(json_object_get(obj, key)); }

static void copy_string(char *dst, size_t len, json_t *value)
{
    snprintf(dst, len, "%s", json_is_string(value) ? json_string_value(value) : "");
}

int balance_job_from_plan(json_t *plan, const struct gpu_spec *gpu, struct balance_job *job, char *err,
                          size_t errlen)
{
    *job = (struct balance_job){.gpu = gpu};
    const char *workload = json_string_value(json_object_get(plan, "workload"));
    if (!gpu || !workload || !workload_parse(workload, &job->workload) ||
        (job->workload != WL_CV_TRAIN && job->workload != WL_LLM_TRAIN)) {
        snprintf(err, errlen, "%s", _("the balance model covers cv-train and llm-train with --gpus"));
        return -1;
    }
    job->gpus_per_node = (int)json_integer_value(json_object_get(json_object_get(plan, "gpu"), "count_per_node"));
    job->nodes = (int)json_integer_value(json_object_get(plan, "nodes"));
    if (job->gpus_per_node < 1 || job->nodes < 1) {
        snprintf(err, errlen, "%s", _("the plan has no GPU count or node count"));
        return -1;
    }
    if (job->workload == WL_CV_TRAIN) {
        json_t *pipe = json_object_get(plan, "pipeline");
        job->images_s_per_gpu = num(pipe, "images_s_per_gpu");
        job->decode_per_core = num(pipe, "images_s_per_core");
        job->image_bytes = num(pipe, "image_bytes");
        copy_string(job->images_s_source, sizeof job->images_s_source, json_object_get(pipe, "images_s_source"));
        copy_string(job->decode_source, sizeof job->decode_source, json_object_get(pipe, "images_s_per_core_source"));
        if (!(job->images_s_per_gpu > 0 && job->decode_per_core > 0 && job->image_bytes > 0)) {
            snprintf(err, errlen, "%s", _("the plan has no image pipeline"));
            return -1;
        }
        return 0;
    }
    json_t *model = json_object_get(plan, "model"), *act = json_object_get(plan, "activations");
    job->params = num(model, "params");
    job->active_params = num(model, "active_params");
    job->layers = (int)json_integer_value(json_object_get(model, "layers"));
    job->attention_width = (int)(json_integer_value(json_object_get(model, "heads")) *
                                 json_integer_value(json_object_get(model, "head_dim")));
    job->vocab = (int)json_integer_value(json_object_get(model, "vocab"));
    job->seq = (int)json_integer_value(json_object_get(act, "seq"));
    job->micro_batch = (int)json_integer_value(json_object_get(act, "micro_batch"));
    const char *recompute = json_string_value(json_object_get(act, "recompute"));
    job->full_recompute = recompute && !strcmp(recompute, "full");
    json_t *zero = json_object_get(plan, "zero");
    job->zero_stage = (int)json_integer_value(json_object_get(zero, "stage"));
    const char *offload = json_string_value(json_object_get(zero, "offload"));
    job->offload_optimizer = offload && strcmp(offload, "none") != 0;
    job->offload_params = offload && (!strcmp(offload, "cpu") || !strcmp(offload, "nvme")) && job->zero_stage == 3;
    job->adapter_params = num(json_object_get(plan, "finetune"), "adapter_params");
    if (!(job->params > 0 && job->active_params > 0)) {
        snprintf(err, errlen, "%s", _("the plan has no model size"));
        return -1;
    }
    return 0;
}

/* ---- bench documents ------------------------------------------------------------------------ */

int balance_measured_load(struct balance_measured *out, const char *const *paths, int npaths, char *err,
                          size_t errlen)
{
    *out = (struct balance_measured){0};
    for (int i = 0; i < npaths; i++) {
        char why[512];
        json_t *doc = json_load_named(paths[i], why, sizeof why);
        if (!doc) {
            snprintf(err, errlen, "--bench %s", why);
            return -1;
        }
        struct bench_results b = {0};
        if (bench_results_from_json(&b, doc, paths[i], why, sizeof why) != 0) {
            snprintf(err, errlen, _("--bench %s: %s"), paths[i], why);
            json_decref(doc);
            return -1;
        }
        json_t *decode = json_object_get(json_object_get(doc, "benchmarks"), "decode");
        json_t *per_core = json_object_get(decode, "images_s_per_core");
        if (decode && !json_object_get(decode, "skipped") && !json_object_get(decode, "error")) {
            if (!json_is_number(per_core) || !(json_number_value(per_core) > 0)) {
                snprintf(err, errlen, _("--bench %s: benchmarks.decode.images_s_per_core is missing or not positive"),
                         paths[i]);
                bench_results_free(&b);
                json_decref(doc);
                return -1;
            }
            out->decode_per_core = json_number_value(per_core);
            snprintf(out->decode_file, sizeof out->decode_file, "%s", paths[i]);
        }
        if (b.mem_triad_bytes_s > 0) {
            out->triad_bytes_s = b.mem_triad_bytes_s;
            snprintf(out->triad_file, sizeof out->triad_file, "%s", paths[i]);
        }
        if (b.storage_seq_read_bytes_s > 0) {
            out->seq_read_bytes_s = b.storage_seq_read_bytes_s;
            out->rand_read_iops = b.storage_rand_read_iops;
            snprintf(out->storage_file, sizeof out->storage_file, "%s", paths[i]);
            snprintf(out->storage_where, sizeof out->storage_where, "%s",
                     b.storage_file ? b.storage_file : b.storage_dir ? b.storage_dir : "?");
        }
        if (b.npcie > 0) {
            out->npcie = 0;
            for (int k = 0; k < b.npcie && out->npcie < (int)(sizeof out->pcie / sizeof out->pcie[0]); k++)
                out->pcie[out->npcie++] = b.pcie[k];
            snprintf(out->pcie_file, sizeof out->pcie_file, "%s", paths[i]);
        }
        bench_results_free(&b);
        json_decref(doc);
    }
    return 0;
}

/* ---- the machine's facts ---------------------------------------------------------------------- */

void balance_format_count(double v, char *buf, size_t len)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", v);
    size_t n = strlen(digits), o = 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i && (n - i) % 3 == 0 && digits[i - 1] != '-')
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* Physical cores this process may use: the cores, scaled down when a cgroup or affinity mask leaves
 * fewer logical CPUs than the machine has. 0 unknown. */
static int usable_cores(const struct machine *m, char *basis, size_t len)
{
    int cores = m->cpu.cores;
    if (cores <= 0) {
        snprintf(basis, len, _("the physical core count is unknown"));
        return 0;
    }
    if (m->cpu.threads > 0 && m->cpu.usable_threads > 0 && m->cpu.usable_threads < m->cpu.threads) {
        int usable = cores * m->cpu.usable_threads / m->cpu.threads;
        usable = usable > 0 ? usable : 1;
        snprintf(basis, len, _("%d of %d physical cores usable (%d of %d CPUs in this process's cgroup/affinity)"),
                 usable, cores, m->cpu.usable_threads, m->cpu.threads);
        return usable;
    }
    snprintf(basis, len, _("%d physical cores"), cores);
    return cores;
}

static const struct pci_device *pci_by_bus(const struct machine *m, const char *bus)
{
    for (int i = 0; bus && i < m->npci; i++)
        if (!strcmp(m->pci[i].bus_id, bus))
            return &m->pci[i];
    return NULL;
}

/* The rate a link trains to under load: the lesser of the device's and its port's top speed (an
 * idle GPU drops its current speed), at the negotiated width. 0 unknown. */
static double link_bytes_s(const struct pci_device *d, int *gen, int *width)
{
    if (!d || !d->link.known || d->link.max_gt_s <= 0 || d->link.cur_width <= 0)
        return 0;
    double gt = d->link.max_gt_s;
    if (d->npath > 0 && d->path[0].link.known && d->path[0].link.max_gt_s > 0 && d->path[0].link.max_gt_s < gt)
        gt = d->path[0].link.max_gt_s;
    *gen = pcie_generation(gt);
    *width = d->link.cur_width;
    return pci_link_gb_s(gt, d->link.cur_width) * GB;
}

/* Bytes/s and IOPS of where the data is read from; *basis says from what. 0 unknown. */
static double storage_rate(const struct machine *m, const struct balance_measured *x, double *iops,
                           enum balance_basis *basis, char *source, size_t len, const char *why_no_machine)
{
    *iops = 0;
    if (x && x->seq_read_bytes_s > 0) {
        *iops = x->rand_read_iops;
        *basis = BASIS_MEASURED;
        snprintf(source, len, _("gpuvet bench storage (%s, read in %s)"), x->storage_file, x->storage_where);
        return x->seq_read_bytes_s;
    }
    *basis = BASIS_UNKNOWN;
    if (!m) {
        snprintf(source, len, _("no storage bench (--bench) and %s"), why_no_machine);
        return 0;
    }
    const struct storage_location *root = &m->storage.root;
    if (root->network_fs) {
        snprintf(source, len, _("/ is on %s (a network file system): measure it with gpuvet bench storage --dir "
                              "DATASET_DIR and pass --bench"),
                 root->fstype ? root->fstype : "?");
        return 0;
    }
    const struct block_device *d = root->ndisks > 0 ? storage_device(&m->storage, root->disks[0]) : NULL;
    if (!d) {
        snprintf(source, len, _("the disk holding / is unknown%s%s: measure the dataset's disk with gpuvet bench "
                              "storage --dir DATASET_DIR and pass --bench"),
                 root->unknown_reason ? " (" : "", root->unknown_reason ? root->unknown_reason : "");
        if (root->unknown_reason)
            strncat(source, ")", len - strlen(source) - 1);
        return 0;
    }
    int gen = 0, width = 0;
    double link = d->transport == TRANSPORT_NVME ? link_bytes_s(pci_by_bus(m, d->pci_bus_id), &gen, &width) : 0;
    *basis = BASIS_ESTIMATED;
    if (link > 0) {
        double share = pcie_pinned_achievable_fraction(gen);
        snprintf(source, len, _("estimate, at most: %s (NVMe, holds /) on a Gen%d x%d link x %.0f %% achievable; the "
                              "drive itself may be slower (gpuvet bench storage measures it)"),
                 d->name, gen, width, share * 100);
        return link * share;
    }
    if ((d->transport == TRANSPORT_SATA || d->transport == TRANSPORT_SAS) && d->rotational == 0) {
        bool sas = d->transport == TRANSPORT_SAS;
        snprintf(source, len, _("estimate, at most: %s (%s SSD, holds /) at its interface's %.0f MB/s (%s after "
                              "8b/10b)"),
                 d->name, sas ? "SAS" : "SATA", (sas ? BALANCE_SAS_BYTES_S : BALANCE_SATA_BYTES_S) / MB,
                 sas ? "SAS-3 12 Gb/s" : "SATA III 6 Gb/s");
        return sas ? BALANCE_SAS_BYTES_S : BALANCE_SATA_BYTES_S;
    }
    *basis = BASIS_UNKNOWN;
    snprintf(source, len, _("%s (holds /) is %s%s: no interface ceiling to estimate from; measure it with gpuvet bench "
                          "storage --dir DATASET_DIR and pass --bench"),
             /* A virtual disk's rotational flag is the hypervisor's default (virtio-blk says 1), not a spindle. */
             d->name, d->rotational == 1 && d->transport != TRANSPORT_VIRTIO && !m->virt.vm ? _("a spinning disk on ") : "",
             storage_transport_name(d->transport));
    return 0;
}

static double memory_rate(const struct machine *m, const struct balance_measured *x, enum balance_basis *basis,
                          char *source, size_t len, const char *why_no_machine)
{
    if (x && x->triad_bytes_s > 0) {
        *basis = BASIS_MEASURED;
        snprintf(source, len, _("gpuvet bench memory (%s): STREAM triad %.1f GB/s"), x->triad_file,
                 x->triad_bytes_s / GB);
        return x->triad_bytes_s;
    }
    *basis = BASIS_UNKNOWN;
    if (!m) {
        snprintf(source, len, _("no memory bench (--bench) and %s"), why_no_machine);
        return 0;
    }
    const char *why = NULL;
    double theoretical = machine_memory_theoretical_bytes_s(m, &why);
    if (theoretical <= 0) {
        snprintf(source, len, _("no memory bench (--bench) and the DIMMs' bandwidth is unknown (%s)"), why ? why : "?");
        return 0;
    }
    *basis = BASIS_ESTIMATED;
    snprintf(source, len, _("estimate: the populated DIMMs' %.1f GB/s x %.0f %% (STREAM triad reaches 70-85 %%)"),
             theoretical / GB, BALANCE_STREAM_SHARE_OF_THEORETICAL * 100);
    return theoretical * BALANCE_STREAM_SHARE_OF_THEORETICAL;
}

/* Host-to-device bytes/s of the slowest of the job's GPUs' links (synchronous data parallelism runs
 * every GPU at the slowest one's pace). */
static double pcie_rate(const struct balance_job *job, const struct machine *m, const struct balance_measured *x,
                        enum balance_basis *basis, char *source, size_t len)
{
    if (x && x->npcie > 0) {
        double slowest = 0;
        for (int i = 0; i < x->npcie; i++)
            if (slowest == 0 || x->pcie[i].h2d_pinned_bytes_s < slowest)
                slowest = x->pcie[i].h2d_pinned_bytes_s;
        *basis = BASIS_MEASURED;
        snprintf(source, len, _("gpuvet bench pcie (%s): slowest of %d GPU(s) %.1f GB/s host-to-device, pinned"),
                 x->pcie_file, x->npcie, slowest / GB);
        return slowest;
    }
    double slowest = 0;
    int seen = 0, gen = 0, width = 0, slow_gen = 0, slow_width = 0;
    for (int i = 0; m && i < m->npci; i++) {
        if (m->pci[i].role != PCI_ROLE_ACCELERATOR)
            continue;
        double r = link_bytes_s(&m->pci[i], &gen, &width);
        if (r <= 0)
            continue;
        r *= pcie_pinned_achievable_fraction(gen);
        if (seen++ == 0 || r < slowest) {
            slowest = r;
            slow_gen = gen;
            slow_width = width;
        }
    }
    *basis = BASIS_ESTIMATED;
    if (seen > 0) {
        snprintf(source, len, _("estimate: slowest of %d accelerator link(s), Gen%d x%d x %.0f %% (pinned copies "
                              "reach 79-88 %% of a link)%s"),
                 seen, slow_gen, slow_width, pcie_pinned_achievable_fraction(slow_gen) * 100,
                 seen < job->gpus_per_node ? _("; the machine shows fewer accelerators than planned") : "");
        return slowest;
    }
    if (job->gpu->pcie_gen > 0 && job->gpu->pcie_lanes > 0) {
        int g = (int)job->gpu->pcie_gen;
        double r = pci_link_gb_s(pcie_generation_gt_s(g), (int)job->gpu->pcie_lanes) * GB *
                   pcie_pinned_achievable_fraction(g);
        snprintf(source, len,
                 m ? _("estimate: the machine shows no accelerator link; %s's own Gen%d x%.0f x %.0f %%, assuming a "
                       "slot that matches it")
                   : _("estimate: no machine shows an accelerator link; %s's own Gen%d x%.0f x %.0f %%, assuming a "
                       "slot that matches it"),
                 job->gpu->id, g, job->gpu->pcie_lanes, pcie_pinned_achievable_fraction(g) * 100);
        return r;
    }
    *basis = BASIS_UNKNOWN;
    snprintf(source, len, _("no accelerator link on the machine and no PCIe interface for %s in the GPU table"),
             job->gpu->id);
    return 0;
}

/* The fastest NIC port whose link is up, bytes/s. */
static double network_rate(const struct machine *m, char *source, size_t len, const char *why_no_machine)
{
    const struct nic_port *best = NULL;
    for (int i = 0; m && i < m->network.nports; i++)
        if (nic_port_usable(&m->network.ports[i]) &&
            (!best || m->network.ports[i].speed_mbps > best->speed_mbps))
            best = &m->network.ports[i];
    if (!best) {
        snprintf(source, len, "%s", m ? _("no NIC port with its link up and a known speed") : why_no_machine);
        return 0;
    }
    snprintf(source, len, _("estimate: %s at its link rate, %ld Gb/s%s (no efficiency applied)"), best->name,
             best->speed_mbps / 1000, best->has_rdma ? _(", RDMA") : _(", no RDMA"));
    return best->speed_mbps * 1e6 / 8;
}

/* ---- the stages ------------------------------------------------------------------------------- */

/* The network stage's bytes/s for a multi-node job; 0 with s saying why (one node: not used). */
static double network_stage_rate(const struct balance_job *job, const struct machine *m, const char *why_no_machine,
                                 struct balance_stage *s)
{
    if (job->nodes <= 1) {
        s->basis = BASIS_NOT_USED;
        snprintf(s->source, sizeof s->source, _("one node: no inter-node traffic"));
        return 0;
    }
    return network_rate(m, s->source, sizeof s->source, why_no_machine);
}

static struct balance_stage *add_stage(struct balance *b, const char *name)
{
    struct balance_stage *s = &b->stages[b->nstages++];
    *s = (struct balance_stage){.name = name, .basis = BASIS_UNKNOWN};
    return s;
}

static void stages_cv(const struct balance_job *job, int n, const struct machine *m, const char *why_no_machine,
                      const struct balance_measured *x, struct balance *b)
{
    char a[32], c[32];
    /* storage: each image costs one random access and its bytes at the sequential rate */
    struct balance_stage *s = add_stage(b, "storage");
    double iops, rate = storage_rate(m, x, &iops, &s->basis, s->source, sizeof s->source, why_no_machine);
    if (rate > 0 && iops > 0) {
        s->capacity = 1.0 / (1.0 / iops + job->image_bytes / rate);
        snprintf(s->formula, sizeof s->formula, "1 / (1 / %.0f IOPS + %.0f B / %.1f MB/s)", iops, job->image_bytes,
                 rate / MB);
    } else if (rate > 0) {
        s->capacity = rate / job->image_bytes;
        snprintf(s->formula, sizeof s->formula, _("%.1f MB/s / %.0f B per image"), rate / MB, job->image_bytes);
    }
    /* cpu decode: the cores left after one per training process and the OS's share */
    s = add_stage(b, "cpu_decode");
    char cores_basis[160];
    int cores = m ? usable_cores(m, cores_basis, sizeof cores_basis) : 0;
    double per_core = x && x->decode_per_core > 0 ? x->decode_per_core : job->decode_per_core;
    if (cores > 0) {
        int decode_cores = cores - n * CORES_PER_TRAINING_PROCESS - CORES_FOR_OS;
        decode_cores = decode_cores > 0 ? decode_cores : 0;
        s->capacity = decode_cores * per_core;
        if (x && x->decode_per_core > 0) {
            s->basis = BASIS_MEASURED;
            snprintf(s->source, sizeof s->source, _("gpuvet bench decode (%s): %.1f images/s per core; %s"),
                     x->decode_file, per_core, cores_basis);
        } else {
            /* the plan's --decode-from says "measured by gpuvet bench decode" */
            s->basis = !strncmp(job->decode_source, "measured", 8) ? BASIS_MEASURED
                       : !strcmp(job->decode_source, "--decode-rate") ? BASIS_GIVEN
                                                                      : BASIS_ESTIMATED;
            snprintf(s->source, sizeof s->source, _("%.0f images/s per core (%s); %s"), per_core, _(job->decode_source),
                     cores_basis);
        }
        snprintf(s->formula, sizeof s->formula,
                 _("(%d cores - %d training process(es) - %d for the OS) x %.1f images/s per core"), cores,
                 n * CORES_PER_TRAINING_PROCESS, CORES_FOR_OS, per_core);
    } else {
        snprintf(s->source, sizeof s->source, "%s", m ? cores_basis : why_no_machine);
    }
    /* host memory */
    s = add_stage(b, "host_memory");
    double per_image = BALANCE_FILE_PASSES * job->image_bytes + BALANCE_TENSOR_PASSES * BALANCE_CV_SAMPLE_BYTES;
    rate = memory_rate(m, x, &s->basis, s->source, sizeof s->source, why_no_machine);
    if (rate > 0) {
        s->capacity = rate / per_image;
        balance_format_count(per_image, a, sizeof a);
        snprintf(s->formula, sizeof s->formula,
                 _("%.2f GB/s / %s B per image (%d x %.0f B file + %d x %.0f B float32 3x224x224 sample)"), rate / GB,
                 a, BALANCE_FILE_PASSES, job->image_bytes, BALANCE_TENSOR_PASSES, BALANCE_CV_SAMPLE_BYTES);
    }
    /* pcie */
    s = add_stage(b, "pcie");
    rate = pcie_rate(job, m, x, &s->basis, s->source, sizeof s->source);
    if (rate > 0) {
        s->capacity = n * rate / BALANCE_CV_SAMPLE_BYTES;
        snprintf(s->formula, sizeof s->formula, _("%d GPU(s) x %.2f GB/s / %.0f B per sample"), n, rate / GB,
                 BALANCE_CV_SAMPLE_BYTES);
    }
    /* gpu compute */
    s = add_stage(b, "gpu_compute");
    s->capacity = n * job->images_s_per_gpu;
    s->basis = !strcmp(job->images_s_source, "--img-rate") ? BASIS_GIVEN
               : job->gpu->resnet50_img_s > 0            ? BASIS_PUBLISHED
                                                          : BASIS_ESTIMATED;
    snprintf(s->source, sizeof s->source, _("%s ResNet-50 training: %s"), job->gpu->id, job->images_s_source);
    snprintf(s->formula, sizeof s->formula, _("%d GPU(s) x %.0f images/s"), n, job->images_s_per_gpu);
    /* network: ring all-reduce of the fp32 gradients once per step */
    s = add_stage(b, "network");
    rate = network_stage_rate(job, m, why_no_machine, s);
    if (rate > 0) {
        double step_bytes = 2.0 * (job->nodes - 1) / job->nodes * BALANCE_RESNET50_PARAMS * 4;
        s->basis = BASIS_ESTIMATED;
        s->capacity = rate * n * BALANCE_CV_IMAGES_PER_GPU_STEP / step_bytes;
        balance_format_count(BALANCE_RESNET50_PARAMS, c, sizeof c);
        snprintf(s->formula, sizeof s->formula,
                 _("%.2f GB/s x %d GPU(s) x %d images per step / (2 x %d/%d x %s parameters x 4 B)"), rate / GB, n,
                 BALANCE_CV_IMAGES_PER_GPU_STEP, job->nodes - 1, job->nodes, c);
    }
}

/* Training FLOPs per token: (2N + 2 L s d_attn) per forward pass (Kaplan et al. 2020, Table 1), x3
 * for forward and backward, x2 for LoRA (no weight gradients of the frozen matrices), +1 pass with
 * full recompute. */
static double llm_flops_per_token(const struct balance_job *job, int *passes)
{
    *passes = training_passes(job->adapter_params > 0, job->full_recompute);
    double attention = job->layers > 0 ? 2.0 * job->layers * job->seq * job->attention_width : 0;
    return *passes * (2.0 * job->active_params + attention);
}

static void stages_llm(const struct balance_job *job, int n, const struct machine *m, const char *why_no_machine,
                       const struct balance_measured *x, struct balance *b)
{
    double tokens_gpu_step = (double)job->micro_batch * job->seq, tokens_node_step = n * tokens_gpu_step;
    int total_gpus = n * job->nodes;
    bool seq_known = tokens_gpu_step > 0;
    const char *no_seq = _("the plan has no sequence length (--params: no activations counted)");
    /* storage: pre-tokenized ids, 2 B (uint16) for a vocabulary below 65,500, else 4 B (int32), as
     * Megatron-LM's indexed datasets store them (best_fitting_dtype) */
    double token_bytes = job->vocab > 0 && job->vocab < 65500 ? 2 : 4;
    struct balance_stage *s = add_stage(b, "storage");
    double iops, rate = storage_rate(m, x, &iops, &s->basis, s->source, sizeof s->source, why_no_machine);
    if (rate > 0 && iops > 0 && seq_known) {
        s->capacity = job->seq / (1.0 / iops + job->seq * token_bytes / rate);
        snprintf(s->formula, sizeof s->formula, _("%d tokens / (1 / %.0f IOPS + %d x %.0f B / %.1f MB/s)"), job->seq,
                 iops, job->seq, token_bytes, rate / MB);
    } else if (rate > 0) {
        s->capacity = rate / token_bytes;
        snprintf(s->formula, sizeof s->formula, _("%.1f MB/s / %.0f B per token"), rate / MB, token_bytes);
    }
    s = add_stage(b, "cpu_loader");
    s->basis = BASIS_UNKNOWN;
    snprintf(s->source, sizeof s->source, _("not modelled: pre-tokenized data needs no decoding; the plan's 2 loader "
                                          "workers per GPU feed it"));
    /* host memory: the batch tensors, and with offload DeepSpeedCPUAdam's pass over the states */
    s = add_stage(b, "host_memory");
    rate = memory_rate(m, x, &s->basis, s->source, sizeof s->source, why_no_machine);
    if (rate > 0 && seq_known) {
        double per_token = BALANCE_FILE_PASSES * token_bytes + BALANCE_TENSOR_PASSES * BALANCE_LLM_TENSOR_BYTES_PER_TOKEN;
        double adam = job->offload_optimizer ? BALANCE_CPU_ADAM_BYTES_PER_PARAM *
                                                   (job->adapter_params > 0 ? job->adapter_params : job->params) /
                                                   job->nodes
                                             : 0;
        s->capacity = rate * tokens_node_step / (tokens_node_step * per_token + adam);
        if (adam > 0)
            snprintf(s->formula, sizeof s->formula,
                     _("%.2f GB/s x %.0f tokens per step / (%.0f tokens x %.0f B + CPU Adam 30 B x parameters per "
                       "node = %.3g GB)"),
                     rate / GB, tokens_node_step, tokens_node_step, per_token, adam / GB);
        else
            snprintf(s->formula, sizeof s->formula,
                     _("%.2f GB/s / %.0f B per token (%d x %.0f B ids read + %d x 16 B input ids and labels)"),
                     rate / GB, per_token, BALANCE_FILE_PASSES, token_bytes, BALANCE_TENSOR_PASSES);
    } else if (rate > 0) {
        s->basis = BASIS_UNKNOWN;
        snprintf(s->source, sizeof s->source, "%s", no_seq);
    }
    /* pcie: the batch, and with offload the partitions of gradients out and parameters in */
    s = add_stage(b, "pcie");
    rate = pcie_rate(job, m, x, &s->basis, s->source, sizeof s->source);
    if (rate > 0 && seq_known) {
        double model = job->adapter_params > 0 ? 0 : 2.0 * job->params / total_gpus;
        double h2d = tokens_gpu_step * BALANCE_LLM_TENSOR_BYTES_PER_TOKEN +
                     (job->offload_optimizer ? model : 0) + (job->offload_params ? 2 * model : 0);
        s->capacity = n * rate * tokens_gpu_step / h2d;
        /* TRANSLATORS: the last %s is empty or one of the two " + ... parameter partition ..." texts. */
        snprintf(s->formula, sizeof s->formula,
                 _("%d GPU(s) x %.2f GB/s x %.0f tokens per step / %.0f B in per GPU and step (16 B per token%s)"), n,
                 rate / GB, tokens_gpu_step, h2d,
                 job->offload_params      ? _(" + bf16 parameter partition 3x: optimizer step, forward, backward")
                 : job->offload_optimizer ? _(" + the bf16 parameter partition after the CPU optimizer step")
                                          : "");
    } else if (rate > 0) {
        s->basis = BASIS_UNKNOWN;
        snprintf(s->source, sizeof s->source, "%s", no_seq);
    }
    /* gpu compute */
    s = add_stage(b, "gpu_compute");
    int passes;
    double flops = llm_flops_per_token(job, &passes), peak = job->gpu->dense[PREC_BF16];
    if (peak > 0) {
        s->basis = BASIS_ESTIMATED;
        s->capacity = n * peak * 1e12 * BALANCE_LLM_UTILISATION / flops;
        snprintf(s->source, sizeof s->source, _("estimate: %s dense BF16 %g TFLOPS (GPU table) x %.0f %% "
                                              "utilisation (Llama 3 pre-training reached 38-43 %% on H100)"),
                 job->gpu->id, peak, BALANCE_LLM_UTILISATION * 100);
        char attention[160];
        snprintf(attention, sizeof attention, "%s", _("0: --params gives no layers, attention not counted"));
        if (job->layers > 0)
            snprintf(attention, sizeof attention, _("2 x %d layers x %d seq x %d attention width"), job->layers,
                     job->seq, job->attention_width);
        /* TRANSLATORS: the last %s is the attention term: "2 x 32 layers x ..." or why it is 0. */
        snprintf(s->formula, sizeof s->formula, _("%d x %g TFLOPS x %.2f / (%d passes x (2 x %.4g + %s)) FLOPs per "
                                                  "token"),
                 n, peak, BALANCE_LLM_UTILISATION, passes, job->active_params, attention);
    } else {
        snprintf(s->source, sizeof s->source, _("the GPU table lists no dense BF16 rate for %s"), job->gpu->id);
    }
    /* network */
    s = add_stage(b, "network");
    rate = network_stage_rate(job, m, why_no_machine, s);
    if (rate > 0 && seq_known) {
        double grads = job->adapter_params > 0 ? 4 * job->adapter_params : 2 * job->params;
        double factor = job->adapter_params <= 0 && job->zero_stage == 3 ? 1.5 : 1.0;
        double step_bytes = 2.0 * (job->nodes - 1) / job->nodes * grads * factor;
        s->basis = BASIS_ESTIMATED;
        s->capacity = rate * tokens_node_step / step_bytes;
        /* TRANSLATORS: "of %s%s": what the gradients are ("bf16 gradients"), then "" or " x 1.5 for ZeRO-3". */
        snprintf(s->formula, sizeof s->formula,
                 _("%.2f GB/s x %.0f tokens per step / (2 x %d/%d x %.4g GB of %s%s); one all-reduce per micro-batch "
                   "(no gradient accumulation)"),
                 rate / GB, tokens_node_step, job->nodes - 1, job->nodes, grads / GB,
                 job->adapter_params > 0 ? _("fp32 adapter gradients") : _("bf16 gradients"),
                 factor > 1 ? _(" x 1.5 for ZeRO-3") : "");
    } else if (rate > 0) {
        s->basis = BASIS_UNKNOWN;
        snprintf(s->source, sizeof s->source, "%s", no_seq);
    }
}

static bool stage_known(const struct balance_stage *s)
{
    return s->basis != BASIS_UNKNOWN && s->basis != BASIS_NOT_USED;
}

static void compute_for(const struct balance_job *job, int n, const struct machine *m, const char *why_no_machine,
                        const struct balance_measured *x, struct balance *b)
{
    memset(b, 0, sizeof *b);
    b->workload = job->workload;
    b->unit = job->workload == WL_CV_TRAIN ? "images/s" : "tokens/s";
    b->gpus_per_node = n;
    b->nodes = job->nodes;
    b->bottleneck = -1;
    if (job->workload == WL_CV_TRAIN)
        stages_cv(job, n, m, why_no_machine, x, b);
    else
        stages_llm(job, n, m, why_no_machine, x, b);
    for (int i = 0; i < b->nstages; i++)
        if (stage_known(&b->stages[i]) &&
            (b->bottleneck < 0 || b->stages[i].capacity < b->stages[b->bottleneck].capacity))
            b->bottleneck = i;
}

static const struct {
    const char *stage, *label, *change;
} stage_words[] = {
    /* TRANSLATORS: the stage that limits the job, in "%d GPUs and this machine: %s at ...". */
    {"storage", N_("storage-bound"),
     N_("put the dataset on local NVMe, or keep it in the page cache (host RAM above the dataset size)")},
    {"cpu_decode", N_("decode-bound"), N_("more physical cores, or decode on the GPU (NVIDIA DALI), or fewer GPUs")},
    {"host_memory", N_("host-memory-bound"),
     N_("populate every memory channel, or send uint8 images and normalise on the GPU")},
    {"pcie", N_("PCIe-bound"),
     N_("a full-width slot at the GPU's generation, or send uint8 images and normalise on the GPU")},
    {"gpu_compute", N_("GPU-bound"), N_("nothing upstream holds the GPUs back: more or faster GPUs raise the rate")},
    {"network", N_("network-bound"),
     N_("a faster NIC with RDMA (InfiniBand or RoCE), or gradient accumulation (fewer all-reduces)")},
};

static int stage_word(const char *stage)
{
    for (size_t i = 0; i < sizeof stage_words / sizeof stage_words[0]; i++)
        if (!strcmp(stage, stage_words[i].stage))
            return (int)i;
    return 0;
}

void balance_compute(const struct balance_job *job, const struct machine *m, const char *why_no_machine,
                     const struct balance_measured *measured, struct balance *out)
{
    if (!why_no_machine)
        why_no_machine = _("no machine given (--check)");
    compute_for(job, job->gpus_per_node, m, why_no_machine, measured, out);
    if (out->bottleneck < 0) {
        snprintf(out->advice, sizeof out->advice, _("no stage's capacity is known"));
        return;
    }
    const struct balance_stage *neck = &out->stages[out->bottleneck];
    double rate = neck->capacity;
    /* The fewest GPUs that keep the rate: fewer GPUs free cores for decoding and lower the demand. */
    for (int k = 1; k <= job->gpus_per_node; k++) {
        struct balance trial;
        compute_for(job, k, m, why_no_machine, measured, &trial);
        if (trial.bottleneck >= 0 && trial.stages[trial.bottleneck].capacity >= rate * (1 - 1e-9)) {
            out->gpus_without_loss = k;
            break;
        }
    }
    char shown[32], gpu_rate[32];
    balance_format_count(rate, shown, sizeof shown);
    const struct balance_stage *gpu = NULL;
    for (int i = 0; i < out->nstages; i++)
        if (!strcmp(out->stages[i].name, "gpu_compute"))
            gpu = &out->stages[i];
    int w = stage_word(neck->name), n = job->gpus_per_node;
    /* A stage the job uses whose capacity is unknown may be slower than every known one: the GPUs
     * being the slowest known stage says nothing about what holds them back. */
    char unknown[160] = "";
    for (int i = 0; i < out->nstages; i++)
        if (out->stages[i].basis == BASIS_UNKNOWN)
            snprintf(unknown + strlen(unknown), sizeof unknown - strlen(unknown), "%s%s", *unknown ? ", " : "",
                     out->stages[i].name);
    if (*unknown && !strcmp(neck->name, "gpu_compute")) {
        out->bottleneck = -1;
        out->gpus_without_loss = 0;
        snprintf(out->advice, sizeof out->advice,
                 _("the bottleneck is unknown: %s not measured or read (each stage's source says why); the GPUs "
                   "could take %s %s per node, so the job runs at most that fast: measure the rest (gpuvet bench)"),
                 unknown, shown, out->unit);
        return;
    }
    if (!strcmp(neck->name, "gpu_compute")) {
        snprintf(out->advice, sizeof out->advice,
                 i18n_plural("%d GPU and this machine: GPU-bound at %s %s per node, as it should be; %s",
                             "%d GPUs and this machine: GPU-bound at %s %s per node, as it should be; %s",
                             (unsigned long)n),
                 n, shown, out->unit, _(stage_words[w].change));
        return;
    }
    int pct = gpu && stage_known(gpu) && gpu->capacity > 0 ? (int)(100 * rate / gpu->capacity) : -1;
    balance_format_count(gpu && stage_known(gpu) ? gpu->capacity : 0, gpu_rate, sizeof gpu_rate);
    char fewer[160] = "";
    if (out->gpus_without_loss > 0 && out->gpus_without_loss < job->gpus_per_node)
        snprintf(fewer, sizeof fewer,
                 i18n_plural("; %d GPU would lose nothing", "; %d GPUs would lose nothing",
                             (unsigned long)out->gpus_without_loss),
                 out->gpus_without_loss);
    char busy[96] = "";
    if (pct >= 0)
        snprintf(busy, sizeof busy, _(" (the GPUs could take %s: busy %d %%)"), gpu_rate, pct);
    snprintf(out->advice, sizeof out->advice,
             i18n_plural("%d GPU and this machine: %s at %s %s per node%s%s; %s",
                         "%d GPUs and this machine: %s at %s %s per node%s%s; %s", (unsigned long)n),
             n, _(stage_words[w].label), shown, out->unit, busy, fewer, _(stage_words[w].change));
}

int plan_balance(const struct plan *p, const struct machine *m, const char *why_no_machine, struct balance *b)
{
    struct balance_job job;
    char err[256];
    if (balance_job_from_plan(p->doc, p->gpu, &job, err, sizeof err) != 0)
        return -1;
    balance_compute(&job, m, why_no_machine, p->measured, b);
    return 0;
}
