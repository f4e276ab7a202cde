#include "model/bench.h"

#include <errno.h>

#include "model/gpu.h"
#include "model/machine.h"
#include "util/i18n.h"
#include "util/pciaddr.h"
#include "util/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_SCHEMA_NAME "gpuvet.bench/1"

double machine_memory_theoretical_bytes_s(const struct machine *m, const char **unknown_reason)
{
    double total = 0;
    for (int s = 0; s < m->memory.sockets; s++)
        total += memory_socket_bandwidth(&m->memory, s);
    if (total > 0)
        return total;
    *unknown_reason = m->memory.unknown_reason                 ? m->memory.unknown_reason
                      : m->memory.ndimms == 0                  ? N_("no DIMM was seen")
                      : memory_effective_mts(&m->memory) == 0 ? N_("the DIMMs report no speed")
                                                               : N_("the populated channels are unknown");
    return 0;
}

/* A text of the bench document in the reader's language: its KEY_local copy (bench/registry.c adds
 * it when the document was made here, by --bench-quick), else the catalogue's translation. English
 * in an English scope (the model's and the JSON's copy). */
static const char *document_text(json_t *result, const char *key)
{
    const char *english = json_string_value(json_object_get(result, key));
    if (!english || !i18n_translating())
        return english;
    char local_key[64];
    snprintf(local_key, sizeof local_key, "%s_local", key);
    const char *local = json_string_value(json_object_get(result, local_key));
    return local ? local : _(english);
}

/* Why a benchmark result holds no measurement, or NULL when it does: English, its translation kept
 * for _() where it is shown. */
static char *unmeasured_reason(json_t *result, const char *name)
{
    char *why = NULL;
    if (!result)
        return i18n_asprintf(&why, "the bench did not run %s", name) < 0 ? NULL : why;
    if (json_object_get(result, "skipped"))
        /* TRANSLATORS: the first %s is a benchmark name (memory, storage, pcie), the second its reason. */
        return i18n_asprintf(&why, "%s was skipped: %s", name, document_text(result, "skipped")) < 0 ? NULL : why;
    if (json_object_get(result, "error"))
        return i18n_asprintf(&why, "%s failed: %s", name, document_text(result, "error")) < 0 ? NULL : why;
    return NULL;
}

