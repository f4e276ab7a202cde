/* Block storage: whole disks from /sys/class/block (or /sys/block on old trees), what each is
 * (NVMe, SATA, SAS, virtio, rotational), and which disks hold `/` and the data directory, found
 * through the mount table (/proc/self/mountinfo, else /proc/mounts) and the device numbers. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "probe/probe.h"
#include "util/deadline.h"
#include "util/fsrecord.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/output.h"

/* sysfs `size` counts 512-byte sectors whatever the drive's logical block size. */
#define SECTOR_BYTES 512
/* dm on md on partitions: deeper stacks than this are a loop in a broken tree. */
#define MAX_STACK_DEPTH 8

struct mount_entry {
    char *mountpoint, *fstype, *source;
    char devno[32]; /* "8:1" from mountinfo; "" when only /proc/mounts was read */
};

struct mount_table {
    struct mount_entry *items;
    int count;
    const char *file; /* the file it came from; NULL when none could be read */
};

/* Whole-disk listing: /sys/class/block on kernels since 2.6.25, /sys/block before. */
static const char *block_class_dir(void)
{
    return fs_is_dir("/sys/class/block") ? "/sys/class/block" : "/sys/block";
}

/* A copy of s without the blanks SCSI pads its vendor/model fields with; NULL when empty. */
static char *trimmed_copy(const char *s)
{
    if (!s)
        return NULL;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        n--;
    return n ? strndup(s, n) : NULL;
}

static char *read_attr(const char *dir, const char *attr)
{
    char *raw = fs_readf("%s/%s", dir, attr);
    char *out = trimmed_copy(raw);
    free(raw);
    return out;
}

static bool path_has_component(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
        if (!strncmp(p + 1, prefix, n))
            return true;
    return false;
}

static enum storage_transport transport_of(const char *real, const char *name, const char *vendor)
{
    if (!strncmp(name, "nvme", 4) || path_has_component(real, "nvme"))
        return TRANSPORT_NVME;
    if (path_has_component(real, "virtio"))
        return TRANSPORT_VIRTIO;
    if (path_has_component(real, "usb"))
        return TRANSPORT_USB;
    if (path_has_component(real, "mmc_host") || !strncmp(name, "mmcblk", 6))
        return TRANSPORT_MMC;
    if (path_has_component(real, "ndbus") || !strncmp(name, "pmem", 4))
        return TRANSPORT_PMEM;
    if (path_has_component(real, "host")) {
        /* libata names every drive's SCSI vendor "ATA", also a SATA drive behind a SAS HBA, and
         * old kernels have no ataN component in the path. */
        if ((vendor && !strcmp(vendor, "ATA")) || path_has_component(real, "ata"))
            return TRANSPORT_SATA;
        if (path_has_component(real, "end_device-"))
            return TRANSPORT_SAS;
        return TRANSPORT_SCSI;
    }
    return TRANSPORT_UNKNOWN;
}

static const struct pci_device *pci_lookup(const struct machine *m, const char *bus_id)
{
    for (int i = 0; bus_id && i < m->npci; i++)
        if (!strcmp(m->pci[i].bus_id, bus_id))
            return &m->pci[i];
    return NULL;
}

static int pci_numa_node(struct machine *m, const char *bus_id)
{
    const struct pci_device *d = pci_lookup(m, bus_id);
    if (d)
        return d->numa_node;
    char path[256];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", bus_id);
    long node;
    if (fs_read_long(path, &node))
        return node >= 0 ? (int)node : -1;
    if (fs_exists(path))
        machine_problem(m, path, "is not a number: the controller's NUMA node is unknown");
    return -1;
}

