/* util/jsonval.c: values jansson refuses (inf, NaN, NULL) become null with the key kept, non-UTF-8
 * text valid UTF-8, never a key that silently vanishes. */
#include <criterion/criterion.h>
#include <math.h>

#include "util/jsonval.h"

Test(jsonval, a_missing_string_is_null_and_a_non_utf8_one_is_kept_valid)
{
    json_t *o = json_object();
    /* What jansson itself does: the key is gone. */
    cr_assert_eq(json_object_set_new(o, "plain", json_string("\xff\xfe")), -1);
    cr_assert_null(json_object_get(o, "plain"));
    json_object_set_new(o, "missing", json_string_or_null(NULL));
    json_object_set_new(o, "latin1", json_string_or_null("Caf\xe9"));
    json_object_set_new(o, "text", json_string_or_null("NVIDIA H200"));
    cr_assert(json_is_null(json_object_get(o, "missing")));
    /* Not null either: the text is kept, the bad byte shown as U+FFFD (util/sanitize.h). */
    cr_assert_str_eq(json_string_value(json_object_get(o, "latin1")), "Caf\xef\xbf\xbd");
    cr_assert_str_eq(json_string_value(json_object_get(o, "text")), "NVIDIA H200");
    json_decref(o);
}

Test(jsonval, an_infinite_number_is_null_with_the_reason)
{
    json_t *o = json_object();
    json_set_real(o, "watts", INFINITY);
    json_set_real(o, "ratio", NAN);
    json_set_real(o, "gbps", 55.4);
    cr_assert(json_is_null(json_object_get(o, "watts")));
    cr_assert(json_is_string(json_object_get(o, "watts_unknown")));
    cr_assert(json_is_null(json_object_get(o, "ratio")));
    cr_assert(json_is_string(json_object_get(o, "ratio_unknown")));
    cr_assert_float_eq(json_real_value(json_object_get(o, "gbps")), 55.4, 1e-12);
    cr_assert_null(json_object_get(o, "gbps_unknown"));
    json_decref(o);
}
