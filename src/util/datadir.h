/* Data files (the CSV tables in data/) are found in one place: $GPUVET_DATA_DIR, then the source tree the
 * binary was built from, then the installed share/gpuvet. */
#ifndef GPUVET_UTIL_DATADIR_H
#define GPUVET_UTIL_DATADIR_H

#include <stdio.h>

/* Opens data file `name` for reading, or returns NULL (errno set) when no folder has it. */
FILE *data_open(const char *name);

#endif
