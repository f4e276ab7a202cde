/* The machine's topology as an inline SVG picture in the spirit of hwloc's lstopo: boxes nested
 * machine > package > NUMA node > PCIe root port > bridges > devices, each device with its link;
 * a degraded link is drawn red, one its port caps dark orange, an idle-slow one amber and dashed, an
 * unknown one grey and dashed. */
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "util/i18n.h"
#include "util/width.h"

#define SVG_WIDTH 936 /* the page's 960 px less its padding: NIC and GPU names keep their room */
#define ROW 30
#define PAD 6
#define INSET 12
#define CHAR_PX 6.4 /* average glyph width of 12px sans-serif: enough to keep labels inside boxes */

static const char *fill_of(const struct topo_item *it)
{
    switch (it->kind) {
    case TOPO_MACHINE: return "#f5f5f5";
    case TOPO_PACKAGE: return "#dde5f0";
    case TOPO_NUMA: return "#e3efcf";
    case TOPO_BRIDGE: return "#ffffff";
    case TOPO_DEVICE: break;
    }
    return it->role == PCI_ROLE_ACCELERATOR ? "#fbe3c2" : it->role == PCI_ROLE_NIC ? "#d6e6fa" : "#e8dcf2";
}

static const char *mark_name(enum link_state_mark m)
{
    static const char *const names[] = {"ok", "slow", "degraded", "unknown", "capped"};
    return names[m];
}

/* Writes at most max_chars columns of s (escaped), ending with "..." when cut; a Chinese
 * character takes two columns, as it takes about two glyph widths, and is never cut in half. */
static void text_cut(FILE *o, const char *s, int max_chars)
{
    if (max_chars < 4)
        max_chars = 4;
    if ((int)display_width(s) <= max_chars) {
        html_text(o, s);
        return;
    }
    size_t keep = display_prefix(s, strlen(s), (size_t)max_chars - 3);
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s...", keep < 250 ? (int)keep : 250, s);
    html_text(o, buf);
}

/* Rows are ROW apart, plus CLOSE_GAP after a row for each box that ends there, so that boxes that
 * end on the same row (the last bridge under a switch, the switch, its root port) each keep their
 * bottom edge below the one inside them instead of drawing over it. */
#define CLOSE_GAP 4

/* The y of every row, and of the legend after the last (y[count]). */
static void row_positions(const struct topo_tree *t, int *y)
{
    int offset = 0;
    for (int i = 0; i < t->count; i++) {
        y[i] = PAD + i * ROW + offset;
        for (int k = 0; k <= i; k++)
            if (t->items[k].kind != TOPO_DEVICE && t->items[k].last_descendant == i)
                offset += CLOSE_GAP;
    }
    y[t->count] = PAD + t->count * ROW + offset;
}

/* A box's bottom: under its last row's device, CLOSE_GAP lower for each box inside it that ends on
 * the same row. */
static int box_bottom(const struct topo_tree *t, int index, const int *y)
{
    const struct topo_item *it = &t->items[index];
    int inner = 0;
    for (int k = index + 1; k <= it->last_descendant; k++)
        inner += t->items[k].kind != TOPO_DEVICE && t->items[k].last_descendant == it->last_descendant;
    return y[it->last_descendant] + ROW - 6 + CLOSE_GAP * inner + 4; /* 4 below the last device, as between boxes */
}

