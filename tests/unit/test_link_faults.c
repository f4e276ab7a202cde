/* The parsers behind the link and fabric rules: PCIe ACS in a port's configuration space
 * (probe/rdma_faults.c), the NVLinks a part has (data/gpus.csv through util/gputable.c), and
 * nvidia-smi's fabric words (model/gpu.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "model/gpu.h"
#include "probe/probe.h"
#include "util/gputable.h"

/* A 4096-byte configuration space whose extended capabilities are AER at 0x100, then ACS at 0x148
 * with the given control word (the layout `lspci -vvv` shows for PLX and Broadcom switch ports). */
static void config_with_acs(unsigned char *c, unsigned ctrl)
{
    memset(c, 0, 4096);
    unsigned aer = 0x0001u | 1u << 16 | 0x148u << 20, acs = 0x000du | 1u << 16;
    memcpy(c + 0x100, (unsigned char[4]){aer & 0xff, aer >> 8 & 0xff, aer >> 16 & 0xff, aer >> 24}, 4);
    memcpy(c + 0x148, (unsigned char[4]){acs & 0xff, acs >> 8 & 0xff, acs >> 16 & 0xff, acs >> 24}, 4);
    c[0x148 + 4] = 0x5f; /* capabilities: SV TB RR CR UF EC */
    c[0x148 + 6] = ctrl & 0xff;
    c[0x148 + 7] = ctrl >> 8;
}

Test(acs, request_or_completion_redirect_is_on)
{
    static unsigned char c[4096];
    const char *why = NULL;
    config_with_acs(c, 0x001d); /* SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+: the BIOS default on many boards */
    cr_assert_eq(pci_acs_redirect(c, sizeof c, &why), 1);
    config_with_acs(c, 0x0020); /* EgressCtrl+ only */
    cr_assert_eq(pci_acs_redirect(c, sizeof c, &why), 1);
    config_with_acs(c, 0x0001); /* SrcValid+ alone redirects nothing */
    cr_assert_eq(pci_acs_redirect(c, sizeof c, &why), 0);
}

Test(acs, no_capability_and_loops_end)
{
    static unsigned char c[4096];
    const char *why = NULL;
    memset(c, 0, sizeof c);
    cr_assert_eq(pci_acs_redirect(c, sizeof c, &why), 0, "an empty extended space has no ACS");
    /* A capability that points at itself ends the walk. */
    unsigned self = 0x0001u | 0x100u << 20;
    memcpy(c + 0x100, (unsigned char[4]){self & 0xff, self >> 8 & 0xff, self >> 16 & 0xff, self >> 24}, 4);
    cr_assert_eq(pci_acs_redirect(c, sizeof c, &why), 0);
}

Test(acs, a_short_read_is_unknown_with_the_reason)
{
    static unsigned char c[4096];
    const char *why = NULL;
    config_with_acs(c, 0x001d);
    cr_assert_eq(pci_acs_redirect(c, 64, &why), -1, "a non-root read returns 64 bytes");
    cr_assert(why && strstr(why, "root"));
    cr_assert_eq(pci_acs_redirect(c, 256, &why), -1);
}

Test(nvlinks, each_part_has_the_links_nvidia_lists)
{
    struct gpu_table t;
    char err[256], note[256];
    cr_assert_eq(gpu_table_load_default(&t, err, sizeof err), 0, "%s", err);
    static const struct {
        const char *name;
        int links;
    } parts[] = {{"NVIDIA A100-SXM4-80GB", 12}, {"NVIDIA H100 80GB HBM3", 18}, {"NVIDIA H200", 18},
                 {"NVIDIA B200", 18},           {"Tesla V100-SXM2-32GB", 6},   {"NVIDIA H800", 8},
                 {"NVIDIA A100-PCIE-40GB", -1}, {"NVIDIA H100 PCIe", -1},      {"NVIDIA L40S", 0},
                 {"NVIDIA GH200 480GB", -1},    {"AMD Instinct MI300X", -1}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const struct gpu_spec *g = gpu_lookup(&t, parts[i].name, note, sizeof note, err, sizeof err);
        cr_assert_not_null(g, "%s: %s", parts[i].name, err);
        cr_assert_eq(gpu_spec_nvlinks(g), parts[i].links, "%s", parts[i].name);
    }
    gpu_table_free(&t);
}

Test(fabric_words, nvidia_smi_words_round_trip)
{
    cr_assert_eq(gpu_fabric_state_parse("Completed"), GPU_FABRIC_COMPLETED);
    cr_assert_eq(gpu_fabric_state_parse("in progress"), GPU_FABRIC_IN_PROGRESS);
    cr_assert_eq(gpu_fabric_state_parse("Not Started"), GPU_FABRIC_NOT_STARTED);
    cr_assert_eq(gpu_fabric_state_parse("Not Supported"), GPU_FABRIC_NOT_SUPPORTED);
    cr_assert_eq(gpu_fabric_state_parse("Completing"), GPU_FABRIC_UNKNOWN);
    cr_assert_eq(gpu_fabric_state_parse(NULL), GPU_FABRIC_UNKNOWN);
    cr_assert_str_eq(gpu_fabric_state_name(GPU_FABRIC_IN_PROGRESS), "In Progress");
    cr_assert_str_eq(gpu_fabric_state_name(GPU_FABRIC_UNKNOWN), "unknown");
}
