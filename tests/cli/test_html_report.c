/* `gpuvet audit --html FILE` and `--markdown FILE` on every recorded machine (each sysroot tree,
 * dmidecode and nvidia-smi fixture) and on this machine. Each page is opened in headless
 * Chromium (Debian's chromium, installed by scripts/test.sh) and screenshotted into
 * build/html-report-screenshots/; one browser renders all the pages of a test
 * (tests/support/render_pages.py, DevTools protocol on a pipe), as a browser start with a fresh
 * profile costs many times what a page does. A page fails the test when:
 *  - Chromium reports any console message, log entry or exception (the page has no script: a
 *    message can only be an error such as a blocked load or a Content-Security-Policy violation), or
 *  - the page starts any request (Network.requestWillBeSent for a URL other than its own);
 *  - the HTML names a remote resource at all (http:, https:, url(), <script>, <link>, <img>...);
 *  - an accelerator of the machine is missing from the topology picture, or a degraded link
 *    (PCIE_LINK_DEGRADED warn/fail) is not drawn as degraded, or a link is red with no finding.
 * The Markdown must hold well-formed GitHub tables and every accelerator. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define SCREENSHOTS GPUVET_FIXTURES "/../html-report-screenshots"

/* The pages of one test, rendered together by render_batch. */
struct batch {
    char dir[64];
    char *pages[128];
    char *names[128];
    int n;
};

static void batch_open(struct batch *b)
{
    *b = (struct batch){.dir = "/tmp/gpuvet-html-XXXXXX"};
    cr_assert_not_null(mkdtemp(b->dir));
}

/* The path the next page is to be written to, named after the case. */
static const char *batch_page(struct batch *b, const char *name)
{
    cr_assert_lt(b->n, 128, "more than 128 pages in one batch");
    cr_assert_neq(asprintf(&b->pages[b->n], "%s/%s.html", b->dir, name), -1);
    b->names[b->n] = strdup(name);
    return b->pages[b->n++];
}

static const char *chromium_binary(void)
{
    static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (access(names[i], X_OK) == 0)
            return names[i];
    cr_assert_fail("chromium is not installed: scripts/test.sh installs it (a test dependency)");
    return NULL;
}

/* The data-link mark of the topology device drawn for bus_id, or NULL when none is drawn. */
static const char *device_mark(const char *page, const char *bus_id)
{
    static char mark[32];
    char want[96];
    snprintf(want, sizeof want, "data-bus=\"%s\"", bus_id);
    for (const char *at = strstr(page, want); at; at = strstr(at + 1, want)) {
        const char *tag = at;
        while (tag > page && *tag != '<')
            tag--;
        if (strncmp(tag, "<g class=\"topo-device\" data-link=\"", 34) != 0)
            continue;
        const char *value = tag + 34, *end = strchr(value, '"');
        snprintf(mark, sizeof mark, "%.*s", (int)(end - value), value);
        return mark;
    }
    return NULL;
}

static void check_no_remote_reference(const char *page, const char *name)
{
    /* A source URL may appear as text (a finding cites a vendor page); as an attribute or a CSS
     * url() it would be fetched. */
    static const char *const forbidden[] = {"=\"http", "='http", "=http", "(http", "(\"http", "url(", "<script",
                                            "<link", "<img", "<iframe", "<object", "<embed", "@import", "src=",
                                            "//fonts", "<base"};
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++)
        cr_assert_null(strstr(page, forbidden[i]), "%s: the page contains '%s'", name, forbidden[i]);
    cr_assert_not_null(strstr(page, "Content-Security-Policy\" content=\"default-src 'none'"),
                       "%s: the page lost its no-fetch policy", name);
}

/* Renders every page of the batch in one Chromium; fails on a console message, a request the page
 * made or a missing screenshot; removes the batch's folder. */