static void read_disk(struct machine *m, const char *name, const char *real)
{
    struct storage_info *s = &m->storage;
    struct block_device *grown = realloc(s->devices, (size_t)(s->ndevices + 1) * sizeof *grown);
    if (!grown)
        return;
    s->devices = grown;
    struct block_device *d = &s->devices[s->ndevices++];
    memset(d, 0, sizeof *d);
    d->name = strdup(name);
    d->size_bytes = d->rotational = -1;
    d->numa_node = -1;

    char path[1024];
    long v;
    snprintf(path, sizeof path, "%s/size", real);
    if (fs_read_long(path, &v) && v >= 0 && v > INT64_MAX / SECTOR_BYTES)
        machine_problem(m, path, "holds %ld sectors, more bytes than a 64-bit size: the disk's size is unknown", v);
    else if (fs_read_long(path, &v) && v >= 0)
        d->size_bytes = (int64_t)v * SECTOR_BYTES;
    else if (fs_exists(path))
        machine_problem(m, path, "is not a sector count: the disk's size is unknown");
    snprintf(path, sizeof path, "%s/queue/rotational", real);
    if (fs_read_long(path, &v) && (v == 0 || v == 1))
        d->rotational = (int)v;
    else if (fs_exists(path))
        machine_problem(m, path, "is neither 0 nor 1: whether the disk spins is unknown");
    snprintf(path, sizeof path, "%s/removable", real);
    d->removable = fs_read_long(path, &v) && v == 1;

    char device_dir[1024];
    snprintf(device_dir, sizeof device_dir, "%s/device", real);
    d->vendor = read_attr(device_dir, "vendor");
    d->model = read_attr(device_dir, "model");
    d->transport = transport_of(real, name, d->vendor);
    /* virtio's "vendor" is the virtio vendor id (0x1af4), not a drive maker. */
    if (d->transport == TRANSPORT_VIRTIO && d->vendor && !strncmp(d->vendor, "0x", 2)) {
        free(d->vendor);
        d->vendor = NULL;
    }
    d->pci_bus_id = pci_bus_id_of_path(real);
    if (d->pci_bus_id)
        d->numa_node = pci_numa_node(m, d->pci_bus_id);
    /* Old NVMe drivers hang the namespace straight off the PCI function with no model file: the
     * controller's pci.ids name is then the best name there is. */
    const struct pci_device *controller = pci_lookup(m, d->pci_bus_id);
    if (!d->model && d->transport == TRANSPORT_NVME && controller && controller->device_name) {
        d->model = strdup(controller->device_name);
        if (!d->vendor && controller->vendor_name)
            d->vendor = strdup(controller->vendor_name);
    }
}

static void list_disks(struct machine *m)
{
    const char *dir = block_class_dir();
    char **names;
    int count = fs_list(dir, &names);
    if (count < 0) {
        machine_problem_missing(m, dir, probe_missing_reason(), N_("block devices unknown"));
        return;
    }
    m->storage.listed = true;
    for (int i = 0; i < count; i++) {
        char link[512], path[1200];
        snprintf(link, sizeof link, "%s/%s", dir, names[i]);
        char *real = fs_resolve(link);
        if (!real)
            continue;
        snprintf(path, sizeof path, "%s/partition", real);
        /* loop, ram, zram, dm and md live under /devices/virtual: they are not disks. */
        if (!strstr(real, "/devices/virtual/") && !fs_exists(path))
            read_disk(m, names[i], real);
        free(real);
    }
    fs_list_free(names, count);
}

/* The mount table escapes blanks and backslashes as octal (\040). */
static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    while (*s) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 4;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

static void add_mount(struct mount_table *t, const char *source, const char *mountpoint, const char *fstype,
                      const char *devno)
{
    struct mount_entry *grown = realloc(t->items, (size_t)(t->count + 1) * sizeof *grown);
    if (!grown)
        return;
    t->items = grown;
    struct mount_entry *e = &t->items[t->count++];
    e->source = unescape(source);
    e->mountpoint = unescape(mountpoint);
    e->fstype = strdup(fstype);
    snprintf(e->devno, sizeof e->devno, "%s", devno ? devno : "");
}

