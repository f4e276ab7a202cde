/* libFuzzer target: `nvidia-smi -q -x` XML as --nvidia-smi FILE reads it (libxml2 without network,
 * DTD or entities; counts and numbers capped). Seeds: tests/fixtures/nvidia-smi/. */
#include "fuzz_file.h"
#include "model/machine.h"
#include "probe/probe.h"

int fuzz_nvsmi_one(const uint8_t *data, size_t size);

int fuzz_nvsmi_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".xml");
    if (!path)
        return 0;
    struct machine m;
    machine_init(&m);
    probe_nvidia_smi_file(&m, path);
    machine_free(&m);
    return 0;
}

FUZZ_ENTRY(fuzz_nvsmi_one)
