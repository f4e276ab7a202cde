#include "report/snapshot_text.h"

#include <string.h>

#include "util/i18n.h"
#include "util/output.h"

void snapshot_report_text(FILE *out, FILE *err, const struct snapshot_request *req, const struct snapshot_result *r,
                          bool ok)
{
    for (int i = 0; i < r->nproblems; i++)
        text_write_escaped(err, r->problems[i], strlen(r->problems[i]), NULL); /* paths from the machine */
    if (r->recorded)
        fprintf(out, _("recorded %s%s\n"), r->source, req->redact ? _(", redacted") : "");
    if (ok && req->tar)
        fprintf(out, _("wrote %s\nreplay with: tar -xf %s && gpuvet audit --sysroot %s\n"), req->tar, req->tar,
                r->tar_top);
    else if (ok)
        fprintf(out, _("into %s\nreplay with: gpuvet audit --sysroot %s\n"), req->dir, req->dir);
}
