/* Reading only what a fleet node keeps. An audit document is 40-80 kB, most of it findings'
 * evidence, NICs and bridge paths a fleet does not compare; building jansson's tree of all of it
 * dominated `gpuvet fleet` on 10,000 nodes. Values are skipped by a bracket-and-string scanner and
 * only the kept ones are parsed, into a small tree of the same shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/prune.h"

#include "util/fsroot.h"
#include "util/inputfile.h"
#include "util/i18n.h"
#include "util/jsonerror.h"

struct scan {
    const char *start, *end;
    char *why;
    size_t why_size;
};

static const char *skip_blank(const struct scan *s, const char *p)
{
    while (p < s->end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* p at an opening quote: the position after the closing one, or NULL. memchr finds each quote a
 * word at a time; a quote after an odd run of backslashes is escaped. */
static const char *skip_string(const struct scan *s, const char *p)
{
    const char *content = p + 1;
    for (p = content; p < s->end;) {
        const char *quote = memchr(p, '"', (size_t)(s->end - p));
        if (!quote)
            return NULL;
        size_t backslashes = 0;
        for (const char *b = quote; b > content && b[-1] == '\\'; b--)
            backslashes++;
        if (backslashes % 2 == 0)
            return quote + 1;
        p = quote + 1;
    }
    return NULL;
}

/* The bytes that matter inside a skipped object or array: quotes and brackets. */
static const unsigned char structural[256] = {['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1};

/* The end of the value at p, or NULL when the document ends first. Kept values are checked by
 * jansson; a skipped one only has to close. */
static const char *skip_value(const struct scan *s, const char *p)
{
    p = skip_blank(s, p);
    if (p >= s->end)
        return NULL;
    if (*p == '"')
        return skip_string(s, p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < s->end; p++) {
            while (p < s->end && !structural[(unsigned char)*p])
                p++;
            if (p >= s->end)
                break;
            if (*p == '"') {
                p = skip_string(s, p);
                if (!p)
                    return NULL;
                p--;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if (--depth == 0) {
                return p + 1;
            }
        }
        return NULL;
    }
    while (p < s->end && !strchr(",}] \t\r\n", *p))
        p++;
    return p;
}

static int fail_at(const struct scan *s, const char *p, const char *what, int line_in_value)
{
    int line = 1;
    for (const char *q = s->start; q < p && q < s->end; q++)
        line += *q == '\n';
    /* TRANSLATORS: the first %s says what the reader met, such as "an object expected". */
    snprintf(s->why, s->why_size, _("not a JSON document (%s, line %d)"), what, line + line_in_value - 1);
    return -1;
}

static json_t *prune_value(const struct scan *s, const char *p, const struct prune_keep *keep, const char **after);

/* The object at p with only the members `keep` names (each pruned by its own spec). */
static json_t *prune_object(const struct scan *s, const char *p, const struct prune_keep *keep, const char **after)
{
    p = skip_blank(s, p);
    if (p >= s->end || *p != '{') {
        fail_at(s, p, _("an object expected"), 1);
        return NULL;
    }
    json_t *out = json_object();
    p = skip_blank(s, p + 1);
    if (p < s->end && *p == '}') {
        *after = p + 1;
        return out;
    }
    while (p < s->end) {
        if (*p != '"') {
            fail_at(s, p, _("a member name expected"), 1);
            break;
        }
        const char *name = p + 1, *colon = skip_string(s, p);
        if (!colon)
            break;
        size_t name_len = (size_t)(colon - 1 - name);
        colon = skip_blank(s, colon);
        if (colon >= s->end || *colon != ':') {
            fail_at(s, colon, _("':' expected"), 1);
            break;
        }
        const struct prune_keep *k = keep;
        while (k->key && (strlen(k->key) != name_len || memcmp(k->key, name, name_len)))
            k++;
        const char *end;
        if (k->key) {
            json_t *v = prune_value(s, colon + 1, k, &end);
            if (!v)
                break;
            char key[64]; /* kept names are short; json_object_setn_new needs jansson 2.14 */
            snprintf(key, sizeof key, "%.*s", (int)name_len, name);
            json_object_set_new(out, key, v);
        } else if (!(end = skip_value(s, colon + 1))) {
            fail_at(s, s->end, _("the document ends inside a value"), 1);
            break;
        }
        p = skip_blank(s, end);
        if (p < s->end && *p == ',') {
            p = skip_blank(s, p + 1);
            continue;
        }
        if (p < s->end && *p == '}') {
            *after = p + 1;
            return out;
        }
        fail_at(s, p, _("',' or '}' expected"), 1);
        break;
    }
    if (p >= s->end)
        fail_at(s, s->end, _("the document ends inside an object"), 1);
    json_decref(out);
    return NULL;
}

/* Each element of the array at p pruned as an object by `members`. */
static json_t *prune_array(const struct scan *s, const char *p, const struct prune_keep *members, const char **after)
{
    p = skip_blank(s, p);
    if (p < s->end && *p != '[') /* null, or a value of another type: parsed as it is */
        return prune_value(s, p, &(struct prune_keep){"", NULL, false}, after);
    json_t *out = json_array();
    p = skip_blank(s, p + 1);
    if (p < s->end && *p == ']') {
        *after = p + 1;
        return out;
    }
    while (p < s->end) {
        const char *end;
        json_t *v = prune_object(s, p, members, &end);
        if (!v)
            break;
        json_array_append_new(out, v);
        p = skip_blank(s, end);
        if (p < s->end && *p == ',') {
            p++;
            continue;
        }
        if (p < s->end && *p == ']') {
            *after = p + 1;
            return out;
        }
        fail_at(s, p, _("',' or ']' expected"), 1);
        break;
    }
    if (p >= s->end)
        fail_at(s, s->end, _("the document ends inside an array"), 1);
    json_decref(out);
    return NULL;
}

static json_t *prune_value(const struct scan *s, const char *p, const struct prune_keep *keep, const char **after)
{
    p = skip_blank(s, p);
    if (keep->members && keep->each)
        return prune_array(s, p, keep->members, after);
    if (keep->members && p < s->end && *p == '{')
        return prune_object(s, p, keep->members, after);
    const char *end = skip_value(s, p);
    if (!end) {
        fail_at(s, s->end, _("the document ends inside a value"), 1);
        return NULL;
    }
    json_error_t error;
    json_t *v = json_loadb(p, (size_t)(end - p), JSON_DECODE_ANY, &error);
    if (!v) {
        char what[256];
        json_error_what(&error, what, sizeof what);
        fail_at(s, p, what, error.line);
    }
    *after = end;
    return v;
}

json_t *prune_load_file(const char *path, const struct prune_keep *top, char *why, size_t why_size)
{
    /* A shared fleet folder is anyone's: a FIFO, a device or an oversized file is refused unread. */
    size_t n = 0;
    char reason[256];
    char *buf = (char *)input_file_read(path, INPUT_FILE_LIMIT, &n, reason, sizeof reason);
    if (!buf) {
        snprintf(why, why_size, "%s", _(reason));
        return NULL;
    }
    struct scan s = {buf, buf + n, why, why_size};
    const char *end = NULL;
    json_t *doc = prune_object(&s, buf, top, &end);
    if (doc && skip_blank(&s, end) != s.end) {
        fail_at(&s, end, _("text after the document"), 1);
        json_decref(doc);
        doc = NULL;
    }
    free(buf);
    return doc;
}
