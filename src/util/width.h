/* Terminal columns of UTF-8 text: CJK characters take two columns, combining marks none, so
 * tables line up when a column holds Chinese. Our own table, not wcwidth(3): it gives the same
 * answer in every locale (C, C.UTF-8, zh_CN.UTF-8) and in tests. */
#ifndef GPUVET_UTIL_WIDTH_H
#define GPUVET_UTIL_WIDTH_H

#include <stddef.h>
#include <stdio.h>

/* Columns of one code point: 0, 1 or 2. */
int codepoint_width(unsigned cp);
/* Decodes the UTF-8 sequence at s (at most len bytes) into *cp; returns its length in bytes (1
 * for a malformed byte, which counts as one column). */
size_t utf8_decode(const char *s, size_t len, unsigned *cp);
/* Columns of the first len bytes of s; ANSI colour sequences (ESC ... m) take none. */
size_t display_width_n(const char *s, size_t len);
size_t display_width(const char *s);
/* Bytes of the longest prefix of s (len bytes) that fits in cols columns, ending on a whole
 * character. */
size_t display_prefix(const char *s, size_t len, size_t cols);
/* Writes s padded with spaces on the right to `cols` columns (printf's %-*s counts bytes). */
void fput_padded(FILE *o, const char *s, size_t cols);
/* Writes s right-aligned in `cols` columns (spaces on the left), for a column of numbers. */
void fput_right(FILE *o, const char *s, size_t cols);
/* The same into a string buffer: appends s and the padding to buf (size n), cut when full. */
void append_padded(char *buf, size_t n, const char *s, size_t cols);

#endif
