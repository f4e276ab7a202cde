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
    json_t *doc = prune_load_file(path, keep, NULL, why, why_size);
    unlink(path);
    return doc;
}

Test(prune, skipped_strings_end_at_their_own_quote)
{
    static const struct prune_keep keep[] = {{"kept", NULL, PRUNE_OBJECT, NULL}, {NULL, NULL, PRUNE_OBJECT, NULL}};
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

/* A kept scalar is what jansson's own loader makes of it, whether prune.c builds it itself (plain
 * strings, numbers, words) or hands it to json_loadb (escapes), and a bad one is refused either way. */
Test(prune, kept_scalars_are_what_jansson_reads)
{
    static const struct prune_keep keep[] = {{"v", NULL, PRUNE_OBJECT, NULL},
                                             {NULL, NULL, PRUNE_OBJECT, NULL}};
    static const char *const good[] = {
        "\"plain\"", "\"\"", "\"caf\xc3\xa9 \xe6\x98\xbe\xe5\x8d\xa1\"", "\"tab\\tand \\\"quote\\\" \\u00e9\"", "0", "-0",
        "42", "-17", "9223372036854775807", "-9223372036854775808", "1.5", "-0.25", "1e3", "2.5E-3", "6.02e+23",
        "1e-400", "true", "false", "null", "{\"a\": [1, 2]}", "[]", "{}", "[[], {}, [[\"x\"]]]",
        "{\"a\": 1, \"a\": 2}", "{\"k\\u00e9y\": \"escaped key\"}", "{\"\": 0}", " { \"a\" : [ 1 , true , null ] } ",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char text[256], why[256] = "";
        snprintf(text, sizeof text, "{\"v\": %s}", good[i]);
        json_t *doc = load_text(text, keep, why, sizeof why);
        cr_assert_not_null(doc, "%s: %s", good[i], why);
        json_error_t error;
        json_t *want = json_loads(good[i], JSON_DECODE_ANY, &error);
        cr_assert_not_null(want, "%s", good[i]);
        json_t *got = json_object_get(doc, "v");
        cr_expect_eq(json_typeof(got), json_typeof(want), "%s", good[i]);
        cr_expect(json_equal(got, want), "%s", good[i]);
        json_decref(want);
        json_decref(doc);
    }
    static const char *const bad[] = {"01",   "1.",  ".5",     "1e",    "-",      "+1", "1x", "tru", "nul",
                                      "\"\xff\"", "\"a\tb\"", "9223372036854775808", "1e400", "0x10", "[1,]",
                                      "{\"a\": 1,}", "{\"a\" 1}", "{a: 1}", "[1 2]", "{\"\xff\": 1}", "[\"x\"y]",
                                      "{\"a\": [1, {\"b\": 01}]}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[256], why[256] = "";
        snprintf(text, sizeof text, "{\"v\": %s}", bad[i]);
        json_t *doc = load_text(text, keep, why, sizeof why);
        cr_expect_null(doc, "%s was taken", bad[i]);
        cr_expect(strstr(why, "not a JSON document"), "%s: %s", bad[i], why);
        json_decref(doc);
    }
}

/* A list read element by element (PRUNE_EACH) refuses an element that is not an object; one read
 * PRUNE_EACH_OR_WHOLE keeps such an element whole, as it was kept when its parent was kept whole.
 * Both keep only the named members of the objects. */
Test(prune, lists_of_objects_and_what_else_they_hold)
{
    static const struct prune_keep item[] = {{"a", NULL, PRUNE_OBJECT, NULL}, {NULL, NULL, PRUNE_OBJECT, NULL}};
    static const struct prune_keep strict[] = {{"list", item, PRUNE_EACH, NULL}, {NULL, NULL, PRUNE_OBJECT, NULL}};
    static const struct prune_keep loose[] = {{"list", item, PRUNE_EACH_OR_WHOLE, NULL},
                                              {NULL, NULL, PRUNE_OBJECT, NULL}};
    const char *text = "{\"list\": [{\"a\": 1, \"b\": 2}, 7, \"s\", [1, {\"b\": 0}], null, {\"b\": 3}]}";
    char why[256] = "";
    json_t *doc = load_text(text, strict, why, sizeof why);
    cr_assert_null(doc);
    cr_assert(strstr(why, "an object expected"), "%s", why);
    doc = load_text(text, loose, why, sizeof why);
    cr_assert_not_null(doc, "%s", why);
    json_error_t error;
    json_t *want = json_loads("[{\"a\": 1}, 7, \"s\", [1, {\"b\": 0}], null, {}]", 0, &error);
    cr_assert_not_null(want);
    cr_assert(json_equal(json_object_get(doc, "list"), want));
    json_decref(want);
    json_decref(doc);
    doc = load_text("{\"list\": [{\"a\": 1}, 01]}", loose, why, sizeof why);
    cr_assert_null(doc, "a bad element kept whole is still refused");
    doc = load_text("{\"list\": [{\"a\": 1}, ", loose, why, sizeof why);
    cr_assert_null(doc, "a list cut short is refused");
}

/* Skipped text is searched 16 bytes at a time where the CPU allows: quotes, escaped quotes and
 * brackets at every offset around a block's edge, and a document that ends inside a string or an
 * object at each of those offsets, read as they read byte by byte. */
Test(prune, skipped_values_at_every_offset)
{
    static const struct prune_keep keep[] = {{"kept", NULL, PRUNE_OBJECT, NULL}, {NULL, NULL, PRUNE_OBJECT, NULL}};
    for (int pad = 0; pad < 40; pad++) {
        char text[512], why[256] = "";
        snprintf(text, sizeof text, "{\"skip\": {\"%.*s\": \"%.*s\\\"]}\", \"b\": [%.*s{}]},\n\"kept\": \"yes\"}", pad,
                 "0123456789012345678901234567890123456789", 40 - pad, "abcdefghijabcdefghijabcdefghijabcdefghij",
                 pad, "                                        ");
        json_t *doc = load_text(text, keep, why, sizeof why);
        cr_assert_not_null(doc, "%d: %s", pad, why);
        cr_assert_str_eq(json_string_value(json_object_get(doc, "kept")), "yes", "%d", pad);
        cr_assert_null(json_object_get(doc, "skip"), "%d", pad);
        json_decref(doc);
        for (size_t cut = 10; cut + 1 < strlen(text); cut += 7) {
            char shorter[512];
            snprintf(shorter, sizeof shorter, "%.*s", (int)cut, text);
            cr_assert_null(load_text(shorter, keep, why, sizeof why), "%d cut at %zu: %s", pad, cut, shorter);
        }
    }
}

/* A member with `take` is handed over element by element, pruned, in order; where a member of that
 * name begins again, take hears NULL (the tree keeps the last one), and a value that is not an
 * array hands nothing over. */
static void record(json_t *element, void *context)
{
    json_t *seen = context;
    json_array_append_new(seen, element ? json_deep_copy(element) : json_string("begin"));
}

Test(prune, a_taken_list_is_handed_over)
{
    static const struct prune_keep item[] = {{"a", NULL, PRUNE_OBJECT, NULL}, {NULL, NULL, PRUNE_OBJECT, NULL}};
    static const struct prune_keep keep[] = {{"list", item, PRUNE_EACH, record}, {"k", NULL, PRUNE_OBJECT, NULL},
                                             {NULL, NULL, PRUNE_OBJECT, NULL}};
    char path[] = "/tmp/gpuvet-prune-XXXXXX", why[256] = "";
    const char *text = "{\"list\": [{\"a\": 1, \"b\": 2}, {\"b\": 3}], \"k\": 1, \"list\": null,"
                       " \"list\": [{\"a\": \"x\"}]}";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    json_t *seen = json_array();
    json_t *doc = prune_load_file(path, keep, seen, why, sizeof why);
    unlink(path);
    cr_assert_not_null(doc, "%s", why);
    json_error_t error;
    json_t *want = json_loads("[\"begin\", {\"a\": 1}, {}, \"begin\", \"begin\", {\"a\": \"x\"}]", 0, &error);
    cr_assert_not_null(want);
    char *got = json_dumps(seen, JSON_COMPACT);
    cr_assert(json_equal(seen, want), "%s", got);
    free(got);
    cr_assert_eq(json_integer_value(json_object_get(doc, "k")), 1);
    json_decref(want);
    json_decref(seen);
    json_decref(doc);
}
