/* `nvidia-smi -q -x` evidence (schemas v9 to v13): the same GPU facts NVML gives, read from the
 * XML a provider sent or a snapshot stored. Element names drifted between schemas (throttle ->
 * event reasons, single/double bit -> sram/dram ECC counters, power_readings -> gpu_power_readings),
 * so each fact tries every name it has had. Files trimmed by hand have fewer <gpu> elements than
 * attached_gpus says: both numbers are kept and neither is trusted to match. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "probe/probe.h"
#include "probe/xml_lib.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/pciaddr.h"
#include "util/units.h"

static xmlNode *child(const xmlNode *node, const char *name)
{
    if (!node)
        return NULL;
    for (xmlNode *c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
            return c;
    return NULL;
}

/* Follows "a/b/c" below node. */
static xmlNode *at(const xmlNode *node, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const xmlNode *cur = node;
    char *save = NULL;
    for (char *part = strtok_r(buf, "/", &save); part && cur; part = strtok_r(NULL, "/", &save))
        cur = child(cur, part);
    return (xmlNode *)cur;
}

/* The trimmed text of an element; NULL when missing, empty or "N/A" (not applicable or not
 * readable: nvidia-smi does not tell them apart). Caller frees. */
static char *text_at(const xmlNode *node, const char *path)
{
    xmlNode *n = at(node, path);
    if (!n)
        return NULL;
    xmlChar *raw = XML(NodeGetContent)(n);
    if (!raw)
        return NULL;
    const char *s = (const char *)raw;
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    char *out = NULL;
    if (len && strncmp(s, "N/A", len) != 0)
        out = strndup(s, len);
    XML(Free)(raw);
    return out;
}

/* Larger than any count, clock, size in MiB or power nvidia-smi prints; a value past it (or inf,
 * nan) is refused, not converted into a wrapped integer. */
#define NVIDIA_SMI_NUMBER_MAX 1e15

/* Values refused by number_at in the file being read: reported once per file. */
static int refused_numbers;
static char first_refused[160];

/* A number followed by an optional unit ("16x", "81920 MiB", "67.03 W", "27 C"). */
static bool number_at(const xmlNode *node, const char *path, double *out)
{
    char *t = text_at(node, path);
    if (!t)
        return false;
    char *end;
    double v = strtod(t, &end);
    bool ok = end != t && (*end == '\0' || *end == ' ' || *end == 'x');
    if (ok && !(fabs(v) <= NVIDIA_SMI_NUMBER_MAX)) {
        if (refused_numbers++ == 0)
            snprintf(first_refused, sizeof first_refused, "%s = %.60s", path, t);
        ok = false;
    }
    if (ok)
        *out = v;
    free(t);
    return ok;
}

static void set_int(const xmlNode *node, const char *path, int *out)
{
    double v;
    if (number_at(node, path, &v) && v >= 0 && v < 2e9)
        *out = (int)v;
}

static void set_int64(const xmlNode *node, const char *path, int64_t *out)
{
    double v;
    if (number_at(node, path, &v) && v >= 0)
        *out = (int64_t)v; /* below NVIDIA_SMI_NUMBER_MAX: fits */
}

static void set_double(const xmlNode *node, const char *path, double *out)
{
    double v;
    if (*out < 0 && number_at(node, path, &v) && v >= 0)
        *out = v;
}

/* Enabled/Disabled, Yes/No, Active/Not Active. */
static void set_tristate(const xmlNode *node, const char *path, int *out)
{
    char *t = text_at(node, path);
    if (!t)
        return;
    if (!strcmp(t, "Enabled") || !strcmp(t, "Yes") || !strcmp(t, "Active"))
        *out = GPU_ON;
    else if (!strcmp(t, "Disabled") || !strcmp(t, "No") || !strcmp(t, "Not Active"))
        *out = GPU_OFF;
    free(t);
}

static void set_string(const xmlNode *node, const char *path, char **out)
{
    if (!*out)
        *out = text_at(node, path);
}

/* Sums the counters that exist; -1 when none was reported. */
static int64_t sum_counters(const xmlNode *node, const char *const *paths)
{
    int64_t total = -1;
    for (; *paths; paths++) {
        int64_t v = -1;
        set_int64(node, *paths, &v);
        if (v >= 0)
            total = (total < 0 ? 0 : total) + v; /* each below NVIDIA_SMI_NUMBER_MAX: no overflow */
    }
    return total;
}

