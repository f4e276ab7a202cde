/* The parsers behind the link and fabric rules: PCIe ACS in a port's configuration space
 * (probe/rdma_faults.c), the NVLinks a part has (data/gpus.csv through util/gputable.c), and
 * nvidia-smi's fabric words (model/gpu.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "probe/probe.h"
#include "testutil.h"
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
                 /* Bridged cards: the links with every bridge fitted (H100 NVL: 12, not SXM's 18,
                  * AzNHC issue #162; NVIDIA's NVLink page: A100 "up to twelve"). */
                 {"NVIDIA A100-PCIE-40GB", 12}, {"NVIDIA H100 PCIe", 12},      {"NVIDIA H100 NVL", 12},
                 {"NVIDIA A100 80GB PCIe", 12}, {"NVIDIA H800 PCIe", 8},       {"NVIDIA L40S", 0},
                 {"NVIDIA RTX A6000", -1},      {"NVIDIA GH200 480GB", -1},    {"AMD Instinct MI300X", -1}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const struct gpu_spec *g = gpu_lookup(&t, parts[i].name, note, sizeof note, err, sizeof err);
        cr_assert_not_null(g, "%s: %s", parts[i].name, err);
        cr_assert_eq(gpu_spec_nvlinks(g), parts[i].links, "%s", parts[i].name);
        bool bridged = strstr(parts[i].name, "PCI") || strstr(parts[i].name, "NVL") || strstr(parts[i].name, "A6000");
        cr_assert_eq(gpu_spec_nvlink_bridged(g), bridged, "%s", parts[i].name);
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

/* --- `nvidia-smi nvlink -s` text (the real pastes in tests/fixtures/nvidia-smi) -------- */

static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fixtures/nvidia-smi/%s", GPUVET_TEST_SOURCE, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void gpus(struct machine *m, int count, const char *const *uuids)
{
    machine_init(m);
    for (int i = 0; i < count; i++) {
        struct gpu *g = gpu_set_add(&m->gpus);
        snprintf(g->bus_id, sizeof g->bus_id, "0000:%02x:00.0", 0x10 + i);
        if (uuids && uuids[i])
            g->uuid = strdup(uuids[i]);
    }
}

Test(nvlink_text, azhpc_v100_links_3_and_5_inactive_joined_by_index)
{
    const char *text = slurp("azhpc-diagnostics-73-v100-nvlink-s.txt");
    cr_assert(nvidia_smi_text_is_nvlink(text));
    struct machine m;
    gpus(&m, 4, NULL);
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "t", text), 0);
    const struct gpu *g = &m.gpus.items[3];
    cr_assert(g->nvlink_known);
    cr_assert_eq(g->nnvlinks, 6);
    for (int l = 0; l < 6; l++)
        cr_assert_eq(g->nvlinks[l].active, l == 3 || l == 5 ? GPU_OFF : GPU_ON, "link %d", l);
    cr_assert(!m.gpus.items[0].nvlink_known, "the paste left the other GPUs out");
    machine_free(&m);
}

Test(nvlink_text, bottlerocket_h100_joined_by_uuid_all_up)
{
    const char *text = slurp("bottlerocket-4418-h100-nvlink-s.txt");
    cr_assert(nvidia_smi_text_is_nvlink(text));
    struct machine m;
    /* In the other order: the UUID decides, not the index. */
    gpus(&m, 2, (const char *const[]){"GPU-dd3b269a-8f3a-d2d5-1518-2713ba03fcf7", "GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053"});
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "t", text), 0);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(m.gpus.items[i].nnvlinks, 18);
        for (int l = 0; l < 18; l++)
            cr_assert_eq(m.gpus.items[i].nvlinks[l].active, GPU_ON);
    }
    machine_free(&m);
}

Test(nvlink_text, gpud_b200_all_inactive_lists_no_link)
{
    const char *text = slurp("gpud-1085-b200-all-inactive-nvlink-s.txt");
    cr_assert(nvidia_smi_text_is_nvlink(text));
    struct machine m;
    gpus(&m, 3, NULL); /* "GPU-xxx" is an elided UUID: joined by index */
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "t", text), 0);
    cr_assert(m.gpus.items[2].nvlink_known);
    cr_assert_eq(m.gpus.items[2].nnvlinks, 0, "none up; the part's own count says how many are down");
    machine_free(&m);
}

