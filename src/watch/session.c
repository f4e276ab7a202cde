#include "watch/session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/audit.h"
#include "probe/probe.h"
#include "probe/watch.h"
#include "report/watch.h"
#include "rules/watch.h"
#include "util/exitcode.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/output_file.h"

#define POLL_SLICE_S 0.05 /* how soon a job's end or Ctrl-C is noticed */

static volatile sig_atomic_t stop_signal;
static volatile pid_t job_pid;
/* A signal to pass on that came before the job's pid was known (a scheduler's SIGTERM in the
 * moment the job starts): sent to the job as soon as it has a pid, so gpuvet never waits for a job
 * that was told to stop. */
static volatile sig_atomic_t pending_signal;

/* A terminal's Ctrl-C reaches the whole foreground process group, the job included (si_code
 * SI_KERNEL); a signal sent to gpuvet alone (kill, a scheduler) is passed on to the job. */
static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    stop_signal = sig;
    if (sig != SIGINT || info->si_code != SI_KERNEL) {
        if (job_pid > 0)
            kill(job_pid, sig);
        else
            pending_signal = sig;
    }
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL); /* a signal cuts it short, which is what we want */
}

static int status_of(int wstatus)
{
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : 1;
}

static char *command_text(char **argv)
{
    size_t len = 0;
    for (char **a = argv; *a; a++)
        len += strlen(*a) + 1;
    char *text = malloc(len + 1), *p = text;
    for (char **a = argv; text && *a; a++)
        p += sprintf(p, "%s%s", a == argv ? "" : " ", *a);
    return text;
}

/* Forks and execs the job; its stdin, stdout and stderr are gpuvet's. An exec failure comes back
 * through a close-on-exec pipe, so it is told apart from a job that exits 127 itself. */
