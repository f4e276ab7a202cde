/* The datasheet facts of the GPUs found: data/gpus.csv joined by the product name NVML or
 * nvidia-smi reports ("NVIDIA A100-SXM4-80GB"). */
#include "probe/probe.h"
#include "util/gputable.h"

void probe_gpu_specs(struct machine *m)
{
    if (m->gpus.count == 0)
        return;
    struct gpu_table table;
    char err[256];
    if (gpu_table_load_default(&table, err, sizeof err) != 0) {
        machine_problem_reason(m, "data/gpus.csv", err);
        return;
    }
    for (int i = 0; i < m->gpus.count; i++) {
        struct gpu *g = &m->gpus.items[i];
        char note[256], why[256];
        const struct gpu_spec *spec = g->name ? gpu_lookup(&table, g->name, note, sizeof note, why, sizeof why) : NULL;
        if (spec) {
            g->resnet50_img_s = spec->resnet50_img_s;
            g->nvlinks_expected = gpu_spec_nvlinks(spec);
            g->nvlink_bridged = gpu_spec_nvlink_bridged(spec);
        }
    }
    gpu_table_free(&table);
}