/* A measured value must be a positive number. */
static int positive(json_t *result, const char *key, double *out, char *err, size_t errlen, const char *name)
{
    json_t *v = json_object_get(result, key);
    if (!json_is_number(v) || json_number_value(v) <= 0) {
        snprintf(err, errlen,
                 v ? _("benchmarks.%s.%s is wrong, not a positive number")
                   : _("benchmarks.%s.%s is missing, not a positive number"),
                 name, key);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

static int load_pcie(struct bench_results *b, json_t *pcie, char *err, size_t errlen)
{
    if (!json_is_array(pcie)) {
        b->pcie_unmeasured = unmeasured_reason(pcie, "pcie");
        return 0;
    }
    b->pcie = calloc(json_array_size(pcie) + 1, sizeof *b->pcie);
    size_t i;
    json_t *gpu;
    json_array_foreach(pcie, i, gpu) {
        struct bench_gpu_copy *c = &b->pcie[b->npcie];
        const char *bus = json_string_value(json_object_get(gpu, "bus_id"));
        if (!bus || !pci_address_normalise(bus, c->bus_id)) {
            snprintf(err, errlen, _("benchmarks.pcie[%zu].bus_id is missing or not a PCI address"), i);
            return -1;
        }
        if (positive(gpu, "h2d_pinned_bytes_s", &c->h2d_pinned_bytes_s, err, errlen, "pcie[]") ||
            positive(gpu, "d2h_pinned_bytes_s", &c->d2h_pinned_bytes_s, err, errlen, "pcie[]"))
            return -1;
        json_t *near = json_object_get(gpu, "near_node"), *far = json_object_get(gpu, "far_node");
        /* A NUMA node number is small: one past 65535 would wrap in the cast. */
        c->near_node = json_is_integer(near) && json_integer_value(near) >= 0 && json_integer_value(near) <= 65535
                           ? (int)json_integer_value(near)
                           : -1;
        c->far_node = json_is_integer(far) && json_integer_value(far) >= 0 && json_integer_value(far) <= 65535
                          ? (int)json_integer_value(far)
                          : -1;
        b->npcie++;
    }
    return 0;
}

/* A number that may be missing or null (not measured): 0 then; anything else must be positive. */
static int optional_positive(json_t *obj, const char *key, double *out, char *err, size_t errlen, const char *name)
{
    json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!v || json_is_null(v))
        return 0;
    return positive(obj, key, out, err, errlen, name);
}

static int bus_id_at(json_t *obj, const char *key, char out[32], char *err, size_t errlen, const char *what, size_t i)
{
    const char *bus = json_string_value(json_object_get(obj, key));
    if (!bus || !pci_address_normalise(bus, out)) {
        snprintf(err, errlen, _("benchmarks.gpu.%s[%zu].%s is missing or not a PCI address"), what, i, key);
        return -1;
    }
    return 0;
}

static int load_gpu_device(struct bench_gpu_device *g, json_t *one, size_t i, char *err, size_t errlen)
{
    if (bus_id_at(one, "bus_id", g->bus_id, err, errlen, "gpus", i))
        return -1;
    g->memtest_errors = -1;
    json_t *spec = json_object_get(one, "spec");
    const char *id = json_string_value(json_object_get(spec, "id"));
    snprintf(g->spec_id, sizeof g->spec_id, "%s", id ? id : "");
    if (optional_positive(spec, "mem_bytes_s", &g->mem_peak_bytes_s, err, errlen, "gpu.gpus[].spec") ||
        optional_positive(spec, "fp32_flops", &g->fp32_peak_flops, err, errlen, "gpu.gpus[].spec"))
        return -1;
    const char *error = json_string_value(json_object_get(one, "error"));
    if (error) {
        g->error = strdup(error);
        return 0;
    }
    json_t *memtest = json_object_get(one, "memtest");
    json_t *errors = json_object_get(memtest, "errors"), *tested = json_object_get(memtest, "tested_bytes");
    /* A part that failed says why; what was measured before it stays (docs/bench-json.md). */
    const char *memtest_error = json_string_value(json_object_get(memtest, "error"));
    const char *compute_error = json_string_value(json_object_get(json_object_get(one, "compute"), "error"));
    if (memtest_error) {
        g->memtest_error = strdup(memtest_error);
        g->memtest_uncorrectable = json_is_true(json_object_get(memtest, "uncorrectable_ecc"));
    } else if (!json_is_integer(errors) || json_integer_value(errors) < 0 || !json_is_integer(tested) ||
        json_integer_value(tested) < 0) {
        snprintf(err, errlen, "%s", _("benchmarks.gpu.gpus[].memtest needs errors and tested_bytes, whole numbers >= 0"));
        return -1;
    } else {
        g->memtest_errors = json_integer_value(errors);
        g->memtest_bytes = json_integer_value(tested);
    }
    /* What NVML said while the FMA loop ran; reasons this gpuvet does not know are not counted. */
    json_t *watched = json_object_get(one, "while_running"), *name;
    g->sm_clock_mhz_median = -1;
    if (json_is_object(watched) && !json_object_get(watched, "unseen")) {
        g->clocks_watched = true;
        json_t *mhz = json_object_get(watched, "sm_clock_mhz_median");
        if (json_is_integer(mhz) && json_integer_value(mhz) > 0 && json_integer_value(mhz) < 100000)
            g->sm_clock_mhz_median = (int)json_integer_value(mhz);
        size_t k;
        json_array_foreach(json_object_get(watched, "clock_events"), k, name)
            for (int e = 0; e < gpu_event_names_count; e++)
                if (json_is_string(name) && !strcmp(json_string_value(name), gpu_event_names[e].name))
                    g->clock_events_seen |= gpu_event_names[e].bit;
    }
    if (positive(json_object_get(one, "memory"), "kernel_copy_bytes_s", &g->mem_bytes_s, err, errlen,
                 "gpu.gpus[].memory"))
        return -1;
    if (compute_error) {
        g->compute_error = strdup(compute_error);
        return 0;
    }
    return positive(json_object_get(one, "compute"), "fp32_flops", &g->fp32_flops, err, errlen, "gpu.gpus[].compute");
}

/* gpu.burn.gpus[].xids_new: each {code, count, class, meaning}. */
static int load_burn_xids(struct bench_gpu_burn *g, json_t *one, char *err, size_t errlen)
{
    json_t *list = json_object_get(one, "xids_new"), *x;
    if (!list)
        return 0;
    if (!json_is_array(list) || json_array_size(list) > 4096) {
        snprintf(err, errlen, "%s", _("benchmarks.gpu.burn.gpus[].xids_new is not a list"));
        return -1;
    }
    g->xids = calloc(json_array_size(list) + 1, sizeof *g->xids);
    if (!g->xids) {
        snprintf(err, errlen, "%s", i18n_error_text(ENOMEM));
        return -1;
    }
    size_t i;
    json_array_foreach(list, i, x) {
        json_t *code = json_object_get(x, "code"), *count = json_object_get(x, "count");
        const char *klass = json_string_value(json_object_get(x, "class"));
        if (!json_is_integer(code) || json_integer_value(code) < 0 || json_integer_value(code) > 1 << 16 ||
            !json_is_integer(count) || json_integer_value(count) < 1 || !klass) {
            snprintf(err, errlen, "%s",
                     _("benchmarks.gpu.burn.gpus[].xids_new[] needs code and count (whole numbers) and class"));
            return -1;
        }
        struct bench_burn_xid *out = &g->xids[g->nxids++];
        out->code = (int)json_integer_value(code);
        out->count = (long long)json_integer_value(count);
        snprintf(out->klass, sizeof out->klass, "%s", klass);
        const char *meaning = json_string_value(json_object_get(x, "meaning"));
        out->meaning = meaning ? strdup(meaning) : NULL;
    }
    return 0;
}

/* A count from 0 to 2^20 under key, else `otherwise`. */
static int small_count(json_t *obj, const char *key, int otherwise)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < 1 << 20 ? (int)json_integer_value(v)
                                                                                                 : otherwise;
}

