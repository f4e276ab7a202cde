/* gpuvet plan's balance model on recorded machines (tests/fixtures/sysroot) with saved bench
 * documents (tests/fixtures/bench): every stage's number is recomputed here by hand from the
 * documents' own figures, with the formula next to it. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>

#include "testutil.h"

#define BENCH(name) GPUVET_TEST_SOURCE "/fixtures/bench/" name

/* ImageNet-1k train: 147.9e9 bytes / 1,281,167 JPEGs (the thresholds table's image size). */
#define IMAGE_BYTES (147.9e9 / 1281167)
/* float32 3x224x224, the sample torchvision's reference sends to the GPU */
#define SAMPLE_BYTES (3.0 * 224 * 224 * 4)
/* One PCIe lane's bytes/s per direction: GT/s x 128/130 / 8 (Gen3 and later). */
#define LANE_BYTES_S(gt) ((gt) * 1e9 * 128 / 130 / 8)

static json_t *balance_of(struct run_result *r, int status)
{
    cr_assert_eq(r->status, status, "exit %d, stderr: %s", r->status, r->err);
    json_t *doc = run_json(r);
    json_t *balance = json_object_get(json_object_get(doc, "plan"), "balance");
    cr_assert(json_is_object(balance), "no plan.balance");
    json_incref(balance);
    json_decref(doc);
    return balance;
}

static json_t *stage(json_t *balance, const char *name)
{
    json_t *s = array_entry(json_object_get(balance, "stages"), "name", name);
    cr_assert(s, "no stage %s", name);
    return s;
}

static double capacity(json_t *balance, const char *name)
{
    json_t *c = json_object_get(stage(balance, name), "capacity");
    cr_assert(json_is_number(c), "%s has no capacity", name);
    return json_number_value(c);
}

static const char *basis(json_t *balance, const char *name)
{
    return json_string_value(json_object_get(stage(balance, name), "basis"));
}

#define expect_close(got, want) \
    cr_expect(fabs((got) - (want)) <= 1e-6 * fabs(want) + 1e-9, "got %.6f, want %.6f", (double)(got), (double)(want))

/* The recorded two-socket Xeon (16 cores, 8 accelerators at Gen3 x16) with the development VM's
 * bench document (memory, storage, decode): 4 x A100, one node. */
Test(plan_balance, cv_train_stages_on_recorded_xeon_with_saved_bench)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check",
                                     "--sysroot", fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench",
                                     BENCH("vm-epyc-2vcpu-quick.json"), "--json", NULL);
    /* exit 1: --check finds the cores short (16 of the 44 the plan asks at the measured decode rate) */
    json_t *b = balance_of(&r, 1);
    cr_expect_str_eq(json_string_value(json_object_get(b, "unit")), "images/s");
    /* storage: one random read plus the file at the sequential rate per image */
    expect_close(capacity(b, "storage"), 1.0 / (1.0 / 18594.4 + IMAGE_BYTES / 5.14789e8));
    cr_expect_str_eq(basis(b, "storage"), "measured");
    /* decode: (16 cores - 4 training processes - 4 for the OS) x 307.723 per core */
    expect_close(capacity(b, "cpu_decode"), (16 - 4 - 4) * 307.723);
    cr_expect_str_eq(basis(b, "cpu_decode"), "measured");
    /* host memory: triad / (2 files + 6 samples) */
    expect_close(capacity(b, "host_memory"), 1.38726e10 / (2 * IMAGE_BYTES + 6 * SAMPLE_BYTES));
    /* PCIe: no pcie bench: 4 GPUs x Gen3 x16 x 79 % / sample */
    expect_close(capacity(b, "pcie"), 4 * LANE_BYTES_S(8) * 16 * 0.79 / SAMPLE_BYTES);
    cr_expect_str_eq(basis(b, "pcie"), "estimated");
    /* GPU: 4 x the A100's published 2,470 images/s */
    expect_close(capacity(b, "gpu_compute"), 4 * 2470.0);
    cr_expect_str_eq(basis(b, "gpu_compute"), "published");
    cr_expect_str_eq(basis(b, "network"), "not_used");
    cr_expect(json_is_null(json_object_get(stage(b, "network"), "capacity")));
    cr_expect_str_eq(json_string_value(json_object_get(b, "bottleneck")), "cpu_decode");
    expect_close(json_number_value(json_object_get(b, "rate_per_node")), 8 * 307.723);
    /* One GPU: (16 - 1 - 4) x 307.723 = 3,385 decoded, the GPU takes 2,470 >= 2,462: nothing lost. */
    cr_expect_eq(json_integer_value(json_object_get(b, "gpus_without_loss")), 1);
    const char *advice = json_string_value(json_object_get(b, "advice"));
    cr_expect(strstr(advice, "decode-bound at 2,462 images/s per node"), "%s", advice);
    cr_expect(strstr(advice, "1 GPU would lose nothing"), "%s", advice);
    json_decref(b);
    run_result_free(&r);
}

