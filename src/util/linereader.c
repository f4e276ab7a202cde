#include "util/linereader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/i18n.h"

void line_reader_init(struct line_reader *r, FILE *f, const char *path, size_t max)
{
    *r = (struct line_reader){.f = f, .path = path, .max = max};
}

static bool reserve(char **buf, size_t *capacity, size_t need)
{
    if (need <= *capacity)
        return true;
    size_t grown = *capacity ? *capacity : 256;
    while (grown < need)
        grown *= 2;
    char *p = realloc(*buf, grown);
    if (!p)
        return false;
    *buf = p;
    *capacity = grown;
    return true;
}

static int line_error(struct line_reader *r, const char *why, char *err, size_t errlen)
{
    snprintf(err, errlen, _("%s:%d: %s"), r->path, r->number, why);
    return -1;
}

static int too_long(struct line_reader *r, char *err, size_t errlen)
{
    snprintf(err, errlen, _("%s:%d: line longer than %zu bytes"), r->path, r->number, r->max);
    return -1;
}

int line_reader_next(struct line_reader *r, char *err, size_t errlen)
{
    r->length = 0;
    bool ended = false;
    int c;
    /* getc_unlocked: one reader per stream, and pci.ids is a megabyte read byte by byte. */
    while ((c = getc_unlocked(r->f)) != EOF) {
        if (c == '\n') {
            ended = true;
            break;
        }
        /* max bytes and a '\r' are the most a line may hold before its '\n'. */
        if (r->length == r->max + 1) {
            r->number++;
            return too_long(r, err, errlen);
        }
        if (!reserve(&r->line, &r->capacity, r->length + 2)) {
            r->number++;
            return line_error(r, i18n_error_text(ENOMEM), err, errlen);
        }
        r->line[r->length++] = (char)c;
    }
    if (!ended && ferror(r->f)) {
        r->number++;
        return line_error(r, i18n_error_text(errno ? errno : EIO), err, errlen);
    }
    if (!ended && r->length == 0)
        return 0;
    r->number++;
    if (!reserve(&r->line, &r->capacity, r->length + 1))
        return line_error(r, i18n_error_text(ENOMEM), err, errlen);
    r->line[r->length] = '\0';
    if (r->length > 0 && r->line[r->length - 1] == '\r')
        r->line[--r->length] = '\0';
    return r->length > r->max ? too_long(r, err, errlen) : 1;
}

void line_reader_free(struct line_reader *r)
{
    free(r->line);
    r->line = NULL;
    r->capacity = r->length = 0;
}

bool text_line_next(const char **cursor, char **buf, size_t *capacity)
{
    const char *p = *cursor;
    if (!p || !*p)
        return false;
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (!reserve(buf, capacity, n + 1))
        return false;
    memcpy(*buf, p, n);
    (*buf)[n] = '\0';
    if (n > 0 && (*buf)[n - 1] == '\r')
        (*buf)[n - 1] = '\0';
    *cursor = nl ? nl + 1 : p + n;
    return true;
}
