/* `gpuvet fleet` and `gpuvet compare` reports: text (fleet_text.c), JSON (fleet_json.c,
 * gpuvet.fleet/1 and gpuvet.compare/1, docs/fleet-json.md), an HTML page (fleet_html.c) and
 * Markdown (fleet_markdown.c). fleet_page.c holds what they share: value and figure texts, and
 * the pages' sections in order with their titles, which the HTML and the Markdown both draw. */
#ifndef GPUVET_REPORT_FLEET_REPORT_H
#define GPUVET_REPORT_FLEET_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "fleet/fleet.h"

#define FLEET_SCHEMA "gpuvet.fleet/1"
#define COMPARE_SCHEMA "gpuvet.compare/1"

/* 0, or -1 when writing failed. */
int fleet_report_text(FILE *out, const struct fleet *f, const struct fleet_analysis *a);
int fleet_report_json(FILE *out, const struct fleet *f, const struct fleet_analysis *a);
int fleet_report_html(FILE *out, const struct fleet *f, const struct fleet_analysis *a);
int fleet_report_markdown(FILE *out, const struct fleet *f, const struct fleet_analysis *a);

/* Two machines, each the one node of its own fleet (a and b). */
int compare_report_text(FILE *out, const struct fleet *a, const struct fleet *b);
int compare_report_json(FILE *out, const struct fleet *a, const struct fleet *b);
int compare_report_html(FILE *out, const struct fleet *a, const struct fleet *b);
int compare_report_markdown(FILE *out, const struct fleet *a, const struct fleet *b);

/* ---- fleet_page.c: shared by the formats ---- */

/* Writes a report through fn into path ("-" is stdout); an error names the file. 0 or -1. */
int fleet_report_to_file(const char *path, int (*fn)(FILE *, const struct fleet *, const struct fleet_analysis *),
                         const struct fleet *f, const struct fleet_analysis *a);
int compare_report_to_file(const char *path, int (*fn)(FILE *, const struct fleet *, const struct fleet *),
                           const struct fleet *a, const struct fleet *b);

/* A field's value on one line: list values as "a; b; c", or "24 entries" for several DIMMs or
 * more than 4 items. */
void fleet_value_line(char *buf, size_t n, enum fleet_field field, const char *value);
/* A field's value (list values '\n'-separated, or NULL) in the reader's language, same shape;
 * NULL for NULL (caller frees). The English value when not translating. */
char *fleet_value_shown(enum fleet_field field, const char *value);
/* A finding's severity ("fail", "warn") as a report shows it to people. */
const char *fleet_severity_shown(const char *severity);
/* "12.49 GB/s", "-" when not measured. */
void fleet_figure_text(char *buf, size_t n, enum fleet_metric m, double v);
/* "11 nodes (11 audit, 5 bench documents), 2 groups by CPU and accelerator models" */
void fleet_summary_line(char *buf, size_t n, const struct fleet *f, const struct fleet_analysis *a);
/* "group 1: sv[01-06] (6 nodes)" (capital: "Group 1: ..."; caller frees) */
char *fleet_group_title(const struct fleet *f, const struct fleet_analysis *a, int group, bool capital);

/* A finding key "fail RULE_ID subject" in its parts; false (parts empty, subject the whole key)
 * when it has not that shape. */
struct fleet_finding_parts {
    char severity[16], id[96];
    const char *subject;
};
bool fleet_finding_split(const char *key, struct fleet_finding_parts *out);
/* Whether x's problem finding i is missing on y. */
bool fleet_finding_only_on(const struct fleet_node *x, int i, const struct fleet_node *y);
/* Writes each '\n'-separated item of `items` through `text` (an escaper), `separator` between. */
void fleet_write_items(FILE *o, const char *items, void (*text)(FILE *, const char *), const char *separator);

/* What a page cell holds, so a format can mark it up: plain text, a number (right-aligned), a
 * hostlist, '\n'-separated items (one a line), a severity ("fail", "warn"), a group's number (a
 * link to its section "group-N"). */
enum fleet_cell { FLEET_CELL_TEXT, FLEET_CELL_NUMBER, FLEET_CELL_HOSTS, FLEET_CELL_ITEMS, FLEET_CELL_SEVERITY,
                  FLEET_CELL_GROUP };

/* A page format's primitives; every text passed is plain and the format escapes it. */
struct fleet_page_format {
    /* level 1: the page's title (id NULL); 2: a section; 3: a part of a group */
    void (*heading)(FILE *o, int level, const char *id, const char *title);
    void (*section_end)(FILE *o, int level); /* may be NULL */
    void (*note)(FILE *o, const char *text);
    void (*table_begin)(FILE *o, const char *const *columns); /* NULL-terminated */
    void (*row_begin)(FILE *o, bool odd);                     /* odd: a node's difference */
    void (*cell)(FILE *o, enum fleet_cell kind, const char *text);
    void (*row_end)(FILE *o);
    void (*table_end)(FILE *o); /* may be NULL */
};

/* The fleet page after the format's frame: title, summary, the table of groups, then each group
 * with its majority configuration, odd nodes, fields without a majority, bench figures and the
 * problem findings on only some nodes (each part only when it has something to show). */
void fleet_page_write(FILE *o, const struct fleet *f, const struct fleet_analysis *a,
                      const struct fleet_page_format *fmt);
/* The compare page: the two sides, differences first, what is the same, bench figures, and the
 * problem findings only one side has. */
void compare_page_write(FILE *o, const struct fleet_node *a, const struct fleet_node *b,
                        const struct fleet_page_format *fmt);

#endif
