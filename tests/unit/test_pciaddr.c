/* Bus ids as sysfs, nvidia-smi, NVML (busId, busIdLegacy, v1) and lspci write them, read by the one
 * parser (util/pciaddr.c) and matched across forms. The ids are real ones from the recorded
 * fixtures: sysfs names from tests/fixtures/sysroot (2pa-pcidomain32bits has 32-bit domain
 * 10000:, h200-firecracker-vm the H200 at 0000:00:06.0), nvidia-smi ids from tests/fixtures and
 * tests/corpus nvidia-smi files. */
#include <criterion/criterion.h>
#include <string.h>

#include "gpu/nvml.h"
#include "model/gpu.h"
#include "model/machine.h"
#include "util/pciaddr.h"

static const char *normalised(const char *text)
{
    static char out[PCI_ADDRESS_LEN];
    return pci_address_normalise(text, out) ? out : "(rejected)";
}

Test(pciaddr, every_form_of_one_function_normalises_to_the_sysfs_name)
{
    cr_assert_str_eq(normalised("00000000:17:00.0"), "0000:17:00.0"); /* nvidia-smi, telegraf-quadro-p2000-v12 */
    cr_assert_str_eq(normalised("0000:17:00.0"), "0000:17:00.0");     /* sysfs, NVML busIdLegacy */
    cr_assert_str_eq(normalised("00000000:C1:00.0"), "0000:c1:00.0"); /* upper case */
    cr_assert_str_eq(normalised("0000:c1:00.0"), "0000:c1:00.0");
    cr_assert_str_eq(normalised("00000000:00:1E.0"), "0000:00:1e.0"); /* a VM's device number */
    cr_assert_str_eq(normalised("00001580:00:00.0"), "1580:00:00.0"); /* Hyper-V domain, pai K80 VM */
    cr_assert_str_eq(normalised("0000F8D6:00:00.0"), "f8d6:00:00.0");
    cr_assert_str_eq(normalised("c1:00.0"), "0000:c1:00.0");          /* lspci without a domain */
    cr_assert_str_eq(normalised("0000:3b:00.0\n"), "0000:3b:00.0");   /* a line read from a file */
    cr_assert_str_eq(normalised("  00000000:3B:00.0 "), "0000:3b:00.0");
}

Test(pciaddr, vmd_32_bit_domains_keep_all_their_digits)
{
    /* sysfs of 2pa-pcidomain32bits: /sys/bus/pci/devices/10000:00:04.0 */
    struct pci_address a;
    cr_assert(pci_address_parse("10000:00:04.0", &a));
    cr_assert_eq(a.domain, 0x10000u);
    cr_assert_eq(a.device, 4);
    char out[PCI_ADDRESS_LEN];
    pci_address_format(&a, out);
    cr_assert_str_eq(out, "10000:00:04.0");
    pci_address_format_nvml(&a, out);
    cr_assert_str_eq(out, "00010000:00:04.0");
    pci_address_format_short(&a, out);
    cr_assert_str_eq(out, "10000:00:04.0", "a domain other than 0 is never dropped");
    cr_assert(pci_address_same("00010000:00:04.0", "10000:00:04.0"));
    cr_assert_not(pci_address_same("00010000:00:04.0", "0000:00:04.0"), "a 16-bit cut would merge them");
    cr_assert_str_eq(normalised("FFFFFFFF:FF:1F.7"), "ffffffff:ff:1f.7");
}

Test(pciaddr, formats)
{
    struct pci_address a = {0, 0x3b, 0, 0};
    char out[PCI_ADDRESS_LEN];
    pci_address_format(&a, out);
    cr_assert_str_eq(out, "0000:3b:00.0");
    pci_address_format_nvml(&a, out);
    cr_assert_str_eq(out, "00000000:3B:00.0");
    pci_address_format_short(&a, out);
    cr_assert_str_eq(out, "3b:00.0");
}

Test(pciaddr, anything_else_is_rejected)
{
    const char *bad[] = {"GPU-513536b6-7d19", "0000:3b:00.0x", "0000:3b:20.0" /* devices stop at 0x1f */,
                         "0000:3b:00.8" /* functions at 7 */, "000000000:3b:00.0" /* 9 domain digits */,
                         "0000:100:00.0", "0x0:3b:00.0", "+0000:3b:00.0", "-1:3b:00.0", "0000:3b:00.", "0000::00.0",
                         "0000:3b:00", "0000:3b:00.0.0", "pci0000:00", "0000:3b 00.0", "0000:3b:00.0 x", "", "   "};
    char out[PCI_ADDRESS_LEN] = "untouched";
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_not(pci_address_normalise(bad[i], out), "accepted \"%s\"", bad[i]);
    cr_assert_not(pci_address_normalise(NULL, out));
    cr_assert_str_eq(out, "untouched");
    cr_assert_not(pci_address_same(NULL, "0000:3b:00.0"));
    cr_assert_not(pci_address_same("machine", "machine"), "only bus ids are the same function");
}

