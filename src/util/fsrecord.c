/* The snapshot recorder (util/fsrecord.h): a copy of every machine file an audit reads, made as it
 * reads them through util/fsroot.c. */
#include "util/fsrecord.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/inputfile.h"

/* The kernel's own bound on symlinks followed in one path (MAXSYMLINKS). */
#define FS_MAX_WALK_LINKS 40

static char record_dir[PATH_MAX] = "";

void fsroot_record_to(const char *dir)
{
    snprintf(record_dir, sizeof record_dir, "%s", dir ? dir : "");
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

/* Copies a regular file of the root into the record; every failure is counted. */
static void copy_file(const char *path, const char *dst)
{
    int in = fs_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    size_t len = 0;
    unsigned char *data = in >= 0 ? input_fd_read(in, FS_READ_LIMIT, &len) : NULL;
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
            fs_path_normalize(full);
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

void fsrecord_path(const char *path)
{
    if (record_dir[0])
        record_walk(path, 0);
}

void fsrecord_left_out(const char *path, int error)
{
    if (!record_dir[0])
        return;
    char dst[PATH_MAX * 2], *line = NULL;
    snprintf(dst, sizeof dst, "%s%s", record_dir, path);
    int n = error == EFBIG ? asprintf(&line, "%s: left out: larger than %u MiB", dst, FS_READ_LIMIT >> 20)
                           : asprintf(&line, "%s: left out: not a regular file (a FIFO, device or socket)", dst);
    if (n < 0)
        line = NULL;
    record_failed_line(line);
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

