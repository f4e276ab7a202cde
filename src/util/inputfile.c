#include "util/inputfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "util/i18n.h"

/* procfs's f_type (linux/magic.h). */
#define INPUT_PROC_SUPER_MAGIC 0x9fa0

/* 0 when fd is a regular file whose stated size is within limit; else the errno to report. */
static int check_regular(int fd, size_t limit)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR; /* "Is a directory": a folder given where a file is expected */
    if (!S_ISREG(st.st_mode))
        return INPUT_NOT_REGULAR;
    /* sysfs and procfs report 4096 or 0 whatever they hold; a real file's size is honest. */
    if ((unsigned long long)st.st_size > limit)
        return EFBIG;
    return 0;
}

unsigned char *input_fd_read(int fd, size_t limit, size_t *len)
{
    int bad = check_regular(fd, limit);
    if (bad) {
        errno = bad;
        return NULL;
    }
    /* One read of the size the file states (+2: its NUL, and room to notice that it grew); a file
     * that states none (sysfs, procfs) starts at 4 KiB and doubles. */
    struct stat st;
    size_t cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 2 : 4096;
    size_t got = 0;
    unsigned char *buf = malloc(cap);
    int error = buf ? 0 : ENOMEM;
    while (!error) {
        if (got + 1 >= cap) {
            unsigned char *grown = cap > limit ? NULL : realloc(buf, cap * 2);
            if (!grown) {
                error = cap > limit ? EFBIG : ENOMEM;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            error = errno;
        else if (n == 0)
            break;
        else
            got += (size_t)n;
    }
    if (!error && got > limit)
        error = EFBIG;
    if (error) {
        free(buf);
        errno = error;
        return NULL;
    }
    *len = got;
    return buf;
}

/* O_NONBLOCK, kept for the reads: opening a FIFO would wait for a writer, and a file whose read
 * waits gives EAGAIN instead. A descriptor, or -1 with errno. */
static int open_gated(const char *path, size_t limit)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int error = check_regular(fd, limit);
    struct statfs fs;
    /* A file of the live kernel (/proc/kmsg waits, and its read takes the messages from syslog)
     * is never a saved file; a folder keeps its own answer. */
    if (!error && fstatfs(fd, &fs) == 0 && fs.f_type == INPUT_PROC_SUPER_MAGIC)
        error = INPUT_NOT_REGULAR;
    if (error) {
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

void input_file_reason(int error, size_t limit, char *why, size_t whylen)
{
    if (error == INPUT_NOT_REGULAR)
        snprintf(why, whylen, "%s", N_("not a regular file (a FIFO, device or socket) or a live /proc file: give a saved file"));
    else if (error == EFBIG)
        i18n_snprintf(why, whylen, "larger than %zu MiB: not the expected evidence file", limit >> 20);
    else if (error == EAGAIN)
        snprintf(why, whylen, "%s", N_("its read would wait (not a saved file): give a saved file"));
    else {
        char *text = i18n_strerror(error);
        snprintf(why, whylen, "%s", text ? text : "out of memory");
        free(text);
    }
}

const char *input_file_error(int error)
{
    static _Thread_local char text[256];
    char why[256];
    input_file_reason(error, INPUT_FILE_LIMIT, why, sizeof why);
    snprintf(text, sizeof text, "%s", _(why));
    return text;
}

bool input_file_check(const char *path, size_t limit, char *why, size_t whylen)
{
    int fd = open_gated(path, limit);
    if (fd < 0) {
        input_file_reason(errno, limit, why, whylen);
        return false;
    }
    close(fd);
    return true;
}

unsigned char *input_file_read(const char *path, size_t limit, size_t *len, char *why, size_t whylen)
{
    int fd = open_gated(path, limit);
    unsigned char *buf = fd >= 0 ? input_fd_read(fd, limit, len) : NULL;
    int error = buf ? 0 : errno;
    if (fd >= 0)
        close(fd);
    if (!buf) {
        input_file_reason(error, limit, why, whylen);
        errno = error;
        return NULL;
    }
    buf[*len] = '\0';
    return buf;
}

FILE *input_file_open(const char *path, size_t limit)
{
    int fd = open_gated(path, limit);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f) {
        int error = errno;
        close(fd);
        errno = error;
    }
    return f;
}
