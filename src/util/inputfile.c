#include "util/inputfile.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsroot.h"
#include "util/i18n.h"

/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
static int open_bounded(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int error = 0;
    if (fstat(fd, &st) != 0)
        error = errno;
    else if (S_ISDIR(st.st_mode))
        error = EISDIR;
    else if (!S_ISREG(st.st_mode))
        error = INPUT_NOT_REGULAR;
    else if ((unsigned long long)st.st_size > FS_INPUT_LIMIT)
        error = EFBIG;
    if (error) {
        close(fd);
        errno = error;
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int input_file_check(const char *path)
{
    int fd = open_bounded(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

FILE *input_file_open(const char *path)
{
    int fd = open_bounded(path);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f) {
        int error = errno;
        close(fd);
        errno = error;
    }
    return f;
}

const char *input_file_error(int error)
{
    static _Thread_local char text[160];
    if (error == INPUT_NOT_REGULAR)
        return _("not a regular file (a FIFO, device or socket): give a saved file");
    if (error == EFBIG) {
        snprintf(text, sizeof text, _("larger than %zu MiB: not the expected evidence file"),
                 (size_t)FS_INPUT_LIMIT >> 20);
        return text;
    }
    return i18n_error_text(error);
}
