/* The plain text of `nvidia-smi -q` (and of its `-d ECC`, `-d ROW_REMAPPER`, ... parts, and a paste
 * trimmed by hand with "[...]"): "Key : Value" lines nested by indentation under one
 * "GPU 00000000:18:00.0" section per GPU. The same facts as `nvidia-smi -q -x`, under the text's own
 * names, so the text is rewritten into the XML document those names stand for and read by the XML
 * reader (probe/nvidia_smi.c): one reading of the facts, whichever form a provider pasted. Keys are
 * matched case-blind ("Ecc Mode" and "ECC Mode" both occur); what no entry below names is left out;
 * indentation is read relative to the GPU line, so a paste indented as a whole still nests. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "probe/probe.h"
#include "probe/xml_lib.h"

#define SMI_TEXT_LINE_MAX 512
#define TEXT_DEPTH 8

/* Text path under a GPU section (levels joined by '/') -> the -q -x element path. */
static const struct {
    const char *text, *xml;
} gpu_keys[] = {
    {"Product Name", "product_name"},
    {"Product Brand", "product_brand"},
    {"GPU UUID", "uuid"},
    {"Serial Number", "serial"},
    {"VBIOS Version", "vbios_version"},
    {"GPU Virtualization Mode/Virtualization Mode", "gpu_virtualization_mode/virtualization_mode"},
    {"FB Memory Usage/Total", "fb_memory_usage/total"},
    {"Persistence Mode", "persistence_mode"},
    {"MIG Mode/Current", "mig_mode/current_mig"},
    {"MIG Mode/Pending", "mig_mode/pending_mig"},
    {"Performance State", "performance_state"},
    {"PCI/Bus Id", "pci/pci_bus_id"},
    {"PCI/GPU Link Info/PCIe Generation/Max", "pci/pci_gpu_link_info/pcie_gen/max_link_gen"},
    {"PCI/GPU Link Info/PCIe Generation/Current", "pci/pci_gpu_link_info/pcie_gen/current_link_gen"},
    {"PCI/GPU Link Info/PCIe Generation/Device Max", "pci/pci_gpu_link_info/pcie_gen/max_device_link_gen"},
    {"PCI/GPU Link Info/PCIe Generation/Host Max", "pci/pci_gpu_link_info/pcie_gen/max_host_link_gen"},
    {"PCI/GPU Link Info/Link Width/Max", "pci/pci_gpu_link_info/link_widths/max_link_width"},
    {"PCI/GPU Link Info/Link Width/Current", "pci/pci_gpu_link_info/link_widths/current_link_width"},
    {"PCI/Replays Since Reset", "pci/replay_counter"},
    {"ECC Mode/Current", "ecc_mode/current_ecc"},
    {"ECC Mode/Pending", "ecc_mode/pending_ecc"},
    {"Retired Pages/Single Bit ECC", "retired_pages/multiple_single_bit_retirement/retired_count"},
    {"Retired Pages/Double Bit ECC", "retired_pages/double_bit_retirement/retired_count"},
    {"Retired Pages/Pending Page Blacklist", "retired_pages/pending_retirement"},
    {"Retired Pages/Pending Page Retirement", "retired_pages/pending_retirement"},
    {"Remapped Rows/Correctable Error", "remapped_rows/remapped_row_corr"},
    {"Remapped Rows/Uncorrectable Error", "remapped_rows/remapped_row_unc"},
    {"Remapped Rows/Pending", "remapped_rows/remapped_row_pending"},
    {"Remapped Rows/Remapping Failure Occurred", "remapped_rows/remapped_row_failure"},
    {"Clocks/Graphics", "clocks/graphics_clock"},
    {"Clocks/SM", "clocks/sm_clock"},
    {"Clocks/Memory", "clocks/mem_clock"},
    {"Max Clocks/Graphics", "max_clocks/graphics_clock"},
    {"Max Clocks/SM", "max_clocks/sm_clock"},
    {"Max Clocks/Memory", "max_clocks/mem_clock"},
    {"Temperature/GPU Current Temp", "temperature/gpu_temp"},
    {"Temperature/GPU Slowdown Temp", "temperature/gpu_temp_slow_threshold"},
    {"Utilization/Gpu", "utilization/gpu_util"},
    {"Utilization/Memory", "utilization/memory_util"},
    {"Fabric/State", "fabric/state"},
    {"Fabric/Status", "fabric/status"},
};

/* Sections whose keys are the XML names in words ("Power Draw" -> power_draw, "SRAM Uncorrectable
 * SEC-DED" -> sram_uncorrectable_secded). */
