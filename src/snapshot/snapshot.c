/* Records every file an audit reads (plus hwloc's topology export) into a folder that
 * `gpuvet audit --sysroot DIR` replays on any machine. */
#include "snapshot/snapshot.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

#include "pipeline/audit.h"
#include "util/child.h"
#include "util/deadline.h"
#include "util/fsrecord.h"
#include "util/fsroot.h"
#include "util/inputfile.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/redact_tree.h"
#include "util/ustar.h"

/* Takes line (malloc'd) into r->problems. Without memory it is lost; the snapshot fails all the same. */
static void keep_line(struct snapshot_result *r, char *line)
{
    char **grown = line ? realloc(r->problems, (size_t)(r->nproblems + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(line);
        return;
    }
    r->problems = grown;
    r->problems[r->nproblems++] = line;
}

/* Keeps one "gpuvet snapshot: ..." line for stderr (util/output.c builds the prefix). */
static void problem(struct snapshot_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct snapshot_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    keep_line(r, error_vline("snapshot", fmt, ap));
    va_end(ap);
}

/* Keeps a line that continues the problem before it, as it is (fmt ends in a newline). */
static void problem_detail(struct snapshot_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem_detail(struct snapshot_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    if (vasprintf(&line, fmt, ap) < 0)
        line = NULL;
    va_end(ap);
    keep_line(r, line);
}

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
static int record_nvidia_smi(const char *dir, struct snapshot_result *r)
{
    char *tool = find_in_path("nvidia-smi");
    if (!tool)
        return 0;
    char path[4096], why[512] = "";
    snprintf(path, sizeof path, "%s%s", dir, NVIDIA_SMI_SNAPSHOT_FILE);
    char *argv[] = {tool, "-q", "-x", NULL};
    double limit = deadline_seconds("GPUVET_DEADLINE_CHILD_S", DEADLINE_CHILD_S);
    int status = child_run_bounded(argv, path, INPUT_FILE_LIMIT, limit, why, sizeof why);
    struct stat st;
    if (status == CHILD_TIMED_OUT)
        problem(r, _("no answer from `%s -q -x` in %g s (a hung driver?): GPU facts not recorded"), tool, limit);
    else if (status < 0)
        problem(r, _("%s: GPU facts not recorded"), why);
    else if (status != 0 || stat(path, &st) != 0 || st.st_size == 0)
        problem(r, _("`%s -q -x` failed (status %d): GPU facts not recorded"), tool, status);
    bool failed = status != 0 || stat(path, &st) != 0 || st.st_size == 0;
    if (failed)
        unlink(path);
    free(tool);
    return failed ? -1 : 0;
}

/* A tree missing files would replay as if whole: every file, folder or link not stored is listed
 * and the snapshot fails. */
static int check_complete(const char *dir, struct snapshot_result *r)
{
    const char *const *lines;
    int listed;
    int failed = fsroot_record_failures(&lines, &listed);
    if (failed == 0)
        return 0;
    problem(r, _("%s is incomplete: %d file%s, folder%s or link%s not stored:"), dir, failed,
            failed == 1 ? "" : "s", failed == 1 ? "" : "s", failed == 1 ? "" : "s");
    for (int i = 0; i < listed; i++)
        problem_detail(r, "  %s\n", lines[i] ? lines[i] : _("(out of memory for the name)"));
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

/* Records the machine into dir (an existing empty folder); 0 or -1. */
static int record(const char *dir, const char *sysroot, bool redact, struct snapshot_result *r)
{
    fsroot_record_to(dir);
    /* What an audit of the same tree reads (pipeline/audit.h), recorded as it is read. */
    struct audit_request req = {.sysroot = sysroot, .depth = AUDIT_MACHINE};
    struct audit_result audit;
    const struct machine *m = &audit.machine;
    int status = 0;
    if (audit_run(&req, &audit) != AUDIT_DONE) {
        problem(r, _("%s: nothing to record"), fsroot_get());
        status = -1;
    } else {
        char xml[4096];
        snprintf(xml, sizeof xml, "%s/gpuvet-hwloc.xml", dir);
        if (m->topology && hwloc_topology_export_xml(m->topology, xml, 0) != 0) {
            problem(r, _("could not write %s"), xml);
            status = -1;
        }
        /* A recorded tree's nvidia-smi.xml was copied when the probe read it. */
        if (fsroot_is_live() && record_nvidia_smi(dir, r) != 0)
            status = -1;
        if (write_metadata(dir, m) != 0) {
            problem(r, _("could not write %s/gpuvet-snapshot.json"), dir);
            status = -1;
        }
        if (check_complete(dir, r) != 0)
            status = -1;
    }
    fsroot_record_to(NULL);
    if (status == 0 && redact) {
        /* What the probe saw is removed too, wherever a recorded file repeats it. */
        const char **literals = calloc((size_t)(1 + 2 * m->gpus.count + m->kernel_log.nserials), sizeof *literals);
        int n = 0;
        literals[n++] = m->hostname;
        for (int i = 0; i < m->gpus.count; i++) {
            literals[n++] = m->gpus.items[i].serial;
            literals[n++] = m->gpus.items[i].uuid;
        }
        /* The recorded kernel log names boards by serial, lost GPUs' too. */
        for (int i = 0; i < m->kernel_log.nserials; i++)
            literals[n++] = m->kernel_log.serials[i];
        char err[512];
        if (redact_tree(dir, literals, n, err, sizeof err) != 0) {
            problem(r, _("--redact: %s"), err);
            status = -1;
        }
        free(literals);
    }
    if (status == 0) {
        r->recorded = true;
        r->source = strdup(m->source ? m->source : "machine");
    }
    audit_result_free(&audit);
    return status;
}

int snapshot_take(const struct snapshot_request *req, struct snapshot_result *out)
{
    *out = (struct snapshot_result){0};
    char *abs_dir = NULL;
    if (req->tar) {
        /* The tree is recorded into a private temporary folder, packed, then removed. */
        const char *tmp = getenv("TMPDIR");
        if (asprintf(&abs_dir, "%s/gpuvet-snapshot-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 || !mkdtemp(abs_dir)) {
            problem(out, _("temporary folder: %s"), i18n_error_text(errno));
            free(abs_dir);
            return -1;
        }
    } else {
        if (mkdir(req->dir, 0755) != 0) {
            problem(out, _("%s: %s (give a new folder)"), req->dir, i18n_error_text(errno));
            return -1;
        }
        abs_dir = realpath(req->dir, NULL);
    }
    int status = record(abs_dir, req->sysroot, req->redact, out);
    if (req->tar) {
        char err[512];
        tar_top_name(req->tar, out->tar_top, sizeof out->tar_top);
        if (status == 0 && ustar_write_tree(abs_dir, out->tar_top, req->tar, err, sizeof err) != 0) {
            problem(out, "%s", err);
            status = -1;
        }
        nftw(abs_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(abs_dir);
    return status;
}

void snapshot_result_free(struct snapshot_result *r)
{
    for (int i = 0; i < r->nproblems; i++)
        free(r->problems[i]);
    free(r->problems);
    free(r->source);
    *r = (struct snapshot_result){0};
}
