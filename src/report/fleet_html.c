/* `gpuvet fleet --html FILE` and `gpuvet compare --html FILE`: one self-contained page in the
 * audit page's frame (report/page.c: inline CSS, no script, nothing fetched). What it shows, and
 * in which order, is fleet_page.c's; this file only marks it up. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_report.h"
#include "report/page.h"

/* A segment longer than this (a path, a long list) may break anywhere as other text does. */
#define WHOLE_MAX 64

/* text with every host name kept on one line: a browser breaks after each '-' before a letter
 * ("sv1-compute-node-rack17"), so each word holding one, cut at the commas of a host list outside
 * its [ranges], is a no-wrap span, and a line may break after each such comma (<wbr>: nothing is
 * added to what a reader copies). */
static void html_words(FILE *o, const char *text)
{
    for (const char *p = text; *p;) {
        size_t word = strcspn(p, " "), space = strspn(p + word, " ");
        bool breaks = false; /* a '-' before a letter: where browsers break ("01-06" they do not) */
        for (size_t i = 0; i + 1 < word && !breaks; i++)
            breaks = p[i] == '-' && isalpha((unsigned char)p[i + 1]);
        /* a hostlist's [range] is one name: "gpu[01-05]" never reads "gpu[0" / "1-05]" */
        breaks = breaks || memchr(p, '[', word);
        if (!breaks) {
            char *plain = strndup(p, word + space);
            if (!plain)
                abort();
            html_text(o, plain);
            free(plain);
            p += word + space;
            continue;
        }
        for (size_t at = 0; at < word;) {
            size_t end = at;
            for (int depth = 0; end < word && (depth > 0 || p[end] != ','); end++)
                depth += p[end] == '[' ? 1 : p[end] == ']' && depth > 0 ? -1 : 0;
            char *segment = strndup(p + at, end - at);
            if (!segment)
                abort();
            bool whole = end - at <= WHOLE_MAX;
            fputs(whole ? "<span class=\"nb\">" : "", o);
            html_text(o, segment);
            fputs(end < word ? "," : "", o); /* inside the span: a comma never starts a line */
            fputs(whole ? "</span>" : "", o);
            free(segment);
            if (end < word)
                fputs("<wbr>", o);
            at = end + 1;
        }
        for (size_t k = 0; k < space; k++)
            fputc(' ', o);
        p += word + space;
    }
}

static void heading(FILE *o, int level, const char *id, const char *title)
{
    if (level == 2) { /* page_html_section_begin's markup, the title through html_words */
        fputs("<section id=\"", o);
        html_text(o, id);
        fputs("\">", o);
    }
    fprintf(o, "<h%d", level);
    if (id && level != 2) {
        fputs(" id=\"", o);
        html_text(o, id);
        fputc('"', o);
    }
    fputc('>', o);
    html_words(o, title);
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
    html_words(o, text);
    fputs("</p>\n", o);
}

/* On a phone a wide table's rows stack, each cell under its column's name, instead of running off
 * the screen: page.c's CSS stacks table.stack; the names come from a small style of the table's
 * own (CSS content, so the cells' markup stays as it is). */
static int stacked_tables;

static void css_string(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(o, "\\%c", *s);
        else if (*s == '<')
            fputs("\\3c ", o); /* no "</style>" inside the style */
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, o);
    }
    fputc('"', o);
}

static void table_begin(FILE *o, const char *const *columns)
{
    int ncolumns = 0;
    while (columns[ncolumns])
        ncolumns++;
    if (ncolumns >= 4) {
        int id = ++stacked_tables;
        fputs("<style>@media (max-width:600px){", o);
        for (int i = 0; i < ncolumns; i++) {
            fprintf(o, "#stack-%d td:nth-child(%d)::before{content:", id, i + 1);
            css_string(o, columns[i]);
            fputs(" \": \"}", o);
        }
        fprintf(o, "}</style><div class=\"scroll\"><table class=\"stack\" id=\"stack-%d\"><tr>", id);
    } else {
        fputs("<div class=\"scroll\"><table><tr>", o);
    }
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
    case FLEET_CELL_HOSTS: fputs("<td class=\"hosts\"><code>", o); break;
    case FLEET_CELL_SEVERITY:
        /* The audit page's colours; anything but a fail is a warning here (problem findings only). */
        fprintf(o, "<td><span class=\"tag sev-%s\">", strcmp(text, "fail") ? "warn" : "fail");
        break;
    case FLEET_CELL_GROUP: fprintf(o, "<td><a href=\"#group-%d\">", atoi(text)); break;
    default: fputs("<td>", o);
    }
    if (kind == FLEET_CELL_ITEMS)
        fleet_write_items(o, text, html_text, "<br>");
    else if (kind == FLEET_CELL_SEVERITY)
        html_text(o, fleet_severity_shown(text));
    else
        html_words(o, text);
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
