/* `gpuvet fleet --markdown FILE` and `gpuvet compare --markdown FILE`: the HTML page's content as
 * GitHub-flavoured Markdown, for a ticket. What it shows, and in which order, is fleet_page.c's;
 * this file only marks it up: every table's rows have as many cells as its header, and list
 * values keep one item a line (<br>) inside their cell. */
#include "report/fleet_report.h"
#include "report/page.h"

/* Every block here ends with a blank line (a heading, a note, a table), so none starts with one. */
static void heading(FILE *o, int level, const char *id, const char *title)
{
    (void)id; /* GitHub derives its own anchors from the heading */
    fprintf(o, "%.*s ", level, "######");
    md_text(o, title);
    fputs("\n\n", o);
}

static void note(FILE *o, const char *text)
{
    md_text(o, text);
    fputs("\n\n", o);
}

static void table_begin(FILE *o, const char *const *columns)
{
    int n = 0;
    fputc('|', o);
    for (; columns[n]; n++) {
        fputc(' ', o);
        md_text(o, columns[n]);
        fputs(" |", o);
    }
    fputs("\n|", o);
    for (int i = 0; i < n; i++)
        fputs("---|", o);
    fputc('\n', o);
}

static void row_begin(FILE *o, bool odd)
{
    (void)odd;
    fputc('|', o);
}

static void cell(FILE *o, enum fleet_cell kind, const char *text)
{
    fputc(' ', o);
    if (kind == FLEET_CELL_ITEMS)
        fleet_write_items(o, text, md_text, "<br>");
    else
        md_text(o, kind == FLEET_CELL_SEVERITY ? fleet_severity_shown(text) : text);
    fputs(" |", o);
}

static void row_end(FILE *o)
{
    fputc('\n', o);
}

/* The blank line that ends the table. */
static void table_end(FILE *o)
{
    fputc('\n', o);
}

static const struct fleet_page_format markdown = {heading, NULL, note, table_begin, row_begin, cell, row_end,
                                                  table_end};

int fleet_report_markdown(FILE *o, const struct fleet *f, const struct fleet_analysis *a)
{
    fleet_page_write(o, f, a, &markdown);
    return ferror(o) ? -1 : 0;
}

int compare_report_markdown(FILE *o, const struct fleet *fa, const struct fleet *fb)
{
    compare_page_write(o, &fa->nodes[0], &fb->nodes[0], &markdown);
    return ferror(o) ? -1 : 0;
}
