/* Loads a JSON document keeping only named members (prune.c). */
#ifndef GPUVET_FLEET_PRUNE_H
#define GPUVET_FLEET_PRUNE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* How a member with `members` is read when it is an array. */
enum prune_each {
    PRUNE_OBJECT = 0,        /* not an array: an object keeping only `members` (else kept whole) */
    PRUNE_EACH = 1,          /* an array of such objects; an element that is not an object is an error */
    PRUNE_EACH_OR_WHOLE = 2, /* the same, but an element that is not an object is kept whole */
};

/* A member to keep: with `members` NULL its whole value; otherwise an object keeping only those
 * members, or (each) an array of such objects. Lists end with a NULL key.
 *
 * With `take`, the member is handed over instead of kept: take(NULL, context) where the member
 * begins (a later one of the same name replaces an earlier one, as in the tree), then each element
 * of its array, freed after the call, so that a long list never stands as a tree (the many objects
 * alive at once were most of malloc's time). A member that is not an array gives no element. */
struct prune_keep {
    const char *key;
    const struct prune_keep *members;
    enum prune_each each;
    void (*take)(json_t *element, void *context);
};

/* The document at path as an object with only `top`'s members, or NULL with the reason (a
 * system error, or "not a JSON document (..., line N)") in `why`. `context` goes to each take. */
json_t *prune_load_file(const char *path, const struct prune_keep *top, void *context, char *why, size_t why_size);

#endif
