#include "bench/jpeg_lib.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpu/dlsym.h"
#include "util/ondemand.h"

static struct jpeg_lib lib;
static const struct jpeg_lib *loaded;

static bool resolve(void *h, const char *soname, char *why, size_t whylen)
{
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
        snprintf(why, whylen, "%s lacks a function gpuvet calls", soname);
        return false;
    }
    loaded = &lib;
    return true;
}

static const char *const sonames[] = {"libturbojpeg.so.0", NULL};
static struct ondemand_lib turbojpeg = ONDEMAND_LIB(sonames, NULL, resolve);

const struct jpeg_lib *jpeg_lib_get(char *err, size_t errlen)
{
    return ondemand_open(&turbojpeg, err, errlen) ? &lib : NULL;
}

const struct jpeg_lib *jpeg_lib_loaded(void)
{
    return loaded;
}
