/* Rented GPU offers: loading an offers file (CSV or JSON), currency rates the user gives, the
 * effective price per dense TFLOPS-hour (`gpuvet cost`) and the cost of a planned job on each
 * offer (`gpuvet plan --offers`). No output here: report/cost_text.c and report/cost_json.c. */
#ifndef GPUVET_SIZING_OFFERS_H
#define GPUVET_SIZING_OFFERS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "sizing/interconnect.h"
#include "util/gputable.h"

/* A monthly price covers 30 days x 24 hours. */
#define HOURS_PER_MONTH 720.0
#define OFFER_MAX_FLAGS 8

struct offer {
    int index;       /* its place in the file, from 0 */
    char where[512]; /* FILE:LINE (CSV) or FILE: offers[i] (JSON), for messages */
    char *name, *gpu_query, *currency;
    const struct gpu_spec *gpu;
    char gpu_note[512];
    int count;
    double price_per_hour;
    bool monthly;
    double util;          /* 0 = not given in the offer (a given 0 is refused) */
    bool util_given, tflops_given;
    double quoted_tflops; /* 0 = not given */
    double cpu, ram_gb;   /* 0 = not given */
    /* results */
    double applied_util;
    const char *util_source;
    const char *ranked_currency;  /* the offer's currency, or USD when --fx converts it */
    double fx_to_usd;             /* the --fx rate applied; 0 = none */
    double price_per_hour_ranked; /* price per hour in ranked_currency */
    double per_dense_tflops_hour; /* in ranked_currency; 0 when the GPU has no dense figure at the precision */
    double per_gpu_memory_gb_hour;
    double hours, cost;
    /* plan --offers, llm-infer: the estimated output tokens/s of one node and what a million of them
     * cost in ranked_currency; 0 = unknown */
    double output_tokens_s, cost_per_million_tokens;
    bool per_token;               /* ranked by cost per million output tokens (llm-infer) */
    bool per_rate;                /* ranked by what serving --rate costs an hour (llm-infer --rate) */
    /* plan --offers: how the offer's GPUs talk to each other; llm-train: the job's hours are the
     * longer of compute (peak dense BF16 x utilisation) and the in-node ZeRO collectives */
    struct interconnect ic;
    int tensor_parallel;          /* llm-infer: the split of the estimate; 0 = none */
    double compute_hours, comm_hours; /* llm-train; comm_hours < 0: unknown, 0: none or not counted */
    const char *comm_not_counted; /* why the collectives are not in the hours, NULL when they are */
    /* plan --offers --rate: offers (nodes) needed to serve the rate, what they cost an hour and per
     * million output tokens at that rate; 0 = unknown */
    long offers_needed;
    double rate_cost_per_hour, rate_cost_per_million, rate_headroom;
    char *flags[OFFER_MAX_FLAGS]; /* what the reader should know about this offer (malloc'd) */
    int nflags;
    /* plan --offers */
    bool fits;
    char *why_not; /* why the job does not fit this offer (malloc'd), NULL when it fits */
};

struct offers {
    struct offer *items;
    int count;
};

/* --fx CUR=RATE: US dollars per unit of CUR, as the user gives them (gpuvet knows no rates). */
struct fx_rates {
    char currency[16][8];
    double usd[16];
    int count;
};

/* What --fx takes, for error messages. */
/* What --fx takes, for option_invalid (a msgid). */
extern const char fx_hint[];
/* Adds "CUR=RATE" (a positive rate); false when malformed or when 16 are given. */
bool fx_add(struct fx_rates *fx, const char *arg);

/* Loads an offers file: JSON when the name ends in .json, else CSV. Errors name the file and the
 * line or element: "FILE:LINE: what". 0, or -1 with err set (out holds what was read: free it). */
int offers_load(const char *path, const struct gpu_table *table, struct offers *out, char *err, size_t errlen);
void offers_free(struct offers *offers);

/* `gpuvet cost`: the price per dense TFLOPS-hour of each offer at prec, utilisation from the
 * offer, else cli_util (> 0), else peak; the hours and cost of job_flops (0: none); then sorted
 * by ranked currency, then price (offers without a dense figure last in their currency). */
void offers_rank_by_tflops(struct offers *offers, enum precision prec, double cli_util, double job_flops,
                           const struct fx_rates *fx);

/* True when an offer ranked in ranked_currency was converted with --fx. */
bool offers_fx_converted_any(const struct offers *offers, const char *ranked_currency);

/* ---- plan --offers --------------------------------------------------------------------------- */

