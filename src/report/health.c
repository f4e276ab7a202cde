/* gpuvet health's one-line reason. Node Problem Detector's custom plugins report the whole of
 * stdout cut to max_output_length bytes (80 by default), and Slurm shows a drain reason in
 * `sinfo -R`: one short line serves both. */
#include <stdio.h>
#include <string.h>

#include "health/health.h"
#include "report/report.h"
#include "util/sanitize.h"

void health_reason(char out[HEALTH_REASON_MAX + 1], const struct findings *f, enum severity threshold)
{
    const struct finding *worst = health_worst(f, threshold);
    if (!worst) {
        snprintf(out, HEALTH_REASON_MAX + 1, "gpuvet: OK");
        return;
    }
    int others = 0;
    for (int i = 0; i < f->count; i++)
        others += f->items[i].severity >= threshold && &f->items[i] != worst;
    char more[32] = "";
    if (others)
        snprintf(more, sizeof more, " +%d more", others);
    char severity[8];
    snprintf(severity, sizeof severity, "%s", severity_name(worst->severity));
    for (char *p = severity; *p; p++)
        *p = (char)(*p - 'a' + 'A');
    char line[1024];
    snprintf(line, sizeof line, "gpuvet: %s %s %s%s: %s", severity, worst->rule->id, worst->subject, more,
             worst->message);
    /* One line whatever the machine's strings hold: a newline in a subject would forge a second
     * line for NPD and Slurm to read, a bad byte would garble it (util/sanitize.h). */
    text_one_line(out, HEALTH_REASON_MAX + 1, line);
}
