/* Recorded trees that try to make the audit leave them, hang or crash: a symlink out of a copy of
 * a real fixture, a FIFO, a loop, an unreadable file, an oversized file, a snapshot that cannot
 * be written whole. Crafted hostile inputs around real recorded machines. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"

static char *tree_path(const char *root, const char *rel)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/%s", root, rel) > 0);
    return p;
}

static void replace_with_link(const char *root, const char *rel, const char *target)
{
    char *p = tree_path(root, rel), cmd[8192];
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\" && rm -rf '%s' && ln -s '%s' '%s'", p, p, target, p);
    cr_assert_eq(system(cmd), 0);
    free(p);
}

static json_t *problems_of(json_t *doc)
{
    return json_object_get(json_object_get(doc, "machine"), "problems");
}

/* The first problem message mentioning needle, or NULL. */
static const char *problem_with(json_t *doc, const char *needle)
{
    size_t i;
    json_t *p;
    json_array_foreach(problems_of(doc), i, p) {
        const char *msg = json_string_value(json_object_get(p, "message"));
        if (msg && strstr(msg, needle))
            return msg;
    }
    return NULL;
}

static json_t *audit_tree(const char *root, int *status)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", root, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    if (status)
        *status = r.status;
    run_result_free(&r);
    return doc;
}

Test(hostile_tree, absolute_and_dotdot_links_do_not_read_this_host)
{
    char *root = fixture_copy(INTEL);
    /* This host's CPU folder and cpuinfo, reached by an absolute link and by climbing out. */
    replace_with_link(root, "sys/devices/system/cpu", "/sys/devices/system/cpu");
    replace_with_link(root, "proc/cpuinfo", "../../../../../../../../../../proc/cpuinfo");
    replace_with_link(root, "proc/sys/kernel/hostname", "/etc/hostname");
    json_t *doc = audit_tree(root, NULL);
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    /* The recorded machine is an Intel box; nothing of this host may appear instead. */
    const char *model = json_string_value(json_object_get(cpu, "model"));
    cr_assert(model == NULL || strstr(model, "Intel"), "host CPU leaked: %s", model);
    cr_assert(json_is_null(json_object_get(cpu, "threads")), "threads came from somewhere: %lld",
              (long long)json_integer_value(json_object_get(cpu, "threads")));
    cr_assert_not_null(problem_with(doc, "hwloc is not given this tree"), "hwloc was handed a leaking tree");
    char host[256] = "";
    FILE *f = fopen("/etc/hostname", "r");
    if (f && fgets(host, sizeof host, f))
        host[strcspn(host, "\n")] = '\0';
    if (f)
        fclose(f);
    const char *hostname = json_string_value(json_object_get(json_object_get(doc, "machine"), "hostname"));
    cr_assert(!hostname || !*host || strcmp(hostname, host), "this host's name leaked: %s", hostname);
    json_decref(doc);
    tree_remove(root);
    free(root);
}

Test(hostile_tree, a_link_inside_the_tree_is_followed_inside_it)
{
    char *root = fixture_copy(INTEL);
    /* An absolute link that names the tree's own file is re-rooted, as chroot would. */
    char *moved = tree_path(root, "proc/cpuinfo.real"), *orig = tree_path(root, "proc/cpuinfo");
    cr_assert_eq(rename(orig, moved), 0);
    cr_assert_eq(symlink("/proc/cpuinfo.real", orig), 0);
    json_t *doc = audit_tree(root, NULL);
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    cr_assert_not_null(json_string_value(json_object_get(cpu, "model")), "the re-rooted cpuinfo was not read");
    cr_assert(strstr(json_string_value(json_object_get(cpu, "model")), "Intel"));
    json_decref(doc);
    free(moved);
    free(orig);
    tree_remove(root);
    free(root);
}

Test(hostile_tree, a_fifo_is_reported_not_waited_on)
{
    char *root = fixture_copy(INTEL);
    char *p = tree_path(root, "proc/cpuinfo");
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(mkfifo(p, 0644), 0);
    json_t *doc = audit_tree(root, NULL);
    cr_assert_not_null(problem_with(doc, "/proc/cpuinfo is not a regular file"));
    json_decref(doc);
    free(p);
    tree_remove(root);
    free(root);
}

