/* "Did you mean": the closest of a list of names to a misspelt one, by edit distance. */
#ifndef GPUVET_UTIL_SUGGEST_H
#define GPUVET_UTIL_SUGGEST_H

#include <stddef.h>

/* Insertions, deletions, substitutions and swaps of two neighbours that turn a into b (the optimal
 * string alignment distance; case-sensitive). */
size_t edit_distance(const char *a, const char *b);

/* The name in names[0..count) closest to query, or NULL when even the closest needs more edits than
 * a typo makes (more than a third of the query's length, at least 1, at most 3). */
const char *closest_name(const char *query, const char *const *names, size_t count);

#endif
