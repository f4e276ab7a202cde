#include "slurm/slurm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "util/i18n.h"
#include "util/sanitize.h"

int slurm_find_scontrol(const char *given, char *out, size_t outlen, char *err, size_t errlen)
{
    if (given) {
        if (access(given, X_OK) != 0) {
            snprintf(err, errlen, "--scontrol %s: %s", given, i18n_error_text(errno));
            return -1;
        }
        snprintf(out, outlen, "%s", given);
        return 0;
    }
    /* Absolute places first: slurmd runs HealthCheckProgram with almost no environment. */
    static const char *const fixed[] = {"/usr/bin/scontrol", "/usr/local/bin/scontrol"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (access(fixed[i], X_OK) == 0) {
            snprintf(out, outlen, "%s", fixed[i]);
            return 0;
        }
    const char *path = getenv("PATH");
    if (path) {
        char *copy = strdup(path), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            if (*dir != '/')
                continue; /* a relative PATH entry would depend on the working directory */
            snprintf(out, outlen, "%s/scontrol", dir);
            if (access(out, X_OK) == 0) {
                free(copy);
                return 0;
            }
        }
        free(copy);
    }
    snprintf(err, errlen, "scontrol not found in /usr/bin, /usr/local/bin%s (give --scontrol PATH)",
             path ? " or PATH" : " (PATH is unset)");
    return -1;
}

/* At most size - 1 bytes of a live /proc file (NUL-terminated; cmdline and environ are NUL-separated
 * lists, so *len says where the text ends). The running system's processes, never a --sysroot tree:
 * scontrol runs here whatever machine was checked. -1 when unreadable. */
static int proc_read(int pid, const char *name, char *out, size_t size, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < size) {
        ssize_t got = read(fd, out + n, size - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    out[n] = '\0';
    *len = n;
    return 0;
}

/* The parent of pid, from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold spaces and
 * parentheses, so after the last ')'). 0 when unknown. */
static int parent_of(int pid)
{
    char stat[1024];
    size_t len;
    if (proc_read(pid, "stat", stat, sizeof stat, &len) != 0)
        return 0;
    const char *close_paren = strrchr(stat, ')');
    int ppid = 0;
    if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
        return 0;
    return ppid;
}

/* slurmd's configuration from its command line (-f FILE, -fFILE) or its SLURM_CONF. */
static bool slurmd_conf(int pid, char *out, size_t outlen, const char **how)
{
    static char buf[65536];
    size_t len;
    if (proc_read(pid, "cmdline", buf, sizeof buf, &len) == 0)
        for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
            const char *arg = buf + i;
            const char *value = !strcmp(arg, "-f") && i + 3 < len ? arg + 3 : !strncmp(arg, "-f", 2) ? arg + 2 : NULL;
            if (value && *value == '/' && strlen(value) < outlen) {
                snprintf(out, outlen, "%s", value);
                *how = "slurmd's -f";
                return true;
            }
        }
    if (proc_read(pid, "environ", buf, sizeof buf, &len) == 0)
        for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
            if (!strncmp(buf + i, "SLURM_CONF=", 11) && buf[i + 11] == '/' && strlen(buf + i + 11) < outlen) {
                snprintf(out, outlen, "%s", buf + i + 11);
                *how = "slurmd's SLURM_CONF";
                return true;
            }
    return false;
}

const char *slurm_conf_locate(char *out, size_t outlen)
{
    const char *env = getenv("SLURM_CONF");
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
        return "SLURM_CONF";
    }
    /* HealthCheckProgram (and a wrapper that does not exec) runs under slurmd, which gives it no
     * SLURM_CONF: the file slurmd itself was started with is the one to use. */
    int pid = getppid();
    for (int depth = 0; depth < 4 && pid > 1; depth++, pid = parent_of(pid)) {
        char comm[64];
        size_t len;
        if (proc_read(pid, "comm", comm, sizeof comm, &len) != 0)
            break;
        comm[strcspn(comm, "\n")] = '\0';
        const char *how;
        if (!strcmp(comm, "slurmd") && slurmd_conf(pid, out, outlen, &how)) {
            setenv("SLURM_CONF", out, 1); /* for the scontrol gpuvet runs */
            return how;
        }
    }
    /* As scontrol itself: the compiled-in default, then the copy a configless slurmd keeps. */
    static const char *const fixed[] = {SLURM_CONF_DEFAULT, SLURM_CONF_CONFIGLESS};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (access(fixed[i], R_OK) == 0) {
            snprintf(out, outlen, "%s", fixed[i]);
            return i == 0 ? "the default" : "configless slurmd's copy";
        }
    snprintf(out, outlen, "%s", "none");
    return NULL;
}

