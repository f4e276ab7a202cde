/* libFuzzer target: a translation as an installed catalogue may carry it, checked by
 * mo_format_compatible (util/mo.c) against one of gpuvet's msgids and, when accepted, printed with
 * the arguments that msgid is printed with. A translation the check lets through that reads an
 * argument it was not given (a %s for an int, one %s more) crashes under ASan here. The first byte
 * picks the msgid; the rest is the translation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "util/mo.h"

int fuzz_mo_format_one(const uint8_t *data, size_t size);

/* The format is the input, on purpose. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wformat-nonliteral"
#pragma clang diagnostic ignored "-Wformat-security"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#endif

int fuzz_mo_format_one(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char out[8192];
    const char *s = "sda", *t = "PCIE_LINK_DEGRADED";
    int d = 8, e = 16;
    double f = 2.5;
    size_t z = 4096;
    unsigned long long u = 1ull << 40;
    switch (data[0] % 6) {
    case 0:
        if (mo_format_compatible("gpuvet: unknown command '%s'; did you mean %s?\n", text))
            snprintf(out, sizeof out, text, s, t);
        break;
    case 1:
        if (mo_format_compatible("; %d of %d DIMM slots free", text))
            snprintf(out, sizeof out, text, d, e);
        break;
    case 2:
        if (mo_format_compatible(" with %d DIMM%s per channel", text))
            snprintf(out, sizeof out, text, d, s);
        break;
    case 3:
        if (mo_format_compatible("%s: %.1f GB/s (%zu MiB copied)", text))
            snprintf(out, sizeof out, text, s, f, z);
        break;
    case 4:
        if (mo_format_compatible("%llu bytes at %*d%%", text))
            snprintf(out, sizeof out, text, u, d, e);
        break;
    default:
        if (mo_format_compatible("no conversion here", text))
            snprintf(out, sizeof out, text);
        break;
    }
    free(text);
    return 0;
}

FUZZ_ENTRY(fuzz_mo_format_one)
