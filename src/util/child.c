#include "util/child.h"
#include "util/i18n.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_POLL_NS 10000000L /* 10 ms */
/* After SIGKILL, how long to wait for the child to go: one stuck in the kernel may not. */
#define CHILD_REAP_S 1.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for pid until the monotonic time `until`; true with *status when it ended. */
static int wait_until(pid_t pid, double until, int *status)
{
    const struct timespec poll = {0, CHILD_POLL_NS};
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return 1;
        if (done < 0 && errno != EINTR)
            return -1;
        if (now_s() >= until)
            return 0;
        nanosleep(&poll, NULL);
    }
}

/* Runs argv with stdout (and stderr too when merge_stderr) into the open file out. */
static int run_into(char *const argv[], int out, bool merge_stderr, size_t max_bytes, double seconds, char *why,
                    size_t whylen)
{
    double start = now_s();
    const char *exec_failed = _("exec failed: "); /* looked up before fork: no locks in the child */
    pid_t pid = fork();
    if (pid < 0) {
        int error = errno; /* before _(), which may touch errno */
        snprintf(why, whylen, _("cannot start %s: %s"), argv[0], i18n_error_text(error));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group: a kill on expiry reaches what it started too */
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
            (merge_stderr && dup2(out, STDERR_FILENO) < 0))
            _exit(127);
        struct rlimit size = {max_bytes, max_bytes};
        setrlimit(RLIMIT_FSIZE, &size);
        signal(SIGXFSZ, SIG_DFL);
        execv(argv[0], argv);
        if (merge_stderr) {
            /* No stdio between fork and exec (its locks may be held by another thread). */
            const char *reason = strerror(errno);
            ssize_t ignored = write(STDERR_FILENO, exec_failed, strlen(exec_failed));
            ignored = write(STDERR_FILENO, reason, strlen(reason));
            (void)ignored;
        }
        _exit(127);
    }
    int status = 0;
    int ended = wait_until(pid, start + seconds, &status);
    if (ended == 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        wait_until(pid, now_s() + CHILD_REAP_S, &status);
        return CHILD_TIMED_OUT;
    }
    if (ended < 0) {
        int error = errno; /* before _(), which may touch errno */
        snprintf(why, whylen, _("cannot wait for %s: %s"), argv[0], i18n_error_text(error));
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int child_run_bounded(char *const argv[], const char *out_path, size_t max_bytes, double seconds, char *why,
                      size_t whylen)
{
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        snprintf(why, whylen, "%s: %s", out_path, i18n_error_text(errno));
        return -1;
    }
    int rc = run_into(argv, out, false, max_bytes, seconds, why, whylen);
    close(out);
    return rc;
}

int child_run_capture(char *const argv[], double seconds, char *text, size_t textlen, char *why, size_t whylen)
{
    text[0] = '\0';
    FILE *f = tmpfile();
    if (!f) {
        int error = errno; /* before _(), which may touch errno */
        snprintf(why, whylen, _("temporary file for %s's output: %s"), argv[0], i18n_error_text(error));
        return -1;
    }
    int rc = run_into(argv, fileno(f), true, textlen, seconds, why, whylen);
    rewind(f);
    size_t got = fread(text, 1, textlen - 1, f);
    text[got] = '\0';
    fclose(f);
    return rc;
}
