#include "slurm/slurm.h"

#include <ctype.h>
#include <errno.h>
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

int slurm_apply(const char *scontrol, const char *node, const char *reason, enum slurm_outcome *outcome,
                char *what, size_t whatlen, char *err, size_t errlen)
{
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
