/* `audit --expect`: a listing in a provider's words turned into the claim file's object. Labels
 * (written before running): the GPU's own figures are the GPU table's (data/gpus.csv, from NVIDIA's
 * datasheets): H100 SXM5 80GB is PCIe Gen5 x16 with 18 NVLinks, A100 SXM4 Gen4 x16 with 12; an
 * 8-GPU HGX board joins them through NVSwitch; memory "2TB" is 2048 binary GB (DIMMs), a disk's
 * "3.84TB" 3840 decimal GB; words that make no claim are kept, not dropped. */
#include <criterion/criterion.h>
#include <string.h>

#include "claims/claims.h"

static json_t *parse(const char *text, json_t **unparsed)
{
    json_t *o = claim_listing_object(text, unparsed);
    cr_assert_not_null(o);
    return o;
}

static json_int_t integer_at(json_t *o, const char *section, const char *key)
{
    json_t *v = json_object_get(json_object_get(o, section), key);
    cr_assert(json_is_integer(v), "%s.%s in %s", section, key, json_dumps(o, JSON_COMPACT));
    return json_integer_value(v);
}

static const char *string_at(json_t *o, const char *section, const char *key)
{
    json_t *v = json_object_get(json_object_get(o, section), key);
    cr_assert(json_is_string(v), "%s.%s in %s", section, key, json_dumps(o, JSON_COMPACT));
    return json_string_value(v);
}

static double number_at(json_t *o, const char *section, const char *key)
{
    json_t *v = json_object_get(json_object_get(o, section), key);
    cr_assert(json_is_number(v), "%s.%s in %s", section, key, json_dumps(o, JSON_COMPACT));
    return json_number_value(v);
}

static void expect_h100_sxm5_board(json_t *o)
{
    cr_expect_eq(integer_at(o, "gpus", "count"), 8);
    cr_expect_str_eq(string_at(o, "gpus", "model"), "h100-sxm5-80gb");
    cr_expect_eq(number_at(o, "gpus", "memory_gb"), 80);
    cr_expect_eq(integer_at(o, "gpus", "pcie_gen"), 5);
    cr_expect_eq(integer_at(o, "gpus", "pcie_width"), 16);
    cr_expect_eq(integer_at(o, "gpus", "nvlinks"), 18);
    cr_expect_str_eq(string_at(o, "gpus", "fabric"), "nvswitch");
}

Test(listing, gpu_in_the_forms_providers_write)
{
    const char *forms[] = {"8x H100 SXM5 80GB", "8 x H100 80GB SXM", "8xH100-SXM5-80GB", "8× H100 SXM5 80GB"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        json_t *unparsed;
        json_t *o = parse(forms[i], &unparsed);
        expect_h100_sxm5_board(o);
        cr_expect_eq(json_array_size(unparsed), 0, "%s: %s", forms[i], json_dumps(unparsed, JSON_COMPACT));
        json_decref(o);
        json_decref(unparsed);
    }
    json_t *unparsed;
    json_t *o = parse("8xA100-SXM4-40GB", &unparsed);
    cr_expect_str_eq(string_at(o, "gpus", "model"), "a100-sxm4-40gb");
    cr_expect_eq(number_at(o, "gpus", "memory_gb"), 40);
    cr_expect_eq(integer_at(o, "gpus", "pcie_gen"), 4);
    cr_expect_eq(integer_at(o, "gpus", "nvlinks"), 12);
    json_decref(o);
    json_decref(unparsed);
}

Test(listing, cpu_memory_disks_and_network_of_a_listing)
{
    json_t *unparsed;
    json_t *o = parse("8x H100 SXM5 80GB, 2x EPYC 9654, 2TB RAM, 8x 3.84TB NVMe, 8x 400Gb IB", &unparsed);
    expect_h100_sxm5_board(o);
    cr_expect_str_eq(string_at(o, "cpu", "model"), "EPYC 9654");
    cr_expect_eq(integer_at(o, "cpu", "sockets"), 2);
    cr_expect_eq(number_at(o, "memory", "gb"), 2048);
    json_t *storage = json_object_get(o, "storage");
    cr_assert_eq(json_array_size(storage), 8, "%s", json_dumps(o, JSON_COMPACT));
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(storage, 7), "type")), "nvme");
    cr_expect_eq(json_number_value(json_object_get(json_array_get(storage, 7), "gb")), 3840);
    cr_expect_eq(number_at(o, "network", "gbps"), 400);
    cr_expect_eq(integer_at(o, "network", "ports"), 8);
    cr_expect_eq(json_array_size(unparsed), 0, "%s", json_dumps(unparsed, JSON_COMPACT));
    json_decref(o);
    json_decref(unparsed);
}

/* Without commas the next count starts the next part. */
Test(listing, parts_without_commas)
{
    json_t *unparsed;
    json_t *o = parse("8x H100 SXM5 80GB 2x Xeon Platinum 8480+ 1TB DDR5", &unparsed);
    cr_expect_eq(integer_at(o, "gpus", "count"), 8);
    cr_expect_eq(integer_at(o, "cpu", "sockets"), 2);
    cr_expect_str_eq(string_at(o, "cpu", "model"), "Xeon Platinum 8480");
    json_decref(o);
    json_decref(unparsed);
}

Test(listing, words_that_make_no_claim_are_reported)
{
    json_t *unparsed;
    json_t *o = parse("8x H100 SXM5 80GB, free snacks, 4x Quantum Flux Capacitor", &unparsed);
    cr_expect_eq(integer_at(o, "gpus", "count"), 8);
    cr_assert_eq(json_array_size(unparsed), 2, "%s", json_dumps(unparsed, JSON_COMPACT));
    cr_expect_str_eq(json_string_value(json_array_get(unparsed, 0)), "free snacks");
    cr_expect_str_eq(json_string_value(json_array_get(unparsed, 1)), "Quantum Flux Capacitor");
    json_decref(o);
    json_decref(unparsed);
}

/* The listing is validated as a claim file is: one path. Nothing readable is an error. */
Test(listing, loaded_as_a_claim_set)
{
    struct claim_set set;
    char *error = NULL;
    cr_assert_eq(claim_listing_load("8x H100 SXM5 80GB, 2TB RAM", &set, &error), 0, "%s", error ? error : "");
    cr_expect_str_eq(set.listing, "8x H100 SXM5 80GB, 2TB RAM");
    cr_expect_null(set.file);
    bool count = false;
    for (int i = 0; i < set.count; i++)
        count |= !strcmp(set.items[i].key, "gpus.count");
    cr_expect(count);
    claim_set_free(&set);
    cr_expect_neq(claim_listing_load("lots of GPUs please", &set, &error), 0);
    cr_expect_not_null(error);
    free(error);
}
