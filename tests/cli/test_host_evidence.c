/* Evidence that is odd but real: dmidecode before 2.7, a report holding its table twice, and a BIOS
 * that lists a processor entry for a socket a one-socket board does not have. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define REPORT(name) GPUVET_TEST_SOURCE "/fixtures/dmidecode/" name ".dmidecode.txt"

static json_t *audit_dmidecode(const char *path)
{
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static json_t *machine_of(json_t *doc) { return json_object_get(doc, "machine"); }

static json_int_t cpu_sockets(json_t *doc)
{
    return json_integer_value(json_object_get(json_object_get(machine_of(doc), "cpu"), "sockets"));
}

/* dmidecode 2.6 was refused whole ("not dmidecode output"); its two Opterons and six DIMMs are read. */
Test(host_evidence, dmidecode_before_2_7_is_read)
{
    json_t *doc = audit_dmidecode(REPORT("asus-k8n-dl-2p-opteron246-dmidecode-2.6"));
    cr_expect_eq(cpu_sockets(doc), 2);
    json_t *mem = json_object_get(machine_of(doc), "memory");
    cr_expect_eq(json_array_size(json_object_get(mem, "dimms")), 6);
    cr_expect_eq(json_integer_value(json_object_get(mem, "installed_bytes")), 6ll << 30);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(mem, "platform"), "name")),
                     "Opteron 200/800 (socket 940; K8)");
    json_decref(doc);
}

/* linuxhw's ASUS TS100-E7-PI4 report holds its table twice: one socket and two DIMMs (not two and
 * four), both channels populated, and a warning that names the file. */
Test(host_evidence, a_report_listed_twice_counts_once)
{
    const char *path = REPORT("asus-ts100-e7-pi4-1p-xeon-e3-1230v2-report-twice");
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_expect_eq(cpu_sockets(doc), 1);
    json_t *mem = json_object_get(machine_of(doc), "memory");
    cr_expect_eq(json_array_size(json_object_get(mem, "dimms")), 2);
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 0");
    cr_assert_eq(json_array_size(f), 1);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(f, 0), "severity")), "pass");
    json_decref(f);
    cr_expect(strstr(r.err, "62 structures repeat a handle") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, path) != NULL, "%s", r.err);
    json_decref(doc);
    run_result_free(&r);
}

/* The real one-socket Dell R210 (Xeon X3450) report, then the same with a second populated processor
 * entry of its own handle, as a BIOS that lists one for a socket the board lacks writes: the
 * channel rule says the count is in doubt instead of failing an empty "socket 1". */
Test(host_evidence, a_second_processor_entry_on_a_one_socket_part_is_in_doubt)
{
    const char *real = REPORT("dell-r210-1p-xeon-x3450-ddr3-4of4");
    json_t *doc = audit_dmidecode(real);
    cr_expect_eq(cpu_sockets(doc), 1);
    cr_expect(json_is_null(json_object_get(json_object_get(machine_of(doc), "memory"), "sockets_disputed")));
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", "socket 0");
    cr_expect_eq(json_array_size(f), 1);
    json_decref(f);
    json_decref(doc);

    char *text = file_contents(real, NULL);
    cr_assert_not_null(text);
    const char *at = strstr(text, "Handle 0x0400, DMI type 4");
    const char *end = at ? strstr(at, "\n\n") : NULL;
    cr_assert_not_null(end);
    char dir[] = "/tmp/gpuvet-phantom-XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r210.txt", dir);
    FILE *out = fopen(path, "w");
    cr_assert_not_null(out);
    fwrite(text, 1, (size_t)(end + 2 - text), out);
    /* The same entry under handle 0x0401 and socket CPU2. */
    char *copy = strndup(at, (size_t)(end + 2 - at));
    char *h = strstr(copy, "0x0400"), *s = strstr(copy, "CPU1");
    h[5] = '1';
    s[3] = '2';
    fputs(copy, out);
    fputs(end + 2, out);
    fclose(out);
    free(copy);
    free(text);

    doc = audit_dmidecode(path);
    cr_expect_eq(cpu_sockets(doc), 2);
    const char *why =
        json_string_value(json_object_get(json_object_get(machine_of(doc), "memory"), "sockets_disputed"));
    cr_assert_not_null(why);
    cr_expect(strstr(why, "SMBIOS lists 2 populated processor entries") && strstr(why, "at most 1 socket"), "%s", why);
    f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", NULL);
    cr_assert_eq(json_array_size(f), 1, "one finding for the machine, none per socket");
    json_t *only = json_array_get(f, 0);
    cr_expect_str_eq(json_string_value(json_object_get(only, "subject")), "machine");
    cr_expect_str_eq(json_string_value(json_object_get(only, "severity")), "unknown");
    json_decref(f);
    json_decref(doc);
    tree_remove(dir);
}
