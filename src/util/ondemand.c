#include "util/ondemand.h"

#include <dlfcn.h>
#include <stdio.h>

/* The first soname that opens and has every function; lib->reason says why none did. */
static bool open_first(struct ondemand_lib *lib)
{
    lib->reason[0] = '\0';
    for (const char *const *name = lib->sonames; *name; name++) {
        void *handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            /* The first soname's failure is the one to report: the others are older or newer names. */
            if (!lib->reason[0] && lib->package)
                snprintf(lib->reason, sizeof lib->reason, "%s cannot be loaded (package %s): %s", *name, lib->package,
                         dlerror());
            else if (!lib->reason[0])
                snprintf(lib->reason, sizeof lib->reason, "%s", dlerror());
            continue;
        }
        char why[sizeof lib->reason];
        if (lib->resolve(handle, *name, why, sizeof why))
            return true; /* the handle stays open for the process's life */
        dlclose(handle);
        /* A library that opens but lacks a function says more than one that is absent. */
        snprintf(lib->reason, sizeof lib->reason, "%s", why);
    }
    return false;
}

bool ondemand_open(struct ondemand_lib *lib, char *err, size_t errlen)
{
    pthread_mutex_lock(&lib->lock);
    if (!lib->tried) {
        lib->tried = true;
        lib->ready = open_first(lib);
    }
    bool ready = lib->ready;
    if (!ready && errlen > 0)
        snprintf(err, errlen, "%s", lib->reason);
    pthread_mutex_unlock(&lib->lock);
    return ready;
}
