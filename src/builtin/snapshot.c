/* Records every file an audit reads (plus hwloc's topology export) into a folder that
 * `gpuvet audit --sysroot DIR` replays on any machine. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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
    "root may read.\n";

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
        } else {
            fputs(usage, c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : EXIT_CANNOT_RUN;
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