Test(pciaddr, sysfs_names_are_exactly_the_kernels)
{
    cr_assert(pci_address_is_sysfs_name("0000:00:06.0"));
    cr_assert(pci_address_is_sysfs_name("10000:00:04.0"));
    cr_assert_not(pci_address_is_sysfs_name("0000:3B:00.0"));
    cr_assert_not(pci_address_is_sysfs_name("00000000:3b:00.0"));
    cr_assert_not(pci_address_is_sysfs_name("3b:00.0"));
    cr_assert_not(pci_address_is_sysfs_name("pci0000:00"));
    cr_assert_not(pci_address_is_sysfs_name("0000:00:06.0\n"));
}

/* NVML's nvmlPciInfo_t as v2/v3 fill it, as v1 filled it (busId in the first 16 bytes, reserved
 * words after the numbers), and with text that disagrees with the numbers. */
Test(pciaddr, nvml_pci_info_in_every_version)
{
    char out[PCI_ADDRESS_LEN];
    struct nvml_pci_info v3 = {"0000:17:00.0", 0, 0x17, 0, 0x1cb110de, 0, "00000000:17:00.0"};
    nvml_pci_bus_id(&v3, out);
    cr_assert_str_eq(out, "0000:17:00.0");

    struct nvml_pci_info v1;
    memset(&v1, 0xff, sizeof v1); /* the reserved words and what lies beyond a v1 struct */
    memcpy(v1.bus_id_legacy, "0000:3B:00.0", 13);
    v1.domain = 0, v1.bus = 0x3b, v1.device = 0;
    nvml_pci_bus_id(&v1, out);
    cr_assert_str_eq(out, "0000:3b:00.0");

    struct nvml_pci_info vmd = {"", 0x10000, 0x01, 0, 0, 0, "00010000:01:00.0"};
    nvml_pci_bus_id(&vmd, out);
    cr_assert_str_eq(out, "10000:01:00.0");

    struct nvml_pci_info disagreeing = {"0000:99:00.0", 0, 0x41, 0, 0, 0, "00000000:99:00.0"};
    nvml_pci_bus_id(&disagreeing, out);
    cr_assert_str_eq(out, "0000:41:00.0", "the numbers win over text that names another function");
}

/* A GPU read from nvidia-smi or NVML finds its sysfs function whatever the spelling. */
Test(pciaddr, a_gpu_finds_its_sysfs_function_across_forms)
{
    struct machine m;
    machine_init(&m);
    struct pci_device devices[2];
    memset(devices, 0, sizeof devices);
    snprintf(devices[0].bus_id, sizeof devices[0].bus_id, "0000:00:06.0");  /* h200-firecracker-vm sysfs */
    snprintf(devices[1].bus_id, sizeof devices[1].bus_id, "10000:00:04.0"); /* 2pa-pcidomain32bits sysfs */
    m.pci = devices;
    m.npci = 2;
    cr_assert_not_null(gpu_set_add(&m.gpus));
    cr_assert_not_null(gpu_set_add(&m.gpus));
    struct gpu *h200 = &m.gpus.items[0], *vmd = &m.gpus.items[1]; /* after the last add: it reallocates */
    cr_assert(pci_address_normalise("00000000:00:06.0", h200->bus_id)); /* gpuvet-h200-passthrough-drv580.xml */
    struct nvml_pci_info info = {"", 0x10000, 0, 4, 0, 0, "00010000:00:04.0"};
    nvml_pci_bus_id(&info, vmd->bus_id);
    cr_assert_eq(gpu_pci_device(&m, h200), &devices[0]);
    cr_assert_eq(gpu_pci_device(&m, vmd), &devices[1]);
    cr_assert_eq(gpu_set_find(&m.gpus, "00000000:00:06.0"), h200);
    cr_assert_eq(gpu_set_find(&m.gpus, "0000:00:06.0"), h200);
    cr_assert_eq(gpu_set_find(&m.gpus, "00010000:00:04.0"), vmd);
    cr_assert_null(gpu_set_find(&m.gpus, "0000:00:04.0"));
    m.pci = NULL;
    m.npci = 0;
    machine_free(&m);
}
