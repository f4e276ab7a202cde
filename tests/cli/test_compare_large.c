/* compare with 100,000 problem findings a side (issue 25): each side's findings are looked up in a
 * sorted copy of the other's, not scanned once per finding (100,000 x 100,000 string comparisons,
 * minutes). Checks what is listed, in document order; the timeout only catches a quadratic
 * return (about 2 s here, over 5 minutes before). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define H200 "sysroot/h200-firecracker-vm"
#define FINDINGS 100000

/* The H200's audit with `count` warn findings s<first>..., step apart (step -1: descending). */
static char *audit_with_findings(const char *base, int first, int count, int step)
{
    json_error_t error;
    json_t *doc = json_load_file(base, 0, &error);
    cr_assert_not_null(doc, "%s", error.text);
    json_t *findings = json_array();
    for (int i = 0; i < count; i++) {
        char subject[32];
        snprintf(subject, sizeof subject, "s%06d", first + i * step);
        json_array_append_new(findings, json_pack("{s:s,s:s,s:s,s:s}", "id", "GPU_TEST_RULE", "severity", "warn",
                                                  "subject", subject, "message", "a made-up problem"));
    }
    json_object_set_new(doc, "findings", findings);
    char *path = strdup("/tmp/gpuvet-compare-large-XXXXXX.json");
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(json_dump_file(doc, path, JSON_COMPACT), 0);
    json_decref(doc);
    return path;
}

Test(compare_large, a_hundred_thousand_findings_a_side)
{
    char *base = saved_audit(H200);
    /* A: s000000..s099999 ascending; B: s149999..s050000 descending. Shared: s050000..s099999. */
    char *a = audit_with_findings(base, 0, FINDINGS, 1);
    char *b = audit_with_findings(base, FINDINGS + FINDINGS / 2 - 1, FINDINGS, -1);
    struct run_result r = run_gpuvet("compare", "--json", a, b, NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *only_a = json_object_get(json_object_get(doc, "findings"), "only_a");
    json_t *only_b = json_object_get(json_object_get(doc, "findings"), "only_b");
    cr_assert_eq(json_array_size(only_a), FINDINGS / 2);
    cr_assert_eq(json_array_size(only_b), FINDINGS / 2);
    for (size_t i = 0; i < FINDINGS / 2; i++) {
        char want_a[32], want_b[32];
        snprintf(want_a, sizeof want_a, "s%06zu", i);
        snprintf(want_b, sizeof want_b, "s%06zu", (size_t)(FINDINGS + FINDINGS / 2 - 1) - i);
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(only_a, i), "subject")), want_a);
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(only_b, i), "subject")), want_b);
    }
    json_decref(doc);
    run_result_free(&r);
    unlink(a);
    unlink(b);
    unlink(base);
    free(a);
    free(b);
    free(base);
}
