/* Many machines at once: `gpuvet fleet` and `gpuvet compare`. Each gpuvet.audit/1 or
 * gpuvet.bench/1 document is read once and reduced to its node's configuration signature (a few
 * interned strings), a few bench figures and its problem findings; the document itself is not
 * kept, so memory grows with the number of nodes and distinct values, not with document size. */
#ifndef GPUVET_FLEET_FLEET_H
#define GPUVET_FLEET_FLEET_H

#include <stdbool.h>
#include <stddef.h>

/* The configuration a node is compared on, each a string from the audit document ("unknown"
 * where the audit could not see it). */
enum fleet_field {
    FF_CPU_MODEL,
    FF_CPU_COUNT,
    FF_MEMORY_CHANNELS,
    FF_DIMMS,          /* list: one item per installed DIMM */
    FF_ACCELERATORS,
    FF_LINKS,          /* list: one item per accelerator */
    FF_DRIVER,
    FF_CUDA,
    FF_KERNEL,
    FF_THP,
    FF_NUMA_BALANCING,
    FF_GOVERNOR,
    FF_SWAP,
    FF_VIRTUALIZATION,
    FLEET_NFIELDS
};

/* Bench figures where lower is worse. */
enum fleet_metric {
    FM_MEMORY_TRIAD,
    FM_PCIE_H2D,
    FM_PCIE_D2H,
    FM_STORAGE_SEQ_READ,
    FM_STORAGE_RAND_READ,
    FM_DECODE,
    FM_GPU_ALLREDUCE, /* bench gpu's NCCL all-reduce bus bandwidth */
    FLEET_NMETRICS
};

struct fleet_field_info {
    const char *key;   /* JSON key, "cpu.model" */
    const char *label; /* for people, "CPU" */
    bool list;         /* items separated by '\n' */
};
extern const struct fleet_field_info fleet_fields[FLEET_NFIELDS];

struct fleet_metric_info {
    const char *key;   /* JSON key, "memory_triad_bytes_s" */
    const char *label; /* "memory triad" */
    const char *unit;  /* "GB/s", "IOPS", "images/s" */
    double scale;      /* value / scale in unit */
};
extern const struct fleet_metric_info fleet_metrics[FLEET_NMETRICS];

/* Strings kept once however many nodes share them; each carries a scratch counter. */
struct fleet_pool {
    struct fleet_pool_entry **slots;
    size_t nslots, count;
};

struct fleet_node {
    const char *host;                    /* interned */
    char *audit_file, *bench_file;       /* NULL when no such document was read */
    const char *class_key;               /* CPU model and accelerator models; NULL without audit */
    const char *field[FLEET_NFIELDS];    /* interned; NULL without audit */
    double metric[FLEET_NMETRICS];       /* NAN when not measured */
    const char **findings;               /* interned "fail RULE_ID subject" (warn and fail only) */
    int nfindings;
    const char **findings_sorted;        /* the same, sorted (strcmp): fleet_node_has_finding */
    char *disagreeing_file;              /* an older audit of this host that a directory's walk left
                                            out, whose FAILs differ from the one added; NULL none */
    const char *disagreeing_fail;        /* interned: the first FAIL one of the two has and the
                                            other lacks */
};

struct fleet {
    struct fleet_node *nodes;
    size_t count, capacity;
    struct fleet_pool hosts;  /* host name -> node index (the entry's counter) */
    struct fleet_pool values;
    size_t audits, benches;
    char **notes;             /* what a directory's walk skipped or left out, one sentence each */
    int nnotes;
};

void fleet_init(struct fleet *f);
void fleet_free(struct fleet *f);

/* Adds one document (audit or bench, told by its "schema"), or every *.json file of a directory:
 * there, a JSON document that is neither is skipped, and of several documents of one host and
 * kind only the newest (its generated_at, else the file's modification time) is added; each
 * skipped or older file gets a sentence in f->notes. 0, or -1 with a message naming the file in
 * `why`. */
int fleet_add_path(struct fleet *f, const char *path, char *why, size_t why_size);

/* Scratch counter of an interned string (0 between uses). */
int *fleet_counter(const char *interned);

/* The items of list value `a` that `b` lacks, joined by '\n' (caller frees); NULL when none. */
char *fleet_items_missing(const char *a, const char *b);

/* How many configuration fields of two nodes differ: against a node without an audit document
 * every field differs; two without one have none to compare. */
