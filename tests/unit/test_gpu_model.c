/* Bus ids as NVML, nvidia-smi and sysfs write them, and the datacenter/client split of names. */
#include <criterion/criterion.h>

#include "model/gpu.h"

Test(gpu_bus_id, nvml_sysfs_and_hyperv_forms_normalise_alike)
{
    char out[32];
    cr_assert(gpu_bus_id_normalise("00000000:3B:00.0", out)); /* NVML / nvidia-smi */
    cr_assert_str_eq(out, "0000:3b:00.0");
    cr_assert(gpu_bus_id_normalise("0000:3b:00.0", out)); /* sysfs */
    cr_assert_str_eq(out, "0000:3b:00.0");
    cr_assert(gpu_bus_id_normalise("00001580:00:00.0", out)); /* Hyper-V 32-bit domain (pai K80 VM) */
    cr_assert_str_eq(out, "1580:00:00.0");
    cr_assert(gpu_bus_id_normalise("3b:00.0", out)); /* legacy form without domain */
    cr_assert_str_eq(out, "0000:3b:00.0");
}

Test(gpu_bus_id, garbage_is_rejected)
{
    char out[32] = "untouched";
    cr_assert_not(gpu_bus_id_normalise("GPU-513536b6-7d19", out));
    cr_assert_not(gpu_bus_id_normalise("0000:3b:00.0x", out));
    cr_assert_not(gpu_bus_id_normalise("0000:3b:20.0", out)); /* device numbers stop at 0x1f */
    cr_assert_not(gpu_bus_id_normalise("", out));
    cr_assert_not(gpu_bus_id_normalise(NULL, out));
    cr_assert_str_eq(out, "untouched");
}

Test(gpu_names, datacenter_and_client_parts)
{
    struct gpu g;
    gpu_init(&g);
    const char *datacenter[] = {"NVIDIA A100-SXM4-80GB", "Tesla V100-SXM3-32GB", "NVIDIA H100 80GB HBM3", "NVIDIA L40S"};
    const char *client[] = {"GeForce GTX 1070", "NVIDIA RTX A5000", "NVIDIA GeForce RTX 4090", "Quadro RTX 8000"};
    for (int i = 0; i < 4; i++) {
        g.name = (char *)datacenter[i];
        cr_assert(gpu_is_datacenter(&g), "%s", datacenter[i]);
        g.name = (char *)client[i];
        cr_assert_not(gpu_is_datacenter(&g), "%s", client[i]);
    }
}
