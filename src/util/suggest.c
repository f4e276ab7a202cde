#include "util/suggest.h"

#include <stdlib.h>
#include <string.h>

size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), width = lb + 1;
    size_t *d = malloc(sizeof *d * (la + 1) * width);
#define D(i, j) d[(i) * width + (j)]
    for (size_t i = 0; i <= la; i++)
        D(i, 0) = i;
    for (size_t j = 0; j <= lb; j++)
        D(0, j) = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);
            if (D(i - 1, j) + 1 < best)
                best = D(i - 1, j) + 1;
            if (D(i, j - 1) + 1 < best)
                best = D(i, j - 1) + 1;
            /* two neighbours swapped ("jsno" for "json") is one typo, not two */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < best)
                best = D(i - 2, j - 2) + 1;
            D(i, j) = best;
        }
    size_t distance = D(la, lb);
#undef D
    free(d);
    return distance;
}

const char *closest_name(const char *query, const char *const *names, size_t count)
{
    size_t limit = strlen(query) / 3;
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    const char *best = NULL;
    size_t best_distance = limit + 1;
    for (size_t i = 0; i < count; i++) {
        size_t d = edit_distance(query, names[i]);
        if (d < best_distance) {
            best_distance = d;
            best = names[i];
        }
    }
    return best;
}
