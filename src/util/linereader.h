/* Whole lines, counted: a line longer than a reader's buffer is neither cut nor its tail read as a
 * new line. A stream reader refuses a line over its cap ("FILE:LINE: line longer than N bytes"),
 * so a garbage file cannot make it allocate without end; text already in memory is read whole. */
#ifndef GPUVET_UTIL_LINEREADER_H
#define GPUVET_UTIL_LINEREADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The cap for the line formats gpuvet reads (data tables, dmon logs, pci.ids): their lines are a few
 * hundred bytes, so a longer one is not that format. */
#define TEXT_LINE_MAX 4096

struct line_reader {
    FILE *f;
    const char *path; /* names the file in errors */
    size_t max;       /* the longest line accepted, in bytes without its line end */
    int number;       /* the line last read, from 1 */
    char *line;       /* that line without "\n" or "\r\n", NUL-terminated; valid until the next read */
    size_t length;
    size_t capacity;
};

/* Reads f (not closed here) as path, refusing lines over max bytes. */
void line_reader_init(struct line_reader *r, FILE *f, const char *path, size_t max);
/* 1: the next line is in r->line; 0: end of file; -1: the line is longer than r->max (or a read
 * error, or no memory), "PATH:LINE: why" in err. */
int line_reader_next(struct line_reader *r, char *err, size_t errlen);
/* Frees the line buffer; the stream stays open. */
void line_reader_free(struct line_reader *r);

/* The next line of NUL-terminated text at *cursor, copied whole (without "\n" or "\r\n") into *buf,
 * grown as needed (free it when done; *buf and *capacity start NULL and 0); *cursor moves past the
 * line end. false at the end of the text or without memory. */
bool text_line_next(const char **cursor, char **buf, size_t *capacity);

#endif
