/* One home per number: the thresholds table (rules/workload.c) is where the CV pipeline's numbers
 * live, rationale text quotes it, and the reference A100's ResNet-50 rate comes from the GPU
 * table's row (data/gpus.csv), not a second copy. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule.h"
#include "rules/workload.h"
#include "testutil.h"
#include "util/gputable.h"

Test(thresholds, expand_quotes_the_table)
{
    char out[256];
    thresholds_expand("{cv-train.cv_reference_img_s} img/s, {cv-train.cv_decode_images_s_per_core} per core, "
                      "{cv-train.cores_for_reference} cores, {llm-train.cores_per_accelerator_min}; {nope.x} {a",
                      out, sizeof out);
    cr_assert_str_eq(out, "2470 img/s, 460 per core, 7 cores, 4; {nope.x} {a");
    thresholds_expand("{llm-train.cpu_boost_min_mhzGHz}, {general.claim_memory_page_map_share%}, "
                      "{general.claim_memory_fixed_reserve_bytesGiB}, {general.swappiness_max}", out, sizeof out);
    cr_assert_str_eq(out, "2.6 GHz, 1.6%, 2 GiB, 10");
    thresholds_expand("{cv-train.cv_image_bytes}", out, 4); /* truncated, still terminated */
    cr_assert_str_eq(out, "115");
}

Test(thresholds, every_rationale_placeholder_is_known)
{
    char out[4096], placeholder[32];
    for (int i = 0; i < rules_count; i++) {
        thresholds_expand(rules_table[i].rationale, out, sizeof out);
        for (int w = 0; w < WORKLOAD_COUNT; w++) {
            snprintf(placeholder, sizeof placeholder, "{%s.", workload_name((enum workload)w));
            cr_expect_null(strstr(out, placeholder), "%s: unknown threshold in \"%s\"", rules_table[i].id, out);
        }
    }
}

Test(thresholds, gpu_table_a100_rate_is_the_reference)
{
    struct gpu_table table;
    char err[512];
    cr_assert_eq(gpu_table_load(GPUVET_TEST_SOURCE "/../data/gpus.csv", &table, err, sizeof err), 0, "%s", err);
    double a100 = 0;
    for (int i = 0; i < table.count; i++)
        if (!strcmp(table.gpus[i].id, "a100-sxm4-80gb"))
            a100 = table.gpus[i].resnet50_img_s;
    gpu_table_free(&table);
    cr_assert_eq(a100, thresholds_for(WL_CV_TRAIN)->cv_reference_img_s,
                 "data/gpus.csv's A100 ResNet-50 rate and the thresholds table's reference differ");
}

Test(thresholds, explain_prints_the_table_values)
{
    struct run_result r = run_gpuvet("explain", "CPU_CORES_PER_GPU", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "ResNet-50 on 2470 img/s"), "%s", r.out);
    cr_assert(strstr(r.out, "needs 7 cores"), "%s", r.out);
    cr_assert_null(strstr(r.out, "{cv-train"), "%s", r.out);
    run_result_free(&r);
}

/* plan --help names the cv-train defaults from the table, not prose copies of them. */
Test(thresholds, plan_help_prints_the_table_values)
{
    const struct thresholds *cv = thresholds_for(WL_CV_TRAIN);
    char decode[64], image[64];
    snprintf(decode, sizeof decode, "(default %g)", cv->cv_decode_images_s_per_core);
    snprintf(image, sizeof image, "(default ImageNet's %.0f KB)", cv->cv_image_bytes / 1e3);
    struct run_result r = run_gpuvet("plan", "--help", NULL);
    cr_assert_eq(r.status, 0);
    cr_expect(strstr(r.out, decode), "no '%s' in: %s", decode, r.out);
    cr_expect(strstr(r.out, image), "no '%s' in: %s", image, r.out);
    cr_expect(strstr(r.out, "(0.4 or 40%; default 1 = peak)"), "%s", r.out);
    run_result_free(&r);
}

/* Change the A100 row's rate in a data folder and explain quotes the new figure: the thresholds
 * table holds no copy of its own. 3000 / 460 per core, rounded up, + 1 = 8 cores. */
Test(thresholds, the_reference_rate_is_the_gpu_tables)
{
    FILE *in = fopen(GPUVET_TEST_SOURCE "/../data/gpus.csv", "r");
    cr_assert_not_null(in);
    char dir[] = "/tmp/gpuvet-data-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[4096];
    /* A data folder holds every table: the others as they are. */
    snprintf(path, sizeof path, "cp -r '%s/../data/.' '%s/'", GPUVET_TEST_SOURCE, dir);
    cr_assert_eq(system(path), 0, "%s", path);
    snprintf(path, sizeof path, "%s/gpus.csv", dir);
    FILE *out = fopen(path, "w");
    cr_assert_not_null(out);
    char line[8192];
    int changed = 0;
    while (fgets(line, sizeof line, in)) {
        char *rate = strstr(line, ",2470,NVIDIA DeepLearningExamples");
        if (!strncmp(line, "a100-sxm4-80gb,", 15) && rate) {
            fprintf(out, "%.*s,3000%s", (int)(rate - line), line, rate + 5);
            changed++;
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    cr_assert_eq(changed, 1, "the A100 row's 2470 was not found");
    setenv("GPUVET_DATA_DIR", dir, 1);
    struct run_result r = run_gpuvet("explain", "CPU_CORES_PER_GPU", NULL);
    unsetenv("GPUVET_DATA_DIR");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "ResNet-50 on 3000 img/s"), "%s", r.out);
    cr_expect(strstr(r.out, "needs 8 cores"), "%s", r.out);
    run_result_free(&r);
    tree_remove(dir);
}
