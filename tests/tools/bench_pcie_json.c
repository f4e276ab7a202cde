/* Prints bench_pcie_run's JSON for this machine: the PCIe benchmark alone, for
 * scripts/gpu-check.sh on a GPU machine until `gpuvet bench` runs it. Usage: bench_pcie_json [--quick] */
#include <stdio.h>
#include <string.h>

#include "bench/pcie.h"
#include "probe/probe.h"
#include "util/fsroot.h"

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    fsroot_set(NULL);
    struct machine m;
    machine_init(&m);
    if (probe_machine(&m, true) != 0) {
        fprintf(stderr, "bench_pcie_json: cannot read this machine\n");
        return 2;
    }
    json_t *result = bench_pcie_run(&m, quick);
    int rc = json_dumpf(result, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(result);
    machine_free(&m);
    return rc == 0 ? 0 : 2;
}
