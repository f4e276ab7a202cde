/* A stand-in for libnccl.so.2 (built into the same library as the NVML and CUDA stand-ins, so its
 * all-reduces keep the simulated GPU busy on the clock the CUDA stand-in's events read). An
 * all-reduce of S bytes over n ranks takes S x 2(n-1)/n / $GPUVET_MOCK_NCCL_BUSBW seconds of
 * simulated GPU time (default 20e9 bytes/s), counted once per group (rank 0's call), so the bus
 * bandwidth gpuvet derives is exactly the knob's whatever the host's load. Knobs:
 *   GPUVET_MOCK_NCCL_HANG=call    that call (ncclCommInitAll, ncclAllReduce, ncclGroupEnd) never returns
 *   GPUVET_MOCK_NCCL_ERROR=call   that call returns ncclUnhandledCudaError
 *   GPUVET_MOCK_NCCL_NOOP=1       all-reduces take no time (a library that does nothing) */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mock.h"

#define NCCL_OK 0
#define NCCL_UNHANDLED_CUDA_ERROR 1
#define NCCL_INVALID_ARGUMENT 4

struct mock_comm {
    int rank, nranks, device;
};

static bool named(const char *knob, const char *call)
{
    const char *v = getenv(knob);
    return v && !strcmp(v, call);
}

/* The call's fate: hangs, fails, or goes on. */
static int enter(const char *call)
{
    if (named("GPUVET_MOCK_NCCL_HANG", call))
        for (;;)
            pause();
    return named("GPUVET_MOCK_NCCL_ERROR", call) ? NCCL_UNHANDLED_CUDA_ERROR : NCCL_OK;
}

int ncclGetVersion(int *version)
{
    *version = 22809; /* 2.28.9, NCCL_VERSION_CODE's form */
    return NCCL_OK;
}

const char *ncclGetErrorString(int rc)
{
    return rc == NCCL_UNHANDLED_CUDA_ERROR ? "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
           : rc == NCCL_INVALID_ARGUMENT   ? "invalid argument (run with NCCL_DEBUG=WARN for details)"
                                           : "mock NCCL error";
}

int ncclCommInitAll(struct mock_comm **comms, int ndev, const int *devlist)
{
    int rc = enter("ncclCommInitAll");
    if (rc)
        return rc;
    if (ndev < 1 || !comms || !devlist)
        return NCCL_INVALID_ARGUMENT;
    for (int i = 0; i < ndev; i++) {
        comms[i] = calloc(1, sizeof **comms);
        if (!comms[i])
            return NCCL_UNHANDLED_CUDA_ERROR;
        *comms[i] = (struct mock_comm){i, ndev, devlist[i]};
    }
    return NCCL_OK;
}

int ncclCommDestroy(struct mock_comm *comm)
{
    free(comm);
    return NCCL_OK;
}

int ncclCommAbort(struct mock_comm *comm)
{
    free(comm);
    return NCCL_OK;
}

int ncclGroupStart(void) { return NCCL_OK; }
int ncclGroupEnd(void) { return enter("ncclGroupEnd"); }

int ncclAllReduce(const void *send, void *recv, size_t count, int datatype, int op, struct mock_comm *comm,
                  void *stream)
{
    (void)stream;
    int rc = enter("ncclAllReduce");
    if (rc)
        return rc;
    if (!send || !recv || !comm || datatype != 7 /* ncclFloat32 */ || op != 0 /* ncclSum */)
        return NCCL_INVALID_ARGUMENT;
    const char *v = getenv("GPUVET_MOCK_NCCL_BUSBW");
    double busbw = v && *v ? atof(v) : 20e9;
    if (comm->rank == 0 && !getenv("GPUVET_MOCK_NCCL_NOOP"))
        mock_gpu_busy_for(count * 4.0 * 2.0 * (comm->nranks - 1) / comm->nranks / busbw);
    return NCCL_OK;
}
