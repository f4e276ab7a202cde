#include "util/fsroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger than any sysfs/procfs file we parse (/proc/cpuinfo of a 512-thread box is ~1 MB). */
#define FS_READ_LIMIT (16u << 20)
#define FS_MAX_LINK_HOPS 16

static char root_dir[PATH_MAX] = "";
static char record_dir[PATH_MAX] = "";

void fsroot_set(const char *root)
{
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

static void mkdirs(const char *dir)
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
    mkdir(tmp, 0755);
}

static void copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out >= 0) {
        char buf[65536];
        ssize_t n;
        while ((n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                break;
        close(out);
    }
    close(in);
}

/* Mirrors a machine path into the record directory: symlinks along the way become the same
 * symlinks, directories are created, and a regular file at the end is copied. */
static void record(const char *path)
{
    if (!record_dir[0])
        return;
    char cur[PATH_MAX] = "";
    char rest[PATH_MAX];
    snprintf(rest, sizeof rest, "%s", path);
    int hops = 0;
    char *save = NULL;
    for (char *comp = strtok_r(rest, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
        size_t cl = strlen(cur);
        snprintf(cur + cl, sizeof cur - cl, "/%s", comp);
        char src[PATH_MAX], dst[PATH_MAX];
        fsroot_path(src, sizeof src, cur);
        snprintf(dst, sizeof dst, "%s%s", record_dir, cur);
        struct stat st;
        if (lstat(src, &st) != 0)
            return;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(src, target, sizeof target - 1);
            if (n < 0 || ++hops > FS_MAX_LINK_HOPS)
                return;
            target[n] = '\0';
            char parent[PATH_MAX];
            snprintf(parent, sizeof parent, "%s", dst);
            *strrchr(parent, '/') = '\0';
            mkdirs(parent);
            if (symlink(target, dst) != 0 && errno != EEXIST)
                return;
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
            record(full);
            return;
        }
        if (S_ISDIR(st.st_mode))
            mkdirs(dst);
        else if (S_ISREG(st.st_mode) && access(dst, F_OK) != 0)
            copy_file(src, dst);
    }
}

void fs_record_text(const char *path, const char *text)
{
    if (!record_dir[0])
        return;
    char dst[PATH_MAX * 2];
    snprintf(dst, sizeof dst, "%s%s", record_dir, path);
    char parent[PATH_MAX * 2];
    snprintf(parent, sizeof parent, "%s", dst);
    *strrchr(parent, '/') = '\0';
    mkdirs(parent);
    FILE *f = fopen(dst, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Reads a whole file under the root into a growing buffer with one spare byte past *len (for a
 * NUL); NULL with errno set when missing, unreadable, or larger than limit (EFBIG). */
static unsigned char *read_whole(const char *path, size_t limit, size_t *len)
{
    char full[PATH_MAX];
    int fd = open(fsroot_path(full, sizeof full, path), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
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
    close(fd);
    if (!error && got > limit)
        error = EFBIG;
    if (error) {
        free(buf);
        errno = error;
        return NULL;
    }
    *len = got;
    record(path);
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
    char full[PATH_MAX];
    bool ok = access(fsroot_path(full, sizeof full, path), F_OK) == 0;
    if (ok)
        record(path);
    return ok;
}

bool fs_is_dir(const char *path)
{
    char full[PATH_MAX];
    struct stat st;
    return stat(fsroot_path(full, sizeof full, path), &st) == 0 && S_ISDIR(st.st_mode);
}

char *fs_resolve(const char *path)
{
    char cur[PATH_MAX * 2];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < FS_MAX_LINK_HOPS; hops++) {
        char full[PATH_MAX], target[PATH_MAX];
        fsroot_path(full, sizeof full, cur);
        ssize_t n = readlink(full, target, sizeof target - 1);
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
    char full[PATH_MAX];
    DIR *d = opendir(fsroot_path(full, sizeof full, dir));
    *names = NULL;
    if (!d)
        return -1;
    int count = 0, cap = 0;
    char **list = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
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
