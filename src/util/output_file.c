#include "util/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/i18n.h"
#include "util/output.h"
#include "util/sanitize.h"

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

/* ---- temporary files removed when a signal ends the run ---- */

/* A handler may only call async-signal-safe functions: unlink(2), signal(2) and raise(3) are; the
 * list is fixed, its paths written before their slot is marked used. */
enum { CLEANUP_SLOTS = 8 };
static struct {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
} cleanup[CLEANUP_SLOTS];
static volatile sig_atomic_t handlers_installed;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_fatal_signal(int sig)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup[i].used)
            unlink(cleanup[i].path);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installed only where the signal would end the run anyway (its default action): an ignored signal
 * (nohup) stays ignored, and a command with its own handler (watch) ends through its own path,
 * which removes the file. */
static void install_cleanup_handlers(void)
{
    if (handlers_installed)
        return;
    handlers_installed = 1;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

static int cleanup_add(const char *path)
{
    install_cleanup_handlers();
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup[i].used) {
            snprintf(cleanup[i].path, sizeof cleanup[i].path, "%s", path);
            cleanup[i].used = 1;
            return i;
        }
    return -1; /* more files open at once than gpuvet ever writes: removed at the end only */
}

static void cleanup_remove(const char *path)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup[i].used && !strcmp(cleanup[i].path, path))
            cleanup[i].used = 0;
}

/* ---- what a target is, and how it is written ---- */

enum target_kind { TARGET_REPLACE, TARGET_THROUGH };

static void error_reason(char *why, size_t why_size, int error)
{
    char *text = i18n_strerror(error);
    snprintf(why, why_size, "%s", text ? text : "");
    free(text);
}

/* The folder a new file at path would be created in must be one. */
static int check_parent(const char *path, char *why, size_t why_size)
{
    char *copy = strdup(path);
    if (!copy) {
        snprintf(why, why_size, "%s", N_("out of memory"));
        return -1;
    }
    const char *dir = dirname(copy);
    struct stat st;
    int rc = 0;
    if (stat(dir, &st) != 0) {
        int error = errno; /* the arguments are evaluated twice (util/i18n.h) */
        /* TRANSLATORS: the folder, then the system's error text (strerror). */
        i18n_snprintf(why, why_size, "its folder %s: %s", dir, i18n_error_text(error));
        rc = -1;
    } else if (!S_ISDIR(st.st_mode)) {
        i18n_snprintf(why, why_size, "%s is not a folder", dir);
        rc = -1;
    }
    free(copy);
    return rc;
}

/* How the (non-link) file `st` describes is written; -1 with the reason when it is refused. */
static int kind_of(const struct stat *st, char *why, size_t why_size)
{
    if (S_ISREG(st->st_mode))
        return TARGET_REPLACE;
    if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
        return TARGET_THROUGH;
    if (S_ISDIR(st->st_mode))
        error_reason(why, why_size, EISDIR);
    else if (S_ISSOCK(st->st_mode))
        snprintf(why, why_size, "%s", N_("a socket: neither written nor replaced"));
    else
        snprintf(why, why_size, "%s", N_("a block device or other special file: neither written nor replaced"));
    return -1;
}

/* The descriptor a name stands for: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N; -1 for
 * other names. Written through that descriptor (its offset shared, as a shell's `>>` wants), never
 * replaced: renaming over what it leads to would leave the shell's own file behind. */
static int fd_alias(const char *path)
{
    if (!strcmp(path, "/dev/stdout"))
        return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr"))
        return STDERR_FILENO;
    const char *prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) || !path[n] || strspn(path + n, "0123456789") != strlen(path + n) ||
            strlen(path + n) > 6)
            continue;
        return atoi(path + n);
    }
    return -1;
}

/* What path is, and the name written: its own, or a symlink's final target (resolved). */
static int classify(const char *path, char *resolved, size_t size, char *why, size_t why_size)
{
    struct stat st;
    if (snprintf(resolved, size, "%s", path) >= (int)size) {
        snprintf(why, why_size, "%s", N_("the path is too long"));
        return -1;
    }
    int fd = fd_alias(path);
    if (fd >= 0) {
        if (fstat(fd, &st) != 0) {
            error_reason(why, why_size, errno);
            return -1;
        }
        return S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode) ? kind_of(&st, why, why_size) : TARGET_THROUGH;
    }
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            error_reason(why, why_size, errno);
            return -1;
        }
        return check_parent(path, why, why_size) == 0 ? TARGET_REPLACE : -1;
    }
    if (!S_ISLNK(st.st_mode))
        return kind_of(&st, why, why_size);
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        i18n_snprintf(why, why_size, "a symlink owned by another user (uid %u): not followed", (unsigned)st.st_uid);
        return -1;
    }
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            snprintf(why, why_size, "%s", N_("a symlink to a missing file: not followed"));
        else
            error_reason(why, why_size, errno);
        return -1;
    }
    int kind = kind_of(&st, why, why_size);
    if (kind != TARGET_REPLACE)
        return kind; /* a device or FIFO is opened through the link */
    char *target = realpath(path, NULL);
    if (!target) {
        error_reason(why, why_size, errno);
        return -1;
    }
    int n = snprintf(resolved, size, "%s", target);
    free(target);
    if (n >= (int)size) {
        snprintf(why, why_size, "%s", N_("the path is too long"));
        return -1;
    }
    return TARGET_REPLACE;
}

