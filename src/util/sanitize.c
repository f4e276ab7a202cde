#include "util/sanitize.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_char_len(const char *s, size_t left)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] < 0x80)
        return 1;
    size_t need;
    unsigned min;
    if (u[0] >= 0xC2 && u[0] <= 0xDF)
        need = 2, min = 0x80;
    else if ((u[0] & 0xF0) == 0xE0)
        need = 3, min = 0x800;
    else if (u[0] >= 0xF0 && u[0] <= 0xF4)
        need = 4, min = 0x10000;
    else
        return 0; /* a continuation byte, C0/C1 (overlong), F5..FF */
    if (need > left)
        return 0;
    unsigned cp = u[0] & (need == 2 ? 0x1Fu : need == 3 ? 0x0Fu : 0x07u);
    for (size_t i = 1; i < need; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (u[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

enum text_piece text_piece_at(const char *s, size_t left, size_t *len, unsigned char *shown)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = utf8_char_len(s, left);
    *shown = u[0];
    if (n == 0) {
        *len = 1;
        return TEXT_INVALID;
    }
    *len = n;
    if (u[0] < 0x20 || u[0] == 0x7F)
        return TEXT_CONTROL;
    if (n == 2 && u[0] == 0xC2 && u[1] <= 0x9F) {
        *shown = u[1];
        return TEXT_CONTROL;
    }
    return TEXT_PRINTABLE;
}

bool text_is_utf8(const char *s)
{
    for (size_t left = s ? strlen(s) : 0; left;) {
        size_t n = utf8_char_len(s, left);
        if (!n)
            return false;
        s += n;
        left -= n;
    }
    return true;
}

char *text_valid_utf8(const char *s)
{
    if (!s)
        return strdup("");
    size_t left = strlen(s);
    char *out = malloc(left * 3 + 1), *o = out; /* each bad byte grows to three */
    if (!out)
        return NULL;
    while (left) {
        size_t n = utf8_char_len(s, left);
        if (n) {
            memcpy(o, s, n);
            o += n;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            n = 1;
        }
        s += n;
        left -= n;
    }
    *o = '\0';
    return out;
}

json_t *json_text(const char *s)
{
    if (s && text_is_utf8(s))
        return json_string(s);
    char *valid = text_valid_utf8(s);
    json_t *j = valid ? json_string(valid) : NULL;
    free(valid);
    return j;
}

bool text_one_line(char *out, size_t size, const char *s)
{
    if (!size)
        return false;
    size_t used = 0, left = s ? strlen(s) : 0;
    bool changed = false;
    while (left) {
        size_t n;
        unsigned char shown;
        enum text_piece kind = text_piece_at(s, left, &n, &shown);
        char piece[8];
        size_t plen;
        if (kind == TEXT_PRINTABLE) {
            memcpy(piece, s, n);
            plen = n;
        } else if (kind == TEXT_CONTROL && shown == '\t') {
            piece[0] = ' ';
            plen = 1;
        } else {
            static const char hex[] = "0123456789abcdef";
            piece[0] = '\\', piece[1] = 'x', piece[2] = hex[shown >> 4], piece[3] = hex[shown & 15];
            plen = 4;
            changed = true;
        }
        if (used + plen > size - 1) {
            changed = true;
            break;
        }
        memcpy(out + used, piece, plen);
        used += plen;
        s += n;
        left -= n;
    }
    while (used && out[used - 1] == ' ')
        used--;
    out[used] = '\0';
    return changed;
}

char *text_without_controls(const char *s)
{
    size_t left = s ? strlen(s) : 0;
    char *out = malloc(left * 4 + 1), *o = out; /* a control byte grows to four */
    if (!out)
        return NULL;
    static const char hex[] = "0123456789abcdef";
    while (left) {
        size_t n;
        unsigned char shown;
        enum text_piece kind = text_piece_at(s, left, &n, &shown);
        if (kind == TEXT_CONTROL && shown == '\t') {
            *o++ = ' ';
        } else if (kind == TEXT_CONTROL) {
            *o++ = '\\', *o++ = 'x', *o++ = hex[shown >> 4], *o++ = hex[shown & 15];
        } else {
            memcpy(o, s, n);
            o += n;
        }
        s += n;
        left -= n;
    }
    *o = '\0';
    return out;
}

bool hostname_is_plain(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > HOSTNAME_MAX || s[0] == '-' || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
              c == '_'))
            return false;
    }
    return true;
}
