#include "util/output.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void output_guard_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}

int output_finish(void)
{
    bool failed_before = ferror(stdout);
    errno = 0;
    int flushed = fflush(stdout);
    int error = errno;
    int closed = fclose(stdout);
    if (!closed && !flushed && !failed_before)
        return 0;
    if (!error)
        error = errno;
    fprintf(stderr, "gpuvet: cannot write the report to standard output: %s\n",
            error ? strerror(error) : "a write failed");
    return -1;
}

char *text_escape_controls(const char *s, char *out, size_t size)
{
    size_t n = 0;
    if (size == 0)
        return out;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && n + 1 < size; p++) {
        /* C0 controls but tab, DEL, and C1 controls as UTF-8 (U+0080..U+009F: 0xC2 0x80..0x9F). */
        bool c1 = p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F;
        if ((*p < 0x20 && *p != '\t') || *p == 0x7F || c1) {
            unsigned v = c1 ? p[1] : *p;
            if (n + 5 > size - 1)
                break;
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", v);
            p += c1;
        } else {
            out[n++] = (char)*p;
        }
    }
    out[n] = '\0';
    return out;
}
