/* One file per subcommand (as git's builtin/). Each returns the process exit status:
 * 0 success (audit: no fail), 1 audit found a fail, 2 could not run (bad usage or input). */
#ifndef GPUVET_BUILTIN_BUILTIN_H
#define GPUVET_BUILTIN_BUILTIN_H

#include <getopt.h>
#include <stdbool.h>

#include "pipeline/audit.h"
#include "probe/probe.h"
#include "util/exitcode.h"

int cmd_audit(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_health(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_watch(int argc, char **argv);

/* What --workload takes, for option_invalid (util/parse.h; a msgid, options.c). */
extern const char workload_names_hint[];

/* The long name of the option getopt_long returned as `val`, for error messages; "?" if none. */
const char *option_name(const struct option *options, int val);

/* The default case after getopt_long: names the closest option to a misspelt one (or points to
 * --help) and returns EXIT_CANNOT_RUN. argv[0] is "gpuvet COMMAND" (main.c sets it). */
int option_error(const struct option *options, char **argv);

/* The GPU-fault evidence audit and health share: --kernel-log FILE, --expect-gpus N,
 * --xid-fatal LIST, --xid-ignore LIST. Add GPU_FAULT_OPTIONS to a getopt_long table. */
struct gpu_fault_options {
    const char *kernel_log;
    int expect_gpus;            /* 0 not given */
    struct xid_overrides xid;
};
#define GPU_FAULT_OPTIONS                                                                                         \
    {"kernel-log", required_argument, NULL, 'K'}, {"expect-gpus", required_argument, NULL, 'E'},                  \
        {"xid-fatal", required_argument, NULL, 'F'}, {"xid-ignore", required_argument, NULL, 'I'}
/* One of them as getopt_long returned it (c): 1 taken, 0 not one of them, -1 a bad value (said). */
int gpu_fault_option(const char *cmd, int c, const char *value, struct gpu_fault_options *o);
/* After the options: refuses a code in both lists and an unusable --kernel-log file (said), false;
 * else true (o->xid then goes into the audit request: pipeline/audit.h). */
bool gpu_fault_options_apply(const char *cmd, const struct gpu_fault_options *o);

/* --nvidia-smi FILE, given again for more files of the same machine (audit, health): adds value to
 * req's files; false (said) past NVIDIA_SMI_MAX_FILES. */
bool nvidia_smi_option(const char *cmd, const char *value, struct audit_request *req);
/* The evidence files req names (--dmidecode, --dmi-table, --claim, --nvidia-smi, --bench): a FIFO,
 * a device or a file past INPUT_FILE_LIMIT is refused before a byte is read; false (said). */
bool evidence_files_check(const char *cmd, const struct audit_request *req);

#endif
