/* Builds binary SMBIOS tables for tests from the real raw type-17 entries in fixtures/dmi-raw. */
#ifndef GPUVET_TEST_DMITABLE_H
#define GPUVET_TEST_DMITABLE_H

#include <stddef.h>
#include <stdint.h>

/* A type-16 System Memory array (handle 0x1000, Multi-bit ECC, 24 slots), the 24 raw entries
 * (their array handle rewritten to 0x1000) and a type-127 end. malloc'd; length in *len. */
uint8_t *dmi_table_from_raw_entries(size_t *len);
/* A dmidecode --dump-bin file: _SM3_ entry point at 0, the table at 32. Returns its path (static). */
const char *dmi_dump_file(const uint8_t *table, size_t len);

#endif
