#include "model/contention.h"

#include <stdlib.h>
#include <string.h>

void contention_info_init(struct contention_info *c)
{
    memset(c, 0, sizeof *c);
    c->steal_ratio = c->load1 = c->load5 = c->load15 = -1;
    c->throttle_before = c->throttle_after = -1;
}

void contention_info_free(struct contention_info *c)
{
    free(c->unknown_reason);
    free(c->per_cpu);
    for (int i = 0; i < c->nprocs; i++)
        free(c->procs[i].name);
    free(c->procs);
    contention_info_init(c);
}