static void read_ecc(const xmlNode *g, struct gpu *gpu)
{
    static const char *const corrected[] = {"single_bit/total", "sram_correctable", "dram_correctable", NULL};
    static const char *const uncorrected[] = {"double_bit/total", "sram_uncorrectable", "sram_uncorrectable_parity",
                                              "sram_uncorrectable_secded", "dram_uncorrectable", NULL};
    set_tristate(g, "ecc_mode/current_ecc", &gpu->ecc_current);
    set_tristate(g, "ecc_mode/pending_ecc", &gpu->ecc_pending);
    const xmlNode *vol = at(g, "ecc_errors/volatile"), *agg = at(g, "ecc_errors/aggregate");
    gpu->ecc_corrected_volatile = sum_counters(vol, corrected);
    gpu->ecc_uncorrected_volatile = sum_counters(vol, uncorrected);
    gpu->ecc_corrected_aggregate = sum_counters(agg, corrected);
    gpu->ecc_uncorrected_aggregate = sum_counters(agg, uncorrected);
    set_int(g, "retired_pages/multiple_single_bit_retirement/retired_count", &gpu->retired_sbe);
    set_int(g, "retired_pages/double_bit_retirement/retired_count", &gpu->retired_dbe);
    set_tristate(g, "retired_pages/pending_retirement", &gpu->retired_pending);
    set_int(g, "remapped_rows/remapped_row_corr", &gpu->remapped_correctable);
    set_int(g, "remapped_rows/remapped_row_unc", &gpu->remapped_uncorrectable);
    set_tristate(g, "remapped_rows/remapped_row_pending", &gpu->remap_pending);
    set_tristate(g, "remapped_rows/remapped_row_failure", &gpu->remap_failure);
}

static void read_clock_events(const xmlNode *g, struct gpu *gpu)
{
    static const struct {
        const char *name;
        uint64_t bit;
    } reasons[] = {
        {"gpu_idle", GPU_EVENT_GPU_IDLE},
        {"applications_clocks_setting", GPU_EVENT_APP_CLOCKS},
        {"sw_power_cap", GPU_EVENT_SW_POWER_CAP},
        {"hw_slowdown", GPU_EVENT_HW_SLOWDOWN},
        {"sync_boost", GPU_EVENT_SYNC_BOOST},
        {"sw_thermal_slowdown", GPU_EVENT_SW_THERMAL},
        {"hw_thermal_slowdown", GPU_EVENT_HW_THERMAL},
        {"hw_power_brake_slowdown", GPU_EVENT_HW_POWER_BRAKE},
        {"display_clocks_setting", GPU_EVENT_DISPLAY_CLOCKS},
    };
    const char *group = "clocks_event_reasons", *prefix = "clocks_event_reason_";
    if (!child(g, group)) {
        group = "clocks_throttle_reasons";
        prefix = "clocks_throttle_reason_";
    }
    const xmlNode *n = child(g, group);
    if (!n)
        return;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s%s", prefix, reasons[i].name);
        int state = GPU_UNKNOWN;
        set_tristate(n, name, &state);
        if (state != GPU_UNKNOWN)
            gpu->clock_events_known = true;
        if (state == GPU_ON)
            gpu->clock_events |= reasons[i].bit;
    }
}

static void read_power(const xmlNode *g, struct gpu *gpu)
{
    static const char *const groups[] = {"gpu_power_readings", "power_readings"};
    for (size_t i = 0; i < 2; i++) {
        const xmlNode *p = child(g, groups[i]);
        set_double(p, "power_draw", &gpu->power_draw_w);
        set_double(p, "instant_power_draw", &gpu->power_draw_w);
        set_double(p, "average_power_draw", &gpu->power_draw_w);
        set_double(p, "enforced_power_limit", &gpu->power_limit_w);
        set_double(p, "current_power_limit", &gpu->power_limit_w);
        set_double(p, "power_limit", &gpu->power_limit_w);
    }
}

/* <fabric><state>Completed</state><status>Success</status> (driver 525+; "N/A" where the GPU is in
 * no NVSwitch fabric, and on A100 even where it is). */
