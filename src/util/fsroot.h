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

/* When set, every path read or listed is also copied below this directory. */
void fsroot_record_to(const char *dir);

/* While recording, stores a fact that has no file of its own (a CPUID leaf, a tool's output)
 * at `path` in the record, where fs_read finds it when the record is replayed. */
void fs_record_text(const char *path, const char *text);

/* Joins the root and an absolute machine path into buf; returns buf. */
char *fsroot_path(char *buf, size_t size, const char *path);

/* Reads a whole (small) file; returns a malloc'd NUL-terminated string with trailing
 * whitespace trimmed, or NULL (errno set) when it is missing or unreadable. */
char *fs_read(const char *path);
/* Reads a whole binary file (SMBIOS tables, raw DMI entries) up to limit bytes; returns a malloc'd
 * buffer and its length in *len, or NULL (errno set; EFBIG when larger than limit). */
unsigned char *fs_read_bin(const char *path, size_t limit, size_t *len);
/* printf-style path. */
char *fs_readf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads a file and parses it as a long (decimal, or hex with 0x). false if missing or garbage. */
bool fs_read_long(const char *path, long *out);

bool fs_exists(const char *path);
bool fs_is_dir(const char *path);

/* Resolves a symlink inside the root, e.g. /sys/bus/pci/devices/X -> /sys/devices/.../X.
 * Returns a malloc'd machine path (not prefixed) or NULL. */
char *fs_resolve(const char *path);

/* Lists directory entry names (no . and ..), sorted. Returns count, or -1 if unreadable. */
int fs_list(const char *dir, char ***names);
void fs_list_free(char **names, int count);

#endif
