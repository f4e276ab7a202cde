#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/inputfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Larger than any sysfs/procfs file we parse (/proc/cpuinfo of a 512-thread box is ~1 MB). */
#define FS_READ_LIMIT (16u << 20)
#define FS_MAX_LINK_HOPS 16
/* More entries than any sysfs folder holds (a 24 TB box has 196,608 128-MiB memory blocks). */
#define FS_LIST_LIMIT (1 << 20)
/* The kernel's own bound on symlinks followed in one path (MAXSYMLINKS). */
#define FS_MAX_WALK_LINKS 40
/* errno for "exists but is a FIFO, device or socket": an errno no sysfs/procfs read returns. */
#define EFTYPE_NOT_REGULAR INPUT_NOT_REGULAR

/* openat2(2) (Linux 5.6) by number with our own copy of struct open_how: glibc had no wrapper
 * before 2.36 and old headers lack linux/openat2.h. The number is the same on every arch. */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct fs_open_how {
    unsigned long long flags, mode, resolve;
};
#define FS_RESOLVE_NO_MAGICLINKS 0x02
#define FS_RESOLVE_IN_ROOT 0x10

static char root_dir[PATH_MAX] = "";
static char record_dir[PATH_MAX] = "";

/* The root folder, opened once for every fs_open under it; -1 until needed. */
static int root_fd = -1;

void fsroot_set(const char *root)
{
    if (root_fd >= 0) {
        close(root_fd);
        root_fd = -1;
    }
    if (!root || !strcmp(root, "/")) {
        root_dir[0] = '\0';
        return;
    }
    snprintf(root_dir, sizeof root_dir, "%s", root);
    size_t n = strlen(root_dir);
    while (n > 1 && root_dir[n - 1] == '/')
        root_dir[--n] = '\0';
}

const char *fsroot_get(void) { return root_dir[0] ? root_dir : "/"; }
bool fsroot_is_live(void) { return root_dir[0] == '\0'; }

void fsroot_record_to(const char *dir)
{
    snprintf(record_dir, sizeof record_dir, "%s", dir ? dir : "");
}

char *fsroot_path(char *buf, size_t size, const char *path)
{
    snprintf(buf, size, "%s%s", root_dir, path);
    return buf;
}

/* Collapses "." and ".." in an absolute machine path, in place. */
static void normalize(char *path)
{
    char out[PATH_MAX];
    size_t len = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0)
            break;
        if (n == 1 && p[0] == '.') {
            /* skip */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;
        } else if (len + 1 + n < sizeof out) {
            out[len++] = '/';
            memcpy(out + len, p, n);
            len += n;
        }
        p += n;
    }
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    memcpy(path, out, len + 1);
}

/* Without openat2: walks the path one component at a time from the root with readlinkat, so
 * that no component is followed by the kernel; a link is re-rooted (absolute targets start
 * again at the root, ".." stops at it), as chroot would. */
