#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "util/gputable.h"
#include "util/i18n.h"

static const char usage[] =
     N_("usage: gpuvet gpus [--json] [NAME...]\n"
    "\n"
    "Lists the GPU table (vendor peak figures, dense and sparse tensor TFLOPS apart, with a source\n"
    "per row), or resolves NAMEs: a canonical id (h100-sxm5-80gb), a short form (H100-80GB picks\n"
    "the SXM part and says so) or an nvidia-smi product name (\"NVIDIA A100-SXM4-80GB\").\n"
    "\n"
    "  --json   write the gpuvet.gpus/1 JSON document\n"
    "\n"
    "The table is data/gpus.csv, compiled in; PREFIX/share/gpuvet/gpus.csv beside an installed gpuvet,\n"
    "gpuvet --data DIR or GPUVET_DATA_DIR overrides it.\n"
    "exit status: 0 ok, 2 unknown GPU or unreadable table\n");

static json_t *num_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }

static json_t *gpu_json(const struct gpu_spec *g, const char *query, const char *note)
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

/* "989.4/1979" dense/sparse, "125" when there is no sparse figure, "-" when neither. */
static const char *dense_sparse(const struct gpu_spec *g, enum precision p, char *buf, size_t len)
{
    if (g->dense[p] <= 0)
        snprintf(buf, len, "-");
    else if (g->sparse[p] > 0)
        snprintf(buf, len, "%g/%g", g->dense[p], g->sparse[p]);
    else
        snprintf(buf, len, "%g", g->dense[p]);
    return buf;
}

static void print_row(const struct gpu_spec *g)
{
    char f16[32], tf32[32], fp8[32], fp64[16], pcie[16];
    if (g->pcie_gen > 0)
        snprintf(pcie, sizeof pcie, "Gen%gx%g", g->pcie_gen, g->pcie_lanes);
    else
        snprintf(pcie, sizeof pcie, "-");
    printf("%-18s %5.0f %6.0f %-15s %-13s %-11s %6s %-8s %-30s %5.0f\n", g->id, g->memory_gb, g->mem_bw_gbs,
           dense_sparse(g, PREC_FP16, f16, sizeof f16), dense_sparse(g, PREC_TF32, tf32, sizeof tf32),
           dense_sparse(g, PREC_FP8, fp8, sizeof fp8), dense_sparse(g, PREC_FP64, fp64, sizeof fp64), pcie,
           g->scaleup_link, g->tdp_w);
}

static void print_header(void)
{
    printf("%-18s %5s %6s %-15s %-13s %-11s %6s %-8s %-30s %5s\n", "ID", "MEM", "BW", "FP16", "TF32", "FP8", "FP64",
           "PCIE", "SCALE-UP", "TDP");
    printf("%-18s %5s %6s %-15s %-13s %-11s %6s %-8s %-30s %5s\n", "", "GB", "GB/s", "dense/sparse", "dense/sparse",
           "dense/sp.", "TFLOPS", "", "", "W");
}

static void print_detail(const struct gpu_spec *g, const char *note)
{
    if (note && *note)
        printf(_("note: %s\n"), note);
    printf("%s: %s %s (%s %s)\n", g->id, g->name, g->variant, g->vendor, g->arch);
    printf(_("  memory      %g GB %s, %g GB/s\n"), g->memory_gb, g->memory_type, g->mem_bw_gbs);
    for (int p = 0; p < PRECISION_COUNT; p++) {
        char buf[32];
        printf("  %-5s       %s %s\n", precision_name((enum precision)p),
               dense_sparse(g, (enum precision)p, buf, sizeof buf),
               g->dense[p] <= 0   ? _("(no such mode or not listed)")
               : g->sparse[p] > 0 ? _("TFLOPS dense/sparse")
                                  : _("TFLOPS dense"));
    }
    printf(_("  pcie        Gen%g x%g; scale-up %s %g GB/s bidirectional; TDP %g W; ECC %s\n"), g->pcie_gen, g->pcie_lanes,
           g->scaleup_link, g->scaleup_gbs_bidir, g->tdp_w, g->ecc);
    if (g->resnet50_img_s > 0)
        printf(_("  resnet-50   %g images/s per GPU (%s)\n"), g->resnet50_img_s, g->resnet50_source);
    else if (g->resnet50_estimate_img_s > 0)
        printf(_("  resnet-50   ~%g images/s per GPU (%s)\n"), g->resnet50_estimate_img_s, g->resnet50_estimate_source);
    printf(_("  confidence  %s%s%s\n  source      %s\n"), g->confidence, *g->notes ? "; " : "", g->notes, g->source);
}

int cmd_gpus(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = true;
            break;
        case 'h':
            fputs(_(usage), stdout);
            return 0;
        default:
            return option_error(options, argv);
        }
    }
    struct gpu_table table;
    char err[1024];
    if (gpu_table_load_default(&table, err, sizeof err) != 0) {
        fprintf(stderr, _("gpuvet gpus: %s\n"), err);
        gpu_table_free(&table);
        return EXIT_CANNOT_RUN;
    }
    int status = 0;
    json_t *list = json_array();
    if (!json && optind == argc)
        print_header();
    if (optind == argc) {
        for (int i = 0; i < table.count; i++) {
            if (json)
                json_array_append_new(list, gpu_json(&table.gpus[i], NULL, NULL));
            else
                print_row(&table.gpus[i]);
        }
        if (!json)
            printf(_("\nTensor TFLOPS: dense/sparse (2:4 structured sparsity). Cost and sizing use dense.\n"));
    }
    for (int i = optind; i < argc; i++) {
        char note[512];
        int count; /* "8 x H100" as offers write it: the GPU is what is listed */
        const struct gpu_spec *g = gpu_lookup_counted(&table, argv[i], &count, note, sizeof note, err, sizeof err);
        if (!g) {
            fprintf(stderr, _("gpuvet gpus: %s\n"), err);
            status = EXIT_CANNOT_RUN;
            continue;
        }
        if (json)
            json_array_append_new(list, gpu_json(g, argv[i], note));
        else
            print_detail(g, note);
    }
    if (json && status == 0) {
        json_t *doc = json_pack("{s:s, s:s, s:o}", "schema", "gpuvet.gpus/1", "table", table.path, "gpus", list);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        json_decref(list);
    }
    gpu_table_free(&table);
    return status;
}
