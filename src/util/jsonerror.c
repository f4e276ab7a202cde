#include "util/jsonerror.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/i18n.h"

/* jansson files every grammar mistake under json_error_invalid_syntax; its message (jansson 2.14's
 * load.c) tells them apart, so a known message picks a sharper sentence, and any other one (a later
 * jansson) still gets the code's general one. */
static const struct {
    const char *jansson_start;
    const char *sentence;
} syntax_sentences[] = {
    {"':' expected", N_("':' expected")},
    {"'}' expected", N_("',' or '}' expected")},
    {"']' expected", N_("',' or ']' expected")},
    {"string or '}' expected", N_("a member name or '}' expected")},
    {"'[' or '{' expected", N_("'{' or '[' expected")},
    {"invalid token", N_("not a JSON value")},
    {"unexpected token", N_("a value expected")},
    {"unexpected newline", N_("a line break inside a string")},
    {"control character", N_("a control character inside a string")},
    {"invalid escape", N_("an invalid escape in a string")},
    {"invalid Unicode", N_("an invalid escape in a string")},
};

static const char *syntax_sentence(const char *text)
{
    for (size_t i = 0; i < sizeof syntax_sentences / sizeof syntax_sentences[0]; i++)
        if (!strncmp(text, syntax_sentences[i].jansson_start, strlen(syntax_sentences[i].jansson_start)))
            return _(syntax_sentences[i].sentence);
    return _("invalid JSON syntax");
}

/* The token jansson quotes after " near '" (the file's own text, at most 20 bytes), with control
 * characters written as \xNN so that it cannot move the cursor of the terminal it is printed on.
 * False when it quotes none ("near end of file", or no context at all). */
static bool quoted_token(const char *text, char *out, size_t size)
{
    const char *start = strstr(text, " near '");
    if (!start || size == 0)
        return false;
    start += strlen(" near '");
    const char *end = strrchr(start, '\'');
    if (!end)
        return false;
    size_t n = 0;
    for (const char *p = start; p < end && n + 5 < size; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
    return true;
}

/* jansson writes the bad byte as "0x%x" in its message; the number is data, not language. */
static bool quoted_byte(const char *text, char *out, size_t size)
{
    const char *hex = strstr(text, "0x");
    if (!hex)
        return false;
    size_t n = strspn(hex + 2, "0123456789abcdefABCDEF");
    if (n == 0 || n + 3 > size)
        return false;
    snprintf(out, size, "%.*s", (int)(n + 2), hex);
    return true;
}

static const char *code_sentence(const json_error_t *error)
{
    switch (json_error_code(error)) {
    case json_error_invalid_syntax: return syntax_sentence(error->text);
    /* The position is still 0 when the input held nothing at all. */
    case json_error_premature_end_of_input:
        return error->position == 0 ? _("the file is empty") : _("the document ends before it is complete");
    case json_error_end_of_input_expected: return _("text after the document");
    case json_error_invalid_utf8: return _("a byte that is not UTF-8");
    case json_error_duplicate_key: return _("a member name appears twice in one object");
    case json_error_numeric_overflow: return _("a number too large to read");
    case json_error_stack_overflow: return _("arrays and objects nested too deep");
    case json_error_null_character: return _("a string holds \\u0000");
    case json_error_null_byte_in_key: return _("a member name holds \\u0000");
    case json_error_out_of_memory: return _("out of memory");
    case json_error_cannot_open_file: return _("the file cannot be opened");
    default: return _("not valid JSON");
    }
}

void json_error_what(const json_error_t *error, char *out, size_t size)
{
    const char *sentence = code_sentence(error);
    char token[64];
    if (json_error_code(error) == json_error_invalid_utf8 && quoted_byte(error->text, token, sizeof token))
        /* TRANSLATORS: %s is the byte in hexadecimal, such as 0xff. */
        snprintf(out, size, _("byte %s is not UTF-8"), token);
    else if (quoted_token(error->text, token, sizeof token))
        /* TRANSLATORS: the first %s says what is wrong ("':' expected"), the second is the text of
           the file where the parser stopped, such as a word or a quoted string. */
        snprintf(out, size, _("%s, near '%s'"), sentence, token);
    else
        snprintf(out, size, "%s", sentence);
}

void json_error_describe(const json_error_t *error, char *out, size_t size)
{
    char what[256];
    json_error_what(error, what, sizeof what);
    bool empty = json_error_code(error) == json_error_premature_end_of_input && error->position == 0;
    if (error->line > 0 && error->column > 0 && !empty)
        snprintf(out, size, _("line %d, column %d: %s"), error->line, error->column, what);
    else if (error->line > 0 && !empty)
        snprintf(out, size, _("line %d: %s"), error->line, what);
    else
        snprintf(out, size, "%s", what);
}
