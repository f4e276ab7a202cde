/* The process exit status every command returns: 0 success (audit: no fail), 1 a verdict found a
 * fail, 2 could not run (bad usage or input). Below the builtins, so that what they call (watch's
 * session) returns the same codes without including builtin/. */
#ifndef GPUVET_UTIL_EXITCODE_H
#define GPUVET_UTIL_EXITCODE_H

#define EXIT_VERDICT_FAIL 1
#define EXIT_CANNOT_RUN 2

#endif
