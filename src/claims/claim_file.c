/* The claim file: {"cpu": {"cores": 32}, "memory": {"gb": 512}, "storage": [{"type": "nvme",
 * "gb": 3840}], ...}. Every key and type is checked against claim_kinds before any verdict. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "claims/claims.h"
#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/jsonerror.h"

#define ARRAY_SECTION "storage"

static int fail(char **error, const char *file, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char **error, const char *file, const char *key, const char *fmt, ...)
{
    char *what = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&what, fmt, ap) < 0)
        what = NULL;
    va_end(ap);
    if (asprintf(error, "%s: %s: %s", file, key, what ? what : _("invalid")) < 0)
        *error = NULL;
    free(what);
    return -1;
}

/* TRANSLATORS: a JSON value's type, after _("must be an object, not %s") and the like. */
static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return _("an object");
    case JSON_ARRAY: return _("an array");
    case JSON_STRING: return _("a string");
    case JSON_INTEGER: return _("a whole number");
    case JSON_REAL: return _("a number with a fraction");
    case JSON_TRUE:
    case JSON_FALSE: return _("a boolean");
    case JSON_NULL: return "null";
    }
    return "?";
}

static int kind_index(const char *key)
{
    for (int i = 0; i < claim_kinds_count; i++)
        if (!strcmp(claim_kinds[i].key, key))
            return i;
    return -1;
}

static char *known_keys(void)
{
    size_t len = 0;
    for (int i = 0; i < claim_kinds_count; i++)
        len += strlen(claim_kinds[i].key) + 2;
    char *s = calloc(len + 1, 1);
    for (int i = 0; s && i < claim_kinds_count; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, claim_kinds[i].key);
    }
    return s;
}

static int unknown_key(char **error, const char *file, const char *key)
{
    char *known = known_keys();
    int rc = fail(error, file, key, _("unknown claim key (known: %s)"), known ? known : "");
    free(known);
    return rc;
}

static int check_value(char **error, const char *file, const char *key, const struct claim_kind *k, const json_t *v)
{
    switch (k->type) {
    case CLAIM_STRING:
        if (!json_is_string(v) || !*json_string_value(v))
            return fail(error, file, key, _("must be a non-empty string, not %s"),
                        json_is_string(v) ? _("an empty one") : json_type_name(v));
        for (int i = 0; k->choices && k->choices[i]; i++)
            if (!strcasecmp(json_string_value(v), k->choices[i]))
                return 0;
        if (k->choices) {
            char allowed[256] = "";
            for (int i = 0; k->choices[i]; i++)
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "",
                         k->choices[i]);
            return fail(error, file, key, _("\"%s\" is not one of %s"), json_string_value(v), allowed);
        }
        return 0;
    case CLAIM_INTEGER:
        if (!json_is_integer(v) || json_integer_value(v) <= 0)
            return fail(error, file, key, _("must be a whole number above 0, not %s"),
                        json_is_integer(v) ? _("zero or negative") : json_type_name(v));
        return 0;
    case CLAIM_NUMBER:
        if (!json_is_number(v) || json_number_value(v) <= 0)
            return fail(error, file, key, _("must be a number above 0, not %s"),
                        json_is_number(v) ? _("zero or negative") : json_type_name(v));
        return 0;
    }
    return 0;
}

static void add_claim(struct claim_set *set, const char *key, int kind, int index, json_t *value)
{
    struct claim *grown = realloc(set->items, (size_t)(set->count + 1) * sizeof *grown);
    if (!grown)
        return;
    set->items = grown;
    struct claim *c = &set->items[set->count++];
    memset(c, 0, sizeof *c);
    c->key = strdup(key);
    c->kind = kind;
    c->index = index;
    c->claimed = json_incref(value);
    c->found = json_null();
}

/* One object of claims: a section ("cpu") or an element of storage[] ("storage[]"). */
static int load_object(struct claim_set *set, char **error, const char *file, const char *kind_prefix,
                       const char *key_prefix, int index, json_t *obj)
{
    const char *name;
    json_t *value;
    json_object_foreach(obj, name, value)
    {
        char kind_key[128], key[160];
        snprintf(kind_key, sizeof kind_key, "%s.%s", kind_prefix, name);
        snprintf(key, sizeof key, "%s.%s", key_prefix, name);
        int kind = kind_index(kind_key);
        if (kind < 0)
            return unknown_key(error, file, key);
        if (check_value(error, file, key, &claim_kinds[kind], value) != 0)
            return -1;
        add_claim(set, key, kind, index, value);
    }
    return 0;
}

static bool is_section(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < claim_kinds_count; i++)
        if (!strncmp(claim_kinds[i].key, name, n) && claim_kinds[i].key[n] == '.')
            return true;
    return false;
}

