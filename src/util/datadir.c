#include "util/datadir.h"

#include "util/i18n.h"
#include "util/inputfile.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *option_dir;
static struct data_table_use used[8];
static int nused;

void data_set_dir(const char *dir) { option_dir = dir; }

static const char *explicit_dir(enum data_origin *origin)
{
    if (option_dir) {
        *origin = DATA_OPTION;
        return option_dir;
    }
    const char *env = getenv("GPUVET_DATA_DIR");
    *origin = DATA_ENVIRONMENT;
    return env && *env ? env : NULL;
}

/* PREFIX/share/gpuvet for the running PREFIX/bin/gpuvet, whatever PREFIX it was installed to. */
static bool installed_dir(char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *bin = dirname(exe);
    snprintf(buf, len, "%s/../share/gpuvet", bin);
    return true;
}

static const struct embedded_table *embedded(const char *name)
{
    for (int i = 0; i < embedded_tables_count; i++)
        if (!strcmp(embedded_tables[i].name, name))
            return &embedded_tables[i];
    return NULL;
}

/* A table with no line but comments (an empty or cut-off copy) would match nothing and leave every
 * fact it gives unknown without a word: it is refused like a missing one. */
static bool holds_rows(FILE *f)
{
    char line[256];
    bool line_start = true;
    while (fgets(line, sizeof line, f)) {
        if (line_start && line[0] != '#' && line[strspn(line, " \t\r\n")] != '\0')
            return true;
        line_start = strchr(line, '\n') != NULL;
    }
    return false;
}

int data_dir_check(char *err, size_t errlen)
{
    enum data_origin origin;
    const char *dir = explicit_dir(&origin);
    if (!dir)
        return 0;
    for (int i = 0; i < embedded_tables_count; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, embedded_tables[i].name);
        FILE *f = input_file_open(path);
        if (!f) {
            snprintf(err, errlen,
                     origin == DATA_OPTION
                         ? _("%s: %s (a --data folder must hold every table; leave --data out to use the built-in ones)")
                         : _("%s: %s (a GPUVET_DATA_DIR folder must hold every table; unset GPUVET_DATA_DIR to use the "
                             "built-in ones)"),
                     path, strerror(errno));
            return -1;
        }
        bool rows = holds_rows(f);
        fclose(f);
        if (!rows) {
            snprintf(err, errlen, "%s: holds no rows, only comments or nothing (a %s folder must hold every table)",
                     path, data_origin_name(origin));
            return -1;
        }
    }
    return 0;
}

static void record(const char *name, enum data_origin origin, const char *path)
{
    for (int i = 0; i < nused; i++)
        if (!strcmp(used[i].name, name)) {
            used[i].origin = origin;
            snprintf(used[i].path, sizeof used[i].path, "%s", path);
            return;
        }
    if (nused == (int)(sizeof used / sizeof used[0]))
        return;
    used[nused].name = name;
    used[nused].origin = origin;
    snprintf(used[nused].path, sizeof used[nused].path, "%s", path);
    nused++;
}

FILE *data_open(const char *name, char *label, size_t labellen)
{
    enum data_origin origin;
    const char *dir = explicit_dir(&origin);
    char path[PATH_MAX];
    if (dir) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        snprintf(label, labellen, "%s", path);
        FILE *f = input_file_open(path);
        if (f)
            record(name, origin, path);
        return f;
    }
    char share[PATH_MAX - 64];
    if (installed_dir(share, sizeof share)) {
        snprintf(path, sizeof path, "%s/%s", share, name);
        FILE *f = input_file_open(path);
        if (f) {
            char *real = realpath(path, NULL);
            snprintf(label, labellen, "%s", real ? real : path);
            record(name, DATA_INSTALLED, label);
            free(real);
            return f;
        }
    }
    const struct embedded_table *t = embedded(name);
    snprintf(label, labellen, "%s (built in)", name);
    if (!t) {
        errno = ENOENT;
        return NULL;
    }
    record(name, DATA_BUILT_IN, "");
    return fmemopen((void *)t->bytes, t->size, "r");
}

const char *data_origin_name(enum data_origin origin)
{
    switch (origin) {
    case DATA_INSTALLED: return "installed";
    case DATA_OPTION: return "--data";
    case DATA_ENVIRONMENT: return "GPUVET_DATA_DIR";
    case DATA_BUILT_IN: break;
    }
    return "built-in";
}

const struct data_table_use *data_tables_used(int *count)
{
    *count = nused;
    return used;
}
