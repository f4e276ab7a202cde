#include <criterion/criterion.h>

#include "util/suggest.h"

Test(suggest, edit_distance)
{
    cr_expect_eq(edit_distance("audit", "audit"), 0);
    cr_expect_eq(edit_distance("audi", "audit"), 1);
    cr_expect_eq(edit_distance("sysrot", "sysroot"), 1);
    cr_expect_eq(edit_distance("kitten", "sitting"), 3);
    cr_expect_eq(edit_distance("", "abc"), 3);
    cr_expect_eq(edit_distance("jsno", "json"), 1);
}

Test(suggest, closest_name_within_a_typo)
{
    const char *const names[] = {"audit", "bench", "explain", "snapshot", "gpus", "plan", "cost"};
    cr_expect_str_eq(closest_name("audi", names, 7), "audit");
    cr_expect_str_eq(closest_name("snapshto", names, 7), "snapshot");
    cr_expect_str_eq(closest_name("gpu", names, 7), "gpus");
    cr_expect_null(closest_name("frobnicate", names, 7));
    cr_expect_null(closest_name("x", names, 7));
}