/* What a plan says of one offer's GPUs (the callback fills it). */
struct offer_plan {
    bool fits;
    bool fit_unknown;              /* fits counts only what the plan knows (--params: no activations) */
    char why_not[512];             /* why it does not fit, when it does not */
    double cpu_cores_per_node;     /* the plan's requirement; 0 = none */
    double host_ram_bytes_per_node;
    double images_s_per_gpu;       /* cv-train: the rate the plan assumes */
    double output_tokens_s;        /* llm-infer: the plan's estimated output tokens/s per node (plan.throughput) */
    char throughput_why[256];      /* llm-infer: why that estimate is unknown */
    int tensor_parallel;           /* llm-infer: the estimate's tensor parallelism (plan.throughput); 0 unknown */
    /* llm-train: what the in-node collectives depend on; zero_stage -1 = not a ZeRO plan (fine-tuning) */
    int zero_stage, seq, micro_batch;
    bool offload; /* ZeRO offload: its host traffic is not counted */
    double params; /* all parameters (every expert of a MoE is gathered) */
    /* llm-infer --rate: plan.rate; rate_nodes 0 = unknown (rate_why says why) */
    long rate_nodes;
    double rate_headroom, rate_tokens_s_needed;
    char rate_why[256];
};
/* Plans the job on count x gpu per node; 0, or an error status (the error is already printed). */
typedef int (*offer_plan_fn)(void *ctx, const struct gpu_spec *gpu, int count, struct offer_plan *out);

/* Reads what offers_rank_for_plan needs from a plan document (docs/plan-cost.md: gpu_memory,
 * tensor_parallel, the advice step, requirements, pipeline). */
void offer_plan_from_doc(json_t *plan, struct offer_plan *out);

/* The job whose cost each offer is ranked by. */
struct offer_job {
    int nodes;          /* each offer is one node: nodes x its price */
    double tokens;      /* llm-train: tokens trained on (0 = not given) */
    double flops;       /* llm-train: FLOPs of the run (0 = not given) */
    const char *flops_method; /* how flops was counted */
    double images;      /* cv-train: images to process (0 = not given) */
    bool inference;     /* llm-infer: ranked by the estimated cost per million output tokens; tokens are
                         * the output tokens to generate (0 = not given) */
    double cli_util;    /* --util for offers without a util field; 0 = peak */
    double rate;        /* llm-infer --rate: requests/s to serve (0 = not given): ranked by what serving it costs */
};

/* Training FLOPs of tokens over a model of active_params (what one token passes through), the FLOPs
 * the GPUs run (hardware FLOPs, not PaLM's model FLOPs: Chowdhery et al. 2022, appendix B): 6·P·T,
 * forward 2·P·T and backward 4·P·T (Kaplan et al. 2020, "Scaling Laws for Neural Language
 * Models", §2.1); with frozen weights (LoRA, QLoRA) the backward pass computes the activations'
 * gradients (2·P·T) but not the frozen weights' (2·P·T), so 4·P·T. Full recompute (gradient
 * checkpointing) runs each layer's forward again in the backward pass: + 2·P·T (Korthikanti et al.
 * 2022, "Reducing Activation Recomputation in Large Transformer Models", §5: a third more for a
 * full model); selective recompute re-runs only attention's softmax and dropout, not the matmuls
 * counted here. full_recompute is the plan's own choice (plan_recompute). *method says which. */
double offer_training_flops(double active_params, double tokens, bool frozen_weights, bool full_recompute,
                            const char **method);
/* Passes over the weights per trained token, each 2 x active parameters FLOPs: forward 1, backward
 * 2 (1 with frozen weights: no weight gradients), + 1 with full recompute. offer_training_flops and
 * plan --check's compute stage (balance.c) both count by it. */
int training_passes(bool frozen_weights, bool full_recompute);

/* How plan --offers ranked: by the job's cost when its size is known, llm-infer with --rate by what
 * serving the rate costs an hour (the offers it needs x price per hour), llm-infer by the estimated
 * cost per million output tokens without a size (the same order as the job's cost), else by price
 * per hour. */
enum offer_basis { OFFER_BASIS_JOB_COST, OFFER_BASIS_PRICE_PER_HOUR, OFFER_BASIS_PER_MILLION_TOKENS, OFFER_BASIS_RATE };

/* Plans the job on every offer (plan fills fits, why_not and the requirements; an offer's cpu and
 * ram_gb, when given, are held against them), prices the job on the offers that fit (hours from
 * FLOPs over dense BF16 TFLOPS x utilisation, or the in-node ZeRO collectives when they take
 * longer; images over the plan's images/s; llm-infer's output tokens over the plan's estimated
 * tokens/s, and a million of them; with --rate the offers the rate needs), and sorts: the offers
 * that fit first, by ranked currency, then cost per job (or of the rate, or price per hour); those
 * that do not fit last. Returns 0, or the callback's error status. *fitting gets the count that fit. */
int offers_rank_for_plan(struct offers *offers, const struct offer_job *job, const struct fx_rates *fx,
                         offer_plan_fn plan, void *ctx, enum offer_basis *basis, int *fitting);

#endif