/* gpu.burn.gpus[].fp8: its figures, or why it has none ({unknown} not run, {error} failed; a document
 * without it: a gpuvet that ran no FP8). */
static int load_burn_fp8(struct bench_gpu_burn *g, json_t *one, char *err, size_t errlen)
{
    json_t *fp8 = json_object_get(one, "fp8");
    if (optional_positive(json_object_get(one, "spec"), "fp8_dense_flops", &g->fp8_peak_flops, err, errlen,
                          "gpu.burn.gpus[].spec"))
        return -1;
    const char *why = json_string_value(json_object_get(fp8, "error"));
    if (!why)
        why = json_string_value(json_object_get(fp8, "unknown"));
    if (!json_is_object(fp8) || why) {
        g->fp8_unmeasured = strdup(why ? why : N_("the bench document has no FP8 GEMM (made by a gpuvet that ran none)"));
        return 0;
    }
    if (positive(fp8, "flops", &g->fp8_flops, err, errlen, "gpu.burn.gpus[].fp8"))
        return -1;
    g->fp8_entries_wrong = small_count(fp8, "entries_wrong", -1);
    g->fp8_entries_checked = small_count(fp8, "entries_checked", 0);
    json_t *match = json_object_get(fp8, "matches_node");
    g->fp8_matches_node = json_is_boolean(match) ? json_is_true(match) : -1;
    g->fp8_gpus_compared = small_count(fp8, "gpus_compared", 0);
    return 0;
}

