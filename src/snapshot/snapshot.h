/* `gpuvet snapshot`: records every file an audit reads (plus hwloc's topology export and
 * `nvidia-smi -q -x`) into a new folder or a tar archive that `gpuvet audit --sysroot` replays on
 * any machine. What went wrong is kept as lines for stderr; report/snapshot_text.c prints them. */
#ifndef GPUVET_SNAPSHOT_SNAPSHOT_H
#define GPUVET_SNAPSHOT_SNAPSHOT_H

#include <stdbool.h>

struct snapshot_request {
    const char *sysroot; /* a recorded tree to copy; NULL: this machine */
    const char *dir;     /* the new folder to record into (without tar) */
    const char *tar;     /* write one tar archive instead of a folder; NULL: dir */
    bool redact;         /* remove host names, serials, UUIDs, addresses (util/redact_tree.c) */
};

struct snapshot_result {
    bool recorded;    /* the tree was recorded whole (before packing it, with tar) */
    char *source;     /* what was recorded: the probe's source name, or "machine" */
    char tar_top[256]; /* tar: the archive's top folder, the --sysroot of its replay */
    char **problems;  /* lines for stderr, translated, each ending in a newline */
    int nproblems;
};

/* Records req into a new folder (or a temporary one packed into req->tar and removed). 0 when the
 * snapshot is whole and written, else -1 with the reasons in out->problems. Free out either way. */
int snapshot_take(const struct snapshot_request *req, struct snapshot_result *out);
void snapshot_result_free(struct snapshot_result *r);

#endif
