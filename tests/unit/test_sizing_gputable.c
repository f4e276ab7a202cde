/* The GPU table (data/gpus.csv) as renters meet it: the names providers and nvidia-smi write, one
 * way to settle a short name for every family, a published figure per added row, and a ResNet-50
 * rate (measured, or an estimate labelled as one) for every GPU with 16-bit tensor cores. */
#include <criterion/criterion.h>
#include <string.h>

#include "util/gputable.h"

static struct gpu_table table;

static void load(void)
{
    char err[512];
    cr_assert_eq(gpu_table_load(GPUVET_TEST_SOURCE "/../data/gpus.csv", &table, err, sizeof err), 0, "%s", err);
}

static void unload(void) { gpu_table_free(&table); }

static const struct gpu_spec *find(const char *name)
{
    char note[512], err[512];
    const struct gpu_spec *g = gpu_lookup(&table, name, note, sizeof note, err, sizeof err);
    cr_assert_not_null(g, "%s: %s", name, err);
    return g;
}

TestSuite(gputable, .init = load, .fini = unload);

/* Each added row resolves from the name nvidia-smi (or rocm-smi) prints, and one figure matches
 * the vendor's published value (the row's source). */
Test(gputable, added_rows_resolve_and_match_a_published_figure)
{
    struct {
        const char *smi_name, *id;
        double published;
        enum precision prec; /* PRECISION_COUNT: memory bandwidth GB/s instead */
    } cases[] = {
        {"NVIDIA A800 80GB PCIe", "a800-pcie-80gb", 312, PREC_BF16},       /* A800 datasheet: 624 sparse */
        {"NVIDIA A800-SXM4-80GB", "a800-sxm4-80gb", 2039, PRECISION_COUNT}, /* 2,039 GB/s */
        {"NVIDIA H800 80GB HBM3", "h800-sxm5-80gb", 989.4, PREC_BF16},     /* H800 SXM: 1,979 sparse */
        {"NVIDIA H800 PCIe", "h800-pcie-80gb", 2000, PRECISION_COUNT},
        {"NVIDIA H20", "h20-sxm-96gb", 148, PREC_BF16},
        {"NVIDIA L20", "l20-pcie-48gb", 864, PRECISION_COUNT},
        {"NVIDIA GeForce RTX 4090 D", "rtx-4090d-24gb", 1008, PRECISION_COUNT},
        {"NVIDIA RTX A6000", "rtx-a6000-48gb", 38.7, PREC_FP32},           /* datasheet: 38.7 TF FP32 */
        {"NVIDIA RTX A5000", "rtx-a5000-24gb", 27.8, PREC_FP32},
        {"NVIDIA RTX A4000", "rtx-a4000-16gb", 19.2, PREC_FP32},
        {"NVIDIA A10G", "a10g-24gb", 600, PRECISION_COUNT},
        {"NVIDIA GH200 480GB", "gh200-96gb", 4000, PRECISION_COUNT},        /* 96 GB HBM3 at 4 TB/s */
        {"NVIDIA H200 NVL", "h200-nvl-141gb", 835.5, PREC_BF16},            /* page: 1,671 with sparsity */
        {"NVIDIA GeForce RTX 5090", "rtx-5090-32gb", 1792, PRECISION_COUNT},
        {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-96gb", 125, PREC_FP32},
        {"NVIDIA B100", "b100-sxm-180gb", 1750, PREC_BF16},                 /* HGX B100: 28 PF sparse / 8 / 2 */
        {"NVIDIA B300", "b300-sxm-288gb", 288, -1},                         /* 288 GB HBM3e */
        {"AMD Instinct MI325X", "mi325x-oam-256gb", 6000, PRECISION_COUNT}, /* 6 TB/s */
        {"Quadro RTX 6000", "quadro-rtx-6000-24gb", 130.5, PREC_FP16},
        {"Quadro RTX 8000", "quadro-rtx-8000-48gb", 48, -1},
        {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb", 16, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct gpu_spec *g = find(cases[i].smi_name);
        cr_expect_str_eq(g->id, cases[i].id, "%s", cases[i].smi_name);
        double have = (int)cases[i].prec < 0                  ? g->memory_gb
                      : cases[i].prec == PRECISION_COUNT ? g->mem_bw_gbs
                                                         : g->dense[cases[i].prec];
        cr_expect_float_eq(have, cases[i].published, 1e-9, "%s: %g", cases[i].id, have);
        cr_expect(g->source && *g->source, "%s has a source", cases[i].id);
    }
}

/* The rows the table started with, likewise: each resolves from the name nvidia-smi (rocm-smi)
 * prints, and its memory bandwidth is the vendor's datasheet figure (the T4's FP16 rate instead:
 * its sheet gives 65 TF mixed precision). With the added rows above, every row of the table. */
Test(gputable, first_rows_resolve_and_match_a_published_figure)
{
    struct {
        const char *smi_name, *id;
        double published; /* GB/s */
    } cases[] = {
        {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb", 900},   {"Tesla V100-PCIE-32GB", "v100-pcie-32gb", 900},
        {"Tesla T4", "t4-pcie-16gb", 65},                   {"NVIDIA A10", "a10-pcie-24gb", 600},
        {"NVIDIA A30", "a30-pcie-24gb", 933},               {"NVIDIA A40", "a40-pcie-48gb", 696},
        {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb", 1555}, {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb", 1555},
        {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb", 1935}, {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb", 2039},
        {"NVIDIA L4", "l4-pcie-24gb", 300},                 {"NVIDIA L40", "l40-pcie-48gb", 864},
        {"NVIDIA L40S", "l40s-pcie-48gb", 864},             {"NVIDIA GeForce RTX 3090", "rtx-3090-24gb", 936},
        {"NVIDIA GeForce RTX 4090", "rtx-4090-24gb", 1008}, {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada-48gb", 960},
        {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb", 3350},  {"NVIDIA H100 PCIe", "h100-pcie-80gb", 2000},
        {"NVIDIA H100 NVL", "h100-nvl-94gb", 3900},         {"NVIDIA H200", "h200-sxm-141gb", 4800},
        {"NVIDIA B200", "b200-sxm-180gb", 7700},
        {"AMD Instinct MI250X", "mi250x-oam-128gb", 3276.8}, {"AMD Instinct MI300X", "mi300x-oam-192gb", 5300},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct gpu_spec *g = find(cases[i].smi_name);
        cr_expect_str_eq(g->id, cases[i].id, "%s", cases[i].smi_name);
        double have = !strcmp(cases[i].id, "t4-pcie-16gb") ? g->dense[PREC_FP16] : g->mem_bw_gbs;
        cr_expect_float_eq(have, cases[i].published, 1e-9, "%s: %g", cases[i].id, have);
        cr_expect(g->source && *g->source, "%s has a source", cases[i].id);
    }
    /* 23 here and 21 added above: a row added without its case makes this fail. */
    cr_expect_eq(table.count, 23 + 21, "the table has %d rows", table.count);
}

/* NVIDIA's HGX page, B200 column (8 GPUs): FP32 600 TF, TF32 18 PF with sparsity, 62 TB/s of HBM3e
 * bandwidth: per GPU 75 TF, 1,100 TF dense TF32 (2,200 sparse), ~7.7 TB/s. */
Test(gputable, b200_per_gpu_figures)
{
    const struct gpu_spec *g = find("B200");
    cr_expect_float_eq(g->dense[PREC_FP32], 75, 1e-9);
    cr_expect_float_eq(g->dense[PREC_TF32], 1100, 1e-9);
    cr_expect_float_eq(g->sparse[PREC_TF32], 2200, 1e-9);
    cr_expect_float_eq(g->mem_bw_gbs, 7700, 1e-9);
}

/* NVIDIA DeepLearningExamples (ResNet-50 v1.5, PyTorch, AMP, 1 GPU): DGX-1 16GB 1,200 img/s,
 * DGX-1 32GB 1,156 img/s: the 32 GB card has its own figure, not the 16 GB one's. */
Test(gputable, v100_resnet50_rates_per_memory_size)
{
    cr_expect_float_eq(find("v100-sxm2-32gb")->resnet50_img_s, 1156, 1e-9);
    cr_expect_float_eq(find("v100-sxm2-16gb")->resnet50_img_s, 1200, 1e-9);
    cr_expect(strstr(find("v100-sxm2-32gb")->resnet50_source, "32GB"));
}

/* The names providers write; a short name that fits several parts picks the same way for every
 * family (socketed before cards, then the most memory) and says so. */
Test(gputable, provider_names_and_one_rule_for_short_names)
{
    struct {
        const char *query, *id;
    } cases[] = {
        {"4090", "rtx-4090-24gb"},           {"RTX 4090", "rtx-4090-24gb"},      {"4090D", "rtx-4090d-24gb"},
        {"H100 SXM", "h100-sxm5-80gb"},      {"H100 PCIe", "h100-pcie-80gb"},    {"H100", "h100-sxm5-80gb"},
        {"A100 SXM4", "a100-sxm4-80gb"},     {"A100 PCIE", "a100-pcie-80gb"},    {"A100", "a100-sxm4-80gb"},
        {"A100-40GB", "a100-sxm4-40gb"},     {"V100", "v100-sxm2-32gb"},         {"A800", "a800-sxm4-80gb"},
        {"H800", "h800-sxm5-80gb"},          {"RTX A6000", "rtx-a6000-48gb"},    {"A6000", "rtx-a6000-48gb"},
        {"MI300X", "mi300x-oam-192gb"},      {"L40S", "l40s-pcie-48gb"},         {"L40", "l40-pcie-48gb"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_str_eq(find(cases[i].query)->id, cases[i].id, "%s", cases[i].query);
    char note[512], err[512];
    gpu_lookup(&table, "A100", note, sizeof note, err, sizeof err);
    cr_expect(strstr(note, "picked a100-sxm4-80gb") && strstr(note, "a100-pcie-40gb"), "%s", note);
}

Test(gputable, counts_as_offers_write_them)
{
    struct {
        const char *spec;
        int count;
    } cases[] = {{"8xH100", 8}, {"8 x H100", 8}, {"8*H100", 8}, {"H100*8", 8}, {"H100 x 8", 8}, {"H100", 1},
                 {"4 X A100-80GB", 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char note[512], err[512];
        int count = 0;
        const struct gpu_spec *g = gpu_lookup_counted(&table, cases[i].spec, &count, note, sizeof note, err, sizeof err);
        cr_assert_not_null(g, "%s: %s", cases[i].spec, err);
        cr_expect_eq(count, cases[i].count, "%s", cases[i].spec);
    }
    char note[512], err[512];
    int count;
    cr_expect_null(gpu_lookup_counted(&table, "0xH100", &count, note, sizeof note, err, sizeof err));
    cr_expect_not_null(gpu_lookup_counted(&table, "MI250X", &count, note, sizeof note, err, sizeof err),
                       "a name ending in X is not a count: %s", err);
}

/* The count of a GPU spec is per node: bounded by the one per-node limit every reader uses
 * (util/gpu_limits.h), not by a number of its own. */
Test(gputable, count_bounded_by_the_per_node_limit)
{
    char spec[64], note[512], err[512];
    int count = 0;
    snprintf(spec, sizeof spec, "%dxH100", GPU_MAX_PER_NODE);
    cr_expect_not_null(gpu_lookup_counted(&table, spec, &count, note, sizeof note, err, sizeof err), "%s", err);
    cr_expect_eq(count, GPU_MAX_PER_NODE);
    snprintf(spec, sizeof spec, "H100*%d", GPU_MAX_PER_NODE + 1);
    cr_expect_null(gpu_lookup_counted(&table, spec, &count, note, sizeof note, err, sizeof err), "%s was taken", spec);
    char limit[32];
    snprintf(limit, sizeof limit, "1 to %d", GPU_MAX_PER_NODE);
    cr_expect(strstr(err, limit) != NULL, "%s", err);
}

/* Every GPU with 16-bit tensor cores has a ResNet-50 rate: measured where NVIDIA published one,
 * else an estimate whose source says it is one. */
Test(gputable, resnet50_rate_for_every_gpu_that_trains)
{
    for (int i = 0; i < table.count; i++) {
        const struct gpu_spec *g = &table.gpus[i];
        if (g->dense[PREC_FP16] <= 0)
            continue;
        const char *source = NULL;
        double rate = gpu_resnet50_rate(g, &source);
        cr_expect_gt(rate, 0, "%s", g->id);
        if (g->resnet50_img_s <= 0)
            cr_expect(strstr(source, "estimate, not measured"), "%s: %s", g->id, source);
    }
    /* The H100 SXM: 2,470 x 3,350/2,039 (bandwidth is the lesser ratio) = 4,058. */
    const char *source;
    cr_expect_float_eq(gpu_resnet50_rate(find("h100-sxm5-80gb"), &source), 4058, 0.5);
    cr_expect(strstr(source, "memory bandwidth"), "%s", source);
}
