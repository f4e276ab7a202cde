/* STORAGE_SLOW_DATA: where the dataset lives (disk kind, shared with the system), and, when a
 * `gpuvet bench storage` result reaches the audit (--bench), the measured read rate against what
 * the accelerators consume. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"
#include "util/sanitize.h"
#include "util/units.h"


static json_t *location_json(const struct storage_location *loc)
{
    json_t *disks = json_array();
    for (int i = 0; i < loc->ndisks; i++)
        json_array_append_new(disks, json_text(loc->disks[i]));
    json_t *e = json_pack("{s:o, s:o}", "data_dir", json_text(loc->path), "disks", disks);
    if (loc->mountpoint)
        json_object_set_new(e, "mountpoint", json_text(loc->mountpoint));
    if (loc->fstype)
        json_object_set_new(e, "fstype", json_text(loc->fstype));
    if (loc->source)
        json_object_set_new(e, "source", json_text(loc->source));
    if (loc->free_bytes >= 0)
        json_object_set_new(e, "free_bytes", json_integer(loc->free_bytes));
    return e;
}

/* A virtual disk's rotational flag and transport are what the hypervisor chose to show. */
static bool is_virtual_disk(const struct machine *m, const struct block_device *d)
{
    return d->transport == TRANSPORT_VIRTIO || m->virt.vm;
}

static bool is_slow(const struct block_device *d)
{
    return d->rotational == 1 || d->transport == TRANSPORT_SATA;
}

/* Nothing to judge by: a virtual disk, or neither a rotational flag nor a transport. */
static bool kind_unknown(const struct machine *m, const struct block_device *d)
{
    return !d || is_virtual_disk(m, d) || (d->rotational < 0 && d->transport == TRANSPORT_UNKNOWN);
}

static void describe(char *buf, size_t n, const struct block_device *d)
{
    snprintf(buf, n, "%s (%s, %s%s%s)", d->name, storage_transport_name(d->transport),
             d->rotational == 1 ? "rotational" : d->rotational == 0 ? _("not rotational") : _("rotation unknown"),
             d->model ? ", " : "", d->model ? d->model : "");
}

/* The disks below the data directory: slow (rotational or SATA) or not. Returns false when the
 * placement could not be judged (a finding says why). */
static bool judge_disk_kind(struct audit_ctx *ctx, const struct storage_location *loc)
{
    const struct storage_info *s = &ctx->machine->storage;
    const char *dir = loc->path;
    if (loc->network_fs) {
        finding_add(ctx, SEV_UNKNOWN, dir, location_json(loc), _("measure the read rate: `gpuvet bench storage`"),
                    _("dataset on a network filesystem (%s from %s): its rate is the network's and the servers', "
                    "not a local disk's"), loc->fstype, loc->source);
        return false;
    }
    if (loc->ndisks == 0) {
        finding_add(ctx, SEV_UNKNOWN, dir, location_json(loc), NULL, _("the disk holding the dataset is unknown: %s"),
                    loc->unknown_reason ? _(loc->unknown_reason) : _("no mount found"));
        return false;
    }
    int slow = 0, unknown = 0, virtual_disks = 0;
    bool spinning = false;
    char slow_text[512] = "", other_text[512] = "";
    for (int i = 0; i < loc->ndisks; i++) {
        const struct block_device *d = storage_device(s, loc->disks[i]);
        char one[200];
        if (d)
            describe(one, sizeof one, d);
        else
            snprintf(one, sizeof one, "%s", loc->disks[i]);
        bool is_unknown = kind_unknown(ctx->machine, d), slow_disk = !is_unknown && is_slow(d);
        unknown += is_unknown;
        virtual_disks += d && is_virtual_disk(ctx->machine, d);
        slow += slow_disk;
        spinning |= slow_disk && d->rotational == 1;
        char *text = slow_disk ? slow_text : other_text;
        size_t len = strlen(text);
        snprintf(text + len, 512 - len, "%s%s", len ? ", " : "", one);
    }
    if (slow) {
        finding_add(ctx, ctx_severity(ctx), dir, location_json(loc),
                    _("put the dataset on NVMe (or cache it in host memory / on local NVMe before training)"),
                    _("dataset on %s: %s, too slow to feed data loaders that read small files in random order"),
                    slow_text, spinning ? _("a spinning disk seeks for every random read")
                                        : _("SATA's 6 Gb/s link caps reads at ~550 MB/s"));
        return true;
    }
    if (unknown) {
        finding_add(ctx, SEV_UNKNOWN, dir, location_json(loc), _("measure the read rate: `gpuvet bench storage`"),
                    virtual_disks ? _("dataset on %s, a virtual disk: its rotational flag is the hypervisor's choice "
                                    "and the storage behind it is unknown")
                                  : _("dataset on %s, a disk of unknown kind (no rotational flag or transport)"),
                    other_text);
        return false;
    }
    finding_add(ctx, SEV_PASS, dir, location_json(loc), NULL, _("dataset on %s"), other_text);
    return true;
}

