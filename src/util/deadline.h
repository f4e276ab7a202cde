/* Calls that can block without end (a GPU driver that stopped answering, statvfs on a hung NFS or
 * FUSE mount) run in a worker thread that the caller waits on for a bounded time. */
#ifndef GPUVET_UTIL_DEADLINE_H
#define GPUVET_UTIL_DEADLINE_H

#include <stdbool.h>

/* The budget of each call that can block (seconds); the README adds them up. An environment
 * variable of the same name overrides one (tests make them short). */
#define DEADLINE_NVML_S 20.0    /* all of NVML: nvmlInit (seconds per GPU without persistence mode) and every query */
#define DEADLINE_CUDA_S 20.0    /* the CUDA driver: --load-check's copies (one second of traffic per GPU);
                                 * bench pcie's cuInit, and each GPU's calls before its copies */
#define DEADLINE_NCCL_S 60.0    /* bench gpu's all-reduce: NCCL's start-up over every GPU, then its all-reduces
                                 * at 1 GB/s of bus traffic (bench/gpu_nccl.c) */
#define DEADLINE_STATFS_S 5.0   /* realpath and statvfs of --data-dir, statvfs of / */
#define DEADLINE_CHILD_S 60.0   /* a tool gpuvet runs (snapshot's `nvidia-smi -q -x`) */

/* `gpuvet health` caps every call's budget at this (Slurm kills a HealthCheckProgram after 60 s;
 * the fast tier stays far below: README "Bounded" adds it up). */
#define DEADLINE_HEALTH_CAP_S 10.0

/* `name`'s value from the environment when it is a positive number, else fallback. */
double deadline_seconds(const char *name, double fallback);
/* The same with the fallback at most cap (a request's cap, such as DEADLINE_HEALTH_CAP_S; 0: none);
 * an environment value still wins. */
double deadline_seconds_capped(const char *name, double fallback, double cap);

/* Runs work(arg) in a new thread and waits at most `seconds` for it to return. True when it did;
 * false when the time ran out: the thread is then abandoned, still blocked in whatever it called.
 * It owns arg from then on and calls release(arg) if it ever returns, so work must write only
 * into arg (never into the caller's data) and the caller must not touch arg again. Abandoning is
 * safe enough because the blocked call is in the kernel or a driver library that gpuvet does not
 * call again; the process exits when its report is written, which ends the thread. */
bool deadline_run(void (*work)(void *), void *arg, void (*release)(void *), double seconds);

/* Whether a thread was abandoned. The process then ends with _exit once its report is written:
 * exit() would run library destructors (NVML's, the sanitizers' leak check) that can wait forever
 * on the thread still blocked in the driver or on the hung mount. */
bool deadline_abandoned_any(void);

/* realpath(3) and statvfs(2) of a path that may sit on a hung NFS or FUSE mount: NULL or -1 with
 * errno ETIMEDOUT when no answer came within `seconds`. */
struct statvfs;
char *realpath_bounded(const char *path, double seconds);
int statvfs_bounded(const char *path, struct statvfs *out, double seconds);

#endif