/* mountinfo: "36 35 98:0 /root /mnt opts [optional...] - fstype source superopts". */
static bool parse_mountinfo_line(struct mount_table *t, char *line)
{
    char *field[64];
    int n = 0;
    char *save = NULL;
    for (char *f = strtok_r(line, " ", &save); f && n < 64; f = strtok_r(NULL, " ", &save))
        field[n++] = f;
    int dash = -1;
    for (int i = 6; i < n && dash < 0; i++)
        if (!strcmp(field[i], "-"))
            dash = i;
    if (n < 10 || dash < 0 || dash + 2 >= n || !strchr(field[2], ':'))
        return false;
    add_mount(t, field[dash + 2], field[4], field[dash + 1], field[2]);
    return true;
}

/* /proc/mounts: "source mountpoint fstype opts 0 0". */
static bool parse_mounts_line(struct mount_table *t, char *line)
{
    char *save = NULL;
    char *source = strtok_r(line, " ", &save), *mountpoint = strtok_r(NULL, " ", &save),
         *fstype = strtok_r(NULL, " ", &save);
    if (!source || !mountpoint || !fstype || mountpoint[0] != '/')
        return false;
    add_mount(t, source, mountpoint, fstype, NULL);
    return true;
}

static void read_mounts(struct machine *m, struct mount_table *t)
{
    static const char *const files[] = {"/proc/self/mountinfo", "/proc/mounts"};
    for (int f = 0; f < 2 && !t->file; f++) {
        char *text = fs_read(files[f]);
        if (!text)
            continue;
        t->file = files[f];
        int bad = 0;
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            if (!(f == 0 ? parse_mountinfo_line(t, line) : parse_mounts_line(t, line)))
                bad++;
        if (bad == 1)
            machine_problem(m, files[f], "1 line not in the mount table's format was skipped");
        else if (bad)
            machine_problem(m, files[f], "%d lines not in the mount table's format were skipped", bad);
        free(text);
    }
}

static void mount_table_free(struct mount_table *t)
{
    for (int i = 0; i < t->count; i++) {
        free(t->items[i].source);
        free(t->items[i].mountpoint);
        free(t->items[i].fstype);
    }
    free(t->items);
}

/* The mount that covers path: the longest mountpoint above it, the later one when stacked. */
static const struct mount_entry *covering_mount(const struct mount_table *t, const char *path)
{
    const struct mount_entry *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < t->count; i++) {
        const char *mp = t->items[i].mountpoint;
        size_t n = strlen(mp);
        bool covers = !strcmp(mp, "/") || (!strncmp(path, mp, n) && (path[n] == '/' || path[n] == '\0'));
        if (covers && (!best || n >= best_len)) {
            best = &t->items[i];
            best_len = n;
        }
    }
    return best;
}

static bool is_network_fs(const char *fstype)
{
    static const char *const types[] = {"nfs", "nfs4", "lustre", "cifs", "smb3", "ceph", "glusterfs",
                                        "fuse.glusterfs", "beegfs", "gpfs", "wekafs", "9p", "fuse.sshfs",
                                        "fuse.s3fs", "fuse.gcsfuse", "fuse.juicefs", "afs"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(fstype, types[i]))
            return true;
    return false;
}

static char *block_name_of_devno(const char *devno)
{
    const char *dir = block_class_dir();
    char **names;
    int count = fs_list(dir, &names);
    char *found = NULL;
    for (int i = 0; i < count && !found; i++) {
        char *dev = fs_readf("%s/%s/dev", dir, names[i]);
        if (dev && !strcmp(dev, devno))
            found = strdup(names[i]);
        free(dev);
    }
    fs_list_free(names, count);
    return found;
}

/* "/dev/sda1" -> "sda1"; "/dev/mapper/vg-root" -> the dm-N whose dm/name is "vg-root". */
static char *block_name_of_source(const char *source)
{
    if (strncmp(source, "/dev/", 5) != 0)
        return NULL;
    const char *dir = block_class_dir();
    if (!strncmp(source, "/dev/mapper/", 12)) {
        char **names;
        int count = fs_list(dir, &names);
        char *found = NULL;
        for (int i = 0; i < count && !found; i++) {
            char *dm = fs_readf("%s/%s/dm/name", dir, names[i]);
            if (dm && !strcmp(dm, source + 12))
                found = strdup(names[i]);
            free(dm);
        }
        fs_list_free(names, count);
        return found;
    }
    const char *base = strrchr(source, '/') + 1;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, base);
    return fs_exists(path) ? strdup(base) : NULL;
}

