/* `--expect "8x H100 SXM5 80GB, 2x EPYC 9654, 2TB RAM, 8x 3.84TB NVMe, 8x 400Gb IB"`: a listing in
 * the words providers use, turned into the claim file's object ({"gpus": {...}, "cpu": {...}, ...})
 * so that it is validated and judged by the one path `--claim FILE` takes. The GPU's own figures
 * (PCIe generation and width, NVLinks, memory) come from the GPU table (data/gpus.csv). Words that
 * fit no part of a listing are kept and reported, never dropped. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "claims/claims.h"
#include "util/gputable.h"
#include "util/i18n.h"

#define LISTING_MAX 1024
#define WORDS_MAX 64

struct word {
    char text[64];
    bool item_start; /* after a comma, a semicolon, a '+' or a '|' */
};

static bool word_is(const char *w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcasecmp(w, list[i]))
            return true;
    return false;
}

static const char *const MEMORY_WORDS[] = {"RAM", "memory", "mem", "DDR4", "DDR5", "DRAM", "ECC", NULL};
static const char *const DISK_WORDS[] = {"NVMe", "SSD", "HDD", "SATA", "SAS", "disk", "disks", "drive", "drives", NULL};
static const char *const NET_WORDS[] = {"IB", "InfiniBand", "Ethernet", "RoCE", "NIC", "NICs", "network", "GbE",
                                        "ConnectX-7", "CX7", NULL};
static const char *const CPU_WORDS[] = {"EPYC", "Xeon", "Grace", "Kunpeng", "Altra", "Threadripper", NULL};
static const char *const THREAD_WORDS[] = {"vCPU", "vCPUs", "threads", NULL};
static const char *const CORE_WORDS[] = {"cores", "core", NULL};

/* "8x", "8×", "8*", "x8" as a count; -1 when the word is none. */
static int count_word(const char *w)
{
    char *end;
    if (isdigit((unsigned char)w[0])) {
        long n = strtol(w, &end, 10);
        if (n > 0 && n <= 1024 && (!strcasecmp(end, "x") || !strcmp(end, "*") || !strcmp(end, "\xc3\x97")))
            return (int)n;
    }
    return -1;
}

/* A size with its unit ("3.84TB", "2 TB" as two words joined by the caller, "1536GB", "80G"): in
 * GB, `binary` telling whether TB counts 1024 GB (memory) or 1000 (disks). -1 when none. */
static double size_gb(const char *w, bool binary)
{
    char *end;
    double v = strtod(w, &end);
    if (end == w || !(v > 0) || !isfinite(v))
        return -1;
    if (!strcasecmp(end, "TB") || !strcasecmp(end, "T") || !strcasecmp(end, "TiB"))
        return v * (binary ? 1024 : 1000);
    if (!strcasecmp(end, "GB") || !strcasecmp(end, "G") || !strcasecmp(end, "GiB"))
        return v;
    return -1;
}

/* A link speed ("400Gb", "400G", "400Gbps", "100GbE", "NDR"): Gb/s, -1 when none. */
static double speed_gbps(const char *w)
{
    if (!strcasecmp(w, "NDR"))
        return 400;
    if (!strcasecmp(w, "HDR"))
        return 200;
    if (!strcasecmp(w, "EDR"))
        return 100;
    if (!strcasecmp(w, "XDR"))
        return 800;
    char *end;
    double v = strtod(w, &end);
    if (end == w || !(v > 0) || !isfinite(v))
        return -1;
    if (!strcasecmp(end, "Gb") || !strcasecmp(end, "G") || !strcasecmp(end, "Gbps") || !strcasecmp(end, "GbE") ||
        !strcasecmp(end, "Gbit") || !strcasecmp(end, "Gb/s"))
        return v;
    return -1;
}

static int split_words(const char *text, struct word *words, int max)
{
    int n = 0;
    bool item_start = true;
    const char *p = text;
    while (*p && n < max) {
        if (*p == ',' || *p == ';' || *p == '+' || *p == '|') {
            item_start = true;
            p++;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        size_t len = 0;
        while (p[len] && !isspace((unsigned char)p[len]) && !strchr(",;+|", p[len]))
            len++;
        if (len >= sizeof words[n].text)
            len = sizeof words[n].text - 1;
        memcpy(words[n].text, p, len);
        words[n].text[len] = '\0';
        words[n].item_start = item_start;
        item_start = false;
        n++;
        p += len;
        while (*p && !isspace((unsigned char)*p) && !strchr(",;+|", *p))
            p++; /* a word longer than a word can be is cut, not split in two */
    }
    return n;
}

/* "2" "x" "EPYC" and "2" "TB" are one thought each: a lone "x" after a number makes a count, a
 * lone unit after a number joins it. */
static int join_words(struct word *w, int n)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        bool number = isdigit((unsigned char)w[i].text[0]) && strspn(w[i].text, "0123456789.") == strlen(w[i].text);
        if (number && i + 1 < n && !w[i + 1].item_start &&
            (!strcasecmp(w[i + 1].text, "x") || !strcmp(w[i + 1].text, "*") || !strcmp(w[i + 1].text, "\xc3\x97") ||
             !strcasecmp(w[i + 1].text, "TB") || !strcasecmp(w[i + 1].text, "GB") || !strcasecmp(w[i + 1].text, "Gb") ||
             !strcasecmp(w[i + 1].text, "Gbps") || !strcasecmp(w[i + 1].text, "GbE"))) {
            struct word joined = w[i];
            snprintf(joined.text, sizeof joined.text, "%s%s", w[i].text, w[i + 1].text);
            w[out++] = joined;
            i++;
            continue;
        }
        w[out++] = w[i];
    }
    return out;
}

