#include "util/fsrecord.h"
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

char *fsroot_path(char *buf, size_t size, const char *path)
{
    snprintf(buf, size, "%s%s", root_dir, path);
    return buf;
}

void fs_path_normalize(char *path)
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

/* Reads a whole regular file under the root (never a FIFO or device: they could block or never
 * end); NULL with errno set when missing, unreadable, not regular, or larger than limit (EFBIG). */
static unsigned char *read_whole(const char *path, size_t limit, size_t *len)
{
    int fd = fs_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    unsigned char *buf = fd >= 0 ? input_fd_read(fd, limit, len) : NULL;
    int error = buf ? 0 : errno;
    if (fd >= 0)
        close(fd);
    set_failure(path, error);
    if (!buf) {
        /* The audit of the machine names it oversized or not a file; a record without it would
         * call it missing: the snapshot says what it left out (and so fails). */
        if (error == EFBIG || error == EFTYPE_NOT_REGULAR)
            fsrecord_left_out(path, error);
        errno = error;
        return NULL;
    }
    fsrecord_path(path);
    return buf;
}

/* Copies a reason written with i18n_asprintf (taken over) into a caller's buffer. */
static void copy_reason(char *why, size_t whylen, char *text)
{
    snprintf(why, whylen, "%s", text ? text : "out of memory");
    free(text);
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
    fsrecord_path(path);
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
            fsrecord_path(path);
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
        fs_path_normalize(cur);
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
    fsrecord_path(dir);
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
