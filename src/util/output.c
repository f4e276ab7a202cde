#include "util/output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/i18n.h"

bool output_use_colour(FILE *out)
{
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    return isatty(fileno(out)) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}
#include "util/sanitize.h"

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
    print_error(NULL, _("cannot write the report to standard output: %s"), error ? i18n_error_text(error) : _("a write failed"));
    return -1;
}

/* The one place the prefix is built: "gpuvet COMMAND: MESSAGE\n" (or "gpuvet: MESSAGE\n"), the prefix
 * in the user's language, written to out, or when out is NULL returned malloc'd (NULL without memory). */
static char *prefixed_line(FILE *out, const char *command, const char *message)
{
    char *line = NULL;
    if (out && command)
        fprintf(out, _("gpuvet %s: %s\n"), command, message);
    else if (out)
        fprintf(out, _("gpuvet: %s\n"), message);
    else if ((command ? asprintf(&line, _("gpuvet %s: %s\n"), command, message)
                      : asprintf(&line, _("gpuvet: %s\n"), message)) < 0)
        line = NULL;
    return line;
}

/* fmt's text without its trailing newline (the prefixed line adds one). */
static void format_message(char *message, size_t size, const char *fmt, va_list ap)
{
    vsnprintf(message, size, fmt, ap);
    size_t len = strlen(message);
    if (len && message[len - 1] == '\n')
        message[len - 1] = '\0';
}

/* The line through text_write_escaped: an error names files and quotes what it read, and their
 * control bytes must not reach the terminal. */
static void vprint_error_to(FILE *out, const char *command, const char *fmt, va_list ap)
{
    char message[4096];
    format_message(message, sizeof message, fmt, ap);
    char *line = prefixed_line(NULL, command, message);
    if (!line) {
        prefixed_line(out, command, message);
        return;
    }
    text_write_escaped(out, line, strlen(line), NULL);
    free(line);
}

void print_error_to(FILE *out, const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_error_to(out, command, fmt, ap);
    va_end(ap);
}

void print_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_error_to(stderr, command, fmt, ap);
    va_end(ap);
}

char *error_vline(const char *command, const char *fmt, va_list ap)
{
    char message[4096];
    format_message(message, sizeof message, fmt, ap);
    return prefixed_line(NULL, command, message);
}

static size_t kept_sequence(const char *p, size_t left, const char *const *keep)
{
    for (; keep && *keep; keep++) {
        size_t n = strlen(*keep);
        if (n <= left && !memcmp(p, *keep, n))
            return n;
    }
    return 0;
}

int text_write_escaped(FILE *o, const char *text, size_t len, const char *const *keep)
{
    for (size_t i = 0; i < len;) {
        const unsigned char *p = (const unsigned char *)text + i;
        size_t kept = *p < 0x20 ? kept_sequence(text + i, len - i, keep) : 0, n; /* ESC sequences, a report's marks */
        unsigned char shown;
        enum text_piece kind = kept ? TEXT_PRINTABLE : text_piece_at(text + i, len - i, &n, &shown);
        if (kept) {
            fwrite(p, 1, kept, o);
            i += kept;
        } else if (kind == TEXT_INVALID || (kind == TEXT_CONTROL && *p != '\n' && *p != '\t')) {
            fprintf(o, "\\x%02x", shown);
            i += n;
        } else {
            fwrite(p, 1, n, o);
            i += n;
        }
    }
    return ferror(o) ? -1 : 0;
}

int text_render_to_memory(int (*render)(FILE *out, const void *ctx), const void *ctx, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *mem = open_memstream(text, len);
    if (!mem)
        return TEXT_NO_MEMORY;
    int rc = render(mem, ctx);
    if (fclose(mem) != 0 && rc == 0)
        rc = -1;
    return rc;
}

int text_render_escaped(FILE *o, int (*render)(FILE *out, const void *ctx), const void *ctx,
                        const char *const *keep)
{
    char *text;
    size_t len;
    int rc = text_render_to_memory(render, ctx, &text, &len);
    if (rc == TEXT_NO_MEMORY)
        return render(o, ctx);
    if (text_write_escaped(o, text, len, keep) != 0)
        rc = -1;
    free(text);
    return rc;
}
