#include "util/pciids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/linereader.h"

/* Not machine data: the database comes from the host running gpuvet, even when replaying. */
static FILE *open_database(const char **path)
{
    static const char *const paths[] = {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
                                        "/usr/share/pci.ids"};
    const char *env = getenv("GPUVET_PCI_IDS");
    if (env) {
        *path = env;
        return fopen(env, "r");
    }
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = fopen(paths[i], "r");
        if (f) {
            *path = paths[i];
            return f;
        }
    }
    return NULL;
}

static char *trimmed_dup(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    return strndup(s, n);
}

int pciids_lookup(struct pciids_name *devices, int count, char *err, size_t errlen)
{
    if (count == 0)
        return 0;
    const char *path = NULL;
    FILE *f = open_database(&path);
    if (!f)
        return 0;
    struct line_reader r;
    line_reader_init(&r, f, path, TEXT_LINE_MAX);
    unsigned vendor = 0x10000;
    int got;
    while ((got = line_reader_next(&r, err, errlen)) > 0) {
        const char *line = r.line;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        /* The class list at the end uses "C xx" lines; vendors are done by then. */
        if (line[0] == 'C' && line[1] == ' ')
            break;
        unsigned id;
        if (line[0] != '\t') {
            if (sscanf(line, "%4x", &id) != 1 || r.length < 6)
                continue;
            vendor = id;
            for (int i = 0; i < count; i++)
                if (devices[i].vendor_id == vendor && !devices[i].vendor_name)
                    devices[i].vendor_name = trimmed_dup(line + 6);
        } else if (line[1] != '\t' && sscanf(line + 1, "%4x", &id) == 1 && r.length >= 7) {
            for (int i = 0; i < count; i++)
                if (devices[i].vendor_id == vendor && devices[i].device_id == id && !devices[i].device_name)
                    devices[i].device_name = trimmed_dup(line + 7);
        }
    }
    line_reader_free(&r);
    fclose(f);
    return got < 0 ? -1 : 0;
}
