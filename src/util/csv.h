/* A small RFC 4180 CSV reader for gpuvet's tables and users' offer files: quoted fields, CRLF,
 * a header row, and errors that name FILE:LINE. */
#ifndef GPUVET_UTIL_CSV_H
#define GPUVET_UTIL_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct csv_row {
    int line;      /* line number in the file where the row starts */
    char **fields; /* ncols entries, never NULL */
};

struct csv_table {
    char *path;
    char **header;
    int ncols;
    struct csv_row *rows;
    int nrows;
};

/* Reads path; a row with a different field count than the header, an unterminated quote or an
 * empty file is an error written as "FILE:LINE: what is wrong" into err. Returns 0 or -1. */
int csv_load(const char *path, struct csv_table *t, char *err, size_t errlen);
/* The same from an open stream (closed here); path names it in errors. */
int csv_load_stream(FILE *f, const char *path, struct csv_table *t, char *err, size_t errlen);
void csv_free(struct csv_table *t);

/* Index of the column named name (case-insensitive), -1 when absent. */
int csv_column(const struct csv_table *t, const char *name);

/* Parses the field at col as a number. An empty field (or col < 0) leaves *out at 0 and returns 0
 * unless required; a field that is not a finite number is "FILE:LINE: column: not a number". */
int csv_number(const struct csv_table *t, const struct csv_row *row, int col, bool required, double *out, char *err,
               size_t errlen);

#endif
