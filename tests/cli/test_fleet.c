/* `gpuvet fleet`, `gpuvet compare` and `--output`: a fleet of real recorded machines (hwloc's
 * 2x Xeon Silver 4108 tree with 8 NEC Vector Engines and the SYS-4029GP-TRT2 dmidecode, and the
 * H200 Firecracker VM), each audited by the built gpuvet as several hosts, with four mutated nodes:
 * one accelerator link at x8 (a sysfs edit), one socket missing a DIMM (the dmidecode text with
 * that module removed), an older NVIDIA driver (nvidia-smi.xml), and memory bandwidth 10 % low
 * (the recorded bench document). Exactly those nodes must be named, with the difference. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "testutil.h"

#define SILVER_TREE "sysroot/32intel64-2p8co2t+8ve"
#define H200_TREE "sysroot/h200-firecracker-vm"
#define SILVER_DMI GPUVET_TEST_SOURCE "/fixtures/dmidecode/supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24.dmidecode.txt"
#define BENCH_DOC GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-quick.json"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* text with its first `from` replaced by `to` (which must be there); the caller frees. */
static char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "'%s' not found", from);
    size_t head = (size_t)(at - text), n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

static char *make_temp_dir(void)
{
    char tmpl[] = "/tmp/gpuvet-fleet-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

static void audit_to(const char *out, const char *root, const char *dmidecode)
{
    struct run_result r = dmidecode ? run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", root, "--dmidecode",
                                                 dmidecode, "--output", out, NULL)
                                    : run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", root, "--output",
                                                 out, NULL);
    cr_assert(r.status == 0 || r.status == 1, "audit of %s: exit %d: %s", root, r.status, r.err);
    cr_assert_str_eq(r.out, "", "--output leaves stdout empty");
    run_result_free(&r);
}

/* The dmidecode text with the module in P2-DIMMD1 (socket 1) taken out: its slot reads as SMBIOS
 * reports an empty one. */
static char *dmidecode_without_p2_dimmd1(const char *dir)
{
    char *text = read_text(SILVER_DMI);
    char *locator = strstr(text, "\tLocator: P2-DIMMD1\n");
    cr_assert_not_null(locator);
    char *size = locator;
    while (size > text && strncmp(size, "\tSize: ", 7))
        size--;
    cr_assert(!strncmp(size, "\tSize: 8192 MB\n", 15), "the P2-DIMMD1 block has an 8 GB module");
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/dimm-removed.dmidecode.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "%.*s\tSize: No Module Installed\n%s", (int)(size - text), text, size + 15);
    fclose(f);
    free(text);
    return path;
}

struct test_fleet {
    char *work, *docs;
    char *trees[8];
    int ntrees;
};

/* sv01..sv06 (sv03 x8, sv05 a DIMM short) and vm01..vm05 (vm04 an older driver, vm02's bench
 * 10 % low in memory triad), all in one directory. */
static void build_fleet(struct test_fleet *t)
{
    memset(t, 0, sizeof *t);
    t->work = make_temp_dir();
    t->docs = malloc(4096);
    snprintf(t->docs, 4096, "%s/docs", t->work);
    cr_assert_eq(mkdir(t->docs, 0755), 0);
    char path[4096];

    char *x8 = fixture_copy(SILVER_TREE);
    tree_write(x8, "sys/bus/pci/devices/0000:1b:00.0/current_link_width", "8\n");
    t->trees[t->ntrees++] = x8;
    char *dmi_short = dmidecode_without_p2_dimmd1(t->work);
    for (int i = 1; i <= 6; i++) {
        /* This tree records no host name: each node is named by its file. */
        snprintf(path, sizeof path, "%s/sv%02d.json", t->docs, i);
        audit_to(path, i == 3 ? x8 : fixture(SILVER_TREE), i == 5 ? dmi_short : SILVER_DMI);
    }
    free(dmi_short);

    json_error_t error;
    for (int i = 1; i <= 5; i++) {
        char *tree = fixture_copy(H200_TREE), host[16];
        t->trees[t->ntrees++] = tree;
        snprintf(host, sizeof host, "vm%02d\n", i);
        tree_write(tree, "proc/sys/kernel/hostname", host);
        if (i == 4) {
            snprintf(path, sizeof path, "%s/nvidia-smi.xml", tree);
            char *xml = read_text(path);
            char *older = replace_once(xml, "<driver_version>580.159.04</driver_version>",
                                       "<driver_version>570.86.15</driver_version>");
            tree_write(tree, "nvidia-smi.xml", older);
            free(xml);
            free(older);
        }
        snprintf(path, sizeof path, "%s/vm%02d.json", t->docs, i);
        audit_to(path, tree, NULL);

        json_t *bench = json_load_file(BENCH_DOC, 0, &error);
        cr_assert_not_null(bench, "%s", error.text);
        host[4] = '\0';
        json_object_set_new(bench, "hostname", json_string(host));
        json_t *memory = json_object_get(json_object_get(bench, "benchmarks"), "memory");
        double triad = json_number_value(json_object_get(memory, "triad_bytes_s"));
        cr_assert(triad > 0);
        if (i == 2)
            json_object_set_new(memory, "triad_bytes_s", json_real(triad * 0.9));
        snprintf(path, sizeof path, "%s/vm%02d-bench.json", t->docs, i);
        cr_assert_eq(json_dump_file(bench, path, 0), 0);
        json_decref(bench);
    }
}

static void free_fleet(struct test_fleet *t)
{
    for (int i = 0; i < t->ntrees; i++) {
        tree_remove(t->trees[i]);
        free(t->trees[i]);
    }
    tree_remove(t->work);
    free(t->work);
    free(t->docs);
}

