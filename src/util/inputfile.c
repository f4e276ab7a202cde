#include "util/inputfile.h"

#include <errno.h>
#include <sys/stat.h>

int input_file_check(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    return 0;
}

FILE *input_file_open(const char *path)
{
    return input_file_check(path) == 0 ? fopen(path, "r") : NULL;
}
