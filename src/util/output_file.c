#include "util/output_file.h"

#include <ctype.h>
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
                if (!*host) {
                    snprintf(why, why_size, _("'%s': %%h: the audited machine's host name is missing or not a plain name"),
                             pattern);
                    return -1;
                }
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

/* A recorded host name as a file name: up to its first dot, letters, digits, '-' and '_' only
 * (RFC 1123 names and the odd underscore); anything else ("..", a '/') gives "", which %h refuses. */
static void plain_host_name(const char *name, char *out, size_t size)
{
    size_t n = strcspn(name, ".");
    out[0] = '\0';
    if (n == 0 || n >= size)
        return;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '-' || name[i] == '_'))
            return;
    memcpy(out, name, n);
    out[n] = '\0';
}

int output_file_begin(struct output_file *o, const char *pattern, const char *command)
{
    return output_file_begin_for(o, pattern, command, NULL);
}

int output_file_begin_for(struct output_file *o, const char *pattern, const char *command, const char *recorded_host)
{
    char host[256], why[PATH_MAX + 64];
    o->saved_stdout = -1;
    if (recorded_host)
        plain_host_name(recorded_host, host, sizeof host);
    else
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

FILE *output_atomic_begin(struct output_atomic *a, const char *path, const char *command, const char *option)
{
    a->file = NULL;
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
        snprintf(a->temp, sizeof a->temp, "%.*s.%s.XXXXXX", dirlen, path, slash ? slash + 1 : path) >= (int)sizeof a->temp) {
        print_error(command, _("%s %s: the path is too long"), option, path);
        return NULL;
    }
    int fd = mkstemp(a->temp);
    if (fd < 0) {
        print_error(command, _("%s %s: cannot create a file in its folder: %s"), option, path, i18n_error_text(errno));
        return NULL;
    }
    a->file = fdopen(fd, "w");
    if (!a->file) {
        print_error(command, _("%s %s: %s"), option, path, i18n_error_text(errno));
        close(fd);
        unlink(a->temp);
    }
    return a->file;
}

int output_atomic_end(struct output_atomic *a, bool keep, const char *command, const char *option)
{
    if (!a->file)
        return 0;
    int fd = fileno(a->file);
    bool ok = !keep || (fflush(a->file) == 0 && !ferror(a->file) && fchmod(fd, 0644) == 0 && fsync(fd) == 0);
    int saved = errno;
    ok = fclose(a->file) == 0 && ok;
    a->file = NULL;
    if (keep && ok && rename(a->temp, a->path) != 0) {
        saved = errno;
        ok = false;
    }
    if (!keep || !ok)
        unlink(a->temp);
    if (keep && !ok) {
        print_error(command, _("%s %s: %s"), option, a->path, i18n_error_text(saved));
        return -1;
    }
    return 0;
}
