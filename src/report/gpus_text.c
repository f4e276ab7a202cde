/* `gpuvet gpus`: the GPU table as a text table, and one GPU in detail. */
#include <stdio.h>

#include "report/gpus_report.h"
#include "util/i18n.h"
#include "util/units.h"
#include "util/width.h"

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

void gpus_text_row(FILE *out, const struct gpu_spec *g)
{
    char f16[32], tf32[32], fp8[32], fp64[16], pcie[16];
    if (g->pcie_gen > 0)
        snprintf(pcie, sizeof pcie, "Gen%gx%g", g->pcie_gen, g->pcie_lanes);
    else
        snprintf(pcie, sizeof pcie, "-");
    fprintf(out, "%-18s %5.0f %6.0f %-15s %-13s %-11s %6s %-8s %-30s %5.0f\n", g->id, g->memory_gb, g->mem_bw_gbs,
           dense_sparse(g, PREC_FP16, f16, sizeof f16), dense_sparse(g, PREC_TF32, tf32, sizeof tf32),
           dense_sparse(g, PREC_FP8, fp8, sizeof fp8), dense_sparse(g, PREC_FP64, fp64, sizeof fp64), pcie,
           g->scaleup_link, g->tdp_w);
}

/* The header's cells: the columns of gpus_text_row, negative widths right-aligned (display width,
 * so translated headers line up). */
static void header_line(FILE *out, const char *const cells[10])
{
    static const int widths[10] = {-18, 5, 6, -15, -13, -11, 6, -8, -30, 5};
    for (int i = 0; i < 10; i++) {
        size_t w = (size_t)(widths[i] < 0 ? -widths[i] : widths[i]), used = display_width(cells[i]);
        if (widths[i] > 0)
            fprintf(out, "%*s", used < w ? (int)(w - used) : 0, "");
        fputs(cells[i], out);
        if (widths[i] < 0 && i < 9)
            fprintf(out, "%*s", used < w ? (int)(w - used) : 0, "");
        fputs(i < 9 ? " " : "\n", out);
    }
}

void gpus_text_header(FILE *out)
{
    /* TRANSLATORS: column headers of `gpuvet gpus`: at most 5 columns for MEM (GPU memory), 6 for BW
     * (memory bandwidth), 8 for PCIE, 30 for SCALE-UP (the GPU-to-GPU link, NVLink), 5 for TDP. */
    const char *const names[10] = {"ID", _("MEM"), _("BW"), "FP16", "TF32", "FP8", "FP64", "PCIE", _("SCALE-UP"), "TDP"};
    /* TRANSLATORS: the units row under the headers: "dense/sparse" at most 15 columns, "dense/sp." 11. */
    const char *const units[10] = {"", "GB", "GB/s", _("dense/sparse"), _("dense/sparse"), _("dense/sp."), "TFLOPS", "", "",
                                   "W"};
    header_line(out, names);
    header_line(out, units);
}

void gpus_text_detail(FILE *out, const struct gpu_spec *g, const char *note)
{
    if (note && *note)
        fprintf(out, _("note: %s\n"), note);
    fprintf(out, "%s: %s %s (%s %s)\n", g->id, g->name, g->variant, g->vendor, g->arch);
    fprintf(out, _("  memory      %g GB %s, %g GB/s\n"), g->memory_gb, g->memory_type, g->mem_bw_gbs);
    /* TRANSLATORS: %.0f MiB is one device's memory as the driver reports it; the last %s its source. */
    fprintf(out, _("  per device  %.0f MiB (%.1f GB) x %d device(s) as software sees them (%s)\n"),
            gpu_memory_bytes(g) / MIB, gpu_memory_bytes(g) / GB, g->devices,
            g->memory_mib > 0 ? gpu_memory_source(g) : _(gpu_memory_source(g)));
    for (int p = 0; p < PRECISION_COUNT; p++) {
        char buf[32];
        fprintf(out, "  %-5s       %s %s\n", precision_name((enum precision)p),
               dense_sparse(g, (enum precision)p, buf, sizeof buf),
               g->dense[p] <= 0   ? _("(no such mode or not listed)")
               : g->sparse[p] > 0 ? _("TFLOPS dense/sparse")
                                  : _("TFLOPS dense"));
    }
    fprintf(out, _("  pcie        Gen%g x%g; scale-up %s %g GB/s bidirectional; TDP %g W; ECC %s\n"), g->pcie_gen, g->pcie_lanes,
           g->scaleup_link, g->scaleup_gbs_bidir, g->tdp_w, g->ecc);
    if (g->resnet50_img_s > 0)
        fprintf(out, _("  resnet-50   %g images/s per GPU (%s)\n"), g->resnet50_img_s, g->resnet50_source);
    else if (g->resnet50_estimate_img_s > 0)
        fprintf(out, _("  resnet-50   ~%g images/s per GPU (%s)\n"), g->resnet50_estimate_img_s, g->resnet50_estimate_source);
    /* The table's words are in the catalogue (scripts/update-po.sh); _("") would be its header. */
    fprintf(out, _("  confidence  %s%s%s\n  source      %s\n"), *g->confidence ? _(g->confidence) : "",
            *g->notes ? _("; ") : "", *g->notes ? _(g->notes) : "", g->source);
}

void gpus_text_footer(FILE *out)
{
    fprintf(out, _("\nTensor TFLOPS: dense/sparse (2:4 structured sparsity). Cost and sizing use dense.\n"));
}
