/* Runs a tool (snapshot's `nvidia-smi -q -x`, health's `scontrol`) under a deadline and a size bound: a hung driver
 * makes nvidia-smi hang too, and the audit must not wait with it. */
#ifndef GPUVET_UTIL_CHILD_H
#define GPUVET_UTIL_CHILD_H

#include <stddef.h>

#define CHILD_TIMED_OUT (-2)

/* Runs argv (argv[0] a path) with stdin from /dev/null and stdout into out_path (at most
 * max_bytes: the child gets SIGXFSZ past it). Waits at most `seconds`, then kills it. Returns the
 * exit status (0-255; 128+N for signal N), CHILD_TIMED_OUT, or -1 with the reason in why. */
int child_run_bounded(char *const argv[], const char *out_path, size_t max_bytes, double seconds, char *why,
                      size_t whylen);

/* Runs argv as child_run_bounded does, with stdout and stderr together into text (NUL-terminated,
 * cut at textlen - 1 bytes); an exec failure says so there. Same return values. */
int child_run_capture(char *const argv[], double seconds, char *text, size_t textlen, char *why, size_t whylen);

#endif