/* benchmarks.gpu.burn of `bench gpu --burn`. */
static int load_burn(struct bench_results *b, json_t *gpu, json_t *burn, char *err, size_t errlen)
{
    b->burn_run = true;
    b->gpu_unmeasured = strdup(N_("the bench ran the burn-in (bench gpu --burn), not the per-GPU measurements"));
    json_t *gpus = json_object_get(burn, "gpus");
    if (!json_is_array(gpus)) {
        b->burn_unmeasured = unmeasured_reason(gpu, "gpu");
        if (!b->burn_unmeasured)
            b->burn_unmeasured = strdup(N_("benchmarks.gpu.burn has no gpus array"));
        return 0;
    }
    json_t *v = json_object_get(burn, "seconds");
    b->burn_seconds = json_is_number(v) ? json_number_value(v) : 0;
    if (optional_positive(burn, "median_bf16_flops", &b->burn_median_flops, err, errlen, "gpu.burn") ||
        optional_positive(burn, "median_fp8_flops", &b->burn_median_fp8_flops, err, errlen, "gpu.burn"))
        return -1;
    const char *unseen = json_string_value(json_object_get(burn, "xids_unseen"));
    if (unseen || !json_is_object(json_object_get(burn, "xids_watched")))
        b->burn_xids_unseen = strdup(unseen ? unseen : N_("the bench document records no kernel-log reads (made by a gpuvet that did not watch for Xids)"));
    b->burn = calloc(json_array_size(gpus) + 1, sizeof *b->burn);
    size_t i;
    json_t *one;
    json_array_foreach(gpus, i, one) {
        struct bench_gpu_burn *g = &b->burn[b->nburn];
        if (bus_id_at(one, "bus_id", g->bus_id, err, errlen, "burn.gpus", i))
            return -1;
        b->nburn++;
        const char *error = json_string_value(json_object_get(one, "error"));
        g->error = error ? strdup(error) : NULL;
        if (optional_positive(json_object_get(one, "spec"), "bf16_dense_flops", &g->bf16_peak_flops, err, errlen,
                              "gpu.burn.gpus[].spec") ||
            optional_positive(one, "bf16_flops", &g->bf16_flops, err, errlen, "gpu.burn.gpus[]"))
            return -1;
        json_t *wrong = json_object_get(one, "entries_wrong"), *match = json_object_get(one, "matches_node");
        json_t *ecc = json_object_get(one, "ecc_uncorrected_new"), *compared = json_object_get(one, "gpus_compared");
        g->entries_wrong = json_is_integer(wrong) && json_integer_value(wrong) >= 0 && json_integer_value(wrong) < 1 << 20
                               ? (int)json_integer_value(wrong)
                               : -1;
        json_t *checked = json_object_get(one, "entries_checked");
        g->entries_checked = json_is_integer(checked) && json_integer_value(checked) > 0 &&
                                     json_integer_value(checked) < 1 << 20
                                 ? (int)json_integer_value(checked)
                                 : 0;
        g->matches_node = json_is_boolean(match) ? json_is_true(match) : -1;
        g->gpus_compared = json_is_integer(compared) && json_integer_value(compared) > 0 &&
                                   json_integer_value(compared) < 1 << 16
                               ? (int)json_integer_value(compared)
                               : 0;
        g->ecc_new = json_is_integer(ecc) && json_integer_value(ecc) >= 0 ? (long long)json_integer_value(ecc) : -1;
        if (load_burn_xids(g, one, err, errlen) || load_burn_fp8(g, one, err, errlen))
            return -1;
        json_t *events = json_object_get(json_object_get(one, "while_running"), "clock_events");
        size_t k;
        json_t *name;
        json_array_foreach(events, k, name) {
            for (int e = 0; e < gpu_event_names_count; e++)
                if (json_is_string(name) && !strcmp(json_string_value(name), gpu_event_names[e].name))
                    g->clock_events_seen |= gpu_event_names[e].bit;
        }
    }
    return 0;
}

