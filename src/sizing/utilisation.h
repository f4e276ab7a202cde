/* Measured GPU utilisation for `gpuvet cost --util-from`: the mean SM utilisation of an
 * `nvidia-smi dmon -s u` log, a long sample of the real job (an hour is typical), of which it takes
 * the mean. */
#ifndef GPUVET_SIZING_UTILISATION_H
#define GPUVET_SIZING_UTILISATION_H

#include <stddef.h>

/* Mean of the "sm" column over every sample and GPU, as a fraction in [0, 1]; samples shown as
 * "-" (not supported) are skipped. *samples gets their count. A file without a dmon header that
 * has an sm column, or a malformed sample line, is an error "FILE:LINE: what". 0 or -1. */
int dmon_mean_sm_utilisation(const char *path, double *mean, int *samples, char *err, size_t errlen);

#endif
