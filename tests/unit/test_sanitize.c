/* util/sanitize.c: the one sanitiser of machine strings on their way out (terminal, pages, JSON,
 * Prometheus, the health line, the Slurm reason, hostlists). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util/output.h"
#include "util/sanitize.h"

Test(sanitize, well_formed_utf8_is_told_from_what_jansson_refuses)
{
    cr_assert(text_is_utf8("NVIDIA H200 \xe5\x8d\xa1"));
    cr_assert_not(text_is_utf8("Caf\xe9"));          /* Latin-1 */
    cr_assert_not(text_is_utf8("\xc0\xaf"));         /* overlong '/' */
    cr_assert_not(text_is_utf8("\xed\xa0\x80"));     /* a surrogate */
    cr_assert_not(text_is_utf8("\xf4\x90\x80\x80")); /* past U+10FFFF */
    cr_assert_not(text_is_utf8("\xe5\x8d"));         /* cut */
    json_t *j = json_text("cuda-\xff\xfe");
    cr_assert_not_null(j, "jansson refused the sanitised string");
    cr_assert_str_eq(json_string_value(j), "cuda-\xef\xbf\xbd\xef\xbf\xbd");
    json_decref(j);
}

Test(sanitize, one_line_escapes_controls_and_bad_bytes_and_cuts_between_characters)
{
    char out[64];
    cr_assert(text_one_line(out, sizeof out, "a\nOK\tb\033[2J\xff"));
    cr_assert_str_eq(out, "a\\x0aOK b\\x1b[2J\\xff");
    /* A cut never splits an escape or a character: 9 bytes room, "\x0a" would need 4 after "abcdef". */
    char small[10];
    cr_assert(text_one_line(small, sizeof small, "abcdef\n"));
    cr_assert_str_eq(small, "abcdef");
    cr_assert(text_one_line(small, sizeof small, "abcdefgh\xe5\x8d\xa1"));
    cr_assert_str_eq(small, "abcdefgh");
    cr_assert_not(text_one_line(out, sizeof out, "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:3d:00.0"));
    cr_assert_str_eq(out, "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:3d:00.0");
    /* C1 (U+009B, a one-byte CSI on some terminals) is a control too. */
    text_one_line(out, sizeof out, "x\xc2\x9b" "2Jy");
    cr_assert_str_eq(out, "x\\x9b2Jy");
}

Test(sanitize, terminal_text_shows_invalid_bytes_as_escapes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    const char text[] = "GPU \xff\xfe name\n\tnext \xe5\x8d\xa1 \033]0;t\007";
    cr_assert_eq(text_write_escaped(o, text, sizeof text - 1, NULL), 0);
    fclose(o);
    cr_assert_str_eq(buf, "GPU \\xff\\xfe name\n\tnext \xe5\x8d\xa1 \\x1b]0;t\\x07");
    free(buf);
}

Test(sanitize, only_plain_names_may_stand_in_a_hostlist)
{
    cr_assert(hostname_is_plain("gpu01"));
    cr_assert(hostname_is_plain("node-7.cluster_a"));
    cr_assert_not(hostname_is_plain("gpu[01-99],login1"));
    cr_assert_not(hostname_is_plain("gpu 01"));
    cr_assert_not(hostname_is_plain("-rf"));
    cr_assert_not(hostname_is_plain(""));
    cr_assert_not(hostname_is_plain("h\xc3\xa9"));
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    cr_assert_not(hostname_is_plain(long_name));
}
