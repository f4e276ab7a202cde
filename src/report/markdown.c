/* `gpuvet audit --markdown FILE`: the HTML page's content as GitHub-flavoured Markdown, for a
 * ticket or an issue: the verdict, problems with fixes, the topology as a nested list, the DIMM
 * slots, the NUMA distances and measured bandwidths as tables, and every finding. */
#include <stdlib.h>
#include <string.h>

#include "report/page.h"
#include "util/parse.h"
#include "util/i18n.h"


static const char *or_unknown(const char *s) { return s ? s : _("unknown"); }

static void print_header(FILE *o, const struct audit_report *r)
{
    const struct machine *m = r->machine;
    const struct findings *f = r->findings;
    char verdict[16];
    page_verdict_upper(verdict, page_verdict(r));
    fputs(_("# gpuvet audit of "), o);
    md_text(o, m->hostname ? m->hostname : _("a machine whose host name is unknown"));
    fprintf(o, _("\n\n**Verdict: %s** for workload `%s`: %d fail, %d warn, %d unknown, %d info, %d pass\n\n"), verdict,
            workload_name(r->workload), findings_count(f, SEV_FAIL), findings_count(f, SEV_WARN),
            findings_count(f, SEV_UNKNOWN), findings_count(f, SEV_INFO), findings_count(f, SEV_PASS));
    if (r->verdicts) {
        for (int w = 0; w < WORKLOAD_COUNT; w++) {
            char line[1024];
            page_workload_line(line, sizeof line, &r->verdicts->verdicts[w]);
            fputs("- ", o);
            md_text(o, line);
            fputs("\n", o);
        }
        fputs("\n", o);
    }
    char summary[512];
    page_machine_summary(summary, sizeof summary, m);
    md_text(o, summary);
    fputs(_(" (source: "), o);
    md_text(o, or_unknown(m->source));
    fprintf(o, _("; gpuvet %s)\n"), GPUVET_VERSION);
}

static void findings_table_head(FILE *o)
{
    fputs(_("| severity | rule | subject | finding | evidence | fix |\n|---|---|---|---|---|---|\n"), o);
}

static void finding_row(FILE *o, const struct finding *it)
{
    char sev[16];
    page_severity_upper(sev, it->severity);
    fprintf(o, "| %s | %s | ", sev, it->rule->id);
    char subject[128];
    md_text(o, finding_subject_shown(it->subject, subject, sizeof subject));
    fputs(" | ", o);
    md_text(o, finding_message(it));
    fputs(" | ", o);
    char *evidence = page_evidence_text(it);
    md_text(o, evidence);
    free(evidence);
    fputs(" | ", o);
    if (it->fix && it->severity != SEV_PASS)
        md_text(o, finding_fix(it));
    fputs(" |\n", o);
}

static void print_problems(FILE *o, const struct audit_report *r)
{
    int shown = 0;
    for (int i = 0; i < r->findings->count; i++) {
        const struct finding *it = &r->findings->items[i];
        if (it->severity < SEV_WARN)
            continue;
        if (!shown++)
            findings_table_head(o);
        finding_row(o, it);
    }
    if (!shown)
        fputs(_("No failed or warned check.\n"), o);
}

static void print_topology(FILE *o, const struct audit_report *r)
{
    const char *const marks[] = {"", _(" (lower speed at idle: re-check under load)"), _(" **DEGRADED LINK**"), "",
                                 _(" **CAPPED BY ITS PORT**")};
    struct topo_tree t;
    topo_tree_build(r, &t);
    for (int i = 0; i < t.count; i++) {
        const struct topo_item *it = &t.items[i];
        fprintf(o, "%*s- ", 2 * it->depth, "");
        md_text(o, it->label);
        if (*it->detail) {
            fputs(": ", o);
            md_text(o, it->detail);
        }
        fprintf(o, "%s\n", it->kind == TOPO_DEVICE || it->kind == TOPO_BRIDGE ? marks[it->mark] : "");
    }
    topo_tree_free(&t);
}

static void dimm_text(FILE *o, const struct memory_info *mem, const struct dimm *d)
{
    char text[256];
    page_dimm_text(text, sizeof text, d);
    md_text(o, text);
    if (page_dimm_mismatched(mem, d))
        fputs(_(" **mismatched**"), o);
}

static void print_memory(FILE *o, const struct audit_report *r)
{
    const struct machine *m = r->machine;
    const struct memory_info *mem = &m->memory;
    char summary[512];
    page_memory_summary(summary, sizeof summary, mem);
    md_text(o, summary);
    fputs("\n\n", o);
    if (mem->ndimms == 0) {
        fputs(_("DIMMs unknown: "), o);
        md_text(o, mem->unknown_reason ? _(mem->unknown_reason) : _("no DIMM source was read"));
        fputc('\n', o);
        return;
    }
    fputs(_("| socket | channel | DIMMs |\n|---|---|---|\n"), o);
    for (int s = 0; s < mem->sockets; s++) {
        int channels = mem->channels_from_locators ? page_socket_channel_count(mem, s) : 1;
        for (int ch = 0; ch < channels; ch++) {
            if (mem->channels_from_locators)
                fprintf(o, "| %d | %d | ", s, ch);
            else
                fprintf(o, _("| %d | not named by the locators | "), s);
            int n = 0;
            for (int i = 0; i < mem->ndimms; i++) {
                const struct dimm *d = &mem->dimms[i];
                if (d->socket != s || (mem->channels_from_locators && d->channel != ch))
                    continue;
                fputs(n++ ? "; " : "", o);
                dimm_text(o, mem, d);
            }
            int slots = page_slots_per_channel(mem);
            for (int empty = n; empty < (slots ? slots : 1); empty++)
                fputs(empty ? _("; empty") : _("empty"), o);
            fputs(" |\n", o);
        }
    }
}