static void read_fabric(struct machine *m, const char *file, const xmlNode *g, struct gpu *gpu)
{
    char *state = text_at(g, "fabric/state");
    if (!state)
        return;
    gpu->fabric_state = gpu_fabric_state_parse(state);
    if (gpu->fabric_state == GPU_FABRIC_UNKNOWN)
        machine_problem(m, file, "GPU %s: fabric state \"%.40s\" is not one gpuvet knows: unknown", gpu->bus_id, state);
    free(state);
    char *status = text_at(g, "fabric/status");
    if (gpu->fabric_state == GPU_FABRIC_COMPLETED && status) {
        gpu->fabric_status_ok = !strcasecmp(status, "Success") ? GPU_ON : GPU_OFF;
        gpu->fabric_status = status;
        status = NULL;
    }
    free(status);
}

static int read_gpu(struct machine *m, const char *file, const xmlNode *g)
{
    char *bus = text_at(g, "pci/pci_bus_id");
    if (!bus) {
        xmlChar *id = XML(GetProp)(g, (const xmlChar *)"id");
        bus = id ? strdup((const char *)id) : NULL;
        XML(Free)(id);
    }
    char bus_id[PCI_ADDRESS_LEN > sizeof GPU_UNNAMED_SUBJECT ? PCI_ADDRESS_LEN : sizeof GPU_UNNAMED_SUBJECT];
    bool ok = pci_address_normalise(bus, bus_id);
    xmlChar *unnamed = bus ? NULL : XML(GetProp)(g, (const xmlChar *)"unnamed");
    if (unnamed) {
        /* A section pasted without its GPU line: a GPU of the machine the paste came from. */
        snprintf(bus_id, sizeof bus_id, "%s", GPU_UNNAMED_SUBJECT);
        ok = true;
        XML(Free)(unnamed);
    }
    if (!ok) {
        machine_problem(m, file, "a <gpu> element has no valid PCI bus id ('%s')", bus ? bus : "");
        free(bus);
        return -1;
    }
    free(bus);
    struct gpu *gpu = gpu_set_add(&m->gpus);
    if (!gpu)
        return -1;
    snprintf(gpu->bus_id, sizeof gpu->bus_id, "%s", bus_id);
    set_string(g, "product_name", &gpu->name);
    set_string(g, "product_brand", &gpu->brand);
    set_string(g, "uuid", &gpu->uuid);
    set_string(g, "serial", &gpu->serial);
    set_string(g, "vbios_version", &gpu->vbios);
    set_string(g, "gpu_virtualization_mode/virtualization_mode", &gpu->virtualization_mode);
    double mib;
    if (number_at(g, "fb_memory_usage/total", &mib) && mib >= 0 && mib * MIB < 9e18)
        gpu->memory_total_bytes = (int64_t)(mib * MIB);
    set_tristate(g, "persistence_mode", &gpu->persistence);
    set_tristate(g, "mig_mode/current_mig", &gpu->mig_current);
    set_tristate(g, "mig_mode/pending_mig", &gpu->mig_pending);
    char *pstate = text_at(g, "performance_state");
    /* P0..P15; "P99999999999" must not wrap into a plausible state. */
    char *pstate_end = NULL;
    long pstate_number = pstate && pstate[0] == 'P' && isdigit((unsigned char)pstate[1])
                             ? strtol(pstate + 1, &pstate_end, 10) : -1;
    if (pstate_number >= 0 && pstate_number <= 15 && *pstate_end == '\0')
        gpu->pstate = (int)pstate_number;
    else if (pstate)
        machine_problem(m, file, "GPU %s: performance state \"%.40s\" is not P0..P15: unknown", bus_id, pstate);
    free(pstate);
    set_int(g, "pci/pci_gpu_link_info/pcie_gen/current_link_gen", &gpu->pcie_gen_current);
    set_int(g, "pci/pci_gpu_link_info/pcie_gen/max_link_gen", &gpu->pcie_gen_max);
    set_int(g, "pci/pci_gpu_link_info/pcie_gen/max_device_link_gen", &gpu->pcie_gen_gpu_max);
    /* Schema v12+ also names the slot's own top generation; max_link_gen is already the lower of
     * the two in real files, but a lower host figure wins where they disagree (0 is no figure). */
    int host_max = -1;
    set_int(g, "pci/pci_gpu_link_info/pcie_gen/max_host_link_gen", &host_max);
    if (host_max > 0 && (gpu->pcie_gen_max < 0 || host_max < gpu->pcie_gen_max))
        gpu->pcie_gen_max = host_max;
    set_int(g, "pci/pci_gpu_link_info/link_widths/current_link_width", &gpu->pcie_width_current);
    set_int(g, "pci/pci_gpu_link_info/link_widths/max_link_width", &gpu->pcie_width_max);
    set_int64(g, "pci/replay_counter", &gpu->pcie_replays);
    read_ecc(g, gpu);
    set_int(g, "clocks/graphics_clock", &gpu->clock_graphics_mhz);
    set_int(g, "clocks/sm_clock", &gpu->clock_sm_mhz);
    set_int(g, "clocks/mem_clock", &gpu->clock_mem_mhz);
    set_int(g, "max_clocks/graphics_clock", &gpu->max_graphics_mhz);
    set_int(g, "max_clocks/sm_clock", &gpu->max_sm_mhz);
    set_int(g, "max_clocks/mem_clock", &gpu->max_mem_mhz);
    read_clock_events(g, gpu);
    read_power(g, gpu);
    set_int(g, "temperature/gpu_temp", &gpu->temperature_c);
    set_int(g, "temperature/gpu_temp_slow_threshold", &gpu->slowdown_temperature_c);
    set_int(g, "utilization/gpu_util", &gpu->utilization_gpu);
    set_int(g, "utilization/memory_util", &gpu->utilization_memory);
    read_fabric(m, file, g, gpu);
    return 0;
}