/* Whether node n has the finding key (compared as text: the two sides of compare have pools of their
 * own). O(log n): compare of 100,000 findings a side stays linear-logarithmic. */
bool fleet_node_has_finding(const struct fleet_node *n, const char *key);
int fleet_node_differences(const struct fleet_node *a, const struct fleet_node *b);

/* --- analysis: groups, their majority, and the nodes that stand out --- */

struct fleet_difference {
    enum fleet_field field;
    const char *value, *majority;
};

struct fleet_odd_node {
    size_t node;
    struct fleet_difference *differences;
    int ndifferences;
};

struct fleet_low_figure {
    size_t node;
    enum fleet_metric metric;
    double value, median;
};

struct fleet_partial_finding {
    const char *finding; /* "fail RULE_ID subject" */
    size_t *nodes;
    int nnodes;
};

/* A field without a majority: each value and the nodes that hold it. */
struct fleet_value_nodes {
    const char *value;
    size_t *nodes;
    int nnodes;
};

struct fleet_split {
    enum fleet_field field;
    struct fleet_value_nodes *values;
    int nvalues;
};

struct fleet_group {
    const char *class_key;              /* NULL: nodes with a bench document only */
    size_t *nodes;
    int nnodes, naudited;
    const char *majority[FLEET_NFIELDS]; /* NULL when no value is held by more than half */
    struct fleet_odd_node *odd;
    int nodd;
    struct fleet_split *splits;         /* the fields without a majority, where nodes differ */
    int nsplits;
    double median[FLEET_NMETRICS];      /* NAN with fewer than 3 measured nodes */
    int measured[FLEET_NMETRICS];
    struct fleet_low_figure *low;
    int nlow;
    struct fleet_partial_finding *partial;
    int npartial;
};

/* A group's median of a bench figure needs this many measured nodes. */
#define FLEET_MIN_MEDIAN_NODES 3

/* Why a node needs attention: each reason names what the node has that its group lacks. */
enum fleet_reason_kind {
    FR_CONFIGURATION,     /* what: the field key ("nvidia.driver_version") */
    FR_LOW_FIGURE,        /* what: the metric key ("memory_triad_bytes_s") */
    FR_FAIL_OTHERS_LACK,  /* what: the finding, "fail RULE_ID subject" */
    FR_DOCUMENTS_DISAGREE /* what: the finding one document of the host has and the other lacks */
};

struct fleet_reason {
    enum fleet_reason_kind kind;
    const char *what;
    int index; /* the enum fleet_field or enum fleet_metric of the first two kinds */
};

struct fleet_attention {
    size_t node;
    struct fleet_reason *reasons;
    int nreasons;
};

struct fleet_analysis {
    struct fleet_group *groups;
    int ngroups;
    double tolerance;
    struct fleet_attention *attention; /* every node that needs attention, in node order */
    int nattention;
};

/* The JSON word of a reason: "configuration", "low_figure", "fail_others_lack",
 * "documents_disagree". */
const char *fleet_reason_name(enum fleet_reason_kind kind);

/* Groups the nodes by class (CPU model and accelerator models), largest group first, and finds
 * in each: fields where a node differs from the majority (or no value has a majority), figures more than `tolerance` (0.05)
 * below the median, and problem findings present on some nodes but not all. */
void fleet_analyse(struct fleet *f, double tolerance, struct fleet_analysis *out);
void fleet_analysis_free(struct fleet_analysis *a);

/* Every node that needs attention (a field against its group's majority, a low figure, a FAIL
 * others of its group lack, two documents of it that disagree on a FAIL), as one hostlist ("" when
 * none; caller frees). */
char *fleet_odd_hostlist(const struct fleet *f, const struct fleet_analysis *a);

/* The hostlist of the given nodes (caller frees). A node whose name is not a plain host name
 * (util/sanitize.h: hostname_is_plain) is never put in a hostlist: see fleet_unplain_hosts. */
char *fleet_hostlist(const struct fleet *f, const size_t *nodes, size_t n);
/* The host names no hostlist holds, in node order: *names (borrowed strings, the array malloc'd;
 * the caller frees it), their count returned. */
size_t fleet_unplain_hosts(const struct fleet *f, const char ***names);
/* Those names quoted and joined by ", " (caller frees), NULL when there are none. */
char *fleet_unplain_line(const struct fleet *f);
/* How many nodes have a fail finding: a FAIL is a fault however many nodes share it. */
size_t fleet_failing_nodes(const struct fleet *f);

#endif
