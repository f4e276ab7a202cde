#include "sizing/jsonfile.h"
#include "util/inputfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/jsonerror.h"

json_t *json_load_named(const char *path, char *err, size_t errlen)
{
    char why[256];
    if (!fs_input_check(path, FS_INPUT_LIMIT, why, sizeof why)) {
        snprintf(err, errlen, _("%s: %s"), path, _(why));
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        char what[320];
        json_error_describe(&jerr, what, sizeof what);
        snprintf(err, errlen, _("%s: not valid JSON: %s"), path, what);
    }
    return doc;
}