static int open_walking(int top_fd, const char *path, int flags)
{
    char cur[PATH_MAX] = "", rest[PATH_MAX * 2];
    snprintf(rest, sizeof rest, "%s", path);
    int links = 0;
    while (rest[0]) {
        char *p = rest;
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        char comp[NAME_MAX + 1];
        if (n > NAME_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        memmove(rest, p + n, strlen(p + n) + 1);
        if (!strcmp(comp, "."))
            continue;
        if (!strcmp(comp, "..")) {
            char *slash = strrchr(cur, '/');
            *(slash ? slash : cur) = '\0';
            continue;
        }
        char next[PATH_MAX];
        if ((size_t)snprintf(next, sizeof next, "%s%s%s", cur, cur[0] ? "/" : "", comp) >= sizeof next) {
            errno = ENAMETOOLONG;
            return -1;
        }
        char target[PATH_MAX];
        ssize_t len = readlinkat(top_fd, next, target, sizeof target - 1);
        if (len < 0) {
            if (errno != EINVAL)
                return -1; /* ENOENT, EACCES, ENOTDIR: the walk ends here */
            snprintf(cur, sizeof cur, "%s", next);
            continue;
        }
        if (++links > FS_MAX_WALK_LINKS) {
            errno = ELOOP;
            return -1;
        }
        target[len] = '\0';
        if (target[0] == '/')
            cur[0] = '\0';
        char joined[PATH_MAX * 3];
        snprintf(joined, sizeof joined, "%s/%s", target, rest);
        if (strlen(joined) >= sizeof rest) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(rest, joined, strlen(joined) + 1);
    }
    return openat(top_fd, cur[0] ? cur : ".", flags | O_NOFOLLOW | O_CLOEXEC);
}

/* Set when the kernel lacks openat2 (or a test asks for the walk). */
static bool no_openat2;

void fsroot_use_openat2(bool use) { no_openat2 = !use; }

int fs_open(const char *path, int flags)
{
    if (fsroot_is_live())
        return open(path, flags | O_CLOEXEC);
    if (root_fd < 0)
        root_fd = open(root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        return -1;
    struct fs_open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
                              .resolve = FS_RESOLVE_IN_ROOT | FS_RESOLVE_NO_MAGICLINKS};
    int fd = -1;
    if (!no_openat2) {
        fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
        /* ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does not know it. */
        if (fd < 0 && (errno == ENOSYS || errno == EPERM))
            no_openat2 = true;
    }
    if (no_openat2)
        fd = open_walking(root_fd, path, flags);
    return fd;
}

/* What the record could not store, kept for `snapshot` to list (a partial tree must not replay
 * as if it were whole). */
static char **record_failures;
static int record_failure_count, record_failure_cap;

/* Keeps line (taken over; NULL when memory ran out) among the failures. */
static void record_failed_line(char *line)
{
    if (record_failure_count == record_failure_cap) {
        int cap = record_failure_cap ? record_failure_cap * 2 : 16;
        char **grown = realloc(record_failures, (size_t)cap * sizeof *grown);
        if (!grown) {
            free(line);
            record_failure_count++; /* still counted, without its line */
            return;
        }
        record_failures = grown;
        record_failure_cap = cap;
    }
    if (record_failure_count < record_failure_cap)
        record_failures[record_failure_count] = line;
    record_failure_count++;
}

static void record_failed(const char *dst, const char *what, int error)
{
    char *line = NULL;
    if (asprintf(&line, "%s: %s: %s", dst, what, i18n_error_text(error)) < 0)
        line = NULL;
    record_failed_line(line);
}

int fsroot_record_failures(const char *const **lines, int *listed)
{
    *lines = (const char *const *)record_failures;
    *listed = record_failure_count < record_failure_cap ? record_failure_count : record_failure_cap;
    return record_failure_count;
}

void fsroot_record_failures_clear(void)
{
    for (int i = 0; i < record_failure_count && i < record_failure_cap; i++)
        free(record_failures[i]);
    free(record_failures);
    record_failures = NULL;
    record_failure_count = record_failure_cap = 0;
}

static bool mkdirs(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *s = tmp + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(tmp, 0755);
            *s = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
        record_failed(dir, "cannot create the folder", errno);
        return false;
    }
    return true;
}

static unsigned char *read_fd_bounded(int fd, size_t limit, size_t *len);

/* Copies a regular file of the root into the record; every failure is counted. */
static void copy_file(const char *path, const char *dst)
{
    int in = fs_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    size_t len = 0;
    unsigned char *data = in >= 0 ? read_fd_bounded(in, FS_READ_LIMIT, &len) : NULL;
    int error = errno;
    if (in >= 0)
        close(in);
    if (!data) {
        record_failed(dst, "cannot read the original", error);
        return;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        record_failed(dst, "cannot create", errno);
        free(data);
        return;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(out, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            record_failed(dst, "cannot write", n < 0 ? errno : ENOSPC);
            break;
        }
        done += (size_t)n;
    }
    if (close(out) != 0 && done == len)
        record_failed(dst, "cannot write", errno);
    free(data);
}

/* While set, record_walk stores a regular file at the end of a path as an empty file of that name
 * (fs_record_name). */
static bool record_names_only;

/* Mirrors a machine path into the record directory: symlinks along the way become the same
 * symlinks, directories are created, and a regular file at the end is copied. `hops` counts the
 * links followed so far, so a tree whose links loop ends instead of recursing without end. */
