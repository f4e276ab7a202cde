#include "util/csv.h"

#include "util/inputfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/fsroot.h"
#include "util/i18n.h"

struct field_buf {
    char *s;
    size_t len, cap;
};

static void buf_push(struct field_buf *b, char c)
{
    if (b->len + 1 >= b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->s = realloc(b->s, b->cap);
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

static char *buf_take(struct field_buf *b)
{
    char *s = b->s ? b->s : strdup("");
    *b = (struct field_buf){0};
    return s;
}

static void free_fields(char **fields, int n)
{
    for (int i = 0; i < n; i++)
        free(fields[i]);
    free(fields);
}

/* Splits one record starting at *p; advances *p past its line end and counts newlines in *line. */
static int read_record(const char *path, const char **p, int *line, char ***out, int *nout, char *err, size_t errlen)
{
    const char *s = *p;
    int start_line = *line, n = 0;
    char **fields = NULL;
    struct field_buf b = {0};
    for (;;) {
        bool quoted = *s == '"';
        if (quoted) {
            s++;
            for (;;) {
                if (!*s) {
                    snprintf(err, errlen, _("%s:%d: unterminated quoted field"), path, start_line);
                    free(b.s);
                    free_fields(fields, n);
                    return -1;
                }
                if (*s == '"' && s[1] == '"') {
                    buf_push(&b, '"');
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    if (*s == '\n')
                        (*line)++;
                    buf_push(&b, *s++);
                }
            }
            if (*s && *s != ',' && *s != '\n' && *s != '\r') {
                snprintf(err, errlen, _("%s:%d: text after a closing quote in field %d"), path, start_line, n + 1);
                free(b.s);
                free_fields(fields, n);
                return -1;
            }
        } else {
            while (*s && *s != ',' && *s != '\n' && *s != '\r')
                buf_push(&b, *s++);
        }
        fields = realloc(fields, sizeof *fields * (size_t)(n + 1));
        fields[n++] = buf_take(&b);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\r')
            s++;
        if (*s == '\n') {
            s++;
            (*line)++;
        }
        break;
    }
    *p = s;
    *out = fields;
    *nout = n;
    return 0;
}

static bool blank_line(const char *s)
{
    return *s == '\n' || (s[0] == '\r' && s[1] == '\n');
}

int csv_load(const char *path, struct csv_table *t, char *err, size_t errlen)
{
    FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
    if (!f) {
        snprintf(err, errlen, _("%s: %s"), path, input_file_error(errno));
        *t = (struct csv_table){.path = strdup(path)};
        return -1;
    }
    return csv_load_stream(f, path, t, err, errlen); /* it sets t->path */
}

int csv_load_stream(FILE *f, const char *path, struct csv_table *t, char *err, size_t errlen)
{
    *t = (struct csv_table){.path = strdup(path)};
    struct field_buf text = {0};
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '\0') {
            snprintf(err, errlen, _("%s: binary data (a NUL byte), not CSV"), path);
            fclose(f);
            free(text.s);
            return -1;
        }
        buf_push(&text, (char)c);
    }
    fclose(f);
    char *all = buf_take(&text);
    const char *p = all;
    if (!strncmp(p, "\xEF\xBB\xBF", 3)) /* spreadsheets write a UTF-8 byte-order mark */
        p += 3;
    int line = 1, rc = 0;
    while (*p && blank_line(p)) {
        p += *p == '\r' ? 2 : 1;
        line++;
    }
    if (!*p) {
        snprintf(err, errlen, _("%s:%d: empty file, expected a header row"), path, line);
        free(all);
        return -1;
    }
    if (read_record(path, &p, &line, &t->header, &t->ncols, err, errlen) != 0) {
        free(all);
        return -1;
    }
    while (*p) {
        if (blank_line(p)) {
            p += *p == '\r' ? 2 : 1;
            line++;
            continue;
        }
        struct csv_row row = {.line = line};
        int n;
        if (read_record(path, &p, &line, &row.fields, &n, err, errlen) != 0) {
            rc = -1;
            break;
        }
        if (n != t->ncols) {
            snprintf(err, errlen, _("%s:%d: %d fields, the header has %d"), path, row.line, n, t->ncols);
            free_fields(row.fields, n);
            rc = -1;
            break;
        }
        t->rows = realloc(t->rows, sizeof *t->rows * (size_t)(t->nrows + 1));
        t->rows[t->nrows++] = row;
    }
    free(all);
    return rc;
}

void csv_free(struct csv_table *t)
{
    for (int i = 0; i < t->nrows; i++)
        free_fields(t->rows[i].fields, t->ncols);
    free(t->rows);
    free_fields(t->header, t->ncols);
    free(t->path);
    *t = (struct csv_table){0};
}

int csv_column(const struct csv_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (!strcasecmp(t->header[i], name))
            return i;
    return -1;
}

int csv_number(const struct csv_table *t, const struct csv_row *row, int col, bool required, double *out, char *err,
               size_t errlen)
{
    *out = 0;
    const char *s = col >= 0 ? row->fields[col] : "";
    while (*s == ' ')
        s++;
    if (!*s) {
        if (!required)
            return 0;
        snprintf(err, errlen, _("%s:%d: %s: empty, a number is required"), t->path, row->line,
                 col >= 0 ? t->header[col] : "(missing column)");
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (errno || *end || !isfinite(v)) {
        snprintf(err, errlen, _("%s:%d: %s: '%s' is not a number"), t->path, row->line, t->header[col], row->fields[col]);
        return -1;
    }
    *out = v;
    return 0;
}
