/* `gpuvet health --prom FILE`: the check in node_exporter's textfile format (report/prom.c). */
#include <time.h>

#include "report/health_report.h"
#include "report/report.h"

int health_report_prom(const char *path, const struct health_check *h)
{
    struct prom_report pr = {"health", &h->audit.machine, &h->findings, NULL, health_elapsed_s(h), time(NULL),
                             h->judged ? &h->verdict : NULL};
    return report_prom_file(path, &pr);
}