static json_t *group_of(json_t *doc, const char *hosts)
{
    json_t *g = array_entry(json_object_get(doc, "groups"), "hosts", hosts);
    cr_assert_not_null(g, "no group %s in %s", hosts, json_dumps(doc, JSON_COMPACT));
    return g;
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The differences of odd node `host`, after checking that they are in exactly `fields` ("a,b"). */
static json_t *differences_of(json_t *odd_nodes, const char *host, const char *fields)
{
    json_t *node = array_entry(odd_nodes, "host", host);
    cr_assert_not_null(node, "%s is not named: %s", host, json_dumps(odd_nodes, JSON_COMPACT));
    json_t *differences = json_object_get(node, "differences"), *d;
    char got[256] = "";
    size_t i;
    json_array_foreach(differences, i, d)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? "," : "", str(d, "field"));
    cr_assert_str_eq(got, fields, "%s", host);
    return differences;
}

Test(fleet, names_exactly_the_mutated_nodes_with_their_difference)
{
    struct test_fleet t;
    build_fleet(&t);
    struct run_result r = run_gpuvet("fleet", "--json", t.docs, NULL);
    cr_assert_eq(r.status, 1, "odd nodes exit 1; stderr: %s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(str(doc, "schema"), "gpuvet.fleet/1");
    cr_assert_eq(json_integer_value(json_object_get(doc, "nodes")), 11);
    cr_assert_eq(json_integer_value(json_object_get(doc, "audit_documents")), 11);
    cr_assert_eq(json_integer_value(json_object_get(doc, "bench_documents")), 5);
    cr_assert_str_eq(str(doc, "odd_hosts"), "sv[03,05],vm[02,04]");
    cr_assert_eq(json_array_size(json_object_get(doc, "groups")), 2);

    json_t *sv = group_of(doc, "sv[01-06]"), *odd = json_object_get(sv, "odd_nodes");
    cr_assert_eq(json_array_size(odd), 2, "%s", json_dumps(odd, JSON_COMPACT));
    json_t *d = json_array_get(differences_of(odd, "sv03", "accelerators.links"), 0);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "missing"), 0)), "0000:1b:00.0 Gen3 x16");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "extra"), 0)), "0000:1b:00.0 Gen3 x8 of x16");
    cr_assert_eq(json_array_size(json_object_get(d, "missing")), 1, "only that accelerator differs");

    json_t *short_dimm = differences_of(odd, "sv05", "memory.channels,memory.dimms");
    d = json_array_get(short_dimm, 0);
    cr_assert_str_eq(str(d, "value"), "socket 0: 2 channels, socket 1: 1 channel");
    cr_assert_str_eq(str(d, "majority"), "socket 0: 2 channels, socket 1: 2 channels");
    d = json_array_get(short_dimm, 1);
    cr_assert_eq(json_array_size(json_object_get(d, "missing")), 1);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "missing"), 0)),
                     "socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s");
    cr_assert_eq(json_array_size(json_object_get(d, "extra")), 0);
    /* The narrowed link is a fail finding on that node alone. */
    json_t *partial = array_entry(json_object_get(sv, "partial_findings"), "id", "PCIE_LINK_DEGRADED");
    cr_assert_not_null(partial);
    cr_assert_str_eq(str(partial, "hosts"), "sv03");
    cr_assert_str_eq(str(partial, "severity"), "fail");
    cr_assert_str_eq(str(partial, "subject"), "0000:1b:00.0");

    json_t *vm = group_of(doc, "vm[01-05]");
    odd = json_object_get(vm, "odd_nodes");
    cr_assert_eq(json_array_size(odd), 1, "%s", json_dumps(odd, JSON_COMPACT));
    d = json_array_get(differences_of(odd, "vm04", "nvidia.driver_version"), 0);
    cr_assert_str_eq(str(d, "value"), "570.86.15");
    cr_assert_str_eq(str(d, "majority"), "580.159.04");
    size_t i;
    json_t *metric;
    json_array_foreach(json_object_get(vm, "bench"), i, metric) {
        json_t *low = json_object_get(metric, "low");
        cr_assert_eq(json_integer_value(json_object_get(metric, "measured")), 5);
        if (strcmp(str(metric, "metric"), "memory_triad_bytes_s")) {
            cr_assert_eq(json_array_size(low), 0, "%s: no node low", str(metric, "metric"));
            continue;
        }
        cr_assert_eq(json_array_size(low), 1);
        cr_assert_str_eq(str(json_array_get(low, 0), "host"), "vm02");
        double ratio = json_number_value(json_object_get(json_array_get(low, 0), "ratio"));
        cr_assert(fabs(ratio - 0.9) < 1e-3, "ratio %g", ratio);
    }
    json_decref(doc);
    run_result_free(&r);

    /* A 15 % tolerance lets the 10 % shortfall pass; the configuration odd nodes stay. */
    r = run_gpuvet("fleet", "--json", "--tolerance", "15", t.docs, NULL);
    doc = run_json(&r);
    cr_assert_str_eq(str(doc, "odd_hosts"), "sv[03,05],vm04");
    json_decref(doc);
    run_result_free(&r);

    r = run_gpuvet("fleet", t.docs, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.out, "odd nodes: sv[03,05],vm[02,04]\n"), "%s", r.out);
    cr_assert(strstr(r.out, "group 1: sv[01-06] (6 nodes)"), "%s", r.out);
    cr_assert(strstr(r.out, "      NVIDIA driver: 570.86.15\n        the group has: 580.159.04\n"), "%s", r.out);
    cr_assert(strstr(r.out, "lacks socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s"), "%s", r.out);
    cr_assert(strstr(r.out, "has   0000:1b:00.0 Gen3 x8 of x16"), "%s", r.out);
    cr_assert(strstr(r.out, "vm02  memory triad 12.49 GB/s, median 13.87 GB/s (-10.0%)"), "%s", r.out);
    for (const char *line = r.out; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        cr_assert(n <= 100, "line wider than 100 columns: %.*s", (int)n, line);
        line += n + (end ? 1 : 0);
    }
    run_result_free(&r);

    /* The same node twice is an error that names both files. */
    char again[4096], first[4096];
    snprintf(first, sizeof first, "%s/vm01.json", t.docs);
    snprintf(again, sizeof again, "%s/vm01-copy.json", t.work);
    char *text = read_text(first);
    FILE *f = fopen(again, "w");
    fputs(text, f);
    fclose(f);
    free(text);
    r = run_gpuvet("fleet", t.docs, again, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, again) && strstr(r.err, first) && strstr(r.err, "vm01"), "%s", r.err);
    run_result_free(&r);
    free_fleet(&t);
}

