/* util/ondemand.c: a shared library opened on first use, once whatever the number of threads that
 * ask; the next soname when one is absent; why, when none is usable, and the same answer after. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/ondemand.h"

static atomic_int resolves;
static double (*cosine)(double);

static bool resolve_cos(void *handle, const char *soname, char *why, size_t whylen)
{
    atomic_fetch_add(&resolves, 1);
    void *sym = dlsym(handle, "cos");
    memcpy(&cosine, &sym, sizeof sym);
    if (!cosine) {
        snprintf(why, whylen, "%s lacks cos", soname);
        return false;
    }
    return true;
}

static bool resolve_lacking(void *handle, const char *soname, char *why, size_t whylen)
{
    (void)handle;
    snprintf(why, whylen, "%s lacks a function gpuvet calls", soname);
    return false;
}

static const char *const absent_then_libm[] = {"libgpuvet-absent.so.0", "libm.so.6", NULL};
static struct ondemand_lib libm_lib = ONDEMAND_LIB(absent_then_libm, "gpuvet-absent", resolve_cos);

static void *open_libm(void *arg)
{
    (void)arg;
    char err[256];
    return ondemand_open(&libm_lib, err, sizeof err) ? (void *)1 : NULL;
}

Test(ondemand, the_next_soname_when_the_first_is_absent_opened_once_by_many_threads)
{
    pthread_t threads[8];
    for (int i = 0; i < 8; i++)
        cr_assert_eq(pthread_create(&threads[i], NULL, open_libm, NULL), 0);
    for (int i = 0; i < 8; i++) {
        void *opened;
        pthread_join(threads[i], &opened);
        cr_expect_not_null(opened, "thread %d", i);
    }
    cr_expect_eq(atomic_load(&resolves), 1);
    cr_expect_float_eq(cosine(0.0), 1.0, 1e-12);
}

Test(ondemand, none_usable_says_why_every_time)
{
    static const char *const absent[] = {"libgpuvet-absent.so.0", NULL};
    static struct ondemand_lib missing = ONDEMAND_LIB(absent, "gpuvet-absent", resolve_cos);
    char err[256] = "";
    cr_assert(!ondemand_open(&missing, err, sizeof err));
    const char *said = "libgpuvet-absent.so.0 cannot be loaded (package gpuvet-absent): ";
    cr_expect(!strncmp(err, said, strlen(said)), "%s", err);
    /* A library that opens but lacks a function: its own reason, and the same on the next call. */
    static const char *const libm[] = {"libm.so.6", NULL};
    static struct ondemand_lib lacking = ONDEMAND_LIB(libm, NULL, resolve_lacking);
    for (int i = 0; i < 2; i++) {
        err[0] = '\0';
        cr_assert(!ondemand_open(&lacking, err, sizeof err));
        cr_expect_str_eq(err, "libm.so.6 lacks a function gpuvet calls");
    }
    cr_expect_eq(atomic_load(&resolves), 0);
}
