/* Data files (the CSV tables in data/) are found in one place: $GPUVET_DATA_DIR, then the source tree the
 * binary was built from, then the installed share/gpuvet. */
#ifndef GPUVET_UTIL_DATADIR_H
#define GPUVET_UTIL_DATADIR_H

#include <stddef.h>
#include <stdio.h>

/* The path of data file `name` in the first folder that has it (an explicit $GPUVET_DATA_DIR is
 * not second-guessed; with none readable, the installed path), written into buf; returns buf. */
const char *data_path(const char *name, char *buf, size_t len);

/* Opens data file `name` for reading, or returns NULL (errno set) when no folder has it. */
FILE *data_open(const char *name);

#endif