/* The rows of the odd nodes' table in the HTML page: one per difference, no other node. */
static const char *const odd_rows_html[] = {
    "<tr class=\"odd\"><td>sv03</td><td>accelerator links</td><td>0000:1b:00.0 Gen3 x8 of x16</td>"
    "<td>0000:1b:00.0 Gen3 x16</td></tr>",
    "<tr class=\"odd\"><td>sv05</td><td>memory channels</td><td>socket 0: 2 channels, socket 1: 1 channel</td>"
    "<td>socket 0: 2 channels, socket 1: 2 channels</td></tr>",
    "<tr class=\"odd\"><td>sv05</td><td>DIMMs</td><td></td><td>socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s</td>"
    "</tr>",
    "<tr class=\"odd\"><td>vm04</td><td>NVIDIA driver</td><td>570.86.15</td><td>580.159.04</td></tr>",
};

/* The same rows in the Markdown ticket. */
static const char *const odd_rows_markdown[] = {
    "\n| sv03 | accelerator links | 0000:1b:00.0 Gen3 x8 of x16 | 0000:1b:00.0 Gen3 x16 |\n",
    "\n| sv05 | memory channels | socket 0: 2 channels, socket 1: 1 channel | socket 0: 2 channels, socket 1: 2 "
    "channels |\n",
    "\n| sv05 | DIMMs |  | socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s |\n",
    "\n| vm04 | NVIDIA driver | 570.86.15 | 580.159.04 |\n",
};

Test(fleet, html_and_markdown_name_the_odd_nodes)
{
    struct test_fleet t;
    build_fleet(&t);
    char html[4096], markdown[4096];
    snprintf(html, sizeof html, "%s/fleet.html", t.work);
    snprintf(markdown, sizeof markdown, "%s/fleet.md", t.work);
    struct run_result r = run_gpuvet("fleet", "--html", html, "--markdown", markdown, t.docs, NULL);
    cr_assert_eq(r.status, 1, "odd nodes exit 1: %s", r.err);
    cr_assert(strstr(r.out, "odd nodes: sv[03,05],vm[02,04]\n"), "the text report still goes to stdout: %s", r.out);
    run_result_free(&r);

    html_check_well_formed(html);
    char *page = file_contents(html, NULL);
    /* a hostlist breaks only between its parts, never inside a [range] (issue 38) */
    cr_assert(strstr(page, "<p>odd nodes: <span class=\"nb\">sv[03,05],</span><wbr><span class=\"nb\">vm[02,04]</span></p>"),
              "%s", page);
    cr_assert(strstr(page, "Content-Security-Policy\" content=\"default-src 'none'"), "the audit page's frame");
    cr_assert_null(strstr(page, "<script"));
    /* Both groups with their host ranges, in the table and as sections. */
    cr_assert(strstr(page, "<td class=\"hosts\"><code><span class=\"nb\">sv[01-06]</span></code></td><td class=\"num\">6</td>"), "%s", page);
    cr_assert(strstr(page, "<section id=\"group-1\"><h2>Group 1: <span class=\"nb\">sv[01-06]</span> (6 nodes)</h2>"), "%s", page);
    cr_assert(strstr(page, "<section id=\"group-2\"><h2>Group 2: <span class=\"nb\">vm[01-05]</span> (5 nodes)</h2>"), "%s", page);
    for (size_t i = 0; i < sizeof odd_rows_html / sizeof odd_rows_html[0]; i++)
        cr_assert(strstr(page, odd_rows_html[i]), "missing odd row %s in\n%s", odd_rows_html[i], page);
    cr_assert_eq(count_of(page, "<tr class=\"odd\">"), 4, "only the mutated nodes' differences are rows");
    cr_assert(strstr(page, "<td>memory triad</td><td class=\"num\">5</td><td>13.87 GB/s</td>"
                           "<td>vm02: 12.49 GB/s (-10.0%)</td></tr>"),
              "%s", page);
    cr_assert(strstr(page, "<td><span class=\"tag sev-fail\">fail</span></td><td>PCIE_LINK_DEGRADED</td>"
                           "<td>0000:1b:00.0</td><td class=\"hosts\"><code>sv03</code></td><td class=\"num\">1 of 6</td>"),
              "the fail finding only sv03 has: %s", page);
    free(page);

    char *md = file_contents(markdown, NULL);
    /* the groups; sv: configuration, odd nodes, findings on some nodes; vm: configuration, odd
     * nodes, bench figures */
    cr_assert_eq(markdown_check_tables(md, markdown), 1 + 3 + 3, "%s", md);
    cr_assert(strstr(md, "\nodd nodes: sv\\[03,05\\],vm\\[02,04\\]\n"), "%s", md);
    cr_assert(strstr(md, "\n## Group 1: sv\\[01-06\\] (6 nodes)\n"), "%s", md);
    for (size_t i = 0; i < sizeof odd_rows_markdown / sizeof odd_rows_markdown[0]; i++)
        cr_assert(strstr(md, odd_rows_markdown[i]), "missing odd row %s in\n%s", odd_rows_markdown[i], md);
    cr_assert(strstr(md, "\n| memory triad | 5 | 13.87 GB/s | vm02: 12.49 GB/s (-10.0%) |\n"), "%s", md);
    cr_assert(strstr(md, "\n| fail | PCIE_LINK_DEGRADED | 0000:1b:00.0 | sv03 | 1 of 6 |\n"), "%s", md);
    free(md);

    /* "-" puts the page on stdout instead of the text report. */
    r = run_gpuvet("fleet", "--markdown", "-", t.docs, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(!strncmp(r.out, "# gpuvet fleet\n", 15), "%s", r.out);
    cr_assert_null(strstr(r.out, "\ngroup 1: sv[01-06] (6 nodes)\n"), "no text report: %s", r.out);
    run_result_free(&r);
    /* A page that cannot be written is an error naming it. */
    snprintf(html, sizeof html, "%s/no-such-folder/fleet.html", t.work);
    r = run_gpuvet("fleet", "--html", html, t.docs, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, html), "%s", r.err);
    run_result_free(&r);
    free_fleet(&t);
}