/* Several --bench files: a later file's measurement replaces an earlier one's, the rest stay. */
Test(plan_balance, later_bench_file_replaces_a_measurement)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "2xa100-sxm4-80gb", "--check",
                                     "--sysroot", fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench",
                                     BENCH("vm-epyc-2vcpu-contended.json"), "--bench",
                                     BENCH("vm-epyc-2vcpu-decode.json"), "--json", NULL);
    json_t *b = balance_of(&r, 1); /* 16 cores of the 18 the plan asks: --check says short */
    /* decode from the second file: (16 - 2 - 4) x 146.227 */
    expect_close(capacity(b, "cpu_decode"), 10 * 146.227);
    /* memory and storage from the first */
    expect_close(capacity(b, "host_memory"), 2.89341e9 / (2 * IMAGE_BYTES + 6 * SAMPLE_BYTES));
    expect_close(capacity(b, "storage"), 1.0 / (1.0 / 16727.4 + IMAGE_BYTES / 4.42791e8));
    /* the contended VM's memory (2.9 GB/s) is the slowest stage: 2.89341e9 / 3,843,555 B = 753 */
    cr_expect_str_eq(json_string_value(json_object_get(b, "bottleneck")), "host_memory");
    json_decref(b);
    run_result_free(&r);
}

/* A recorded H200 guest (Gen5 x16 GPU, 16 cores, virtio disk) without bench documents: estimates,
 * each labelled, and the storage unknown rather than guessed. */
Test(plan_balance, estimates_without_bench_are_labelled)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "1xh200-sxm-141gb", "--check",
                                     "--sysroot", fixture("sysroot/h200-firecracker-vm"), "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    json_t *plan = json_object_get(doc, "plan");
    double per_gpu = json_number_value(json_object_get(json_object_get(plan, "pipeline"), "images_s_per_gpu"));
    json_t *b = json_object_get(plan, "balance");
    cr_assert(json_is_object(b));
    /* decode: (16 - 1 - 4) x 460, the thresholds table's per-core rate */
    expect_close(capacity(b, "cpu_decode"), 11 * 460.0);
    cr_expect_str_eq(basis(b, "cpu_decode"), "estimated");
    /* PCIe: Gen5 x16 x 88 % / sample */
    expect_close(capacity(b, "pcie"), LANE_BYTES_S(32) * 16 * 0.88 / SAMPLE_BYTES);
    expect_close(capacity(b, "gpu_compute"), per_gpu);
    cr_expect_str_eq(basis(b, "storage"), "unknown");
    cr_expect(strstr(json_string_value(json_object_get(stage(b, "storage"), "source")), "gpuvet bench storage"));
    cr_expect_str_eq(basis(b, "host_memory"), "unknown");
    json_decref(doc);
    run_result_free(&r);
}

/* llm-train on 4 nodes of the recorded two-socket machine with a 56 Gb/s InfiniBand port and 8
 * DDR3-1600 DIMMs: network, host memory and compute by hand. */
