/* JSON numbers that may not be finite: jansson refuses inf and NaN (json_real returns NULL), and
 * json_object_set_new with NULL silently drops the key. */
#ifndef GPUVET_UTIL_JSONVAL_H
#define GPUVET_UTIL_JSONVAL_H

#include <jansson.h>

/* Sets obj[key] to v; when v is inf or NaN, to null, with obj[key + "_unknown"] saying why. */
void json_set_real(json_t *obj, const char *key, double v);

#endif
