/* `gpuvet snapshot` as text: what went wrong on stderr, what was written and how to replay it on
 * stdout. */
#ifndef GPUVET_REPORT_SNAPSHOT_TEXT_H
#define GPUVET_REPORT_SNAPSHOT_TEXT_H

#include <stdio.h>

#include "snapshot/snapshot.h"

/* ok: snapshot_take returned 0. */
void snapshot_report_text(FILE *out, FILE *err, const struct snapshot_request *req, const struct snapshot_result *r,
                          bool ok);

#endif
