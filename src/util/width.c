#include "util/width.h"

#include <stdbool.h>
#include <string.h>

/* East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, W and F), the blocks a
 * report can hold: CJK, Hangul, kana, fullwidth forms, CJK punctuation, and emoji. */
static const unsigned wide[][2] = {
    {0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
    {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
    {0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
    {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
    {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
    {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
    {0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
    {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
    {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F},
    {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD},
    {0x30000, 0x3FFFD},
};

/* Combining marks and zero-width characters most likely in names and messages. */
static const unsigned zero[][2] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
    {0x200B, 0x200F}, {0x2028, 0x202E}, {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF},
};

static bool in(const unsigned (*ranges)[2], size_t n, unsigned cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < ranges[mid][0])
            hi = mid;
        else if (cp > ranges[mid][1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

int codepoint_width(unsigned cp)
{
    if (cp == 0)
        return 0;
    if (in(zero, sizeof zero / sizeof zero[0], cp))
        return 0;
    return in(wide, sizeof wide / sizeof wide[0], cp) ? 2 : 1;
}

size_t utf8_decode(const char *s, size_t len, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t need = u[0] < 0x80 ? 1 : (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3 : (u[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (need == 0 || need > len) {
        *cp = u[0];
        return 1;
    }
    unsigned v = need == 1 ? u[0] : need == 2 ? u[0] & 0x1Fu : need == 3 ? u[0] & 0x0Fu : u[0] & 0x07u;
    for (size_t i = 1; i < need; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            *cp = u[0];
            return 1;
        }
        v = (v << 6) | (u[i] & 0x3Fu);
    }
    *cp = v;
    return need;
}

/* Length of the ANSI sequence at s (ESC up to and including 'm'), or 0. */
static size_t escape_length(const char *s, size_t len)
{
    if (len == 0 || s[0] != '\033')
        return 0;
    size_t i = 1;
    while (i < len && s[i] != 'm')
        i++;
    return i < len ? i + 1 : len;
}

size_t display_width_n(const char *s, size_t len)
{
    size_t cols = 0;
    for (size_t i = 0; i < len;) {
        size_t esc = escape_length(s + i, len - i);
        if (esc) {
            i += esc;
            continue;
        }
        unsigned cp;
        i += utf8_decode(s + i, len - i, &cp);
        cols += (size_t)codepoint_width(cp);
    }
    return cols;
}

size_t display_width(const char *s) { return s ? display_width_n(s, strlen(s)) : 0; }

size_t display_prefix(const char *s, size_t len, size_t cols)
{
    size_t used = 0, i = 0;
    while (i < len) {
        size_t esc = escape_length(s + i, len - i);
        if (esc) {
            i += esc;
            continue;
        }
        unsigned cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        size_t w = (size_t)codepoint_width(cp);
        if (used + w > cols)
            break;
        used += w;
        i += n;
    }
    return i;
}

void fput_padded(FILE *o, const char *s, size_t cols)
{
    s = s ? s : "";
    fputs(s, o);
    for (size_t w = display_width(s); w < cols; w++)
        fputc(' ', o);
}

void append_padded(char *buf, size_t n, const char *s, size_t cols)
{
    size_t used = strlen(buf);
    s = s ? s : "";
    for (size_t i = 0; s[i] && used + 1 < n; i++)
        buf[used++] = s[i];
    for (size_t w = display_width(s); w < cols && used + 1 < n; w++)
        buf[used++] = ' ';
    if (n)
        buf[used < n ? used : n - 1] = '\0';
}

void fput_right(FILE *o, const char *s, size_t cols)
{
    s = s ? s : "";
    for (size_t w = display_width(s); w < cols; w++)
        fputc(' ', o);
    fputs(s, o);
}