Test(plan_balance, llm_train_multi_node_network_and_compute)
{
    struct run_result r = run_gpuvet("plan", "--workload", "llm-train", "--model", "llama-3.1-8b", "--gpus",
                                     "8xh100-sxm5-80gb", "--nodes", "4", "--zero", "3", "--check", "--sysroot",
                                     fixture("sysroot/32em64t-2n8c+1mic"), "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    json_t *plan = json_object_get(doc, "plan");
    json_t *model = json_object_get(plan, "model");
    double params = json_number_value(json_object_get(model, "params"));
    double active = json_number_value(json_object_get(model, "active_params"));
    json_t *b = json_object_get(plan, "balance");
    cr_assert(json_is_object(b));
    cr_expect_str_eq(json_string_value(json_object_get(b, "unit")), "tokens/s");
    /* tokens per step per node: 8 GPUs x micro-batch 1 x seq 4096 */
    double tokens = 8.0 * 4096;
    /* network: 56 Gb/s / 8 x tokens / (2 x 3/4 x 2 B x params x 1.5 for ZeRO-3) */
    expect_close(capacity(b, "network"), 56e9 / 8 * tokens / (2.0 * 3 / 4 * 2 * params * 1.5));
    /* host memory: 8 DIMMs x 1600 MT/s x 8 B = 102.4 GB/s x 70 %, / (2 x 4 B ids + 6 x 16 B) per token
     * (vocabulary 128,256 does not fit uint16) */
    expect_close(capacity(b, "host_memory"), 102.4e9 * 0.70 / (2 * 4 + 6 * 16));
    cr_expect_str_eq(basis(b, "host_memory"), "estimated");
    /* compute: 8 x 989.4 TFLOPS (the table's dense BF16) x 0.40 / (3 x (2 x active + 2 x 32 layers x
     * 4096 x 32 heads x 128)) */
    expect_close(capacity(b, "gpu_compute"), 8 * 989.4e12 * 0.40 / (3 * (2 * active + 2.0 * 32 * 4096 * 32 * 128)));
    cr_expect_str_eq(json_string_value(json_object_get(b, "bottleneck")), "network");
    expect_close(json_number_value(json_object_get(b, "rate_job")), 4 * capacity(b, "network"));
    /* the loader stage is not modelled: unknown, with the reason */
    cr_expect_str_eq(basis(b, "cpu_loader"), "unknown");
    json_decref(doc);
    run_result_free(&r);
}

/* With a saved audit the machine itself is not at hand: its stages are unknown with the reason,
 * and what the bench documents measured still counts. */
Test(plan_balance, audit_file_keeps_the_bench_measurements)
{
    struct run_result a = run_gpuvet("audit", "--json", "--sysroot", fixture("sysroot/32intel64-2p8co2t+8ve"), NULL);
    char path[] = "/tmp/gpuvet-balance-audit-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, a.out, strlen(a.out)), (ssize_t)strlen(a.out));
    close(fd);
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check", path,
                                     "--bench", BENCH("vm-epyc-2vcpu-quick.json"), "--json", NULL);
    json_t *b = balance_of(&r, 1);
    cr_expect_str_eq(basis(b, "cpu_decode"), "unknown");
    cr_expect(strstr(json_string_value(json_object_get(stage(b, "cpu_decode"), "source")), "audit file"));
    cr_expect_str_eq(basis(b, "storage"), "measured");
    cr_expect_str_eq(basis(b, "host_memory"), "measured");
    cr_expect_str_eq(json_string_value(json_object_get(b, "bottleneck")), "storage");
    json_decref(b);
    unlink(path);
    run_result_free(&a);
    run_result_free(&r);
}

Test(plan_balance, text_report_names_the_bottleneck)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check",
                                     "--sysroot", fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench",
                                     BENCH("vm-epyc-2vcpu-quick.json"), NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, "Balance per node, in images/s"), "%s", r.out);
    cr_expect(strstr(r.out, "> cpu_decode"), "%s", r.out);
    cr_expect(strstr(r.out, "4 GPUs and this machine: decode-bound at 2,462 images/s per node"), "%s", r.out);
    run_result_free(&r);
}