/* "8xA100-SXM4-40GB": the count glued to the name; returns the count and moves *rest past it. */
static int glued_count(const char *w, const char **rest)
{
    char *end;
    long n = strtol(w, &end, 10);
    if (end != w && n > 0 && n <= 1024 && (*end == 'x' || *end == 'X' || *end == '*') && isalpha((unsigned char)end[1])) {
        *rest = end + 1;
        return (int)n;
    }
    return -1;
}

struct listing {
    json_t *root;
    json_t *unparsed;
    struct gpu_table table;
    bool table_loaded;
};

static json_t *section(struct listing *l, const char *name)
{
    json_t *s = json_object_get(l->root, name);
    if (!s) {
        s = json_object();
        json_object_set_new(l->root, name, s);
    }
    return s;
}

static void unparsed(struct listing *l, const struct word *w, int n)
{
    char text[LISTING_MAX] = "";
    for (int i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", i ? " " : "", w[i].text);
    if (*text)
        json_array_append_new(l->unparsed, json_string(text));
}

static bool any_word(const struct word *w, int n, const char *const *list)
{
    for (int i = 0; i < n; i++)
        if (word_is(w[i].text, list))
            return true;
    return false;
}

static void take_memory(struct listing *l, const struct word *w, int n)
{
    for (int i = 0; i < n; i++) {
        double gb = size_gb(w[i].text, true);
        if (gb > 0) {
            json_object_set_new(section(l, "memory"), "gb", json_real(gb));
            for (int k = 0; k < n; k++)
                if (!strcasecmp(w[k].text, "DDR4") || !strcasecmp(w[k].text, "DDR5"))
                    json_object_set_new(section(l, "memory"), "type", json_string(w[k].text));
            return;
        }
    }
    unparsed(l, w, n);
}

static void take_disks(struct listing *l, int count, const struct word *w, int n)
{
    double gb = -1;
    const char *type = NULL;
    for (int i = 0; i < n; i++) {
        if (gb < 0)
            gb = size_gb(w[i].text, false);
        if (!strcasecmp(w[i].text, "NVMe"))
            type = "nvme";
        else if (!type && (!strcasecmp(w[i].text, "SSD") || !strcasecmp(w[i].text, "HDD") ||
                           !strcasecmp(w[i].text, "SATA") || !strcasecmp(w[i].text, "SAS")))
            type = w[i].text;
    }
    if (gb < 0 && !type) {
        unparsed(l, w, n);
        return;
    }
    json_t *storage = json_object_get(l->root, "storage");
    if (!storage) {
        storage = json_array();
        json_object_set_new(l->root, "storage", storage);
    }
    for (int i = 0; i < (count > 0 ? count : 1) && json_array_size(storage) < 64; i++) {
        json_t *disk = json_object();
        if (type) {
            char lower[16];
            snprintf(lower, sizeof lower, "%s", type);
            for (char *c = lower; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            json_object_set_new(disk, "type", json_string(lower));
        }
        if (gb > 0)
            json_object_set_new(disk, "gb", json_real(gb));
        json_array_append_new(storage, disk);
    }
}

static void take_network(struct listing *l, int count, const struct word *w, int n)
{
    for (int i = 0; i < n; i++) {
        double gbps = speed_gbps(w[i].text);
        if (gbps > 0) {
            json_object_set_new(section(l, "network"), "gbps", json_real(gbps));
            if (count > 0)
                json_object_set_new(section(l, "network"), "ports", json_integer(count));
            return;
        }
    }
    unparsed(l, w, n);
}

static void take_cpu(struct listing *l, int count, const struct word *w, int n)
{
    char model[LISTING_MAX] = "";
    for (int i = 0; i < n; i++)
        snprintf(model + strlen(model), sizeof model - strlen(model), "%s%s", i ? " " : "", w[i].text);
    json_object_set_new(section(l, "cpu"), "model", json_string(model));
    if (count > 0)
        json_object_set_new(section(l, "cpu"), "sockets", json_integer(count));
}

/* The GPU and, from the table, its own figures: what the listing says is checked, and what the
 * part is (its PCIe link, its NVLinks, the NVSwitch fabric of an 8-GPU board) with it. */
static bool take_gpu(struct listing *l, int count, const struct word *w, int n)
{
    char name[LISTING_MAX] = "", note[256], err[512];
    for (int i = 0; i < n; i++)
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s%s", i ? " " : "", w[i].text);
    if (!l->table_loaded) {
        if (gpu_table_load_default(&l->table, err, sizeof err) != 0)
            return false;
        l->table_loaded = true;
    }
    const struct gpu_spec *spec = gpu_lookup(&l->table, name, note, sizeof note, err, sizeof err);
    if (!spec) {
        /* "H100 80GB SXM": the memory is checked on its own; the part is found by the rest. */
        char without_size[LISTING_MAX] = "";
        for (int i = 0; i < n; i++)
            if (size_gb(w[i].text, false) < 0)
                snprintf(without_size + strlen(without_size), sizeof without_size - strlen(without_size), "%s%s",
                         *without_size ? " " : "", w[i].text);
        if (!*without_size || !strcmp(without_size, name))
            return false;
        spec = gpu_lookup(&l->table, without_size, note, sizeof note, err, sizeof err);
        if (!spec)
            return false;
    }
    json_t *gpus = section(l, "gpus");
    json_object_set_new(gpus, "model", json_string(spec->id));
    if (count > 0)
        json_object_set_new(gpus, "count", json_integer(count));
    double memory = -1;
    for (int i = 0; i < n && memory < 0; i++)
        memory = size_gb(w[i].text, false);
    if (memory < 0)
        memory = spec->memory_gb;
    if (memory > 0)
        json_object_set_new(gpus, "memory_gb", json_real(memory));
    if (spec->pcie_gen > 0)
        json_object_set_new(gpus, "pcie_gen", json_integer((json_int_t)spec->pcie_gen));
    if (spec->pcie_lanes > 0)
        json_object_set_new(gpus, "pcie_width", json_integer((json_int_t)spec->pcie_lanes));
    int links = gpu_spec_nvlinks(spec);
    if (links > 0) {
        json_object_set_new(gpus, "nvlinks", json_integer(links));
        /* NVIDIA's HGX boards join their 8 socketed GPUs through NVSwitch (HGX A100/H100/H200/B200
         * 8-GPU; the 4-GPU boards link the GPUs directly). */
        if (count == 8)
            json_object_set_new(gpus, "fabric", json_string("nvswitch"));
    }
    return true;
}

static void take_item(struct listing *l, struct word *w, int n)
{
    if (n == 0)
        return;
    int count = count_word(w[0].text);
    const char *rest = NULL;
    struct word first;
    if (count > 0) {
        w++, n--;
    } else if ((count = glued_count(w[0].text, &rest)) > 0) {
        first = w[0];
        snprintf(first.text, sizeof first.text, "%s", rest);
        w[0] = first;
    }
    if (n == 0) {
        unparsed(l, w - 1, 1);
        return;
    }
    /* "16 vCPU", "64 cores": a number before the word */
    if (n == 2 && strspn(w[0].text, "0123456789") == strlen(w[0].text) && atoi(w[0].text) > 0 &&
        (word_is(w[1].text, THREAD_WORDS) || word_is(w[1].text, CORE_WORDS))) {
        json_object_set_new(section(l, "cpu"), word_is(w[1].text, THREAD_WORDS) ? "threads" : "cores",
                            json_integer(atoi(w[0].text)));
        return;
    }
    if (any_word(w, n, MEMORY_WORDS))
        take_memory(l, w, n);
    else if (any_word(w, n, DISK_WORDS))
        take_disks(l, count, w, n);
    else if (any_word(w, n, NET_WORDS) || (n == 1 && speed_gbps(w[0].text) > 0))
        take_network(l, count, w, n);
    else if (any_word(w, n, CPU_WORDS))
        take_cpu(l, count, w, n);
    else if (!take_gpu(l, count, w, n))
        unparsed(l, w, n);
}

json_t *claim_listing_object(const char *text, json_t **unparsed_words)
{
    struct word words[WORDS_MAX];
    int n = join_words(words, split_words(text, words, WORDS_MAX));
    struct listing l = {.root = json_object(), .unparsed = json_array()};
    /* An item ends at a separator, or where the next count starts one ("8x H100 80GB 2x EPYC"). */
    int start = 0;
    for (int i = 1; i <= n; i++)
        if (i == n || words[i].item_start || count_word(words[i].text) > 0 || glued_count(words[i].text, &(const char *){NULL}) > 0) {
            take_item(&l, words + start, i - start);
            start = i;
        }
    if (l.table_loaded)
        gpu_table_free(&l.table);
    *unparsed_words = l.unparsed;
    return l.root;
}
