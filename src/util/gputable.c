#include "util/gputable.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/csv.h"
#include "util/datadir.h"
#include "util/i18n.h"
#include "util/suggest.h"
#include "util/units.h"

static const char *const precision_names[PRECISION_COUNT] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};

const char *precision_name(enum precision p) { return precision_names[p]; }

bool precision_parse(const char *name, enum precision *out)
{
    for (int p = 0; p < PRECISION_COUNT; p++)
        if (!strcasecmp(name, precision_names[p])) {
            *out = (enum precision)p;
            return true;
        }
    return false;
}

/* Column names in data/gpus.csv for each precision's dense and sparse figures. */
static const char *const dense_columns[PRECISION_COUNT] = {
    "fp64_tensor_tflops", "fp32_tflops", "tf32_tensor_dense", "fp16_tensor_dense",
    "bf16_tensor_dense",  "fp8_tensor_dense", "int8_tops_dense"};
static const char *const sparse_columns[PRECISION_COUNT] = {
    NULL, NULL, "tf32_tensor_sparse", "fp16_tensor_sparse", "bf16_tensor_sparse", "fp8_tensor_sparse",
    "int8_tops_sparse"};

static char *field_dup(const struct csv_table *csv, const struct csv_row *row, const char *column)
{
    int c = csv_column(csv, column);
    return strdup(c >= 0 ? row->fields[c] : "");
}

static void split_aliases(struct gpu_spec *g, const char *text)
{
    char *copy = strdup(text), *save = NULL;
    for (char *tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        g->aliases = realloc(g->aliases, sizeof *g->aliases * (size_t)(g->naliases + 1));
        g->aliases[g->naliases++] = strdup(tok);
    }
    free(copy);
}

static void gpu_spec_free(struct gpu_spec *g)
{
    for (int i = 0; i < g->naliases; i++)
        free(g->aliases[i]);
    free(g->aliases);
    char **strings[] = {&g->id,   &g->name,         &g->variant, &g->vendor,     &g->arch,  &g->memory_type,
                        &g->ecc,  &g->scaleup_link, &g->notes,   &g->confidence, &g->source, &g->resnet50_source,
                        &g->memory_mib_source};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        free(*strings[i]);
}

