#include "util/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/i18n.h"
#include "util/output.h"

int output_path_expand(const char *pattern, const char *host, char *out, size_t size, char *why, size_t why_size)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        const char *piece = p;
        size_t len = 1;
        if (*p == '%') {
            if (p[1] == 'h') {
                piece = host;
                len = strlen(host);
            } else if (p[1] == '%') {
                piece = "%";
            } else {
                snprintf(why, why_size, _("'%s': only %%h (short host name) and %%%% may follow a %%"), pattern);
                return -1;
            }
            p++;
        }
        if (n + len >= size) {
            snprintf(why, why_size, _("'%s': the path is too long"), pattern);
            return -1;
        }
        memcpy(out + n, piece, len);
        n += len;
    }
    if (n == 0) {
        snprintf(why, why_size, "%s", _("the file name is empty"));
        return -1;
    }
    out[n] = '\0';
    return 0;
}

/* The host name up to its first dot, as Slurm and clush name nodes. */
static void short_host_name(char *out, size_t size)
{
    if (gethostname(out, size) != 0 || !*out)
        snprintf(out, size, "localhost");
    out[size - 1] = '\0';
    char *dot = strchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

int output_file_begin(struct output_file *o, const char *pattern, const char *command)
{
    char host[256], why[PATH_MAX + 64];
    o->saved_stdout = -1;
    short_host_name(host, sizeof host);
    if (output_path_expand(pattern, host, o->path, sizeof o->path, why, sizeof why) != 0) {
        print_error(command, _("--output %s"), why);
        return -1;
    }
    /* The temporary file lies in the target's directory: rename(2) is atomic only within one
     * file system. */
    if (snprintf(o->temp, sizeof o->temp, "%s.tmp.XXXXXX", o->path) >= (int)sizeof o->temp) {
        print_error(command, _("--output %s: the path is too long"), o->path);
        return -1;
    }
    int fd = mkstemp(o->temp);
    if (fd < 0) {
        print_error(command, _("--output %s: cannot create a file there: %s"), o->path, i18n_error_text(errno));
        return -1;
    }
    /* mkstemp makes 0600; the finished file gets the mode any new file of this user gets. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    fflush(stdout);
    o->saved_stdout = dup(STDOUT_FILENO);
    if (o->saved_stdout < 0 || dup2(fd, STDOUT_FILENO) < 0) {
        print_error(command, _("--output %s: %s"), o->path, i18n_error_text(errno));
        if (o->saved_stdout >= 0)
            close(o->saved_stdout);
        o->saved_stdout = -1;
        close(fd);
        unlink(o->temp);
        return -1;
    }
    close(fd);
    return 0;
}

int output_file_end(struct output_file *o, bool keep, const char *command)
{
    if (o->saved_stdout < 0)
        return 0;
    int rc = 0;
    if (fflush(stdout) != 0 || (keep && fsync(STDOUT_FILENO) != 0)) {
        print_error(command, _("--output %s: writing failed: %s"), o->path, i18n_error_text(errno));
        keep = false;
        rc = -1;
    }
    dup2(o->saved_stdout, STDOUT_FILENO);
    close(o->saved_stdout);
    o->saved_stdout = -1;
    if (keep && rename(o->temp, o->path) != 0) {
        print_error(command, _("--output %s: %s"), o->path, i18n_error_text(errno));
        rc = -1;
        keep = false;
    }
    if (!keep)
        unlink(o->temp);
    return rc;
}

bool output_is_stdout(const char *file) { return file && !strcmp(file, "-"); }

FILE *output_open(const char *file, const char *command)
{
    FILE *out = output_is_stdout(file) ? stdout : fopen(file, "w");
    if (!out)
        print_error(command, _("%s: %s"), file, i18n_error_text(errno));
    return out;
}

int output_close(FILE *out, const char *file, const char *command, int rc)
{
    if (out != stdout && fclose(out) != 0) {
        print_error(command, _("%s: %s"), file, i18n_error_text(errno));
        rc = -1;
    }
    return rc;
}
