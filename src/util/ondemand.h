/* A shared library opened with dlopen the first time a command needs it, not linked: linked, it and
 * everything it depends on were mapped into every command at start-up (libxml2 brought ICU,
 * libstdc++, lzma and zlib). One open per process, safe from any thread; the caller's resolve
 * fills its own table of functions from the handle. */
#ifndef GPUVET_UTIL_ONDEMAND_H
#define GPUVET_UTIL_ONDEMAND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct ondemand_lib {
    const char *const *sonames; /* tried in order, NULL-terminated */
    const char *package;        /* the package that installs it, named when none opens; NULL: dlerror's
                                   words alone */
    /* Looks every function up in handle (opened as soname) into the caller's table: true, or false
     * with why (the library is then closed and the next soname tried). */
    bool (*resolve)(void *handle, const char *soname, char *why, size_t whylen);
    pthread_mutex_t lock;
    bool tried, ready;
    char reason[256];
};

#define ONDEMAND_LIB(sonames_, package_, resolve_)                                                   \
    {.sonames = (sonames_), .package = (package_), .resolve = (resolve_), .lock = PTHREAD_MUTEX_INITIALIZER}

/* Opens the library on the first call; every later call gives the first one's answer without trying
 * again. True, or false with why none of the sonames could be used in err. */
bool ondemand_open(struct ondemand_lib *lib, char *err, size_t errlen);

#endif
