/* The text of `nvidia-smi nvlink -s` and `nvidia-smi nvlink -e` (what a provider pastes into a
 * ticket): per GPU, "GPU N: NAME (UUID: GPU-...)", then for -s "Link L: 26.562 GB/s" for an active
 * link and "Link L: <inactive>" for one that is down, or "NVML: Unable to retrieve NVLink
 * information as all links are inActive"; for -e "Link L: Replay Errors: N", "Link L: Recovery
 * Errors: N" and "Link L: CRC Errors: N" (drivers 5xx print one CRC counter; it is kept as the flit
 * CRC counter, NVML's NVML_NVLINK_ERROR_DL_CRC_FLIT, and both CRC counters are judged as one sum;
 * "CRC Flit Errors" and "CRC Data Errors" are read where a driver names them apart). Both name GPUs
 * by index and UUID only, so they complete the GPUs an `nvidia-smi -q -x` or `-q` file (or a
 * recorded tree's) describes: joined by UUID, or by index where the paste hid the UUID or the file
 * names none. Several pastes merge link by link. A paste given alone describes the GPUs it names
 * ("GPU 0", its product and UUID), judged against the product's own link count. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probe/probe.h"

#define MAX_LINE 512

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* "GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-...)" -> 3, the product and the UUID ("" when hidden
 * or absent). */
static bool gpu_line(const char *s, int *index, char *product, size_t productlen, char *uuid, size_t uuidlen)
{
    if (strncmp(s, "GPU ", 4) || !isdigit((unsigned char)s[4]))
        return false;
    char *end;
    long n = strtol(s + 4, &end, 10);
    if (*end != ':' || n < 0 || n >= GPU_MAX_PER_NODE)
        return false;
    *index = (int)n;
    *uuid = '\0';
    const char *u = strstr(end, "(UUID: ");
    const char *name = skip_space(end + 1);
    size_t namelen = u ? (size_t)(u - name) : strlen(name);
    while (namelen && name[namelen - 1] == ' ')
        namelen--;
    snprintf(product, productlen, "%.*s", (int)(namelen < productlen ? namelen : productlen - 1), name);
    for (char *c = product; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?'; /* nvidia-smi writes ASCII */
    if (u) {
        u += 7;
        size_t len = strcspn(u, ")");
        /* A pasted UUID is often elided ("...", "GPU-xxx"): only a whole one (hex and dashes) joins. */
        bool whole = len >= 36 && len < uuidlen && strncmp(u, "GPU-", 4) == 0;
        for (size_t i = 4; whole && i < len; i++)
            whole = isxdigit((unsigned char)u[i]) || u[i] == '-';
        if (whole)
            snprintf(uuid, uuidlen, "%.*s", (int)len, u);
    }
    return true;
}

/* "GPU 00000000:18:00.0": a GPU section of `nvidia-smi -q`, never of the nvlink reports. */
static bool is_bus_header(const char *s)
{
    if (strncmp(s, "GPU ", 4))
        return false;
    size_t n = strspn(s + 4, "0123456789abcdefABCDEF");
    return n >= 4 && s[4 + n] == ':';
}

bool nvidia_smi_text_is_nvlink(const char *text)
{
    /* XML is never this text (and can be 64 MiB): its first character says so. */
    const char *first = text;
    while (isspace((unsigned char)*first))
        first++;
    if (*first == '<')
        return false;
    bool gpu = false, link = false;
    const char *line = text;
    for (int lines = 0; line && *line && lines < 100000 && !(gpu && link); lines++) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[MAX_LINE];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        const char *s = skip_space(buf);
        int index;
        char product[96], uuid[80];
        gpu |= gpu_line(s, &index, product, sizeof product, uuid, sizeof uuid);
        link |= (!strncmp(s, "Link ", 5) && isdigit((unsigned char)s[5])) || strcasestr(s, "all links are inactive");
        if (is_bus_header(s))
            return false; /* `nvidia-smi -q` text: "GPU 00000000:18:00.0" sections */
        line = nl ? nl + 1 : NULL;
    }
    return gpu && link;
}