/* "12.2" -> 12, 2. */
static void parse_cuda_version(const char *text, int *major, int *minor)
{
    int a, b;
    if (text && sscanf(text, "%d.%d", &a, &b) == 2 && a > 0 && b >= 0) {
        *major = a;
        *minor = b;
    }
}

void nvidia_smi_take_gpus(struct machine *m, const char *file)
{
    /* Evidence replaces what another source said of the GPUs; the runtimes found stay. */
    struct cuda_runtime *runtimes = m->gpus.runtimes;
    int nruntimes = m->gpus.nruntimes;
    bool searched = m->gpus.runtimes_searched;
    m->gpus.runtimes = NULL;
    m->gpus.nruntimes = 0;
    gpu_set_free(&m->gpus);
    m->gpus.runtimes = runtimes;
    m->gpus.nruntimes = nruntimes;
    m->gpus.runtimes_searched = searched;
    m->gpus.probed = true;
    if (asprintf(&m->gpus.source, "nvidia-smi:%s", file) < 0)
        m->gpus.source = NULL;
}

static int read_document(struct machine *m, const char *file, xmlDoc *doc)
{
    const xmlNode *root = XML(DocGetRootElement)(doc);
    if (!root || strcmp((const char *)root->name, "nvidia_smi_log") != 0) {
        machine_problem(m, file, "not `nvidia-smi -q -x` output (root element <%s>, expected <nvidia_smi_log>)",
                        root ? (const char *)root->name : "none");
        return -1;
    }
    nvidia_smi_take_gpus(m, file);
    m->gpus.driver_version = text_at(root, "driver_version");
    char *cuda = text_at(root, "cuda_version");
    parse_cuda_version(cuda, &m->gpus.cuda_major, &m->gpus.cuda_minor);
    free(cuda);
    set_int(root, "attached_gpus", &m->gpus.attached_gpus);
    int status = 0, seen = 0;
    refused_numbers = 0;
    for (const xmlNode *c = root->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "gpu") != 0)
            continue;
        /* Bounded: the GPU-pair work downstream is quadratic in the count. */
        if (++seen > GPU_MAX_PER_NODE)
            continue;
        if (read_gpu(m, file, c) != 0)
            status = -1;
    }
    if (refused_numbers == 1)
        machine_problem(m, file, "1 number out of range (inf, nan or beyond %g) read as unknown: %s",
                        NVIDIA_SMI_NUMBER_MAX, first_refused);
    else if (refused_numbers > 1)
        machine_problem(m, file, "%d numbers out of range (inf, nan or beyond %g) read as unknown; the first: %s",
                        refused_numbers, NVIDIA_SMI_NUMBER_MAX, first_refused);
    if (seen > GPU_MAX_PER_NODE)
        machine_problem(m, file, "holds %d <gpu> elements; only the first %d are read (no node has more)", seen,
                        GPU_MAX_PER_NODE);
    virt_from_gpus(m, "nvidia-smi");
    return status;
}

