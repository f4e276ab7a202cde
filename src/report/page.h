/* What the HTML page and the Markdown ticket both show, built once from the model and findings:
 * the verdict, the topology tree (packages, NUMA nodes, bridges, devices), the DIMM grid and the
 * bandwidths against theory. Each format only draws these. Also what every page (the audit's and
 * the fleet's) shares: escaping, the HTML frame, and the sections' order and titles. */
#ifndef GPUVET_REPORT_PAGE_H
#define GPUVET_REPORT_PAGE_H

#include <stdio.h>

#include "report/report.h"

/* ---- every page: escaping and frame ---- */

/* Writes s with & < > " ' escaped: every string from a file or the model goes through it. */
void html_text(FILE *o, const char *s);
/* Writes s with the characters Markdown or GitHub's HTML would interpret backslash-escaped, and
 * line breaks as spaces so a table row stays one row. */
void md_text(FILE *o, const char *s);
/* A self-contained page up to <body>: inline CSS, no script, and a Content-Security-Policy that
 * forbids every fetch; the title is escaped. page_html_end writes the footer and closes it. */
void page_html_begin(FILE *o, const char *title);
void page_html_end(FILE *o);
/* <section id="ID"><h2>TITLE</h2>; page_html_section_end closes it. */
void page_html_section_begin(FILE *o, const char *id, const char *title);
void page_html_section_end(FILE *o);
/* "\n## TITLE\n\n" (level 2) or "### " (level 3), the title escaped. */
void page_md_heading(FILE *o, int level, const char *title);

/* ---- the audit page's sections, in order: html.c and markdown.c both draw from this ---- */

enum audit_section {
    AUDIT_PROBLEMS,
    AUDIT_CLAIMS,
    AUDIT_TOPOLOGY,
    AUDIT_MEMORY,
    AUDIT_NUMA,
    AUDIT_BENCH,
    AUDIT_FINDINGS,
    AUDIT_NSECTIONS
};
struct page_section {
    const char *id;    /* HTML anchor */
    const char *nav;   /* the HTML navigation link */
    const char *title; /* the heading */
};
extern const struct page_section audit_sections[AUDIT_NSECTIONS];
/* Whether a report has the section: claims only with --claim, measurements only with bench figures. */
bool audit_section_shown(const struct audit_report *r, enum audit_section s);
/* The heading of a section for this report ("All findings (workload cv-train)"). */
void audit_section_title(char *buf, size_t n, const struct audit_report *r, enum audit_section s);
/* How a format draws the sections: audit_sections_write walks them in order, skips those the
 * report lacks, and calls begin (with the section's anchor and heading), draw and end (may be NULL). */
struct audit_section_writer {
    void (*begin)(FILE *o, const char *id, const char *title);
    void (*end)(FILE *o);
    void (*draw[AUDIT_NSECTIONS])(FILE *o, const struct audit_report *r);
};
void audit_sections_write(FILE *o, const struct audit_report *r, const struct audit_section_writer *w);

/* The verdict the pages show (the asked workload's, rules/verdict.h); the only place html.c and
 * markdown.c obtain it. */
enum verdict page_verdict(const struct audit_report *r);
/* "PASS", "INCONCLUSIVE", "WARN", "FAIL" */
void page_verdict_upper(char out[16], enum verdict v);
/* The severity whose colour a verdict takes (INCONCLUSIVE: unknown's). */
enum severity page_verdict_colour(enum verdict v);
/* One line per workload: "cv-train: INCONCLUSIVE, checked 21 of 35 checks; unknown: DIMMs (why)". */
void page_workload_line(char *buf, size_t n, const struct workload_verdict *v);

/* "FAIL", "WARN", ... */
void page_severity_upper(char out[16], enum severity s);
/* One line: CPU model, sockets/cores/threads, memory, accelerators, VM or bare metal. */
void page_machine_summary(char *buf, size_t n, const struct machine *m);

enum topo_kind { TOPO_MACHINE, TOPO_PACKAGE, TOPO_NUMA, TOPO_BRIDGE, TOPO_DEVICE };
/* LINK_MARK_CAPPED (appended): the device's link runs at what its port allows, less than the device
 * can do (PCIE_SLOT_CAPPED warn/fail): not a fault of the link, a limit of the slot. */
enum link_state_mark { LINK_MARK_OK, LINK_MARK_SLOW, LINK_MARK_DEGRADED, LINK_MARK_UNKNOWN, LINK_MARK_CAPPED };

struct topo_item {
    enum topo_kind kind;
    char label[192];       /* "NUMA node 0", "GPU 0000:3b:00.0 NVIDIA H100" */
    char detail[160];      /* memory, CPUs, or the link "Gen4 x16 (max Gen4 x16)" */
    char bus_id[32];       /* bridges and devices; "" otherwise */
    enum pci_role role;    /* devices only */
    enum link_state_mark mark; /* bridges and devices: how the link stands */
    int depth;             /* 0 = machine */
    int last_descendant;   /* index of the last item inside this one (itself when a leaf) */
};

/* Depth-first, parents before children: drawing rows in order nests them. */
struct topo_tree {
    struct topo_item *items;
    int count;
};

void topo_tree_build(const struct audit_report *r, struct topo_tree *t);
void topo_tree_free(struct topo_tree *t);

/* "Gen4 x16", "Gen? x8" from a rate and a width; "unknown" when neither is known. */
void page_link_text(char *buf, size_t n, int gen, int width);

/* Whether a DIMM differs from the machine's most common size/type/speed. */
bool page_dimm_mismatched(const struct memory_info *mem, const struct dimm *d);
/* Channels to draw for a socket: the platform's, or as many as the locators name. */
int page_socket_channel_count(const struct memory_info *mem, int socket);

/* DIMM slots per channel when the SMBIOS slot count divides evenly over sockets x channels of
 * the platform; 0 when it does not (then empty slots are not drawn, only counted). */
int page_slots_per_channel(const struct memory_info *mem);

/* "256.0 GiB installed; ECC on; platform ...; 16 of 32 DIMM slots free" */
void page_memory_summary(char *buf, size_t n, const struct memory_info *mem);
/* "DIMM_P0_A1 16 GiB DDR4 3200 MT/s" */
void page_dimm_text(char *buf, size_t n, const struct dimm *d);
/* A finding's evidence as "key = value; ..." (malloc'd; objects "(key=value, ...)", arrays
 * "[a, b]"), NULL when it has none; null values and strings its message or fix already says are
 * left out. */
char *page_evidence_text(const struct finding *it);
/* A claim's claimed and found values as JSON text (malloc'd; found NULL when unknown). */
void page_claim_texts(const struct claim *c, char **claimed, char **found);

/* A measured rate against the theoretical one: what the bench section tabulates. */
struct page_rate {
    char what[96];
    double measured_gb_s;  /* 0: not measured, theory_basis says why */
    double theory_gb_s;    /* 0 when unknown */
    char theory_basis[128]; /* "8 channels DDR4-3200", "Gen4 x16", or why unknown */
    /* The severity of the finding that judged this rate (MEM_BANDWIDTH_LOW, PCIE_BANDWIDTH_LOW for
     * its device); SEV_PASS when none did: a page marks a rate by it, never by a share of its own. */
    enum severity severity;
};
/* Fills up to max rates from m->bench; returns how many. */
int page_bench_rates(const struct audit_report *r, struct page_rate *out, int max);

/* NUMA distance bounds over the table (min off-diagonal included); false when no distances. */
bool page_distance_range(const struct machine *m, int *lo, int *hi);


#endif
