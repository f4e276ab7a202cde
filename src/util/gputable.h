/* The GPU table (data/gpus.csv): vendor peak figures with dense and sparse tensor throughput kept
 * apart, and name resolution from canonical ids, short forms and nvidia-smi product names. */
#ifndef GPUVET_UTIL_GPUTABLE_H
#define GPUVET_UTIL_GPUTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/gpu_limits.h" /* GPU_MAX_PER_NODE: the count of a GPU spec */

enum precision { PREC_FP64, PREC_FP32, PREC_TF32, PREC_FP16, PREC_BF16, PREC_FP8, PREC_INT8, PRECISION_COUNT };

const char *precision_name(enum precision p);
bool precision_parse(const char *name, enum precision *out);

struct gpu_spec {
    char *id;            /* canonical id, "a100-sxm4-80gb" */
    char **aliases;      /* nvidia-smi / rocm-smi product names */
    int naliases;
    char *name, *variant, *vendor, *arch, *memory_type, *scaleup_link, *ecc, *confidence, *notes, *source;
    double memory_gb;    /* decimal GB as the vendor quotes it (the name's "80GB"; the whole package) */
    /* Memory of one device as the driver reports it (nvidia-smi's, rocm-smi's MiB), with where that
     * figure was read; 0 and "" when no such figure is recorded (gpu_memory_bytes falls back). */
    double memory_mib;
    char *memory_mib_source;
    int devices; /* devices the package shows to software (an MI250X: 2 GCDs); 1 for most */
    double mem_bw_gbs;
    double pcie_gen, pcie_lanes, scaleup_gbs_bidir, tdp_w;
    /* TFLOPS (TOPS for int8) per precision; 0 = the GPU has no such mode or the vendor lists none.
     * fp64 is the FP64 tensor (matrix) rate where there is one, else the vector rate; fp32 is the
     * vector rate; the others are tensor-core rates. */
    double dense[PRECISION_COUNT];
    double sparse[PRECISION_COUNT]; /* 2:4 structured-sparsity figures; 0 when none */
    double resnet50_img_s;          /* measured ResNet-50 training images/s per GPU; 0 unknown */
    char *resnet50_source;
    /* Where none was measured and the GPU has 16-bit tensor cores: the reference GPU's measured
     * rate scaled by the lesser of the FP16 dense TFLOPS and memory bandwidth ratios. Labelled an
     * estimate wherever it is shown; the audit judges by measured rates only. 0 = none. */
    double resnet50_estimate_img_s;
    char resnet50_estimate_source[256];
};

/* Memory of one device in bytes as software sees it: the driver's MiB where recorded, else the
 * vendor's decimal GB over the devices (a lower bound: "80 GB" cards carry 80 GiB or more). */
double gpu_memory_bytes(const struct gpu_spec *g);
/* Where gpu_memory_bytes comes from (the memory_mib_source, or that it is the vendor's GB). */
const char *gpu_memory_source(const struct gpu_spec *g);

/* The measured rate, else the estimate; *source says which. 0 when the GPU has neither. */
double gpu_resnet50_rate(const struct gpu_spec *g, const char **source);

struct gpu_table {
    char *path;
    struct gpu_spec *gpus;
    int count;
};

/* The NVLinks an NVIDIA part has by design, from its scale-up link and bandwidth in the table (one
 * figure, one place): 6 for V100 SXM2, 12 for A100 SXM4, 18 for H100/H200/B200; for a bridged card
 * the links it has with every bridge fitted (12 for H100 NVL, H100 PCIe and A100 PCIe, 8 for the
 * export PCIe parts); 0 for a part without NVLink; -1 for superchips, whose links depend on the
 * system, and where the table does not say. */
int gpu_spec_nvlinks(const struct gpu_spec *g);
/* The part's NVLinks run over bridges fitted on the cards (nvidia-smi lists them down without). */
bool gpu_spec_nvlink_bridged(const struct gpu_spec *g);

/* Loads a GPU table; a malformed row gives "FILE:LINE: what is wrong" in err. 0 or -1. */
int gpu_table_load(const char *path, struct gpu_table *t, char *err, size_t errlen);
/* Loads data/gpus.csv (util/datadir.h says where it is found). */
int gpu_table_load_default(struct gpu_table *t, char *err, size_t errlen);
/* Loads the open table f (named label, closed here) only to check it: data_tables_check's checker. */
int gpu_table_check(FILE *f, const char *label, char *err, size_t errlen);
void gpu_table_free(struct gpu_table *t);

/* Resolves a user's GPU name, case-insensitively and ignoring spaces, dashes and the brand words
 * (NVIDIA, Tesla, GeForce, Quadro, RTX, AMD, Instinct): a canonical id, an nvidia-smi or rocm-smi
 * product name, or a short form: the GPU's name ("4090", "H100"), with its form factor ("H100 SXM",
 * "A100 SXM4", "A100 PCIe") and/or memory ("A100-80GB"). A short form that names several parts
 * picks the same way for every family: the socketed part (SXM, OAM) over the cards, then the most
 * memory; *note names the pick and the others. NULL when not found; err then lists the closest. */
const struct gpu_spec *gpu_lookup(const struct gpu_table *t, const char *name, char *note, size_t notelen,
                                  char *err, size_t errlen);
/* A GPU with a count, as offers write it: "8xH100", "8 x H100", "8*H100", "H100*8", "H100 x 8";
 * a bare name is one GPU, and the count is per node. Returns the GPU (NULL with err) and the count in
 * *count (1 to GPU_MAX_PER_NODE). */
const struct gpu_spec *gpu_lookup_counted(const struct gpu_table *t, const char *spec, int *count, char *note,
                                          size_t notelen, char *err, size_t errlen);

#endif