Test(hostile_tree, an_oversized_file_is_called_oversized)
{
    char *root = fixture_copy(INTEL);
    char *p = tree_path(root, "proc/cpuinfo");
    tree_own(root, "proc/cpuinfo");
    cr_assert_eq(truncate(p, 17 << 20), 0); /* sparse: 17 MiB, over the 16 MiB read cap */
    json_t *doc = audit_tree(root, NULL);
    cr_assert_not_null(problem_with(doc, "/proc/cpuinfo is oversized"));
    cr_assert_null(problem_with(doc, "/proc/cpuinfo: not in the recorded tree"));
    json_decref(doc);
    free(p);
    tree_remove(root);
    free(root);
}

/* Runs a shell script with $GPUVET set; returns its exit status, stderr in *err. */
static int run_sh(const char *script, char **err)
{
    char err_path[] = "/tmp/gpuvet-test-shXXXXXX";
    int fd = mkstemp(err_path);
    cr_assert(fd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(fd, 2);
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 1);
        setenv("GPUVET", GPUVET_BIN, 1);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    FILE *f = fdopen(fd, "r");
    rewind(f);
    size_t cap = 65536;
    *err = calloc(1, cap);
    size_t n = fread(*err, 1, cap - 1, f);
    (*err)[n] = '\0';
    fclose(f);
    unlink(err_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Test(hostile_tree, an_unreadable_file_is_called_unreadable)
{
    char *root = fixture_copy(INTEL);
    char *p = tree_path(root, "proc/cpuinfo");
    tree_own(root, "proc/cpuinfo");
    cr_assert_eq(chmod(p, 0), 0);
    cr_assert_eq(chmod(root, 0755), 0);
    /* Root reads anything: run the audit as nobody (65534) then, as a user would be. */
    char script[8192], *err;
    snprintf(script, sizeof script,
             "if [ \"$(id -u)\" = 0 ]; then exec setpriv --reuid=65534 --regid=65534 --clear-groups "
             "\"$GPUVET\" audit --json --sysroot '%s'; else exec \"$GPUVET\" audit --json --sysroot '%s'; fi",
             root, root);
    int status = run_sh(script, &err);
    cr_assert(status == 0 || status == 1, "exit %d: %s", status, err);
    cr_assert(strstr(err, "/proc/cpuinfo is not readable (permission denied)"), "stderr: %s", err);
    free(err);
    free(p);
    tree_remove(root);
    free(root);
}

Test(hostile_tree, a_self_link_does_not_crash_snapshot)
{
    char *root = fixture_copy(INTEL);
    char *cls = tree_path(root, "sys/class"), cmd[8192];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && ln -sfn /sys/class/block '%s/block'", cls, cls);
    cr_assert_eq(system(cmd), 0);
    char out[] = "/tmp/gpuvet-snapXXXXXX";
    cr_assert_not_null(mkdtemp(out));
    char *dst = tree_path(out, "copy");
    struct run_result r = run_gpuvet("snapshot", "--sysroot", root, dst, NULL);
    cr_assert_eq(r.status, 0, "exit %d; stderr: %s", r.status, r.err);
    run_result_free(&r);
    free(dst);
    free(cls);
    tree_remove(out);
    tree_remove(root);
    free(root);
}

Test(hostile_tree, a_snapshot_that_cannot_store_everything_fails_with_the_list)
{
    char out[] = "/tmp/gpuvet-snapXXXXXX";
    cr_assert_not_null(mkdtemp(out));
    /* A file-size limit stands in for a full disk (root ignores permissions, not this). */
    char script[8192], *err;
    snprintf(script, sizeof script, "trap '' XFSZ; ulimit -f 2; exec \"$GPUVET\" snapshot --sysroot '%s' '%s/copy'",
             fixture(INTEL), out);
    int status = run_sh(script, &err);
    cr_assert_eq(status, 2, "exit %d: %s", status, err);
    cr_assert(strstr(err, "is incomplete"), "stderr: %s", err);
    cr_assert(strstr(err, "/proc/cpuinfo: cannot write"), "stderr: %s", err);
    free(err);
    tree_remove(out);
}