static const struct {
    const char *text, *xml;
} worded_sections[] = {
    {"Power Readings", "power_readings"},
    {"GPU Power Readings", "gpu_power_readings"},
    {"ECC Errors/Volatile", "ecc_errors/volatile"},
    {"ECC Errors/Aggregate", "ecc_errors/aggregate"},
    {"ECC Errors/Volatile/Single Bit", "ecc_errors/volatile/single_bit"},
    {"ECC Errors/Volatile/Double Bit", "ecc_errors/volatile/double_bit"},
    {"ECC Errors/Aggregate/Single Bit", "ecc_errors/aggregate/single_bit"},
    {"ECC Errors/Aggregate/Double Bit", "ecc_errors/aggregate/double_bit"},
};

/* Clock event ("throttle") reasons: the text's word -> the XML element's suffix. HW Thermal and HW
 * Power Brake Slowdown are printed under HW Slowdown, so only the last word counts here. */
static const struct {
    const char *text, *xml;
} reasons[] = {
    {"Idle", "gpu_idle"},
    {"Applications Clocks Setting", "applications_clocks_setting"},
    {"SW Power Cap", "sw_power_cap"},
    {"HW Slowdown", "hw_slowdown"},
    {"HW Thermal Slowdown", "hw_thermal_slowdown"},
    {"HW Power Brake Slowdown", "hw_power_brake_slowdown"},
    {"Sync Boost", "sync_boost"},
    {"SW Thermal Slowdown", "sw_thermal_slowdown"},
    {"Display Clock Setting", "display_clocks_setting"},
};

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* "GPU 00000000:18:00.0" (the line, nothing after the id): the id. */
static bool gpu_section(const char *s, char *id, size_t idlen)
{
    if (strncmp(s, "GPU ", 4))
        return false;
    const char *b = s + 4;
    size_t n = strspn(b, "0123456789abcdefABCDEF:.");
    if (n < 7 || n >= idlen || *skip_space(b + n) || !strchr(b, ':'))
        return false;
    snprintf(id, idlen, "%.*s", (int)n, b);
    return true;
}

/* A "GPU 00000000:18:00.0" line with a "Key : Value" line after it. */
static bool has_gpu_section(const char *text)
{
    bool gpu = false, key = false;
    const char *line = text;
    for (int lines = 0; line && *line && lines < 100000 && !(gpu && key); lines++) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[SMI_TEXT_LINE_MAX], id[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        const char *s = skip_space(buf);
        if (gpu_section(s, id, sizeof id))
            gpu = true;
        else if (gpu && strstr(s, " : "))
            key = true; /* a "Key : Value" line inside a GPU section */
        line = nl ? nl + 1 : NULL;
    }
    return gpu && key;
}

bool nvidia_smi_text_is_q(const char *text)
{
    const char *first = text;
    while (isspace((unsigned char)*first))
        first++;
    if (*first == '<')
        return false;
    if (has_gpu_section(text))
        return true;
    /* A section pasted without its GPU line ("Remapped Rows", "Fabric", ...): evidence when one of
     * its values is a fact gpuvet reads. */
    int sections = 0;
    xmlDoc *doc = nvidia_smi_text_to_xml(text, &sections);
    if (!doc)
        return false;
    bool facts = false;
    for (xmlNode *c = XML(DocGetRootElement)(doc)->children; c && !facts; c = c->next)
        facts = c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "gpu") && c->children;
    XML(FreeDoc)(doc);
    return facts;
}

/* The element at path below parent, made where missing. */
static xmlNode *make_path(xmlNode *parent, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    xmlNode *cur = parent;
    char *save = NULL;
    for (char *part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        xmlNode *found = NULL;
        for (xmlNode *c = cur->children; c && !found; c = c->next)
            if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, part))
                found = c;
        cur = found ? found : XML(NewChild)(cur, NULL, (const xmlChar *)part, NULL);
        if (!cur)
            return NULL;
    }
    return cur;
}

static void set_value(xmlNode *parent, const char *path, const char *value)
{
    xmlNode *n = make_path(parent, path);
    if (!n || n->children) /* the first value given wins, as in the XML reader */
        return;
    /* nvidia-smi writes ASCII; any other byte (not valid text for the XML tree or the JSON) is '?'. */
    char clean[SMI_TEXT_LINE_MAX];
    size_t i = 0;
    for (; value[i] && i + 1 < sizeof clean; i++)
        clean[i] = (unsigned char)value[i] >= 0x20 && (unsigned char)value[i] < 0x7f ? value[i] : '?';
    clean[i] = '\0';
    XML(NodeAddContent)(n, (const xmlChar *)clean);
}

