/* Opening a file the user named (evidence, offers, claims, tables): a folder given where a file is
 * expected fails at once with EISDIR ("Is a directory"), not with a parse error about empty input. */
#ifndef GPUVET_UTIL_INPUTFILE_H
#define GPUVET_UTIL_INPUTFILE_H

#include <stdio.h>

/* fopen(path, "r"); NULL with errno = EISDIR for a folder. */
FILE *input_file_open(const char *path);

/* 0 when path is not a folder; -1 with errno = EISDIR when it is (for readers that open by name). */
int input_file_check(const char *path);

#endif
