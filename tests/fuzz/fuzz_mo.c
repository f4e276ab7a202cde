/* libFuzzer target: a message catalogue (.mo) as util/mo.c reads an installed
 * zh_CN/LC_MESSAGES/gpuvet.mo that may be cut short or corrupted. Seed: the catalogue the build
 * compiled from po/zh_CN.po. Every lookup of a catalogue mo_open accepted must stay inside it. */
#include <inttypes.h>
#include <string.h>

#include "fuzz_file.h"
#include "util/mo.h"

int fuzz_mo_one(const uint8_t *data, size_t size);

int fuzz_mo_one(const uint8_t *data, size_t size)
{
    struct mo_catalogue mo;
    char err[256];
    if (mo_open(&mo, data, size, err, sizeof err) != 0)
        return 0;
    /* Messages of the real catalogue (a header, a plain one, a plural one) and ones it lacks. */
    static const char *const msgids[] = {"", "No such file or directory", "%d GPU", "Usage: gpuvet COMMAND [OPTIONS]\n",
                                         "only %" PRIu64 " MiB may be used (%s): too little for STREAM arrays", "\xff", "zzzz"};
    size_t total = 0;
    for (size_t i = 0; i < sizeof msgids / sizeof msgids[0]; i++)
        for (unsigned form = 0; form < 3; form++) {
            const char *text = mo_lookup_plural(&mo, msgids[i], form);
            total += text ? strlen(text) : 0;
        }
    mo_close(&mo);
    return total == (size_t)-1; /* uses the lengths, so the reads are not optimised away */
}

FUZZ_ENTRY(fuzz_mo_one)
