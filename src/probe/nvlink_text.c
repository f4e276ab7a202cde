/* The text of `nvidia-smi nvlink -s` (what a provider pastes into a ticket): per GPU, "GPU N: NAME
 * (UUID: GPU-...)", then "Link L: 26.562 GB/s" for an active link and "Link L: <inactive>" for one
 * that is down, or "NVML: Unable to retrieve NVLink information as all links are inActive". It
 * names GPUs by index and UUID only, so it completes the GPUs an `nvidia-smi -q -x` file (or a
 * recorded tree's) describes: joined by UUID, or by index where the paste hid the UUID. */
#include <ctype.h>
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

/* "GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-...)" -> 3 and the UUID ("" when hidden or absent). */
static bool gpu_line(const char *s, int *index, char *uuid, size_t uuidlen)
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
        char uuid[80];
        gpu |= gpu_line(s, &index, uuid, sizeof uuid);
        link |= (!strncmp(s, "Link ", 5) && isdigit((unsigned char)s[5])) || strcasestr(s, "all links are inactive");
        line = nl ? nl + 1 : NULL;
    }
    return gpu && link;
}

static struct gpu *join(struct machine *m, const char *file, int index, const char *uuid)
{
    if (*uuid) {
        for (int i = 0; i < m->gpus.count; i++)
            if (m->gpus.items[i].uuid && !strcasecmp(m->gpus.items[i].uuid, uuid))
                return &m->gpus.items[i];
        machine_problem(m, file, "GPU %d (%s) is not one of the GPUs the nvidia-smi -q -x file describes: skipped",
                        index, uuid);
        return NULL;
    }
    /* nvidia-smi numbers GPUs the same way in every report: by index when the UUID was hidden. */
    if (index < m->gpus.count)
        return &m->gpus.items[index];
    machine_problem(m, file, "GPU %d: the nvidia-smi -q -x file describes only %d GPUs: skipped", index,
                    m->gpus.count);
    return NULL;
}

int probe_nvidia_smi_nvlink_text(struct machine *m, const char *file, const char *text)
{
    if (m->gpus.count == 0) {
        machine_problem(m, file, "`nvidia-smi nvlink -s` output names GPUs by index and UUID only: give the same "
                                 "machine's `nvidia-smi -q -x` file too (--nvidia-smi twice)");
        return -1;
    }
    struct gpu *g = NULL;
    int listed = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[MAX_LINE];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        line = nl ? nl + 1 : NULL;
        const char *s = skip_space(buf);
        int index, link;
        char uuid[80];
        if (gpu_line(s, &index, uuid, sizeof uuid)) {
            g = join(m, file, index, uuid);
            if (g) {
                g->nvlink_known = true;
                g->nnvlinks = 0;
                listed++;
            }
            continue;
        }
        if (!g)
            continue;
        char state[64];
        if (sscanf(s, "Link %d: %63[^\n]", &link, state) == 2) {
            if (link < 0 || link >= GPU_MAX_NVLINKS || g->nnvlinks >= GPU_MAX_NVLINKS) {
                machine_problem(m, file, "GPU %s: link %d is past the %d links NVLink has: ignored", g->bus_id, link,
                                GPU_MAX_NVLINKS);
                continue;
            }
            double gbs;
            struct gpu_nvlink *l = &g->nvlinks[g->nnvlinks];
            if (!strncasecmp(state, "<inactive>", 10))
                l->active = GPU_OFF;
            else if (sscanf(state, "%lf GB/s", &gbs) == 1 && gbs > 0)
                l->active = GPU_ON;
            else
                continue; /* a line of another report ("Link 0: Replay Errors: 0"): not a state */
            l->link = link;
            g->nnvlinks++;
        }
        /* "all links are inActive": none listed, so the part's own count says how many are down. */
    }
    if (listed == 0) {
        machine_problem(m, file, "no GPU of this `nvidia-smi nvlink -s` output matched the GPUs described");
        return -1;
    }
    return 0;
}
