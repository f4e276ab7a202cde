/* Replays every input in tests/fuzz/regressions/HARNESS/ (what libFuzzer once failed on) through
 * that harness; the sanitizer build catches the leak or overflow if it comes back. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/dmi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* fuzz_smbios.c */
int fuzz_nvsmi_one(const uint8_t *data, size_t size);
int fuzz_dmidecode_one(const uint8_t *data, size_t size);
int fuzz_claim_one(const uint8_t *data, size_t size);
int fuzz_bench_json_one(const uint8_t *data, size_t size);
int fuzz_audit_json_one(const uint8_t *data, size_t size);
int fuzz_offers_one(const uint8_t *data, size_t size);
int fuzz_hf_config_one(const uint8_t *data, size_t size);
int fuzz_dmon_one(const uint8_t *data, size_t size);
int fuzz_mo_one(const uint8_t *data, size_t size);
int fuzz_fleet_one(const uint8_t *data, size_t size);
int fuzz_watch_one(const uint8_t *data, size_t size);
int fuzz_mo_format_one(const uint8_t *data, size_t size);
int fuzz_kernel_log_one(const uint8_t *data, size_t size);

#define REGRESSIONS GPUVET_TEST_SOURCE "/fuzz/regressions"

static const struct {
    const char *dir;
    int (*one)(const uint8_t *, size_t);
} harnesses[] = {
    {"smbios", LLVMFuzzerTestOneInput}, {"nvsmi", fuzz_nvsmi_one},         {"dmidecode", fuzz_dmidecode_one},
    {"claim", fuzz_claim_one},          {"bench_json", fuzz_bench_json_one}, {"audit_json", fuzz_audit_json_one},
    {"offers", fuzz_offers_one},        {"hf_config", fuzz_hf_config_one}, {"dmon", fuzz_dmon_one},
    {"mo", fuzz_mo_one},
    {"fleet", fuzz_fleet_one},          {"watch", fuzz_watch_one},           {"mo_format", fuzz_mo_format_one},
    {"kernel_log", fuzz_kernel_log_one},
};

/* Runs every file of one harness's folder (none is fine: that parser never failed). */
static int replay(const char *dir, int (*one)(const uint8_t *, size_t))
{
    char folder[1024];
    snprintf(folder, sizeof folder, REGRESSIONS "/%s", dir);
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    int replayed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        uint8_t *exact = malloc(n ? n : 1); /* exact size, so ASan sees any over-read */
        memcpy(exact, buf, n);
        one(exact, n);
        free(exact);
        replayed++;
    }
    closedir(d);
    return replayed;
}

Test(fuzz_regressions, every_kept_input_runs_clean)
{
    int replayed = 0;
    for (size_t i = 0; i < sizeof harnesses / sizeof harnesses[0]; i++)
        replayed += replay(harnesses[i].dir, harnesses[i].one);
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
