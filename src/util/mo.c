#include "util/mo.h"

#include "util/i18n.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MO_MAGIC 0x950412deu
#define MO_HEADER_BYTES 28 /* magic, revision, N, O, T, hash table size and offset */
/* Minor revision 1 adds the system-dependent strings: five more words in the header. */
#define MO_SYSDEP_HEADER_BYTES 48
#define MO_SEGMENTS_END 0xffffffffu

/* What a system-dependent segment's name stands for on this system: a message written
 * "%" PRIu64 " MiB" in the source is "%<PRIu64> MiB" in the catalogue, "%lu MiB" here. */
#define PRI_SIZES(c) {"PRI" #c "8", PRI##c##8}, {"PRI" #c "16", PRI##c##16}, {"PRI" #c "32", PRI##c##32}, \
    {"PRI" #c "64", PRI##c##64}, {"PRI" #c "MAX", PRI##c##MAX}, {"PRI" #c "PTR", PRI##c##PTR}
static const struct {
    const char *name, *value;
} segment_values[] = {PRI_SIZES(d), PRI_SIZES(i), PRI_SIZES(o), PRI_SIZES(u), PRI_SIZES(x), PRI_SIZES(X), {"I", "I"}};

static uint32_t read_u32(const struct mo_catalogue *mo, size_t at)
{
    const unsigned char *p = mo->data + at;
    if (mo->big_endian)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* String i of the table at `table` (a length and an offset each); *len its length without the NUL.
 * Only after mo_open checked every descriptor. */
static const char *string_at(const struct mo_catalogue *mo, uint32_t table, uint32_t i, uint32_t *len)
{
    size_t descriptor = (size_t)table + (size_t)i * 8;
    *len = read_u32(mo, descriptor);
    return (const char *)mo->data + read_u32(mo, descriptor + 4);
}

/* The table of originals (or of translations) at `table`: N descriptors, each naming a
 * NUL-terminated string inside the data. The reasons are translated: the built-in catalogue is
 * loaded before an installed one is checked (util/i18n.c). */
static int check_table(const struct mo_catalogue *mo, uint32_t table, bool originals, char *err, size_t errlen)
{
    if ((uint64_t)table + (uint64_t)mo->count * 8 > mo->size) {
        snprintf(err, errlen, "%s",
                 originals ? _("the table of original strings ends past the end of the file")
                           : _("the table of translations ends past the end of the file"));
        return -1;
    }
    for (uint32_t i = 0; i < mo->count; i++) {
        size_t descriptor = (size_t)table + (size_t)i * 8;
        uint64_t len = read_u32(mo, descriptor), offset = read_u32(mo, descriptor + 4);
        if (offset + len >= mo->size) {
            snprintf(err, errlen,
                     originals ? _("original string %u ends past the end of the file")
                               : _("translation %u ends past the end of the file"),
                     i);
            return -1;
        }
        if (mo->data[offset + len] != '\0') {
            snprintf(err, errlen,
                     originals ? _("original string %u is not NUL-terminated") : _("translation %u is not NUL-terminated"),
                     i);
            return -1;
        }
    }
    return 0;
}

/* Entry index of msgid, or -1. The originals are sorted by strcmp (msgfmt writes them so; mo_open
 * checked): a plural entry's original is "singular\0plural", found by its singular. */
static long find(const struct mo_catalogue *mo, const char *msgid)
{
    uint32_t low = 0, high = mo->count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2, len;
        int cmp = strcmp(msgid, string_at(mo, mo->originals, mid, &len));
        if (cmp == 0)
            return mid;
        if (cmp < 0)
            high = mid;
        else
            low = mid + 1;
    }
    return -1;
}

/* The value of `field` ("charset=") in the header's text, copied into buf up to a ';', space or
 * newline; false when absent. */
static bool header_field(const char *header, const char *field, char *buf, size_t buflen)
{
    const char *at = strstr(header, field);
    if (!at || !buflen)
        return false;
    at += strlen(field);
    size_t n = strcspn(at, "; \t\n");
    if (n >= buflen)
        n = buflen - 1;
    memcpy(buf, at, n);
    buf[n] = '\0';
    return true;
}

/* The value on this system of system-dependent segment `index` (its name in the file: "PRIu64"),
 * or NULL when the name is not one this reader knows. */
static const char *segment_value(const struct mo_catalogue *mo, uint32_t segments, uint32_t index)
{
    uint32_t len;
    const char *name = string_at(mo, segments, index, &len);
    for (size_t i = 0; i < sizeof segment_values / sizeof segment_values[0]; i++)
        if (!strcmp(name, segment_values[i].name))
            return segment_values[i].value;
    return NULL;
}

/* Expands the system-dependent string whose descriptor is at `descriptor`: a base offset, then
 * pairs (static segment's length, segment index) up to MO_SEGMENTS_END; the static segments follow
 * each other from the base and the last one holds the final NUL. *text is malloc'd (NUL added),
 * *len its length without the final NUL. 0; 1 for a segment this reader does not know (the
 * message is left out: English); -1 for a descriptor outside the file. */
static int expand_sysdep(const struct mo_catalogue *mo, uint32_t segments, uint32_t nsegments, uint64_t descriptor,
                         char **text, size_t *len)
{
    *text = NULL;
    if (descriptor + 4 > mo->size)
        return -1;
    uint64_t from = read_u32(mo, (size_t)descriptor);
    size_t used = 0, capacity = 64;
    char *out = malloc(capacity);
    int rc = out ? 0 : -1;
    for (uint64_t at = descriptor + 4; rc == 0; at += 8) {
        if (at + 8 > mo->size) {
            rc = -1;
            break;
        }
        uint32_t segment_len = read_u32(mo, (size_t)at), ref = read_u32(mo, (size_t)at + 4);
        if (from + segment_len > mo->size || (ref != MO_SEGMENTS_END && ref >= nsegments)) {
            rc = -1;
            break;
        }
        const char *value = ref == MO_SEGMENTS_END ? "" : segment_value(mo, segments, ref);
        if (!value) {
            rc = 1;
            break;
        }
        size_t need = used + segment_len + strlen(value) + 1;
        if (need > capacity) {
            char *grown = realloc(out, capacity = need * 2);
            if (!grown) {
                rc = -1;
                break;
            }
            out = grown;
        }
        memcpy(out + used, mo->data + from, segment_len);
        used += segment_len;
        from += segment_len;
        memcpy(out + used, value, strlen(value));
        used += strlen(value);
        if (ref == MO_SEGMENTS_END) {
            out[used] = '\0';
            *len = used && out[used - 1] == '\0' ? used - 1 : used;
            *text = out;
            return 0;
        }
    }
    free(out);
    return rc;
}

/* ---- printf conversions: a translation takes the arguments of its msgid ---- */

enum { FORMAT_MAX_ARGS = 64 };
/* What printf fetches for an argument: sizes that va_arg tells apart, and what is dereferenced. */
enum arg_type {
    ARG_NONE, ARG_INT, ARG_LONG, ARG_LLONG, ARG_INTMAX, ARG_SIZE, ARG_PTRDIFF, ARG_DOUBLE, ARG_LDOUBLE,
    ARG_WINT, ARG_STRING, ARG_WSTRING, ARG_POINTER
};

struct format_args {
    unsigned char type[FORMAT_MAX_ARGS + 1]; /* by argument number, from 1 */
    int count;                               /* the highest argument number used */
};

static bool set_arg(struct format_args *a, int number, enum arg_type type)
{
    if (number < 1 || number > FORMAT_MAX_ARGS || (a->type[number] && a->type[number] != type))
        return false;
    a->type[number] = (unsigned char)type;
    if (number > a->count)
        a->count = number;
    return true;
}

/* "12$" at *p: the argument number (p moved past the '$'), 0 when there is none (p unmoved), -1 for one no
 * message has. */
static int position(const char **p)
{
    const char *q = *p;
    int n = 0;
    for (; *q >= '0' && *q <= '9'; q++)
        if (n <= FORMAT_MAX_ARGS)
            n = n * 10 + (*q - '0');
    if (q == *p || *q != '$')
        return 0;
    *p = q + 1;
    /* "%41416$d" is argument 41416 to printf (glibc sizes a table of that many on the stack), not a
     * width: past the arguments any message has, or 0, the format is refused (-1). */
    return n == 0 || n > FORMAT_MAX_ARGS ? -1 : n;
}

/* A '*' width or precision at *p: an int argument, positional (*2$) or the next one. */
static bool star(const char **p, struct format_args *a, int *next, int *positional)
{
    if (**p != '*')
        return true;
    (*p)++;
    int n = position(p);
    if (n < 0)
        return false;
    if (*positional < 0)
        *positional = n > 0;
    if ((n > 0) != (*positional == 1))
        return false;
    return set_arg(a, n > 0 ? n : (*next)++, ARG_INT);
}

/* The arguments a printf format takes; false when it is not a valid one (or takes %n, or mixes
 * numbered and unnumbered arguments, or leaves a numbered one out). */
static bool format_parse(const char *s, struct format_args *a)
{
    memset(a, 0, sizeof *a);
    int next = 1, positional = -1; /* unknown until the first conversion */
    for (const char *p = strchr(s, '%'); p; p = strchr(p, '%')) {
        const char *directive = ++p;
        if (*p == '%') {
            p++;
            continue;
        }
        int n = position(&p);
        if (n < 0)
            return false;
        if (positional < 0)
            positional = n > 0;
        if ((n > 0) != (positional == 1))
            return false;
        p += strspn(p, "-+ #0'I");
        /* A width is '*' or digits, never both: glibc reads "%*4%S" as '*', the unknown conversion
         * '4', then a new "%S" (fuzz_mo_format: a wide string read from an int). So is a precision. */
        bool starred = *p == '*';
        if (!star(&p, a, &next, &positional))
            return false;
        if (!starred)
            p += strspn(p, "0123456789");
        if (*p == '.') {
            p++;
            starred = *p == '*';
            if (!star(&p, a, &next, &positional))
                return false;
            if (!starred)
                p += strspn(p, "0123456789");
        }
        enum arg_type size = ARG_INT;
        bool wide = false, ldouble = false;
        if (p[0] == 'h')
            p += p[1] == 'h' ? 2 : 1;
        else if (p[0] == 'l' && p[1] == 'l')
            size = ARG_LLONG, p += 2;
        else if (p[0] == 'l')
            size = ARG_LONG, wide = true, p++;
        else if (p[0] == 'q' || p[0] == 'L')
            size = ARG_LLONG, ldouble = true, p++;
        else if (p[0] == 'j')
            size = ARG_INTMAX, p++;
        else if (p[0] == 'z' || p[0] == 'Z')
            size = ARG_SIZE, p++;
        else if (p[0] == 't')
            size = ARG_PTRDIFF, p++;
        enum arg_type type;
        switch (*p) {
        case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': type = size; break;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
            type = ldouble ? ARG_LDOUBLE : ARG_DOUBLE;
            break;
        case 'c': type = wide ? ARG_WINT : ARG_INT; break;
        case 'C': type = ARG_WINT; break;
        case 's': type = wide ? ARG_WSTRING : ARG_STRING; break;
        case 'S': type = ARG_WSTRING; break;
        case 'p': type = ARG_POINTER; break;
        case 'm': p++; continue; /* glibc: strerror(errno), no argument */
        case 'n': return false;  /* writes through its argument */
        case '\0':
            /* Cut by the end after a width or flag ("68%2"): printf implementations (and ASan's
             * interceptor) disagree on where such a directive ends. A bare final '%' is text. */
            if (p != directive)
                return false;
            continue;
        default:
            /* A letter may be a conversion of some C library (glibc 2.35's %b): refused. Anything
             * else ("70 % 以上", "%.1%") is printed as it stands and takes no argument; printf goes
             * on after that byte, and so does this reading (a second '%' there is no new directive). */
            if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
                return false;
            p++;
            continue;
        }
        p++;
        if (!set_arg(a, n > 0 ? n : next++, type))
            return false;
    }
    for (int i = 1; i <= a->count; i++)
        if (!a->type[i])
            return false; /* a numbered argument left out: printf cannot tell where the next one is */
    return true;
}

bool mo_format_compatible(const char *msgid, const char *translation)
{
    struct format_args want, got;
    if (!format_parse(translation, &got))
        return false;
    if (!format_parse(msgid, &want))
        return got.count == 0; /* a msgid that is no format is printed with no arguments */
    /* Only arguments the msgid takes, each with its type. One left out is never read (msgfmt -c
     * refuses that too, but the .mo no longer says which messages are formats: "70 % or more" in a
     * help text is no conversion, and its translation "70% 以上" must stay). */
    if (got.count > want.count)
        return false;
    for (int i = 1; i <= got.count; i++)
        if (got.type[i] != want.type[i])
            return false;
    return true;
}

/* Every form of a translation (NUL-separated, len bytes) takes its msgid's arguments; a plural
 * entry's original is "singular\0plural", a form matching either is printed with the same
 * arguments. */
static bool translation_compatible(const char *original, size_t original_len, const char *text, size_t len)
{
    if (!*original)
        return true; /* the header */
    const char *plural = strlen(original) < original_len ? original + strlen(original) + 1 : NULL;
    for (const char *form = text;; form += strlen(form) + 1) {
        if (!mo_format_compatible(original, form) && !(plural && mo_format_compatible(plural, form)))
            return false;
        if (form + strlen(form) >= text + len)
            return true;
    }
}

/* Minor revision 1: the messages with system-dependent segments, expanded once into mo->sysdep. */
static int read_sysdep_messages(struct mo_catalogue *mo, bool check_formats, char *err, size_t errlen)
{
    uint32_t nsegments = read_u32(mo, 28), segments = read_u32(mo, 32), count = read_u32(mo, 36),
             originals = read_u32(mo, 40), translations = read_u32(mo, 44);
    if ((uint64_t)segments + (uint64_t)nsegments * 8 > mo->size || (uint64_t)originals + (uint64_t)count * 4 > mo->size ||
        (uint64_t)translations + (uint64_t)count * 4 > mo->size) {
        snprintf(err, errlen, "%s", _("the tables of system-dependent strings end past the end of the file"));
        return -1;
    }
    for (uint32_t i = 0; i < nsegments; i++) {
        uint64_t len = read_u32(mo, (size_t)segments + 8 * i), offset = read_u32(mo, (size_t)segments + 8 * i + 4);
        if (len == 0 || offset + len > mo->size || mo->data[offset + len - 1] != '\0') {
            snprintf(err, errlen, _("system-dependent segment %u is damaged"), i);
            return -1;
        }
    }
    mo->sysdep = calloc(count ? count : 1, sizeof *mo->sysdep);
    if (!mo->sysdep) {
        snprintf(err, errlen, "%s", _("out of memory"));
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        struct mo_sysdep_message *m = &mo->sysdep[mo->nsysdep];
        int rc = expand_sysdep(mo, segments, nsegments, read_u32(mo, (size_t)originals + 4 * i), &m->original,
                               &m->original_len);
        if (rc == 0)
            rc = expand_sysdep(mo, segments, nsegments, read_u32(mo, (size_t)translations + 4 * i), &m->translation,
                               &m->translation_len);
        if (rc < 0) {
            free(m->original);
            snprintf(err, errlen, _("system-dependent string %u is damaged"), i);
            return -1;
        }
        if (rc == 0 && check_formats &&
            !translation_compatible(m->original, m->original_len, m->translation, m->translation_len)) {
            free(m->translation);
            mo->nrefused++;
            rc = 1;
        }
        if (rc == 0)
            mo->nsysdep++;
        else
            free(m->original); /* a segment unknown here, or other conversions: that message stays English */
    }
    return 0;
}

static int open_catalogue(struct mo_catalogue *mo, const void *data, size_t size, bool check_formats, char *err,
                          size_t errlen)
{
    memset(mo, 0, sizeof *mo);
    mo->data = data;
    mo->size = size;
    if (size < MO_HEADER_BYTES) {
        snprintf(err, errlen, _("%zu bytes: too short for a .mo header"), size);
        return -1;
    }
    if (read_u32(mo, 0) != MO_MAGIC) {
        mo->big_endian = true;
        if (read_u32(mo, 0) != MO_MAGIC) {
            snprintf(err, errlen, "%s", _("bad magic number (not a .mo file)"));
            return -1;
        }
    }
    uint32_t revision = read_u32(mo, 4);
    if (revision >> 16 != 0) { /* a major revision this reader does not know */
        snprintf(err, errlen, _("unknown format revision %u.%u"), revision >> 16, revision & 0xffff);
        return -1;
    }
    mo->count = read_u32(mo, 8);
    mo->originals = read_u32(mo, 12);
    mo->translations = read_u32(mo, 16);
    if (check_table(mo, mo->originals, true, err, errlen) || check_table(mo, mo->translations, false, err, errlen))
        return -1;
    for (uint32_t i = 1; i < mo->count; i++) {
        uint32_t len;
        const char *previous = string_at(mo, mo->originals, i - 1, &len);
        if (strcmp(previous, string_at(mo, mo->originals, i, &len)) > 0) {
            snprintf(err, errlen, _("original strings not sorted (entry %u)"), i);
            return -1;
        }
    }
    mo->refused = calloc(mo->count ? mo->count : 1, 1);
    if (!mo->refused) {
        snprintf(err, errlen, "%s", _("out of memory"));
        return -1;
    }
    for (uint32_t i = 0; i < mo->count && check_formats; i++) {
        uint32_t original_len, len;
        const char *original = string_at(mo, mo->originals, i, &original_len);
        const char *text = string_at(mo, mo->translations, i, &len);
        if (!translation_compatible(original, original_len, text, len)) {
            mo->refused[i] = 1;
            mo->nrefused++;
        }
    }
    if ((revision & 0xffff) >= 1 && size >= MO_SYSDEP_HEADER_BYTES &&
        read_sysdep_messages(mo, check_formats, err, errlen)) {
        mo_close(mo);
        return -1;
    }
    /* The header is the translation of "": gpuvet prints UTF-8, and chooses a plural form only
     * where it knows the rule (util/i18n.c). */
    const char *header = mo_lookup(mo, "");
    char value[32];
    if (header && header_field(header, "charset=", value, sizeof value) && strcasecmp(value, "UTF-8") &&
        strcasecmp(value, "utf8")) {
        snprintf(err, errlen, _("its charset is %s, not UTF-8"), value);
        mo_close(mo);
        return -1;
    }
    if (header && header_field(header, "nplurals=", value, sizeof value))
        mo->nplurals = atoi(value);
    return 0;
}

int mo_open(struct mo_catalogue *mo, const void *data, size_t size, char *err, size_t errlen)
{
    return open_catalogue(mo, data, size, true, err, errlen);
}

int mo_open_built_in(struct mo_catalogue *mo, const void *data, size_t size, char *err, size_t errlen)
{
    return open_catalogue(mo, data, size, false, err, errlen);
}

const char *mo_lookup(const struct mo_catalogue *mo, const char *msgid)
{
    return mo_lookup_plural(mo, msgid, 0);
}

/* Form `index` of a translation of len bytes (forms separated by NULs), or NULL. */
static const char *nth_form(const char *form, size_t len, unsigned index)
{
    const char *end = form + len;
    for (unsigned i = 0; i < index && form < end; i++)
        form += strlen(form) + 1;
    if (form >= end || !*form)
        return NULL; /* fewer forms, or an empty translation */
    return form;
}

const char *mo_lookup_plural(const struct mo_catalogue *mo, const char *singular, unsigned index)
{
    long entry = find(mo, singular);
    if (entry >= 0) {
        uint32_t original_len, len;
        string_at(mo, mo->originals, (uint32_t)entry, &original_len);
        if (index > 0 && original_len <= strlen(singular))
            return NULL; /* not a plural entry: only form 0 */
        if (mo->refused && mo->refused[entry])
            return NULL; /* its conversions differ from the msgid's: English */
        const char *text = string_at(mo, mo->translations, (uint32_t)entry, &len);
        return nth_form(text, len, index);
    }
    for (uint32_t i = 0; i < mo->nsysdep; i++) {
        const struct mo_sysdep_message *m = &mo->sysdep[i];
        if (!strcmp(m->original, singular)) {
            if (index > 0 && m->original_len <= strlen(singular))
                return NULL;
            return nth_form(m->translation, m->translation_len, index);
        }
    }
    return NULL;
}

void mo_close(struct mo_catalogue *mo)
{
    for (uint32_t i = 0; i < mo->nsysdep; i++) {
        free(mo->sysdep[i].original);
        free(mo->sysdep[i].translation);
    }
    free(mo->sysdep);
    mo->sysdep = NULL;
    free(mo->refused);
    mo->refused = NULL;
    mo->nrefused = 0;
    mo->nsysdep = 0;
}