static void record_walk(const char *path, int hops)
{
    char cur[PATH_MAX] = "";
    char rest[PATH_MAX];
    snprintf(rest, sizeof rest, "%s", path);
    char *save = NULL;
    for (char *comp = strtok_r(rest, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
        size_t cl = strlen(cur);
        snprintf(cur + cl, sizeof cur - cl, "/%s", comp);
        char src[PATH_MAX], dst[PATH_MAX];
        fsroot_path(src, sizeof src, cur);
        snprintf(dst, sizeof dst, "%s%s", record_dir, cur);
        struct stat st;
        if (lstat(src, &st) != 0) {
            /* ENOENT: a dangling link's target, recorded as the link alone. */
            if (errno != ENOENT)
                record_failed(dst, "cannot inspect the original", errno);
            return;
        }
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(src, target, sizeof target - 1);
            if (n < 0 || hops + 1 > FS_MAX_WALK_LINKS)
                return;
            target[n] = '\0';
            char parent[PATH_MAX];
            snprintf(parent, sizeof parent, "%s", dst);
            *strrchr(parent, '/') = '\0';
            if (!mkdirs(parent))
                return;
            if (symlink(target, dst) != 0 && errno != EEXIST) {
                record_failed(dst, "cannot create the symlink", errno);
                return;
            }
            char next[PATH_MAX * 2];
            if (target[0] == '/') {
                snprintf(next, sizeof next, "%s", target);
            } else {
                *strrchr(cur, '/') = '\0';
                snprintf(next, sizeof next, "%s/%s", cur, target);
            }
            /* Continue from the link's target, then the remaining components. */
            char tail[PATH_MAX] = "";
            if (save && *save)
                snprintf(tail, sizeof tail, "/%s", save);
            char full[PATH_MAX * 3];
            snprintf(full, sizeof full, "%s%s", next, tail);
            normalize(full);
            record_walk(full, hops + 1);
            return;
        }
        if (S_ISDIR(st.st_mode)) {
            if (!mkdirs(dst))
                return;
        } else if (S_ISREG(st.st_mode) && access(dst, F_OK) != 0) {
            if (record_names_only) {
                int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
                if (fd < 0)
                    record_failed(dst, "cannot create", errno);
                else
                    close(fd);
            } else {
                copy_file(cur, dst);
            }
        }
    }
}

static void record(const char *path)
{
    if (record_dir[0])
        record_walk(path, 0);
}

void fs_record_name(const char *path)
{
    if (!record_dir[0])
        return;
    record_names_only = true;
    record_walk(path, 0);
    record_names_only = false;
}
bool fsroot_recording(void) { return record_dir[0] != '\0'; }

void fs_record_text(const char *path, const char *text)
{
    if (!record_dir[0])
        return;
    char dst[PATH_MAX * 2];
    snprintf(dst, sizeof dst, "%s%s", record_dir, path);
    char parent[PATH_MAX * 2];
    snprintf(parent, sizeof parent, "%s", dst);
    *strrchr(parent, '/') = '\0';
    if (!mkdirs(parent))
        return;
    FILE *f = fopen(dst, "w");
    if (!f) {
        record_failed(dst, "cannot create", errno);
        return;
    }
    bool ok = fputs(text, f) >= 0;
    int error = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        error = errno;
    }
    if (!ok)
        record_failed(dst, "cannot write", error);
}

/* Why the latest read failed, in words, when it was not simply absent (see fs_last_failure): in
 * English, with its translation kept for _() where a report prints it (util/i18n.h). A buffer, not
 * an allocation: callers hold on to the text (machine.missing_reason) past the next read. */
static char last_failure[PATH_MAX + 96];

