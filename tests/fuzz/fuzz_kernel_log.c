/* libFuzzer target: a saved kernel log as `audit --kernel-log FILE` reads it (every dmesg,
 * journalctl and syslog form, boot markers, Xid/SXid lines). Seeds: tests/corpus/kernel-log/. */
#include "fuzz_file.h"
#include "model/machine.h"
#include "probe/probe.h"

int fuzz_kernel_log_one(const uint8_t *data, size_t size);

int fuzz_kernel_log_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".log");
    if (!path)
        return 0;
    struct machine m;
    machine_init(&m);
    probe_kernel_log_file(&m, path, NULL);
    machine_free(&m);
    return 0;
}

FUZZ_ENTRY(fuzz_kernel_log_one)
