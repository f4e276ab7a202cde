/* `gpuvet audit --html FILE`: one self-contained page (inline CSS and SVG, no script, and a
 * Content-Security-Policy that forbids every fetch), readable on a phone and printable: the
 * verdict, the problems with their fixes, the topology picture, the DIMM slots, the NUMA distance
 * heat map, measured bandwidths against theory, and every finding with its evidence. */
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "util/parse.h"
#include "util/i18n.h"
#include "util/units.h"


static const char *or_unknown(const char *s) { return s ? s : _("unknown"); }

static void tag(FILE *o, enum severity s)
{
    char upper[16];
    page_severity_upper(upper, s);
    fprintf(o, "<span class=\"tag sev-%s\">%s</span>", severity_name(s), upper);
}

static void print_header(FILE *o, const struct audit_report *r)
{
    const struct machine *m = r->machine;
    const struct findings *f = r->findings;
    enum verdict verdict = page_verdict(r);
    fputs(_("<header><h1>gpuvet audit of "), o);
    html_text(o, m->hostname ? m->hostname : _("a machine whose host name is unknown"));
    fprintf(o, "</h1><p><span class=\"verdict sev-%s\" id=\"verdict\">", severity_name(page_verdict_colour(verdict)));
    char upper[16];
    page_verdict_upper(upper, verdict);
    fprintf(o, _("%s</span> for workload <b>%s</b>: %d fail, %d warn, %d unknown, %d info, %d pass</p>\n"), upper,
            workload_name(r->workload), findings_count(f, SEV_FAIL), findings_count(f, SEV_WARN),
            findings_count(f, SEV_UNKNOWN), findings_count(f, SEV_INFO), findings_count(f, SEV_PASS));
    if (r->verdicts) {
        fputs("<ul class=\"workloads\">", o);
        for (int w = 0; w < WORKLOAD_COUNT; w++) {
            char line[1024];
            page_workload_line(line, sizeof line, &r->verdicts->verdicts[w]);
            fputs("<li>", o);
            html_text(o, line);
            fputs("</li>", o);
        }
        fputs("</ul>\n", o);
    }
    char summary[512];
    page_machine_summary(summary, sizeof summary, m);
    fputs("<p>", o);
    html_text(o, summary);
    fputs(_("<br><span class=\"muted\">source: "), o);
    html_text(o, or_unknown(m->source));
    fprintf(o, _("; gpuvet %s</span></p></header>\n"), GPUVET_VERSION);
    fputs("<nav>", o);
    for (int i = 0; i < AUDIT_NSECTIONS; i++)
        if (audit_section_shown(r, (enum audit_section)i))
            fprintf(o, "<a href=\"#%s\">%s</a>", audit_sections[i].id, _(audit_sections[i].nav));
    fputs("</nav>\n", o);
}

static void print_evidence(FILE *o, const struct finding *it)
{
    char *text = page_evidence_text(it);
    if (!text)
        return;
    fputs(_("<div class=\"evidence\">evidence: "), o);
    html_text(o, text);
    fputs("</div>\n", o);
    free(text);
}

static void print_finding(FILE *o, const struct finding *it)
{
    fprintf(o, "<div class=\"finding %s\">", severity_name(it->severity));
    tag(o, it->severity);
    fputs(" <b>", o);
    html_text(o, it->rule->id);
    fputs("</b> <code>", o);
    char subject[128];
    html_text(o, finding_subject_shown(it->subject, subject, sizeof subject));
    fputs("</code><div class=\"msg\">", o);
    html_text(o, finding_message(it));
    fputs("</div>", o);
    print_evidence(o, it);
    if (it->fix && it->severity != SEV_PASS) {
        fputs(_("<div>fix: <code>"), o);
        html_text(o, finding_fix(it));
        fputs("</code></div>", o);
    }
    fputs("</div>\n", o);
}

static void print_problems(FILE *o, const struct audit_report *r)
{
    int shown = 0;
    for (int i = 0; i < r->findings->count; i++) {
        const struct finding *it = &r->findings->items[i];
        if (it->severity >= SEV_WARN) {
            print_finding(o, it);
            shown++;
        }
    }
    if (!shown)
        fputs(_("<p>No failed or warned check.</p>\n"), o);
}

static void print_topology(FILE *o, const struct audit_report *r)
{
    struct topo_tree t;
    topo_tree_build(r, &t);
    svg_topology(o, &t);
    topo_tree_free(&t);
}

