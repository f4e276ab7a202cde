/* util/jsonerror.c: jansson's parse errors as gpuvet's own sentences, chosen by the error code, with
 * the line, the column and the token jansson quotes (the file's text, made safe for a terminal). */
#include <criterion/criterion.h>
#include <stdio.h>

#include "util/jsonerror.h"

static void expect_description(const char *input, size_t flags, const char *want)
{
    json_error_t error;
    json_t *doc = json_loads(input, flags, &error);
    cr_assert_null(doc, "%s parsed", input);
    char got[320];
    json_error_describe(&error, got, sizeof got);
    cr_expect_str_eq(got, want, "%s: got \"%s\" (jansson: %s)", input, got, error.text);
}

Test(jsonerror, grammar_mistakes_say_what_was_expected_and_where)
{
    expect_description("{\"a\" 1}", 0, "line 1, column 6: ':' expected, near '1'");
    expect_description("[1, 2}", 0, "line 1, column 6: ',' or ']' expected, near '}'");
    expect_description("{\"a\": 1 \"b\": 2}", 0, "line 1, column 11: ',' or '}' expected, near '\"b\"'");
    expect_description("{\"a\": 1,}", 0, "line 1, column 9: a member name or '}' expected, near '}'");
    expect_description("{\n  \"a\": [1,\n    2,,\n]}", 0, "line 3, column 7: a value expected, near ','");
    expect_description("{\"a\": yes}", 0, "line 1, column 9: not a JSON value, near 'yes'");
    expect_description("name,price\n", 0, "line 1, column 4: '{' or '[' expected, near 'name'");
    expect_description("{\"a\": \"b\\q\"}", 0, "line 1, column 10: an invalid escape in a string, near '\"b\\q'");
}

Test(jsonerror, other_codes_get_their_own_sentence)
{
    expect_description("", 0, "the file is empty");
    expect_description("{\"a\": [1", 0, "line 1, column 8: the document ends before it is complete");
    expect_description("{\"a\": \"open", 0, "line 1, column 11: the document ends before it is complete, near '\"open'");
    expect_description("{} {}", 0, "line 1, column 4: text after the document, near '{'");
    expect_description("{\"a\": 1, \"a\": 2}", JSON_REJECT_DUPLICATES,
                       "line 1, column 12: a member name appears twice in one object, near '\"a\"'");
    expect_description("[1e999]", 0, "line 1, column 6: a number too large to read, near '1e999'");
    expect_description("[\"\\u0000\"]", 0, "line 1, column 9: a string holds \\u0000, near '\"\\u0000\"'");
    expect_description("[\"\xff\"]", 0, "line 1, column 2: byte 0xff is not UTF-8");
}

Test(jsonerror, a_control_character_in_the_quoted_token_is_escaped)
{
    expect_description("[\"a\x1b" "b\"]", 0, "line 1, column 3: a control character inside a string, near '\"a'");
    /* Outside a string jansson quotes the byte itself: it must not reach the terminal raw. */
    expect_description("[\x1b]", 0, "line 1, column 2: not a JSON value, near '\\x1b'");
}

Test(jsonerror, a_file_that_cannot_be_opened_has_no_position)
{
    json_error_t error;
    cr_assert_null(json_load_file("/nonexistent/gpuvet.json", 0, &error));
    char got[320];
    json_error_describe(&error, got, sizeof got);
    cr_expect_str_eq(got, "the file cannot be opened");
    json_error_what(&error, got, sizeof got);
    cr_expect_str_eq(got, "the file cannot be opened");
}