static int parse_row(const struct csv_table *csv, const struct csv_row *row, struct gpu_spec *g, char *err,
                     size_t errlen)
{
    struct {
        const char *column;
        double *out;
        bool required;
    } numbers[] = {
        {"memory_gb", &g->memory_gb, true},   {"mem_bw_gbs", &g->mem_bw_gbs, true},
        {"pcie_gen", &g->pcie_gen, false},    {"pcie_lanes", &g->pcie_lanes, false},
        {"scaleup_gbs_bidir", &g->scaleup_gbs_bidir, false}, {"tdp_w", &g->tdp_w, false},
        {"resnet50_img_s", &g->resnet50_img_s, false}, {"memory_mib", &g->memory_mib, false},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        if (csv_number(csv, row, csv_column(csv, numbers[i].column), numbers[i].required, numbers[i].out, err,
                       errlen) != 0)
            return -1;
    for (int p = 0; p < PRECISION_COUNT; p++) {
        if (csv_number(csv, row, csv_column(csv, dense_columns[p]), false, &g->dense[p], err, errlen) != 0)
            return -1;
        if (sparse_columns[p] &&
            csv_number(csv, row, csv_column(csv, sparse_columns[p]), false, &g->sparse[p], err, errlen) != 0)
            return -1;
    }
    /* GPUs without FP64 tensor cores: the vector rate is what FP64 code gets. */
    if (g->dense[PREC_FP64] == 0 &&
        csv_number(csv, row, csv_column(csv, "fp64_tflops"), false, &g->dense[PREC_FP64], err, errlen) != 0)
        return -1;
    if (g->memory_gb <= 0) {
        snprintf(err, errlen, "%s:%d: memory_gb must be positive", csv->path, row->line);
        return -1;
    }
    double devices = 0;
    if (csv_number(csv, row, csv_column(csv, "devices"), false, &devices, err, errlen) != 0)
        return -1;
    if (devices != 0 && (devices < 1 || devices > 16 || devices != floor(devices))) {
        snprintf(err, errlen, "%s:%d: devices must be a whole number from 1 to 16", csv->path, row->line);
        return -1;
    }
    g->devices = devices > 0 ? (int)devices : 1;
    /* The driver's figure is per device and never far from the vendor's: a MiB column holding GB, or
     * a whole package's memory, is a mistake in the table. */
    double vendor = g->memory_gb * GB / g->devices, mib = g->memory_mib * MIB;
    if (g->memory_mib != 0 && (g->memory_mib < 0 || mib < 0.9 * vendor || mib > 1.2 * vendor)) {
        snprintf(err, errlen, "%s:%d: memory_mib %g is not within 0.9-1.2x of memory_gb %g / %d device(s)", csv->path,
                 row->line, g->memory_mib, g->memory_gb, g->devices);
        return -1;
    }
    if (g->memory_mib > 0 && !*g->memory_mib_source) {
        snprintf(err, errlen, "%s:%d: memory_mib needs a memory_mib_source", csv->path, row->line);
        return -1;
    }
    return 0;
}

double gpu_memory_bytes(const struct gpu_spec *g)
{
    return g->memory_mib > 0 ? g->memory_mib * MIB : g->memory_gb * GB / (g->devices > 0 ? g->devices : 1);
}

const char *gpu_memory_source(const struct gpu_spec *g)
{
    return g->memory_mib > 0 ? g->memory_mib_source
                             : N_("the vendor's decimal GB: no driver-reported figure recorded (a lower bound)");
}

/* The reference for estimates: the A100 SXM4 80GB's 2,470 img/s (NVIDIA DeepLearningExamples). */
#define RESNET50_REFERENCE_ID "a100-sxm4-80gb"

/* ResNet-50 training is limited by tensor throughput in its convolutions and by memory bandwidth
 * in batch norm and the element-wise layers: scale the reference by the lesser of the two ratios,
 * so the estimate never credits a GPU with more than either resource allows. */
static void estimate_resnet50(struct gpu_table *t)
{
    const struct gpu_spec *ref = NULL;
    for (int i = 0; i < t->count; i++)
        if (!strcasecmp(t->gpus[i].id, RESNET50_REFERENCE_ID))
            ref = &t->gpus[i];
    if (!ref || ref->resnet50_img_s <= 0 || ref->dense[PREC_FP16] <= 0 || ref->mem_bw_gbs <= 0)
        return;
    for (int i = 0; i < t->count; i++) {
        struct gpu_spec *g = &t->gpus[i];
        if (g->resnet50_img_s > 0 || g->dense[PREC_FP16] <= 0 || g->mem_bw_gbs <= 0)
            continue;
        double compute = g->dense[PREC_FP16] / ref->dense[PREC_FP16], memory = g->mem_bw_gbs / ref->mem_bw_gbs;
        bool by_compute = compute < memory;
        g->resnet50_estimate_img_s = round(ref->resnet50_img_s * (by_compute ? compute : memory));
        snprintf(g->resnet50_estimate_source, sizeof g->resnet50_estimate_source,
                 "estimate, not measured: %s's measured %.0f img/s x %.2f, the ratio of %s (the lesser of FP16 "
                 "dense TFLOPS and memory bandwidth)",
                 ref->id, ref->resnet50_img_s, by_compute ? compute : memory,
                 by_compute ? "FP16 dense TFLOPS" : "memory bandwidth");
    }
}

/* From path, or (f not NULL) from the open stream f that path names. */
static int load_table(FILE *f, const char *path, struct gpu_table *t, char *err, size_t errlen)
{
    *t = (struct gpu_table){.path = strdup(path)};
    struct csv_table csv;
    if ((f ? csv_load_stream(f, path, &csv, err, errlen) : csv_load(path, &csv, err, errlen)) != 0) {
        csv_free(&csv);
        return -1;
    }
    static const char *const required[] = {"id", "gpu", "variant", "memory_gb", "mem_bw_gbs", "source"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (csv_column(&csv, required[i]) < 0) {
            snprintf(err, errlen, "%s:1: no '%s' column in the header", path, required[i]);
            csv_free(&csv);
            return -1;
        }
    int rc = 0;
    t->gpus = calloc((size_t)csv.nrows + 1, sizeof *t->gpus);
    for (int r = 0; r < csv.nrows && rc == 0; r++) {
        const struct csv_row *row = &csv.rows[r];
        struct gpu_spec *g = &t->gpus[t->count++];
        g->id = field_dup(&csv, row, "id");
        g->name = field_dup(&csv, row, "gpu");
        g->variant = field_dup(&csv, row, "variant");
        g->vendor = field_dup(&csv, row, "vendor");
        g->arch = field_dup(&csv, row, "arch");
        g->memory_type = field_dup(&csv, row, "memory_type");
        g->ecc = field_dup(&csv, row, "ecc");
        g->scaleup_link = field_dup(&csv, row, "scaleup_link");
        g->notes = field_dup(&csv, row, "notes");
        g->confidence = field_dup(&csv, row, "confidence");
        g->source = field_dup(&csv, row, "source");
        g->resnet50_source = field_dup(&csv, row, "resnet50_source");
        g->memory_mib_source = field_dup(&csv, row, "memory_mib_source");
        int alias_col = csv_column(&csv, "aliases");
        if (alias_col >= 0)
            split_aliases(g, row->fields[alias_col]);
        if (!*g->id || !*g->source) {
            snprintf(err, errlen, "%s:%d: %s is empty (every row needs an id and a source)", path, row->line,
                     *g->id ? "source" : "id");
            rc = -1;
        } else {
            rc = parse_row(&csv, row, g, err, errlen);
        }
        for (int k = 0; k < t->count - 1 && rc == 0; k++)
            if (!strcasecmp(t->gpus[k].id, g->id)) {
                snprintf(err, errlen, "%s:%d: id '%s' appears twice", path, row->line, g->id);
                rc = -1;
            }
    }
    if (rc == 0 && t->count == 0) {
        snprintf(err, errlen, "%s:2: no GPU rows", path);
        rc = -1;
    }
    if (rc == 0)
        estimate_resnet50(t);
    csv_free(&csv);
    return rc;
}

int gpu_table_load(const char *path, struct gpu_table *t, char *err, size_t errlen)
{
    return load_table(NULL, path, t, err, errlen);
}

int gpu_table_load_default(struct gpu_table *t, char *err, size_t errlen)
{
    char label[PATH_MAX];
    FILE *f = data_open("gpus.csv", label, sizeof label);
    if (!f) {
        *t = (struct gpu_table){.path = strdup(label)};
        snprintf(err, errlen, "%s: %s", label, i18n_error_text(errno));
        return -1;
    }
    return load_table(f, label, t, err, errlen);
}

int gpu_table_check(FILE *f, const char *label, char *err, size_t errlen)
{
    struct gpu_table t;
    int rc = load_table(f, label, &t, err, errlen);
    gpu_table_free(&t);
    return rc;
}

void gpu_table_free(struct gpu_table *t)
{
    for (int i = 0; i < t->count; i++)
        gpu_spec_free(&t->gpus[i]);
    free(t->gpus);
    free(t->path);
    *t = (struct gpu_table){0};
}

/* Lower-case letters and digits only, without the vendor/brand words nvidia-smi puts in front. */
static void normalise(const char *in, char *out, size_t len)
{
    size_t n = 0;
    for (; *in && n + 1 < len; in++)
        if (isalnum((unsigned char)*in))
            out[n++] = (char)tolower((unsigned char)*in);
    out[n] = '\0';
    static const char *const prefixes[] = {"nvidia", "tesla", "geforce", "quadro", "rtx", "amd", "instinct"};
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t pl = strlen(prefixes[i]);
            if (!strncmp(out, prefixes[i], pl) && out[pl]) {
                memmove(out, out + pl, strlen(out + pl) + 1);
                again = true;
            }
        }
    }
}

