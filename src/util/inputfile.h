/* Opening a file the user named (evidence, offers, claims, tables, timelines, catalogues): one
 * bounded open for every reader. A folder fails at once with EISDIR ("Is a directory"), not with a
 * parse error about empty input; a FIFO, device or socket is refused before a byte is read (it could
 * block or never end: the open itself never waits), and so is a file over FS_INPUT_LIMIT. */
#ifndef GPUVET_UTIL_INPUTFILE_H
#define GPUVET_UTIL_INPUTFILE_H

#include <errno.h>
#include <stdio.h>

/* errno for a path that is not a regular file (a FIFO, device or socket). */
#define INPUT_NOT_REGULAR EMEDIUMTYPE

/* fopen(path, "r") of a regular file of at most FS_INPUT_LIMIT bytes; NULL with errno EISDIR for a
 * folder, INPUT_NOT_REGULAR for a FIFO, device or socket, EFBIG for an oversized file, or the
 * open's own errno. */
FILE *input_file_open(const char *path);

/* The same refusal for readers that open by name: 0, or -1 with errno as input_file_open sets it.
 * Nothing is read. */
int input_file_check(const char *path);

/* errno after input_file_open/check failed, as a reason in the reader's language: a FIFO or device
 * and an oversized file are named as such, others as the system says (i18n_error_text). */
const char *input_file_error(int error);

#endif