/* benchmarks.gpu.nccl: the all-reduce's figure and its GPUs, or why there is none. */
static int load_nccl(struct bench_gpu_nccl *c, json_t *nccl, char *err, size_t errlen)
{
    if (!nccl) {
        c->unmeasured = strdup(N_("the bench ran no all-reduce (a gpuvet from before NCCL was measured)"));
        return 0;
    }
    if ((c->unmeasured = unmeasured_reason(nccl, "nccl")))
        return 0;
    if (positive(nccl, "busbw_bytes_s", &c->busbw_bytes_s, err, errlen, "gpu.nccl"))
        return -1;
    json_t *bytes = json_object_get(nccl, "bytes"), *gpus = json_object_get(nccl, "gpus");
    c->bytes = json_is_integer(bytes) && json_integer_value(bytes) > 0 ? (long long)json_integer_value(bytes) : 0;
    if (!json_is_array(gpus) || json_array_size(gpus) < 2 || json_array_size(gpus) > 4096) {
        snprintf(err, errlen, "%s", _("benchmarks.gpu.nccl.gpus is missing or names fewer than two GPUs"));
        return -1;
    }
    c->gpus = calloc(json_array_size(gpus), sizeof *c->gpus);
    if (!c->gpus) {
        snprintf(err, errlen, "%s", _("out of memory"));
        return -1;
    }
    size_t i;
    json_t *one;
    json_array_foreach(gpus, i, one) {
        const char *bus = json_string_value(one);
        if (!bus || !pci_address_normalise(bus, c->gpus[c->ngpus])) {
            snprintf(err, errlen, _("benchmarks.gpu.nccl.gpus[%zu] is not a PCI address"), i);
            return -1;
        }
        c->ngpus++;
    }
    return 0;
}

static int load_gpu(struct bench_results *b, json_t *gpu, char *err, size_t errlen)
{
    json_t *burn = json_object_get(gpu, "burn");
    if (json_is_object(burn) || (burn && json_is_true(burn)))
        return load_burn(b, gpu, burn, err, errlen);
    json_t *gpus = json_object_get(gpu, "gpus");
    if (!json_is_array(gpus)) {
        b->gpu_unmeasured = unmeasured_reason(gpu, "gpu");
        if (!b->gpu_unmeasured)
            b->gpu_unmeasured = strdup(N_("benchmarks.gpu has no gpus array"));
        return 0;
    }
    b->gpu = calloc(json_array_size(gpus) + 1, sizeof *b->gpu);
    size_t i;
    json_t *one;
    json_array_foreach(gpus, i, one) {
        if (load_gpu_device(&b->gpu[b->ngpu], one, i, err, errlen))
            return -1;
        b->ngpu++;
    }
    if (load_nccl(&b->nccl, json_object_get(gpu, "nccl"), err, errlen))
        return -1;
    json_t *pairs = json_object_get(gpu, "pairs");
    if (!json_is_array(pairs)) {
        const char *why = json_string_value(json_object_get(gpu, "pairs_skipped"));
        if (!why)
            why = json_string_value(json_object_get(gpu, "pairs_error"));
        b->gpu_pairs_unmeasured = strdup(why ? why : "the bench measured no GPU pair");
        return 0;
    }
    b->gpu_pairs = calloc(json_array_size(pairs) + 1, sizeof *b->gpu_pairs);
    json_array_foreach(pairs, i, one) {
        struct bench_gpu_pair *p = &b->gpu_pairs[b->ngpu_pairs];
        if (bus_id_at(one, "from", p->from, err, errlen, "pairs", i) || bus_id_at(one, "to", p->to, err, errlen, "pairs", i))
            return -1;
        p->peer_access = json_is_true(json_object_get(one, "peer_access"));
        if (optional_positive(one, "bytes_s", &p->bytes_s, err, errlen, "gpu.pairs[]"))
            return -1;
        b->ngpu_pairs++;
    }
    return 0;
}

