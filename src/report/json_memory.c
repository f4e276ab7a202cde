/* JSON of the memory, power and contention parts of the model (docs/audit-json.md). */
#include "report/report.h"
#include "util/jsonval.h"

static json_t *int_or_null(long v) { return v >= 0 ? json_integer(v) : json_null(); }
static json_t *positive_int_or_null(long v) { return v > 0 ? json_integer(v) : json_null(); }

static const char *ecc_state_name(enum ecc_state e)
{
    return e == ECC_ON ? "on" : e == ECC_OFF ? "off" : "unknown";
}

static json_t *dimm_json(const struct dimm *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "locator", json_string_or_null(d->locator));
    json_object_set_new(o, "bank_locator", json_string_or_null(d->bank_locator));
    json_object_set_new(o, "socket", int_or_null(d->socket));
    json_object_set_new(o, "channel", int_or_null(d->channel));
    json_object_set_new(o, "size_bytes", json_integer((json_int_t)d->size_bytes));
    json_object_set_new(o, "type", json_string_or_null(d->type));
    json_object_set_new(o, "speed_mts", positive_int_or_null(d->speed_mts));
    json_object_set_new(o, "configured_mts", positive_int_or_null(d->configured_mts));
    json_object_set_new(o, "rank", positive_int_or_null(d->rank));
    json_object_set_new(o, "total_width", int_or_null(d->total_width));
    json_object_set_new(o, "data_width", int_or_null(d->data_width));
    json_object_set_new(o, "ce_count", int_or_null(d->ce_count));
    json_object_set_new(o, "ue_count", int_or_null(d->ue_count));
    return o;
}

json_t *memory_json(const struct memory_info *mem)
{
    json_t *o = json_object(), *dimms = json_array(), *sockets = json_array(), *persistent = json_array();
    for (int i = 0; i < mem->ndimms; i++)
        json_array_append_new(dimms, dimm_json(&mem->dimms[i]));
    for (int i = 0; i < mem->npersistent; i++)
        json_array_append_new(persistent, dimm_json(&mem->persistent[i]));
    double total_bw = 0;
    for (int s = 0; s < mem->sockets; s++) {
        double bw = memory_socket_bandwidth(mem, s);
        total_bw += bw;
        json_array_append_new(sockets, json_pack("{s:i, s:i, s:o, s:o}", "socket", s, "dimms",
                                                 memory_socket_dimms(mem, s), "populated_channels",
                                                 int_or_null(memory_socket_channels(mem, s)),
                                                 "theoretical_bandwidth_bytes_s",
                                                 bw > 0 ? json_real(bw) : json_null()));
    }
    json_object_set_new(o, "source", json_string_or_null(mem->source));
    json_object_set_new(o, "unknown_reason", json_string_or_null(mem->unknown_reason));
    json_object_set_new(o, "installed_bytes", mem->installed_bytes >= 0 ? json_integer(mem->installed_bytes) : json_null());
    json_object_set_new(o, "usable_bytes", mem->usable_bytes >= 0 ? json_integer(mem->usable_bytes) : json_null());
    json_object_set_new(o, "ecc", json_string(ecc_state_name(mem->ecc)));
    json_object_set_new(o, "ecc_evidence", json_string_or_null(mem->ecc_evidence));
    json_object_set_new(o, "edac", json_pack("{s:b, s:o, s:o}", "present", mem->edac_present, "ce_count",
                                             int_or_null(mem->edac_ce), "ue_count", int_or_null(mem->edac_ue)));
    json_object_set_new(o, "dimm_slots", int_or_null(mem->slots_total));
    json_object_set_new(o, "dimm_slots_free",
                        mem->slots_total >= 0 ? json_integer(mem->slots_total - mem->ndimms - mem->npersistent)
                                              : json_null());
    json_object_set_new(o, "pcie_slots", int_or_null(mem->pcie_slots_total));
    json_object_set_new(o, "pcie_slots_free", int_or_null(mem->pcie_slots_free));
    json_object_set_new(o, "platform", mem->platform.name
                                           ? json_pack("{s:s, s:s?, s:i, s:o, s:o, s:s, s:s?, s:s?}", "name",
                                                       mem->platform.name, "ddr", mem->platform.ddr, "mts",
                                                       mem->platform.mts, "mts_2dpc",
                                                       positive_int_or_null(mem->platform.mts_at_dpc[2]), "mts_3dpc",
                                                       positive_int_or_null(mem->platform.mts_at_dpc[3]), "scope",
                                                       platform_scope_name(mem->platform.scope), "source",
                                                       mem->platform.source, "dpc_source", mem->platform.dpc_source)
                                           : json_null());
    json_object_set_new(o, "platform_unknown_reason", json_string_or_null(mem->platform_unknown_reason));
    json_object_set_new(o, "memory_controller_in_chipset", json_boolean(mem->memory_controller_in_chipset));
    json_object_set_new(o, "channels_per_socket", positive_int_or_null(mem->platform.channels_per_socket));
    json_object_set_new(o, "channels_from_locators", json_boolean(mem->channels_from_locators));
    json_object_set_new(o, "locator_scheme", json_string_or_null(mem->locator_scheme));
    json_object_set_new(o, "sockets", sockets);
    json_object_set_new(o, "sockets_disputed", json_string_or_null(mem->sockets_disputed));
    json_object_set_new(o, "edac_placement", json_string_or_null(mem->edac_placement));
    json_object_set_new(o, "theoretical_bandwidth_bytes_s", total_bw > 0 ? json_real(total_bw) : json_null());
    json_object_set_new(o, "dimms", dimms);
    json_object_set_new(o, "persistent_modules", persistent);
    json_object_set_new(o, "persistent_bytes", json_integer(mem->persistent_bytes));
    return o;
}

