/* Symbol lookup for the NVIDIA libraries loaded with dlopen (NVML, the CUDA driver). */
#ifndef GPUVET_GPU_DLSYM_H
#define GPUVET_GPU_DLSYM_H

#include <string.h>

/* The first of the NULL-terminated names the library exports (newest versioned name first),
 * or NULL. */
void *dl_first_symbol(void *lib, ...);

/* Fills the function pointer `dst` from the first exported name. Function pointers cannot be
 * assigned from void * in ISO C; copying the bits is what dlsym's own documentation recommends. */
#define DL_RESOLVE(lib, dst, ...)                                                                  \
    do {                                                                                           \
        void *sym_ = dl_first_symbol(lib, __VA_ARGS__, (const char *)NULL);                        \
        memcpy(&(dst), &sym_, sizeof sym_);                                                        \
    } while (0)

#endif
