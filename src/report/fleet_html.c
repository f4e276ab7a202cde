/* `gpuvet fleet --html FILE` and `gpuvet compare --html FILE`: one self-contained page in the
 * audit page's frame (report/page.c: inline CSS, no script, nothing fetched). What it shows, and
 * in which order, is fleet_page.c's; this file only marks it up. */
#include <stdlib.h>
#include <string.h>

#include "report/fleet_report.h"
#include "report/page.h"

static void heading(FILE *o, int level, const char *id, const char *title)
{
    if (level == 2) {
        page_html_section_begin(o, id, title);
        return;
    }
    fprintf(o, "<h%d", level);
    if (id) {
        fputs(" id=\"", o);
        html_text(o, id);
        fputc('"', o);
    }
    fputc('>', o);
    html_text(o, title);
    fprintf(o, "</h%d>\n", level);
}

static void section_end(FILE *o, int level)
{
    if (level == 2)
        page_html_section_end(o);
}

static void note(FILE *o, const char *text)
{
    fputs("<p>", o);
    html_text(o, text);
    fputs("</p>\n", o);
}

static void table_begin(FILE *o, const char *const *columns)
{
    fputs("<div class=\"scroll\"><table><tr>", o);
    for (; *columns; columns++) {
        fputs("<th>", o);
        html_text(o, *columns);
        fputs("</th>", o);
    }
    fputs("</tr>\n", o);
}

static void row_begin(FILE *o, bool odd)
{
    fputs(odd ? "<tr class=\"odd\">" : "<tr>", o);
}

static void cell(FILE *o, enum fleet_cell kind, const char *text)
{
    switch (kind) {
    case FLEET_CELL_NUMBER: fputs("<td class=\"num\">", o); break;
    case FLEET_CELL_HOSTS: fputs("<td><code>", o); break;
    case FLEET_CELL_SEVERITY:
        /* The audit page's colours; anything but a fail is a warning here (problem findings only). */
        fprintf(o, "<td><span class=\"tag sev-%s\">", strcmp(text, "fail") ? "warn" : "fail");
        break;
    case FLEET_CELL_GROUP: fprintf(o, "<td><a href=\"#group-%d\">", atoi(text)); break;
    default: fputs("<td>", o);
    }
    if (kind == FLEET_CELL_ITEMS)
        fleet_write_items(o, text, html_text, "<br>");
    else
        html_text(o, kind == FLEET_CELL_SEVERITY ? fleet_severity_shown(text) : text);
    static const char *const closing[] = {[FLEET_CELL_HOSTS] = "</code></td>", [FLEET_CELL_SEVERITY] = "</span></td>",
                                          [FLEET_CELL_GROUP] = "</a></td>"};
    fputs(closing[kind] ? closing[kind] : "</td>", o);
}

static void row_end(FILE *o)
{
    fputs("</tr>\n", o);
}

static void table_end(FILE *o)
{
    fputs("</table></div>\n", o);
}

static const struct fleet_page_format html = {heading, section_end, note, table_begin, row_begin, cell, row_end,
                                              table_end};

int fleet_report_html(FILE *o, const struct fleet *f, const struct fleet_analysis *a)
{
    page_html_begin(o, "gpuvet fleet");
    fleet_page_write(o, f, a, &html);
    page_html_end(o);
    return ferror(o) ? -1 : 0;
}

int compare_report_html(FILE *o, const struct fleet *fa, const struct fleet *fb)
{
    page_html_begin(o, "gpuvet compare");
    compare_page_write(o, &fa->nodes[0], &fb->nodes[0], &html);
    page_html_end(o);
    return ferror(o) ? -1 : 0;
}
