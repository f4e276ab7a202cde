/* gpuvet snapshot: the options, then snapshot/snapshot.c records and report/snapshot_text.c says
 * what it did. */
#include <getopt.h>
#include <stdio.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "report/snapshot_text.h"
#include "snapshot/snapshot.h"
#include "util/i18n.h"
#include "util/output.h"

static const struct opt_command snapshot_command_help = {
    .name = "snapshot",
    .usage = N_("usage: gpuvet snapshot [--sysroot SRC] [--redact] DIR\n"
                "       gpuvet snapshot [--sysroot SRC] [--redact] --tar FILE\n"
                "\n"
                "Records what `gpuvet audit` reads of this machine (or of the recorded tree SRC) into DIR, a new "
                "folder; then `gpuvet audit --sysroot DIR` audits it anywhere. Run as root to include what only "
                "root may read. When nvidia-smi is on PATH, its `-q -x` output is stored as DIR/nvidia-smi.xml "
                "(the GPU facts of the snapshot).\n"
                "\n"),
};

int cmd_snapshot(int argc, char **argv)
{
    const char *sysroot = NULL, *tar = NULL;
    bool redact = false;
    struct opt table[] = {
        OPT_DIR("sysroot", 's', &sysroot, "SRC", N_("record this recorded tree instead of this machine")),
        OPT_FILE("tar", 0, &tar, "FILE",
                 N_("write the recorded tree as one tar archive (its folder is FILE's name without .tar)")),
        OPT_FLAG("redact", 0, &redact,
                 N_("remove host names, serial numbers, UUIDs, MAC and IP addresses and the kernel command line from "
                    "the recorded files: safe to send to a provider")),
        OPT_END(),
    };
    int parsed = opt_parse(&snapshot_command_help, table, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (optind + (tar ? 0 : 1) != argc) {
        if (optind == argc)
            print_error("snapshot", _("give a new folder to record into, or --tar FILE"));
        else
            print_error("snapshot", _("unexpected argument '%s'"), argv[tar ? optind : optind + 1]);
        opt_usage(stderr, &snapshot_command_help, table);
        return EXIT_CANNOT_RUN;
    }
    struct snapshot_request req = {.sysroot = sysroot, .dir = tar ? NULL : argv[optind], .tar = tar, .redact = redact};
    struct snapshot_result result;
    int status = snapshot_take(&req, &result);
    snapshot_report_text(stdout, stderr, &req, &result, status == 0);
    snapshot_result_free(&result);
    return status == 0 ? 0 : EXIT_CANNOT_RUN;
}