static int parse_failed(struct machine *m, const char *file)
{
    const xmlError *e = XML(GetLastError)();
    if (e && e->message) {
        char said[448]; /* libxml2's own words, in English */
        snprintf(said, sizeof said, "%s", e->message);
        size_t n = strlen(said);
        while (n && (said[n - 1] == '\n' || said[n - 1] == ' '))
            said[--n] = '\0';
        machine_problem(m, file, "malformed XML at line %d: %s", e->line, said);
    } else {
        machine_problem(m, file, "could not be parsed");
    }
    return -1;
}

/* Real files are under 1 MB per GPU; anything this big is not nvidia-smi output. */
#define NVIDIA_SMI_MAX_BYTES (64u << 20)

/* SAX hook: the first entity declaration stops the parse, before any entity could expand.
 * Real nvidia-smi output names an external DTD (not loaded) and declares no entities; a file
 * that nests them (a "billion laughs") took a minute and gigabytes to expand. */
static void refuse_entity(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                          const xmlChar *system_id, xmlChar *content)
{
    (void)name, (void)type, (void)public_id, (void)system_id, (void)content;
    xmlParserCtxtPtr ctxt = ctx;
    *(bool *)ctxt->_private = true;
    XML(StopParser)(ctxt);
}

/* What nvidia-smi's failure lines say, onto the GPUs read (or none). */
static void take_failures(struct machine *m, const struct smi_failures *f)
{
    struct gpu_set *s = &m->gpus;
    s->smi_unreachable = f->unreachable;
    for (int i = 0; i < f->unreachable && i < GPU_SMI_UNREACHABLE_MAX; i++) {
        char bus[PCI_ADDRESS_LEN];
        if (!f->items[i].bus_id[0] || !pci_address_normalise(f->items[i].bus_id, bus))
            bus[0] = '\0';
        snprintf(s->smi_unreachable_items[i].bus_id, sizeof s->smi_unreachable_items[i].bus_id, "%s", bus);
        snprintf(s->smi_unreachable_items[i].said, sizeof s->smi_unreachable_items[i].said, "%s", f->items[i].said);
    }
    /* No GPU described: every GPU fact is unknown, for the reason nvidia-smi gave in its own words. */
    const char *why = f->nothing[0] ? f->nothing : f->unreachable > 0 ? f->items[0].said : NULL;
    if (s->count == 0 && why && !s->unknown_reason && asprintf(&s->unknown_reason, "nvidia-smi: \"%s\"", why) < 0)
        s->unknown_reason = NULL;
}

