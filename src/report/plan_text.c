/* `gpuvet plan` as text: the steps of the reasoning, the requirements per node, the rules of thumb
 * it corrects and, with --check, the machine against them. One function per part of the plan. */
#include <string.h>

#include "report/cost_report.h"
#include "report/plan_balance.h"
#include "report/plan_report.h"
#include "report/wrap.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/width.h"
#include "util/units.h"

static const char *text_of(json_t *obj, const char *key) { return json_string_value(json_object_get(obj, key)); }

/* The document's names of steps, requirements, checks and statuses are identifiers, English in
 * JSON, marked N_() where the sizing code writes them: the text shows them translated. */
static const char *shown_name(const char *name) { return name ? _(name) : "?"; }

/* Without --gpus: the GPUs that fit, fewest first. */
static void print_candidates(FILE *out, json_t *plan, json_t *candidates)
{
    fprintf(out, _("What to rent for %s, %lld node(s): the fewest GPUs of each kind that fit\n\n"),
            text_of(plan, "workload"), json_integer_value(json_object_get(plan, "nodes")));
    fputs("  ", out);
    fput_padded(out, "#", 5);
    fput_padded(out, "GPU", 30);
    fput_right(out, _("N"), 6);
    /* TRANSLATORS: column header: GPU memory the job needs per GPU (14 columns). */
    fput_right(out, _("NEED/GPU"), 15);
    fput_right(out, "BF16 TFLOPS", 13);
    fputc('\n', out);
    size_t i;
    json_t *c;
    json_array_foreach(candidates, i, c) {
        json_t *tf = json_object_get(c, "dense_bf16_tflops_total");
        char tflops[32] = "-";
        if (json_is_number(tf))
            snprintf(tflops, sizeof tflops, "%.0f", json_number_value(tf));
        fprintf(out, "  %-4zu %-30s %5lld %11.1f GB %12s\n", i + 1, text_of(c, "gpu"),
                json_integer_value(json_object_get(c, "count_per_node")),
                json_number_value(json_object_get(c, "gpu_memory_bytes_per_gpu")) / GB, tflops);
    }
    json_t *v;
    json_array_foreach(json_object_get(plan, "steps"), i, v)
        fprintf(out, "\n%s\n", text_of(v, "text"));
}

static void print_heading(FILE *out, json_t *plan)
{
    json_t *gpu = json_object_get(plan, "gpu");
    fprintf(out, _("Plan for %s on %lld x %s per node, %lld node(s)\n"), text_of(plan, "workload"),
            json_integer_value(json_object_get(gpu, "count_per_node")), text_of(gpu, "id"),
            json_integer_value(json_object_get(plan, "nodes")));
    const char *note = text_of(gpu, "note");
    if (note)
        fprintf(out, _("note: %s\n"), note);
}

static void print_steps(FILE *out, json_t *plan)
{
    size_t i;
    json_t *v;
    fputc('\n', out);
    json_array_foreach(json_object_get(plan, "steps"), i, v) {
        fputs("  ", out);
        fput_padded(out, shown_name(text_of(v, "step")), 15);
        fprintf(out, " %s\n", text_of(v, "text"));
    }
}

/* A requirement's value in the unit its key names (bytes_s, bytes, gbit). */
static void format_requirement(const char *key, json_t *value, char *shown, size_t len)
{
    if (json_is_null(value))
        snprintf(shown, len, "-");
    else if (json_is_boolean(value))
        snprintf(shown, len, "%s", json_is_true(value) ? _("yes") : _("no"));
    else if (strstr(key, "bytes_s"))
        snprintf(shown, len, "%.2f GB/s", json_number_value(value) / GB);
    else if (strstr(key, "bytes"))
        snprintf(shown, len, "%.*f GB", gb_decimals(json_number_value(value)), json_number_value(value) / GB);
    else if (strstr(key, "gbit"))
        snprintf(shown, len, "%g Gb/s", json_number_value(value));
    else
        snprintf(shown, len, "%g", json_number_value(value));
}

static void print_requirements(FILE *out, json_t *plan)
{
    fputs(_("\nRequirements per node:\n"), out);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(plan, "requirements"), key, v) {
        char shown[64];
        format_requirement(key, json_object_get(v, "value"), shown, sizeof shown);
        fputs("  ", out);
        fput_padded(out, shown_name(key), 26);
        fputc(' ', out);
        fput_padded(out, shown, 12);
        fprintf(out, " %s\n", text_of(v, "why"));
    }
}