static void dimm_cell(FILE *o, const struct memory_info *mem, const struct dimm *d)
{
    bool mismatched = page_dimm_mismatched(mem, d);
    char text[256];
    page_dimm_text(text, sizeof text, d);
    fprintf(o, "<td class=\"dimm%s\">", mismatched ? " mismatched" : "");
    html_text(o, text);
    if (mismatched)
        fputs(_("<br><b>mismatched</b>"), o);
    fputs("</td>", o);
}

static void print_memory(FILE *o, const struct audit_report *r)
{
    const struct machine *m = r->machine;
    const struct memory_info *mem = &m->memory;
    char summary[512];
    page_memory_summary(summary, sizeof summary, mem);
    fputs("<p>", o);
    html_text(o, summary);
    fputs("</p>\n", o);
    if (mem->ndimms == 0) {
        fputs(_("<p>DIMMs unknown: "), o);
        html_text(o, mem->unknown_reason ? _(mem->unknown_reason) : _("no DIMM source was read"));
        fputs("</p>\n", o);
        return;
    }
    for (int s = 0; s < mem->sockets; s++) {
        double bw = memory_socket_bandwidth(mem, s);
        fprintf(o, _("<h3>Socket %d: %d DIMMs"), s, memory_socket_dimms(mem, s));
        if (bw > 0)
            fprintf(o, _(", %.1f GB/s theoretical"), bw / GB);
        fputs("</h3>\n<div class=\"scroll\"><table>", o);
        if (!mem->channels_from_locators) {
            fputs(_("<tr><th>DIMMs (the locators name no channel)</th>"), o);
            for (int i = 0; i < mem->ndimms; i++)
                if (mem->dimms[i].socket == s)
                    dimm_cell(o, mem, &mem->dimms[i]);
            fputs("</tr></table></div>\n", o);
            continue;
        }
        int channels = page_socket_channel_count(mem, s), slots = page_slots_per_channel(mem);
        for (int ch = 0; ch < channels; ch++) {
            fprintf(o, _("<tr><th>channel %d</th>"), ch);
            int n = 0;
            for (int i = 0; i < mem->ndimms; i++)
                if (mem->dimms[i].socket == s && mem->dimms[i].channel == ch) {
                    dimm_cell(o, mem, &mem->dimms[i]);
                    n++;
                }
            for (int empty = n; empty < (slots ? slots : 1); empty++)
                fprintf(o, "<td class=\"dimm empty\">%s</td>", _("empty"));
            fputs("</tr>\n", o);
        }
        fputs("</table></div>\n", o);
    }
}

static void print_numa(FILE *o, const struct audit_report *r)
{
    const struct machine *m = r->machine;
    int lo = 0, hi = 0;
    if (!page_distance_range(m, &lo, &hi)) {
        fputs(_("<p>The kernel's distance table is unknown.</p>\n"), o);
        return;
    }
    fputs(_("<p class=\"muted\">The kernel's relative distances (10 = local); darker is farther.</p>"
          "<div class=\"scroll\"><table><tr><th>from \\ to</th>"), o);
    for (int k = 0; k < m->nnodes; k++)
        fprintf(o, _("<th>node %d</th>"), m->nodes[k].id);
    fputs("</tr>\n", o);
    for (int i = 0; i < m->nnodes; i++) {
        fprintf(o, _("<tr><th>node %d</th>"), m->nodes[i].id);
        for (int k = 0; k < m->nnodes; k++) {
            if (!m->nodes[i].distances) {
                fputs("<td>?</td>", o);
                continue;
            }
            int d = m->nodes[i].distances[k];
            double t = hi > lo ? (double)(d - lo) / (hi - lo) : 0;
            /* Green (near) to red (far), lightness kept readable under black text. */
            fprintf(o, "<td class=\"num\" style=\"background:hsl(%.0f,70%%,%.0f%%)\">%d</td>", 120 * (1 - t),
                    85 - 20 * t, d);
        }
        fputs("</tr>\n", o);
    }
    fputs("</table></div>\n", o);
}

