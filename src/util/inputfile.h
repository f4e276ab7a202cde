/* The one gate for every file a user names (evidence, logs, offers, claims, tables, timelines,
 * catalogues, GPUVET_PCI_IDS): a host path, not under --sysroot. The open never waits (O_NONBLOCK:
 * a FIFO would wait for a writer), then only a regular file of at most `limit` bytes is let through;
 * a folder fails at once with EISDIR, a FIFO, device or socket and a live /proc file (/proc/kmsg is
 * a "regular file" whose read waits for the next kernel message) are refused before a byte is read.
 * The descriptor stays non-blocking while it is read, so nothing read through here can hang. */
#ifndef GPUVET_UTIL_INPUTFILE_H
#define GPUVET_UTIL_INPUTFILE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* errno for a path that is not a saved file (a FIFO, device, socket or live /proc file). */
#define INPUT_NOT_REGULAR EMEDIUMTYPE

/* The bound on any evidence file a user names (real ones are well under 10 MiB). */
#define INPUT_FILE_LIMIT (64u << 20)
/* For a log that is streamed rather than held (a 1 GB syslog): no bound on its size. */
#define INPUT_FILE_STREAMED ((size_t)-1 / 2)

/* A stream of the file, read through the gate: NULL with errno EISDIR for a folder,
 * INPUT_NOT_REGULAR for a FIFO, device, socket or /proc file, EFBIG past limit, or the open's own
 * errno (input_file_reason says it in words). */
FILE *input_file_open(const char *path, size_t limit);

/* The whole file (at most limit bytes), NUL-terminated, its length in *len; NULL with the reason in
 * why (in English with its translation kept: print _(why)) and errno. */
unsigned char *input_file_read(const char *path, size_t limit, size_t *len, char *why, size_t whylen);

/* The same refusal for an option checked before its file is read (the read still goes through the
 * gate): false with the reason in why. Nothing is read. */
bool input_file_check(const char *path, size_t limit, char *why, size_t whylen);

/* The reason the gate gives for errno `error` (limit: the bound that was passed), in English with
 * its translation kept (print _(why)): the one text every caller shows after the file's name. */
void input_file_reason(int error, size_t limit, char *why, size_t whylen);

/* input_file_reason(error, INPUT_FILE_LIMIT) in the reader's language, for a message printed at
 * once after an input_file_open that failed. Valid until the next call in this thread. */
const char *input_file_error(int error);

/* Reads at most limit bytes of an open descriptor of a regular file (size checked first; EFBIG past
 * limit, INPUT_NOT_REGULAR for a FIFO or device) in blocks as large as the file says it is, into a
 * buffer with one spare byte for a NUL. NULL with errno set. For util/fsroot.c's machine files too. */
unsigned char *input_fd_read(int fd, size_t limit, size_t *len);

#endif
