/* gpu/nvml.c: NVML's power readings checked where they enter (probe and watch share it). */
#include <criterion/criterion.h>

#include "gpu/nvml.h"

Test(nvml_power, the_not_available_sentinel_and_impossible_readings_are_refused)
{
    double w = -1;
    cr_assert_not(nvml_power_w(0xFFFFFFFFu, &w), "0xffffffff mW taken as 4.29 MW");
    cr_assert_eq(w, -1, "a refused reading leaves the value unknown");
    cr_assert_not(nvml_power_w(GPU_POWER_READING_MAX_W * 1000u + 1, &w));
    cr_assert(nvml_power_w(700000, &w));
    cr_assert_float_eq(w, 700.0, 1e-9);
    cr_assert(nvml_power_w(0, &w));
    cr_assert_float_eq(w, 0.0, 1e-9);
}
