/* `gpuvet gpus`: the GPU table as a text table, and one GPU in detail. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gpus_report.h"
#include "report/wrap.h"
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

/* The table's columns (display width; negative: left-aligned): ID, MEM, BW, FP16, FP8, FP64, PCIE,
 * TDP, then SCALE-UP in the columns left of the terminal's width, wrapped under itself. TF32 is in
 * `gpuvet gpus ID` and the JSON: eight figures and a link name do not fit 100 columns. Below 100
 * columns FP64 and TDP, which matter least for choosing a GPU to rent, are left out too (the footer
 * says where they are), so that the link name keeps room and a row does not become three. An id
 * longer than its column has a line of its own, so every row's figures start in the same columns. */
enum { GPUS_COLUMNS = 9, GPUS_WIDTH = 100, GPUS_FP16 = 3, GPUS_FP8 = 4, GPUS_FP64 = 5, GPUS_TDP = 7 };
static const int gpus_widths[GPUS_COLUMNS] = {-20, 4, 5, -13, -13, 6, -7, 4, 0};

/* FP64 and TDP are shown at 100 columns and more. */
static bool gpus_narrow(FILE *out) { return report_columns(out) < GPUS_WIDTH; }

static bool gpus_column_shown(int i, bool narrow) { return !(narrow && (i == GPUS_FP64 || i == GPUS_TDP)); }

/* A column's width (negative: left-aligned); narrow, FP16 and FP8 give up the column their widest
 * figure ("1670.5/3341") and header ("dense/sparse") leave free, for the link name. */
static int gpus_width(int i, bool narrow)
{
    if (narrow && (i == GPUS_FP16 || i == GPUS_FP8))
        return gpus_widths[i] + 1;
    return gpus_widths[i];
}

static int gpus_scaleup_column(bool narrow)
{
    int col = 0;
    for (int i = 0; i < GPUS_COLUMNS - 1; i++)
        if (gpus_column_shown(i, narrow))
            col += abs(gpus_width(i, narrow)) + 1;
    return col;
}

/* Whether the word from..to has a letter (ASCII: the table's link names are). */
static bool has_letter(const char *from, const char *to)
{
    const char *word = from;
    for (const char *q = to; q > from; q--)
        if (q[-1] == ' ') {
            word = q;
            break;
        }
    for (; word < to; word++)
        if ((*word >= 'a' && *word <= 'z') || (*word >= 'A' && *word <= 'Z'))
            return true;
    return false;
}

