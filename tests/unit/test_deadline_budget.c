/* util/deadline.c: a call's budget is its own fallback, at most the request's cap (health's), and
 * an environment value wins over both (tests make budgets short). The cap is an argument, so one
 * request's cap reaches no other. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "util/deadline.h"

Test(deadline_budget, the_cap_lowers_the_fallback_only)
{
    unsetenv("GPUVET_DEADLINE_TEST_S");
    cr_expect_float_eq(deadline_seconds_capped("GPUVET_DEADLINE_TEST_S", DEADLINE_NVML_S, DEADLINE_HEALTH_CAP_S),
                       DEADLINE_HEALTH_CAP_S, 1e-9);
    cr_expect_float_eq(deadline_seconds_capped("GPUVET_DEADLINE_TEST_S", 5.0, DEADLINE_HEALTH_CAP_S), 5.0, 1e-9);
    cr_expect_float_eq(deadline_seconds_capped("GPUVET_DEADLINE_TEST_S", DEADLINE_NVML_S, 0), DEADLINE_NVML_S, 1e-9);
    /* The uncapped form after a capped call: nothing was kept. */
    cr_expect_float_eq(deadline_seconds("GPUVET_DEADLINE_TEST_S", DEADLINE_NVML_S), DEADLINE_NVML_S, 1e-9);
}

Test(deadline_budget, an_environment_value_wins)
{
    setenv("GPUVET_DEADLINE_TEST_S", "30", 1);
    cr_expect_float_eq(deadline_seconds_capped("GPUVET_DEADLINE_TEST_S", DEADLINE_NVML_S, DEADLINE_HEALTH_CAP_S), 30.0,
                       1e-9);
    setenv("GPUVET_DEADLINE_TEST_S", "soon", 1); /* not a number: the capped fallback */
    cr_expect_float_eq(deadline_seconds_capped("GPUVET_DEADLINE_TEST_S", DEADLINE_NVML_S, DEADLINE_HEALTH_CAP_S),
                       DEADLINE_HEALTH_CAP_S, 1e-9);
    unsetenv("GPUVET_DEADLINE_TEST_S");
}