void slurm_node_name(char *out, size_t outlen)
{
    const char *env = getenv("SLURMD_NODENAME");
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
        return;
    }
    struct utsname u;
    if (uname(&u) != 0) {
        snprintf(out, outlen, "localhost");
        return;
    }
    snprintf(out, outlen, "%s", u.nodename);
    char *dot = strchr(out, '.');
    if (dot)
        *dot = '\0';
}

/* Runs argv (argv[0] an absolute path) with stdout and stderr captured into out, killing its
 * process group after timeout_ms. Returns the exit status, or -1 with the reason in err. */
static int run_with_deadline(char *const argv[], int timeout_ms, char *out, size_t outlen, char *err, size_t errlen)
{
    int rc = child_run_capture(argv, timeout_ms / 1000.0, out, outlen, err, errlen);
    if (rc == CHILD_TIMED_OUT)
        snprintf(err, errlen, "%s did not finish within %.3g s and was stopped", argv[0], timeout_ms / 1000.0);
    else if (rc > 128)
        snprintf(err, errlen, "%s ended by signal %d", argv[0], rc - 128);
    return rc < 0 || rc > 128 ? -1 : rc;
}

/* The first line of text, trailing space removed, for error messages. */
static void first_line(const char *text, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", text);
    out[strcspn(out, "\n")] = '\0';
    for (size_t n = strlen(out); n > 0 && isspace((unsigned char)out[n - 1]); n--)
        out[n - 1] = '\0';
}

/* Copies the value of `key=` in scontrol's output: to the next space, or (Reason=, whose value
 * has spaces) to the end of its line. 1 when copied, 0 when the key is absent, -1 when the value
 * is longer than out holds; with cut, such a value is copied cut to what out holds and 2 returned. */