static void render_batch(struct batch *b)
{
    mkdir(SCREENSHOTS, 0755);
    char *cmd = NULL;
    size_t len = 0;
    FILE *c = open_memstream(&cmd, &len);
    fprintf(c, "timeout 600 python3 '%s/support/render_pages.py' '%s' '%s/profile' '%s'", GPUVET_TEST_SOURCE,
            chromium_binary(), b->dir, SCREENSHOTS);
    for (int i = 0; i < b->n; i++)
        fprintf(c, " '%s=%s'", b->names[i], b->pages[i]);
    fclose(c);
    int status;
    char *out = run_shell(cmd, &status);
    cr_assert_eq(status, 0, "Chromium did not render the pages (%d): %s", status, out);
    int rendered = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t error;
        json_t *page = json_loads(line, 0, &error);
        cr_assert_not_null(page, "render_pages.py: not JSON: %s", line);
        const char *name = json_string_value(json_object_get(page, "name"));
        json_t *console = json_object_get(page, "console"), *requests = json_object_get(page, "requests");
        cr_assert_eq(json_array_size(console), 0, "%s: console message: %s", name,
                     json_string_value(json_array_get(console, 0)));
        cr_assert_eq(json_array_size(requests), 0, "%s: the page made a network request: %s", name,
                     json_string_value(json_array_get(requests, 0)));
        char png[1024];
        snprintf(png, sizeof png, "%s/%s.png", SCREENSHOTS, name);
        size_t bytes = 0;
        char *image = file_contents(png, &bytes);
        cr_assert(bytes > 10000 && !memcmp(image, "\x89PNG", 4), "%s: no screenshot in %s (%zu bytes)", name, png,
                  bytes);
        free(image);
        json_decref(page);
        rendered++;
    }
    cr_assert_eq(rendered, b->n, "%d of %d pages rendered: %s", rendered, b->n, out);
    fprintf(stderr, "%d pages rendered in one Chromium, none with a console message or a request\n", rendered);
    free(out);
    free(cmd);
    for (int i = 0; i < b->n; i++) {
        free(b->pages[i]);
        free(b->names[i]);
    }
    tree_remove(b->dir);
}

static void bus_ids(json_t *list, json_t *out)
{
    json_t *item;
    size_t i;
    json_array_foreach(list, i, item)
    {
        json_t *bus = json_object_get(item, "bus_id");
        if (json_is_string(bus))
            json_array_append(out, bus);
    }
}

/* Audits with args, writes both documents and checks them; the page joins the batch to render. */
static void check_machine(struct batch *b, const char *name, const char *const *args, int nargs)
{
    const char *html = batch_page(b, name);
    char md[1024];
    snprintf(md, sizeof md, "%s/%s.md", b->dir, name);
    const char *a[16] = {NULL};
    for (int i = 0; i < nargs; i++)
        a[i] = args[i];
    struct run_result r = run_gpuvet("audit", "--json", "--html", html, "--markdown", md, a[0], a[1], a[2], a[3], NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s: exit %d: %s", name, r.status, r.err);
    json_t *doc = run_json(&r);
    char *page = file_contents(html, NULL), *text = file_contents(md, NULL);
    check_no_remote_reference(page, name);

    json_t *accelerators = json_array();
    json_t *machine = json_object_get(doc, "machine");
    bus_ids(json_object_get(machine, "accelerators"), accelerators);
    bus_ids(json_object_get(machine, "gpus"), accelerators);
    json_t *bus;
    size_t i;
    json_array_foreach(accelerators, i, bus)
    {
        const char *id = json_string_value(bus);
        cr_assert_not_null(device_mark(page, id), "%s: accelerator %s not in the topology picture", name, id);
        cr_assert_not_null(strstr(text, id), "%s: accelerator %s not in the Markdown", name, id);
    }
    int degraded = 0;
    json_t *finding;
    json_array_foreach(json_object_get(doc, "findings"), i, finding)
    {
        const char *id = json_string_value(json_object_get(finding, "id"));
        const char *severity = json_string_value(json_object_get(finding, "severity"));
        const char *subject = json_string_value(json_object_get(finding, "subject"));
        if (strcmp(id, "PCIE_LINK_DEGRADED") != 0 || (strcmp(severity, "warn") != 0 && strcmp(severity, "fail") != 0))
            continue;
        degraded++;
        const char *mark = device_mark(page, subject);
        cr_assert(mark && !strcmp(mark, "degraded"), "%s: degraded link of %s drawn as %s", name, subject,
                  mark ? mark : "nothing");
        bool marked = false;
        for (const char *at = strstr(text, subject); at && !marked; at = strstr(at + 1, subject)) {
            const char *eol = strchr(at, '\n');
            marked = eol && memmem(at, (size_t)(eol - at), "DEGRADED LINK", 13);
        }
        cr_assert(marked, "%s: %s not marked as a degraded link in the Markdown topology", name, subject);
    }
    cr_assert_eq(count_of(page, "<g class=\"topo-device\" data-link=\"degraded\""), degraded,
                 "%s: red links without a PCIE_LINK_DEGRADED finding", name);
    cr_assert_geq(markdown_check_tables(text, name), 1, "%s: the Markdown has no findings table", name);
    fprintf(stderr, "%s: %zu accelerators, %d degraded links\n", name, json_array_size(accelerators), degraded);

    json_decref(accelerators);
    json_decref(doc);
    free(page);
    free(text);
    run_result_free(&r);
}

/* Every entry of a fixture folder whose name ends in suffix (sysroot trees: suffix NULL, folders). */
static void each_fixture(const char *folder, const char *suffix, const char *option)
{
    DIR *d = opendir(folder);
    cr_assert_not_null(d, "%s", folder);
    struct batch b;
    batch_open(&b);
    int checked = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[2048], name[512];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || stat(path, &st) != 0)
            continue;
        size_t len = strlen(e->d_name);
        if (suffix ? !S_ISREG(st.st_mode) || len < strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix)
                   : !S_ISDIR(st.st_mode))
            continue;
        snprintf(name, sizeof name, "%s", e->d_name);
        for (char *p = name; *p; p++)
            if (*p == '+' || *p == '.')
                *p = '_';
        const char *args[] = {option, path};
        check_machine(&b, name, args, 2);
        checked++;
    }
    closedir(d);
    cr_assert_gt(checked, 0, "no fixture in %s", folder);
    render_batch(&b);
}

