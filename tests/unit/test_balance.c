/* The balance model's llm-train arithmetic that the recorded machines do not reach (offload over
 * PCIe, LoRA's passes, full recompute), with no machine: the GPU table's own PCIe interface and
 * dense BF16 rate, each formula written out. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sizing/balance.h"

static struct gpu_table table;

static void load(void)
{
    char err[512];
    cr_assert_eq(gpu_table_load(GPUVET_TEST_SOURCE "/../data/gpus.csv", &table, err, sizeof err), 0, "%s", err);
}

static void unload(void) { gpu_table_free(&table); }

static const struct gpu_spec *gpu(const char *name)
{
    char note[256], err[512];
    const struct gpu_spec *g = gpu_lookup(&table, name, note, sizeof note, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    return g;
}

/* Llama-2-7B's shape (6,738,415,616 parameters, 32 layers, 32 x 128 attention width), 8 x A100 80GB,
 * seq 4096, micro-batch 1, one node. */
static struct balance_job llama_job(void)
{
    return (struct balance_job){.workload = WL_LLM_TRAIN, .gpu = gpu("a100-sxm4-80gb"), .gpus_per_node = 8,
                                .nodes = 1, .params = 6738415616.0, .active_params = 6738415616.0, .layers = 32,
                                .attention_width = 4096, .vocab = 32000, .seq = 4096, .micro_batch = 1,
                                .zero_stage = 2};
}

static const struct balance_stage *stage(const struct balance *b, const char *name)
{
    for (int i = 0; i < b->nstages; i++)
        if (!strcmp(b->stages[i].name, name))
            return &b->stages[i];
    cr_assert_fail("no stage %s", name);
    return NULL;
}

#define expect_close(got, want) \
    cr_expect(fabs((got) - (want)) <= 1e-9 * fabs(want), "got %.6f, want %.6f", (double)(got), (double)(want))

/* The A100's own Gen4 x16: 16 GT/s x 128/130 / 8 x 16 lanes x 83 % (pinned copies on Gen4). */
#define A100_PCIE_BYTES_S (16e9 * 128 / 130 / 8 * 16 * 0.83)
/* (2N + 2 x 32 x 4096 x 4096) FLOPs per token and forward pass */
#define LLAMA_FORWARD_FLOPS (2 * 6738415616.0 + 2.0 * 32 * 4096 * 4096)

Test(balance, llm_train_without_offload_is_compute_bound, .init = load, .fini = unload)
{
    struct balance_job job = llama_job();
    struct balance b;
    balance_compute(&job, NULL, NULL, NULL, &b);
    /* 8 x 312 TFLOPS x 0.40 / (3 x forward) */
    expect_close(stage(&b, "gpu_compute")->capacity, 8 * 312e12 * 0.40 / (3 * LLAMA_FORWARD_FLOPS));
    /* PCIe carries 16 B per token: 8 x rate / 16 */
    expect_close(stage(&b, "pcie")->capacity, 8 * A100_PCIE_BYTES_S / 16);
    cr_expect_eq(stage(&b, "storage")->basis, BASIS_UNKNOWN);
    cr_expect_eq(stage(&b, "network")->basis, BASIS_NOT_USED);
    /* No machine: storage, the loader and host memory are unknown, so the GPUs being the slowest
     * known stage makes no bottleneck: never "GPU-bound, nothing upstream holds the GPUs back". */
    cr_expect_eq(b.bottleneck, -1);
    cr_expect(strstr(b.advice, "the bottleneck is unknown: storage"), "%s", b.advice);
    cr_expect_null(strstr(b.advice, "GPU-bound"), "%s", b.advice);
}

/* ZeRO-2 with the optimizer on the CPU: each GPU receives its bf16 parameter partition (2 B x N / 8)
 * after every step besides the 16 B per token; ZeRO-3 with parameters on the CPU fetches the
 * partition again for the forward and the backward pass (3x). */
Test(balance, offload_moves_the_parameter_partition_over_pcie, .init = load, .fini = unload)
{
    struct balance_job job = llama_job();
    job.offload_optimizer = true;
    struct balance b;
    balance_compute(&job, NULL, NULL, NULL, &b);
    double partition = 2 * 6738415616.0 / 8;
    expect_close(stage(&b, "pcie")->capacity, 8 * A100_PCIE_BYTES_S * 4096 / (16 * 4096 + partition));
    job.zero_stage = 3;
    job.offload_params = true;
    balance_compute(&job, NULL, NULL, NULL, &b);
    expect_close(stage(&b, "pcie")->capacity, 8 * A100_PCIE_BYTES_S * 4096 / (16 * 4096 + 3 * partition));
    /* 7B at 3 x 1.68 GB per step still leaves PCIe (~170k tokens/s) above the compute (~23k); the
     * unknown stages (no machine) leave the bottleneck unknown. */
    cr_expect_gt(stage(&b, "pcie")->capacity, stage(&b, "gpu_compute")->capacity);
    cr_expect_eq(b.bottleneck, -1);
}