/* What a paste named that is not kept: counted, and said once per file (a paste of a million lines
 * gives one problem line, not one per line). */
struct skipped {
    int gpus, links;
    char first_gpu[160];
    int first_link;
    char first_link_gpu[32];
};

/* A GPU of a paste that no other file described: "GPU N" with the product and UUID its line gives. */
static struct gpu *paste_gpu(struct machine *m, int index, const char *product, const char *uuid)
{
    char subject[32];
    snprintf(subject, sizeof subject, "GPU %d", index);
    for (int i = 0; i < m->gpus.count; i++)
        if (!strcmp(m->gpus.items[i].bus_id, subject))
            return &m->gpus.items[i];
    if (m->gpus.count >= GPU_MAX_PER_NODE)
        return NULL; /* index < GPU_MAX_PER_NODE: never reached */
    struct gpu *g = gpu_set_add(&m->gpus);
    if (!g)
        return NULL;
    snprintf(g->bus_id, sizeof g->bus_id, "%s", subject);
    g->name = product[0] ? strdup(product) : NULL;
    g->uuid = uuid[0] ? strdup(uuid) : NULL;
    /* "GPU 2" proves at least three GPUs, whatever part of the output was pasted. */
    if (index + 1 > m->gpus.attached_gpus)
        m->gpus.attached_gpus = index + 1;
    return g;
}

static struct gpu *join(struct machine *m, struct skipped *skip, int index, const char *uuid)
{
    bool any_uuid = false;
    for (int i = 0; i < m->gpus.count; i++)
        any_uuid |= m->gpus.items[i].uuid != NULL;
    /* A file that names no UUID (`nvidia-smi -q -d ECC`) is joined by index like a hidden UUID. */
    if (*uuid && any_uuid) {
        for (int i = 0; i < m->gpus.count; i++)
            if (m->gpus.items[i].uuid && !strcasecmp(m->gpus.items[i].uuid, uuid))
                return &m->gpus.items[i];
        if (skip->gpus++ == 0)
            snprintf(skip->first_gpu, sizeof skip->first_gpu, "GPU %d (%s)", index, uuid);
        return NULL;
    }
    /* nvidia-smi numbers GPUs the same way in every report: by index when the UUID was hidden. */
    if (index < m->gpus.count)
        return &m->gpus.items[index];
    if (skip->gpus++ == 0)
        snprintf(skip->first_gpu, sizeof skip->first_gpu, "GPU %d", index);
    return NULL;
}

/* The entry of link on g: the one an earlier paste made, or a new one (NULL when past the cap). */
static struct gpu_nvlink *link_entry(struct skipped *skip, struct gpu *g, int link)
{
    for (int k = 0; k < g->nnvlinks; k++)
        if (g->nvlinks[k].link == link)
            return &g->nvlinks[k];
    if (link < 0 || link >= GPU_MAX_NVLINKS || g->nnvlinks >= GPU_MAX_NVLINKS) {
        if (skip->links++ == 0) {
            skip->first_link = link;
            snprintf(skip->first_link_gpu, sizeof skip->first_link_gpu, "%s", g->bus_id);
        }
        return NULL;
    }
    struct gpu_nvlink *l = &g->nvlinks[g->nnvlinks++];
    *l = (struct gpu_nvlink){.link = link, .active = GPU_UNKNOWN, .version = -1};
    for (int c = 0; c < GPU_NVLINK_COUNTERS; c++)
        l->errors[c] = -1;
    return l;
}

