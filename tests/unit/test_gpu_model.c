/* The datacenter/client split of GPU names (bus ids: test_pciaddr.c). */
#include <criterion/criterion.h>

#include "model/gpu.h"

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