Test(plan_balance, bench_option_errors_name_the_problem)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--bench",
                                     BENCH("vm-epyc-2vcpu-quick.json"), NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--bench goes with --check"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("plan", "--workload", "llm-infer", "--model", "mistral-7b", "--gpus", "1xl4", "--check", "--sysroot",
                   fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench", BENCH("vm-epyc-2vcpu-quick.json"), NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--bench does not apply to --workload llm-infer"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check", "--sysroot",
                   fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench", "/nonexistent/bench.json", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "/nonexistent/bench.json"), "%s", r.err);
    run_result_free(&r);
    /* a plan document is not a bench document */
    r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check", "--sysroot",
                   fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench",
                   GPUVET_TEST_SOURCE "/fixtures/plan/llama-2-7b-hf.config.json", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "llama-2-7b-hf.config.json: not a gpuvet bench document"), "%s", r.err);
    run_result_free(&r);
}

/* A --bench decode measurement sizes the cores requirement too (not only the balance's decode
 * stage): per GPU ceil(2,470 images/s / 307.723 per core) + 1 training process = 10, x 4 GPUs + 4
 * for the OS = 44 cores; without it the table's 460 per core gives ceil(5.37) + 1 = 7, 4 x 7 + 4 = 32. */
Test(plan_balance, bench_decode_rate_sizes_the_cores)
{
    static const struct {
        bool with_bench;
        double per_core;
        const char *basis;
        int cores_per_node;
    } cases[] = {{true, 307.723, "measured", 4 * (9 + 1) + 4}, {false, 460, "table", 4 * (6 + 1) + 4}};
    for (size_t i = 0; i < 2; i++) {
        struct run_result r =
            cases[i].with_bench
                ? run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check", "--sysroot",
                             fixture("sysroot/32intel64-2p8co2t+8ve"), "--bench", BENCH("vm-epyc-2vcpu-quick.json"),
                             "--json", NULL)
                : run_gpuvet("plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check", "--sysroot",
                             fixture("sysroot/32intel64-2p8co2t+8ve"), "--json", NULL);
        cr_assert_eq(r.status, 1, "16 cores are short either way: %s", r.err);
        json_t *doc = run_json(&r), *plan = json_object_get(doc, "plan");
        json_t *pipeline = json_object_get(plan, "pipeline");
        expect_close(json_number_value(json_object_get(pipeline, "images_s_per_core")), cases[i].per_core);
        cr_expect_str_eq(json_string_value(json_object_get(pipeline, "images_s_per_core_basis")), cases[i].basis);
        if (cases[i].with_bench)
            cr_expect(strstr(json_string_value(json_object_get(pipeline, "images_s_per_core_source")),
                             "vm-epyc-2vcpu-quick.json"));
        json_t *cores = json_object_get(json_object_get(plan, "requirements"), "cpu_cores_per_node");
        cr_expect_eq(json_integer_value(json_object_get(cores, "value")), cases[i].cores_per_node, "case %zu", i);
        json_decref(doc);
        run_result_free(&r);
    }
}

/* The storage read rate is a rate: JSON says so (unit bytes/s) and the text shows GB/s, the
 * requirement's images/s per node x the image size. */
Test(plan_balance, storage_check_is_a_rate)
{
    const char *args[] = {"plan", "--workload", "cv-train", "--gpus", "1xh200-sxm-141gb", "--check", "--sysroot",
                          fixture("sysroot/h200-firecracker-vm")};
    struct run_result j = run_gpuvet(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], "--json",
                                     NULL);
    cr_assert(j.status == 0 || j.status == 1, "exit %d: %s", j.status, j.err);
    json_t *doc = run_json(&j);
    json_t *plan = json_object_get(doc, "plan");
    json_t *item = array_entry(json_object_get(plan, "check"), "what", "storage read rate");
    cr_assert(item, "no storage read rate check");
    cr_expect_str_eq(json_string_value(json_object_get(item, "unit")), "bytes/s");
    double need = json_number_value(json_object_get(item, "need"));
    double per_gpu = json_number_value(json_object_get(json_object_get(plan, "pipeline"), "images_s_per_gpu"));
    expect_close(need, per_gpu * IMAGE_BYTES);
    struct run_result t = run_gpuvet(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], NULL);
    char want[64];
    snprintf(want, sizeof want, "need %.2f GB/s", need / 1e9);
    cr_expect(strstr(t.out, want), "no '%s' in:\n%s", want, t.out);
    json_decref(doc);
    run_result_free(&j);
    run_result_free(&t);
}
