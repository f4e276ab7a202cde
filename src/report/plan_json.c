/* `gpuvet plan --json`: the plan's document under the gpuvet.plan/1 envelope. */
#include "report/cost_report.h"
#include "report/plan_report.h"

int plan_report_json(FILE *out, json_t *plan, const struct plan_offers_ranking *offers)
{
    plan = offers ? plan_with_offers(plan, offers) : json_incref(plan);
    json_t *root = json_pack("{s:s, s:s, s:O}", "schema", PLAN_SCHEMA, "gpuvet_version", GPUVET_VERSION, "plan", plan);
    int rc = root ? json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
    fputc('\n', out);
    json_decref(root);
    json_decref(plan);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