/* "SRAM Uncorrectable SEC-DED" -> "sram_uncorrectable_secded"; "Power Draw" -> "power_draw". */
static void worded(const char *key, char *out, size_t n)
{
    size_t o = 0;
    for (const char *k = key; *k && o + 1 < n; k++) {
        if (*k == ' ')
            out[o++] = '_';
        else if (isalnum((unsigned char)*k))
            out[o++] = (char)tolower((unsigned char)*k);
    }
    out[o] = '\0';
}

/* Maps one "path : value" of a GPU section onto its element, when an entry names it. */
static void gpu_value(xmlNode *gpu, const char *path, const char *leaf, const char *value)
{
    for (size_t i = 0; i < sizeof gpu_keys / sizeof gpu_keys[0]; i++)
        if (!strcasecmp(path, gpu_keys[i].text)) {
            set_value(gpu, gpu_keys[i].xml, value);
            return;
        }
    const char *groups[][2] = {{"Clocks Event Reasons/", "clocks_event_reasons/clocks_event_reason_"},
                               {"Clocks Throttle Reasons/", "clocks_throttle_reasons/clocks_throttle_reason_"}};
    for (size_t g = 0; g < 2; g++) {
        if (strncasecmp(path, groups[g][0], strlen(groups[g][0])))
            continue;
        for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
            if (!strcasecmp(leaf, reasons[i].text)) {
                char xml[160];
                snprintf(xml, sizeof xml, "%s%s", groups[g][1], reasons[i].xml);
                set_value(gpu, xml, value);
            }
        return;
    }
    size_t plen = (size_t)(leaf - path);
    for (size_t i = 0; plen > 1 && i < sizeof worded_sections / sizeof worded_sections[0]; i++) {
        const char *sec = worded_sections[i].text;
        if (strlen(sec) != plen - 1 || strncasecmp(path, sec, plen - 1))
            continue;
        char name[96], xml[192];
        worded(leaf, name, sizeof name);
        snprintf(xml, sizeof xml, "%s/%s", worded_sections[i].xml, name);
        if (name[0])
            set_value(gpu, xml, value);
        return;
    }
}

xmlDoc *nvidia_smi_text_to_xml(const char *text, int *sections)
{
    char no_library[256];
    if (!xml_lib_get(no_library, sizeof no_library))
        return NULL;
    xmlDoc *doc = XML(NewDoc)((const xmlChar *)"1.0");
    if (!doc)
        return NULL;
    xmlNode *root = XML(NewNode)(NULL, (const xmlChar *)"nvidia_smi_log");
    XML(DocSetRootElement)(doc, root);
    /* Lines before any GPU line belong to a GPU the paste does not name (a section pasted alone);
     * that GPU is dropped again when nothing of it was read (a whole log's header lines). */
    xmlNode *unnamed = XML(NewChild)(root, NULL, (const xmlChar *)"gpu", NULL);
    if (unnamed)
        XML(NewProp)(unnamed, (const xmlChar *)"unnamed", (const xmlChar *)"1");
    xmlNode *gpu = unnamed;
    int gpu_indent = -1, depth = 0;
    *sections = 0;
    struct {
        int indent;
        char key[96];
    } stack[TEXT_DEPTH];
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[SMI_TEXT_LINE_MAX];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        line = nl ? nl + 1 : NULL;
        size_t end = strlen(buf);
        while (end && isspace((unsigned char)buf[end - 1]))
            buf[--end] = '\0';
        const char *s = skip_space(buf);
        int indent = (int)(s - buf);
        char id[64];
        if (!*s || *s == '[' || !strncmp(s, "...", 3))
            continue; /* blank, or a paste's "[...]" */
        if (gpu_section(s, id, sizeof id)) {
            /* Sections past the cap are counted, not built into the tree (a hostile file of millions). */
            if (unnamed && !unnamed->children) {
                XML(UnlinkNode)(unnamed);
                XML(FreeNode)(unnamed);
            }
            unnamed = NULL;
            if (++*sections > GPU_MAX_PER_NODE) {
                gpu = NULL;
                gpu_indent = indent;
                continue;
            }
            gpu = XML(NewChild)(root, NULL, (const xmlChar *)"gpu", NULL);
            if (gpu)
                XML(NewProp)(gpu, (const xmlChar *)"id", (const xmlChar *)id);
            gpu_indent = indent;
            depth = 0;
            continue;
        }
        const char *colon = strstr(s, " : ");
        char key[96];
        const char *value = NULL;
        if (colon) {
            size_t klen = (size_t)(colon - s);
            while (klen && s[klen - 1] == ' ')
                klen--;
            snprintf(key, sizeof key, "%.*s", (int)klen, s);
            value = skip_space(colon + 3);
        } else {
            snprintf(key, sizeof key, "%s", s); /* a section header */
        }
        bool header_key = value && (!strcasecmp(key, "Driver Version") || !strcasecmp(key, "CUDA Version") ||
                                    !strcasecmp(key, "Attached GPUs"));
        if (!gpu || indent <= gpu_indent || (gpu == unnamed && header_key)) {
            /* The log's header: the driver, CUDA and the GPU count. */
            if (value && !strcasecmp(key, "Driver Version"))
                set_value(root, "driver_version", value);
            else if (value && !strcasecmp(key, "CUDA Version"))
                set_value(root, "cuda_version", value);
            else if (value && !strcasecmp(key, "Attached GPUs"))
                set_value(root, "attached_gpus", value);
            continue;
        }
        while (depth > 0 && stack[depth - 1].indent >= indent)
            depth--;
        if (depth >= TEXT_DEPTH)
            continue;
        stack[depth].indent = indent;
        snprintf(stack[depth].key, sizeof stack[depth].key, "%s", key);
        depth++;
        if (!value || !*value)
            continue;
        char path[TEXT_DEPTH * 97] = "";
        size_t used = 0;
        const char *leaf = path;
        for (int d = 0; d < depth; d++) {
            if (d == depth - 1)
                leaf = path + used + (d > 0);
            used += (size_t)snprintf(path + used, sizeof path - used, "%s%s", d ? "/" : "", stack[d].key);
            if (used >= sizeof path)
                break;
        }
        if (used < sizeof path)
            gpu_value(gpu, path, leaf, value);
    }
    if (unnamed && !unnamed->children) {
        XML(UnlinkNode)(unnamed);
        XML(FreeNode)(unnamed);
    }
    return doc;
}

