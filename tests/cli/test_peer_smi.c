/* The peers' labelled nvidia-smi inputs (tests/corpus/peers/nvidia-smi/README.md): every row of
 * labels.tsv is run and its gpuvet verdict asserted; where gpuvet differs from the peer, the row
 * says why, with the source, and the test counts the differences it knows of. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PEERS GPUVET_TEST_SOURCE "/corpus/peers/nvidia-smi/"

Test(peers, every_labelled_case_holds)
{
    FILE *in = fopen(PEERS "labels.tsv", "r");
    cr_assert_not_null(in);
    char line[2048];
    cr_assert_not_null(fgets(line, sizeof line, in)); /* header */
    int cases = 0, differ = 0, agree = 0;
    while (fgets(line, sizeof line, in)) {
        char *save = NULL;
        char *file = strtok_r(line, "\t", &save), *subject = strtok_r(NULL, "\t", &save),
             *rule = strtok_r(NULL, "\t", &save), *peer = strtok_r(NULL, "\t", &save),
             *ours = strtok_r(NULL, "\t", &save), *why = strtok_r(NULL, "\t\n", &save);
        cr_assert(file && subject && rule && peer && ours && why, "malformed row %d", cases + 1);
        char path[1024];
        snprintf(path, sizeof path, PEERS "%s", file);
        struct run_result r = run_gpuvet("audit", "--json", "--nvidia-smi", path, NULL);
        cr_assert(r.status == 0 || r.status == 1, "%s: exit %d: %s", file, r.status, r.err);
        json_t *doc = run_json(&r);
        json_t *found = findings_of(doc, rule, subject);
        cr_assert_eq(json_array_size(found), 1, "%s %s %s: %zu findings", file, rule, subject, json_array_size(found));
        const char *sev = json_string_value(json_object_get(json_array_get(found, 0), "severity"));
        cr_assert_str_eq(sev, ours, "%s %s %s: %s (%s)", file, rule, subject, sev,
                         json_string_value(json_object_get(json_array_get(found, 0), "message")));
        if (strcmp(peer, ours) != 0)
            differ++;
        else
            agree++;
        json_decref(found);
        json_decref(doc);
        run_result_free(&r);
        cases++;
    }
    fclose(in);
    cr_assert_eq(cases, 10);
    /* AzNHC checks a full retirement table only; gpuvet follows DCGM's limits (labels.tsv). */
    cr_assert_eq(differ, 2);
    cr_assert_eq(agree, 8);
}
