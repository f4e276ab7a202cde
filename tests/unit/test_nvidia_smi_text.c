/* The plain text of `nvidia-smi -q` read into the GPU model (probe/nvidia_smi_text.c), on real
 * pastes (tests/fixtures/README.md names each): a whole `-q -i 0` of an H800 with its fabric, a
 * trimmed `-q` of an A100 with a row remap pending, and `-q -d ECC` of eight A100s. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/gpu.h"
#include "probe/probe.h"
#include "testutil.h"
#include "util/units.h"

#define SMI(name) GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/" name

static void read_files(struct machine *m, const char *a, const char *b)
{
    machine_init(m);
    const char *paths[] = {a, b};
    cr_assert_eq(probe_nvidia_smi_files(m, paths, b ? 2 : 1), 0, "%s: %s", a,
                 m->nproblems ? m->problems[0].message : "");
}

/* A temporary file holding text (the caller unlinks it): a path in path[32]. */
static void temp_text(char path[32], const char *text)
{
    snprintf(path, 32, "/tmp/gpuvet-qtext-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

Test(q_text, h800_whole_output_with_fabric)
{
    char *text = file_contents(SMI("llm-action-h800-q-i0-drv525.txt"), NULL);
    cr_assert(text && nvidia_smi_text_is_q(text));
    cr_assert(!nvidia_smi_text_is_nvlink(text), "a -q text is not an nvlink report");
    free(text);
    struct machine m;
    read_files(&m, SMI("llm-action-h800-q-i0-drv525.txt"), NULL);
    cr_assert_str_eq(m.gpus.driver_version, "525.105.17");
    cr_assert_eq(m.gpus.cuda_major, 12);
    cr_assert_eq(m.gpus.cuda_minor, 0);
    cr_assert_eq(m.gpus.attached_gpus, 8, "the paste is of GPU 0 only (-i 0)");
    cr_assert_eq(m.gpus.count, 1);
    const struct gpu *g = &m.gpus.items[0];
    cr_assert_str_eq(g->bus_id, "0000:18:00.0");
    cr_assert_str_eq(g->name, "NVIDIA H800");
    cr_assert_str_eq(g->uuid, "GPU-34bf77d1-c686-6821-79a8-32d326c5039c");
    cr_assert_str_eq(g->vbios, "96.00.51.00.0E");
    cr_assert_eq(g->memory_total_bytes, (int64_t)81559 * MIB);
    cr_assert_eq(g->persistence, GPU_ON);
    cr_assert_eq(g->mig_current, GPU_OFF);
    cr_assert_eq(g->pstate, 0);
    cr_assert_eq(g->pcie_gen_current, 5);
    cr_assert_eq(g->pcie_gen_max, 5);
    cr_assert_eq(g->pcie_width_current, 16);
    cr_assert_eq(g->pcie_replays, 0);
    cr_assert_eq(g->ecc_current, GPU_OFF, "\"Ecc Mode\" (the old capitals) read");
    cr_assert_eq(g->ecc_corrected_volatile, -1, "N/A is unknown, not 0");
    cr_assert_eq(g->remapped_correctable, 0);
    cr_assert_eq(g->remap_pending, GPU_OFF);
    cr_assert_eq(g->remap_failure, GPU_OFF);
    cr_assert(g->clock_events_known);
    cr_assert_eq(g->clock_events, GPU_EVENT_GPU_IDLE, "only Idle is Active; the nested HW reasons are Not Active");
    cr_assert_eq(g->clock_sm_mhz, 345);
    cr_assert_eq(g->max_sm_mhz, 1980);
    cr_assert_float_eq(g->power_draw_w, 74.71, 1e-9);
    cr_assert_float_eq(g->power_limit_w, 700.0, 1e-9);
    cr_assert_eq(g->temperature_c, 35);
    cr_assert_eq(g->slowdown_temperature_c, 89);
    cr_assert_eq(g->utilization_gpu, 0);
    cr_assert_eq(g->fabric_state, GPU_FABRIC_COMPLETED);
    cr_assert_eq(g->fabric_status_ok, GPU_ON);
    cr_assert_str_eq(g->virtualization_mode, "None");
    machine_free(&m);
}

Test(q_text, a100_trimmed_paste_with_a_row_remap_pending)
{
    struct machine m;
    read_files(&m, SMI("ml-engineering-a100-sxm4-q-remap-pending.txt"), NULL);
    cr_assert_eq(m.gpus.count, 1);
    const struct gpu *g = &m.gpus.items[0];
    cr_assert_str_eq(g->bus_id, "0000:10:1c.0");
    cr_assert_str_eq(g->name, "NVIDIA A100-SXM4-80GB");
    cr_assert_eq(g->ecc_corrected_volatile, 177);
    cr_assert_eq(g->ecc_corrected_aggregate, 177);
    cr_assert_eq(g->ecc_uncorrected_volatile, 0);
    cr_assert_eq(g->retired_sbe, -1);
    cr_assert_eq(g->remapped_correctable, 1);
    cr_assert_eq(g->remapped_uncorrectable, 0);
    cr_assert_eq(g->remap_pending, GPU_ON);
    cr_assert_eq(g->remap_failure, GPU_OFF);
    cr_assert_eq(g->pstate, -1, "cut out by the paste's [...]: unknown");
    machine_free(&m);
}

/* `-q -d ECC` of eight GPUs, then their `nvlink -e`: the text names no UUID, so the counters join by
 * index; the SEC-DED and parity counters are summed like the XML's. */
Test(q_text, a100_ecc_part_then_nvlink_errors)
{
    struct machine m;
    read_files(&m, SMI("brev-8x-a100-sxm4-nvlink-e.txt"), SMI("brev-8x-a100-sxm4-q-d-ecc.txt"));
    cr_assert_eq(m.gpus.count, 8);
    cr_assert_str_eq(m.gpus.items[1].bus_id, "0000:0b:00.0");
    cr_assert_eq(m.gpus.items[1].ecc_current, GPU_ON);
    cr_assert_eq(m.gpus.items[1].ecc_corrected_aggregate, 87);
    cr_assert_eq(m.gpus.items[1].ecc_corrected_volatile, 0);
    cr_assert_eq(m.gpus.items[1].ecc_uncorrected_aggregate, 0);
    cr_assert_null(m.gpus.items[1].name, "-d ECC prints no product name");
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(m.gpus.items[i].nnvlinks, 12);
        cr_assert_eq(m.gpus.items[i].nvlinks[11].errors[GPU_NVLINK_REPLAY], 0);
    }
    machine_free(&m);
}

/* A paste indented as a whole, with its keys in other capitals and a section of no known key. */
static const char INDENTED[] = "    Driver Version                        : 535.161.08\n"
                               "    GPU 00000000:3B:00.0\n"
                               "        Product Name                      : Tesla V100-SXM2-32GB\n"
                               "        FB MEMORY USAGE\n"
                               "            Total                         : 32768 MiB\n"
                               "        Unknown Section\n"
                               "            Total                         : 5\n"
                               "        Fabric\n"
                               "            State                         : In Progress\n"
                               "            Status                        : N/A\n";

/* Indentation counts relative to the GPU line, keys case-blind, lines of no known key are left
 * out; other text is not -q. */
Test(q_text, indented_paste_and_other_text)
{
    cr_assert(nvidia_smi_text_is_q(INDENTED));
    cr_assert(!nvidia_smi_text_is_q("<?xml version=\"1.0\"?>\n<nvidia_smi_log>GPU 0000:01:00.0\n"));
    cr_assert(!nvidia_smi_text_is_q("GPU 0: NVIDIA H100 (UUID: GPU-1)\n\t Link 0: 26.562 GB/s\n"));
    cr_assert(!nvidia_smi_text_is_q("GPU 00000000:3B:00.0\n"), "a header alone is not a report");
    char path[32];
    temp_text(path, INDENTED);
    struct machine m;
    read_files(&m, path, NULL);
    unlink(path);
    cr_assert_str_eq(m.gpus.driver_version, "535.161.08");
    cr_assert_eq(m.gpus.count, 1);
    cr_assert_str_eq(m.gpus.items[0].bus_id, "0000:3b:00.0");
    cr_assert_str_eq(m.gpus.items[0].name, "Tesla V100-SXM2-32GB");
    cr_assert_eq(m.gpus.items[0].memory_total_bytes, (int64_t)32768 * MIB, "\"FB MEMORY USAGE\" matched case-blind");
    cr_assert_eq(m.gpus.items[0].fabric_state, GPU_FABRIC_IN_PROGRESS);
    cr_assert_eq(m.gpus.items[0].fabric_status_ok, GPU_UNKNOWN);
    machine_free(&m);
}

/* Text of another command (`nvidia-smi`'s table) is refused naming the forms that are read. */
Test(q_text, other_text_is_refused_naming_the_forms)
{
    char path[32];
    temp_text(path, "|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:0A:00.0 Off |                    0 |\n");
    struct machine m;
    machine_init(&m);
    const char *paths[] = {path};
    cr_assert_eq(probe_nvidia_smi_files(&m, paths, 1), -1);
    unlink(path);
    cr_assert_eq(m.nproblems, 1);
    cr_assert(strstr(m.problems[0].message, "holds no nvidia-smi evidence; looked for `nvidia-smi -q -x` XML, "
                                            "`nvidia-smi -q` text"),
              "%s", m.problems[0].message);
    cr_assert_eq(m.gpus.count, 0);
    machine_free(&m);
}

/* Driver 560's names: "Clocks Event Reasons", "GPU Power Readings" with "Current Power Limit", and
 * T.Limit temperatures that give no absolute slowdown threshold (unknown, as in its -q -x). */
Test(q_text, h100_driver_560_names)
{
    struct machine m;
    read_files(&m, SMI("jdh4-della-h100-q-a-drv560.txt"), NULL);
    cr_assert_str_eq(m.gpus.driver_version, "560.35.03");
    cr_assert_eq(m.gpus.count, 1);
    const struct gpu *g = &m.gpus.items[0];
    cr_assert_str_eq(g->bus_id, "0000:db:00.0");
    cr_assert_str_eq(g->name, "NVIDIA H100 80GB HBM3");
    cr_assert_eq(g->pcie_replays, 6);
    cr_assert(g->clock_events_known);
    cr_assert_eq(g->clock_events, GPU_EVENT_GPU_IDLE);
    cr_assert_float_eq(g->power_draw_w, 71.53, 1e-9, "the GPU's reading, not the memory's 30.79 W");
    cr_assert_float_eq(g->power_limit_w, 700.0, 1e-9);
    cr_assert_eq(g->temperature_c, 34);
    cr_assert_eq(g->slowdown_temperature_c, -1, "only a T.Limit offset: unknown");
    cr_assert_eq(g->ecc_current, GPU_ON);
    cr_assert_eq(g->ecc_corrected_aggregate, 0);
    cr_assert_eq(g->fabric_state, GPU_FABRIC_COMPLETED);
    cr_assert_eq(g->fabric_status_ok, GPU_ON);
    machine_free(&m);
}

/* A file of more GPU sections than any node has: the first 64 read, the count said. */
Test(q_text, sections_past_the_cap_are_counted_not_built)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    for (int i = 0; i < 5000; i++)
        fprintf(mem, "GPU 00000000:%02X:00.0\n    Product Name                          : NVIDIA H100\n", i % 256);
    fclose(mem);
    char path[32];
    temp_text(path, text);
    free(text);
    struct machine m;
    read_files(&m, path, NULL);
    unlink(path);
    cr_assert_eq(m.gpus.count, 64);
    bool said = false;
    for (int i = 0; i < m.nproblems; i++)
        said |= strstr(m.problems[i].message, "holds 5000 GPU sections; only the first 64 are read") != NULL;
    cr_assert(said);
    machine_free(&m);
}