Test(fleet, bad_documents_are_named)
{
    char *dir = make_temp_dir(), path[4096];
    snprintf(path, sizeof path, "%s/broken.json", dir);
    tree_write(dir, "broken.json", "{\"schema\": \"gpuvet.audit/1\", ");
    struct run_result r = run_gpuvet("fleet", dir, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, path) && strstr(r.err, "not a JSON document"), "%s", r.err);
    run_result_free(&r);
    tree_write(dir, "broken.json", "{\"schema\": \"gpuvet.plan/1\"}");
    r = run_gpuvet("fleet", path, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, path) && strstr(r.err, "gpuvet.plan/1"), "%s", r.err);
    run_result_free(&r);
    unlink(path);
    r = run_gpuvet("fleet", dir, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no gpuvet audit or bench documents (*.json)"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("fleet", "--tolerance", "x", dir, NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

Test(fleet, compare_puts_differences_first)
{
    char *dir = make_temp_dir(), a[4096], b[4096];
    snprintf(a, sizeof a, "%s/good.json", dir);
    snprintf(b, sizeof b, "%s/short.json", dir);
    audit_to(a, fixture(SILVER_TREE), SILVER_DMI);
    char *dmi_short = dmidecode_without_p2_dimmd1(dir);
    audit_to(b, fixture(SILVER_TREE), dmi_short);
    free(dmi_short);

    struct run_result r = run_gpuvet("compare", "--json", a, b, NULL);
    cr_assert_eq(r.status, 1, "differences exit 1: %s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(str(doc, "schema"), "gpuvet.compare/1");
    json_t *diffs = json_object_get(doc, "differences");
    cr_assert_eq(json_array_size(diffs), 2, "%s", json_dumps(diffs, JSON_COMPACT));
    cr_assert_str_eq(str(json_array_get(diffs, 0), "field"), "memory.channels");
    json_t *dimms = json_array_get(diffs, 1);
    cr_assert_str_eq(str(dimms, "field"), "memory.dimms");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(dimms, "only_a"), 0)),
                     "socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s");
    cr_assert_eq(json_array_size(json_object_get(dimms, "only_b")), 0);
    cr_assert_eq(json_array_size(json_object_get(doc, "same")), 12);
    json_decref(doc);
    run_result_free(&r);

    r = run_gpuvet("compare", a, b, NULL);
    cr_assert_eq(r.status, 1);
    const char *diff = strstr(r.out, "\ndifferences:\n"), *same = strstr(r.out, "\nthe same on both:\n");
    cr_assert(diff && same && diff < same, "%s", r.out);
    cr_assert(strstr(r.out, "socket 1 channel 1 P2-DIMMD1 8 GiB"), "%s", r.out);
    run_result_free(&r);

    /* As a fleet of two, neither is the majority: both values are listed with their node. */
    r = run_gpuvet("fleet", "--json", a, b, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    doc = run_json(&r);
    json_t *g = group_of(doc, "good,short");
    cr_assert_eq(json_array_size(json_object_get(g, "odd_nodes")), 0);
    json_t *splits = json_object_get(g, "splits");
    cr_assert_eq(json_array_size(splits), 2, "%s", json_dumps(splits, JSON_COMPACT));
    json_t *channels = array_entry(splits, "field", "memory.channels");
    cr_assert_not_null(channels);
    json_t *second = json_array_get(json_object_get(channels, "values"), 1);
    cr_assert_str_eq(str(second, "value"), "socket 0: 2 channels, socket 1: 1 channel");
    cr_assert_str_eq(str(second, "hosts"), "short");
    cr_assert(json_is_null(json_object_get(json_object_get(g, "configuration"), "memory.dimms")));
    cr_assert_str_eq(str(doc, "odd_hosts"), "");
    json_decref(doc);
    run_result_free(&r);

    char html[4096], markdown[4096];
    snprintf(html, sizeof html, "%s/compare.html", dir);
    snprintf(markdown, sizeof markdown, "%s/compare.md", dir);
    r = run_gpuvet("compare", "--html", html, "--markdown", markdown, a, b, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(strstr(r.out, "\ndifferences:\n"), "the text report still goes to stdout: %s", r.out);
    run_result_free(&r);
    html_check_well_formed(html);
    char *page = file_contents(html, NULL);
    const char *differences = strstr(page, "<section id=\"differences\"><h2>Differences</h2>");
    const char *same_section = strstr(page, "<section id=\"same\"><h2>The same on both</h2>");
    cr_assert(differences && same_section && differences < same_section, "differences first: %s", page);
    cr_assert(strstr(differences, "<tr><td>DIMMs</td><td>socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s</td>"
                                  "<td></td></tr>"),
              "%s", page);
    cr_assert_null(strstr(same_section, "<td>DIMMs</td>"), "the DIMMs differ: %s", page);
    free(page);
    char *md = file_contents(markdown, NULL);
    cr_assert_eq(markdown_check_tables(md, markdown), 3, "sides, differences, the same: %s", md);
    cr_assert(strstr(md, "\n| DIMMs | socket 1 channel 1 P2-DIMMD1 8 GiB DDR4 2400 MT/s |  |\n"), "%s", md);
    cr_assert(strstr(md, "\n## Differences\n") < strstr(md, "\n## The same on both\n"), "%s", md);
    free(md);

    r = run_gpuvet("compare", a, a, NULL);
    cr_assert_eq(r.status, 0, "a machine against itself: %s", r.out);
    cr_assert(strstr(r.out, "no differences in configuration"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("compare", a, NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* --output DIR/%h.json names the file by the audited host's short name (as srun and clush run it
 * on every node; with --sysroot, the recorded machine's: the H200 tree's is "vm"); a failed run
 * leaves no file behind, and no temporary file stays either way. */
Test(fleet, output_file_per_host)
{
    char *dir = make_temp_dir(), pattern[4096], want[4096];
    snprintf(pattern, sizeof pattern, "%s/%%h-100%%%%.json", dir);
    snprintf(want, sizeof want, "%s/vm-100%%.json", dir);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(H200_TREE), "--output",
                                     pattern, NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    cr_assert_str_eq(r.out, "");
    run_result_free(&r);
    json_error_t error;
    json_t *doc = json_load_file(want, 0, &error);
    cr_assert_not_null(doc, "%s: %s", want, error.text);
    cr_assert_str_eq(str(doc, "schema"), "gpuvet.audit/1");
    json_decref(doc);

    snprintf(pattern, sizeof pattern, "%s/failed.json", dir);
    r = run_gpuvet("audit", "--json", "--sysroot", "/nonexistent-root", "--output", pattern, NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
    cr_assert_neq(access(pattern, F_OK), 0, "a failed audit writes no file");
    snprintf(pattern, sizeof pattern, "%s/%%x.json", dir);
    r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(H200_TREE), "--output", pattern, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "%h"), "%s", r.err);
    run_result_free(&r);

    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            files++;
            cr_assert(!strstr(e->d_name, ".tmp."), "temporary file left: %s", e->d_name);
        }
    closedir(d);
    cr_assert_eq(files, 1);
    tree_remove(dir);
    free(dir);
}

/* Bench documents alone form one group; host names are cut at the first dot, as Slurm names
 * nodes, so they range. */
Test(fleet, bench_only_nodes_by_short_host_name)
{
    char *dir = make_temp_dir(), path[4096];
    json_error_t error;
    const char *hosts[] = {"gpu01.example.org", "gpu02.example.org", "gpu03.example.org"};
    for (int i = 0; i < 3; i++) {
        json_t *bench = json_load_file(BENCH_DOC, 0, &error);
        cr_assert_not_null(bench, "%s", error.text);
        json_object_set_new(bench, "hostname", json_string(hosts[i]));
        snprintf(path, sizeof path, "%s/%d.json", dir, i);
        cr_assert_eq(json_dump_file(bench, path, 0), 0);
        json_decref(bench);
    }
    struct run_result r = run_gpuvet("fleet", "--json", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *g = group_of(doc, "gpu[01-03]");
    cr_assert(json_is_null(json_object_get(g, "class")));
    cr_assert_eq(json_integer_value(json_object_get(g, "audited")), 0);
    json_t *triad = array_entry(json_object_get(g, "bench"), "metric", "memory_triad_bytes_s");
    cr_assert_eq(json_integer_value(json_object_get(triad, "measured")), 3);
    cr_assert_eq(json_array_size(json_object_get(triad, "low")), 0);
    cr_assert_str_eq(str(doc, "odd_hosts"), "");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* A bench document whose GPU memory test found errors (or an uncorrectable ECC error) makes its
 * node odd, as GPU_MEMORY_ERRORS fails it in audit --bench; on main fleet read no GPU figure of a
 * bench document and called the three nodes alike (exit 0). */
Test(fleet, a_bench_with_gpu_memory_errors_is_not_alike)
{
    char *dir = make_temp_dir(), path[4096];
    json_error_t error;
    const char *hosts[] = {"gpu01", "gpu02", "gpu03"};
    for (int i = 0; i < 3; i++) {
        json_t *bench = json_load_file(BENCH_DOC, 0, &error);
        cr_assert_not_null(bench, "%s", error.text);
        json_object_set_new(bench, "hostname", json_string(hosts[i]));
        json_t *memtest = i == 1   ? json_pack("{s:I, s:I}", "tested_bytes", (json_int_t)1 << 30, "errors", (json_int_t)6)
                          : i == 2 ? json_pack("{s:s, s:b}", "error", "uncorrectable ECC error", "uncorrectable_ecc", 1)
                                   : json_pack("{s:I, s:I}", "tested_bytes", (json_int_t)1 << 30, "errors", (json_int_t)0);
        json_object_set_new(json_object_get(bench, "benchmarks"), "gpu",
                            json_pack("{s:[{s:s, s:o}]}", "gpus", "bus_id", "0000:81:00.0", "memtest", memtest));
        snprintf(path, sizeof path, "%s/%d.json", dir, i);
        cr_assert_eq(json_dump_file(bench, path, 0), 0);
        json_decref(bench);
    }
    struct run_result r = run_gpuvet("fleet", "--json", dir, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *partial = json_array_get(json_object_get(group_of(doc, "gpu[01-03]"), "partial_findings"), 0);
    cr_assert_not_null(partial, "%s", r.out);
    cr_expect_str_eq(str(partial, "id"), "GPU_MEMORY_ERRORS");
    cr_expect_str_eq(str(partial, "hosts"), "gpu[02-03]");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* bench gpu's NCCL all-reduce is a fleet figure: of four nodes, the one at 250 GB/s (68 % of the
 * others' median) is low and odd, the others alike. Labelled before running: gpu04 low, exit 1. */
Test(fleet, a_node_with_a_slow_all_reduce_is_low)
{
    char *dir = make_temp_dir(), path[4096];
    json_error_t error;
    const double busbw[] = {370e9, 372e9, 368e9, 250e9};
    for (int i = 0; i < 4; i++) {
        json_t *bench = json_load_file(BENCH_DOC, 0, &error);
        cr_assert_not_null(bench, "%s", error.text);
        char host[16];
        snprintf(host, sizeof host, "gpu%02d", i + 1);
        json_object_set_new(bench, "hostname", json_string(host));
        json_object_set_new(json_object_get(bench, "benchmarks"), "gpu",
                            json_pack("{s:[], s:{s:f, s:[s, s]}}", "gpus", "nccl", "busbw_bytes_s", busbw[i], "gpus",
                                      "0000:18:00.0", "0000:2a:00.0"));
        snprintf(path, sizeof path, "%s/%d.json", dir, i);
        cr_assert_eq(json_dump_file(bench, path, 0), 0);
        json_decref(bench);
    }
    struct run_result r = run_gpuvet("fleet", "--json", dir, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *allreduce = array_entry(json_object_get(group_of(doc, "gpu[01-04]"), "bench"), "metric",
                                    "gpu_allreduce_busbw_bytes_s");
    cr_assert_not_null(allreduce, "%s", r.out);
    cr_expect_eq(json_integer_value(json_object_get(allreduce, "measured")), 4);
    json_t *low = json_object_get(allreduce, "low");
    cr_assert_eq(json_array_size(low), 1, "%s", r.out);
    cr_expect_str_eq(str(json_array_get(low, 0), "host"), "gpu04");
    cr_expect_str_eq(str(doc, "odd_hosts"), "gpu04");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
}

/* A host name from a document is the user's file, not ours: a terminal escape in it reaches the
 * screen as text (\x1b), in fleet's and compare's text reports alike. */
Test(fleet, terminal_escapes_in_documents_are_escaped)
{
    char *dir = make_temp_dir(), a[4096], b[4096];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    audit_to(a, fixture(SILVER_TREE), SILVER_DMI);
    json_error_t error;
    json_t *doc = json_load_file(a, 0, &error);
    cr_assert(doc, "%s", error.text);
    json_object_set_new(json_object_get(doc, "machine"), "hostname", json_string("evil\x1b]2;owned\x07\x1b[2Jnode"));
    cr_assert_eq(json_dump_file(doc, b, 0), 0);
    json_decref(doc);
    const char *const commands[][4] = {{"fleet", a, b, NULL}, {"compare", a, b, NULL}};
    for (size_t i = 0; i < 2; i++) {
        struct run_result r = run_gpuvet(commands[i][0], commands[i][1], commands[i][2], NULL);
        cr_assert(r.status == 0 || r.status == 1, "%s: exit %d: %s", commands[i][0], r.status, r.err);
        cr_expect(!strchr(r.out, '\x1b') && !strchr(r.out, '\x07'), "%s printed a raw escape", commands[i][0]);
        cr_expect(strstr(r.out, "evil\\x1b]2;owned\\x07\\x1b[2Jnode"), "%s:\n%s", commands[i][0], r.out);
        run_result_free(&r);
    }
    tree_remove(dir);
    free(dir);
}

/* The audit document in path with its generated_at set to when (NULL: taken out, as an older gpuvet
 * wrote it). */
static void set_generated_at(const char *path, const char *when)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(doc, "%s: %s", path, e.text);
    cr_assert(json_is_string(json_object_get(doc, "generated_at")), "audit --json has generated_at");
    if (when)
        json_object_set_new(doc, "generated_at", json_string(when));
    else
        json_object_del(doc, "generated_at");
    cr_assert_eq(json_dump_file(doc, path, JSON_INDENT(2)), 0);
    json_decref(doc);
}

/* audit --sysroot --output DIR/%h.json names the file after the recorded machine; fleet DIR skips
 * what is not a gpuvet document and keeps the newest audit of a host, naming the older ones. */
Test(fleet, folders_as_they_are)
{
    /* The H200 tree records its host name (proc/sys/kernel/hostname); here it is renamed. */
    char *tree = fixture_copy(H200_TREE), *dir = make_temp_dir(), pattern[4096], path[4096];
    tree_write(tree, "proc/sys/kernel/hostname", "gpu07.example.org\n");
    snprintf(pattern, sizeof pattern, "%s/%%h.json", dir);
    audit_to(pattern, tree, NULL);
    snprintf(path, sizeof path, "%s/gpu07.json", dir);
    cr_assert_eq(access(path, R_OK), 0, "%%h is the recorded host's short name");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    int status;
    char *listing = run_shell(cmd, &status);
    cr_assert_str_eq(listing, "gpu07.json\n", "no file named after this host");
    free(listing);
    /* Live, %h is this host's short name. */
    char host[256], live[4096];
    cr_assert_eq(gethostname(host, sizeof host), 0);
    host[strcspn(host, ".")] = '\0';
    char live_dir[4096];
    snprintf(live_dir, sizeof live_dir, "%s/live", dir);
    cr_assert_eq(mkdir(live_dir, 0755), 0);
    snprintf(pattern, sizeof pattern, "%s/%%h.json", live_dir);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--output", pattern, NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    run_result_free(&r);
    snprintf(live, sizeof live, "%s/%s.json", live_dir, host);
    cr_assert_eq(access(live, R_OK), 0, "live: %s", live);
    tree_remove(live_dir);
    snprintf(pattern, sizeof pattern, "%s/%%h.json", dir);
    /* A recorded name that is not a plain name is refused, not used as a path. */
    tree_write(tree, "proc/sys/kernel/hostname", "../escape\n");
    r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", tree, "--output", pattern, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "%h: the audited machine's host name is missing or not a plain name"), "%s", r.err);
    run_result_free(&r);

    /* The same host audited three times: newer.json (its own time), gpu07.json (older), and
     * legacy.json without generated_at (its file time, older still); and a JSON file of another tool. */
    char newer[4096], legacy[4096], other[4096];
    snprintf(newer, sizeof newer, "%s/newer.json", dir);
    snprintf(legacy, sizeof legacy, "%s/legacy.json", dir);
    snprintf(other, sizeof other, "%s/package.json", dir);
    audit_to(newer, fixture(SILVER_TREE), NULL);
    /* newer.json is the fixture's own host: give it gpu07's name. */
    char *text = read_text(newer);
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    free(text);
    cr_assert_not_null(doc);
    json_object_set_new(json_object_get(doc, "machine"), "hostname", json_string("gpu07.example.org"));
    cr_assert_eq(json_dump_file(doc, newer, JSON_INDENT(2)), 0);
    json_decref(doc);
    set_generated_at(newer, "2030-01-02T03:04:05Z");
    set_generated_at(path, "2029-06-01T00:00:00Z");
    audit_to(legacy, fixture(SILVER_TREE), NULL);
    text = read_text(legacy);
    doc = json_loads(text, 0, &e);
    free(text);
    json_object_set_new(json_object_get(doc, "machine"), "hostname", json_string("gpu07"));
    cr_assert_eq(json_dump_file(doc, legacy, JSON_INDENT(2)), 0);
    json_decref(doc);
    set_generated_at(legacy, NULL);
    struct utimbuf long_ago = {946684800, 946684800}; /* 2000-01-01 */
    cr_assert_eq(utime(legacy, &long_ago), 0);
    tree_write(dir, "package.json", "{\"name\": \"not-an-audit\"}\n");

    r = run_gpuvet("fleet", "--json", dir, NULL);
    cr_assert_eq(r.status, 0, "one node, alike with itself: %s", r.err);
    char expect[16384];
    snprintf(expect, sizeof expect, "gpuvet fleet: note: %s: skipped: not a gpuvet.audit/1 or gpuvet.bench/1 document",
             other);
    cr_assert(strstr(r.err, expect), "%s", r.err);
    snprintf(expect, sizeof expect,
             "gpuvet fleet: note: %s: left out: an older audit of host gpu07 (2029-06-01T00:00:00Z) than %s "
             "(2030-01-02T03:04:05Z)", path, newer);
    cr_assert(strstr(r.err, expect), "%s", r.err);
    snprintf(expect, sizeof expect,
             "gpuvet fleet: note: %s: left out: an older audit of host gpu07 (2000-01-01T00:00:00Z, file time) "
             "than %s (2030-01-02T03:04:05Z)", legacy, newer);
    cr_assert(strstr(r.err, expect), "%s", r.err);
    json_t *fleet = run_json(&r);
    cr_assert_eq(json_integer_value(json_object_get(fleet, "nodes")), 1, "%s", r.out);
    cr_assert_eq(json_integer_value(json_object_get(fleet, "audit_documents")), 1, "%s", r.out);
    cr_assert(strstr(r.out, "\"gpu07\""), "%s", r.out);
    json_decref(fleet);
    run_result_free(&r);
    /* Named on the command line, the other tool's file is still an error. */
    r = run_gpuvet("fleet", other, NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
    tree_remove(dir);
    tree_remove(tree);
    free(dir);
    free(tree);
}

/* An audit that could not read the PCI bus (the tree has no /sys/bus/pci) lists no accelerators:
 * fleet says they, the links and the NVIDIA driver are unknown, not "none" or "no NVIDIA device". */
Test(fleet, unread_pci_bus_is_unknown_not_none)
{
    char *dir = make_temp_dir(), a[4096], b[4096], pci[4096];
    char *tree = fixture_copy(SILVER_TREE);
    snprintf(pci, sizeof pci, "%s/sys/bus/pci", tree);
    tree_remove(pci);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    audit_to(a, tree, SILVER_DMI);
    audit_to(b, tree, SILVER_DMI);
    struct run_result r = run_gpuvet("fleet", a, b, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "unknown (the PCI bus could not be read)"), "%s", r.out);
    cr_expect(!strstr(r.out, "no NVIDIA device"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sample", "0", "--sysroot", tree, NULL);
    cr_expect(strstr(r.out, "accelerators unknown (the PCI bus could not be read)"), "%s", r.out);
    cr_expect(!strstr(r.out, "no accelerator seen"), "%s", r.out);
    run_result_free(&r);
    tree_remove(tree);
    free(tree);
    tree_remove(dir);
    free(dir);
}

/* The Groups table as a reader sees it in a browser: host names with '-' (where a browser would
 * break a line) each in a no-wrap span, a line breaking only after a host's comma; column headers
 * that break only at spaces (a Chinese header would otherwise stand one character a line); and a
 * group without accelerator models says why instead of ending in "CPU / ". */
Test(fleet, groups_table_keeps_host_names_whole)
{
    char *dir = make_temp_dir(), path[4096], html[4096];
    const char *hosts[] = {"gpu-node-a-01", "gpu-node-b-02"};
    for (int i = 0; i < 2; i++) {
        char *tree = fixture_copy(H200_TREE), line[64];
        snprintf(line, sizeof line, "%s\n", hosts[i]);
        tree_write(tree, "proc/sys/kernel/hostname", line);
        snprintf(path, sizeof path, "%s/%s.json", dir, hosts[i]);
        audit_to(path, tree, NULL);
        tree_remove(tree);
        free(tree);
    }
    char *tree = fixture_copy(SILVER_TREE);
    snprintf(path, sizeof path, "%s/sys/bus/pci", tree);
    tree_remove(path);
    snprintf(path, sizeof path, "%s/no-bus.json", dir);
    audit_to(path, tree, SILVER_DMI);
    tree_remove(tree);
    free(tree);
    snprintf(html, sizeof html, "%s/fleet.html", dir);
    struct run_result r = run_gpuvet("fleet", "--html", html, dir, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    run_result_free(&r);
    char *page = file_contents(html, NULL);
    cr_expect(strstr(page, "<td class=\"hosts\"><code><span class=\"nb\">gpu-node-a-01,</span><wbr>"
                           "<span class=\"nb\">gpu-node-b-02</span></code></td>"),
              "%s", page);
    cr_expect(strstr(page, "<h2>Group 1: <span class=\"nb\">gpu-node-a-01,</span><wbr>"), "%s", page);
    cr_expect(strstr(page, ".nb{white-space:nowrap}") && strstr(page, "th{word-break:keep-all}"),
              "the page's style lost its no-break rules");
    cr_expect(strstr(page, "CPU @ 1.80GHz / unknown (the PCI bus could not be read)</td>"), "%s", page);
    cr_expect_null(strstr(page, " / </td>"), "a Groups cell ends in ' / ': %s", page);
    free(page);
    tree_remove(dir);
    free(dir);
}

/* The H200 tree audited as host `name` into dir/name.json; with `kernel_log`, that log is judged
 * (an Xid 48 line there is an uncorrected ECC error: GPU_XID_ERRORS fails). */
static void h200_audit_as(const char *dir, const char *name, const char *kernel_log, const char *generated_at)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    struct run_result r = kernel_log ? run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(H200_TREE),
                                                  "--kernel-log", kernel_log, "--output", path, NULL)
                                     : run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(H200_TREE),
                                                  "--output", path, NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    run_result_free(&r);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(doc, "%s: %s", path, e.text);
    json_object_set_new(json_object_get(doc, "machine"), "hostname", json_string(name));
    if (generated_at)
        json_object_set_new(doc, "generated_at", json_string(generated_at));
    cr_assert_eq(json_dump_file(doc, path, JSON_INDENT(2)), 0);
    json_decref(doc);
}

/* An Xid 48 (double-bit ECC error) line as the NVIDIA driver writes it, for the H200's bus id. */
static char *xid48_log(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kern.log", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("[  812.004211] NVRM: Xid (PCI:0000:00:06): 48, pid=4121, name=python3, An uncorrectable double bit "
          "error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0.\n",
          f);
    fclose(f);
    return strdup(path);
}

/* Label (before running): four alike nodes, gpu03 with an uncorrected-ECC FAIL (Xid 48, NVIDIA's Xid
 * catalogue: double-bit ECC, a hardware fault) the others lack: gpu03 alone is in odd_hosts, with
 * that FAIL as its reason, exit 1. A drain script keyed on odd_hosts must not skip it. */
Test(fleet, fail_the_others_lack_makes_a_node_odd)
{
    char *dir = make_temp_dir(), docs[4096];
    snprintf(docs, sizeof docs, "%s/docs", dir);
    cr_assert_eq(mkdir(docs, 0755), 0);
    char *log = xid48_log(dir);
    const char *hosts[] = {"gpu01", "gpu02", "gpu03", "gpu04"};
    for (int i = 0; i < 4; i++)
        h200_audit_as(docs, hosts[i], i == 2 ? log : NULL, NULL);
    struct run_result r = run_gpuvet("fleet", "--json", docs, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(str(doc, "odd_hosts"), "gpu03", "%s", r.out);
    json_t *reasons = json_object_get(doc, "odd_host_reasons");
    cr_assert_eq(json_array_size(reasons), 1, "%s", r.out);
    json_t *node = array_entry(reasons, "host", "gpu03");
    cr_assert_not_null(node, "%s", r.out);
    json_t *why = json_array_get(json_object_get(node, "reasons"), 0);
    cr_assert_str_eq(str(why, "kind"), "fail_others_lack");
    json_t *finding = json_object_get(why, "finding");
    cr_assert_str_eq(str(finding, "id"), "GPU_XID_ERRORS");
    cr_assert_str_eq(str(finding, "severity"), "fail");
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("fleet", docs, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.out, "odd nodes: gpu03\n  gpu03:\n    a FAIL the others lack: fail GPU_XID_ERRORS 0000:00:06.0\n"), "%s", r.out);
    run_result_free(&r);
    free(log);
    tree_remove(dir);
    free(dir);
}

/* Label (before running): two audits of gpu02 in one folder, the older with the Xid 48 FAIL, the
 * newer without: the newer one is the node's configuration, but the host is odd (the FAIL is not
 * cleared by a later file alone), with both files named; exit 1. */
Test(fleet, two_documents_of_a_host_that_disagree_on_a_fail_make_it_odd)
{
    char *dir = make_temp_dir(), docs[4096];
    snprintf(docs, sizeof docs, "%s/docs", dir);
    cr_assert_eq(mkdir(docs, 0755), 0);
    char *log = xid48_log(dir);
    h200_audit_as(docs, "gpu01", NULL, NULL);
    h200_audit_as(docs, "gpu02", log, "2030-01-01T00:00:00Z");
    char older[4096], renamed[4096];
    snprintf(older, sizeof older, "%s/gpu02.json", docs);
    snprintf(renamed, sizeof renamed, "%s/gpu02-before.json", docs);
    cr_assert_eq(rename(older, renamed), 0);
    h200_audit_as(docs, "gpu02", NULL, "2030-01-02T00:00:00Z");
    struct run_result r = run_gpuvet("fleet", "--json", docs, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(str(doc, "odd_hosts"), "gpu02", "%s", r.out);
    json_t *node = array_entry(json_object_get(doc, "odd_host_reasons"), "host", "gpu02");
    cr_assert_not_null(node, "%s", r.out);
    json_t *why = json_array_get(json_object_get(node, "reasons"), 0);
    cr_assert_str_eq(str(why, "kind"), "documents_disagree");
    cr_assert_str_eq(str(why, "other_file"), renamed);
    cr_assert_str_eq(str(json_object_get(why, "finding"), "id"), "GPU_XID_ERRORS");
    cr_assert(strstr(r.err, "disagrees with the newest on a FAIL"), "%s", r.err);
    json_decref(doc);
    run_result_free(&r);
    free(log);
    tree_remove(dir);
    free(dir);
}