int output_target_check(const char *path, char *why, size_t why_size)
{
    char resolved[PATH_MAX];
    return classify(path, resolved, sizeof resolved, why, why_size) < 0 ? -1 : 0;
}

int output_target_check_option(const char *command, const char *option, const char *path)
{
    char why[PATH_MAX + 128];
    if (output_target_check(path, why, sizeof why) == 0)
        return 0;
    print_error(command, _("%s %s: %s"), option, path, _(why));
    return -1;
}

/* A device or FIFO, opened without waiting: a FIFO that nobody reads fails at once (ENXIO). */
static int open_through(struct output_target *t, char *why, size_t why_size)
{
    int alias = fd_alias(t->path);
    if (alias >= 0) {
        t->fd = fcntl(alias, F_DUPFD_CLOEXEC, 0);
        if (t->fd < 0)
            error_reason(why, why_size, errno);
        return t->fd < 0 ? -1 : 0;
    }
    int fd = open(t->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        if (errno == ENXIO)
            snprintf(why, why_size, "%s", N_("a FIFO that nobody reads: start its reader first"));
        else
            error_reason(why, why_size, errno);
        return -1;
    }
    /* It may have changed since it was looked at: a regular file now would be written into, not
     * replaced. */
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) || flags < 0 ||
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        snprintf(why, why_size, "%s", N_("changed while it was opened"));
        close(fd);
        return -1;
    }
    t->fd = fd;
    return 0;
}

/* A temporary file in the target's folder (rename(2) is atomic only within one file system), named
 * with a leading dot and no .prom or .json ending: node_exporter's textfile collector and a fleet
 * folder skip it. */
static int open_temp(struct output_target *t, mode_t mode, char *why, size_t why_size)
{
    char *dir_copy = strdup(t->path), *base_copy = strdup(t->path);
    int n = dir_copy && base_copy ? snprintf(t->temp, sizeof t->temp, "%s/.%s.XXXXXX", dirname(dir_copy),
                                             basename(base_copy))
                                  : -1;
    free(dir_copy);
    free(base_copy);
    if (n < 0 || n >= (int)sizeof t->temp) {
        snprintf(why, why_size, "%s", N_("the path is too long"));
        t->temp[0] = '\0';
        return -1;
    }
    int fd = mkstemp(t->temp);
    if (fd < 0) {
        int error = errno;
        i18n_snprintf(why, why_size, "cannot create a file in its folder: %s", i18n_error_text(error));
        t->temp[0] = '\0';
        return -1;
    }
    cleanup_add(t->temp);
    (void)fchmod(fd, mode); /* mkstemp makes 0600 */
    t->fd = fd;
    return 0;
}

int output_target_open(struct output_target *t, const char *path, mode_t mode, char *why, size_t why_size)
{
    t->fd = -1;
    t->temp[0] = '\0';
    int kind = classify(path, t->path, sizeof t->path, why, why_size);
    if (kind < 0)
        return -1;
    return kind == TARGET_THROUGH ? open_through(t, why, why_size) : open_temp(t, mode, why, why_size);
}

