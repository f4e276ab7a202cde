/* The output of `gpuvet gpus`: the GPU table (util/gputable.h) as text or JSON. */
#ifndef GPUVET_REPORT_GPUS_REPORT_H
#define GPUVET_REPORT_GPUS_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "util/gputable.h"

/* One row of the gpuvet.gpus/1 document; query and note (may be NULL) say how a name resolved. */
json_t *gpus_spec_json(const struct gpu_spec *g, const char *query, const char *note);
/* Writes the gpuvet.gpus/1 document: the table's path and the GPUs of list (taken: freed). */
void gpus_json_document(FILE *out, const char *table_path, json_t *list);

/* The table: a two-line header, one row per GPU, and the footer that says what dense/sparse means. */
void gpus_text_header(FILE *out);
void gpus_text_row(FILE *out, const struct gpu_spec *g);
void gpus_text_footer(FILE *out);
/* One GPU in detail, after the note on how its name resolved (may be NULL or ""). */
void gpus_text_detail(FILE *out, const struct gpu_spec *g, const char *note);

#endif
