/* Records every file an audit reads (plus hwloc's topology export) into a folder that
 * `gpuvet audit --sysroot DIR` replays on any machine. */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

#include "builtin/builtin.h"
#include "probe/probe.h"
#include "rules/rule.h"
#include "util/child.h"
#include "util/deadline.h"
#include "util/fsroot.h"
#include "util/redact_tree.h"
#include "util/ustar.h"
#include "util/i18n.h"

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

static int write_metadata(const char *dir, const struct machine *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/gpuvet-snapshot.json", dir);
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *meta = json_pack("{s:s, s:s, s:s, s:s?}", "schema", "gpuvet.snapshot/1", "gpuvet_version", GPUVET_VERSION,
                             "recorded_at", when, "source", m->source);
    int rc = json_dump_file(meta, path, JSON_INDENT(2));
    json_decref(meta);
    return rc;
}

/* nvidia-smi on PATH, or NULL. */
static char *find_in_path(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path ? path : "/usr/bin:/bin"), *save = NULL, *found = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char candidate[4096];
        snprintf(candidate, sizeof candidate, "%s/%s", dir, name);
        if (access(candidate, X_OK) == 0)
            found = strdup(candidate);
    }
    free(copy);
    return found;
}

/* Stores `nvidia-smi -q -x` as DIR/nvidia-smi.xml (what audit --sysroot DIR reads for the GPUs).
 * A missing nvidia-smi is normal (no NVIDIA driver): 0; a failing or hung one is reported: -1. */
static int record_nvidia_smi(const char *dir)
{
    char *tool = find_in_path("nvidia-smi");
    if (!tool)
        return 0;
    char path[4096], why[512] = "";
    snprintf(path, sizeof path, "%s%s", dir, NVIDIA_SMI_SNAPSHOT_FILE);
    char *argv[] = {tool, "-q", "-x", NULL};
    double limit = deadline_seconds("GPUVET_DEADLINE_CHILD_S", DEADLINE_CHILD_S);
    int status = child_run_bounded(argv, path, FS_INPUT_LIMIT, limit, why, sizeof why);
    struct stat st;
    if (status == CHILD_TIMED_OUT)
        fprintf(stderr, _("gpuvet snapshot: no answer from `%s -q -x` in %g s (a hung driver?): GPU facts not recorded\n"),
                tool, limit);
    else if (status < 0)
        fprintf(stderr, _("gpuvet snapshot: %s: GPU facts not recorded\n"), why);
    else if (status != 0 || stat(path, &st) != 0 || st.st_size == 0)
        fprintf(stderr, _("gpuvet snapshot: `%s -q -x` failed (status %d): GPU facts not recorded\n"), tool, status);
    bool failed = status != 0 || stat(path, &st) != 0 || st.st_size == 0;
    if (failed)
        unlink(path);
    free(tool);
    return failed ? -1 : 0;
}

/* A tree missing files would replay as if whole: every file, folder or link not stored is listed
 * and the snapshot fails. */
