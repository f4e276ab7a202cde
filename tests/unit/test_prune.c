/* fleet/prune.c: skipped values end where JSON says, whatever their strings hold (escaped quotes,
 * escaped backslashes before a closing quote, brackets inside strings). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fleet/prune.h"

static json_t *load_text(const char *text, const struct prune_keep *keep, char *why, size_t why_size)
{
    char path[] = "/tmp/gpuvet-prune-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    json_t *doc = prune_load_file(path, keep, why, why_size);
    unlink(path);
    return doc;
}

Test(prune, skipped_strings_end_at_their_own_quote)
{
    static const struct prune_keep keep[] = {{"kept", NULL, false}, {NULL, NULL, false}};
    char why[256] = "";
    json_t *doc = load_text("{\"skip\": {\"a\": \"x\\\"}]\", \"b\": [\"\\\\\", \"{\\\\\\\"\"]}, \"s\": \"\\\\\\\\\","
                            " \"kept\": \"yes\"}",
                            keep, why, sizeof why);
    cr_assert_not_null(doc, "%s", why);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "kept")), "yes");
    cr_assert_null(json_object_get(doc, "skip"));
    json_decref(doc);
    doc = load_text("{\"skip\": {\"a\": \"unclosed\\\"}, \"kept\": 1}", keep, why, sizeof why);
    cr_assert_null(doc, "an unclosed string is no document");
}