/* nvidia-smi's own failure lines, as it prints them (its wording has stayed the same from driver 3xx
 * to 5xx; the issue threads quoted in tests/fixtures/README.md show each). A device-handle error
 * names the GPU nvidia-smi could not reach; the others say it could describe none. */
static const char *const unreachable_words[] = {"Unable to determine the device handle for GPU",
                                                "Unable to detect the device handle for GPU"};
static const char *const nothing_words[] = {"No devices were found", "Failed to initialize NVML",
                                            "NVIDIA-SMI has failed because", "GPU access blocked by the operating system"};

/* The line as nvidia-smi wrote it: printable ASCII, other bytes '?', runs of spaces as one. */
static void said_text(const char *line, size_t len, char *out, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < n; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == '\t' || c == '\r')
            c = ' ';
        if (c == ' ' && (o == 0 || out[o - 1] == ' '))
            continue;
        out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

bool nvidia_smi_text_failures(const char *text, struct smi_failures *f)
{
    memset(f, 0, sizeof *f);
    bool any = false;
    const char *line = text;
    for (int lines = 0; line && *line && lines < 1000000; lines++) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[SMI_TEXT_LINE_MAX];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        line = nl ? nl + 1 : NULL;
        for (size_t w = 0; w < sizeof unreachable_words / sizeof unreachable_words[0]; w++) {
            const char *at = strcasestr(buf, unreachable_words[w]);
            if (!at)
                continue;
            any = true;
            int k = f->unreachable++;
            if (k >= GPU_SMI_UNREACHABLE_MAX)
                break;
            /* "... for GPU 0000:07:00.0: Unknown Error", or "for GPU0000:07:00.0: ..." */
            const char *id = skip_space(at + strlen(unreachable_words[w]));
            size_t idlen = strspn(id, "0123456789abcdefABCDEF:.");
            while (idlen && id[idlen - 1] == ':')
                idlen--;
            snprintf(f->items[k].bus_id, sizeof f->items[k].bus_id, "%.*s",
                     (int)(idlen < sizeof f->items[k].bus_id ? idlen : 0), id);
            said_text(at, strlen(at), f->items[k].said, sizeof f->items[k].said);
            break;
        }
        for (size_t w = 0; w < sizeof nothing_words / sizeof nothing_words[0]; w++) {
            const char *at = strcasestr(buf, nothing_words[w]);
            if (!at)
                continue;
            any = true;
            if (!f->nothing[0])
                said_text(at, strlen(at), f->nothing, sizeof f->nothing);
            break;
        }
    }
    return any;
}
