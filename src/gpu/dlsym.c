#include "gpu/dlsym.h"

#include <dlfcn.h>
#include <stdarg.h>

void *dl_first_symbol(void *lib, ...)
{
    va_list ap;
    va_start(ap, lib);
    void *found = NULL;
    for (const char *name = va_arg(ap, const char *); name && !found; name = va_arg(ap, const char *))
        found = dlsym(lib, name);
    va_end(ap);
    return found;
}
