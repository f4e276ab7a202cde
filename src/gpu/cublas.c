#include "gpu/cublas.h"
#include "gpu/dlsym.h"
#include "util/i18n.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cublas_open(struct cublas *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    const char *wanted = getenv("GPUVET_CUBLAS_LIBRARY");
    const char *names[] = {wanted && *wanted ? wanted : "libcublas.so.13", wanted && *wanted ? NULL : "libcublas.so.12"};
    char why[512] = "";
    i18n_english_begin(); /* the loader's text in English: it reaches the JSON */
    for (size_t i = 0; i < 2 && names[i] && !b->library; i++) {
        b->library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (b->library)
            snprintf(b->name, sizeof b->name, "%s", names[i]);
        else if (i == 0) {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s", e ? e : "");
        }
    }
    i18n_english_end();
    if (!b->library) {
        /* TRANSLATORS: %s is the loader's own error text (English). */
        i18n_snprintf(err, errlen, "cannot load cuBLAS (libcublas.so.13 or .so.12): %s", *why ? why : _("unknown error"));
        return -1;
    }
    DL_RESOLVE(b->library, b->create, "cublasCreate_v2");
    DL_RESOLVE(b->library, b->destroy, "cublasDestroy_v2");
    DL_RESOLVE(b->library, b->set_stream, "cublasSetStream_v2");
    DL_RESOLVE(b->library, b->gemm_ex, "cublasGemmEx");
    if (!b->create || !b->destroy || !b->set_stream || !b->gemm_ex) {
        i18n_snprintf(err, errlen, "%s lacks cuBLAS calls gpuvet needs (cublasCreate_v2, cublasSetStream_v2, cublasGemmEx)",
                      b->name);
        cublas_close(b);
        return -1;
    }
    return 0;
}

void cublas_close(struct cublas *b)
{
    if (b->library)
        dlclose(b->library);
    b->library = NULL;
}
