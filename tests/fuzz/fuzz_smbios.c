/* libFuzzer target for the SMBIOS parsers: the input is tried as a structure table, as a
 * `dmidecode --dump-bin` image (entry point, then the table where it points) and as dmidecode text.
 * Build: make -C build fuzz_smbios (needs clang); run: build/fuzz_smbios -max_total_time=300 DIR */
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_dmidecode_one(const uint8_t *data, size_t size); /* fuzz_dmidecode.c: the text form */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dmi_data d = {0};
    const char *why = NULL;
    smbios_decode_table(data, size, &d, &why);
    dmi_data_free(&d);

    int major, minor;
    uint64_t addr;
    uint32_t len;
    if (smbios_parse_entry_point(data, size, &major, &minor, &addr, &len, &why) == 0 && addr < size) {
        size_t avail = size - (size_t)addr;
        smbios_decode_table(data + addr, len < avail ? len : avail, &d, &why);
        dmi_data_free(&d);
    }

    return fuzz_dmidecode_one(data, size);
}