/* System and data belong on separate disks: logs, package updates and swap on the same disk compete
 * with the data loaders' reads. */
static void judge_shared_with_system(struct audit_ctx *ctx, const struct storage_location *loc)
{
    const struct storage_info *s = &ctx->machine->storage;
    for (int i = 0; i < loc->ndisks; i++) {
        const struct block_device *d = storage_device(s, loc->disks[i]);
        if (d && d->holds_root) {
            finding_add(ctx, SEV_INFO, loc->path, location_json(loc),
                        _("keep datasets on a disk of their own (a data NVMe), apart from the system disk"),
                        _("dataset shares %s with the system (/): system writes compete with the data loaders' reads"),
                        d->name);
            return;
        }
    }
}

/* Images/s the accelerators consume: each GPU's ResNet-50 rate from the GPU table, else SPEC's
 * A100 figure; times the average training JPEG. */
static double data_demand_bytes_s(const struct machine *m, const struct thresholds *t, int *accelerators)
{
    double img_s = 0;
    *accelerators = 0;
    for (int i = 0; i < m->npci; i++) {
        if (m->pci[i].role != PCI_ROLE_ACCELERATOR)
            continue;
        (*accelerators)++;
        const struct gpu *g = gpu_set_find(&m->gpus, m->pci[i].bus_id);
        img_s += g && g->resnet50_img_s > 0 ? g->resnet50_img_s : t->cv_reference_img_s;
    }
    return img_s * t->cv_image_bytes;
}

static void judge_measured_rate(struct audit_ctx *ctx, const char *subject)
{
    const struct machine *m = ctx->machine;
    const struct bench_results *b = &m->bench;
    if (!b->loaded || b->storage_seq_read_bytes_s <= 0)
        return;
    int accelerators;
    double demand = data_demand_bytes_s(m, ctx->thresholds, &accelerators);
    if (accelerators == 0)
        return;
    json_t *ev = json_pack("{s:f, s:f, s:i, s:f, s:s?, s:s?}", "measured_seq_read_bytes_s", b->storage_seq_read_bytes_s,
                           "demand_bytes_s", demand, "accelerators", accelerators, "image_bytes",
                           ctx->thresholds->cv_image_bytes, "measured_in",
                           b->storage_dir ? b->storage_dir : b->storage_file, "bench", b->source);
    if (b->storage_seq_read_bytes_s < demand)
        finding_add(ctx, SEV_FAIL, subject, ev,
                    _("put the dataset on local NVMe, cache it in RAM, or pack it into large shards (WebDataset, TFRecord)"),
                    _("measured sequential read %.0f MB/s is below the %.0f MB/s that %d accelerators consume at "
                    "ResNet-50 rates: the loaders will wait for the disk"), b->storage_seq_read_bytes_s / MB,
                    demand / MB, accelerators);
    else
        finding_add(ctx, SEV_PASS, subject, ev, NULL,
                    _("measured sequential read %.0f MB/s covers the %.0f MB/s the accelerators consume"),
                    b->storage_seq_read_bytes_s / MB, demand / MB);
}

void check_storage_slow_data(struct audit_ctx *ctx)
{
    const struct storage_info *s = &ctx->machine->storage;
    if (!s->has_data) {
        if (ctx->thresholds->streams_dataset) {
            finding_add(ctx, SEV_UNKNOWN, "dataset", NULL, _("gpuvet audit --data-dir /path/to/dataset"),
                        _("where the dataset lives is unknown: pass --data-dir DIR"));
            judge_measured_rate(ctx, "dataset");
        }
        return;
    }
    if (judge_disk_kind(ctx, &s->data))
        judge_shared_with_system(ctx, &s->data);
    if (ctx->thresholds->streams_dataset)
        judge_measured_rate(ctx, s->data.path);
}
