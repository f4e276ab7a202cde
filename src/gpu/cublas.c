#include "gpu/cublas.h"
#include "gpu/dlsym.h"
#include "util/i18n.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* $env's library, or the .so.13 then the .so.12 of base: the handle and its name, or NULL with the
 * loader's reason for the first in why. */
static void *load(const char *env, const char *base, char name[256], char *why, size_t whylen)
{
    const char *wanted = getenv(env);
    char first[128], second[128];
    snprintf(first, sizeof first, "%s.so.13", base);
    snprintf(second, sizeof second, "%s.so.12", base);
    const char *names[] = {wanted && *wanted ? wanted : first, wanted && *wanted ? NULL : second};
    void *library = NULL;
    why[0] = '\0';
    i18n_english_begin(); /* the loader's text in English: it reaches the JSON */
    for (size_t i = 0; i < 2 && names[i] && !library; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library)
            snprintf(name, 256, "%s", names[i]);
        else if (i == 0) {
            const char *e = dlerror();
            snprintf(why, whylen, "%s", e ? e : "");
        }
    }
    i18n_english_end();
    return library;
}

int cublas_open(struct cublas *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    char why[512];
    b->library = load("GPUVET_CUBLAS_LIBRARY", "libcublas", b->name, why, sizeof why);
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

int cublaslt_open(struct cublaslt *lt, char *err, size_t errlen)
{
    memset(lt, 0, sizeof *lt);
    char why[512];
    lt->library = load("GPUVET_CUBLASLT_LIBRARY", "libcublasLt", lt->name, why, sizeof why);
    if (!lt->library) {
        /* TRANSLATORS: %s is the loader's own error text (English). */
        i18n_snprintf(err, errlen, "cannot load cuBLASLt (libcublasLt.so.13 or .so.12): %s",
                      *why ? why : _("unknown error"));
        return -1;
    }
    DL_RESOLVE(lt->library, lt->create, "cublasLtCreate");
    DL_RESOLVE(lt->library, lt->destroy, "cublasLtDestroy");
    DL_RESOLVE(lt->library, lt->desc_create, "cublasLtMatmulDescCreate");
    DL_RESOLVE(lt->library, lt->desc_destroy, "cublasLtMatmulDescDestroy");
    DL_RESOLVE(lt->library, lt->desc_set, "cublasLtMatmulDescSetAttribute");
    DL_RESOLVE(lt->library, lt->layout_create, "cublasLtMatrixLayoutCreate");
    DL_RESOLVE(lt->library, lt->layout_destroy, "cublasLtMatrixLayoutDestroy");
    DL_RESOLVE(lt->library, lt->matmul, "cublasLtMatmul");
    if (!lt->create || !lt->destroy || !lt->desc_create || !lt->desc_destroy || !lt->desc_set || !lt->layout_create ||
        !lt->layout_destroy || !lt->matmul) {
        i18n_snprintf(err, errlen, "%s lacks cuBLASLt calls gpuvet needs (cublasLtCreate, cublasLtMatmulDescCreate, "
                                   "cublasLtMatrixLayoutCreate, cublasLtMatmul, ...)",
                      lt->name);
        cublaslt_close(lt);
        return -1;
    }
    return 0;
}

void cublaslt_close(struct cublaslt *lt)
{
    if (lt->library)
        dlclose(lt->library);
    lt->library = NULL;
}