json_t *power_json(const struct power_info *p)
{
    json_t *arr = json_array();
    for (int i = 0; i < p->nsupplies; i++) {
        const struct power_supply *s = &p->supplies[i];
        json_array_append_new(arr, json_pack("{s:o, s:o, s:b, s:o}", "name", json_string_or_null(s->name), "max_watts",
                                             int_or_null(s->max_watts), "present", s->present, "status",
                                             json_string_or_null(s->status)));
    }
    return arr;
}

static json_t *shares_json(const struct cpu_time_shares *s)
{
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "user", s->user, "system", s->system, "iowait", s->iowait,
                          "irq", s->irq, "steal", s->steal, "idle", s->idle);
    if (s->cpu >= 0)
        json_object_set_new(o, "cpu", json_integer(s->cpu));
    return o;
}

json_t *contention_json(const struct contention_info *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "sampled", json_boolean(c->sampled));
    json_object_set_new(o, "unknown_reason", json_string_or_null(c->unknown_reason));
    json_object_set_new(o, "seconds", c->sampled ? json_real(c->seconds) : json_null());
    json_object_set_new(o, "total", c->sampled ? shares_json(&c->total) : json_null());
    json_t *per_cpu = json_array();
    for (int i = 0; c->per_cpu && i < c->ncpus; i++)
        json_array_append_new(per_cpu, shares_json(&c->per_cpu[i]));
    json_object_set_new(o, "per_cpu", per_cpu);
    json_t *procs = json_array();
    for (int i = 0; i < c->nprocs; i++)
        json_array_append_new(procs, json_pack("{s:i, s:s, s:f, s:b}", "pid", c->procs[i].pid, "name",
                                               c->procs[i].name ? c->procs[i].name : "?", "share", c->procs[i].share,
                                               "kernel_thread", c->procs[i].kernel_thread));
    json_object_set_new(o, "processes", procs);
    json_object_set_new(o, "load_average", c->load1 >= 0 ? json_pack("[f, f, f]", c->load1, c->load5, c->load15)
                                                          : json_null());
    json_object_set_new(o, "thermal_throttle_events",
                        c->throttle_before >= 0 ? json_pack("{s:i, s:i}", "before", (json_int_t)c->throttle_before,
                                                            "after", (json_int_t)c->throttle_after)
                                                : json_null());
    return o;
}
