/* Helpers for tests that run the built gpuvet binary as a user would. */
#ifndef GPUVET_TESTUTIL_H
#define GPUVET_TESTUTIL_H

#include <jansson.h>
#include <stdbool.h>

struct run_result {
    int status;   /* exit status, or -1 when it did not exit normally */
    char *out;    /* stdout */
    char *err;    /* stderr */
};

/* Runs GPUVET_BIN with the arguments (NULL-terminated) and collects its output. */
struct run_result run_gpuvet(const char *arg, ...);
void run_result_free(struct run_result *r);

/* Runs a shell command line; returns its stdout and stderr together (malloc'd), *status its exit
 * status (-1 when it did not exit normally). */
char *run_shell(const char *command, int *status);

/* Parses r->out as JSON; fails the test when it is not. */
json_t *run_json(const struct run_result *r);
/* The audit document of r->out as sorted text without its timing (elapsed_ms differs between two
 * runs): for comparing two runs byte for byte. malloc'd. */
char *run_json_without_timing(const struct run_result *r);

/* How many times needle stands in text (overlapping ones counted). */
int count_of(const char *text, const char *needle);

/* A whole file (NUL-terminated; len, when not NULL, counts the bytes: files may hold NULs). */
char *file_contents(const char *path, size_t *len);

/* Path of an unpacked fixture tree, e.g. fixture("sysroot/32intel64-2p8co2t+8ve"). Static buffer. */
const char *fixture(const char *rel);

/* Copies a fixture tree to a fresh temporary folder (for mutations); returns its malloc'd path. */
/* A copy of a fixture tree in a new /tmp folder whose files are hard links to the fixture's: replace
 * a file (tree_write, unlink, rename) or call tree_own before changing one in place (truncate,
 * chmod, open for writing), which would change the fixture itself. */
char *fixture_copy(const char *rel);
/* Makes root/rel a file of its own (a copy of what it links to), safe to change in place. */
void tree_own(const char *root, const char *rel);
void tree_remove(const char *path);
/* Writes text to path (relative to root), replacing the file. */
void tree_write(const char *root, const char *rel, const char *text);

/* Findings of id (and subject, when not NULL) in an audit JSON document, as a new array. */
json_t *findings_of(json_t *doc, const char *id, const char *subject);
/* The one finding id has on subject (asserted: exactly one); the caller decrefs it. */
json_t *one_finding(json_t *doc, const char *id, const char *subject);
/* That finding's severity is severity and, where words is not NULL, its message holds words. */
void expect_finding(json_t *doc, const char *id, const char *subject, const char *severity, const char *words);
/* The object of array whose string member key equals value (borrowed), or NULL. */
json_t *array_entry(json_t *array, const char *key, const char *value);
/* Count of findings of id with that severity. */
int count_findings(json_t *doc, const char *id, const char *severity);

/* `gpuvet audit --json --sysroot fixture(tree)` saved to a temporary file (the caller unlinks
 * it); returns its malloc'd path. */
char *saved_audit(const char *tree);

/* True when this machine has an NVIDIA display or 3D controller (sysfs vendor 0x10de, class 0x03xx):
 * tests that need a machine without one skip there (gpuvet is meant for GPU servers). */
bool host_has_nvidia_gpu(void);

/* Checks every GitHub-flavoured Markdown table of md (fails the test naming `name`): a blank line
 * before it, a header, a delimiter row with as many cells, rows with as many cells, each row
 * starting and ending with '|'. Returns the number of tables. */
int markdown_check_tables(const char *md, const char *name);

/* Checks that an HTML file is well formed (tests/support/html_well_formed.py, Python's own HTML
 * parser): fails the test with the script's message when it is not. */
void html_check_well_formed(const char *path);

/* The text with its 100-column wraps undone: a newline and the indent after it become joiner
 * ("" for Chinese, which wraps between characters; " " for English, which wraps between words),
 * so that a sentence split over two lines is found whole. malloc'd. */
char *text_unwrapped(const char *text, const char *joiner);

#endif