static bool same_name(const char *a, const char *b)
{
    char na[128], nb[128];
    normalise(a, na, sizeof na);
    normalise(b, nb, sizeof nb);
    return !strcmp(na, nb);
}

/* Short forms: the GPU's name, with its form factor (the variant's first word, "SXM5", or without
 * its generation digit, "SXM") and/or its memory: "H100", "H100 SXM", "A100 PCIe 80GB", "A100-80GB". */
static bool short_form_matches(const struct gpu_spec *g, const char *query)
{
    char kind[32] = "", kind_family[32];
    sscanf(g->variant, "%31[^ ]", kind);
    snprintf(kind_family, sizeof kind_family, "%s", kind);
    for (size_t n = strlen(kind_family); n > 0 && isdigit((unsigned char)kind_family[n - 1]); n--)
        kind_family[n - 1] = '\0';
    const char *kinds[] = {"", kind, kind_family};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (k > 0 && !*kinds[k])
            continue;
        char form[200];
        snprintf(form, sizeof form, "%s %s", g->name, kinds[k]);
        if (same_name(query, form))
            return true;
        snprintf(form, sizeof form, "%s %s %.0fGB", g->name, kinds[k], g->memory_gb);
        if (same_name(query, form))
            return true;
    }
    return false;
}

/* Socketed parts (SXM, OAM, HGX baseboards) are what a short name usually means in a rented server. */
static bool socketed(const struct gpu_spec *g)
{
    return !strncasecmp(g->variant, "SXM", 3) || !strncasecmp(g->variant, "OAM", 3) ||
           !strncasecmp(g->variant, "HGX", 3);
}

