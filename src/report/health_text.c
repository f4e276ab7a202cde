/* `gpuvet health` as text: stdout is the one line Node Problem Detector and Slurm read, every
 * problem is on stderr. */
#include "report/health_report.h"

#include "report/report.h"
#include "util/i18n.h"

void health_report_text(FILE *out, FILE *err, const struct health_check *h)
{
    char line[HEALTH_REASON_MAX + 1];
    const struct machine *m = &h->machine;
    if (!h->probed) {
        /* Unknown, not a fail: the node is neither drained nor resumed on a check that did not run. */
        snprintf(line, sizeof line, "gpuvet: UNKNOWN %s: %s", m->nproblems ? m->problems[0].path : "probe",
                 m->nproblems ? m->problems[0].message : "the machine could not be read");
        fprintf(out, "%s\n", line);
        for (int i = 0; i < m->nproblems; i++)
            fprintf(err, _("gpuvet health: %s: %s\n"), m->problems[i].path, m->problems[i].message);
        return;
    }
    health_reason(line, &h->findings, h->threshold);
    fprintf(out, "%s\n", line);
    fflush(out);
    for (int i = 0; i < h->findings.count; i++)
        if (h->findings.items[i].severity >= SEV_WARN)
            fprintf(err, "%s %s %s: %s\n", severity_name(h->findings.items[i].severity), h->findings.items[i].rule->id,
                    h->findings.items[i].subject, finding_message(&h->findings.items[i]));
}

void health_report_slurm(FILE *err, int rc, const char *what, const char *why)
{
    if (rc == 0)
        fprintf(err, _("gpuvet health: slurm: %s\n"), what);
    else
        fprintf(err, _("gpuvet health: %s\n"), why);
}
