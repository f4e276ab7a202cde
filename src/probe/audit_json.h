/* A saved `gpuvet audit --json` document as a source: its "machine" object loaded back into the
 * machine model, so that what judges a machine (plan --check) reads one model whether a probe
 * or a saved audit filled it. */
#ifndef GPUVET_PROBE_AUDIT_JSON_H
#define GPUVET_PROBE_AUDIT_JSON_H

#include <stddef.h>

#include "model/machine.h"

/* Fills m (machine_init'ed) from the file at path, a document of the given schema (the audit's,
 * report/report.h). The file is read bounded (INPUT_FILE_LIMIT; a FIFO or device is refused). A
 * field that is missing, of the wrong type or out of range stays unknown, as a probe leaves what
 * it cannot see; lists past what a node holds are capped, with a problem recorded in m.
 * Returns 0, or -1 with "PATH: why" in err when the file cannot be read, is not JSON or is not
 * such a document. */
int audit_json_load(const char *path, const char *schema, struct machine *m, char *err, size_t errlen);

#endif