static void add_disk_name(struct storage_location *loc, const char *name)
{
    for (int i = 0; i < loc->ndisks; i++)
        if (!strcmp(loc->disks[i], name))
            return;
    char **grown = realloc(loc->disks, (size_t)(loc->ndisks + 1) * sizeof *grown);
    if (!grown)
        return;
    loc->disks = grown;
    loc->disks[loc->ndisks++] = strdup(name);
}

/* A partition counts as its disk; dm (LVM, crypt) and md (RAID) as the disks in their slaves/. */
static void add_whole_disks(struct storage_location *loc, const char *name, int depth)
{
    char link[512], path[1200];
    snprintf(link, sizeof link, "%s/%s", block_class_dir(), name);
    char *real = fs_resolve(link);
    if (!real || depth > MAX_STACK_DEPTH) {
        free(real);
        return;
    }
    snprintf(path, sizeof path, "%s/partition", real);
    bool partition = fs_exists(path);
    char **slaves = NULL;
    snprintf(link, sizeof link, "%s/slaves", real);
    int nslaves = partition ? 0 : fs_list(link, &slaves);
    if (partition) {
        *strrchr(real, '/') = '\0';
        add_disk_name(loc, strrchr(real, '/') + 1);
    } else if (nslaves > 0) {
        for (int i = 0; i < nslaves; i++)
            add_whole_disks(loc, slaves[i], depth + 1);
    } else {
        add_disk_name(loc, name);
    }
    fs_list_free(slaves, nslaves);
    free(real);
}

static void locate(struct storage_location *loc, const struct mount_table *t)
{
    if (!t->file) {
        loc->unknown_reason = strdup(N_("no mount table (/proc/self/mountinfo, /proc/mounts)"));
        return;
    }
    const struct mount_entry *e = covering_mount(t, loc->path);
    if (!e) {
        i18n_asprintf(&loc->unknown_reason, "%s lists no mount above %s", t->file, loc->path);
        return;
    }
    loc->mountpoint = strdup(e->mountpoint);
    loc->fstype = strdup(e->fstype);
    loc->source = strdup(e->source);
    if (is_network_fs(e->fstype)) {
        loc->network_fs = true;
        return;
    }
    char *name = e->devno[0] ? block_name_of_devno(e->devno) : NULL;
    if (!name)
        name = block_name_of_source(e->source);
    if (name) {
        add_whole_disks(loc, name, 0);
        free(name);
        return;
    }
    /* Reasons in English for the model and JSON, translated where printed (util/i18n.h). */
    if (!strcmp(e->fstype, "tmpfs") || !strcmp(e->fstype, "ramfs"))
        /* TRANSLATORS: a mount point, then its file system type (tmpfs, ramfs). */
        i18n_asprintf(&loc->unknown_reason, "%s is held in memory (%s): no disk", e->mountpoint, e->fstype);
    else if (!strcmp(e->fstype, "overlay"))
        i18n_asprintf(&loc->unknown_reason, "%s is an overlay filesystem (a container's root): its disks are the "
                                            "host's", e->mountpoint);
    else if (!strncmp(e->source, "/dev/", 5))
        /* TRANSLATORS: a device (/dev/sda1), its mount point, a sysfs folder, then why the device is
         * not in that folder ("not in the recorded tree"). */
        i18n_asprintf(&loc->unknown_reason, "%s (%s) is not in %s (%s)", e->source, e->mountpoint, block_class_dir(),
                      _(probe_missing_reason()));
    else
        /* TRANSLATORS: a mount point, what it is mounted from (a server's export), its file system type. */
        i18n_asprintf(&loc->unknown_reason, "%s is mounted from \"%s\" (%s), not a block device", e->mountpoint,
                      e->source, e->fstype);
}

