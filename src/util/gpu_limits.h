/* How many GPUs gpuvet takes in one node: one number for every reader (NVML, nvidia-smi files, a
 * saved audit, `bench gpu`, `--expect-gpus`, the count in a GPU spec such as plan's "8xH100"). */
#ifndef GPUVET_UTIL_GPU_LIMITS_H
#define GPUVET_UTIL_GPU_LIMITS_H

/* More GPUs than any one node holds (HGX boards carry 8, the largest nodes 16): NVML counts and
 * nvidia-smi files beyond it are capped, with a message; a GPU spec's per-node count beyond it is
 * refused. GPUs across nodes are counted by --nodes, not here. */
#define GPU_MAX_PER_NODE 64

#endif