int output_target_finish(struct output_target *t, bool keep, char *why, size_t why_size)
{
    if (t->fd < 0)
        return 0;
    int rc = 0;
    if (keep && t->temp[0] && fsync(t->fd) != 0) {
        error_reason(why, why_size, errno);
        rc = -1;
    }
    if (close(t->fd) != 0 && rc == 0 && keep) {
        error_reason(why, why_size, errno);
        rc = -1;
    }
    t->fd = -1;
    if (!t->temp[0])
        return rc;
    keep = keep && rc == 0;
    if (keep) {
        /* Looked at again just before: what became a device or folder meanwhile is not replaced. */
        struct stat st;
        if (lstat(t->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
            snprintf(why, why_size, "%s", N_("changed while it was written: no longer a regular file, not replaced"));
            keep = false;
            rc = -1;
        } else if (rename(t->temp, t->path) != 0) {
            error_reason(why, why_size, errno);
            keep = false;
            rc = -1;
        }
    }
    if (!keep)
        unlink(t->temp);
    cleanup_remove(t->temp);
    t->temp[0] = '\0';
    return rc;
}

/* ---- --output FILE ---- */


/* A recorded host name as a file name: up to its first dot, and only if that is a name fit for a
 * hostlist (util/sanitize: letters, digits, '-', '_'); anything else ("..", a '/') gives "", which
 * %h refuses. */
static void plain_host_name(const char *name, char *out, size_t size)
{
    size_t n = strcspn(name, ".");
    out[0] = '\0';
    if (n == 0 || n >= size)
        return;
    memcpy(out, name, n);
    out[n] = '\0';
    if (!hostname_is_plain(out))
        out[0] = '\0';
}

int output_file_begin(struct output_file *o, const char *pattern, const char *command)
{
    return output_file_begin_for(o, pattern, command, NULL);
}

int output_file_begin_for(struct output_file *o, const char *pattern, const char *command, const char *recorded_host)
{
    char host[256], why[PATH_MAX + 64];
    o->saved_stdout = -1;
    o->target.fd = -1;
    if (recorded_host)
        plain_host_name(recorded_host, host, sizeof host);
    else
        short_host_name(host, sizeof host);
    if (output_path_expand(pattern, host, o->path, sizeof o->path, why, sizeof why) != 0) {
        print_error(command, _("--output %s"), why);
        return -1;
    }
    /* The finished file gets the mode any new file of this user gets. */
    if (output_target_open(&o->target, o->path, output_new_file_mode(), why, sizeof why) != 0) {
        print_error(command, _("--output %s: %s"), o->path, _(why));
        return -1;
    }
    fflush(stdout);
    o->saved_stdout = dup(STDOUT_FILENO);
    if (o->saved_stdout < 0 || dup2(o->target.fd, STDOUT_FILENO) < 0) {
        print_error(command, _("--output %s: %s"), o->path, i18n_error_text(errno));
        if (o->saved_stdout >= 0)
            close(o->saved_stdout);
        o->saved_stdout = -1;
        output_target_finish(&o->target, false, why, sizeof why);
        return -1;
    }
    return 0;
}

int output_file_end(struct output_file *o, bool keep, const char *command)
{
    if (o->saved_stdout < 0)
        return 0;
    int rc = 0;
    char why[PATH_MAX + 64];
    if (fflush(stdout) != 0) {
        print_error(command, _("--output %s: writing failed: %s"), o->path, i18n_error_text(errno));
        keep = false;
        rc = -1;
    }
    dup2(o->saved_stdout, STDOUT_FILENO);
    close(o->saved_stdout);
    o->saved_stdout = -1;
    if (output_target_finish(&o->target, keep, why, sizeof why) != 0 && keep) {
        print_error(command, _("--output %s: %s"), o->path, _(why));
        rc = -1;
    }
    return rc;
}

bool output_is_stdout(const char *file) { return file && !strcmp(file, "-"); }

/* The files output_open gave, with their targets (a command writes one or two pages at a time). */
enum { OPEN_PAGES = 4 };
static struct {
    FILE *file;
    struct output_target target;
} pages[OPEN_PAGES];

mode_t output_new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

FILE *output_open(const char *file, const char *command)
{
    if (output_is_stdout(file))
        return stdout;
    int slot = 0;
    while (slot < OPEN_PAGES && pages[slot].file)
        slot++;
    char why[PATH_MAX + 128];
    if (slot == OPEN_PAGES) {
        print_error(command, _("%s: %s"), file, i18n_error_text(EMFILE));
        return NULL;
    }
    if (output_target_open(&pages[slot].target, file, output_new_file_mode(), why, sizeof why) != 0) {
        print_error(command, _("%s: %s"), file, _(why));
        return NULL;
    }
    int fd = dup(pages[slot].target.fd);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        print_error(command, _("%s: %s"), file, i18n_error_text(errno));
        if (fd >= 0)
            close(fd);
        output_target_finish(&pages[slot].target, false, why, sizeof why);
        return NULL;
    }
    pages[slot].file = out;
    return out;
}

int output_close(FILE *out, const char *file, const char *command, int rc)
{
    if (out == stdout)
        return rc;
    int slot = 0;
    while (slot < OPEN_PAGES && pages[slot].file != out)
        slot++;
    bool written = fclose(out) == 0;
    int error = errno;
    char why[PATH_MAX + 128];
    if (!written)
        print_error(command, _("%s: %s"), file, i18n_error_text(error));
    if (slot < OPEN_PAGES) {
        pages[slot].file = NULL;
        /* What the writer wrote is kept, whatever it returned (rc passes through); a page that
         * could not be written whole is not. */
        if (output_target_finish(&pages[slot].target, written, why, sizeof why) != 0 && written) {
            print_error(command, _("%s: %s"), file, _(why));
            written = false;
        }
    }
    return written ? rc : -1;
}
