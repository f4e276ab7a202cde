/* The hostlist compressor against the forms Slurm documents: the Slurm::Hostlist manual
 * (libslurm-perl) shows "tux[0-5,12,20-25]" and "node1,node[2-5,12]" (which Slurm writes back as
 * "node[1-5,12]"), and numbers keep their zero padding as Slurm's hostlist reads it: "gpu[01-07,09]"
 * is gpu01..gpu07 and gpu09, "n[9-10]" is n9 and n10, and "n09" and "n9" are two hosts. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "util/hostlist.h"

static void expect(const char *const *names, size_t n, const char *want)
{
    char *got = hostlist_compress(names, n);
    cr_assert_str_eq(got, want);
    free(got);
}

#define EXPECT(want, ...)                                                                                     \
    do {                                                                                                      \
        const char *names[] = {__VA_ARGS__};                                                                  \
        expect(names, sizeof names / sizeof names[0], want);                                                  \
    } while (0)

Test(hostlist, slurm_manual_examples)
{
    EXPECT("tux[0-5,12,20-25]", "tux0", "tux1", "tux2", "tux3", "tux4", "tux5", "tux12", "tux20", "tux21", "tux22",
           "tux23", "tux24", "tux25");
    EXPECT("node[1-5,12]", "node1", "node2", "node3", "node4", "node5", "node12");
}

Test(hostlist, zero_padded_numbers_keep_their_width)
{
    EXPECT("gpu[01-07,09]", "gpu09", "gpu07", "gpu06", "gpu05", "gpu04", "gpu03", "gpu02", "gpu01");
    EXPECT("gpu[008-010]", "gpu008", "gpu009", "gpu010");
    /* 9 and 10 print alike with width 1: one range, as Slurm expands "n[9-10]". */
    EXPECT("n[9-10]", "n9", "n10");
    /* "09" and "9" are different hosts; each is kept, and one of them runs on into 10. */
    EXPECT("n[09,9-10]", "n10", "n09", "n9");
    /* A padded width does not run into a longer number's width. */
    EXPECT("n[08-09,100]", "n08", "n09", "n100");
}

Test(hostlist, order_duplicates_and_plain_names)
{
    expect(NULL, 0, "");
    EXPECT("gpu1", "gpu1");
    EXPECT("gpu1", "gpu1", "gpu1");
    EXPECT("alpha,beta,gamma", "gamma", "alpha", "beta");
    /* Prefixes sort apart; a name without a trailing number stays as it is. */
    EXPECT("a[1-2],b3,login,login[1-2]", "login2", "b3", "login", "a2", "login1", "a1");
    /* Only a trailing number is ranged. */
    EXPECT("rack1-node[1-2]", "rack1-node2", "rack1-node1");
    EXPECT("x1y,x2y", "x2y", "x1y");
}