static void set_failure(const char *path, int error)
{
    char *text = NULL;
    switch (error) {
    case 0:
    case ENOENT:
    case ENOTDIR: break;
    case EACCES:
    case EPERM: i18n_asprintf(&text, "%s is not readable (permission denied)", path); break;
    case EFBIG: i18n_asprintf(&text, "%s is oversized (more than %u MiB)", path, FS_READ_LIMIT >> 20); break;
    case EFTYPE_NOT_REGULAR: i18n_asprintf(&text, "%s is not a regular file (a FIFO, device or socket)", path); break;
    case ELOOP: i18n_asprintf(&text, "%s is a symlink loop", path); break;
    /* TRANSLATORS: a path, then the system's error text (strerror), in the reader's language where
     * the C library has it. */
    default: i18n_asprintf(&text, "%s cannot be read: %s", path, i18n_error_text(error)); break;
    }
    snprintf(last_failure, sizeof last_failure, "%s", text ? text : "");
    free(text);
}

const char *fs_last_failure(void) { return last_failure[0] ? last_failure : NULL; }

/* Reads at most limit bytes (+1 to notice more) of an open regular file into a buffer with one
 * spare byte for a NUL; NULL with errno set (EFBIG when larger than limit). */
/* 0 when fd is a regular file whose stated size is within limit; else the errno to report. */
static int check_regular(int fd, size_t limit)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR; /* "Is a directory": a folder given where a file is expected */
    if (!S_ISREG(st.st_mode))
        return EFTYPE_NOT_REGULAR;
    /* sysfs and procfs report 4096 or 0 whatever they hold; a real file's size is honest. */
    if ((unsigned long long)st.st_size > limit)
        return EFBIG;
    return 0;
}

