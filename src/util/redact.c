/* Pattern scrubbing for --redact (util/redact.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/redact.h"

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

/* Length of an IPv4 address at p (each part <= 255, not part of a longer dotted number), or 0. */
static size_t ipv4_at(const char *p, const char *start, const char *end)
{
    if (p > start && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
        return 0;
    const char *q = p;
    for (int part = 0; part < 4; part++) {
        int digits = 0, value = 0;
        while (q < end && isdigit((unsigned char)*q) && digits < 4) {
            value = value * 10 + (*q - '0');
            q++;
            digits++;
        }
        if (digits == 0 || digits > 3 || value > 255)
            return 0;
        if (part < 3) {
            if (q >= end || *q != '.')
                return 0;
            q++;
        }
    }
    if (q < end && (isdigit((unsigned char)*q) || (*q == '.' && q + 1 < end && isdigit((unsigned char)q[1]))))
        return 0;
    return (size_t)(q - p);
}

/* Length of a UUID (8-4-4-4-12 hex digits) at p, or 0. */
static size_t uuid_at(const char *p, const char *start, const char *end)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    if (p > start && isxdigit((unsigned char)p[-1]))
        return 0;
    const char *q = p;
    for (int g = 0; g < 5; g++) {
        for (int i = 0; i < groups[g]; i++, q++)
            if (q >= end || !isxdigit((unsigned char)*q))
                return 0;
        if (g < 4 && (q >= end || *q++ != '-'))
            return 0;
    }
    return q < end && isxdigit((unsigned char)*q) ? 0 : (size_t)(q - p);
}

/* Length of a colon-separated hardware or IPv6 address at p, or 0: six or more 2-digit groups
 * (Ethernet, 20-byte InfiniBand), four or more 4-digit groups (GUIDs, GIDs), eight groups or a
 * "::" (IPv6). PCI addresses ("0000:3b:00.0") are none of these. */
static size_t colon_address_at(const char *p, const char *start, const char *end)
{
    if (p > start && (isalnum((unsigned char)p[-1]) || p[-1] == ':'))
        return 0;
    const char *q = p;
    int ngroups = 0, two = 0, four = 0;
    bool double_colon = false;
    const char *last_end = p;
    while (q < end) {
        int digits = 0;
        while (q < end && isxdigit((unsigned char)*q) && digits < 5) {
            q++;
            digits++;
        }
        if (digits > 4)
            return 0;
        if (digits) {
            ngroups++;
            two += digits == 2;
            four += digits == 4;
            last_end = q;
        }
        if (q < end && *q == ':') {
            if (q + 1 < end && q[1] == ':') {
                if (double_colon)
                    break;
                double_colon = true;
                q += 2;
                last_end = q;
            } else if (digits) {
                q++;
            } else {
                break;
            }
        } else {
            break;
        }
    }
    if (last_end < end && (isalnum((unsigned char)*last_end) || *last_end == '.'))
        return 0; /* "0000:3b:00.0", "std::vector" and the like */
    bool hw = ngroups >= 6 && two == ngroups, guid = ngroups >= 4 && four == ngroups;
    bool ipv6 = ngroups == 8 || (double_colon && ngroups >= 1 && ngroups < 8);
    return hw || guid || ipv6 ? (size_t)(last_end - p) : 0;
}

static size_t literal_at(const char *p, const char *start, const char *end, const char *const *literals,
                         int nliterals)
{
    if (p > start && word_char(p[-1]))
        return 0;
    for (int i = 0; i < nliterals; i++) {
        const char *lit = literals[i];
        size_t n = lit ? strlen(lit) : 0;
        if (n < 2 || (size_t)(end - p) < n || memcmp(p, lit, n) != 0)
            continue;
        if (p + n < end && word_char(p[n]))
            continue;
        return n;
    }
    return 0;
}

void redact_buffer(char **data, size_t *len, const char *const *literals, int nliterals, bool keep_length)
{
    const char *start = *data, *end = *data + *len;
    char *out = NULL;
    size_t out_len = 0, out_cap = 0;
    bool changed = false;
    for (const char *p = start; p < end;) {
        size_t n = literal_at(p, start, end, literals, nliterals);
        if (!n && isxdigit((unsigned char)*p)) {
            n = uuid_at(p, start, end);
            if (!n)
                n = colon_address_at(p, start, end);
            if (!n && isdigit((unsigned char)*p))
                n = ipv4_at(p, start, end);
        } else if (!n && *p == ':' && p + 1 < end && p[1] == ':') {
            n = colon_address_at(p, start, end);
        }
        const char *piece = n ? REDACT_MARK : p;
        size_t piece_len = n ? (keep_length ? n : strlen(REDACT_MARK)) : 1;
        if (out_len + piece_len + 1 > out_cap) {
            out_cap = (out_cap + piece_len + 1) * 2;
            out = realloc(out, out_cap);
        }
        if (n && keep_length)
            memset(out + out_len, 'X', n);
        else
            memcpy(out + out_len, piece, piece_len);
        out_len += piece_len;
        changed |= n > 0;
        p += n ? n : 1;
    }
    if (!changed) {
        free(out);
        return;
    }
    out[out_len] = '\0';
    free(*data);
    *data = out;
    *len = out_len;
}

char *redact_text(const char *text, const char *const *literals, int nliterals)
{
    if (!text)
        return NULL;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len + 1);
    redact_buffer(&copy, &len, literals, nliterals, false);
    return copy;
}
