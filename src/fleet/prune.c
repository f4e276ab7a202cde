/* Reading only what a fleet node keeps. An audit document is 40-80 kB, most of it findings'
 * evidence, NICs and bridge paths a fleet does not compare; building jansson's tree of all of it
 * dominated `gpuvet fleet` on 10,000 nodes. Values are skipped by a bracket-and-string scanner and
 * only the kept ones are parsed, into a small tree of the same shape. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fleet/prune.h"

#include "util/fsroot.h"
#include "util/inputfile.h"
#include "util/i18n.h"
#include "util/jsonerror.h"

/* The text being read; *end is a NUL (prune_load_file's buffer is one byte longer), so that the
 * scanning loops below stop on it without testing the bounds at every byte. */
struct scan {
    const char *start, *end;
    char *why;
    size_t why_size;
    void *context; /* for prune_keep's take */
};

static const char *skip_blank(const struct scan *s, const char *p)
{
    while (p < s->end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* The first '"' in [p, end), or NULL. Strings a skipped value holds are short (a key, a word): a
 * memchr call cost more than the search; 16 bytes are compared at a time where the CPU allows. */
static const char *find_quote(const struct scan *s, const char *p)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    /* p..p+15 lie within the buffer (end itself is its NUL) when end - p >= 15. */
    while (s->end - p >= 15) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned hits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
        if (hits) {
            const char *q = p + __builtin_ctz(hits);
            return q < s->end ? q : NULL;
        }
        p += 16;
    }
#endif
    for (; p < s->end; p++)
        if (*p == '"')
            return p;
    return NULL;
}

/* p at an opening quote: the position after the closing one, or NULL. A quote after an odd run of
 * backslashes is escaped. */
static const char *skip_string(const struct scan *s, const char *p)
{
    const char *content = p + 1;
    for (p = content; p < s->end;) {
        const char *quote = find_quote(s, p);
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

/* The bytes that matter inside a skipped object or array: quotes and brackets, and NUL (maybe the
 * end of the text). */
static const unsigned char structural[256] = {[0] = 1, ['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1};
/* The bytes that end a number or a word (strchr(",}] \t\r\n", c) before, which NUL also ended). */
static const unsigned char token_end[256] = {[0] = 1,     [','] = 1,  ['}'] = 1,  [']'] = 1,
                                             [' '] = 1,   ['\t'] = 1, ['\r'] = 1, ['\n'] = 1};

/* The first structural byte at or after p: the table's test, 16 bytes at a time where the CPU
 * allows (the runs between two are some 12 bytes of blanks and punctuation). end's NUL stops it. */
static const char *next_structural(const struct scan *s, const char *p)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), nul = _mm_setzero_si128();
    const __m128i open_brace = _mm_set1_epi8('{'), open_bracket = _mm_set1_epi8('[');
    const __m128i close_brace = _mm_set1_epi8('}'), close_bracket = _mm_set1_epi8(']');
    while (s->end - p >= 15) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i opens = _mm_or_si128(_mm_cmpeq_epi8(v, open_brace), _mm_cmpeq_epi8(v, open_bracket));
        __m128i closes = _mm_or_si128(_mm_cmpeq_epi8(v, close_brace), _mm_cmpeq_epi8(v, close_bracket));
        __m128i others = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, nul));
        __m128i hit = _mm_or_si128(_mm_or_si128(opens, closes), others);
        unsigned hits = (unsigned)_mm_movemask_epi8(hit);
        if (hits)
            return p + __builtin_ctz(hits);
        p += 16;
    }
#else
    (void)s; /* the byte loop stops at end's NUL */
