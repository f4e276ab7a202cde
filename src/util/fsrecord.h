/* The snapshot recorder: while `gpuvet snapshot` runs an audit, every machine file util/fsroot.c
 * reads or lists is also copied, under the same path, below a record folder, so that `--sysroot`
 * replays exactly what the audit read. */
#ifndef GPUVET_UTIL_FSRECORD_H
#define GPUVET_UTIL_FSRECORD_H

#include <stdbool.h>

/* When set, every path read or listed is also copied below this directory. */
void fsroot_record_to(const char *dir);

/* Whether a record is being made (fsroot_record_to a folder): a probe that reads a stream rather
 * than a file (the kernel's /dev/kmsg) then keeps what it read for fs_record_text. */
bool fsroot_recording(void);

/* While recording, stores a fact that has no file of its own (a CPUID leaf, a tool's output)
 * at `path` in the record, where fs_read finds it when the record is replayed. */
void fs_record_text(const char *path, const char *text);

/* While recording, stores path as its name alone: its links as links, a regular file as an empty
 * file. For files whose names are the fact (libcudart.so.12.2.140) and whose bytes are not read. */
void fs_record_name(const char *path);

/* What the record could not store (a folder, link or file it could not create, read or write; an
 * oversized file or a FIFO the audit met, "left out"):
 * returns the count, with the first *listed of them described one line each in *lines (a line may
 * be NULL when memory ran out). `snapshot` fails with this list when it is not empty. */
int fsroot_record_failures(const char *const **lines, int *listed);
void fsroot_record_failures_clear(void);

/* For util/fsroot.c: copies a machine path (its links as links, a regular file's bytes) into the
 * record; and notes a file the audit met but the record leaves out (error EFBIG: oversized; else not
 * a regular file). Nothing when no record is being made. */
void fsrecord_path(const char *path);
void fsrecord_left_out(const char *path, int error);

#endif