int bench_results_from_json(struct bench_results *b, json_t *doc, const char *source, char *err, size_t errlen)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strcmp(schema, BENCH_SCHEMA_NAME) != 0) {
        if (schema)
            snprintf(err, errlen, _("not a gpuvet bench document (schema is \"%s\", expected %s)"), schema,
                     BENCH_SCHEMA_NAME);
        else
            snprintf(err, errlen, _("not a gpuvet bench document (schema is missing, expected %s)"), BENCH_SCHEMA_NAME);
        return -1;
    }
    json_t *benchmarks = json_object_get(doc, "benchmarks");
    if (!json_is_object(benchmarks)) {
        snprintf(err, errlen, "%s", _("\"benchmarks\" is missing or not an object"));
        return -1;
    }
    b->source = strdup(source);
    json_t *memory = json_object_get(benchmarks, "memory"), *storage = json_object_get(benchmarks, "storage");
    if (!(b->mem_unmeasured = unmeasured_reason(memory, "memory")) &&
        positive(memory, "triad_bytes_s", &b->mem_triad_bytes_s, err, errlen, "memory"))
        goto bad;
    if (!(b->storage_unmeasured = unmeasured_reason(storage, "storage"))) {
        if (positive(storage, "seq_read_bytes_s", &b->storage_seq_read_bytes_s, err, errlen, "storage") ||
            positive(storage, "rand_read_iops", &b->storage_rand_read_iops, err, errlen, "storage"))
            goto bad;
        const char *dir = json_string_value(json_object_get(storage, "dir"));
        const char *file = json_string_value(json_object_get(storage, "file"));
        b->storage_dir = dir ? strdup(dir) : NULL;
        b->storage_file = file ? strdup(file) : NULL;
    }
    if (load_pcie(b, json_object_get(benchmarks, "pcie"), err, errlen))
        goto bad;
    if (load_gpu(b, json_object_get(benchmarks, "gpu"), err, errlen))
        goto bad;
    b->loaded = true;
    return 0;
bad:
    bench_results_free(b);
    return -1;
}

void bench_results_free(struct bench_results *b)
{
    free(b->source);
    free(b->mem_unmeasured);
    free(b->storage_dir);
    free(b->storage_file);
    free(b->storage_unmeasured);
    free(b->pcie);
    free(b->pcie_unmeasured);
    for (int i = 0; i < b->ngpu; i++) {
        free(b->gpu[i].error);
        free(b->gpu[i].memtest_error);
        free(b->gpu[i].compute_error);
    }
    free(b->gpu);
    free(b->gpu_unmeasured);
    free(b->gpu_pairs);
    free(b->gpu_pairs_unmeasured);
    free(b->nccl.gpus);
    free(b->nccl.unmeasured);
    for (int i = 0; i < b->nburn; i++) {
        free(b->burn[i].error);
        for (int k = 0; k < b->burn[i].nxids; k++)
            free(b->burn[i].xids[k].meaning);
        free(b->burn[i].xids);
        free(b->burn[i].fp8_unmeasured);
    }
    free(b->burn);
    free(b->burn_unmeasured);
    free(b->burn_xids_unseen);
    memset(b, 0, sizeof *b);
}

static json_t *measured(double v) { return v > 0 ? json_real(v) : json_null(); }