int gpu_spec_nvlinks(const struct gpu_spec *g)
{
    /* NVIDIA's NVLink page: NVLink 2, 3 and 4 links carry 50 GB/s both ways together (V100 6 x 50 =
     * 300, A100 12 x 50 = 600, H100 18 x 50 = 900), NVLink 5 links 100 GB/s (B200 18 x 100 = 1800). */
    static const struct {
        const char *link;
        double gbs_per_link;
    } gens[] = {{"NVLink2", 50}, {"NVLink3", 50}, {"NVLink4", 50}, {"NVLink5", 100}};
    if (!g->scaleup_link || !g->variant)
        return -1;
    if (!strncasecmp(g->scaleup_link, "none", 4))
        return 0;
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
        if (!strcmp(g->scaleup_link, gens[i].link)) {
            double n = g->scaleup_gbs_bidir / gens[i].gbs_per_link;
            /* Superchips link what the system around them fits: not a count to judge by. */
            return socketed(g) && n >= 1 && n <= 18 && n == (int)n ? (int)n : -1;
        }
    /* A bridged card ("NVLink4 bridge (2 GPUs)"): the links it has with every bridge fitted, from the
     * same figure (H100 NVL and H100 PCIe 600 GB/s: 12 links, of the 18 nvidia-smi lists; A100 PCIe
     * 600 GB/s: 12, NVIDIA's NVLink page: "up to twelve third-generation NVLink connections"). A
     * figure that is no whole number of links (GA102's 112.5 GB/s runs its links at another rate)
     * is no count. */
    for (size_t i = 0; gpu_spec_nvlink_bridged(g) && i < sizeof gens / sizeof gens[0]; i++)
        if (!strncmp(g->scaleup_link, gens[i].link, strlen(gens[i].link)) && g->scaleup_link[strlen(gens[i].link)] == ' ') {
            double n = g->scaleup_gbs_bidir / gens[i].gbs_per_link;
            return n >= 1 && n <= 18 && n == (int)n ? (int)n : -1;
        }
    return -1; /* another vendor's fabric, or a new generation */
}

bool gpu_spec_nvlink_bridged(const struct gpu_spec *g)
{
    return g->scaleup_link && strstr(g->scaleup_link, "NVLink") && strstr(g->scaleup_link, " bridge");
}

static size_t name_distance(const struct gpu_spec *g, const char *query)
{
    char nq[128], nc[160];
    normalise(query, nq, sizeof nq);
    normalise(g->id, nc, sizeof nc);
    size_t best = edit_distance(nq, nc);
    snprintf(nc, sizeof nc, "%s %.0fGB", g->name, g->memory_gb);
    char nshort[160];
    normalise(nc, nshort, sizeof nshort);
    size_t d = edit_distance(nq, nshort);
    return d < best ? d : best;
}

static void list_closest(const struct gpu_table *t, const char *query, char *err, size_t errlen)
{
    enum { SHOWN = 4 };
    int order[SHOWN];
    size_t dist[SHOWN];
    int n = 0;
    for (int i = 0; i < t->count; i++) {
        size_t d = name_distance(&t->gpus[i], query);
        int pos = n < SHOWN ? n++ : SHOWN;
        while (pos > 0 && dist[pos - 1] > d) {
            if (pos < SHOWN) {
                dist[pos] = dist[pos - 1];
                order[pos] = order[pos - 1];
            }
            pos--;
        }
        if (pos < SHOWN) {
            dist[pos] = d;
            order[pos] = i;
        }
    }
    char closest[SHOWN * 64] = "";
    for (int k = 0; k < n; k++)
        snprintf(closest + strlen(closest), sizeof closest - strlen(closest), "%s%s", k ? ", " : "", t->gpus[order[k]].id);
    snprintf(err, errlen, _("unknown GPU '%s'; closest: %s (`gpuvet gpus` lists all)"), query, closest);
}