static void print_numa(FILE *o, const struct audit_report *r)
{
    const struct machine *m = r->machine;
    int lo = 0, hi = 0;
    if (!page_distance_range(m, &lo, &hi)) {
        fputs(_("The kernel's distance table is unknown.\n"), o);
        return;
    }
    fputs(_("| from node, to node |"), o);
    for (int k = 0; k < m->nnodes; k++)
        fprintf(o, _(" node %d |"), m->nodes[k].id);
    fputs("\n|---|", o);
    for (int k = 0; k < m->nnodes; k++)
        fputs("---:|", o);
    fputc('\n', o);
    for (int i = 0; i < m->nnodes; i++) {
        fprintf(o, _("| node %d |"), m->nodes[i].id);
        for (int k = 0; k < m->nnodes; k++) {
            if (m->nodes[i].distances)
                fprintf(o, " %d |", m->nodes[i].distances[k]);
            else
                fputs(" ? |", o);
        }
        fputc('\n', o);
    }
}

static void print_bench(FILE *o, const struct audit_report *r)
{
    const struct bench_results *b = &r->machine->bench;
    struct page_rate rates[64];
    int n = page_bench_rates(r, rates, 64);
    fputs("From ", o);
    md_text(o, b->source);
    fputs(_(".\n\n| what | measured GB/s | theory GB/s | share | basis |\n|---|---:|---:|---:|---|\n"), o);
    for (int i = 0; i < n; i++) {
        fputs("| ", o);
        md_text(o, rates[i].what);
        if (rates[i].measured_gb_s > 0)
            fprintf(o, " | %.2f | ", rates[i].measured_gb_s);
        else
            fputs(" | - | ", o);
        if (rates[i].theory_gb_s > 0)
            fprintf(o, "%.2f | %.0f%% | ", rates[i].theory_gb_s, 100 * rates[i].measured_gb_s / rates[i].theory_gb_s);
        else
            fputs("? |  | ", o);
        md_text(o, rates[i].theory_basis);
        fputs(" |\n", o);
    }
}

static void print_claims(FILE *o, const struct audit_report *r)
{
    const struct claim_set *set = r->claims;
    fprintf(o, "| %s | %s | %s | %s | %s |\n|---|---|---|---|---|\n", _("claim"), _("claimed"), _("found"), _("verdict"),
            _("why"));
    for (int i = 0; i < set->count; i++) {
        const struct claim *c = &set->items[i];
        char *claimed, *found;
        page_claim_texts(c, &claimed, &found);
        fputs("| ", o);
        md_text(o, c->key);
        fputs(" | ", o);
        md_text(o, claimed ? claimed : "?");
        fputs(" | ", o);
        md_text(o, found ? found : _("unknown"));
        fprintf(o, " | %s | ", _(claim_verdict_name(c->verdict)));
        md_text(o, claim_message_text(c));
        fputs(" |\n", o);
        free(claimed);
        free(found);
    }
}

static void print_all_findings(FILE *o, const struct audit_report *r)
{
    if (r->findings->count)
        findings_table_head(o);
    for (int i = 0; i < r->findings->count; i++)
        finding_row(o, &r->findings->items[i]);
    const struct machine *m = r->machine;
    if (m->nproblems) {
        fputs(_("\n### Input problems\n\nFacts from these files are reported as unknown.\n\n"), o);
        for (int i = 0; i < m->nproblems; i++) {
            fputs("- ", o);
            md_text(o, m->problems[i].path);
            fputs(": ", o);
            md_text(o, machine_problem_text(&m->problems[i]));
            fputc('\n', o);
        }
    }
}

static void heading(FILE *o, const char *id, const char *title)
{
    (void)id; /* GitHub derives its own anchors from the heading */
    page_md_heading(o, 2, title);
}

int report_markdown(FILE *o, const struct audit_report *r)
{
    /* In audit_sections' order (report/page.c), which the HTML page follows too. */
    static const struct audit_section_writer writer = {
        heading, NULL,
        {[AUDIT_PROBLEMS] = print_problems, [AUDIT_CLAIMS] = print_claims, [AUDIT_TOPOLOGY] = print_topology,
         [AUDIT_MEMORY] = print_memory, [AUDIT_NUMA] = print_numa, [AUDIT_BENCH] = print_bench,
         [AUDIT_FINDINGS] = print_all_findings},
    };
    print_header(o, r);
    audit_sections_write(o, r, &writer);
    return ferror(o) ? -1 : 0;
}
