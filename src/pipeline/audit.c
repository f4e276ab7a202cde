#include "pipeline/audit.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "probe/dmi.h"
#include "util/fsroot.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double audit_elapsed_ms(const struct audit_result *r) { return now_ms() - r->started_ms; }

/* The DMI evidence file, if one was given: 0, or -1 with r->error set. */
static int load_dmi(const struct audit_request *req, struct dmi_data *dmi, struct audit_result *r)
{
    const char *file = req->dmidecode ? req->dmidecode : req->dmi_table;
    if (!file)
        return 0;
    char *error = NULL;
    int rc = req->dmidecode ? dmidecode_load(file, dmi, &error) : smbios_load_dump(file, dmi, &error);
    if (rc == 0)
        return 0;
    r->error = error ? error : strdup(file);
    return -1;
}

/* The machine and the evidence files: live or recorded, inside the CPU-use window when one is
 * asked. 0, or -1 with the reasons in r->machine's problems. */
static int probe_with_evidence(const struct audit_request *req, struct dmi_data *dmi, bool have_dmi,
                               struct audit_result *r)
{
    struct machine *m = &r->machine;
    bool any_evidence = req->n_nvidia_smi > 0 || have_dmi || req->kernel_log;
    /* SPEC: evidence files alone describe another machine; this one is not read. */
    bool evidence_only = !req->always_probe && !req->sysroot && any_evidence;
    /* The CPU-use window opens first, so the probes below run inside it rather than before it. */
    struct contention_window window = {.seconds = req->sample_seconds, .skipped_why = req->no_sample_why};
    if (!evidence_only && fsroot_is_live() && req->sample_seconds > 0)
        contention_window_open(&window, req->sample_seconds);
    struct probe_request how = {.read_system = !evidence_only, .xid = req->xid, .deadline_cap_s = req->deadline_cap_s};
    int probed = probe_machine(m, &how);
    if (probed == 0 && req->kernel_log && probe_kernel_log_file(m, req->kernel_log, req->xid) != 0)
        probed = -1;
    if (probed == 0 && req->n_nvidia_smi && probe_nvidia_smi_files(m, req->nvidia_smi, req->n_nvidia_smi) != 0)
        probed = -1;
    if (probed == 0 && req->n_nvidia_smi)
        probe_gpu_specs(m);
    if (probed == 0 && have_dmi)
        probe_memory(m, dmi);
    if (probed != 0) {
        free(window.ticks); /* the window opened for a probe that failed */
        free(window.procs);
        return -1;
    }
    probe_contention_close(m, &window);
    return 0;
}

/* --bench or --bench-quick: 0, or -1 (the probe said why). */
static int read_bench(const struct audit_request *req, struct machine *m)
{
    if (req->bench_file)
        return probe_bench_file(m, req->bench_file);
    if (!req->bench_quick)
        return 0;
    /* The benchmarks rules judge; the GPU's own (quick) where this machine has a GPU it can run on,
     * so that the GPU rules' "audit --bench-quick" measures what they ask for. */
    const char *judged[4] = {"memory", "pcie", "storage"};
    int njudged = 3;
    const struct bench_info *gpu = bench_find("gpu");
    if (gpu && m->gpus.count > 0 && (!gpu->unavailable_reason || !gpu->unavailable_reason(m)))
        judged[njudged++] = "gpu";
    struct bench_opts quick = {.quick = true, .dir = ".", .cpu = -1};
    return probe_bench_document(m, bench_run_document(m, &quick, judged, njudged, req->bench_progress), "bench-quick");
}

enum audit_status audit_run(const struct audit_request *req, struct audit_result *r)
{
    *r = (struct audit_result){.started_ms = now_ms(),
                               .inputs = {.nodes = req->nodes > 0 ? req->nodes : 1, .expect_gpus = req->expect_gpus}};
    machine_init(&r->machine);
    struct dmi_data dmi = {0};
    if (load_dmi(req, &dmi, r) != 0) {
        dmi_data_free(&dmi);
        return AUDIT_REFUSED;
    }
    bool have_dmi = req->dmidecode || req->dmi_table;
    fsroot_set(req->sysroot);
    /* A bad claim file gets its error and no verdict at all, before anything is probed. */
    if ((req->claim_file && claim_file_load(req->claim_file, &r->claims, &r->error) != 0) ||
        (req->expect_listing && claim_listing_load(req->expect_listing, &r->claims, &r->error) != 0)) {
        if (!r->error)
            r->error = strdup(req->claim_file ? req->claim_file : req->expect_listing);
        dmi_data_free(&dmi);
        return AUDIT_REFUSED;
    }
    if (req->data_dir && probe_data_dir(&r->machine, req->data_dir, req->deadline_cap_s) != 0) {
        dmi_data_free(&dmi);
        return AUDIT_REFUSED;
    }
    int probed = probe_with_evidence(req, &dmi, have_dmi, r);
    dmi_data_free(&dmi);
    if (probed != 0)
        return AUDIT_UNREADABLE;
    r->probed = true;
    if (req->load_check)
        probe_nvidia_load_check(&r->machine, req->deadline_cap_s);
    if (req->claim_file || req->expect_listing) {
        claims_evaluate(&r->claims, &r->machine, thresholds_for(req->workload));
        r->inputs.claims = &r->claims;
    }
    if (read_bench(req, &r->machine) != 0)
        return AUDIT_REFUSED;
    if (req->depth == AUDIT_EVERY_WORKLOAD)
        verdict_set_build(&r->verdicts, &r->machine, &r->inputs);
    else if (req->depth == AUDIT_ONE_WORKLOAD)
        rules_run(&r->machine, req->workload, &r->inputs, &r->verdicts.findings[req->workload]);
    if (req->depth != AUDIT_MACHINE)
        r->findings = &r->verdicts.findings[req->workload];
    return AUDIT_DONE;
}

void audit_result_scrub(struct audit_result *r, void (*scrub)(struct machine *, struct findings *))
{
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        scrub(&r->machine, &r->verdicts.findings[w]);
        workload_verdict_free(&r->verdicts.verdicts[w]);
        verdict_judge(&r->verdicts.verdicts[w], &r->machine, (enum workload)w, &r->verdicts.findings[w]);
    }
}

void audit_read_kernel_log(struct kernel_log_info *k)
{
    struct machine m;
    machine_init(&m);
    probe_kernel_log(&m, NULL); /* the catalogue's classes: bench takes no --xid-fatal or --xid-ignore */
    *k = m.kernel_log;
    kernel_log_init(&m.kernel_log); /* the events are k's now */
    machine_free(&m);
}

char *audit_recorded_hostname(const char *sysroot)
{
    fsroot_set(sysroot);
    return probe_hostname();
}

void audit_result_free(struct audit_result *r)
{
    /* verdict_set_free on a set only partly filled (AUDIT_ONE_WORKLOAD) frees what is there. */
    verdict_set_free(&r->verdicts);
    machine_free(&r->machine);
    claim_set_free(&r->claims);
    free(r->error);
    *r = (struct audit_result){0};
}
