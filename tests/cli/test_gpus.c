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

/* Card memory in the units the card has: nvidia-smi's MiB (H100 80GB HBM3: 81559 MiB, NVIDIA/nccl
 * issue #1264; L40S: 46068 MiB, akash-network/provider-configs PR #99), rocm-smi's bytes (MI300X:
 * 206141652992 B, ROCm/legacy-rocm-build issue #4750), and an MI250X as two 64 GB devices. */
Test(gpus, memory_is_per_device_as_the_driver_reports_it)
{
    struct run_result r = run_gpuvet("gpus", "--json", "h100-sxm5-80gb", "l40s-pcie-48gb", "mi300x-oam-192gb",
                                     "mi250x-oam-128gb", "a30-pcie-24gb", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r), *list = json_object_get(doc, "gpus");
    cr_assert_eq(json_array_size(list), 5, "%s", r.out);
    static const double bytes[] = {81559.0 * 1048576, 46068.0 * 1048576, 206141652992.0, 64e9, 24e9};
    static const int devices[] = {1, 1, 1, 2, 1};
    for (size_t i = 0; i < 5; i++) {
        json_t *g = json_array_get(list, i);
        cr_expect_float_eq(json_number_value(json_object_get(g, "memory_bytes_per_device")), bytes[i], 1,
                           "%s", json_string_value(json_object_get(g, "id")));
        cr_expect_eq(json_integer_value(json_object_get(g, "devices")), devices[i]);
        cr_expect(json_string_length(json_object_get(g, "memory_source")) > 0);
    }
    /* The A30 has no driver figure recorded: its vendor GB, said so, and memory_mib null. */
    json_t *a30 = json_array_get(list, 4);
    cr_expect(json_is_null(json_object_get(a30, "memory_mib")));
    cr_expect(strstr(json_string_value(json_object_get(a30, "memory_source")), "lower bound"));
    json_decref(doc);
    run_result_free(&r);
}

/* A MiB column holding GB (80 instead of 81559) is refused, naming the file and line. */
Test(gpus, memory_mib_far_from_the_vendor_figure_is_refused)
{
    char dir[] = "/tmp/gpuvet-gpus-mib-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cp '%s/../data/'*.csv '%s' && printf '%%s\\n' "
             "'id,gpu,variant,memory_gb,mem_bw_gbs,source,memory_mib,memory_mib_source' "
             "'h100-x,H100,SXM5 80GB,80,3350,https://example.invalid/h100,80,nvidia-smi' > '%s/gpus.csv'",
             GPUVET_TEST_SOURCE, dir, dir);
    cr_assert_eq(system(cmd), 0);
    setenv("GPUVET_DATA_DIR", dir, 1);
    struct run_result r = run_gpuvet("gpus", NULL);
    unsetenv("GPUVET_DATA_DIR");
    cr_expect_eq(r.status, 2, "%s", r.out);
    cr_expect(strstr(r.err, "gpus.csv:2: memory_mib 80 is not within"), "%s", r.err);
    run_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The list at COLUMNS=80 and 100 (English). The bound, set before running it: no line wider than
 * the width unless it is one unbreakable token; a GPU takes at most 2 lines at 80 columns (its row
 * and one continuation of the link name, or an id too long for its column on a line of its own),
 * so the table holds at most 2 x GPUs + 2 header lines + 6 footer lines, and the list at 80 columns
 * is at most a quarter longer than at 100 (it doubled when the whole table was rewrapped). At 80
 * columns FP64 and TDP make room for the link name and the footer says where they are; at 100 they
 * are there. A link name's continuation starts under the link name. */
static char *gpus_list_at(int columns, int *lines)
{
    char command[512];
    snprintf(command, sizeof command, "COLUMNS=%d LANG=C LC_ALL=C LANGUAGE= '%s' gpus", columns, GPUVET_BIN);
    int status;
    char *out = run_shell(command, &status);
    cr_assert_eq(status, 0, "%s", out);
    *lines = 0;
    const char *line = out;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t indent = strspn(line, " ");
        cr_expect(len <= (size_t)columns || !memchr(line + indent, ' ', len - indent),
                  "COLUMNS=%d: a line of %zu columns: %.*s", columns, len, (int)len, line);
        (*lines)++;
        line += len + (end ? 1 : 0);
    }
    return out;
}

Test(gpus, the_list_fits_80_and_100_columns)
{
    int rows = data_rows(), lines80, lines100;
    char *at80 = gpus_list_at(80, &lines80), *at100 = gpus_list_at(100, &lines100);
    cr_expect_leq(lines80, 2 * rows + 8, "%d lines for %d GPUs at 80 columns:\n%s", lines80, rows, at80);
    cr_expect_leq(lines80 * 4, lines100 * 5, "%d lines at 80 columns, %d at 100", lines80, lines100);
    cr_expect(strstr(at100, "FP64") && strstr(at100, "TDP"), "%s", at100);
    cr_expect(!strstr(at80, " FP64 "), "%s", at80);
    cr_expect(strstr(at80, "FP64, TDP"), "the footer says where FP64 and TDP went:\n%s", at80);
    /* "NVLink3 bridge (2 GPUs)": the row's link name, its continuation under it. */
    const char *row = strstr(at80, "\na30-pcie-24gb ");
    cr_assert_not_null(row, "%s", at80);
    const char *link = strstr(row, "NVLink3"), *next = strchr(row + 1, '\n');
    cr_assert(link && next && link < next, "%s", at80);
    size_t link_column = (size_t)(link - (row + 1));
    cr_expect_eq(strspn(next + 1, " "), link_column, "the continuation starts under the link name:\n%s", at80);
    free(at80);
    free(at100);
}
