/* One file per subcommand (as git's builtin/). Each returns the process exit status:
 * 0 success (audit: no fail), 1 audit found a fail, 2 could not run (bad usage or input). */
#ifndef GPUVET_BUILTIN_BUILTIN_H
#define GPUVET_BUILTIN_BUILTIN_H

#include <getopt.h>
#include <stdbool.h>

#include "builtin/parse_options.h"
#include "pipeline/audit.h"
#include "probe/probe.h"
#include "util/exitcode.h"
#include "util/gpu_limits.h"

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


/* The default case after getopt_long: names the closest option to a misspelt one (or points to
 * --help) and returns EXIT_CANNOT_RUN. argv[0] is "gpuvet COMMAND" (main.c sets it). */
int option_error(const struct option *options, char **argv);

/* The GPU-fault evidence audit and health share: --kernel-log FILE, --expect-gpus N,
 * --xid-fatal LIST, --xid-ignore LIST, declared once as rows of an option table. */
struct gpu_fault_options {
    const char *kernel_log;
    int expect_gpus;            /* 0 not given */
    struct xid_overrides xid;
};
extern const char kernel_log_help[], expect_gpus_help[], xid_fatal_help[], xid_ignore_help[];
enum opt_result xid_list_option(const char *cmd, const struct opt *row, const char *value);
#define OPT_GPU_FAULT_ROWS(f)                                                                                          \
    OPT_FILE("kernel-log", 0, &(f)->kernel_log, "FILE", kernel_log_help),                                              \
        OPT_INT("expect-gpus", 0, &(f)->expect_gpus, 1, GPU_MAX_PER_NODE, "N", expect_gpus_help),                       \
        OPT_CALLBACK("xid-fatal", 0, (f)->xid.fatal, xid_list_option, 0, "LIST", xid_fatal_help),                      \
        OPT_CALLBACK("xid-ignore", 0, (f)->xid.ignore, xid_list_option, 0, "LIST", xid_ignore_help)
/* After the options: refuses a code in both lists and an unusable --kernel-log file (said), false;
 * else true (o->xid then goes into the audit request: pipeline/audit.h). */
bool gpu_fault_options_apply(const char *cmd, const struct gpu_fault_options *o);

/* Rows audit and health (and snapshot, plan) share: the machine judged, its GPUs as nvidia-smi files
 * describe them (repeatable, into an audit_request), the workload, node_exporter's file. */
extern const char sysroot_help[], nvidia_smi_help[], workload_help[], prom_help[];
enum opt_result nvidia_smi_row(const char *cmd, const struct opt *row, const char *value);
enum opt_result workload_row(const char *cmd, const struct opt *row, const char *value);
/* --fx CUR=RATE (plan, cost): adds a rate to the struct fx_rates the row points to. */
enum opt_result fx_row(const char *cmd, const struct opt *row, const char *value);
#define OPT_SYSROOT_ROW(p) OPT_DIR("sysroot", 's', (p), "DIR", sysroot_help)
#define OPT_NVIDIA_SMI_ROW(req) OPT_CALLBACK("nvidia-smi", 0, (req), nvidia_smi_row, 0, "FILE", nvidia_smi_help)
#define OPT_WORKLOAD_ROW(p)                                                                                            \
    {.kind = OPT_KIND_CALLBACK, .name = "workload", .short_name = 'w', .value = OPT_CHECK(enum workload, p),            \
     .callback = workload_row, .metavar = "W", .default_name = workload_name(*(p)), .help = workload_help}
#define OPT_PROM_ROW(p) OPT_FILE("prom", 0, (p), "FILE", prom_help)

/* --nvidia-smi FILE, given again for more files of the same machine (audit, health): adds value to
 * req's files; false (said) past NVIDIA_SMI_MAX_FILES. */
bool nvidia_smi_option(const char *cmd, const char *value, struct audit_request *req);
/* The evidence files req names (--dmidecode, --dmi-table, --claim, --nvidia-smi, --bench): a FIFO,
 * a device or a file past INPUT_FILE_LIMIT is refused before a byte is read; false (said). */
bool evidence_files_check(const char *cmd, const struct audit_request *req);

#endif
