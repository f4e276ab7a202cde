/* gpuvet health's one-line reason. Node Problem Detector's custom plugins report the whole of
 * stdout cut to max_output_length bytes (80 by default), and Slurm shows a drain reason in
 * `sinfo -R`: one short line serves both. */
#include <stdio.h>
#include <string.h>

#include "health/health.h"
#include "report/report.h"

/* Cuts text to at most max bytes without splitting a UTF-8 character. */
static void cut_utf8(char *text, size_t max)
{
    size_t n = strlen(text);
    if (n <= max)
        return;
    while (max > 0 && ((unsigned char)text[max] & 0xC0) == 0x80)
        max--;
    text[max] = '\0';
}

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
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\t')
            *p = ' ';
    cut_utf8(line, HEALTH_REASON_MAX);
    memcpy(out, line, strlen(line) + 1);
}