Test(html_report, every_recorded_tree)
{
    each_fixture(GPUVET_FIXTURES "/sysroot", NULL, "--sysroot");
}

Test(html_report, every_dmidecode_file)
{
    each_fixture(GPUVET_TEST_SOURCE "/fixtures/dmidecode", ".dmidecode.txt", "--dmidecode");
}

Test(html_report, every_nvidia_smi_file)
{
    each_fixture(GPUVET_TEST_SOURCE "/fixtures/nvidia-smi", ".xml", "--nvidia-smi");
}

Test(html_report, this_machine)
{
    const char *args[] = {"--sample", "0"};
    struct batch b;
    batch_open(&b);
    check_machine(&b, "this-machine", args, 2);
    render_batch(&b);
}

/* The x1 risers of the GTX 1070 file: both links red, so the degraded check above has cases. */
Test(html_report, degraded_links_are_red)
{
    char dir[] = "/tmp/gpuvet-html-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char html[256];
    snprintf(html, sizeof html, "%s/report.html", dir);
    struct run_result r = run_gpuvet("audit", "--nvidia-smi",
                                     GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/pai-6x-gtx1070-x1-links.xml", "--html",
                                     html, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    char *page = file_contents(html, NULL);
    cr_assert_str_eq(device_mark(page, "0000:01:00.0"), "degraded");
    cr_assert_str_eq(device_mark(page, "0000:03:00.0"), "degraded");
    cr_assert_not_null(strstr(page, "stroke=\"#d40000\""), "drawn in red");
    free(page);
    run_result_free(&r);
    tree_remove(dir);
}

/* Text from files is escaped: a hostile host name cannot inject markup into either format. */
Test(html_report, text_from_files_is_escaped)
{
    char *tree = fixture_copy("sysroot/16amd64-8n2c");
    char folder[700];
    snprintf(folder, sizeof folder, "%s/proc/sys", tree);
    mkdir(folder, 0755);
    snprintf(folder, sizeof folder, "%s/proc/sys/kernel", tree);
    mkdir(folder, 0755);
    tree_write(tree, "proc/sys/kernel/hostname", "<script>x</script>|a*b\n");
    char html[700], md[700];
    snprintf(html, sizeof html, "%s/r.html", tree);
    snprintf(md, sizeof md, "%s/r.md", tree);
    struct run_result r = run_gpuvet("audit", "--sysroot", tree, "--html", html, "--markdown", md, NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    char *page = file_contents(html, NULL), *text = file_contents(md, NULL);
    cr_assert_null(strstr(page, "<script>"), "raw markup in the page");
    cr_assert_not_null(strstr(page, "&lt;script&gt;x&lt;/script&gt;"));
    cr_assert_not_null(strstr(text, "\\<script\\>x\\</script\\>\\|a\\*b"), "%s", text);
    free(page);
    free(text);
    run_result_free(&r);
    tree_remove(tree);
    free(tree);
}

/* --bench: the measured rates stand in the page and the ticket, with why a theory is missing. */
Test(html_report, bench_results_against_theory)
{
    char dir[] = "/tmp/gpuvet-html-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char html[256], md[256];
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    struct run_result r = run_gpuvet("audit", "--sample", "0", "--bench",
                                     GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-quick.json", "--html", html,
                                     "--markdown", md, NULL);
    cr_assert(r.status <= 1, "%s", r.err);
    char *page = file_contents(html, NULL), *text = file_contents(md, NULL);
    cr_assert_not_null(strstr(page, "<section id=\"bench\">"));
    cr_assert_not_null(strstr(page, "13.87"), "the file's triad, 13.87 GB/s");
    cr_assert_not_null(strstr(text, "| memory, STREAM triad (whole machine) | 13.87 |"), "%s", text);
    cr_assert_not_null(strstr(text, "| PCIe | - | ? |  | not measured: "), "%s", text);
    markdown_check_tables(text, "bench");
    free(page);
    free(text);
    run_result_free(&r);
    tree_remove(dir);
}

/* One module of the Gigabyte's 16 made 32 GiB: that slot, and only it, is drawn mismatched. */
Test(html_report, a_mismatched_dimm_is_marked)
{
    char dir[] = "/tmp/gpuvet-html-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char input[256], html[256], md[256], cmd[1024];
    snprintf(input, sizeof input, "%s/dmi.txt", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    snprintf(cmd, sizeof cmd, "sed '0,/^\tSize: 16384 MB/s//\tSize: 32768 MB/' '%s' > '%s'",
             GPUVET_TEST_SOURCE "/fixtures/dmidecode/gigabyte-g482-z54-2p-epyc-ddr4-16of32.dmidecode.txt", input);
    cr_assert_eq(system(cmd), 0);
    struct run_result r = run_gpuvet("audit", "--dmidecode", input, "--html", html, "--markdown", md, NULL);
    cr_assert(r.status <= 1, "%s", r.err);
    char *page = file_contents(html, NULL), *text = file_contents(md, NULL);
    cr_assert_eq(count_of(page, "<td class=\"dimm mismatched\">"), 1);
    cr_assert_eq(count_of(page, "<td class=\"dimm\">"), 15);
    cr_assert_eq(count_of(text, "32 GiB DDR4 3200 MT/s **mismatched**"), 1, "%s", text);
    free(page);
    free(text);
    run_result_free(&r);
    tree_remove(dir);
}

/* The 8-VE tree's Intel NICs run Gen1 x1 because their port allows no more (PCIE_SLOT_CAPPED
 * warn): drawn as capped, not as a link at its max, in the picture and the Markdown. A finding's
 * evidence reads as words: no JSON braces or quotes, no "null", no reason the message already
 * gives; a claim nothing was found for says so without "found null". */
Test(html_report, capped_links_and_evidence_read_as_words)
{
    char dir[] = "/tmp/gpuvet-html-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char html[256], md[256];
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(md, sizeof md, "%s/report.md", dir);
    struct run_result r = run_gpuvet("audit", "--sample", "0", "--sysroot", fixture("sysroot/32intel64-2p8co2t+8ve"),
                                     "--claim", GPUVET_TEST_SOURCE "/fixtures/claims/offer-2x-silver-4108.json",
                                     "--html", html, "--markdown", md, NULL);
    cr_assert(r.status <= 1, "%s", r.err);
    char *page = file_contents(html, NULL), *text = file_contents(md, NULL);
    cr_expect_str_eq(device_mark(page, "0000:60:00.0"), "capped");
    cr_expect_str_eq(device_mark(page, "0000:60:00.1"), "capped");
    cr_expect_str_eq(device_mark(page, "0000:1b:00.0"), "ok");
    cr_expect(strstr(page, "CAPPED BY PORT") && strstr(page, "capped by its port"), "mark and legend");
    cr_expect(strstr(text, "0000:60:00.0 Intel Corporation Ethernet Connection X722 for 10GBASE-T: Gen1 x1 (max "
                           "Gen3 x1) **CAPPED BY ITS PORT**"),
              "%s", text);
    cr_expect(strstr(page, "link = (current_gt_s=2.5, current_width=1, max_gt_s=8.0, max_width=1)"), "%s", page);
    cr_expect(strstr(page, "devices = [(bus_id=0000:1a:00.0, role=nic, gb_s=15.7538), "), "%s", page);
    for (const char *at = strstr(page, "class=\"evidence\""); at; at = strstr(at + 1, "class=\"evidence\"")) {
        const char *end = strstr(at, "</div>");
        cr_assert_not_null(end);
        for (const char *bad = at; bad < end; bad++)
            cr_expect(*bad != '{' && strncmp(bad, "&quot;", 6) && strncmp(bad, "null", 4),
                      "evidence reads as JSON: %.*s", (int)(end - at), at);
    }
    cr_expect_null(strstr(page, "reason = no kernel log in the recorded tree"), "the message already says it");
    cr_expect_null(strstr(page, "found null"), "%s", page);
    cr_expect(strstr(page, "claimed &quot;A100&quot;: GPU models unknown"), "%s", page);
    free(page);
    free(text);
    run_result_free(&r);
    tree_remove(dir);
}

/* The DGX Spark tree has no /sys/bus/pci/devices: its summary line says the accelerators are
 * unknown, as the text report does, not "0 accelerators". */
Test(html_report, unread_pci_bus_is_not_zero_accelerators)
{
    struct run_result r =
        run_gpuvet("audit", "--sample", "0", "--sysroot", fixture("sysroot/nvidia-dgx-gb10"), "--html", "-", NULL);
    cr_assert(r.status <= 2, "%s", r.err);
    cr_expect(strstr(r.out, "; accelerators unknown (the PCI bus could not be read)"), "%s", r.out);
    cr_expect_null(strstr(r.out, "0 accelerators"), "%s", r.out);
    run_result_free(&r);
}