/* text from column col on, wrapped at spaces within width, continuations under col. */
static void put_wrapped_from(FILE *out, const char *text, int col, int width)
{
    size_t room = width > col ? (size_t)(width - col) : 1, used = 0;
    const char *p = text;
    while (*p) {
        const char *sp = strchr(p, ' ');
        /* a number stays with the word after it: "(2 GPUs)", "128 GB/s", not a name ending in a digit
         * ("NVLink3 bridge") */
        while (sp && sp > p && sp[-1] >= '0' && sp[-1] <= '9' && sp[1] && !has_letter(p, sp))
            sp = strchr(sp + 1, ' ');
        size_t word = sp ? (size_t)(sp - p) : strlen(p);
        size_t cols = display_width_n(p, word);
        if (used && used + 1 + cols > room) {
            fprintf(out, "\n%*s", col, "");
            used = 0;
        } else if (used) {
            fputc(' ', out);
            used++;
        }
        fwrite(p, 1, word, out);
        used += cols;
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

/* One line of cells in the columns: negative widths left-aligned, padded by display width. */
static void cells_line(FILE *out, const char *const cells[GPUS_COLUMNS])
{
    bool narrow = gpus_narrow(out);
    int pending = 0; /* spaces owed before the next text: none at a line's end */
    for (int i = 0; i < GPUS_COLUMNS - 1; i++) {
        if (!gpus_column_shown(i, narrow))
            continue;
        int width = gpus_width(i, narrow);
        size_t w = (size_t)abs(width), used = display_width(cells[i]);
        int pad = used < w ? (int)(w - used) : 0;
        if (width > 0)
            pending += pad;
        if (*cells[i]) {
            fprintf(out, "%*s%s", pending, "", cells[i]);
            pending = 0;
        }
        pending += (width < 0 ? pad : 0) + 1;
    }
    if (*cells[GPUS_COLUMNS - 1]) {
        fprintf(out, "%*s", pending, "");
        put_wrapped_from(out, cells[GPUS_COLUMNS - 1], gpus_scaleup_column(narrow),
                         narrow ? (int)report_columns(out) : GPUS_WIDTH);
    } else
        fputc('\n', out);
}

void gpus_text_row(FILE *out, const struct gpu_spec *g)
{
    char f16[32], fp8[32], fp64[16], pcie[16], mem[16], bw[16], tdp[16];
    if (g->pcie_gen > 0)
        snprintf(pcie, sizeof pcie, "Gen%gx%g", g->pcie_gen, g->pcie_lanes);
    else
        snprintf(pcie, sizeof pcie, "-");
    snprintf(mem, sizeof mem, "%.0f", g->memory_gb);
    snprintf(bw, sizeof bw, "%.0f", g->mem_bw_gbs);
    snprintf(tdp, sizeof tdp, "%.0f", g->tdp_w);
    const char *id = g->id;
    if (display_width(id) > (size_t)-gpus_widths[0]) {
        fprintf(out, "%s\n", id);
        id = "";
    }
    const char *const cells[GPUS_COLUMNS] = {id,
                                             mem,
                                             bw,
                                             dense_sparse(g, PREC_FP16, f16, sizeof f16),
                                             dense_sparse(g, PREC_FP8, fp8, sizeof fp8),
                                             dense_sparse(g, PREC_FP64, fp64, sizeof fp64),
                                             pcie,
                                             tdp,
                                             g->scaleup_link};
    cells_line(out, cells);
}

void gpus_text_header(FILE *out)
{
    /* TRANSLATORS: column headers of `gpuvet gpus`: at most 4 columns for MEM (GPU memory), 5 for BW
     * (memory bandwidth), 7 for PCIE, 4 for TDP; SCALE-UP (the GPU-to-GPU link, NVLink) is last. */
    const char *const names[GPUS_COLUMNS] = {"ID",  _("MEM"), _("BW"), "FP16", "FP8",
                                             "FP64", "PCIE",  "TDP",  _("SCALE-UP")};
    /* TRANSLATORS: the units row under the headers: "dense/sparse" at most 13 columns, "dense/sp." 13. */
    const char *const units[GPUS_COLUMNS] = {"", "GB", "GB/s", _("dense/sparse"), _("dense/sp."), "TFLOPS", "", "W", ""};
    cells_line(out, names);
    cells_line(out, units);
}

static void detail(FILE *out, const struct gpu_spec *g, const char *note);

/* Long lines (the ResNet-50 source, the notes) wrap to the terminal, under their text. */
void gpus_text_detail(FILE *out, const struct gpu_spec *g, const char *note)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        detail(out, g, note);
        return;
    }
    detail(m, g, note);
    fclose(m);
    print_wrapped_table(out, buf, len, report_columns(out));
    free(buf);
}

static void detail(FILE *out, const struct gpu_spec *g, const char *note)
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
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    fprintf(m, _("\nTensor TFLOPS: dense/sparse (2:4 structured sparsity). Cost and sizing use dense.\n"));
    if (gpus_narrow(out))
        fprintf(m, _("TF32, FP64, TDP (shown from 100 columns), the other precisions and the sources: gpuvet gpus "
                     "ID (or --json).\n"));
    else
        fprintf(m, _("TF32, the other precisions and the sources: gpuvet gpus ID (or --json).\n"));
    fclose(m);
    print_wrapped(out, buf, len, report_columns(out), NULL);
    free(buf);
}
