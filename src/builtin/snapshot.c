/* gpuvet snapshot: the options, then snapshot/snapshot.c records and report/snapshot_text.c says
 * what it did. */
#include <getopt.h>
#include <stdio.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "report/snapshot_text.h"
#include "snapshot/snapshot.h"
#include "util/i18n.h"
#include "util/output.h"

static const char usage[] =
     N_("usage: gpuvet snapshot [--sysroot SRC] [--redact] DIR\n"
    "       gpuvet snapshot [--sysroot SRC] [--redact] --tar FILE\n"
    "\n"
    "Records what `gpuvet audit` reads of this machine (or of the recorded tree SRC) into DIR, a new\n"
    "folder; then `gpuvet audit --sysroot DIR` audits it anywhere. Run as root to include what only\n"
    "root may read. When nvidia-smi is on PATH, its `-q -x` output is stored as DIR/nvidia-smi.xml\n"
    "(the GPU facts of the snapshot).\n"
    "\n"
    "  --tar FILE  write the recorded tree as one tar archive (its folder is FILE's name without .tar)\n"
    "  --redact    remove host names, serial numbers, UUIDs, MAC and IP addresses and the kernel command\n"
    "              line from the recorded files: safe to send to a provider\n");

int cmd_snapshot(int argc, char **argv)
{
    static const struct option options[] = {{"sysroot", required_argument, NULL, 's'},
                                            {"tar", required_argument, NULL, 't'},
                                            {"redact", no_argument, NULL, 'R'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *sysroot = NULL, *tar = NULL;
    bool redact = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:h", options, NULL)) != -1) {
        if (c == 's') {
            sysroot = optarg;
        } else if (c == 't') {
            tar = optarg;
        } else if (c == 'R') {
            redact = true;
        } else if (c == 'h') {
            print_help(stdout, _(usage));
            return 0;
        } else {
            return option_error(options, argv);
        }
    }
    if (optind + (tar ? 0 : 1) != argc) {
        if (optind == argc)
            print_error("snapshot", _("give a new folder to record into, or --tar FILE"));
        else
            print_error("snapshot", _("unexpected argument '%s'"), argv[tar ? optind : optind + 1]);
        print_help(stderr, _(usage));
        return EXIT_CANNOT_RUN;
    }
    struct snapshot_request req = {.sysroot = sysroot, .dir = tar ? NULL : argv[optind], .tar = tar, .redact = redact};
    struct snapshot_result result;
    int status = snapshot_take(&req, &result);
    snapshot_report_text(stdout, stderr, &req, &result, status == 0);
    snapshot_result_free(&result);
    return status == 0 ? 0 : EXIT_CANNOT_RUN;
}
