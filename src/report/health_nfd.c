/* `gpuvet health --nfd FILE`: Node Feature Discovery's features.d format (its local source): an
 * expiry directive, then one key=value label per line, replaced atomically. */
#include <stdio.h>
#include <time.h>

#include "report/health_report.h"
#include "util/output_file.h"
#include "util/output.h"

int health_report_nfd(const char *path, const struct health_check *h, double interval_s, time_t now)
{
    struct health_labels labels;
    health_nfd_labels(h, &labels);
    /* output_open's rule: a hidden temporary file (".NAME.XXXXXX", which NFD's features.d reader
     * skips) renamed over FILE once whole; a device or FIFO written through. */
    FILE *out = output_open(path, "health");
    if (!out)
        return -1;
    /* NFD drops the labels once this time has passed: a node whose check stopped running loses them
     * after two missed runs instead of keeping stale ones. */
    time_t expiry = now + (time_t)(2 * interval_s);
    struct tm tm;
    char when[32] = "";
    if (gmtime_r(&expiry, &tm))
        strftime(when, sizeof when, UTC_TIME_FORMAT, &tm);
    fprintf(out, "# +expiry-time=%s\n", when);
    fprintf(out, "# written by gpuvet health --nfd (run every %.0f s)\n", interval_s);
    for (int i = 0; i < labels.count; i++)
        fprintf(out, "%s=%s\n", labels.items[i].key, labels.items[i].value);
    return output_close(out, path, "health", 0);
}