/* LoRA computes no weight gradients of the frozen matrices: 2 passes, 3 with full recompute. */
Test(balance, lora_and_recompute_passes, .init = load, .fini = unload)
{
    struct balance_job job = llama_job();
    job.adapter_params = 39976960; /* rank 16 on every linear layer */
    struct balance b;
    balance_compute(&job, NULL, NULL, NULL, &b);
    expect_close(stage(&b, "gpu_compute")->capacity, 8 * 312e12 * 0.40 / (2 * LLAMA_FORWARD_FLOPS));
    job.full_recompute = true;
    balance_compute(&job, NULL, NULL, NULL, &b);
    expect_close(stage(&b, "gpu_compute")->capacity, 8 * 312e12 * 0.40 / (3 * LLAMA_FORWARD_FLOPS));
    job.adapter_params = 0;
    balance_compute(&job, NULL, NULL, NULL, &b);
    expect_close(stage(&b, "gpu_compute")->capacity, 8 * 312e12 * 0.40 / (4 * LLAMA_FORWARD_FLOPS));
}

Test(balance, job_from_plan_covers_the_training_workloads, .init = load, .fini = unload)
{
    json_t *plan = json_pack("{s:s, s:i, s:{s:i}}", "workload", "llm-infer", "nodes", 1, "gpu", "count_per_node", 1);
    struct balance_job job;
    char err[256];
    cr_expect_eq(balance_job_from_plan(plan, gpu("a100-sxm4-80gb"), &job, err, sizeof err), -1);
    json_object_set_new(plan, "workload", json_string("cv-train"));
    cr_expect_eq(balance_job_from_plan(plan, gpu("a100-sxm4-80gb"), &job, err, sizeof err), -1, "no pipeline");
    json_object_set_new(plan, "pipeline",
                        json_pack("{s:f, s:f, s:f, s:s, s:s}", "images_s_per_gpu", 2470.0, "images_s_per_core", 460.0,
                                  "image_bytes", 115442.0, "images_s_source", "table", "images_s_per_core_source",
                                  "default"));
    cr_expect_eq(balance_job_from_plan(plan, gpu("a100-sxm4-80gb"), &job, err, sizeof err), 0, "%s", err);
    cr_expect_eq(job.images_s_per_gpu, 2470.0);
    json_decref(plan);
}

Test(balance, counts_read_as_people_write_them)
{
    char buf[32];
    balance_format_count(2900.4, buf, sizeof buf);
    cr_expect_str_eq(buf, "2,900");
    balance_format_count(1234567, buf, sizeof buf);
    cr_expect_str_eq(buf, "1,234,567");
    balance_format_count(999, buf, sizeof buf);
    cr_expect_str_eq(buf, "999");
}

/* Storage for llm-train, from the development VM's saved bench document: one random access and
 * the sample's token ids per sequence; 2 B ids for Llama-2's 32,000-token vocabulary, 4 B for
 * Llama-3's 128,256. */
Test(balance, llm_storage_reads_token_ids_from_the_bench_document, .init = load, .fini = unload)
{
    const char *paths[] = {GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-quick.json"};
    struct balance_measured measured;
    char err[512];
    cr_assert_eq(balance_measured_load(&measured, paths, 1, err, sizeof err), 0, "%s", err);
    struct balance_job job = llama_job();
    struct balance b;
    balance_compute(&job, NULL, NULL, &measured, &b);
    expect_close(stage(&b, "storage")->capacity, 4096 / (1 / 18594.4 + 4096 * 2 / 5.14789e8));
    cr_expect_eq(stage(&b, "storage")->basis, BASIS_MEASURED);
    /* host memory: triad / (2 x 2 B + 6 x 16 B) per token */
    expect_close(stage(&b, "host_memory")->capacity, 1.38726e10 / (2 * 2 + 6 * 16));
    job.vocab = 128256;
    balance_compute(&job, NULL, NULL, &measured, &b);
    expect_close(stage(&b, "storage")->capacity, 4096 / (1 / 18594.4 + 4096 * 4 / 5.14789e8));
}
