#include "util/datadir.h"

#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/linereader.h"

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

/* Opens table `name` from the first place that has it; *origin says which. */
static FILE *open_table(const char *name, char *label, size_t labellen, enum data_origin *origin)
{
    const char *dir = explicit_dir(origin);
    char path[PATH_MAX];
    if (dir) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        snprintf(label, labellen, "%s", path);
        return input_file_open(path, INPUT_FILE_LIMIT);
    }
    char share[PATH_MAX - 64];
    if (installed_dir(share, sizeof share)) {
        snprintf(path, sizeof path, "%s/%s", share, name);
        FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
        if (f) {
            char *real = realpath(path, NULL);
            snprintf(label, labellen, "%s", real ? real : path);
            free(real);
            *origin = DATA_INSTALLED;
            return f;
        }
    }
    const struct embedded_table *t = embedded(name);
    snprintf(label, labellen, "%s (built in)", name);
    *origin = DATA_BUILT_IN;
    if (!t) {
        errno = ENOENT;
        return NULL;
    }
    return fmemopen((void *)t->bytes, t->size, "r");
}

FILE *data_open(const char *name, char *label, size_t labellen)
{
    enum data_origin origin;
    FILE *f = open_table(name, label, labellen, &origin);
    if (f)
        record(name, origin, origin == DATA_BUILT_IN ? "" : label);
    return f;
}

/* A table with no line but comments (an empty or cut-off copy) would match nothing and leave every
 * fact it gives unknown without a word: it is refused like a missing one. */
static bool holds_rows(FILE *f, const char *label)
{
    struct line_reader r;
    /* An over-long line counts as a row: the table's checker refuses it, naming its line. */
    line_reader_init(&r, f, label, TEXT_LINE_MAX);
    char err[64];
    int got;
    while ((got = line_reader_next(&r, err, sizeof err)) > 0 && (r.line[0] == '#' || !r.line[strspn(r.line, " \t")]))
        ;
    line_reader_free(&r);
    return got != 0;
}

static const char *empty_table_message(enum data_origin origin)
{
    switch (origin) {
    case DATA_OPTION:
        return _("%s: holds no rows, only comments or nothing (a --data folder must hold every table)");
    case DATA_ENVIRONMENT:
        return _("%s: holds no rows, only comments or nothing (a GPUVET_DATA_DIR folder must hold every table)");
    case DATA_INSTALLED:
        return _("%s: holds no rows, only comments or nothing (an installed table replaces the built-in one: "
                 "reinstall gpuvet, or delete the file to use the built-in table)");
    case DATA_BUILT_IN: break;
    }
    return _("%s: holds no rows, only comments or nothing");
}

int data_tables_check(const struct data_table_checks *checks, int nchecks, char *err, size_t errlen)
{
    for (int i = 0; i < embedded_tables_count; i++) {
        const char *name = embedded_tables[i].name;
        char label[PATH_MAX];
        enum data_origin origin;
        FILE *f = open_table(name, label, sizeof label, &origin);
        if (f && origin == DATA_BUILT_IN) {
            /* The tables compiled in were checked when they were built (test_linereader runs every
             * checker on them): checking them again would cost each command start its regexes. */
            fclose(f);
            continue;
        }
        if (!f) {
            snprintf(err, errlen,
                     origin == DATA_OPTION
                         ? _("%s: %s (a --data folder must hold every table; leave --data out to use the built-in ones)")
                         : _("%s: %s (a GPUVET_DATA_DIR folder must hold every table; unset GPUVET_DATA_DIR to use the "
                             "built-in ones)"),
                     label, input_file_error(errno));
            return -1;
        }
        if (!holds_rows(f, label)) {
            fclose(f);
            snprintf(err, errlen, empty_table_message(origin), label);
            return -1;
        }
        rewind(f);
        int k = 0;
        while (k < nchecks && strcmp(checks[k].name, name))
            k++;
        if (k < nchecks ? checks[k].check(f, label, err, errlen) != 0 : fclose(f) != 0)
            return -1;
    }
    return 0;
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
