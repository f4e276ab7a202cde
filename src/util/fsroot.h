/* Every file gpuvet reads about a machine goes through here, under one root prefix, so that
 * `--sysroot DIR` replays a recorded machine (as hwloc's HWLOC_FSROOT does) and `snapshot`
 * can record exactly what an audit read. */
#ifndef GPUVET_UTIL_FSROOT_H
#define GPUVET_UTIL_FSROOT_H

#include <stdbool.h>
#include <stddef.h>

/* Sets the root ("/" or NULL means the live machine). The path is copied. */
void fsroot_set(const char *root);
const char *fsroot_get(void);
bool fsroot_is_live(void);

/* Opens a machine path under the root without ever leaving it: symlinks are resolved as if the
 * root were "/" (absolute targets and ".." stay inside), with openat2(RESOLVE_IN_ROOT) where the
 * kernel has it and a component-by-component walk otherwise. flags as for open(2). */
int fs_open(const char *path, int flags);
/* false: always use the component walk (tests run both ways; a kernel without openat2 gets it). */
void fsroot_use_openat2(bool use);

/* Collapses "." and ".." in an absolute machine path, in place. */
void fs_path_normalize(char *path);

/* Larger than any sysfs/procfs file we parse (/proc/cpuinfo of a 512-thread box is ~1 MB). */
#define FS_READ_LIMIT (16u << 20)

/* Joins the root and an absolute machine path into buf; returns buf. */
char *fsroot_path(char *buf, size_t size, const char *path);

/* Reads a whole (small) regular file; returns a malloc'd NUL-terminated string with trailing
 * whitespace trimmed, or NULL (errno set) when it is missing, unreadable, not a regular file (a
 * FIFO or device is never read: it could block or never end) or over 16 MiB. */
char *fs_read(const char *path);
/* Reads a whole binary file (SMBIOS tables, raw DMI entries) up to limit bytes; returns a malloc'd
 * buffer and its length in *len, or NULL (errno set; EFBIG when larger than limit). */
unsigned char *fs_read_bin(const char *path, size_t limit, size_t *len);
/* Why the most recent fs_read/fs_read_bin failed, when it was not plain absence: "PATH is not
 * readable (permission denied)", "PATH is oversized (...)", "PATH is not a regular file (...)";
 * NULL after a success or a missing file. */
const char *fs_last_failure(void);

/* printf-style path. */
char *fs_readf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads a file and parses it as a long (decimal, or hex with 0x). false if missing or garbage. */
bool fs_read_long(const char *path, long *out);

bool fs_exists(const char *path);
bool fs_is_dir(const char *path);

/* Resolves a symlink inside the root, e.g. /sys/bus/pci/devices/X -> /sys/devices/.../X.
 * Returns a malloc'd machine path (not prefixed) or NULL. */
char *fs_resolve(const char *path);

/* Whether the folder `top` of the root can be handed to a reader that follows links itself
 * (hwloc's HWLOC_FSROOT opens with openat(), which follows an absolute or ../.. link to this
 * host's files): false, with the first offender in why, when a link below it leaves the root or
 * an entry is a FIFO, device or socket. Bounded in depth and entries. True on the live machine. */
bool fs_tree_is_closed(const char *top, char *why, size_t whylen);

/* Lists directory entry names (no . and ..), sorted. Returns count, or -1 if unreadable. */
int fs_list(const char *dir, char ***names);
void fs_list_free(char **names, int count);

#endif