static int load_root(struct claim_set *set, char **error, const char *file, json_t *root)
{
    const char *name;
    json_t *value;
    json_object_foreach(root, name, value)
    {
        if (!strcmp(name, ARRAY_SECTION)) {
            if (!json_is_array(value))
                return fail(error, file, name, _("must be an array of objects, not %s"), json_type_name(value));
            size_t i;
            json_t *element;
            json_array_foreach(value, i, element)
            {
                char key[64];
                snprintf(key, sizeof key, ARRAY_SECTION "[%zu]", i);
                if (!json_is_object(element))
                    return fail(error, file, key, _("must be an object, not %s"), json_type_name(element));
                if (load_object(set, error, file, ARRAY_SECTION "[]", key, (int)i, element) != 0)
                    return -1;
            }
        } else if (is_section(name)) {
            if (!json_is_object(value))
                return fail(error, file, name, _("must be an object, not %s"), json_type_name(value));
            if (load_object(set, error, file, name, name, -1, value) != 0)
                return -1;
        } else {
            return unknown_key(error, file, name);
        }
    }
    return 0;
}

/* The table's order, with storage[] entries kept together in file order. */
static int sort_rank(const struct claim *c)
{
    return c->index >= 0 ? kind_index(ARRAY_SECTION "[].type") : c->kind;
}

static int by_table_order(const void *a, const void *b)
{
    const struct claim *x = a, *y = b;
    if (sort_rank(x) != sort_rank(y))
        return sort_rank(x) - sort_rank(y);
    if (x->index != y->index)
        return x->index - y->index;
    return x->kind - y->kind;
}

/* A claim object, from a file or a listing: validated against claim_kinds, sorted. */
static int claim_set_from_object(json_t *root, const char *name, struct claim_set *out, char **error)
{
    struct claim_set set = {0};
    int rc = json_is_object(root) ? load_root(&set, error, name, root)
                                  : fail(error, name, _("(top level)"), _("must be a JSON object, not %s"),
                                         json_type_name(root));
    if (rc == 0 && set.count == 0)
        rc = fail(error, name, _("(top level)"), _("holds no claims"));
    if (rc != 0) {
        claim_set_free(&set);
        return -1;
    }
    qsort(set.items, (size_t)set.count, sizeof *set.items, by_table_order);
    *out = set;
    return 0;
}

int claim_file_load(const char *path, struct claim_set *out, char **error)
{
    memset(out, 0, sizeof *out);
    *error = NULL;
    char why[256];
    size_t len;
    char *text = (char *)input_file_read(path, INPUT_FILE_LIMIT, &len, why, sizeof why);
    if (!text) {
        if (asprintf(error, _("%s: %s"), path, _(why)) < 0)
            *error = NULL;
        return -1;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!root) {
        char what[320];
        json_error_describe(&jerr, what, sizeof what);
        if (asprintf(error, _("%s: not valid JSON: %s"), path, what) < 0)
            *error = NULL;
        return -1;
    }
    int rc = claim_set_from_object(root, path, out, error);
    json_decref(root);
    if (rc == 0)
        out->file = strdup(path);
    return rc;
}

int claim_listing_load(const char *text, struct claim_set *out, char **error)
{
    memset(out, 0, sizeof *out);
    *error = NULL;
    json_t *unparsed = NULL;
    json_t *root = claim_listing_object(text, &unparsed);
    int rc = claim_set_from_object(root, "--expect", out, error);
    json_decref(root);
    if (rc != 0) {
        json_decref(unparsed);
        return -1;
    }
    out->listing = strdup(text);
    out->unparsed = unparsed;
    return 0;
}

void claim_set_free(struct claim_set *set)
{
    for (int i = 0; i < set->count; i++) {
        free(set->items[i].key);
        free(set->items[i].message);
        free(set->items[i].message_local);
        json_decref(set->items[i].claimed);
        json_decref(set->items[i].found);
    }
    free(set->items);
    free(set->file);
    free(set->listing);
    json_decref(set->unparsed);
    memset(set, 0, sizeof *set);
}

const char *claim_verdict_name(enum claim_verdict v)
{
    switch (v) {
    case CLAIM_UNKNOWN: return N_("unknown");
    case CLAIM_PASS: return N_("pass");
    case CLAIM_MISMATCH: return N_("mismatch");
    }
    return "unknown";
}

const char *claim_message_text(const struct claim *c)
{
    return c->message_local ? c->message_local : c->message ? c->message : "";
}

const char *claim_verdict_label(enum claim_verdict v)
{
    switch (v) {
    case CLAIM_UNKNOWN: return N_("UNKNOWN");
    case CLAIM_PASS: return N_("PASS");
    case CLAIM_MISMATCH: return N_("MISMATCH");
    }
    return "UNKNOWN";
}