static void draw_item(FILE *o, const struct topo_tree *t, int row, const int *ys)
{
    const struct topo_item *it = &t->items[row];
    int x = PAD + it->depth * INSET, width = SVG_WIDTH - 2 * x;
    int y = ys[row];
    bool container = it->kind != TOPO_DEVICE;
    int height = container ? box_bottom(t, row, ys) - y : ROW - 6;
    const char *stroke = "#7a7a7a", *dash = "";
    int stroke_width = 1;
    if (it->kind == TOPO_DEVICE || it->kind == TOPO_BRIDGE) {
        if (it->mark == LINK_MARK_DEGRADED)
            stroke = "#d40000", stroke_width = 3;
        else if (it->mark == LINK_MARK_SLOW)
            stroke = "#e08a00", stroke_width = 2, dash = " stroke-dasharray=\"6 3\"";
        else if (it->mark == LINK_MARK_UNKNOWN)
            dash = " stroke-dasharray=\"3 3\"";
        else if (it->mark == LINK_MARK_CAPPED)
            stroke = "#b35c00", stroke_width = 3;
    }
    fprintf(o, "<g class=\"topo-%s\" data-link=\"%s\"", it->kind == TOPO_DEVICE ? "device" : "box",
            mark_name(it->mark));
    if (*it->bus_id) {
        fputs(" data-bus=\"", o);
        html_text(o, it->bus_id);
        fputc('"', o);
    }
    fputs("><title>", o);
    html_text(o, it->label);
    fputs(": ", o);
    html_text(o, it->detail);
    fprintf(o, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" stroke=\"%s\" "
               "stroke-width=\"%d\"%s/>",
            x, y, width, height, fill_of(it), stroke, stroke_width, dash);
    bool degraded = it->mark == LINK_MARK_DEGRADED, capped = it->mark == LINK_MARK_CAPPED;
    const char *detail_colour = degraded ? "#b00000" : capped ? "#8a4500" : "#333";
    char detail[200];
    /* TRANSLATORS: the marks after a device's link in the topology picture: a link below its own
     * max, and one its port (slot, riser) holds below what the device can do. */
    const char *mark_text = degraded ? _("DEGRADED") : capped ? _("CAPPED BY PORT") : "";
    snprintf(detail, sizeof detail, "%s%s%s", it->detail, *mark_text ? "  " : "", mark_text);
    degraded = degraded || capped; /* both bold */
    int detail_chars = (int)display_width(detail), room = (int)((width - 24) / CHAR_PX);
    if (detail_chars > room / 2)
        detail_chars = room / 2;
    /* A degraded link's text is bold, about a fifth wider: the label keeps clear of it. */
    int detail_room = degraded ? (detail_chars * 6 + 4) / 5 : detail_chars;
    fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"%s\">", x + 8, y + 18,
            it->kind == TOPO_PACKAGE || it->kind == TOPO_NUMA || it->kind == TOPO_MACHINE ? "strong" : "plain");
    text_cut(o, it->label, room - detail_room - 3);
    fprintf(o, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"%s\"%s>", x + width - 8, y + 18,
            detail_colour, degraded ? " font-weight=\"bold\"" : "");
    text_cut(o, detail, detail_chars);
    fputs("</text></g>\n", o);
}

static const struct {
    const char *label, *colour, *dash;
    int width;
} legend[] = {
    {N_("link at its max"), "#7a7a7a", "", 1},
    {N_("lower speed at idle (re-check under load)"), "#e08a00", "6 3", 2},
    {N_("degraded link"), "#d40000", "", 3},
    {N_("capped by its port"), "#b35c00", "", 3},
    {N_("link unknown"), "#7a7a7a", "3 3", 1},
};
#define LEGEND_N (sizeof legend / sizeof legend[0])
#define LEGEND_ROW 18

/* Each legend entry's x and row: an entry that would run past the picture's right edge starts a
 * new row (the labels' widths differ by language). Returns the number of rows. */
static int legend_layout(int *x, int *row)
{
    int at = PAD, r = 0;
    for (size_t i = 0; i < LEGEND_N; i++) {
        int w = 28 + (int)(display_width(_(legend[i].label)) * CHAR_PX);
        if (at > PAD && at + w > SVG_WIDTH - PAD) {
            at = PAD;
            r++;
        }
        x[i] = at;
        row[i] = r;
        at += w + 12;
    }
    return r + 1;
}

void svg_topology(FILE *o, const struct topo_tree *t)
{
    int *ys = malloc(((size_t)t->count + 1) * sizeof *ys);
    if (!ys)
        return;
    row_positions(t, ys);
    int lx[LEGEND_N], lrow[LEGEND_N];
    int rows = legend_layout(lx, lrow);
    int legend_y = ys[t->count] + 8;
    int height = legend_y + 24 + (rows - 1) * LEGEND_ROW;
    fprintf(o, "<svg class=\"topology\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SVG_WIDTH, height);
    html_text(o, _("machine topology"));
    fputs("\" font-family=\"sans-serif\" font-size=\"12\">\n", o);
    for (int i = 0; i < t->count; i++)
        draw_item(o, t, i, ys);
    free(ys);
    for (size_t i = 0; i < LEGEND_N; i++) {
        int y = legend_y + lrow[i] * LEGEND_ROW;
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"12\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"%d\"%s%s%s/>"
                   "<text x=\"%d\" y=\"%d\">%s</text>\n",
                lx[i], y, legend[i].colour, legend[i].width, *legend[i].dash ? " stroke-dasharray=\"" : "",
                legend[i].dash, *legend[i].dash ? "\"" : "", lx[i] + 28, y + 11, _(legend[i].label));
    }
    fputs("</svg>\n", o);
}
