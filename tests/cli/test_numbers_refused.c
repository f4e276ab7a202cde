/* Numbers are checked where they enter: a value past what its source can state is refused with a
 * message naming it, never wrapped into a plausible one (-1 W, -2147483648 cores, a negative GPU
 * index). Real fixture files with one value replaced. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define HP_DMI GPUVET_TEST_SOURCE "/fixtures/dmidecode/hp-dl360-gen9-2p-xeon-e5-2695v4-ddr4-24of24.dmidecode.txt"
#define DMON GPUVET_TEST_SOURCE "/fixtures/watch/dmon-pucvmet-1080ti.log"

/* A temporary copy of the file at path with every `from` replaced by `to`; the caller unlinks it. */
static char *replaced_copy(const char *path, const char *from, const char *to)
{
    char *text = file_contents(path, NULL);
    char out[] = "/tmp/gpuvet-numbers-XXXXXX";
    int fd = mkstemp(out);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    int replaced = 0;
    for (const char *p = text; *p;) {
        if (!strncmp(p, from, strlen(from))) {
            fputs(to, f);
            p += strlen(from);
            replaced++;
        } else {
            fputc(*p++, f);
        }
    }
    fclose(f);
    free(text);
    cr_assert(replaced > 0, "%s holds no %s", path, from);
    return strdup(out);
}

Test(numbers, a_decode_rate_that_needs_more_cores_than_an_int_is_refused)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "8xH100", "--decode-rate", "1e-9", NULL);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.out);
    cr_assert_null(strstr(r.out, "-2147483648"), "%s", r.out);
    cr_assert(strstr(r.err, "1e-09 images/s per core (--decode-rate) would need 4.06e+12 decode cores per GPU"), "%s",
              r.err);
    run_result_free(&r);
}

Test(numbers, an_image_rate_past_any_gpu_is_refused)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "8xH100", "--img-rate", "1e300", NULL);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.out);
    cr_assert(strstr(r.err, "1e+300 images/s per GPU (--img-rate) is more than any GPU consumes (1e+07)"), "%s", r.err);
    run_result_free(&r);
}

/* SMBIOS marks an unknown capacity with bit 15 (0x8000): past 32,767 W a supply's capacity is
 * unknown, never a wrapped "-1 W", and the rest of the report is read (a real Supermicro X9DRi
 * report prints 0xFFFF as "65535 W"). */
Test(numbers, a_power_supply_past_what_smbios_states_is_capacity_unknown)
{
    const char *bad[] = {"99999999999", "65535"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char to[64];
        snprintf(to, sizeof to, "Max Power Capacity: %s W", bad[i]);
        char *path = replaced_copy(HP_DMI, "Max Power Capacity: 500 W", to);
        struct run_result r = run_gpuvet("audit", "--dmidecode", path, NULL);
        cr_assert(r.status == 0 || r.status == 1, "%s: exit %d: %s", bad[i], r.status, r.err);
        cr_assert_null(strstr(r.out, "-1 W"), "%s", r.out);
        cr_assert(strstr(r.out, "capacity unknown"), "%s: %s", bad[i], r.out);
        run_result_free(&r);
        unlink(path);
        free(path);
    }
}

Test(numbers, an_unknown_power_supply_capacity_is_not_minus_one_watt)
{
    char *path = replaced_copy(HP_DMI, "Max Power Capacity: 500 W", "Max Power Capacity: Unknown");
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    cr_assert_null(strstr(r.out, "-1 W"), "%s", r.out);
    cr_assert(strstr(r.out, "capacity unknown"), "%s", r.out);
    run_result_free(&r);
    unlink(path);
    free(path);
}

/* Two sockets of 1.5 billion cores: their sum wraps an int into a negative count. */
Test(numbers, a_core_count_past_what_smbios_states_is_refused_not_summed)
{
    char *path = replaced_copy(HP_DMI, "Core Count: 18", "Core Count: 1500000000");
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, "--json", NULL);
    cr_assert_eq(r.status, 2, "exit %d: %s", r.status, r.out);
    cr_assert(strstr(r.err, "processor Proc 1: its Core Count or Thread Count is more than the 65535 SMBIOS can state"),
              "%s", r.err);
    run_result_free(&r);
    unlink(path);
    free(path);
}

Test(numbers, a_dmon_gpu_index_past_any_node_is_refused)
{
    const char *bad[] = {"99999999999", "1e300", "-", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char to[64];
        snprintf(to, sizeof to, "\n%11s    24    46", bad[i]);
        char *path = replaced_copy(DMON, "\n    0    24    46", to);
        struct run_result r = run_gpuvet("watch", "--replay", path, NULL);
        cr_assert_eq(r.status, 2, "%s: exit %d: %s", bad[i], r.status, r.out);
        char want[128];
        snprintf(want, sizeof want, ":3: gpu '%s' is not a GPU index (0 to 1023)", bad[i]);
        cr_assert(strstr(r.err, want), "%s: %s", bad[i], r.err);
        run_result_free(&r);
        unlink(path);
        free(path);
    }
}