static void print_corrections(FILE *out, json_t *plan)
{
    json_t *corr = json_object_get(plan, "rule_of_thumb_corrections");
    if (!json_array_size(corr))
        return;
    fputs(_("\nWhere common rules of thumb are wrong:\n"), out);
    size_t i;
    json_t *v;
    json_array_foreach(corr, i, v)
        fprintf(out, "  - %s\n", json_string_value(v));
}

/* A need or a have: text as it is, a rate (unit "bytes/s") in GB/s, a number of bytes in GB, another
 * number as it is. */
static void format_check_value(json_t *v, const char *unit, char *shown, size_t len)
{
    if (json_is_string(v))
        snprintf(shown, len, "%s", json_string_value(v));
    else if (json_is_number(v) && unit && !strcmp(unit, "bytes/s"))
        snprintf(shown, len, "%.2f GB/s", json_number_value(v) / GB);
    else if (json_is_number(v) && json_number_value(v) >= 1e8)
        snprintf(shown, len, "%.*f GB", gb_decimals(json_number_value(v)), json_number_value(v) / GB);
    else if (json_is_number(v))
        snprintf(shown, len, "%.4g", json_number_value(v));
}

static void print_check(FILE *out, json_t *plan)
{
    json_t *check = json_object_get(plan, "check");
    if (!json_is_array(check))
        return;
    fprintf(out, _("\nCheck against %s:\n"), text_of(plan, "checked_against"));
    size_t i;
    json_t *v;
    json_array_foreach(check, i, v) {
        char need[64] = "", have[64] = "";
        const char *unit = json_string_value(json_object_get(v, "unit"));
        format_check_value(json_object_get(v, "need"), unit, need, sizeof need);
        format_check_value(json_object_get(v, "have"), unit, have, sizeof have);
        char need_cell[96], have_cell[96];
        /* TRANSLATORS: "need VALUE" and "have VALUE", cells of the --check table. */
        snprintf(need_cell, sizeof need_cell, _("need %s"), *need ? need : "-");
        snprintf(have_cell, sizeof have_cell, _("have %s"), *have ? have : "-");
        /* The reason goes on a line of its own, under the name: a row of five columns would not
         * fit a terminal. */
        fputs("  ", out);
        fput_padded(out, shown_name(text_of(v, "status")), 7);
        fputc(' ', out);
        fput_padded(out, shown_name(text_of(v, "what")), 24);
        fputc(' ', out);
        fput_padded(out, need_cell, 19);
        fprintf(out, " %s\n          %s\n", have_cell, text_of(v, "why"));
    }
}

static int plan_text_unescaped(FILE *out, json_t *plan)
{
    if (json_object_get(plan, "offers")) {
        plan_offers_text(out, plan);
        return ferror(out) ? -1 : 0;
    }
    json_t *candidates = json_object_get(plan, "candidates");
    if (json_is_array(candidates)) {
        print_candidates(out, plan, candidates);
        return ferror(out) ? -1 : 0;
    }
    print_heading(out, plan);
    print_steps(out, plan);
    print_requirements(out, plan);
    print_corrections(out, plan);
    print_check(out, plan);
    plan_balance_print_text(out, json_object_get(plan, "balance"));
    return ferror(out) ? -1 : 0;
}

static int render_plan(FILE *out, const void *ctx) { return plan_text_unescaped(out, (json_t *)ctx); }

/* The plan rendered whole, then its long lines wrapped to a terminal's width. */
static int render_plan_wrapped(FILE *out, const void *ctx) { return render_wrapped_table(out, render_plan, ctx); }

/* Model ids and names come from a user's config.json and offers file: escaped on the way out. */
int plan_report_text(FILE *out, json_t *plan, const struct plan_offers_ranking *offers)
{
    plan = offers ? plan_with_offers(plan, offers) : json_incref(plan);
    int rc = text_render_escaped(out, render_plan_wrapped, plan, NULL);
    json_decref(plan);
    return rc;
}

void plan_report_machine_problems(FILE *out, const struct machine *m, bool failed)
{
    for (int i = 0; i < m->nproblems; i++) {
        if (failed)
            print_error_to(out, "plan", _("error: %s: %s"), m->problems[i].path, machine_problem_text(&m->problems[i]));
        else
            print_note_to(out, "plan", _("warning: %s: %s"), m->problems[i].path, machine_problem_text(&m->problems[i]));
    }
}