static void print_bench(FILE *o, const struct audit_report *r)
{
    const struct bench_results *b = &r->machine->bench;
    struct page_rate rates[64];
    int n = page_bench_rates(r, rates, 64);
    fputs("<p class=\"muted\">from ", o);
    html_text(o, b->source);
    fputs(_("</p><div class=\"scroll\"><table><tr><th>what</th><th>measured GB/s</th><th>theory GB/s</th>"
          "<th>share</th><th>basis</th></tr>\n"),
          o);
    for (int i = 0; i < n; i++) {
        const struct page_rate *rate = &rates[i];
        fputs("<tr><td>", o);
        html_text(o, rate->what);
        if (rate->measured_gb_s > 0)
            fprintf(o, "</td><td class=\"num\">%.2f</td>", rate->measured_gb_s);
        else
            fputs("</td><td>-</td>", o);
        if (rate->theory_gb_s > 0) {
            double share = rate->measured_gb_s / rate->theory_gb_s;
            fprintf(o, "<td class=\"num\">%.2f</td><td><div class=\"bar%s\"><span style=\"width:%.0f%%\"></span>"
                       "</div>%.0f%%</td>",
                    rate->theory_gb_s, rate->severity >= SEV_WARN ? " low" : "", share > 1 ? 100 : share * 100, share * 100);
        } else {
            fputs("<td>?</td><td></td>", o);
        }
        fputs("<td>", o);
        html_text(o, rate->theory_basis);
        fputs("</td></tr>\n", o);
    }
    fputs("</table></div>\n", o);
}

static void print_claims(FILE *o, const struct audit_report *r)
{
    const struct claim_set *set = r->claims;
    fputs("<p class=\"muted\">", o);
    html_text(o, set->file);
    fprintf(o, "</p><div class=\"scroll\"><table><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr>\n",
            _("claim"), _("claimed"), _("found"), _("verdict"), _("why"));
    for (int i = 0; i < set->count; i++) {
        const struct claim *c = &set->items[i];
        char *claimed, *found;
        page_claim_texts(c, &claimed, &found);
        fputs("<tr><td>", o);
        html_text(o, c->key);
        fputs("</td><td>", o);
        html_text(o, claimed ? claimed : "?");
        fputs("</td><td>", o);
        html_text(o, found ? found : _("unknown"));
        fputs("</td><td>", o);
        html_text(o, _(claim_verdict_name(c->verdict)));
        fputs("</td><td>", o);
        html_text(o, claim_message_text(c));
        fputs("</td></tr>\n", o);
        free(claimed);
        free(found);
    }
    fputs("</table></div>\n", o);
}

static void print_all_findings(FILE *o, const struct audit_report *r)
{
    int passed = 0;
    for (int i = 0; i < r->findings->count; i++) {
        const struct finding *it = &r->findings->items[i];
        if (it->severity == SEV_PASS)
            passed++;
        else if (it->severity < SEV_WARN)
            print_finding(o, it);
    }
    if (passed) {
        fprintf(o, _("<details><summary>%d check%s passed</summary>\n"), passed, passed == 1 ? "" : "s");
        for (int i = 0; i < r->findings->count; i++)
            if (r->findings->items[i].severity == SEV_PASS)
                print_finding(o, &r->findings->items[i]);
        fputs("</details>\n", o);
    }
    const struct machine *m = r->machine;
    if (m->nproblems) {
        fputs(_("<h3>Input problems</h3><p class=\"muted\">Facts from these files are reported as unknown.</p><ul>"), o);
        for (int i = 0; i < m->nproblems; i++) {
            fputs("<li><code>", o);
            html_text(o, m->problems[i].path);
            fputs("</code>: ", o);
            html_text(o, machine_problem_text(&m->problems[i]));
            fputs("</li>\n", o);
        }
        fputs("</ul>\n", o);
    }
}

int report_html(FILE *o, const struct audit_report *r)
{
    /* In audit_sections' order (report/page.c), which the Markdown ticket follows too. */
    static const struct audit_section_writer writer = {
        page_html_section_begin, page_html_section_end,
        {[AUDIT_PROBLEMS] = print_problems, [AUDIT_CLAIMS] = print_claims, [AUDIT_TOPOLOGY] = print_topology,
         [AUDIT_MEMORY] = print_memory, [AUDIT_NUMA] = print_numa, [AUDIT_BENCH] = print_bench,
         [AUDIT_FINDINGS] = print_all_findings},
    };
    char title[256];
    snprintf(title, sizeof title, _("gpuvet audit of %s"), or_unknown(r->machine->hostname));
    page_html_begin(o, title);
    print_header(o, r);
    audit_sections_write(o, r, &writer);
    page_html_end(o);
    return ferror(o) ? -1 : 0;
}
