#include "util/datadir.h"

#include <stdlib.h>
#include <unistd.h>

const char *data_path(const char *name, char *buf, size_t len)
{
    const char *env = getenv("GPUVET_DATA_DIR");
    if (env && *env) {
        snprintf(buf, len, "%s/%s", env, name);
        return buf;
    }
    /* The build tree comes before the installed copy so tests never read a stale install. */
    snprintf(buf, len, "%s/%s", GPUVET_SOURCE_DATADIR, name);
    if (access(buf, R_OK) == 0)
        return buf;
    snprintf(buf, len, "%s/%s", GPUVET_DATADIR, name);
    return buf;
}

FILE *data_open(const char *name)
{
    char path[4096];
    return fopen(data_path(name, path, sizeof path), "r");
}
