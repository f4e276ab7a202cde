/* libturbojpeg, loaded when `bench decode` runs and not before: linked, it was mapped into every
 * command's start-up. The function pointers take their types from turbojpeg.h (build time only);
 * dlopen("libturbojpeg.so.0") finds the library at run time. */
#ifndef GPUVET_BENCH_JPEG_LIB_H
#define GPUVET_BENCH_JPEG_LIB_H

#include <stddef.h>

#include <turbojpeg.h>

struct jpeg_lib {
    __typeof__(tjInitDecompress) *InitDecompress;
    __typeof__(tjInitCompress) *InitCompress;
    __typeof__(tjDecompressHeader3) *DecompressHeader3;
    __typeof__(tjDecompress2) *Decompress2;
    __typeof__(tjCompress2) *Compress2;
    __typeof__(tjGetErrorCode) *GetErrorCode;
    __typeof__(tjFree) *Free;
    __typeof__(tjDestroy) *Destroy;
};

/* The library, loaded on the first call (once per process): NULL with the reason in err when
 * libturbojpeg.so.0 is not installed or lacks a function. */
const struct jpeg_lib *jpeg_lib_get(char *err, size_t errlen);
/* The library once jpeg_lib_get succeeded (NULL before). */
const struct jpeg_lib *jpeg_lib_loaded(void);

/* A call into the loaded library: TJ(Destroy)(handle). */
#define TJ(fn) (jpeg_lib_loaded()->fn)

#endif
