/* gpuvet gpus as users run it: the whole table, name resolution, and a broken table file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int data_rows(void)
{
    FILE *f = fopen(GPUVET_TEST_SOURCE "/../data/gpus.csv", "r");
    cr_assert_not_null(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines - 1; /* the header */
}

static json_t *gpu_field(json_t *g, const char *precision, const char *kind)
{
    return json_object_get(json_object_get(json_object_get(g, "tflops"), precision), kind);
}

Test(gpus, lists_every_row_with_dense_and_sparse_apart)
{
    struct run_result r = run_gpuvet("gpus", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r), *list = json_object_get(doc, "gpus"), *g;
    cr_expect_eq(json_array_size(list), (size_t)data_rows());
    size_t i;
    json_array_foreach(list, i, g) {
        cr_expect(json_string_length(json_object_get(g, "source")) > 0, "%zu has a source", i);
        const char *precisions[] = {"tf32", "fp16", "bf16", "fp8", "int8"};
        for (size_t p = 0; p < 5; p++) {
            json_t *dense = gpu_field(g, precisions[p], "dense"), *sparse = gpu_field(g, precisions[p], "sparse");
            if (json_is_number(sparse))
                cr_expect_lt(json_number_value(dense), json_number_value(sparse), "%s %s",
                             json_string_value(json_object_get(g, "id")), precisions[p]);
        }
    }
    json_decref(doc);
    run_result_free(&r);
}

/* Canonical ids, nvidia-smi product names (the one in corpus/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml)
 * and short forms resolve; a short form that names several parts picks the socketed one and says so. */
Test(gpus, resolves_names)
{
    struct run_result r = run_gpuvet("gpus", "--json", "NVIDIA A100-SXM4-80GB", "h100-sxm5-80gb", "H100-80GB",
                                     "Tesla T4", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r), *list = json_object_get(doc, "gpus");
    cr_assert_eq(json_array_size(list), 4);
    const char *ids[] = {"a100-sxm4-80gb", "h100-sxm5-80gb", "h100-sxm5-80gb", "t4-pcie-16gb"};
    for (size_t i = 0; i < 4; i++)
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(list, i), "id")), ids[i]);
    cr_expect_null(json_object_get(json_array_get(list, 1), "note"), "an id is exact");
    cr_expect(strstr(json_string_value(json_object_get(json_array_get(list, 2), "note")), "picked h100-sxm5-80gb"));
    cr_expect_eq(json_number_value(gpu_field(json_array_get(list, 1), "fp16", "dense")), 989.4);
    cr_expect_eq(json_number_value(gpu_field(json_array_get(list, 1), "fp16", "sparse")), 1979);
    json_decref(doc);
    run_result_free(&r);
}

Test(gpus, unknown_and_ambiguous_names)
{
    struct run_result r = run_gpuvet("gpus", "H100-90GB", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "closest: h100-"), "%s", r.err);
    run_result_free(&r);
    /* A100 names four parts: the same rule as for every family picks the socketed one with the most
     * memory and lists the others. */
    r = run_gpuvet("gpus", "--json", "A100", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "a100-sxm4-80gb") && strstr(r.out, "a100-sxm4-40gb"), "%s", r.out);
    run_result_free(&r);
}

/* GPUVET_DATA_DIR points at a table with a broken row: the error names FILE:LINE. */
Test(gpus, broken_table_names_file_and_line)
{
    char dir[] = "/tmp/gpuvet-data-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cp '%s/../data/'*.csv '%s' && head -4 '%s/../data/gpus.csv' > '%s/gpus.csv' && "
             "echo 'x,\"broken' >> '%s/gpus.csv'", GPUVET_TEST_SOURCE, dir, GPUVET_TEST_SOURCE, dir, dir);
    cr_assert_eq(system(cmd), 0);
    setenv("GPUVET_DATA_DIR", dir, 1);
    struct run_result r = run_gpuvet("gpus", NULL);
    unsetenv("GPUVET_DATA_DIR");
    cr_expect_eq(r.status, 2);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/gpus.csv:5: unterminated quoted field", dir);
    cr_expect(strstr(r.err, expected), "%s", r.err);
    run_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
