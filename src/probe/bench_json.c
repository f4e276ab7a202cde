/* A `gpuvet bench --json` document as the audit's source of measurements (`audit --bench FILE`,
 * or the document of `--bench-quick`): m->bench filled, or the error printed naming the file. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe.h"
#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/jsonerror.h"
#include "util/output.h"

int probe_bench_document(struct machine *m, json_t *doc, const char *source)
{
    char why[512];
    int rc = bench_results_from_json(&m->bench, doc, source, why, sizeof why);
    if (rc != 0)
        print_error("audit", _("%s: %s"), source, why);
    json_decref(doc);
    return rc;
}

int probe_bench_file(struct machine *m, const char *file)
{
    json_error_t error;
    char why[256];
    size_t len;
    char *text = (char *)input_file_read(file, INPUT_FILE_LIMIT, &len, why, sizeof why);
    if (!text) {
        print_error("audit", _("%s: %s"), file, _(why));
        return -1;
    }
    json_t *doc = json_loadb(text, len, 0, &error);
    free(text);
    if (!doc) {
        char what[320];
        json_error_describe(&error, what, sizeof what);
        print_error("audit", _("%s: not valid JSON: %s"), file, what);
        return -1;
    }
    return probe_bench_document(m, doc, file);
}