/* "Replay Errors: 3" and the other -e counters: the counter's index, or -1 for another line. */
static int counter_of(const char *what, long long *value)
{
    static const struct {
        const char *name;
        int counter;
    } names[] = {
        {"Replay Errors: ", GPU_NVLINK_REPLAY},      {"Recovery Errors: ", GPU_NVLINK_RECOVERY},
        {"CRC Errors: ", GPU_NVLINK_CRC_FLIT},       {"CRC Flit Errors: ", GPU_NVLINK_CRC_FLIT},
        {"CRC Data Errors: ", GPU_NVLINK_CRC_DATA},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);
        if (strncasecmp(what, names[i].name, n))
            continue;
        char *end;
        const char *v = what + n;
        if (!isdigit((unsigned char)*v))
            return -1; /* "N/A" */
        long long x = strtoll(v, &end, 10);
        if (*skip_space(end) || x < 0 || x > INT64_MAX / 4)
            return -1;
        *value = x;
        return names[i].counter;
    }
    return -1;
}

/* Where NVML gave no common link speed, the one every active link of the paste shares. */
static void take_common_speed(struct gpu *g, int common_mbps)
{
    if (g && common_mbps > 0 && g->nvlink_speed_mbps < 0)
        g->nvlink_speed_mbps = common_mbps;
}

int probe_nvidia_smi_nvlink_text(struct machine *m, const char *file, const char *text)
{
    /* Alone, the paste describes the GPUs it names: judged by the product each line names. */
    bool alone = m->gpus.count == 0;
    if (alone)
        nvidia_smi_take_gpus(m, file);
    struct skipped skip = {0};
    struct gpu *g = NULL;
    int listed = 0;
    /* The speed the GPU's active links share, as NVML's common speed is (MB/s per link; -1 none yet,
     * -2 the links differ): `-s` prints each link's NVML speed in GB/s with three decimals. */
    int common_mbps = -1;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[MAX_LINE];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        line = nl ? nl + 1 : NULL;
        const char *s = skip_space(buf);
        int index, link, used = 0;
        char product[96], uuid[80];
        if (gpu_line(s, &index, product, sizeof product, uuid, sizeof uuid)) {
            take_common_speed(g, common_mbps);
            common_mbps = -1;
            g = alone ? paste_gpu(m, index, product, uuid) : join(m, &skip, index, uuid);
            listed += g != NULL;
            continue;
        }
        if (!g)
            continue;
        if (strcasestr(s, "all links are inactive")) {
            /* None listed: the part's own count says how many are down. */
            g->nvlink_known = true;
            continue;
        }
        if (sscanf(s, "Link %d: %n", &link, &used) != 1 || used == 0)
            continue;
        const char *what = s + used;
        long long count;
        double gbs;
        int counter = counter_of(what, &count);
        bool inactive = !strncasecmp(what, "<inactive>", 10);
        bool up = !inactive && sscanf(what, "%lf GB/s", &gbs) == 1 && gbs > 0;
        if (counter < 0 && !inactive && !up)
            continue; /* a line of another report ("Link 0: Data Tx: 5863784 KiB"): neither state nor error */
        struct gpu_nvlink *l = link_entry(&skip, g, link);
        if (!l)
            continue;
        if (counter >= 0) {
            l->errors[counter] = count;
            continue;
        }
        l->active = up ? GPU_ON : GPU_OFF;
        g->nvlink_known = true;
        if (up && gbs < 1e4) {
            int mbps = (int)(gbs * 1000 + 0.5);
            common_mbps = common_mbps == -1 || common_mbps == mbps ? mbps : -2;
        }
    }
    take_common_speed(g, common_mbps);
    if (skip.gpus == 1)
        machine_problem(m, file, "%s is not one of the GPUs the other nvidia-smi file describes: skipped",
                        skip.first_gpu);
    else if (skip.gpus > 1)
        machine_problem(m, file, "%d GPU lines name GPUs the other nvidia-smi file does not describe, the first %s: "
                                 "skipped", skip.gpus, skip.first_gpu);
    if (skip.links > 0)
        machine_problem(m, file, "%d link lines ignored: past the %d links NVLink has, the first link %d of %s",
                        skip.links, GPU_MAX_NVLINKS, skip.first_link, skip.first_link_gpu);
    if (listed == 0) {
        machine_problem(m, file, "no GPU of this `nvidia-smi nvlink` output matched the GPUs described");
        return -1;
    }
    return 0;
}
