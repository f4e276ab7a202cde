#include "util/deadline.h"

#include "util/i18n.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

double deadline_seconds(const char *name, double fallback) { return deadline_seconds_capped(name, fallback, 0); }

double deadline_seconds_capped(const char *name, double fallback, double cap)
{
    if (cap > 0 && fallback > cap)
        fallback = cap;
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    double v = strtod(text, &end);
    return *end == '\0' && isfinite(v) && v > 0 && v <= 3600 ? v : fallback;
}

struct deadline_job {
    pthread_mutex_t lock;
    pthread_cond_t finished;
    bool done, abandoned;
    bool english; /* the caller was in an English scope (a JSON document): so is the work */
    void (*work)(void *);
    void (*release)(void *);
    void *arg;
};

static void job_free(struct deadline_job *job)
{
    pthread_cond_destroy(&job->finished);
    pthread_mutex_destroy(&job->lock);
    free(job);
}

static void *run_job(void *p)
{
    struct deadline_job *job = p;
    if (job->english)
        i18n_english_begin();
    job->work(job->arg);
    if (job->english)
        i18n_english_end();
    pthread_mutex_lock(&job->lock);
    job->done = true;
    bool abandoned = job->abandoned;
    pthread_cond_signal(&job->finished);
    pthread_mutex_unlock(&job->lock);
    /* Once abandoned, the waiter is gone: the job and its argument are this thread's to free. */
    if (abandoned) {
        if (job->release)
            job->release(job->arg);
        job_free(job);
    }
    return NULL;
}

static atomic_bool abandoned_any;

bool deadline_abandoned_any(void) { return atomic_load(&abandoned_any); }

bool deadline_run(void (*work)(void *), void *arg, void (*release)(void *), double seconds)
{
    struct deadline_job *job = calloc(1, sizeof *job);
    pthread_condattr_t attr;
    if (!job || pthread_condattr_init(&attr) != 0) {
        free(job);
        work(arg); /* no thread to spare: run unbounded rather than not at all */
        return true;
    }
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&job->finished, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&job->lock, NULL);
    job->work = work;
    job->release = release;
    job->arg = arg;
    job->english = i18n_language() == I18N_CHINESE && !i18n_translating();
    /* Signals (Ctrl-C, SIGXFSZ) stay with the main thread, which handles them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, run_job, job);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        job_free(job);
        work(arg);
        return true;
    }

    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    double whole = floor(seconds);
    until.tv_sec += (time_t)whole;
    until.tv_nsec += (long)((seconds - whole) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&job->lock);
    while (!job->done && pthread_cond_timedwait(&job->finished, &job->lock, &until) != ETIMEDOUT)
        ;
    bool done = job->done;
    if (!done) {
        job->abandoned = true;
        atomic_store(&abandoned_any, true);
    }
    pthread_mutex_unlock(&job->lock);
    /* A finished worker is joined, not left to exit on its own: its thread-local state (a library's
     * per-thread buffers, freed by their destructors as the thread exits) is gone before the caller
     * goes on, rather than racing the process's exit. An abandoned one is left to finish alone. */
    if (done) {
        pthread_join(thread, NULL);
        job_free(job);
    } else {
        pthread_detach(thread);
    }
    return done;
}

/* One path call for a worker: the path is copied so that an abandoned worker owns all it reads. */
struct path_call {
    char *path;
    char *resolved;
    struct statvfs st;
    int rc, error;
};

static void path_call_free(void *p)
{
    struct path_call *c = p;
    free(c->path);
    free(c->resolved);
    free(c);
}

static void do_realpath(void *p)
{
    struct path_call *c = p;
    c->resolved = realpath(c->path, NULL);
    c->error = errno;
}

static void do_statvfs(void *p)
{
    struct path_call *c = p;
    c->rc = statvfs(c->path, &c->st);
    c->error = errno;
}

static struct path_call *path_call_run(const char *path, void (*work)(void *), double seconds)
{
    struct path_call *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    if (!deadline_run(work, c, path_call_free, seconds)) {
        errno = ETIMEDOUT;
        return NULL;
    }
    return c;
}

char *realpath_bounded(const char *path, double seconds)
{
    struct path_call *c = path_call_run(path, do_realpath, seconds);
    if (!c)
        return NULL;
    char *resolved = c->resolved;
    int error = c->error;
    c->resolved = NULL;
    path_call_free(c);
    errno = error;
    return resolved;
}

int statvfs_bounded(const char *path, struct statvfs *out, double seconds)
{
    struct path_call *c = path_call_run(path, do_statvfs, seconds);
    if (!c)
        return -1;
    int rc = c->rc, error = c->error;
    *out = c->st;
    path_call_free(c);
    errno = error;
    return rc;
}
