/* Replays every input in tests/fuzz/regressions (what libFuzzer once failed on) through the fuzz
 * harness; the sanitizer build catches the leak or overflow if it comes back. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REGRESSIONS GPUVET_TEST_SOURCE "/fuzz/regressions"

Test(fuzz_regressions, every_kept_input_runs_clean)
{
    DIR *d = opendir(REGRESSIONS);
    cr_assert_not_null(d);
    int replayed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, REGRESSIONS "/%s", e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        uint8_t *exact = malloc(n ? n : 1); /* exact size, so ASan sees any over-read */
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
        free(exact);
        replayed++;
    }
    closedir(d);
    cr_assert_gt(replayed, 0);
}

/* The leak the fuzzer found: a second type-1 structure overwrote the first one's product name. */
Test(fuzz_regressions, the_first_system_structure_wins)
{
    const uint8_t table[] = {
        1, 8, 0x01, 0x00, 0, 1, 0, 0, 'A', 0, 0,    /* vendor: none, product: "A" */
        1, 8, 0x02, 0x00, 1, 2, 0, 0, 'B', 0, 'C', 0, 0, /* vendor "B", product "C" */
        127, 4, 0x03, 0x00, 0, 0,
    };
    struct dmi_data dmi = {0};
    const char *err = NULL;
    cr_assert_eq(smbios_decode_table(table, sizeof table, &dmi, &err), 3);
    cr_assert_null(dmi.system_vendor);
    cr_assert_str_eq(dmi.system_product, "A");
    dmi_data_free(&dmi);
}