static int report_incomplete(const char *dir)
{
    const char *const *lines;
    int listed;
    int failed = fsroot_record_failures(&lines, &listed);
    if (failed == 0)
        return 0;
    fprintf(stderr, _("gpuvet snapshot: %s is incomplete: %d file%s, folder%s or link%s not stored:\n"), dir, failed,
            failed == 1 ? "" : "s", failed == 1 ? "" : "s", failed == 1 ? "" : "s");
    for (int i = 0; i < listed; i++)
        fprintf(stderr, "  %s\n", lines[i] ? lines[i] : _("(out of memory for the name)"));
    fsroot_record_failures_clear();
    return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* The archive's top folder: FILE's base name without ".tar". */
static void tar_top_name(const char *file, char *out, size_t n)
{
    const char *base = strrchr(file, '/');
    snprintf(out, n, "%s", base ? base + 1 : file);
    size_t len = strlen(out);
    if (len > 4 && !strcmp(out + len - 4, ".tar"))
        out[len - 4] = '\0';
    if (!*out)
        snprintf(out, n, "gpuvet-snapshot");
}

/* Records the machine into dir (an existing empty folder); 0 or EXIT_CANNOT_RUN. */
static int record(const char *dir, const char *sysroot, bool redact)
{
    fsroot_set(sysroot);
    fsroot_record_to(dir);
    struct machine m;
    machine_init(&m);
    int status = 0;
    if (probe_machine(&m, true) != 0) {
        fprintf(stderr, _("gpuvet snapshot: %s: nothing to record\n"), fsroot_get());
        status = EXIT_CANNOT_RUN;
    } else {
        char xml[4096];
        snprintf(xml, sizeof xml, "%s/gpuvet-hwloc.xml", dir);
        if (m.topology && hwloc_topology_export_xml(m.topology, xml, 0) != 0) {
            fprintf(stderr, _("gpuvet snapshot: could not write %s\n"), xml);
            status = EXIT_CANNOT_RUN;
        }
        /* A recorded tree's nvidia-smi.xml was copied when the probe read it. */
        if (fsroot_is_live() && record_nvidia_smi(dir) != 0)
            status = EXIT_CANNOT_RUN;
        if (write_metadata(dir, &m) != 0) {
            fprintf(stderr, _("gpuvet snapshot: could not write %s/gpuvet-snapshot.json\n"), dir);
            status = EXIT_CANNOT_RUN;
        }
        if (report_incomplete(dir) != 0)
            status = EXIT_CANNOT_RUN;
    }
    fsroot_record_to(NULL);
    if (status == 0 && redact) {
        /* What the probe saw is removed too, wherever a recorded file repeats it. */
        const char **literals = calloc((size_t)(1 + 2 * m.gpus.count), sizeof *literals);
        int n = 0;
        literals[n++] = m.hostname;
        for (int i = 0; i < m.gpus.count; i++) {
            literals[n++] = m.gpus.items[i].serial;
            literals[n++] = m.gpus.items[i].uuid;
        }
        char err[512];
        if (redact_tree(dir, literals, n, err, sizeof err) != 0) {
            fprintf(stderr, _("gpuvet snapshot: --redact: %s\n"), err);
            status = EXIT_CANNOT_RUN;
        }
        free(literals);
    }
    if (status == 0)
        printf(_("recorded %s%s\n"), m.source ? m.source : "machine", redact ? _(", redacted") : "");
    machine_free(&m);
    return status;
}

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
            fputs(_(usage), stdout);
            return 0;
        } else {
            return option_error(options, argv);
        }
    }
    if (optind + (tar ? 0 : 1) != argc) {
        fputs(_(usage), stderr);
        return EXIT_CANNOT_RUN;
    }
    char *abs_dir = NULL;
    if (tar) {
        /* The tree is recorded into a private temporary folder, packed, then removed. */
        const char *tmp = getenv("TMPDIR");
        if (asprintf(&abs_dir, "%s/gpuvet-snapshot-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 || !mkdtemp(abs_dir)) {
            fprintf(stderr, _("gpuvet snapshot: temporary folder: %s\n"), strerror(errno));
            free(abs_dir);
            return EXIT_CANNOT_RUN;
        }
    } else {
        const char *dir = argv[optind];
        if (mkdir(dir, 0755) != 0) {
            fprintf(stderr, _("gpuvet snapshot: %s: %s (give a new folder)\n"), dir, strerror(errno));
            return EXIT_CANNOT_RUN;
        }
        abs_dir = realpath(dir, NULL);
    }
    int status = record(abs_dir, sysroot, redact);
    if (tar) {
        char top[256], err[512];
        tar_top_name(tar, top, sizeof top);
        if (status == 0 && ustar_write_tree(abs_dir, top, tar, err, sizeof err) != 0) {
            fprintf(stderr, _("gpuvet snapshot: %s\n"), err);
            status = EXIT_CANNOT_RUN;
        }
        nftw(abs_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (status == 0)
            printf(_("wrote %s\nreplay with: tar -xf %s && gpuvet audit --sysroot %s\n"), tar, tar, top);
    } else if (status == 0) {
        printf(_("into %s\nreplay with: gpuvet audit --sysroot %s\n"), argv[optind], argv[optind]);
    }
    free(abs_dir);
    return status;
}
