#include "gpu/nccl.h"
#include "gpu/dlsym.h"
#include "util/i18n.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nccl_open(struct nccl *n, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    const char *wanted = getenv("GPUVET_NCCL_LIBRARY");
    const char *name = wanted && *wanted ? wanted : "libnccl.so.2";
    char why[512] = "";
    i18n_english_begin(); /* the loader's text in English: it reaches the JSON */
    n->library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!n->library) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : "");
    }
    i18n_english_end();
    if (!n->library) {
        /* TRANSLATORS: %s is the loader's own error text (English). */
        i18n_snprintf(err, errlen, "cannot load NCCL (libnccl.so.2): %s", *why ? why : _("unknown error"));
        return -1;
    }
    snprintf(n->name, sizeof n->name, "%s", name);
    DL_RESOLVE(n->library, n->get_version, "ncclGetVersion");
    DL_RESOLVE(n->library, n->error_string, "ncclGetErrorString");
    DL_RESOLVE(n->library, n->comm_init_all, "ncclCommInitAll");
    DL_RESOLVE(n->library, n->comm_destroy, "ncclCommDestroy");
    DL_RESOLVE(n->library, n->comm_abort, "ncclCommAbort");
    DL_RESOLVE(n->library, n->all_reduce, "ncclAllReduce");
    DL_RESOLVE(n->library, n->group_start, "ncclGroupStart");
    DL_RESOLVE(n->library, n->group_end, "ncclGroupEnd");
    if (!n->get_version || !n->error_string || !n->comm_init_all || !n->comm_destroy || !n->comm_abort ||
        !n->all_reduce || !n->group_start || !n->group_end) {
        i18n_snprintf(err, errlen,
                      "%s lacks NCCL calls gpuvet needs (ncclCommInitAll, ncclAllReduce, ncclGroupStart, "
                      "ncclGroupEnd, ncclCommAbort)",
                      n->name);
        nccl_close(n);
        return -1;
    }
    return 0;
}

void nccl_close(struct nccl *n)
{
    if (n->library)
        dlclose(n->library);
    n->library = NULL;
}

const char *nccl_error(const struct nccl *n, nccl_result rc)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    return s && *s ? s : "NCCL error";
}
