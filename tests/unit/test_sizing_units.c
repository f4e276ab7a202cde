/* The numbers users type, one parser for every command (util/parse.c): counts, token lengths,
 * sizes (a lower-case b is bits and refused), fractions. */
#include <criterion/criterion.h>
#include <math.h>

#include "util/parse.h"

Test(units, counts_are_decimal)
{
    double v;
    cr_expect(parse_quantity("7B", &v) && v == 7e9);
    cr_expect(parse_quantity("7b", &v) && v == 7e9, "a count has no bits: b is billion");
    cr_expect(parse_quantity("2T", &v) && v == 2e12);
    cr_expect(parse_quantity("2.5k", &v) && v == 2500);
    cr_expect(parse_quantity("6.7e9", &v) && v == 6.7e9);
    cr_expect(!parse_quantity("7X", &v));
    cr_expect(!parse_quantity("-7B", &v));
    cr_expect(!parse_quantity("0", &v));
}

/* Context lengths as model cards write them: "8k" is 8192 (Llama-3's max_position_embeddings),
 * "128k" 131072 (Llama-3.1's). */
Test(units, token_counts_are_binary_thousands)
{
    int v;
    cr_expect(parse_token_count("8k", 1 << 30, &v) && v == 8192);
    cr_expect(parse_token_count("8K", 1 << 30, &v) && v == 8192);
    cr_expect(parse_token_count("128k", 1 << 30, &v) && v == 131072);
    cr_expect(parse_token_count("1M", 1 << 30, &v) && v == 1048576);
    cr_expect(parse_token_count("4096", 1 << 30, &v) && v == 4096);
    cr_expect(!parse_token_count("4096.5", 1 << 30, &v), "a token count is whole");
    cr_expect(!parse_token_count("8k", 4096, &v), "above the maximum");
    cr_expect(!parse_token_count("8kb", 1 << 30, &v));
}

Test(units, sizes_are_bytes_and_bits_are_refused)
{
    double v;
    cr_expect(parse_bytes("150GB", &v) && v == 150e9);
    cr_expect(parse_bytes("150gB", &v) && v == 150e9, "the prefix in either case");
    cr_expect(parse_bytes("1.2TB", &v) && v == 1.2e12);
    cr_expect(parse_bytes("115 KB", &v) && v == 115e3);
    cr_expect(parse_bytes("512MiB", &v) && v == 512.0 * 1048576);
    cr_expect(parse_bytes("1000", &v) && v == 1000);
    cr_expect(!parse_bytes("150Gb", &v), "gigabits are not a size in bytes");
    cr_expect(!parse_bytes("150gb", &v));
    cr_expect(!parse_bytes("1.2tb", &v));
    cr_expect(!parse_bytes("512Mib", &v));
    cr_expect(!parse_bytes("150G", &v), "no unit letter for bytes: ambiguous");
}

Test(units, fractions)
{
    double v;
    cr_expect(parse_fraction("0.68", &v) && v == 0.68);
    cr_expect(parse_fraction("68%", &v) && fabs(v - 0.68) < 1e-12);
    cr_expect(!parse_fraction("0", &v), "0 is not a utilisation: nothing ran");
    cr_expect(!parse_fraction("1.5", &v));
    cr_expect(!parse_fraction("-0.5", &v));
}
