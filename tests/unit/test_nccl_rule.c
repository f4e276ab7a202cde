/* GPU_NCCL_LOW's choice of link on a machine model that shows NVLink state (NVML does; an
 * `nvidia-smi -q -x` file does not, which tests/cli/test_bench_nccl.c covers): bridges count where
 * their NVLinks are active between the GPUs, else the GPUs talk over PCIe; a bridge that joins two
 * GPUs is no ring over four. Each case's verdict is labelled before it was run, from the figures
 * of model/link_busbw.h, and the bridge figure is the one sizing/interconnect gives plan and cost. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule.h"
#include "sizing/interconnect.h"
#include "util/gputable.h"

static const char *const bus[] = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0"};

/* n GPUs of part `spec` (PCIe Gen`gen` x16 with their slots), each joined to its pair's other GPU by
 * `links` NVLinks, active or not (links 0: NVLink state unknown); all-reduce at busbw bytes/s. */
static void node(struct machine *m, const char *spec, int n, int gen, int links, bool active, double busbw)
{
    machine_init(m);
    for (int i = 0; i < n; i++) {
        struct gpu *g = gpu_set_add(&m->gpus);
        snprintf(g->bus_id, sizeof g->bus_id, "%s", bus[i]);
        g->pcie_gen_max = gen;
        g->pcie_width_max = 16;
        g->nvlink_known = links > 0;
        for (int k = 0; k < links; k++) {
            g->nvlinks[k].link = k;
            g->nvlinks[k].active = active ? GPU_ON : GPU_OFF;
            snprintf(g->nvlinks[k].remote_bus_id, sizeof g->nvlinks[k].remote_bus_id, "%s", bus[i ^ 1]);
        }
        g->nnvlinks = links;
    }
    struct bench_results *b = &m->bench;
    b->loaded = true;
    b->source = strdup("test.json");
    b->gpu = calloc((size_t)n, sizeof *b->gpu);
    b->nccl.gpus = calloc((size_t)n, sizeof *b->nccl.gpus);
    for (int i = 0; i < n; i++) {
        snprintf(b->gpu[i].bus_id, sizeof b->gpu[i].bus_id, "%s", bus[i]);
        snprintf(b->gpu[i].spec_id, sizeof b->gpu[i].spec_id, "%s", spec);
        b->gpu[i].error = strdup("not measured in this test");
        snprintf(b->nccl.gpus[i], sizeof b->nccl.gpus[i], "%s", bus[i]);
    }
    b->ngpu = b->nccl.ngpus = n;
    b->nccl.busbw_bytes_s = busbw;
    b->nccl.bytes = 1 << 30;
}

/* GPU_NCCL_LOW's finding: its severity, and its evidence's expected figure and link in *expected, link. */
static const char *judge(struct machine *m, double *expected, char *link, size_t size)
{
    struct findings f = {0};
    rules_run(m, WL_GENERAL, NULL, &f);
    static char severity[16];
    int found = 0;
    for (int i = 0; i < f.count; i++)
        if (!strcmp(f.items[i].rule->id, "GPU_NCCL_LOW")) {
            found++;
            snprintf(severity, sizeof severity, "%s", severity_name(f.items[i].severity));
            json_t *e = f.items[i].evidence;
            *expected = json_number_value(json_object_get(e, "expected_busbw_bytes_s"));
            const char *name = json_string_value(json_object_get(e, "link"));
            snprintf(link, size, "%s", name ? name : "");
            cr_log_info("%s: %s", severity, f.items[i].message);
        }
    cr_assert_eq(found, 1);
    findings_free(&f);
    machine_free(m);
    return severity;
}

static double sizing_busbw(const char *spec, int n)
{
    struct gpu_table table;
    char err[512];
    cr_assert_eq(gpu_table_load_default(&table, err, sizeof err), 0, "%s", err);
    struct interconnect ic;
    interconnect_in_node(gpu_lookup(&table, spec, NULL, 0, err, sizeof err), n, &ic);
    gpu_table_free(&table);
    return ic.busbw_bytes_s;
}

/* Label: WARN. Two RTX A5000 with their NVLink3 bridge active: 115.9/300 of its 56.25 GB/s a
 * direction is 21.7 GB/s, and 12 GB/s is 55 % of it. */
Test(nccl_rule, an_active_bridge_is_judged_by_the_bridge_figure)
{
    struct machine m;
    node(&m, "rtx-a5000-24gb", 2, 4, 4, true, 12e9);
    double expected;
    char link[96];
    cr_expect_str_eq(judge(&m, &expected, link, sizeof link), "warn");
    cr_expect_str_eq(link, "NVLink3 bridge (2 GPUs)");
    cr_expect_float_eq(expected, sizing_busbw("rtx-a5000-24gb", 2), 1, "plan's figure for the same GPUs");
    cr_expect_float_eq(expected, 115.9 / 300 * 56.25e9, 1e6);
}

/* Label: PASS. The same GPUs with their NVLinks down talk over PCIe Gen4 x16: 14.0 GB/s expected,
 * 12 GB/s is 86 %. (GPU_NVLINK_DOWN is the rule that names the links.) */
Test(nccl_rule, inactive_bridges_mean_pcie)
{
    struct machine m;
    node(&m, "rtx-a5000-24gb", 2, 4, 4, false, 12e9);
    double expected;
    char link[96];
    cr_expect_str_eq(judge(&m, &expected, link, sizeof link), "pass");
    cr_expect_str_eq(link, "PCIe Gen4 x16");
    cr_expect_float_eq(expected, 14e9, 1e7);
}

/* Label: FAIL. Four H100 PCIe (NVLink4 bridges join pairs): the ring over four runs over PCIe Gen5
 * x16, 28 GB/s (NVIDIA/nccl issue 1639), the figure plan uses for four of them; 10 GB/s is 36 %. */
Test(nccl_rule, a_bridge_of_two_is_no_ring_over_four)
{
    struct machine m;
    node(&m, "h100-pcie-80gb", 4, 5, 4, true, 10e9);
    double expected;
    char link[96];
    cr_expect_str_eq(judge(&m, &expected, link, sizeof link), "fail");
    cr_expect_str_eq(link, "PCIe Gen5 x16");
    cr_expect_float_eq(expected, sizing_busbw("h100-pcie-80gb", 4), 1);
    cr_expect_float_eq(expected, 28e9, 1e6);
}
