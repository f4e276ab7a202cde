/* Records every file an audit reads (plus hwloc's topology export) into a folder that
 * `gpuvet audit --sysroot DIR` replays on any machine. */
#include <errno.h>
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
#include "util/fsroot.h"

static const char usage[] =
    "usage: gpuvet snapshot [--sysroot SRC] DIR\n"
    "\n"
    "Records what `gpuvet audit` reads of this machine (or of the recorded tree SRC) into DIR, a new\n"
    "folder; then `gpuvet audit --sysroot DIR` audits it anywhere. Run as root to include what only\n"
    "root may read. When nvidia-smi is on PATH, its `-q -x` output is stored as DIR/nvidia-smi.xml\n"
    "(the GPU facts of the snapshot).\n";

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
 * A missing nvidia-smi is normal (no NVIDIA driver); a failing one is reported. */
static void record_nvidia_smi(const char *dir)
{
    char *tool = find_in_path("nvidia-smi");
    if (!tool)
        return;
    char cmd[4200], path[4096];
    snprintf(cmd, sizeof cmd, "'%s' -q -x", tool);
    snprintf(path, sizeof path, "%s%s", dir, NVIDIA_SMI_SNAPSHOT_FILE);
    FILE *in = popen(cmd, "r"), *out = in ? fopen(path, "w") : NULL;
    char buf[65536];
    size_t n, total = 0;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        total += fwrite(buf, 1, n, out);
    int status = in ? pclose(in) : -1;
    if (out)
        fclose(out);
    if (status != 0 || total == 0) {
        fprintf(stderr, "gpuvet snapshot: `%s -q -x` failed (status %d): GPU facts not recorded\n", tool, status);
        unlink(path);
    }
    free(tool);
}

int cmd_snapshot(int argc, char **argv)
{
    static const struct option options[] = {
        {"sysroot", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *sysroot = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:h", options, NULL)) != -1) {
        if (c == 's') {
            sysroot = optarg;
        } else if (c == 'h') {
            fputs(usage, stdout);
            return 0;
        } else {
            return option_error(options, argv);
        }
    }
    if (optind + 1 != argc) {
        fputs(usage, stderr);
        return EXIT_CANNOT_RUN;
    }
    const char *dir = argv[optind];
    if (mkdir(dir, 0755) != 0) {
        fprintf(stderr, "gpuvet snapshot: %s: %s (give a new folder)\n", dir, strerror(errno));
        return EXIT_CANNOT_RUN;
    }
    char *abs_dir = realpath(dir, NULL);
    fsroot_set(sysroot);
    fsroot_record_to(abs_dir);
    struct machine m;
    machine_init(&m);
    int status = 0;
    if (probe_machine(&m, true) != 0) {
        fprintf(stderr, "gpuvet snapshot: %s: nothing to record\n", fsroot_get());
        status = EXIT_CANNOT_RUN;
    } else {
        char xml[4096];
        snprintf(xml, sizeof xml, "%s/gpuvet-hwloc.xml", abs_dir);
        if (m.topology && hwloc_topology_export_xml(m.topology, xml, 0) != 0)
            fprintf(stderr, "gpuvet snapshot: could not write %s\n", xml);
        /* A recorded tree's nvidia-smi.xml was copied when the probe read it. */
        if (fsroot_is_live())
            record_nvidia_smi(abs_dir);
        if (write_metadata(abs_dir, &m) != 0)
            status = EXIT_CANNOT_RUN;
        else
            printf("recorded %s into %s\nreplay with: gpuvet audit --sysroot %s\n", m.source ? m.source : "machine",
                   dir, dir);
    }
    fsroot_record_to(NULL);
    machine_free(&m);
    free(abs_dir);
    return status;
}