static unsigned char *read_fd_bounded(int fd, size_t limit, size_t *len)
{
    int bad = check_regular(fd, limit);
    if (bad) {
        errno = bad;
        return NULL;
    }
    size_t cap = 4096, got = 0;
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

/* Reads a whole regular file under the root (never a FIFO or device: they could block or never
 * end); NULL with errno set when missing, unreadable, not regular, or larger than limit (EFBIG). */
static unsigned char *read_whole(const char *path, size_t limit, size_t *len)
{
    int fd = fs_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    unsigned char *buf = fd >= 0 ? read_fd_bounded(fd, limit, len) : NULL;
    int error = buf ? 0 : errno;
    if (fd >= 0)
        close(fd);
    set_failure(path, error);
    if (!buf) {
        /* The audit of the machine names it oversized or not a file; a record without it would
         * call it missing: the snapshot says what it left out (and so fails). */
        if (record_dir[0] && (error == EFBIG || error == EFTYPE_NOT_REGULAR)) {
            char dst[PATH_MAX * 2], *line = NULL;
            snprintf(dst, sizeof dst, "%s%s", record_dir, path);
            int n = error == EFBIG
                        ? asprintf(&line, "%s: left out: larger than %u MiB", dst, FS_READ_LIMIT >> 20)
                        : asprintf(&line, "%s: left out: not a regular file (a FIFO, device or socket)", dst);
            if (n < 0)
                line = NULL;
            record_failed_line(line);
        }
        errno = error;
        return NULL;
    }
    record(path);
    return buf;
}

/* In English (the JSON's input problems keep it), with its translation kept for _() (util/i18n.h). */
/* Copies a reason written with i18n_asprintf (taken over) into a caller's buffer. */
static void copy_reason(char *why, size_t whylen, char *text)
{
    snprintf(why, whylen, "%s", text ? text : "out of memory");
    free(text);
}

static void describe_input_failure(int error, size_t limit, char *why, size_t whylen)
{
    char *text = NULL;
    if (error == EFTYPE_NOT_REGULAR)
        text = strdup(N_("not a regular file (a FIFO, device or socket): give a saved file"));
    else if (error == EFBIG)
        i18n_asprintf(&text, "larger than %zu MiB: not the expected evidence file", limit >> 20);
    else
        text = i18n_strerror(error);
    copy_reason(why, whylen, text);
}

/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
#define INPUT_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

bool fs_input_check(const char *path, size_t limit, char *why, size_t whylen)
{
    int fd = open(path, INPUT_OPEN_FLAGS);
    int error = fd >= 0 ? check_regular(fd, limit) : errno;
    if (fd >= 0)
        close(fd);
    if (error)
        describe_input_failure(error, limit, why, whylen);
    return error == 0;
}

unsigned char *fs_read_input(const char *path, size_t limit, size_t *len, char *why, size_t whylen)
{
    int fd = open(path, INPUT_OPEN_FLAGS);
    unsigned char *buf = fd >= 0 ? read_fd_bounded(fd, limit, len) : NULL;
    int error = buf ? 0 : errno;
    if (fd >= 0)
        close(fd);
    if (!buf) {
        describe_input_failure(error, limit, why, whylen);
        errno = error;
        return NULL;
    }
    buf[*len] = '\0';
    return buf;
}

char *fs_read(const char *path)
{
    size_t len;
    char *buf = (char *)read_whole(path, FS_READ_LIMIT, &len);
    if (!buf)
        return NULL;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        len--;
    buf[len] = '\0';
    return buf;
}

unsigned char *fs_read_bin(const char *path, size_t limit, size_t *len)
{
    return read_whole(path, limit, len);
}

char *fs_readf(const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return fs_read(path);
}

bool fs_read_long(const char *path, long *out)
{
    char *s = fs_read(path);
    if (!s)
        return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    bool ok = end != s && errno == 0;
    while (ok && (*end == ' ' || *end == '\n' || *end == '\t'))
        end++;
    ok = ok && *end == '\0';
    free(s);
    if (ok)
        *out = v;
    return ok;
}

bool fs_exists(const char *path)
{
    int fd = fs_open(path, O_PATH);
    set_failure(path, fd < 0 ? errno : 0);
    if (fd < 0)
        return false;
    close(fd);
    record(path);
    return true;
}

bool fs_is_dir(const char *path)
{
    int fd = fs_open(path, O_PATH | O_DIRECTORY);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

/* readlink of one machine path whose folders are resolved inside the root. */
static ssize_t readlink_in_root(const char *path, char *target, size_t size)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (!slash || !slash[1]) {
        errno = EINVAL; /* the root itself is no link */
        return -1;
    }
    const char *base = path + (slash - parent) + 1;
    if (slash == parent)
        slash[1] = '\0';
    else
        *slash = '\0';
    int dir = fs_open(parent, O_PATH | O_DIRECTORY);
    if (dir < 0)
        return -1;
    ssize_t n = readlinkat(dir, base, target, size);
    int error = errno;
    close(dir);
    errno = error;
    return n;
}

char *fs_resolve(const char *path)
{
    char cur[PATH_MAX * 2];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < FS_MAX_LINK_HOPS; hops++) {
        char target[PATH_MAX];
        ssize_t n = readlink_in_root(cur, target, sizeof target - 1);
        if (n < 0) {
            /* EINVAL: not a link, done. ENOENT after a hop: a dangling link still names its target. */
            if (errno != EINVAL && !(errno == ENOENT && hops > 0))
                return NULL;
            record(path);
            return strdup(cur);
        }
        target[n] = '\0';
        if (target[0] == '/') {
            snprintf(cur, sizeof cur, "%s", target);
        } else {
            char *slash = strrchr(cur, '/');
            if (slash)
                *slash = '\0';
            char next[PATH_MAX * 2];
            snprintf(next, sizeof next, "%s/%s", cur, target);
            snprintf(cur, sizeof cur, "%s", next);
        }
        normalize(cur);
    }
    return NULL;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int fs_list(const char *dir, char ***names)
{
    *names = NULL;
    int fd = fs_open(dir, O_RDONLY | O_DIRECTORY);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    set_failure(dir, d ? 0 : errno);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int count = 0, cap = 0;
    char **list = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (count == FS_LIST_LIMIT)
            break; /* a folder this large is not a machine's: keep the first ones, bounded */
        if (count == cap) {
            cap = cap ? cap * 2 : 32;
            char **grown = realloc(list, (size_t)cap * sizeof *list);
            if (!grown)
                break;
            list = grown;
        }
        list[count++] = strdup(e->d_name);
    }
    closedir(d);
    if (count > 1)
        qsort(list, (size_t)count, sizeof *list, cmp_names);
    record(dir);
    *names = list;
    return count;
}

