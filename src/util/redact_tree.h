/* `gpuvet snapshot --redact`: identifying facts taken out of a recorded tree, in place. */
#ifndef GPUVET_UTIL_REDACT_TREE_H
#define GPUVET_UTIL_REDACT_TREE_H

#include <stddef.h>

/* Replaces the host name, kernel command line, DMI serial/UUID/asset-tag and disk serial files by
 * REDACT_MARK; blanks the serial and asset-tag strings and the system UUID of SMBIOS tables
 * (same length, so the tables still parse); and removes every MAC, IP, GUID and UUID, and every
 * serial or UUID those files, nvidia-smi's XML or hwloc's XML name, wherever it appears.
 * literals: further values to remove (the host name the probe saw). 0, or -1 with err. */
int redact_tree(const char *root, const char *const *literals, int nliterals, char *err, size_t errlen);

#endif