json_t *bench_results_json(const struct bench_results *b)
{
    if (!b->loaded)
        return json_null();
    json_t *pcie = json_array();
    for (int i = 0; i < b->npcie; i++)
        json_array_append_new(pcie, json_pack("{s:s, s:f, s:f, s:i, s:i}", "bus_id", b->pcie[i].bus_id,
                                              "h2d_pinned_bytes_s", b->pcie[i].h2d_pinned_bytes_s,
                                              "d2h_pinned_bytes_s", b->pcie[i].d2h_pinned_bytes_s, "near_node",
                                              b->pcie[i].near_node, "far_node", b->pcie[i].far_node));
    json_t *gpu = json_array(), *pairs = json_array();
    for (int i = 0; i < b->ngpu; i++) {
        const struct bench_gpu_device *g = &b->gpu[i];
        json_array_append_new(
            gpu, json_pack("{s:s, s:s?, s:o, s:o, s:o, s:o, s:o, s:o, s:s?}", "bus_id", g->bus_id, "spec",
                           *g->spec_id ? g->spec_id : NULL, "mem_bytes_s", measured(g->mem_bytes_s), "mem_peak_bytes_s",
                           measured(g->mem_peak_bytes_s), "fp32_flops", measured(g->fp32_flops), "fp32_peak_flops",
                           measured(g->fp32_peak_flops), "memtest_bytes",
                           g->memtest_errors >= 0 ? json_integer(g->memtest_bytes) : json_null(), "memtest_errors",
                           g->memtest_errors >= 0 ? json_integer(g->memtest_errors) : json_null(), "error", g->error));
        json_t *last = json_array_get(gpu, json_array_size(gpu) - 1);
        if (g->memtest_error) {
            json_object_set_new(last, "memtest_error", json_text(g->memtest_error));
            json_object_set_new(last, "memtest_uncorrectable_ecc", json_boolean(g->memtest_uncorrectable));
        }
        if (g->compute_error)
            json_object_set_new(last, "compute_error", json_text(g->compute_error));
    }
    for (int i = 0; i < b->ngpu_pairs; i++)
        json_array_append_new(pairs, json_pack("{s:s, s:s, s:b, s:o}", "from", b->gpu_pairs[i].from, "to",
                                               b->gpu_pairs[i].to, "peer_access", b->gpu_pairs[i].peer_access,
                                               "bytes_s", measured(b->gpu_pairs[i].bytes_s)));
    json_t *doc = json_pack("{s:s, s:o, s:s?, s:o, s:o, s:s?, s:s?, s:s?, s:o, s:s?, s:o, s:s?, s:o, s:s?}", "source", b->source,
                     "memory_triad_bytes_s", measured(b->mem_triad_bytes_s), "memory_unmeasured", b->mem_unmeasured,
                     "storage_seq_read_bytes_s", measured(b->storage_seq_read_bytes_s),
                     "storage_rand_read_iops", measured(b->storage_rand_read_iops), "storage_dir", b->storage_dir,
                     "storage_file", b->storage_file, "storage_unmeasured", b->storage_unmeasured, "pcie", pcie,
                     "pcie_unmeasured", b->pcie_unmeasured, "gpu", gpu, "gpu_unmeasured", b->gpu_unmeasured,
                     "gpu_pairs", pairs, "gpu_pairs_unmeasured", b->gpu_pairs_unmeasured);
    if (doc && b->ngpu > 0) { /* the all-reduce belongs to the per-GPU run, not to a --burn one */
        json_t *gpus = json_array();
        for (int i = 0; i < b->nccl.ngpus; i++)
            json_array_append_new(gpus, json_string(b->nccl.gpus[i]));
        json_object_set_new(doc, "gpu_nccl",
                            json_pack("{s:o, s:o, s:o, s:s?}", "busbw_bytes_s", measured(b->nccl.busbw_bytes_s),
                                      "bytes", b->nccl.bytes > 0 ? json_integer(b->nccl.bytes) : json_null(), "gpus",
                                      gpus, "unmeasured", b->nccl.unmeasured));
    }
    return doc;
}