/* statvfs asks the running kernel, so a snapshot keeps its answer under this prefix. */
#define RECORDED_FREE_BYTES "/gpuvet/statvfs%s/.free_bytes"

static void read_free_space(struct machine *m, struct storage_location *loc, double deadline_cap_s)
{
    char recorded[PATH_MAX + 64];
    snprintf(recorded, sizeof recorded, RECORDED_FREE_BYTES, strcmp(loc->path, "/") ? loc->path : "");
    loc->free_bytes = -1;
    if (!fsroot_is_live()) {
        long v;
        if (fs_read_long(recorded, &v) && v >= 0)
            loc->free_bytes = v;
        return;
    }
    struct statvfs st;
    double limit = deadline_seconds_capped("GPUVET_DEADLINE_STATFS_S", DEADLINE_STATFS_S, deadline_cap_s);
    int rc = statvfs_bounded(loc->path, &st, limit);
    if (rc != 0 && errno == ETIMEDOUT)
        machine_problem(m, loc->path, "no answer from statvfs in %g s (a hung NFS or FUSE mount?): free space unknown",
                        limit);
    if (rc == 0) {
        loc->free_bytes = (int64_t)st.f_bavail * (int64_t)st.f_frsize;
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)loc->free_bytes);
        fs_record_text(recorded, text);
    }
}

static void mark_disks(struct storage_info *s, const struct storage_location *loc, bool root)
{
    for (int i = 0; i < s->ndevices; i++)
        for (int k = 0; k < loc->ndisks; k++)
            if (!strcmp(s->devices[i].name, loc->disks[k])) {
                if (root)
                    s->devices[i].holds_root = true;
                else
                    s->devices[i].holds_data = true;
            }
}

void probe_storage(struct machine *m, double deadline_cap_s)
{
    struct storage_info *s = &m->storage;
    list_disks(m);
    struct mount_table mounts = {0};
    read_mounts(m, &mounts);
    s->root.path = strdup("/");
    locate(&s->root, &mounts);
    read_free_space(m, &s->root, deadline_cap_s);
    mark_disks(s, &s->root, true);
    if (s->has_data) {
        locate(&s->data, &mounts);
        read_free_space(m, &s->data, deadline_cap_s);
        mark_disks(s, &s->data, false);
    }
    mount_table_free(&mounts);
}

/* On the live machine the data directory must exist (its mount is looked up by its real path);
 * in a recorded tree it names a path of that machine, which must be absolute. */
int probe_data_dir(struct machine *m, const char *dir, double deadline_cap_s)
{
    char *path = NULL;
    if (fsroot_is_live()) {
        double limit = deadline_seconds_capped("GPUVET_DEADLINE_STATFS_S", DEADLINE_STATFS_S, deadline_cap_s);
        path = realpath_bounded(dir, limit);
        if (!path && errno == ETIMEDOUT) {
            /* A hung NFS or FUSE mount: its mount is still found by the path as given. */
            char cwd[PATH_MAX];
            if (asprintf(&path, "%s%s%s", dir[0] == '/' ? "" : getcwd(cwd, sizeof cwd) ? cwd : ".",
                         dir[0] == '/' ? "" : "/", dir) < 0)
                path = NULL;
            machine_problem(m, dir, "no answer from its filesystem (realpath) in %g s: a hung NFS or FUSE mount? "
                                    "Judged by the path as given", limit);
        }
        if (!path) {
            print_error("audit", _("--data-dir %s: %s"), dir, i18n_error_text(errno));
            return -1;
        }
    } else if (dir[0] != '/') {
        print_error("audit", _("--data-dir %s: with --sysroot, give the absolute path on the recorded machine"), dir);
        return -1;
    } else {
        path = strdup(dir);
        for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
            path[n - 1] = '\0';
    }
    m->storage.has_data = true;
    m->storage.data.path = path;
    return 0;
}