#endif
    while (!structural[(unsigned char)*p])
        p++;
    return p;
}

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
        for (;; p++) {
            p = next_structural(s, p);
            if (*p == '\0') {
                if (p >= s->end)
                    return NULL;
            } else if (*p == '"') {
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
    }
    while (!token_end[(unsigned char)*p])
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
        /* The first byte turns most names away before strlen: each member of a finding (some 60 an
         * audit) is looked up in a list of three. */
        const struct prune_keep *k = keep;
        char first = name_len ? name[0] : '\0';
        while (k->key && (k->key[0] != first || strlen(k->key) != name_len || memcmp(k->key, name, name_len)))
            k++;
        const char *end;
        if (k->key) {
            if (k->take)
                k->take(NULL, s->context);
            json_t *v = prune_value(s, colon + 1, k, &end);
            if (!v)
                break;
            if (k->take && json_is_array(v))
                json_decref(v); /* its elements were handed over */
            else
                json_object_set_new(out, k->key, v); /* the name is k->key's, byte for byte */
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

/* Each element of the array at p pruned as an object by `members`; with or_whole, an element that is
 * not an object is kept whole. */
static json_t *prune_array(const struct scan *s, const char *p, const struct prune_keep *members, bool or_whole,
                           void (*take)(json_t *, void *), const char **after)
{
    p = skip_blank(s, p);
    if (p < s->end && *p != '[') /* null, or a value of another type: parsed as it is */
        return prune_value(s, p, &(struct prune_keep){"", NULL, PRUNE_OBJECT, NULL}, after);
    json_t *out = json_array();
    p = skip_blank(s, p + 1);
    if (p < s->end && *p == ']') {
        *after = p + 1;
        return out;
    }
    while (p < s->end) {
        const char *end;
        p = skip_blank(s, p);
        bool whole = or_whole && p < s->end && *p != '{';
        json_t *v = whole ? prune_value(s, p, &(struct prune_keep){"", NULL, PRUNE_OBJECT, NULL}, &end)
                          : prune_object(s, p, members, &end);
        if (!v)
            break;
        if (take) {
            take(v, s->context);
            json_decref(v);
        } else {
            json_array_append_new(out, v);
        }
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

static const char *skip_digits(const char *p, const char *end)
{
    while (p < end && isdigit((unsigned char)*p))
        p++;
    return p;
}

/* The scalar at [p, end) as jansson's loader would make it, or NULL for anything else: an escape or
 * a control byte in a string, text that is not UTF-8, a number outside JSON's grammar or range. */
static json_t *scalar_at(const char *p, const char *end)
{
    size_t n = (size_t)(end - p);
    if (n >= 2 && *p == '"') {
        unsigned char any = 0;
        for (const char *q = p + 1; q < end - 1; q++) {
            if (*q == '\\' || (unsigned char)*q < 0x20)
                return NULL;
            any |= (unsigned char)*q;
        }
        /* ASCII needs no UTF-8 check; json_stringn refuses text that is not UTF-8. */
        return any < 0x80 ? json_stringn_nocheck(p + 1, n - 2) : json_stringn(p + 1, n - 2);
    }
    if (n == 4 && !memcmp(p, "true", 4))
        return json_true();
    if (n == 5 && !memcmp(p, "false", 5))
        return json_false();
    if (n == 4 && !memcmp(p, "null", 4))
        return json_null();
    /* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: an integer without the fraction and exponent,
     * as jansson reads it. */
    const char *q = p + (n > 0 && *p == '-');
    if (q >= end || !isdigit((unsigned char)*q))
        return NULL;
    q = *q == '0' ? q + 1 : skip_digits(q, end);
    bool real = false;
    if (q < end && *q == '.') {
        real = true;
        const char *digits = q + 1;
        if ((q = skip_digits(digits, end)) == digits)
            return NULL;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        real = true;
        const char *digits = q + 1 + (q + 1 < end && (q[1] == '+' || q[1] == '-'));
        if ((q = skip_digits(digits, end)) == digits)
            return NULL;
    }
    char text[64];
    if (q != end || n >= sizeof text)
        return NULL;
    memcpy(text, p, n);
    text[n] = '\0';
    errno = 0;
    if (!real) {
        long long v = strtoll(text, NULL, 10);
        return errno ? NULL : json_integer(v);
    }
    double v = strtod(text, NULL);
    return errno || !isfinite(v) ? NULL : json_real(v);
}

/* Kept values are built here rather than by json_loadb, whose byte-at-a-time lexer and set-up for
 * each call were most of `gpuvet fleet`'s time (a finding's id, severity and subject: some 200
 * calls a document). Only the plain forms are built: strings
 * without escapes or control bytes, keys shorter than KEY_MAX, numbers JSON's grammar allows in
 * range, nesting to BUILD_DEPTH_MAX. Anything else (and anything malformed) makes build_value give
 * NULL, and the whole kept value goes to json_loadb, which reads it or names what is wrong. */
#define KEY_MAX 256
#define BUILD_DEPTH_MAX 32

/* A key built here: no escape or control byte, shorter than KEY_MAX; *ascii when it needs no UTF-8
 * check. */
static bool plain_key(const char *name, size_t len, bool *ascii)
{
    if (len >= KEY_MAX)
        return false;
    unsigned char any = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] == '\\' || (unsigned char)name[i] < 0x20)
            return false;
        any |= (unsigned char)name[i];
    }
    *ascii = any < 0x80;
    return true;
}

static json_t *build_value(const struct scan *s, const char *p, int depth, const char **after)
{
    p = skip_blank(s, p);
    if (p >= s->end)
        return NULL;
    if (*p != '{' && *p != '[') {
        const char *end = skip_value(s, p);
        json_t *v = end ? scalar_at(p, end) : NULL;
        if (v)
            *after = end;
        return v;
    }
    if (depth >= BUILD_DEPTH_MAX)
        return NULL;
    bool object = *p == '{';
    char close = object ? '}' : ']';
    json_t *out = object ? json_object() : json_array();
    if (!out)
        return NULL;
    p = skip_blank(s, p + 1);
    if (p < s->end && *p == close) {
        *after = p + 1;
        return out;
    }
    while (p < s->end) {
        char key[KEY_MAX];
        bool ascii = false;
        if (object) {
            const char *name = p + 1, *colon = *p == '"' ? skip_string(s, p) : NULL;
            size_t len = colon ? (size_t)(colon - 1 - name) : 0;
            if (!colon || !plain_key(name, len, &ascii))
                break;
            memcpy(key, name, len);
            key[len] = '\0';
            p = skip_blank(s, colon);
            if (p >= s->end || *p != ':')
                break;
            p++;
        }
        const char *end;
        json_t *v = build_value(s, p, depth + 1, &end);
        /* Each takes v, also when it refuses it (a key that is not UTF-8). */
        int added = !v                  ? -1
                    : !object           ? json_array_append_new(out, v)
                    : ascii             ? json_object_set_new_nocheck(out, key, v)
                                        : json_object_set_new(out, key, v);
        if (added != 0)
            break;
        p = skip_blank(s, end);
        if (p < s->end && *p == ',') {
            p = skip_blank(s, p + 1);
            continue;
        }
        if (p < s->end && *p == close) {
            *after = p + 1;
            return out;
        }
        break;
    }
    json_decref(out);
    return NULL;
}

static json_t *prune_value(const struct scan *s, const char *p, const struct prune_keep *keep, const char **after)
{
    p = skip_blank(s, p);
    if (keep->members && keep->each)
        return prune_array(s, p, keep->members, keep->each == PRUNE_EACH_OR_WHOLE, keep->take, after);
    if (keep->members && p < s->end && *p == '{')
        return prune_object(s, p, keep->members, after);
    const char *end;
    json_t *built = build_value(s, p, 0, &end);
    if (built) {
        *after = end;
        return built;
    }
    if (!(end = skip_value(s, p))) {
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

json_t *prune_load_file(const char *path, const struct prune_keep *top, void *context, char *why, size_t why_size)
{
    /* A shared fleet folder is anyone's: a FIFO, a device or an oversized file is refused unread. */
    size_t n = 0;
    char reason[256];
    char *buf = (char *)input_file_read(path, INPUT_FILE_LIMIT, &n, reason, sizeof reason);
    if (!buf) {
        snprintf(why, why_size, "%s", _(reason));
        return NULL;
    }
    struct scan s = {buf, buf + n, why, why_size, context}; /* buf[n] is input_file_read's NUL */
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
