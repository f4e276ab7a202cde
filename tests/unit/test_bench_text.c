/* report/bench_text.c on a recorded bench document (tests/fixtures/bench): each figure shown in
 * the unit it is printed in, computed from the document's own numbers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/bench_text.h"

static char *render(json_t *doc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_eq(bench_report_text(out, doc), 0);
    fclose(out);
    return text;
}

static json_t *recorded(void)
{
    json_error_t e;
    json_t *doc = json_load_file(GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-quick.json", 0, &e);
    cr_assert(doc, "%s", e.text);
    return doc;
}

Test(bench_text, recorded_document_in_print_units)
{
    json_t *doc = recorded();
    json_t *b = json_object_get(doc, "benchmarks");
    char *text = render(doc);
    char want[256];
    /* triad_bytes_s / 1e9 as %.2f */
    snprintf(want, sizeof want, "  triad    %8.2f GB/s\n",
             json_number_value(json_object_get(json_object_get(b, "memory"), "triad_bytes_s")) / 1e9);
    cr_expect(strstr(text, want), "%s", text);
    cr_expect(strstr(text, "  triad       13.87 GB/s\n"), "%s", text);
    cr_expect(strstr(text, "  sequential read      0.51 GB/s  (1 MiB, O_DIRECT, QD 16, io_uring)\n"), "%s", text);
    cr_expect(strstr(text, "  random read         18594 IOPS  (4 KiB)\n"), "%s", text);
    cr_expect(strstr(text, "  CPU 1, 1000 wake-ups: p50 119.2 us, p99 6416.4 us, max 8276.5 us\n"), "%s", text);
    cr_expect(strstr(text, "pcie\n  skipped: "), "%s", text);
    /* Benchmarks in a fixed order, whatever the document's key order. */
    cr_expect(strstr(text, "memory\n") < strstr(text, "latency\n"));
    cr_expect(strstr(text, "storage\n") < strstr(text, "jitter\n"));
    free(text);
    json_decref(doc);
}

Test(bench_text, error_and_note_are_shown)
{
    json_t *doc = recorded();
    json_t *b = json_object_get(doc, "benchmarks");
    json_object_set_new(b, "decode", json_pack("{s:s, s:s}", "error", "no JPEGs in /data", "note", "cached set"));
    char *text = render(doc);
    cr_expect(strstr(text, "decode\n  error: no JPEGs in /data\n  note: cached set\n"), "%s", text);
    free(text);
    json_decref(doc);
}
