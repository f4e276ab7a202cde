/* `gpuvet health` as text: stdout is the one line Node Problem Detector and Slurm read, every
 * problem is on stderr. */
#include "report/health_report.h"

#include <syslog.h>

#include "report/report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/sanitize.h"

#include <stdlib.h>

/* "SEVERITY RULE subject: message" on stderr, the machine's strings escaped (util/sanitize.h): a
 * newline in a subject must not forge a line of its own. */
static void problem_line(FILE *err, const struct finding *f)
{
    char *raw = NULL, line[4096];
    if (asprintf(&raw, "%s %s %s: %s", severity_name(f->severity), f->rule->id, f->subject, finding_message(f)) < 0)
        return;
    text_one_line(line, sizeof line, raw);
    fprintf(err, "%s\n", line);
    free(raw);
}

void health_report_text(FILE *out, FILE *err, const struct health_check *h)
{
    char line[HEALTH_REASON_MAX + 1];
    const struct machine *m = &h->audit.machine;
    if (!h->probed || h->blind) {
        /* Unknown, not a fail: the node is neither drained nor resumed on a check that did not run. */
        char raw[1024];
        snprintf(raw, sizeof raw, "gpuvet: UNKNOWN %s%s: %s", h->blind ? "nothing checked: " : "",
                 m->nproblems ? m->problems[0].path : "probe",
                 m->nproblems ? m->problems[0].message : h->blind ? "no check could read its facts"
                                                                   : "the machine could not be read");
        text_one_line(line, sizeof line, raw);
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
            problem_line(err, &h->findings.items[i]);
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
    const struct machine *m = &h->audit.machine;
    snprintf(text, sizeof text, "could not check this node: %s: %s", m->nproblems ? m->problems[0].path : "probe",
             m->nproblems ? m->problems[0].message : "the machine could not be read");
    log_line(LOG_ERR, text);
}
