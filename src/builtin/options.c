#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"
#include "sizing/offers.h"
#include "util/fsroot.h"
#include "util/inputfile.h"
#include "util/output.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "util/i18n.h"

const char workload_names_hint[] = N_("general, cv-train, llm-train, llm-infer, render or hpc");

/* The option of options whose long name is name, or the only one it abbreviates (as getopt_long
 * takes "--mod" for --model); NULL when none, with *ambiguous set when several start with it. */
static const struct option *long_option(const struct option *options, const char *name, size_t len, bool *ambiguous)
{
    const struct option *found = NULL;
    int prefixed = 0;
    *ambiguous = false;
    for (const struct option *opt = options; opt->name; opt++) {
        if (strncmp(opt->name, name, len) != 0)
            continue;
        if (strlen(opt->name) == len)
            return opt;
        if (prefixed++ == 0)
            found = opt;
    }
    *ambiguous = prefixed > 1;
    return prefixed == 1 ? found : NULL;
}

int option_error(const struct option *options, char **argv)
{
    /* getopt_long stays quiet (opterr = 0, set in main.c): its own messages would be glibc's English
     * or glibc's catalogue's wording. The element it stopped at is argv[optind - 1]; for a short
     * option, optopt is the letter. */
    const char *cmd = argv[0], *arg = optind > 0 ? argv[optind - 1] : "";
    if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
        const struct option *opt = NULL;
        for (const struct option *o = options; o->name && optopt && !opt; o++)
            if (o->val == optopt)
                opt = o;
        if (opt && opt->has_arg == required_argument)
            fprintf(stderr, _("%s: -%c (--%s) needs a value  (%s --help lists the options)\n"), cmd, optopt, opt->name,
                    cmd);
        else
            fprintf(stderr, _("%s: unknown option -%c  (%s --help lists the options)\n"), cmd, optopt ? optopt : '?',
                    cmd);
        return EXIT_CANNOT_RUN;
    }
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    bool ambiguous;
    const struct option *opt = long_option(options, name, len, &ambiguous);
    if (opt && name[len] == '=' && opt->has_arg == no_argument) {
        fprintf(stderr, _("%s: --%s takes no value  (%s --help lists the options)\n"), cmd, opt->name, cmd);
    } else if (opt) {
        fprintf(stderr, _("%s: --%s needs a value  (%s --help lists the options)\n"), cmd, opt->name, cmd);
    } else if (ambiguous) {
        char names[1024] = "";
        for (const struct option *o = options; o->name; o++)
            if (!strncmp(o->name, name, len))
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s--%s", *names ? ", " : "", o->name);
        /* TRANSLATORS: "--s" of audit could be --sysroot or --sample: the last %s lists them. */
        fprintf(stderr, _("%s: --%.*s is ambiguous: %s\n"), cmd, (int)len, name, names);
    } else {
        const char *all[128];
        size_t count = 0;
        for (const struct option *o = options; o->name && count < 128; o++)
            all[count++] = o->name;
        char typed[128];
        snprintf(typed, sizeof typed, "%.*s", (int)len, name);
        const char *suggestion = closest_name(typed, all, count);
        if (suggestion)
            fprintf(stderr, _("%s: unknown option --%s; did you mean --%s?  (%s --help lists the options)\n"), cmd,
                    typed, suggestion, cmd);
        else
            fprintf(stderr, _("%s: unknown option --%s  (%s --help lists the options)\n"), cmd, typed, cmd);
    }
    return EXIT_CANNOT_RUN;
}

const char kernel_log_help[] =
    N_("a saved kernel log (dmesg, dmesg -T, journalctl -k, a syslog file) instead of the live one (/dev/kmsg, or "
       "a snapshot's): its GPU and PCIe errors since the last boot in it (GPU_XID_ERRORS, GPU_LOST, "
       "PCIE_AER_ERRORS)");
const char expect_gpus_help[] =
    N_("the node should show N accelerators: fewer is GPU_LOST (audit's default: --claim's gpus.count)");