Test(nvlink_text, other_text_is_not_nvlink_and_alone_it_describes_its_gpus)
{
    cr_assert(!nvidia_smi_text_is_nvlink("<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n"));
    cr_assert(!nvidia_smi_text_is_nvlink("GPU 0: NVIDIA H100 (UUID: GPU-1)\n"));
    struct machine m;
    gpus(&m, 0, NULL);
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "t", slurp("bottlerocket-4418-h100-nvlink-s.txt")), 0);
    cr_assert_eq(m.nproblems, 0);
    cr_assert_eq(m.gpus.count, 2);
    cr_assert_str_eq(m.gpus.items[1].bus_id, "GPU 1");
    cr_assert_str_eq(m.gpus.items[1].name, "NVIDIA H100 80GB HBM3");
    cr_assert_str_eq(m.gpus.items[1].uuid, "GPU-dd3b269a-8f3a-d2d5-1518-2713ba03fcf7");
    cr_assert_eq(m.gpus.items[1].nnvlinks, 18);
    machine_free(&m);
}

/* --- `nvidia-smi nvlink -e` text ----------------------------------------------------------------- */

/* A real paste of `nvidia-smi nvlink -e -i N` for the 8 A100 SXM4 of one node: 12 links each, every
 * counter 0. UUIDs given but the GPUs here have none: joined by index. */
Test(nvlink_errors_text, brev_a100_counters_read_per_link)
{
    const char *text = slurp("brev-8x-a100-sxm4-nvlink-e.txt");
    cr_assert(nvidia_smi_text_is_nvlink(text));
    cr_assert(!nvidia_smi_text_is_q(text));
    struct machine m;
    gpus(&m, 8, NULL);
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "t", text), 0);
    for (int i = 0; i < 8; i++) {
        const struct gpu *g = &m.gpus.items[i];
        cr_assert_eq(g->nnvlinks, 12, "GPU %d", i);
        cr_assert(!g->nvlink_known, "-e says nothing of the links' state");
        for (int l = 0; l < 12; l++) {
            cr_assert_eq(g->nvlinks[l].link, l);
            cr_assert_eq(g->nvlinks[l].active, GPU_UNKNOWN);
            cr_assert_eq(g->nvlinks[l].errors[GPU_NVLINK_REPLAY], 0);
            cr_assert_eq(g->nvlinks[l].errors[GPU_NVLINK_RECOVERY], 0);
            cr_assert_eq(g->nvlinks[l].errors[GPU_NVLINK_CRC_FLIT], 0, "\"CRC Errors\" is the flit CRC counter");
            cr_assert_eq(g->nvlinks[l].errors[GPU_NVLINK_CRC_DATA], -1, "not printed: unknown");
        }
    }
    machine_free(&m);
}

/* -s and -e of the same GPUs merge link by link, in either order; a count that is not a number is
 * unknown, not 0. */
Test(nvlink_errors_text, state_and_counters_merge)
{
    struct machine m;
    gpus(&m, 1, (const char *const[]){"GPU-fde0a018-ad1a-bbec-ccf6-50a9f64bd178"});
    const char *e = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-fde0a018-ad1a-bbec-ccf6-50a9f64bd178)\n"
                    "\t Link 1: Replay Errors: 7\n\t Link 1: Recovery Errors: N/A\n\t Link 1: CRC Errors: 3\n";
    const char *s = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-fde0a018-ad1a-bbec-ccf6-50a9f64bd178)\n"
                    "\t Link 0: 25 GB/s\n\t Link 1: <inactive>\n";
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "e", e), 0);
    cr_assert_eq(probe_nvidia_smi_nvlink_text(&m, "s", s), 0);
    const struct gpu *g = &m.gpus.items[0];
    cr_assert(g->nvlink_known);
    cr_assert_eq(g->nnvlinks, 2);
    cr_assert_eq(g->nvlinks[0].link, 1);
    cr_assert_eq(g->nvlinks[0].active, GPU_OFF);
    cr_assert_eq(g->nvlinks[0].errors[GPU_NVLINK_REPLAY], 7);
    cr_assert_eq(g->nvlinks[0].errors[GPU_NVLINK_RECOVERY], -1);
    cr_assert_eq(g->nvlinks[0].errors[GPU_NVLINK_CRC_FLIT], 3);
    cr_assert_eq(g->nvlinks[1].link, 0);
    cr_assert_eq(g->nvlinks[1].active, GPU_ON);
    cr_assert_eq(g->nvlinks[1].errors[GPU_NVLINK_REPLAY], -1);
    machine_free(&m);
}
