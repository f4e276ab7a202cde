#include "util/datadir.h"

#include <errno.h>
#include <stdlib.h>

FILE *data_open(const char *name)
{
    /* The build tree comes before the installed copy so tests never read a stale install. */
    const char *dirs[] = {getenv("GPUVET_DATA_DIR"), GPUVET_SOURCE_DATADIR, GPUVET_DATADIR};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dirs[i], name);
        FILE *f = fopen(path, "r");
        if (f || i == 0)
            return f; /* an explicit GPUVET_DATA_DIR is not second-guessed */
    }
    errno = ENOENT;
    return NULL;
}
