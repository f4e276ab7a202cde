/* Identifying values out of text: MAC and InfiniBand addresses, IPv4/IPv6 addresses, UUIDs,
 * and given literals (host name, serial numbers) where they stand as whole words. Used by
 * `--redact` on reports and by `gpuvet snapshot --redact` on the recorded files. */
#ifndef GPUVET_UTIL_REDACT_H
#define GPUVET_UTIL_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* What replaces an identifying value. */
#define REDACT_MARK "[redacted]"

/* A new string: text with every address, UUID and literal replaced by REDACT_MARK. A literal
 * matches only as a whole word (a host name "vm" is not the "vm" of "kvm"); literals shorter
 * than 2 characters and NULL are ignored. */
char *redact_text(const char *text, const char *const *literals, int nliterals);
/* Same on a malloc'd buffer that may hold NUL bytes: *data is replaced when changed.
 * keep_length overwrites each match with 'X's instead (binary files keep their layout). */
void redact_buffer(char **data, size_t *len, const char *const *literals, int nliterals, bool keep_length);

#endif
