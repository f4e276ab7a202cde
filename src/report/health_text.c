/* `gpuvet health` as text: stdout is the one line Node Problem Detector and Slurm read, every
 * problem is on stderr. */
#include "report/health_report.h"

#include <syslog.h>

#include "report/report.h"
#include "util/i18n.h"
#include "util/output.h"

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
            print_error_to(err, "health", _("%s: %s"), m->problems[i].path, machine_problem_text(&m->problems[i]));
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
        print_error_to(err, "health", _("slurm: %s"), what);
    else
        print_error_to(err, "health", "%s", why);
}

static void log_line(int priority, const char *text)
{
    openlog("gpuvet", LOG_PID, LOG_DAEMON);
    syslog(priority, "health --slurm: %s", text);
    closelog();
}

void health_report_syslog_slurm(int rc, bool changed, const char *what, const char *why)
{
    if (rc != 0)
        log_line(LOG_ERR, why);
    else if (changed)
        log_line(LOG_WARNING, what);
}

void health_report_syslog_unchecked(const struct health_check *h)
{
    char text[1024];
    const struct machine *m = &h->machine;
    snprintf(text, sizeof text, "could not check this node: %s: %s", m->nproblems ? m->problems[0].path : "probe",
             m->nproblems ? m->problems[0].message : "the machine could not be read");
    log_line(LOG_ERR, text);
}
