#include "sizing/jsonfile.h"
#include "util/inputfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/jsonerror.h"

json_t *json_load_named(const char *path, char *err, size_t errlen)
{
    char why[256];
    size_t len;
    char *text = (char *)input_file_read(path, INPUT_FILE_LIMIT, &len, why, sizeof why);
    if (!text) {
        snprintf(err, errlen, _("%s: %s"), path, _(why));
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!doc) {
        char what[320];
        json_error_describe(&jerr, what, sizeof what);
        snprintf(err, errlen, _("%s: not valid JSON: %s"), path, what);
    }
    return doc;
}
