/* Loading a user's JSON file with an error that names it: "FILE:LINE: not valid JSON: why", or
 * "FILE: why" when it cannot be read at all. */
#ifndef GPUVET_SIZING_JSONFILE_H
#define GPUVET_SIZING_JSONFILE_H

#include <jansson.h>
#include <stddef.h>

json_t *json_load_named(const char *path, char *err, size_t errlen);

#endif
