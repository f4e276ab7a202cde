/* POWER_SUPPLY headroom on the supplies of a real report (HPE DL380 Gen11: 2 x 1000 W), with GPUs
 * whose power limits a GPU probe would fill. */
#include <criterion/criterion.h>
#include <string.h>

#include "probe/dmi.h"
#include "probe/probe.h"
#include "rules/rule.h"

#define HPE GPUVET_TEST_SOURCE "/fixtures/dmidecode/hpe-dl380-gen11-2p-xeon-ddr5-8of32.dmidecode.txt"

static int headroom_findings(int gpus, double watts_each, const char *severity)
{
    struct machine m;
    machine_init(&m);
    cr_assert_eq(probe_machine(&m, &(struct probe_request){.read_system = false}), 0);
    struct dmi_data dmi = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_load(HPE, &dmi, &err), 0, "%s", err);
    probe_memory(&m, &dmi);
    dmi_data_free(&dmi);
    for (int i = 0; i < gpus; i++)
        gpu_set_add(&m.gpus)->power_limit_w = watts_each;
    struct findings f = {0};
    rules_run(&m, WL_GENERAL, NULL, &f);
    int n = 0;
    for (int i = 0; i < f.count; i++)
        n += !strcmp(f.items[i].rule->id, "POWER_SUPPLY") && !strcmp(f.items[i].subject, "machine") &&
             !strcmp(severity_name(f.items[i].severity), severity);
    findings_free(&f);
    machine_free(&m);
    return n;
}

/* N+1: with one 1000 W supply lost, 80 % of 1000 W is the budget. */
Test(power_rule, gpus_within_one_supply_pass)
{
    cr_assert_eq(headroom_findings(2, 350, "pass"), 1);
}

Test(power_rule, gpus_beyond_one_supply_warn)
{
    cr_assert_eq(headroom_findings(4, 300, "warn"), 1);
}

Test(power_rule, unknown_gpu_power_is_unknown_headroom)
{
    cr_assert_eq(headroom_findings(0, 0, "unknown"), 1);
    cr_assert_eq(headroom_findings(0, 0, "pass"), 0);
    /* One GPU of two without a known limit: no partial sum. */
    cr_assert_eq(headroom_findings(2, -1, "unknown"), 1);
}
