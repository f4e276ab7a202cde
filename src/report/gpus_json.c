/* `gpuvet gpus --json`: one GPU table row as the gpuvet.gpus/1 document lists it. */
#include <jansson.h>

#include "report/gpus_report.h"

static json_t *num_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }

json_t *gpus_spec_json(const struct gpu_spec *g, const char *query, const char *note)
{
    json_t *tflops = json_object();
    for (int p = 0; p < PRECISION_COUNT; p++)
        json_object_set_new(
            tflops, precision_name((enum precision)p),
            json_pack("{s:o, s:o}", "dense", num_or_null(g->dense[p]), "sparse", num_or_null(g->sparse[p])));
    json_t *aliases = json_array();
    for (int i = 0; i < g->naliases; i++)
        json_array_append_new(aliases, json_string(g->aliases[i]));
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(g->id));
    if (query)
        json_object_set_new(o, "query", json_string(query));
    if (note && *note)
        json_object_set_new(o, "note", json_string(note));
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "variant", json_string(g->variant));
    json_object_set_new(o, "vendor", json_string(g->vendor));
    json_object_set_new(o, "arch", json_string(g->arch));
    json_object_set_new(o, "aliases", aliases);
    json_object_set_new(o, "memory_gb", json_real(g->memory_gb));
    json_object_set_new(o, "memory_mib", num_or_null(g->memory_mib));
    json_object_set_new(o, "memory_bytes_per_device", json_real(gpu_memory_bytes(g)));
    json_object_set_new(o, "memory_source", json_string(gpu_memory_source(g)));
    json_object_set_new(o, "devices", json_integer(g->devices));
    json_object_set_new(o, "memory_type", json_string(g->memory_type));
    json_object_set_new(o, "memory_bandwidth_gb_s", json_real(g->mem_bw_gbs));
    json_object_set_new(o, "tflops", tflops);
    json_object_set_new(o, "pcie",
                        json_pack("{s:o, s:o}", "gen", num_or_null(g->pcie_gen), "lanes", num_or_null(g->pcie_lanes)));
    json_object_set_new(
        o, "scaleup",
        json_pack("{s:s, s:o}", "link", g->scaleup_link, "gb_s_bidirectional", num_or_null(g->scaleup_gbs_bidir)));
    json_object_set_new(o, "tdp_w", num_or_null(g->tdp_w));
    json_object_set_new(o, "ecc", json_string(g->ecc));
    json_object_set_new(o, "resnet50_images_s", num_or_null(g->resnet50_img_s));
    json_object_set_new(o, "resnet50_source", *g->resnet50_source ? json_string(g->resnet50_source) : json_null());
    json_object_set_new(o, "resnet50_estimate_images_s", num_or_null(g->resnet50_estimate_img_s));
    json_object_set_new(o, "resnet50_estimate_source",
                        *g->resnet50_estimate_source ? json_string(g->resnet50_estimate_source) : json_null());
    json_object_set_new(o, "confidence", json_string(g->confidence));
    json_object_set_new(o, "notes", json_string(g->notes));
    json_object_set_new(o, "source", json_string(g->source));
    return o;
}

void gpus_json_document(FILE *out, const char *table_path, json_t *list)
{
    json_t *doc = json_pack("{s:s, s:s, s:o}", "schema", "gpuvet.gpus/1", "table", table_path, "gpus", list);
    json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(doc);
}
