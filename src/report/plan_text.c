/* `gpuvet plan` as text: the steps of the reasoning, the requirements per node, the rules of thumb
 * it corrects and, with --check, the machine against them. One function per part of the plan. */
#include <string.h>

#include "report/cost_report.h"
#include "report/plan_balance.h"
#include "report/plan_report.h"
#include "util/output.h"

static const char *text_of(json_t *obj, const char *key) { return json_string_value(json_object_get(obj, key)); }

/* Without --gpus: the GPUs that fit, fewest first. */
static void print_candidates(FILE *out, json_t *plan, json_t *candidates)
{
    fprintf(out, "What to rent for %s, %lld node(s): the fewest GPUs of each kind that fit\n\n",
            text_of(plan, "workload"), json_integer_value(json_object_get(plan, "nodes")));
    fprintf(out, "  %-4s %-30s %5s %14s %12s\n", "#", "GPU", "N", "NEED/GPU", "BF16 TFLOPS");
    size_t i;
    json_t *c;
    json_array_foreach(candidates, i, c) {
        json_t *tf = json_object_get(c, "dense_bf16_tflops_total");
        char tflops[32] = "-";
        if (json_is_number(tf))
            snprintf(tflops, sizeof tflops, "%.0f", json_number_value(tf));
        fprintf(out, "  %-4zu %-30s %5lld %11.1f GB %12s\n", i + 1, text_of(c, "gpu"),
                json_integer_value(json_object_get(c, "count_per_node")),
                json_number_value(json_object_get(c, "gpu_memory_bytes_per_gpu")) / 1e9, tflops);
    }
    json_t *v;
    json_array_foreach(json_object_get(plan, "steps"), i, v)
        fprintf(out, "\n%s\n", text_of(v, "text"));
}

static void print_heading(FILE *out, json_t *plan)
{
    json_t *gpu = json_object_get(plan, "gpu");
    fprintf(out, "Plan for %s on %lld x %s per node, %lld node(s)\n", text_of(plan, "workload"),
            json_integer_value(json_object_get(gpu, "count_per_node")), text_of(gpu, "id"),
            json_integer_value(json_object_get(plan, "nodes")));
    const char *note = text_of(gpu, "note");
    if (note)
        fprintf(out, "note: %s\n", note);
}

static void print_steps(FILE *out, json_t *plan)
{
    size_t i;
    json_t *v;
    fputc('\n', out);
    json_array_foreach(json_object_get(plan, "steps"), i, v)
        fprintf(out, "  %-15s %s\n", text_of(v, "step"), text_of(v, "text"));
}

/* A requirement's value in the unit its key names (bytes_s, bytes, gbit). */
static void format_requirement(const char *key, json_t *value, char *shown, size_t len)
{
    if (json_is_null(value))
        snprintf(shown, len, "-");
    else if (json_is_boolean(value))
        snprintf(shown, len, "%s", json_is_true(value) ? "yes" : "no");
    else if (strstr(key, "bytes_s"))
        snprintf(shown, len, "%.2f GB/s", json_number_value(value) / 1e9);
    else if (strstr(key, "bytes"))
        snprintf(shown, len, "%.1f GB", json_number_value(value) / 1e9);
    else if (strstr(key, "gbit"))
        snprintf(shown, len, "%g Gb/s", json_number_value(value));
    else
        snprintf(shown, len, "%g", json_number_value(value));
}

static void print_requirements(FILE *out, json_t *plan)
{
    fprintf(out, "\nRequirements per node:\n");
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(plan, "requirements"), key, v) {
        char shown[64];
        format_requirement(key, json_object_get(v, "value"), shown, sizeof shown);
        fprintf(out, "  %-26s %-12s %s\n", key, shown, text_of(v, "why"));
    }
}

static void print_corrections(FILE *out, json_t *plan)
{
    json_t *corr = json_object_get(plan, "rule_of_thumb_corrections");
    if (!json_array_size(corr))
        return;
    fprintf(out, "\nWhere common rules of thumb are wrong:\n");
    size_t i;
    json_t *v;
    json_array_foreach(corr, i, v)
        fprintf(out, "  - %s\n", json_string_value(v));
}

/* A need or a have: text as it is, a number of bytes in GB, another number as it is. */
static void format_check_value(json_t *v, char *shown, size_t len)
{
    if (json_is_string(v))
        snprintf(shown, len, "%s", json_string_value(v));
    else if (json_is_number(v) && json_number_value(v) >= 1e8)
        snprintf(shown, len, "%.1f GB", json_number_value(v) / 1e9);
    else if (json_is_number(v))
        snprintf(shown, len, "%.4g", json_number_value(v));
}

static void print_check(FILE *out, json_t *plan)
{
    json_t *check = json_object_get(plan, "check");
    if (!json_is_array(check))
        return;
    fprintf(out, "\nCheck against %s:\n", text_of(plan, "checked_against"));
    size_t i;
    json_t *v;
    json_array_foreach(check, i, v) {
        char need[64] = "", have[64] = "";
        format_check_value(json_object_get(v, "need"), need, sizeof need);
        format_check_value(json_object_get(v, "have"), have, sizeof have);
        fprintf(out, "  %-7s %-24s need %-14s have %-28s %s\n", text_of(v, "status"), text_of(v, "what"),
                *need ? need : "-", *have ? have : "-", text_of(v, "why"));
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

/* Model ids and names come from a user's config.json and offers file: escaped on the way out. */
int plan_report_text(FILE *out, json_t *plan, const struct plan_offers_ranking *offers)
{
    plan = offers ? plan_with_offers(plan, offers) : json_incref(plan);
    int rc = text_render_escaped(out, render_plan, plan, NULL);
    json_decref(plan);
    return rc;
}
