#include "report/plan_balance.h"

json_t *plan_balance_json(const struct balance *b)
{
    json_t *stages = json_array();
    for (int i = 0; i < b->nstages; i++) {
        const struct balance_stage *s = &b->stages[i];
        bool known = s->basis != BASIS_UNKNOWN && s->basis != BASIS_NOT_USED;
        json_array_append_new(stages, json_pack("{s:s, s:o, s:s, s:s, s:o}", "name", s->name, "capacity",
                                                known ? json_real(s->capacity) : json_null(), "basis",
                                                balance_basis_name(s->basis), "source", s->source, "formula",
                                                *s->formula ? json_string(s->formula) : json_null()));
    }
    const struct balance_stage *neck = b->bottleneck >= 0 ? &b->stages[b->bottleneck] : NULL;
    return json_pack("{s:s, s:s, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:s}", "unit", b->unit, "per", "node",
                     "gpus_per_node", b->gpus_per_node, "nodes", b->nodes, "stages", stages, "bottleneck",
                     neck ? json_string(neck->name) : json_null(), "rate_per_node",
                     neck ? json_real(neck->capacity) : json_null(), "rate_job",
                     neck ? json_real(neck->capacity * b->nodes) : json_null(), "gpus_without_loss",
                     b->gpus_without_loss > 0 ? json_integer(b->gpus_without_loss) : json_null(), "advice",
                     b->advice);
}

void plan_balance_attach(json_t *plan, const struct balance *b)
{
    json_object_set_new(plan, "balance", plan_balance_json(b));
}
