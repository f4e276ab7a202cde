/* libFuzzer target: `dmidecode` text as --dmidecode FILE reads it. Seeds: tests/fixtures/dmidecode/
 * (fuzz_smbios tries text too, but from binary seeds). */
#include "fuzz_file.h"
#include "probe/dmi.h"

int fuzz_dmidecode_one(const uint8_t *data, size_t size);

int fuzz_dmidecode_one(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct dmi_data d = {0};
    char *error = NULL;
    dmidecode_parse(text, &d, &error);
    free(error);
    dmi_data_free(&d);
    free(text);
    return 0;
}

FUZZ_ENTRY(fuzz_dmidecode_one)
