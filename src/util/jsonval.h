/* JSON values that jansson may refuse: json_real returns NULL for inf and NaN, json_string for NULL
 * or text that is not UTF-8, and json_object_set_new with NULL silently drops the key. */
#ifndef GPUVET_UTIL_JSONVAL_H
#define GPUVET_UTIL_JSONVAL_H

#include <jansson.h>

/* Sets obj[key] to v; when v is inf or NaN, to null, with obj[key + "_unknown"] saying why. */
void json_set_real(json_t *obj, const char *key, double v);
/* s as a JSON string, made valid UTF-8 (util/sanitize.h: a bad byte as U+FFFD); JSON null when s is
 * NULL, so the key stays (never NULL). */
json_t *json_string_or_null(const char *s);

#endif
