/* `gpuvet watch` output: the live view and the diagnosis as text (watch_text.c), the
 * gpuvet.watch/1 document (watch_json.c, docs/watch-json.md). */
#ifndef GPUVET_REPORT_WATCH_H
#define GPUVET_REPORT_WATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/watch.h"
#include "report/report.h"

json_t *watch_to_json(const struct watch_timeline *w, const struct findings *diagnosis);
/* Writes the report (the document when json, else the diagnosis as text) to path (--output FILE);
 * with no path, the document to stdout (the caller prints text itself). 0, or -1 with the reason
 * in err. */
int watch_write_report(const char *path, bool json, const struct watch_timeline *w, const struct findings *diagnosis,
                       char *err, size_t errlen);

/* The live view: on a terminal one block redrawn in place (cursor up), elsewhere one plain line
 * per interval. */
struct watch_live {
    bool tty;
    int lines;     /* terminal rows of the block drawn last, to move back over */
};
void watch_print_live(FILE *out, struct watch_live *live, const struct watch_timeline *w, const struct watch_sample *s);
void watch_print_diagnosis(FILE *out, const struct watch_timeline *w, const struct findings *diagnosis, bool color);

#endif