static int read_buffer(struct machine *m, const char *file, const char *text, size_t len)
{
    if (len > NVIDIA_SMI_MAX_BYTES) {
        machine_problem(m, file, "is %zu bytes: too large for `nvidia-smi -q -x` output", len);
        return -1;
    }
    const char *lead = text;
    while (lead < text + len && isspace((unsigned char)*lead))
        lead++;
    /* nvidia-smi's failure lines are text: an XML document's content is never read as one. */
    struct smi_failures failures;
    bool failed = strlen(text) == len && (lead == text + len || *lead != '<') &&
                  nvidia_smi_text_failures(text, &failures);
    /* `nvidia-smi -q` text: the same facts under the text's names, read as the XML they stand for. */
    char no_library[256];
    if (strlen(text) == len && nvidia_smi_text_is_q(text)) {
        if (!xml_lib_get(no_library, sizeof no_library)) {
            machine_problem(m, file, "cannot be read: %s", no_library);
            return -1;
        }
        int sections = 0;
        xmlDoc *doc = nvidia_smi_text_to_xml(text, &sections);
        if (!doc) {
            machine_problem(m, file, "cannot be parsed: out of memory");
            return -1;
        }
        int rc = read_document(m, file, doc);
        XML(FreeDoc)(doc);
        if (sections > GPU_MAX_PER_NODE)
            machine_problem(m, file, "holds %d GPU sections; only the first %d are read (no node has more)", sections,
                            GPU_MAX_PER_NODE);
        if (rc == 0 && failed)
            take_failures(m, &failures);
        return rc;
    }
    if (failed) {
        nvidia_smi_take_gpus(m, file);
        take_failures(m, &failures);
        return 0;
    }
    const char *first = text;
    while (first < text + len && isspace((unsigned char)*first))
        first++;
    if (first < text + len && *first != '<') {
        machine_problem(m, file, "holds no nvidia-smi evidence; looked for `nvidia-smi -q -x` XML, `nvidia-smi -q` "
                                 "text or a section of it (\"GPU 00000000:3B:00.0\", \"ECC Errors\", \"Remapped "
                                 "Rows\", \"Fabric\" ...), `nvidia-smi nvlink -s`/`-e` text (\"GPU 0: ...\", \"Link "
                                 "0: ...\") and nvidia-smi's error messages (\"Unable to determine the device handle\", "
                                 "\"No devices were found\", \"Failed to initialize NVML\")");
        return -1;
    }
    if (!xml_lib_get(no_library, sizeof no_library)) {
        machine_problem(m, file, "cannot be read: %s", no_library);
        return -1;
    }
    XML(ResetLastError)();
    xmlParserCtxtPtr ctxt = XML(NewParserCtxt)();
    if (!ctxt) {
        machine_problem(m, file, "cannot be parsed: out of memory");
        return -1;
    }
    bool declares_entities = false;
    ctxt->_private = &declares_entities;
    ctxt->sax->entityDecl = refuse_entity;
    /* No network, no DTD loading (the files name nvsmi_device_vN.dtd, which is not shipped), no
     * entity substitution (XML_PARSE_NOENT is not given). */
    xmlDoc *doc = XML(CtxtReadMemory)(ctxt, text, (int)len, file, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    XML(FreeParserCtxt)(ctxt);
    if (declares_entities) {
        XML(FreeDoc)(doc);
        machine_problem(m, file, "declares XML entities: not `nvidia-smi -q -x` output (refused unexpanded)");
        return -1;
    }
    if (!doc)
        return parse_failed(m, file);
    int rc = read_document(m, file, doc);
    XML(FreeDoc)(doc);
    return rc;
}

int probe_nvidia_smi_file(struct machine *m, const char *path)
{
    char why[256];
    size_t len = 0;
    char *text = (char *)input_file_read(path, NVIDIA_SMI_MAX_BYTES, &len, why, sizeof why);
    if (!text) {
        char *said;
        i18n_asprintf(&said, "cannot be read: %s", _(why));
        if (said)
            machine_problem_reason(m, path, said);
        free(said);
        return -1;
    }
    int rc = read_buffer(m, path, text, len);
    free(text);
    return rc;
}

int probe_nvidia_smi_files(struct machine *m, const char *const *paths, int n)
{
    char *texts[NVIDIA_SMI_MAX_FILES] = {0};
    int status = 0;
    if (n > NVIDIA_SMI_MAX_FILES)
        n = NVIDIA_SMI_MAX_FILES;
    for (int i = 0; i < n && status == 0; i++) {
        char why[256];
        size_t len = 0;
        char *text = (char *)input_file_read(paths[i], NVIDIA_SMI_MAX_BYTES, &len, why, sizeof why);
        if (!text) {
            char *said;
            i18n_asprintf(&said, "cannot be read: %s", _(why));
            if (said)
                machine_problem_reason(m, paths[i], said);
            free(said);
            status = -1;
        } else if (strlen(text) == len && nvidia_smi_text_is_nvlink(text)) {
            texts[i] = text; /* after every XML file: it completes the GPUs they describe */
        } else {
            status = read_buffer(m, paths[i], text, len);
            free(text);
        }
    }
    for (int i = 0; i < n; i++) {
        if (texts[i] && status == 0)
            status = probe_nvidia_smi_nvlink_text(m, paths[i], texts[i]);
        free(texts[i]);
    }
    return status;
}

int probe_nvidia_smi_recorded(struct machine *m)
{
    char *text = fs_read(NVIDIA_SMI_SNAPSHOT_FILE);
    if (!text)
        return 1;
    char shown[4096];
    fsroot_path(shown, sizeof shown, NVIDIA_SMI_SNAPSHOT_FILE);
    int rc = read_buffer(m, shown, text, strlen(text));
    free(text);
    return rc;
}
