/* The option-value helpers of util/parse.h: what each accepts, its range edges, and the one error
 * style ("gpuvet CMD: --OPT VALUE: expected ...") every command prints. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>

#include "util/parse.h"

static void quiet(void) { cr_redirect_stderr(); }

Test(option_values, integers_take_their_range_edges_and_nothing_else, .init = quiet)
{
    int v = -7;
    cr_assert(option_int("bench", "cpu", "0", 0, 4, &v));
    cr_assert_eq(v, 0);
    cr_assert(option_int("bench", "cpu", "4", 0, 4, &v));
    cr_assert_eq(v, 4);
    v = -7;
    cr_assert_not(option_int("bench", "cpu", "5", 0, 4, &v));
    cr_assert_not(option_int("bench", "cpu", "-1", 0, 4, &v));
    cr_assert_not(option_int("bench", "cpu", "two", 0, 4, &v));
    cr_assert_not(option_int("bench", "cpu", "", 0, 4, &v));
    cr_assert_not(option_int("bench", "cpu", "3.5", 0, 4, &v));
    cr_assert_not(option_int("audit", "nodes", "99999999999999999999", 1, 100000, &v));
    cr_assert_eq(v, -7, "a refused value leaves the output alone");
}

Test(option_values, integer_error_names_command_option_value_and_range, .init = quiet)
{
    int v;
    cr_assert_not(option_int("audit", "nodes", "0", 1, 100000, &v));
    fflush(stderr);
    cr_assert_stderr_eq_str("gpuvet audit: --nodes 0: expected a whole number from 1 to 100000\n");
}

Test(option_values, durations_take_units, .init = quiet)
{
    double s = 0;
    cr_assert(option_seconds("bench", "seconds", "20", false, 3600, &s));
    cr_assert_float_eq(s, 20, 1e-12);
    cr_assert(option_seconds("bench", "seconds", "1.5s", false, 3600, &s));
    cr_assert_float_eq(s, 1.5, 1e-12);
    cr_assert(option_seconds("bench", "seconds", "500ms", false, 3600, &s));
    cr_assert_float_eq(s, 0.5, 1e-12);
    cr_assert(option_seconds("bench", "seconds", "5m", false, 3600, &s));
    cr_assert_float_eq(s, 300, 1e-12);
    cr_assert(option_seconds("bench", "seconds", "1h", false, 3600, &s));
    cr_assert_float_eq(s, 3600, 1e-12);
    cr_assert_not(option_seconds("bench", "seconds", "61m", false, 3600, &s), "past the maximum");
    cr_assert_not(option_seconds("bench", "seconds", "0", false, 3600, &s), "zero when it is not allowed");
    cr_assert(option_seconds("audit", "sample", "0", true, 3600, &s));
    cr_assert_float_eq(s, 0, 1e-12);
    cr_assert_not(option_seconds("audit", "sample", "-1", true, 3600, &s));
    cr_assert_not(option_seconds("audit", "sample", "soon", true, 3600, &s));
    cr_assert_not(option_seconds("audit", "sample", "5 days", true, 3600, &s));
    cr_assert_not(option_seconds("audit", "sample", "nan", true, 3600, &s));
    cr_assert_not(option_seconds("audit", "sample", "inf", true, 3600, &s));
    cr_assert_not(option_seconds("audit", "sample", "2M", true, 3600, &s), "units are case-sensitive: M is not minutes");
}

Test(option_values, duration_error_shows_the_open_or_closed_range, .init = quiet)
{
    double s;
    cr_assert_not(option_seconds("bench", "seconds", "0", false, 3600, &s));
    cr_assert_not(option_seconds("watch", "interval", "x", true, 1e7, &s));
    fflush(stderr);
    cr_assert_stderr_eq_str("gpuvet bench: --seconds 0: expected seconds in (0, 3600] (20, 1.5s, 500ms, 5m)\n"
                            "gpuvet watch: --interval x: expected seconds in [0, 10000000] (20, 1.5s, 500ms, 5m)\n");
}

Test(option_values, percentages_with_or_without_the_sign, .init = quiet)
{
    double p = -1;
    cr_assert(option_percent("fleet", "tolerance", "5", 100, &p));
    cr_assert_float_eq(p, 5, 1e-12);
    cr_assert(option_percent("fleet", "tolerance", "12.5%", 100, &p));
    cr_assert_float_eq(p, 12.5, 1e-12);
    cr_assert(option_percent("fleet", "tolerance", "0", 100, &p));
    cr_assert_float_eq(p, 0, 1e-12);
    cr_assert_not(option_percent("fleet", "tolerance", "100", 100, &p), "the maximum is excluded");
    cr_assert_not(option_percent("fleet", "tolerance", "-1", 100, &p));
    cr_assert_not(option_percent("fleet", "tolerance", "5%%", 100, &p));
    cr_assert_not(option_percent("fleet", "tolerance", "%", 100, &p));
    cr_assert_not(option_percent("fleet", "tolerance", "nan", 100, &p));
}

Test(option_values, fractions_positives_sizes_and_tokens, .init = quiet)
{
    double v;
    cr_assert(option_fraction("cost", "util", "68%", &v));
    cr_assert_float_eq(v, 0.68, 1e-12);
    cr_assert(option_fraction("cost", "util", "1", &v));
    cr_assert_not(option_fraction("cost", "util", "0", &v));
    cr_assert_not(option_fraction("cost", "util", "1.5", &v));
    cr_assert(option_positive("cost", "params", "7B", &v));
    cr_assert_float_eq(v, 7e9, 1);
    cr_assert(option_positive("cost", "job-flops", "3.2e22", &v));
    cr_assert_float_eq(v, 3.2e22, 1e7);
    cr_assert_not(option_positive("cost", "tokens", "-2T", &v));
    cr_assert(option_bytes("plan", "dataset-bytes", "150GB", &v));
    cr_assert_float_eq(v, 150e9, 1);
    cr_assert(option_bytes("plan", "image-bytes", "512MiB", &v));
    cr_assert_float_eq(v, 512.0 * 1024 * 1024, 1);
    cr_assert_not(option_bytes("plan", "dataset-bytes", "150Gb", &v), "bits are not bytes");
    int t;
    cr_assert(option_tokens("plan", "context", "8k", 1000000, &t));
    cr_assert_eq(t, 8192);
    cr_assert_not(option_tokens("plan", "context", "2M", 1000000, &t));
    cr_assert_not(option_tokens("plan", "context", "0", 1000000, &t));
}

Test(option_values, every_kind_says_what_it_expected, .init = quiet)
{
    double v;
    int t;
    cr_assert_not(option_fraction("cost", "util", "2", &v));
    cr_assert_not(option_bytes("plan", "dataset-bytes", "150Gb", &v));
    cr_assert_not(option_tokens("plan", "seq", "x", 4096, &t));
    cr_assert_not(option_invalid("cost", "precision", "fp4", "bf16, fp16, tf32, fp32, fp64, fp8 or int8"));
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "gpuvet cost: --util 2: expected a fraction in (0, 1]: 0.68 or 68%\n"
        "gpuvet plan: --dataset-bytes 150Gb: expected a size (sizes are bytes: 150GB, 1.2TB, 512MiB; a lower-case b "
        "means bits)\n"
        "gpuvet plan: --seq x: expected a token count from 1 to 4096 (4096, 8k = 8192, 128k)\n"
        "gpuvet cost: --precision fp4: expected bf16, fp16, tf32, fp32, fp64, fp8 or int8\n");
}