const char xid_fatal_help[] = N_("Xid codes (48,79) judged as faults, whatever NVIDIA's catalogue (data/xid-codes.csv) says");
const char xid_ignore_help[] = N_("Xid codes (48,79) ignored, whatever NVIDIA's catalogue says");
const char sysroot_help[] = N_("a recorded machine (DIR/sys, DIR/proc; a `gpuvet snapshot` or an "
                               "hwloc-gather-topology tree) instead of this one");
const char nvidia_smi_help[] =
    N_("read the GPUs from `nvidia-smi -q -x` output or `nvidia-smi -q` text, not from NVML; again for the same "
       "machine's `nvidia-smi nvlink -s` and `-e` text (NVLink state, error counters), each file known by its "
       "content");
const char workload_help[] =
    N_("what the machine is judged for: general, cv-train, llm-train, llm-infer, render or hpc (default %s)");
const char prom_help[] = N_("also write the findings in node_exporter's textfile format to FILE, atomically");

enum opt_result xid_list_option(const char *cmd, const struct opt *row, const char *value)
{
    if (xid_list_parse(value, row->value))
        return OPT_TAKEN;
    option_invalid(cmd, row->name, value, N_("a comma-separated list of Xid codes from 0 to 1023, such as 48,79"));
    return OPT_BAD;
}

enum opt_result nvidia_smi_row(const char *cmd, const struct opt *row, const char *value)
{
    return nvidia_smi_option(cmd, value, row->value) ? OPT_TAKEN : OPT_BAD;
}

enum opt_result fx_row(const char *cmd, const struct opt *row, const char *value)
{
    return fx_add(row->value, value) || option_invalid(cmd, row->name, value, fx_hint) ? OPT_TAKEN : OPT_BAD;
}

enum opt_result workload_row(const char *cmd, const struct opt *row, const char *value)
{
    if (workload_parse(value, row->value))
        return OPT_TAKEN;
    option_invalid(cmd, row->name, value, workload_names_hint);
    return OPT_BAD;
}

bool gpu_fault_options_apply(const char *cmd, const struct gpu_fault_options *o)
{
    for (int i = 0; i < XID_SET_BYTES; i++)
        if (o->xid.fatal[i] & o->xid.ignore[i]) {
            int code = i * 8;
            while (!((o->xid.fatal[i] & o->xid.ignore[i]) >> (code % 8) & 1))
                code++;
            print_error(cmd, _("Xid %d is in both --xid-fatal and --xid-ignore"), code);
            return false;
        }
    char why[256];
    /* A FIFO or device named as the log is refused before a byte is read; its size is not bounded here
     * (a 1 GB syslog is streamed). */
    if (o->kernel_log && !input_file_check(o->kernel_log, INPUT_FILE_STREAMED, why, sizeof why)) {
        print_error(cmd, _("%s: %s"), o->kernel_log, _(why));
        return false;
    }
    return true;
}

bool nvidia_smi_option(const char *cmd, const char *value, struct audit_request *req)
{
    if (req->n_nvidia_smi == NVIDIA_SMI_MAX_FILES) {
        print_error(cmd, _("--nvidia-smi: at most %d files"), NVIDIA_SMI_MAX_FILES);
        return false;
    }
    req->nvidia_smi[req->n_nvidia_smi++] = value;
    return true;
}

bool evidence_files_check(const char *cmd, const struct audit_request *req)
{
    const char *named[4 + NVIDIA_SMI_MAX_FILES] = {req->dmidecode, req->dmi_table, req->claim_file};
    int n = 3;
    for (int i = 0; i < req->n_nvidia_smi; i++)
        named[n++] = req->nvidia_smi[i];
    named[n++] = req->bench_file;
    for (int i = 0; i < n; i++) {
        char why[256];
        if (named[i] && !input_file_check(named[i], INPUT_FILE_LIMIT, why, sizeof why)) {
            print_error(cmd, _("%s: %s"), named[i], _(why));
            return false;
        }
    }
    return true;
}