static int field(const char *text, const char *key, bool to_line_end, bool cut, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        if (p != text && p[-1] != ' ' && p[-1] != '\n')
            continue; /* "NodeState=" is not "State=" */
        const char *v = p + klen;
        size_t n = to_line_end ? strcspn(v, "\n") : strcspn(v, " \n");
        bool too_long = n >= outlen;
        if (too_long && !cut)
            return -1;
        snprintf(out, outlen, "%.*s", (int)(too_long ? outlen - 1 : n), v);
        return too_long ? 2 : 1;
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* What is left of the SLURM_SCONTROL_TIMEOUT_MS that the calls since started_ms share (never under
 * SLURM_SCONTROL_LAST_CALL_MS, so a last call still gets its chance to answer). */
static int remaining_ms(double started_ms)
{
    double left = SLURM_SCONTROL_TIMEOUT_MS - (now_ms() - started_ms);
    return left < SLURM_SCONTROL_LAST_CALL_MS ? SLURM_SCONTROL_LAST_CALL_MS : (int)left;
}

static int node_read(const char *scontrol, const char *node, int timeout_ms, struct slurm_node *out, char *err,
                     size_t errlen)
{
    char text[16384], why[256];
    char *argv[] = {(char *)scontrol, "show", "node", (char *)node, NULL};
    int rc = run_with_deadline(argv, timeout_ms, text, sizeof text, why, sizeof why);
    if (rc != 0) {
        char line[256];
        first_line(text, line, sizeof line);
        snprintf(err, errlen, "scontrol show node %s: %s", node, rc < 0 ? why : line);
        return -1;
    }
    memset(out, 0, sizeof *out);
    int state = field(text, "State=", false, false, out->state, sizeof out->state);
    if (state <= 0) {
        if (state == 0)
            snprintf(err, errlen, "scontrol show node %s: no State= in its output", node);
        else
            snprintf(err, errlen, "scontrol show node %s: State= longer than %zu bytes", node, sizeof out->state - 1);
        return -1;
    }
    /* A reason too long to hold (set by someone, or by an older gpuvet) is kept cut: it still tells
     * whose it is, and it cannot equal a reason of SLURM_REASON_MAX bytes. */
    int reason = field(text, "Reason=", true, true, out->reason, sizeof out->reason);
    if (reason == 1) {
        /* scontrol appends " [user@time]" to the reason it stored. */
        char *stamp = strrchr(out->reason, '[');
        if (stamp && stamp > out->reason && stamp[-1] == ' ' && strchr(stamp, ']'))
            stamp[-1] = '\0';
        if (!strcmp(out->reason, "(null)"))
            out->reason[0] = '\0';
    }
    out->drained = strstr(out->state, "DRAIN") || strstr(out->state, "DOWN");
    return 0;
}

int slurm_node_read(const char *scontrol, const char *node, struct slurm_node *out, char *err, size_t errlen)
{
    return node_read(scontrol, node, SLURM_SCONTROL_TIMEOUT_MS, out, err, errlen);
}

static int update(const char *scontrol, const char *node, const char *state, const char *reason, int timeout_ms,
                  char *err, size_t errlen)
{
    char node_arg[300], state_arg[64], reason_arg[600], text[4096], why[256];
    snprintf(node_arg, sizeof node_arg, "NodeName=%s", node);
    snprintf(state_arg, sizeof state_arg, "State=%s", state);
    /* One argv element each: no shell, so the reason's spaces need no quoting. */
    snprintf(reason_arg, sizeof reason_arg, "Reason=%s", reason ? reason : "");
    char *argv[] = {(char *)scontrol, "update", node_arg, state_arg, reason ? reason_arg : NULL, NULL};
    int rc = run_with_deadline(argv, timeout_ms, text, sizeof text, why, sizeof why);
    if (rc != 0) {
        char line[256];
        first_line(text, line, sizeof line);
        snprintf(err, errlen, "scontrol update %s %s: %s", node_arg, state_arg, rc < 0 ? why : line);
        return -1;
    }
    return 0;
}

bool slurm_node_name_is_one(const char *node)
{
    /* scontrol reads its NodeName= as a hostlist ("gpu[01-64],login1" is 65 nodes); one node's
     * name is letters, digits, '-', '_' and '.', so anything else would act on other nodes. */
    if (!node || !*node)
        return false;
    for (const char *p = node; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
            return false;
    return true;
}

int slurm_apply(const char *scontrol, const char *node, const char *reason, enum slurm_outcome *outcome,
                char *what, size_t whatlen, char *err, size_t errlen)
{
    if (!slurm_node_name_is_one(node)) {
        char shown[128];
        text_one_line(shown, sizeof shown, node ? node : "");
        snprintf(err, errlen,
                 "\"%s\" is not one node's name (scontrol reads brackets, commas and spaces as a list of "
                 "nodes): give this node's own name",
                 shown);
        return -1;
    }
    /* The read and the update share one budget: a slow controller costs 10 s, not 20. */
    double started_ms = now_ms();
    char safe[SLURM_REASON_MAX + 1];
    if (reason) {
        text_one_line(safe, sizeof safe, reason);
        reason = safe;
    }
    struct slurm_node now;
    if (node_read(scontrol, node, SLURM_SCONTROL_TIMEOUT_MS, &now, err, errlen) != 0)
        return -1;
    bool ours = !strncmp(now.reason, SLURM_REASON_PREFIX, strlen(SLURM_REASON_PREFIX));
    if (now.drained && now.reason[0] && !ours) {
        *outcome = SLURM_LEFT_ALONE;
        snprintf(what, whatlen, "node %s is %s for another reason (\"%s\"): left as it is", node, now.state,
                 now.reason);
        return 0;
    }
    if (reason) {
        if (now.drained && ours && !strcmp(now.reason, reason)) {
            *outcome = SLURM_UNCHANGED;
            snprintf(what, whatlen, "node %s already drained: %s", node, reason);
            return 0;
        }
        if (update(scontrol, node, "DRAIN", reason, remaining_ms(started_ms), err, errlen) != 0)
            return -1;
        *outcome = SLURM_DRAINED;
        snprintf(what, whatlen, "node %s drained: %s", node, reason);
        return 0;
    }
    if (now.drained && ours) {
        if (update(scontrol, node, "RESUME", NULL, remaining_ms(started_ms), err, errlen) != 0)
            return -1;
        *outcome = SLURM_RESUMED;
        snprintf(what, whatlen, "node %s resumed (was drained by gpuvet: \"%s\")", node, now.reason);
        return 0;
    }
    *outcome = SLURM_UNCHANGED;
    snprintf(what, whatlen, "node %s is %s: nothing to do", node, now.state);
    return 0;
}