static pid_t start_job(char **argv, char *err, size_t errlen)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, _("pipe: %s"), i18n_error_text(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, _("fork: %s"), i18n_error_text(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        close(fds[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t unused = write(fds[1], &e, sizeof e);
        (void)unused;
        _exit(127);
    }
    close(fds[1]);
    int e = 0;
    ssize_t n;
    while ((n = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (n == (ssize_t)sizeof e) {
        snprintf(err, errlen, _("cannot run '%s': %s"), argv[0], i18n_error_text(e));
        waitpid(pid, NULL, 0);
        return 0;
    }
    return pid;
}

/* A process we may watch: its stat and its task list are readable. */
static int check_pid(int pid, char *err, size_t errlen)
{
    char *stat = fs_readf("/proc/%d/stat", pid);
    if (!stat) {
        snprintf(err, errlen, _("no process %d (/proc/%d/stat: %s)"), pid, pid, i18n_error_text(errno));
        return -1;
    }
    free(stat);
    char **names;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", pid);
    int n = fs_list(dir, &names);
    if (n < 0) {
        snprintf(err, errlen, _("process %d cannot be watched: %s: %s (another user's process? run as that user or "
                                "as root)"), pid, dir, i18n_error_text(errno));
        return -1;
    }
    fs_list_free(names, n);
    return 0;
}

static void probe_context(struct watch_timeline *w, struct watch_gpus **gpus, struct watch_numa *numa)
{
    /* This machine, through the one door: no evidence, no rules (pipeline/audit.h); watch samples
     * CPU use itself. The result's machine is this function's from here on. */
    struct audit_request machine_only = {.depth = AUDIT_MACHINE};
    struct audit_result audit;
    audit_run(&machine_only, &audit);
    struct machine m = audit.machine;
    free(audit.error);
    /* The audit's probe decides whether NVML is worth loading (an NVIDIA device on the bus, or
     * $GPUVET_NVML_LIBRARY) and whether it describes any GPU. */
    *gpus = NULL;
    if (!m.gpus.probed)
        watch_set_text(&w->gpu_unseen, &w->gpu_unseen_local,
                       "no NVIDIA GPU on the PCI bus: GPU utilisation, PCIe traffic, clocks and power were not seen");
    else if (m.gpus.count == 0 && m.gpus.unknown_reason)
        watch_set_text(&w->gpu_unseen, &w->gpu_unseen_local, "NVML describes no GPU: %s", m.gpus.unknown_reason);
    else if (m.gpus.count == 0)
        watch_set_text(&w->gpu_unseen, &w->gpu_unseen_local, "NVML describes no GPU: the driver lists none");
    else
        *gpus = watch_gpus_open(w);
    watch_numa_from_machine(numa, &m, w);
    w->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    machine_free(&m);
}

static int finish(const struct watch_options *o, struct watch_timeline *w, FILE *out, int status)
{
    struct findings diagnosis = {0};
    watch_diagnose(w, &diagnosis);
    char err[512];
    if (!o->json && !o->output_path)
        watch_print_diagnosis(out, w, &diagnosis, output_use_colour(out));
    else if (watch_write_report(o->output_path, o->json, w, &diagnosis, err, sizeof err) != 0) {
        print_error("watch", "%s", err);
        if (status == 0)
            status = EXIT_CANNOT_RUN;
    }
    findings_free(&diagnosis);
    watch_timeline_free(w);
    return status;
}

static int replay(const struct watch_options *o)
{
    struct watch_timeline w;
    watch_timeline_init(&w);
    char err[1024];
    if (watch_replay_load(o->replay_path, &w, err, sizeof err) != 0) {
        print_error("watch", "%s", err);
        watch_timeline_free(&w);
        return EXIT_CANNOT_RUN;
    }
    return finish(o, &w, stdout, 0);
}

/* Checks the --output file before anything starts, so a bad path fails before the job runs
 * (nothing is created: a FIFO there would wait for a reader, a device is written through at the
 * end). */
static int check_output_path(const char *path)
{
    return path ? output_target_check_option("watch", "--output", path) : 0;
}

int watch_run(const struct watch_options *o)
{
    if (o->replay_path)
        return replay(o);
    if (!fsroot_is_live()) {
        print_error("watch", _("a recorded tree cannot be watched; use --replay FILE for a saved timeline"));
        return EXIT_CANNOT_RUN;
    }
    if (check_output_path(o->output_path) != 0)
        return EXIT_CANNOT_RUN;
    char err[1024];
    if (o->pid && check_pid(o->pid, err, sizeof err) != 0) {
        print_error("watch", "%s", err);
        return EXIT_CANNOT_RUN;
    }
    struct watch_timeline w;
    watch_timeline_init(&w);
    watch_set(&w.source, "live");
    w.interval = o->interval;
    w.host_seen = true;
    struct watch_gpus *gpus = NULL;
    struct watch_numa numa;
    probe_context(&w, &gpus, &numa);
    /* Our own output goes to stderr while the job's stdout is the terminal's or a pipe's, and the
     * live view too while stdout is the --json document's. */
    FILE *out = o->command || (o->json && !o->output_path) ? stderr : stdout;
    install_handlers();
    int root = o->pid, job_status = 0;
    if (o->command) {
        char *text = command_text(o->command);
        watch_set_text(&w.target, &w.target_local, watch_saved_formats[WATCH_TARGET_COMMAND], text ? text : o->command[0]);
        free(text);
        pid_t pid = start_job(o->command, err, sizeof err);
        if (pid <= 0) {
            print_error("watch", "%s", err);
            watch_gpus_close(gpus);
            watch_numa_free(&numa);
            watch_timeline_free(&w);
            return pid == 0 ? 127 : EXIT_CANNOT_RUN;
        }
        root = job_pid = pid;
        if (pending_signal)
            kill(pid, pending_signal);
    } else if (root) {
        watch_set_text(&w.target, &w.target_local, watch_saved_formats[WATCH_TARGET_PID], root);
    } else {
        watch_set_text(&w.target, &w.target_local, "machine");
    }
    w.root_pid = root;
    w.job_seen = root != 0;
    struct watch_host *host = watch_host_open(root, &numa, err, sizeof err);
    if (!host) {
        w.host_seen = false;
        watch_set(&w.host_unseen, "%s", err);
    }
    struct watch_live live = {.tty = isatty(fileno(out)) != 0};
    double start = now_s(), next = start + o->interval;
    bool job_running = o->command != NULL;
    while (!stop_signal && (o->duration <= 0 || now_s() - start < o->duration - 1e-3)) {
        if (job_running) {
            int ws;
            if (waitpid(job_pid, &ws, WNOHANG) == job_pid) {
                job_running = false;
                job_status = status_of(ws);
                if (WIFSIGNALED(ws))
                    watch_set_text(&w.end_reason, &w.end_reason_local, watch_saved_formats[WATCH_END_KILLED],
                                   now_s() - start, WTERMSIG(ws));
                else
                    watch_set_text(&w.end_reason, &w.end_reason_local, watch_saved_formats[WATCH_END_EXITED],
                                   now_s() - start, WEXITSTATUS(ws));
                break;
            }
        }
        double left = next - now_s();
        if (left > 0) {
            sleep_s(left < POLL_SLICE_S ? left : POLL_SLICE_S);
            continue;
        }
        struct watch_sample *s = watch_sample_add(&w);
        if (!s)
            break;
        s->t = now_s() - start;
        s->seconds = o->interval;
        int rc = host ? watch_host_sample(host, &w, s) : 0;
        if (rc == 1 && !job_running) {
            w.count--; /* the process is gone: this interval has nothing of it */
            watch_set_text(&w.end_reason, &w.end_reason_local, watch_saved_formats[WATCH_END_PROCESS], root,
                           now_s() - start);
            break;
        }
        if (rc == 1) {
            w.count--; /* the job exited between two polls; waitpid tells how */
            continue;
        }
        if (gpus)
            watch_gpus_sample(gpus, &w, s);
        watch_print_live(out, &live, &w, s);
        next += o->interval;
        if (next < now_s())
            next = now_s() + o->interval; /* a stalled sampler does not burst */
    }
    if (stop_signal && !w.end_reason) {
        if (job_running)
            watch_set_text(&w.end_reason, &w.end_reason_local,
                           watch_saved_formats[WATCH_END_SIGNAL_JOB],
                           (int)stop_signal, now_s() - start);
        else
            watch_set_text(&w.end_reason, &w.end_reason_local, watch_saved_formats[WATCH_END_SIGNAL],
                           (int)stop_signal, now_s() - start);
    } else if (job_running && !w.end_reason) {
        watch_set_text(&w.end_reason, &w.end_reason_local,
                       watch_saved_formats[WATCH_END_DURATION], now_s() - start);
    }
    watch_host_close(host);
    watch_gpus_close(gpus);
    watch_numa_free(&numa);
    if (job_running && stop_signal) {
        int ws;
        while (waitpid(job_pid, &ws, 0) < 0 && errno == EINTR)
            ;
        job_status = status_of(ws);
        job_running = false;
    }
    int status = finish(o, &w, out, job_status);
    if (job_running) {
        int ws;
        while (waitpid(job_pid, &ws, 0) < 0 && errno == EINTR)
            ;
        status = status_of(ws);
    }
    return status;
}
