/* Slurm-style host ranges: gpu01..gpu07 and gpu09 become "gpu[01-07,09]", as `scontrol show
 * hostlist` writes them, so a fleet report can be pasted into srun -w, clush -w or pdsh -w. */
#ifndef GPUVET_UTIL_HOSTLIST_H
#define GPUVET_UTIL_HOSTLIST_H

#include <stddef.h>

/* The n names (any order, duplicates dropped) as one comma-separated hostlist, sorted by prefix
 * and number. Only a trailing number is ranged. Zero padding is kept: a range holds numbers of one
 * printed width, and a number without leading zeros may join a wider one ("9-10") as Slurm reads
 * it back. The caller frees the string; "" for n == 0. */
char *hostlist_compress(const char *const *names, size_t n);

#endif
