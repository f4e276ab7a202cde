/* CPU_CORES_PER_GPU for CV training scales with the GPU's ResNet-50 rate from data/gpus.csv. */
#include <criterion/criterion.h>
#include <string.h>

#include "testutil.h"

#define DMI GPUVET_TEST_SOURCE "/fixtures/dmidecode/supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24.dmidecode.txt"
#define A100 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml"
#define RTX2080TI GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/pai-2x-rtx2080ti-ecc-na.xml"

static json_t *cores_finding(const char *xml, const char *workload)
{
    struct run_result r = run_gpuvet("audit", "--json", "--workload", workload, "--dmidecode", DMI, "--nvidia-smi",
                                     xml, NULL);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    json_t *list = findings_of(doc, "CPU_CORES_PER_GPU", "machine");
    cr_assert_eq(json_array_size(list), 1);
    json_t *f = json_incref(json_array_get(list, 0));
    json_decref(list);
    json_decref(doc);
    return f;
}

Test(cpu_cores_per_gpu, a100_rate_sets_the_cv_need)
{
    /* 2 x Xeon Silver 4114 = 20 physical cores for the one A100 the trimmed XML keeps. */
    json_t *f = cores_finding(A100, "cv-train");
    json_t *ev = json_object_get(f, "evidence");
    /* The A100's 2470 img/s / 460 per core = 6 decode cores + the training process, as plan counts. */
    cr_assert_eq(json_integer_value(json_object_get(ev, "need_per_accelerator")), 7);
    cr_assert(strstr(json_string_value(json_object_get(ev, "basis")), "this GPU's ResNet-50 rate (data/gpus.csv)"));
    cr_assert_str_eq(json_string_value(json_object_get(f, "severity")), "pass");
    json_decref(f);
}

Test(cpu_cores_per_gpu, unknown_rate_is_not_scaled_and_says_so)
{
    json_t *f = cores_finding(RTX2080TI, "cv-train");
    json_t *ev = json_object_get(f, "evidence");
    cr_assert_eq(json_integer_value(json_object_get(ev, "need_per_accelerator")), 7);
    cr_assert(strstr(json_string_value(json_object_get(ev, "basis")), "rate is not in data/gpus.csv: an A100's 2470"));
    json_decref(f);
    f = cores_finding(RTX2080TI, "llm-train");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(f, "evidence"), "need_per_accelerator")), 4);
    json_decref(f);
}
