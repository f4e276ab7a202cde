/* libFuzzer target: `nvidia-smi -q -x` XML and `nvidia-smi -q` text as --nvidia-smi FILE reads them
 * (libxml2 without network, DTD or entities; counts and numbers capped), and the same bytes as
 * `nvidia-smi nvlink -s`/`-e` text joined to eight GPUs. Seeds: tests/fixtures/nvidia-smi/. */
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
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    machine_init(&m);
    for (int i = 0; i < 8; i++) {
        struct gpu *g = gpu_set_add(&m.gpus);
        if (g)
            snprintf(g->bus_id, sizeof g->bus_id, "0000:%02x:00.0", 0x10 + i);
    }
    if (m.gpus.count > 0)
        m.gpus.items[0].uuid = strdup("GPU-fde0a018-ad1a-bbec-ccf6-50a9f64bd178");
    probe_nvidia_smi_nvlink_text(&m, path, text);
    machine_free(&m);
    free(text);
    return 0;
}

FUZZ_ENTRY(fuzz_nvsmi_one)
