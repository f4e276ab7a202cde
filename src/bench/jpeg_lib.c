#include "bench/jpeg_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpu/dlsym.h"

#define JPEG_LIB_SONAME "libturbojpeg.so.0"

static struct jpeg_lib lib;
static const struct jpeg_lib *loaded;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen(JPEG_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
    DL_RESOLVE(h, lib.InitDecompress, "tjInitDecompress");
    DL_RESOLVE(h, lib.InitCompress, "tjInitCompress");
    DL_RESOLVE(h, lib.DecompressHeader3, "tjDecompressHeader3");
    DL_RESOLVE(h, lib.Decompress2, "tjDecompress2");
    DL_RESOLVE(h, lib.Compress2, "tjCompress2");
    DL_RESOLVE(h, lib.GetErrorCode, "tjGetErrorCode");
    DL_RESOLVE(h, lib.Free, "tjFree");
    DL_RESOLVE(h, lib.Destroy, "tjDestroy");
    bool complete = lib.InitDecompress && lib.InitCompress && lib.DecompressHeader3 && lib.Decompress2 &&
                    lib.Compress2 && lib.GetErrorCode && lib.Free && lib.Destroy;
    if (!complete) {
        snprintf(load_error, sizeof load_error, "%s lacks a function gpuvet calls", JPEG_LIB_SONAME);
        dlclose(h);
        return;
    }
    loaded = &lib; /* the handle stays open for the process's life */
}

const struct jpeg_lib *jpeg_lib_get(char *err, size_t errlen)
{
    pthread_once(&once, load);
    if (!loaded)
        snprintf(err, errlen, "%s", load_error);
    return loaded;
}

const struct jpeg_lib *jpeg_lib_loaded(void)
{
    return loaded;
}