void fs_list_free(char **names, int count)
{
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* --- checking a tree before a reader that follows links (hwloc) ------------------------------ */

#define TREE_CHECK_MAX_DEPTH 64
#define TREE_CHECK_MAX_ENTRIES (2 << 20)

struct tree_check {
    int root_fd;
    long entries;
    char *why;
    size_t whylen;
};

/* Whether a relative link target, seen from a folder `depth` levels below the root, climbs out. */
static bool climbs_out(const char *target, int depth)
{
    const char *p = target;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return true;
        } else if (n > 0 && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return false;
}

#define FS_RESOLVE_BENEATH 0x08

/* Whether following the link at `path` (relative target `target`, in a folder `depth` deep)
 * leaves the root: the kernel answers exactly (openat2 RESOLVE_BENEATH fails with EXDEV on any
 * escape, through other links too); without openat2, the target's own ".." are counted. */
static bool leaves_root(int root_fd, const char *path, const char *target, int depth)
{
    struct fs_open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = FS_RESOLVE_BENEATH | FS_RESOLVE_NO_MAGICLINKS};
    int fd = (int)syscall(SYS_openat2, root_fd, path + 1, &how, sizeof how);
    if (fd >= 0) {
        close(fd);
        return false;
    }
    if (errno == EXDEV)
        return true;
    if (errno == ENOSYS || errno == EPERM)
        return climbs_out(target, depth);
    return false; /* dangling or a loop: hwloc finds nothing there either */
}

static bool check_dir(struct tree_check *c, int dir_fd, const char *path, int depth)
{
    if (depth > TREE_CHECK_MAX_DEPTH) {
        char *text;
        i18n_asprintf(&text, "%s: folders nested more than %d deep", path, TREE_CHECK_MAX_DEPTH);
        copy_reason(c->why, c->whylen, text);
        return false;
    }
    DIR *d = fdopendir(dir_fd);
    if (!d) {
        close(dir_fd);
        return true; /* unreadable: nothing below it can be read by anyone either */
    }
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char child[PATH_MAX];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (++c->entries > TREE_CHECK_MAX_ENTRIES) {
            char *text;
            i18n_asprintf(&text, "more than %d entries: too large to check", TREE_CHECK_MAX_ENTRIES);
            copy_reason(c->why, c->whylen, text);
            ok = false;
            break;
        }
        /* readdir's type saves a stat per entry; some filesystems leave it unknown. */
        struct stat st = {.st_mode = e->d_type == DT_LNK   ? S_IFLNK
                                     : e->d_type == DT_DIR ? S_IFDIR
                                     : e->d_type == DT_REG ? S_IFREG
                                                           : 0};
        if (e->d_type == DT_UNKNOWN && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
            if (n < 0)
                continue;
            target[n] = '\0';
            if (target[0] == '/' || leaves_root(c->root_fd, child, target, depth)) {
                char *text;
                /* TRANSLATORS: a path inside a recorded tree, then where its symbolic link points. */
                i18n_asprintf(&text, "%s links outside the tree (to %s)", child, target);
                copy_reason(c->why, c->whylen, text);
                ok = false;
            }
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                ok = check_dir(c, sub, child, depth + 1);
        } else if (!S_ISREG(st.st_mode)) {
            char *text;
            i18n_asprintf(&text, "%s is not a regular file (a FIFO, device or socket)", child);
            copy_reason(c->why, c->whylen, text);
            ok = false;
        }
    }
    closedir(d);
    return ok;
}

bool fs_tree_is_closed(const char *top, char *why, size_t whylen)
{
    if (fsroot_is_live())
        return true;
    struct tree_check c = {-1, 0, why, whylen};
    int depth = 0;
    for (const char *p = top; *p; p++)
        depth += *p == '/' && p[1] && p[1] != '/';
    /* The folder itself must be reached without a link: check its path first. */
    char target[PATH_MAX];
    if (readlink_in_root(top, target, sizeof target - 1) >= 0) {
        char *text;
        i18n_asprintf(&text, "%s is a link (a tree to check must be real folders)", top);
        copy_reason(why, whylen, text);
        return false;
    }
    int fd = fs_open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd < 0)
        return true; /* absent: nothing there to leave by */
    c.root_fd = root_fd; /* opened by fs_open above */
    return check_dir(&c, fd, top, depth);
}