const struct gpu_spec *gpu_lookup(const struct gpu_table *t, const char *name, char *note, size_t notelen,
                                  char *err, size_t errlen)
{
    if (note && notelen)
        note[0] = '\0';
    for (int i = 0; i < t->count; i++) {
        const struct gpu_spec *g = &t->gpus[i];
        if (same_name(name, g->id))
            return g;
        for (int k = 0; k < g->naliases; k++)
            if (same_name(name, g->aliases[k]))
                return g;
    }
    const struct gpu_spec *best = NULL;
    int matches = 0, best_ties = 0;
    char candidates[512] = "";
    for (int i = 0; i < t->count; i++) {
        const struct gpu_spec *g = &t->gpus[i];
        if (!short_form_matches(g, name))
            continue;
        matches++;
        size_t used = strlen(candidates);
        snprintf(candidates + used, sizeof candidates - used, "%s%s", used ? ", " : "", g->id);
        /* The same order for every family: socketed before cards, then more memory. */
        int cmp = !best ? 1
                  : socketed(g) != socketed(best) ? (socketed(g) ? 1 : -1)
                  : g->memory_gb > best->memory_gb  ? 1
                  : g->memory_gb < best->memory_gb  ? -1
                                                    : 0;
        if (cmp > 0) {
            best = g;
            best_ties = 1;
        } else if (cmp == 0) {
            best_ties++;
        }
    }
    if (matches == 1)
        return best;
    if (matches > 1 && best_ties == 1) {
        if (note)
            snprintf(note, notelen,
                     _("'%s' names %d parts (%s); picked %s (socketed before PCIe cards, then the most memory): name "
                       "the id to choose another"),
                     name, matches, candidates, best->id);
        return best;
    }
    if (matches > 1)
        snprintf(err, errlen, _("GPU '%s' is ambiguous: %s; name one of these ids"), name, candidates);
    else
        list_closest(t, name, err, errlen);
    return NULL;
}

const struct gpu_spec *gpu_lookup_counted(const struct gpu_table *t, const char *spec, int *count, char *note,
                                          size_t notelen, char *err, size_t errlen)
{
    char name[256];
    long n = 1;
    const char *p = spec;
    while (*p == ' ')
        p++;
    size_t digits = strspn(p, "0123456789");
    const char *after = p + digits;
    while (*after == ' ')
        after++;
    size_t len = strlen(p);
    if (digits > 0 && (*after == 'x' || *after == 'X' || *after == '*')) {
        /* "8xH100", "8 x H100", "8*H100" */
        n = strtol(p, NULL, 10);
        after++;
        while (*after == ' ')
            after++;
        snprintf(name, sizeof name, "%s", after);
    } else {
        /* "H100*8", "H100 x 8", "H100 x8": the count last, after '*' or a spaced x */
        size_t end = len;
        while (end > 0 && p[end - 1] == ' ')
            end--;
        size_t start = end;
        while (start > 0 && isdigit((unsigned char)p[start - 1]))
            start--;
        size_t sep = start;
        while (sep > 0 && p[sep - 1] == ' ')
            sep--;
        bool star = sep > 0 && p[sep - 1] == '*';
        bool spaced_x = sep > 1 && (p[sep - 1] == 'x' || p[sep - 1] == 'X') && p[sep - 2] == ' ';
        if (start < end && (star || spaced_x)) {
            n = strtol(p + start, NULL, 10);
            size_t name_end = sep - 1;
            while (name_end > 0 && p[name_end - 1] == ' ')
                name_end--;
            snprintf(name, sizeof name, "%.*s", (int)name_end, p);
        } else {
            snprintf(name, sizeof name, "%s", p);
        }
    }
    if (n < 1 || n > GPU_MAX_PER_NODE || !*name) {
        snprintf(err, errlen, _("'%s': the GPU count per node must be 1 to %d, with a GPU name"), spec, GPU_MAX_PER_NODE);
        return NULL;
    }
    *count = (int)n;
    return gpu_lookup(t, name, note, notelen, err, errlen);
}

double gpu_resnet50_rate(const struct gpu_spec *g, const char **source)
{
    if (g->resnet50_img_s > 0) {
        *source = g->resnet50_source;
        return g->resnet50_img_s;
    }
    *source = g->resnet50_estimate_source;
    return g->resnet50_estimate_img_s;
}
