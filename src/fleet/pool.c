/* Interned strings: a node's configuration is a handful of pointers into this pool, so 10,000
 * identical nodes hold one copy of each value. Open addressing, FNV-1a. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/pool.h"

struct fleet_pool_entry {
    int counter;
    char text[];
};

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void *checked(void *p)
{
    if (!p)
        abort(); /* out of memory: nothing sensible is left to report */
    return p;
}

static void grow(struct fleet_pool *p)
{
    size_t nslots = p->nslots ? p->nslots * 2 : 1024;
    struct fleet_pool_entry **slots = checked(calloc(nslots, sizeof *slots));
    for (size_t i = 0; i < p->nslots; i++) {
        if (!p->slots[i])
            continue;
        size_t k = hash_text(p->slots[i]->text) & (nslots - 1);
        while (slots[k])
            k = (k + 1) & (nslots - 1);
        slots[k] = p->slots[i];
    }
    free(p->slots);
    p->slots = slots;
    p->nslots = nslots;
}

const char *pool_intern(struct fleet_pool *p, const char *text, bool *added)
{
    if ((p->count + 1) * 2 > p->nslots)
        grow(p);
    size_t k = hash_text(text) & (p->nslots - 1);
    while (p->slots[k]) {
        if (!strcmp(p->slots[k]->text, text)) {
            if (added)
                *added = false;
            return p->slots[k]->text;
        }
        k = (k + 1) & (p->nslots - 1);
    }
    size_t len = strlen(text);
    struct fleet_pool_entry *e = checked(malloc(sizeof *e + len + 1));
    e->counter = 0;
    memcpy(e->text, text, len + 1);
    p->slots[k] = e;
    p->count++;
    if (added)
        *added = true;
    return e->text;
}

void pool_free(struct fleet_pool *p)
{
    for (size_t i = 0; i < p->nslots; i++)
        free(p->slots[i]);
    free(p->slots);
    memset(p, 0, sizeof *p);
}

int *fleet_counter(const char *interned)
{
    return &((struct fleet_pool_entry *)(void *)(interned - offsetof(struct fleet_pool_entry, text)))->counter;
}
