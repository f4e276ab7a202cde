/* The balance model: a training job runs at the rate of its slowest pipeline stage (storage read,
 * CPU decode, host memory, PCIe, GPU compute, network). Each stage's capacity is given in the job's
 * unit (images/s for cv-train, tokens/s for llm-train) per node, from a measurement (`gpuvet bench`
 * documents) where there is one, else from the machine model with the estimate labelled as one.
 * The formulas are in docs/plan-cost.md ("Balance"). */
#ifndef GPUVET_SIZING_BALANCE_H
#define GPUVET_SIZING_BALANCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/bench.h"
#include "rules/workload.h"
#include "util/gputable.h"

struct machine;

/* One training sample's tensor as torchvision's ImageNet reference ships it to the GPU: 3 x 224 x
 * 224 float32 (ToTensor + Normalize run in the loader workers). */
#define BALANCE_CV_SAMPLE_BYTES (3.0 * 224 * 224 * 4)
/* Host memory traffic per sample: the file twice (page cache, then the worker's read buffer) and the
 * sample tensor six times (written by the transform, read and written by collate into shared
 * memory, read and written by the pin-memory thread, read by the DMA to the GPU). */
#define BALANCE_FILE_PASSES 2
#define BALANCE_TENSOR_PASSES 6
/* llm-train: the input ids and the labels, int64 each, per token. */
#define BALANCE_LLM_TENSOR_BYTES_PER_TOKEN 16.0
/* STREAM triad reaches 70-85 % of the populated DIMMs' theoretical bandwidth (the low end). */
#define BALANCE_STREAM_SHARE_OF_THEORETICAL 0.70
/* Interface ceilings of a disk without a bench: SATA III 6 Gb/s and SAS-3 12 Gb/s after 8b/10b. */
#define BALANCE_SATA_BYTES_S 600e6
#define BALANCE_SAS_BYTES_S 1200e6
/* ResNet-50 v1.5 (torchvision: 25,557,032 parameters): DDP all-reduces fp32 gradients, and the
 * table's measured rates are NVIDIA DeepLearningExamples' runs at 256 images per GPU per step. */
#define BALANCE_RESNET50_PARAMS 25557032.0
#define BALANCE_CV_IMAGES_PER_GPU_STEP 256
/* llm-train without a measured rate: 40 % of dense BF16 peak (Meta's Llama 3 pre-training reached
 * 38-43 % on H100, "The Llama 3 Herd of Models", 2024, Table 4). */
#define BALANCE_LLM_UTILISATION 0.40
/* DeepSpeedCPUAdam per parameter and step in host memory: reads fp32 weight, momentum, variance,
 * gradient (16 B), writes the three and the fp16 weight (14 B). */
#define BALANCE_CPU_ADAM_BYTES_PER_PARAM 30.0
#define BALANCE_MAX_STAGES 6
#define BALANCE_MAX_BENCH 8

/* measured: a bench document of this machine; published: a vendor's measured figure for the GPU
 * (the GPU table); given: the user's option; estimated: derived, and says from what. */
enum balance_basis { BASIS_MEASURED, BASIS_PUBLISHED, BASIS_GIVEN, BASIS_ESTIMATED, BASIS_UNKNOWN, BASIS_NOT_USED };
const char *balance_basis_name(enum balance_basis b);

struct balance_stage {
    const char *name;          /* storage, cpu_decode, host_memory, pcie, gpu_compute, network */
    double capacity;           /* per node, in the job's unit; meaningful for measured/estimated */
    enum balance_basis basis;
    char source[320];          /* what the number rests on (a file, the table, the machine) */
    char formula[512];         /* the arithmetic, with its numbers */
};

/* What the job asks, read from the plan document (plan.pipeline, plan.model, plan.zero, ...). */
struct balance_job {
    enum workload workload;    /* WL_CV_TRAIN or WL_LLM_TRAIN */
    const struct gpu_spec *gpu;
    int gpus_per_node, nodes;
    /* cv-train */
    double images_s_per_gpu, decode_per_core, image_bytes;
    char images_s_source[256], decode_source[256];
    /* llm-train */
    double params, active_params, adapter_params; /* adapter_params > 0: LoRA/QLoRA */
    int layers, attention_width, vocab, seq, micro_batch, zero_stage;
    bool full_recompute, offload_optimizer, offload_params;
};

/* Measurements from saved `gpuvet bench --json` documents; 0 = not measured. */
struct balance_measured {
    double triad_bytes_s, seq_read_bytes_s, rand_read_iops, decode_per_core;
    char triad_file[256], storage_file[256], storage_where[256], decode_file[256], pcie_file[256];
    struct bench_gpu_copy pcie[64];
    int npcie;
};

struct balance {
    enum workload workload;
    const char *unit;          /* "images/s" or "tokens/s" */
    struct balance_stage stages[BALANCE_MAX_STAGES];
    int nstages;
    int bottleneck;            /* index of the slowest known stage; -1 none known */
    int gpus_per_node, nodes;
    int gpus_without_loss;     /* fewest GPUs per node that keep the same rate; 0 unknown */
    char advice[512];
};

/* Reads the job from a plan document built for gpu. 0, or -1 with err (not cv-train/llm-train). */
int balance_job_from_plan(json_t *plan, const struct gpu_spec *gpu, struct balance_job *job, char *err,
                          size_t errlen);
/* Loads and merges bench documents (a later file's measurement replaces an earlier one's). 0, or -1
 * with err naming the file. */
int balance_measured_load(struct balance_measured *out, const char *const *paths, int npaths, char *err,
                          size_t errlen);
/* The stages of job on machine m (NULL: machine facts unknown, with why_no_machine as reason). */
struct plan;
/* The balance of plan p's job (its measurements p->measured) on machine m (NULL: only the bench
 * files count, why_no_machine says why). 0, or -1 when the plan is not one the balance models. */
int plan_balance(const struct plan *p, const struct machine *m, const char *why_no_machine, struct balance *b);
void balance_compute(const struct balance_job *job, const struct machine *m, const char *why_no_machine,
                     const struct balance_measured *measured, struct balance *out);

/* 2900.4 -> "2,900": the rates as people read them. */
void balance_format_count(double v, char *buf, size_t len);

#endif
