/* jansson's parse error as gpuvet's own sentence in the reader's language: its text
 * (json_error_t.text) is English from the library, so the sentence is chosen by its error code
 * (json_error_code, jansson 2.11 and later), and only the token it quotes ("near '...'") is kept. */
#ifndef GPUVET_UTIL_JSONERROR_H
#define GPUVET_UTIL_JSONERROR_H

#include <jansson.h>
#include <stddef.h>

/* What is wrong, without where: "',' or ']' expected, near '}'". */
void json_error_what(const json_error_t *error, char *out, size_t size);

/* Where and what: "line 3, column 7: ',' or ']' expected, near '}'" (the line alone when jansson
 * gives no column; what alone when it gives no line, as for a file that cannot be opened, or when
 * the file is empty). */
void json_error_describe(const json_error_t *error, char *out, size_t size);

#endif
