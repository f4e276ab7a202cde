#include "util/pciids.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/linereader.h"

/* pci.ids is 1.3 MB (2023); a file this much larger is not that database. */
#define PCIIDS_MAX_BYTES (64u << 20)

/* Not machine data: the database comes from the host running gpuvet, even when replaying. */
static FILE *open_database(const char **path)
{
    static const char *const paths[] = {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
                                        "/usr/share/pci.ids"};
    const char *env = getenv("GPUVET_PCI_IDS");
    if (env) {
        *path = env;
        return input_file_open(env, PCIIDS_MAX_BYTES);
    }
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = input_file_open(paths[i], PCIIDS_MAX_BYTES);
        if (f) {
            *path = paths[i];
            return f;
        }
    }
    return NULL;
}

/* The file mapped, not copied: the lookup stops once the wanted vendors are passed, so the rest of it
 * is never touched. NULL with err set when it cannot be mapped. */
static const char *map_whole(FILE *f, const char *path, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, _("%s: not a regular file"), path);
        return NULL;
    }
    if ((unsigned long long)st.st_size > PCIIDS_MAX_BYTES) {
        snprintf(err, errlen, _("%s: larger than %u MiB: not a pci.ids database"), path, PCIIDS_MAX_BYTES >> 20);
        return NULL;
    }
    *len = (size_t)st.st_size;
    if (*len == 0)
        return "";
    void *p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, _("%s: %s"), path, i18n_error_text(errno));
        return NULL;
    }
    return p;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Four hex digits then two spaces or a tab (the database's "xxxx  Name"): the id, else -1. */
static long id_at(const char *s, size_t len)
{
    if (len < 6)
        return -1;
    long id = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(s[i]);
        if (d < 0)
            return -1;
        id = id * 16 + d;
    }
    return id;
}

static char *name_dup(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    return strndup(s, n);
}

/* Every wanted vendor's block has been read: vendors appear once each, so nothing is left to find. */
static bool all_vendors_passed(const struct pciids_name *devices, int count, const bool *seen, unsigned current)
{
    for (int i = 0; i < count; i++)
        if (!seen[i] || devices[i].vendor_id == current)
            return false;
    return true;
}

int pciids_lookup(struct pciids_name *devices, int count, char *err, size_t errlen)
{
    if (count == 0)
        return 0;
    const char *path = NULL;
    FILE *f = open_database(&path);
    if (!f && path && errno != ENOENT) {
        /* Named but refused (a FIFO, a folder, unreadable): said, never waited on. */
        snprintf(err, errlen, _("%s: %s"), path, input_file_error(errno));
        return -1;
    }
    if (!f)
        return 0;
    size_t size = 0;
    const char *text = map_whole(f, path, &size, err, errlen);
    fclose(f); /* the mapping outlives the stream */
    if (!text)
        return -1;
    bool *seen = calloc((size_t)count, sizeof *seen); /* device i's vendor line was read */
    if (!seen) {
        if (size)
            munmap((void *)text, size);
        snprintf(err, errlen, _("%s: %s"), path, i18n_error_text(ENOMEM));
        return -1;
    }
    for (int i = 0; i < count; i++)
        seen[i] = devices[i].vendor_id > 0xffff; /* an unread vendor id is in no block */
    unsigned vendor = 0x10000;
    bool wanted = false; /* the current vendor is one of the devices' */
    int rc = 0, lineno = 0;
    for (const char *p = text, *end = text + size; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *line = p;
        p = nl ? nl + 1 : end;
        lineno++;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (len > TEXT_LINE_MAX) {
            snprintf(err, errlen, _("%s:%d: line longer than %zu bytes"), path, lineno, (size_t)TEXT_LINE_MAX);
            rc = -1;
            break;
        }
        if (len == 0 || line[0] == '#')
            continue;
        /* The class list at the end uses "C xx" lines; vendors are done by then. */
        if (line[0] == 'C' && len > 1 && line[1] == ' ')
            break;
        if (line[0] != '\t') {
            long id = id_at(line, len);
            if (id < 0)
                continue;
            if (all_vendors_passed(devices, count, seen, (unsigned)id))
                break;
            vendor = (unsigned)id;
            wanted = false;
            for (int i = 0; i < count; i++)
                if (devices[i].vendor_id == vendor) {
                    wanted = seen[i] = true;
                    if (!devices[i].vendor_name)
                        devices[i].vendor_name = name_dup(line + 6, len - 6);
                }
        } else if (wanted && len >= 7 && line[1] != '\t') {
            long id = id_at(line + 1, len - 1);
            for (int i = 0; id >= 0 && i < count; i++)
                if (devices[i].vendor_id == vendor && devices[i].device_id == (unsigned)id && !devices[i].device_name)
                    devices[i].device_name = name_dup(line + 7, len - 7);
        }
    }
    free(seen);
    if (size)
        munmap((void *)text, size);
    return rc;
}
