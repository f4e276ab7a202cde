/* The provider's claimed spec (`--claim FILE`, the offer's "label") and, per claim, what was
 * found and the verdict. The keys, their JSON types and their evaluators are one table
 * (claim_kinds, rules/claims.c); the file parser validates against it. */
#ifndef GPUVET_CLAIMS_CLAIMS_H
#define GPUVET_CLAIMS_CLAIMS_H

#include <jansson.h>
#include <stdbool.h>


enum claim_type { CLAIM_STRING, CLAIM_INTEGER, CLAIM_NUMBER };
enum claim_verdict { CLAIM_UNKNOWN, CLAIM_PASS, CLAIM_MISMATCH };

struct claim {
    char *key;         /* "cpu.cores", "storage[1].gb" */
    int kind;          /* index into claim_kinds */
    int index;         /* position in storage[]; -1 for the other keys */
    json_t *claimed;   /* the value from the file */
    json_t *found;     /* what the audit found to compare; JSON null when unknown */
    enum claim_verdict verdict;
    char *message;     /* why: the arithmetic behind the verdict, or why it is unknown */
    char *message_local; /* the same in the reader's language; NULL when English */
};

struct claim_set {
    char *file;        /* the claim file, or NULL for a listing */
    char *listing;     /* `--expect`'s text, or NULL for a file */
    json_t *unparsed;  /* a listing's words that fit no claim, as an array of strings; NULL for a file */
    struct claim *items; /* in claim_kinds order, storage[] entries in file order */
    int count;
};

struct claim_eval; /* rules/claims.c: the machine and thresholds an evaluator reads */

struct claim_kind {
    const char *key;              /* "cpu.cores"; array members as "storage[].gb" */
    enum claim_type type;
    const char *const *choices;   /* the strings a CLAIM_STRING may take; NULL any */
    void (*evaluate)(struct claim *c, const struct claim_eval *e);
};

extern const struct claim_kind claim_kinds[];
extern const int claim_kinds_count;

/* Reads and validates FILE. On any error returns -1, sets *error to "FILE: key: what is wrong"
 * (malloc'd) and leaves out empty: a bad claim file gets no partial verdict. */
int claim_file_load(const char *path, struct claim_set *out, char **error);
void claim_set_free(struct claim_set *set);

/* A listing in a provider's words ("8x H100 SXM5 80GB, 2x EPYC 9654, 2TB RAM, 8x 3.84TB NVMe,
 * 8x 400Gb IB") as the claim file's object; the words that fit no claim in *unparsed_words (a new
 * JSON array). claims/listing.c. */
json_t *claim_listing_object(const char *text, json_t **unparsed_words);
/* The listing parsed and validated as a claim file is (one path): -1 with *error when no word of
 * it makes a claim. */
int claim_listing_load(const char *text, struct claim_set *out, char **error);

/* "pass", "mismatch", "unknown": the JSON value, and (through _()) the pages' word. */
const char *claim_verdict_name(enum claim_verdict v);
/* A claim's message as people read it: the translation where there is one ("" when none). */
const char *claim_message_text(const struct claim *c);
/* "PASS", "MISMATCH", "UNKNOWN": the text report's label (through _()). */
const char *claim_verdict_label(enum claim_verdict v);

#endif
