/* KERNEL_THP, KERNEL_SWAP, KERNEL_NUMA_BALANCING, KERNEL_ISOLCPUS. */
#include <stdio.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"
#include "util/units.h"

static void unknown_setting(struct audit_ctx *ctx, const char *path)
{
    finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s}", "file", path), NULL, "%s: %s", path,
                ctx->machine->missing_reason ? _(ctx->machine->missing_reason) : _("not read"));
}

void check_kernel_thp(struct audit_ctx *ctx)
{
    const struct kernel_info *k = &ctx->machine->kernel;
    if (!k->thp_enabled) {
        unknown_setting(ctx, "/sys/kernel/mm/transparent_hugepage/enabled");
        return;
    }
    json_t *ev = json_pack("{s:s, s:s?}", "enabled", k->thp_enabled, "defrag", k->thp_defrag);
    if (!strcmp(k->thp_enabled, "always"))
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    _("echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"),
                    ctx->thresholds->latency_sensitive
                        ? _("THP is 'always': background compaction can stall latency-sensitive requests")
                        : _("THP is 'always' (fine for throughput jobs; 'madvise' avoids compaction stalls)"));
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("THP is '%s'"), k->thp_enabled);
}

void check_kernel_swap(struct audit_ctx *ctx)
{
    const struct kernel_info *k = &ctx->machine->kernel;
    if (k->swap_total_bytes < 0) {
        unknown_setting(ctx, "/proc/meminfo");
        return;
    }
    json_t *ev = json_pack("{s:I, s:o}", "swap_total_bytes", (json_int_t)k->swap_total_bytes, "swappiness",
                           k->swappiness >= 0 ? json_integer(k->swappiness) : json_null());
    if (k->swap_total_bytes == 0)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("no swap"));
    else if (k->swappiness < 0)
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL, _("%.1f GiB of swap, swappiness unknown (%s)"),
                    k->swap_total_bytes / GIB, "/proc/sys/vm/swappiness");
    else if (k->swappiness > ctx->thresholds->swappiness_max)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("sudo sysctl -w vm.swappiness=1"),
                    _("%.1f GiB of swap with swappiness %d: the kernel may page out a job's host memory"),
                    k->swap_total_bytes / GIB, k->swappiness);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("swap present with swappiness %d"), k->swappiness);
}

void check_kernel_numa_balancing(struct audit_ctx *ctx)
{
    const struct kernel_info *k = &ctx->machine->kernel;
    if (k->numa_balancing < 0) {
        unknown_setting(ctx, "/proc/sys/kernel/numa_balancing");
        return;
    }
    int nodes = machine_cpu_node_count(ctx->machine);
    json_t *ev = json_pack("{s:i, s:i}", "numa_balancing", k->numa_balancing, "cpu_nodes", nodes);
    if (k->numa_balancing > 0 && nodes > 1)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("sudo sysctl -w kernel.numa_balancing=0"),
                    _("automatic NUMA balancing is on: it migrates pages of jobs you already bound with numactl"));
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                    k->numa_balancing > 0 ? _("NUMA balancing on, but one NUMA node: no effect")
                                          : _("automatic NUMA balancing is off"));
}

void check_kernel_isolcpus(struct audit_ctx *ctx)
{
    const struct kernel_info *k = &ctx->machine->kernel;
    if (!k->isolated_cpus) {
        unknown_setting(ctx, "/sys/devices/system/cpu/isolated");
        return;
    }
    json_t *ev = json_pack("{s:s, s:s?}", "isolated", k->isolated_cpus, "nohz_full", k->nohz_full);
    if (k->isolated_cpus[0])
        finding_add(ctx, ctx_severity(ctx), "machine", ev, NULL,
                    _("CPUs %s are isolated: only processes pinned there run on them"), k->isolated_cpus);
    else if (ctx->thresholds->latency_sensitive)
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    _("for the lowest tail latency, boot with isolcpus=<cpus> nohz_full=<cpus> and pin serving threads"),
                    _("no isolated CPUs: latency-critical threads share cores with everything else"));
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("no isolated CPUs"));
}
