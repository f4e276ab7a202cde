/* The data tables (the CSV files in data/) are compiled into the binary, so a binary copied alone still works.
 * A folder overrides them: `gpuvet --data DIR` or $GPUVET_DATA_DIR (explicit: every table must be
 * there, a missing one is an error naming the file), else share/gpuvet beside the installed binary
 * (PREFIX/bin/gpuvet reads PREFIX/share/gpuvet; a table it lacks comes from the built-in copy).
 * Every table read from a folder is checked before a command runs (data_tables_check); the built-in
 * ones were checked when they were built. */
#ifndef GPUVET_UTIL_DATADIR_H
#define GPUVET_UTIL_DATADIR_H

#include <stddef.h>
#include <stdio.h>

/* Where a table was read from, for the audit to say. */
enum data_origin { DATA_BUILT_IN, DATA_INSTALLED, DATA_OPTION, DATA_ENVIRONMENT };

struct data_table_use {
    const char *name;      /* "gpus.csv" */
    enum data_origin origin;
    char path[4096];       /* the file read; "" for the built-in copy */
};

/* A table compiled in at build time (generated from data/ by cmake/embed_data.cmake). */
struct embedded_table {
    const char *name;
    const unsigned char *bytes;
    size_t size;
};
extern const struct embedded_table embedded_tables[];
extern const int embedded_tables_count;

/* `--data DIR`: read every table from DIR (overrides $GPUVET_DATA_DIR). */
void data_set_dir(const char *dir);

/* A table's row checker: reads the open table f (label names it in errors) to its end and closes
 * it; the first row its loader could not use is "LABEL:LINE: what is wrong" in err, -1. Else 0. */
typedef int (*data_table_checker)(FILE *f, const char *label, char *err, size_t errlen);
struct data_table_checks {
    const char *name; /* "gpus.csv" */
    data_table_checker check;
};

/* Before a command runs, checks every table where data_open() will find it (recording nothing): a
 * table an explicit folder lacks, a table with no rows (in a folder or installed beside the binary)
 * and a row the table's checker (by name in checks) refuses are each an error naming the file (and
 * line) in err, -1. Else 0. */
int data_tables_check(const struct data_table_checks *checks, int nchecks, char *err, size_t errlen);

/* Opens table `name` from the first place that has it (see above) and records where in the list
 * data_tables_used() returns; *label gets a name for error messages (the path, or "NAME (built in)").
 * NULL (errno set, label the missing path) only when an explicit folder lacks it. */
FILE *data_open(const char *name, char *label, size_t labellen);

/* "built-in", "installed", "--data", "GPUVET_DATA_DIR". */
const char *data_origin_name(enum data_origin origin);

/* The tables data_open() opened in this process, in the order first opened. */
const struct data_table_use *data_tables_used(int *count);

#endif
