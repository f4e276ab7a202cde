/* The fleet module's string pool (struct fleet_pool in fleet.h). */
#ifndef GPUVET_FLEET_POOL_H
#define GPUVET_FLEET_POOL_H

#include <stdbool.h>

#include "fleet/fleet.h"

/* The pooled copy of text; *added (may be NULL) says whether it was new. */
const char *pool_intern(struct fleet_pool *p, const char *text, bool *added);
void pool_free(struct fleet_pool *p);

#endif
