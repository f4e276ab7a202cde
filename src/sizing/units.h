/* Parsing of the counts and sizes users type: "7B" params, "2T" tokens, "1.2TB" datasets. */
#ifndef GPUVET_SIZING_UNITS_H
#define GPUVET_SIZING_UNITS_H

#include <stdbool.h>

/* A positive number with an optional decimal suffix K, M, B or G (1e9), T; "6.7e9" works too. */
bool parse_quantity(const char *s, double *out);
/* A positive size in bytes: a number with an optional unit B, KB, MB, GB, TB (decimal) or KiB,
 * MiB, GiB, TiB (binary). */
bool parse_bytes(const char *s, double *out);
/* A fraction in (0, 1], written 0.68 or 68%. */
bool parse_fraction(const char *s, double *out);

#endif
