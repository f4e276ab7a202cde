/* Evidence that is odd but real: dmidecode before 2.7, a report holding its table twice, and a BIOS
 * that lists a processor entry for a socket a one-socket board does not have. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

#define DELL "sysroot/32em64t-2n8c+1mic"

/* Writes the text (printf format) to sys/devices/system/edac/mc/ENTRY/FILE of the tree dir, making
 * ENTRY's folder ("mc0/dimm1"). */
static void edac_write(const char *dir, const char *entry, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void edac_write(const char *dir, const char *entry, const char *file, const char *fmt, ...)
{
    char path[1024], text[128];
    /* mkdir -p without a shell per file (a tree takes dozens of them) */
    snprintf(path, sizeof path, "%s/sys/devices/system/edac/mc/%s", dir, entry);
    for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
        *slash = '/';
    }
    cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "sys/devices/system/edac/mc/%s/%s", entry, file);
    tree_write(dir, path, text);
}

/* The Dell tree (2x E5-2680, 8 DIMMs, 4 channels per socket) with its locators renamed "SLOT_A1" so
 * that they name nothing, and an EDAC tree as sb_edac lays it out: one controller per socket, the
 * label "CPU_SrcID#S_Ha#0_Chan#C_DIMM#D", size in MiB. chan[s][k]: the channel of socket s's k-th
 * DIMM; ndimms EDAC DIMMs in all. */
static char *dell_with_edac(int chan[2][4], int ndimms)
{
    char *dir = fixture_copy(DELL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "find '%s/sys' -type d -exec chmod u+w {} + && python3 -c \"import glob,os,sys\nfor p in "
             "glob.glob(sys.argv[1]+'/sys/firmware/dmi/entries/17-*/raw'):\n b=open(p,'rb').read(); os.unlink(p); "
             "open(p,'wb').write(b.replace(b'DIMM_',b'SLOT_'))\" '%s'",
             dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    for (int i = 0; i < ndimms; i++) {
        int s = i / 4, k = i % 4, slot = 0;
        for (int j = 0; j < k; j++)
            slot += chan[s][j] == chan[s][k];
        char entry[32];
        snprintf(entry, sizeof entry, "mc%d/dimm%d", s, k);
        edac_write(dir, entry, "size", "4096\n");
        edac_write(dir, entry, "dimm_label", "CPU_SrcID#%d_Ha#0_Chan#%d_DIMM#%d\n", s, chan[s][k], slot);
        edac_write(dir, entry, "dimm_location", "channel %d slot %d \n", chan[s][k], slot);
    }
    return dir;
}

static const char *socket_verdict(json_t *doc, const char *subject)
{
    json_t *f = findings_of(doc, "MEM_CHANNELS_UNDERPOPULATED", subject);
    cr_assert_eq(json_array_size(f), 1, "one finding for %s", subject);
    static char sev[16];
    snprintf(sev, sizeof sev, "%s", json_string_value(json_object_get(json_array_get(f, 0), "severity")));
    json_decref(f);
    return sev;
}

/* Audits the tree dir as a recorded machine, then removes it (and frees dir). */
static json_t *audit_tree_once(char *dir)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
    return doc;
}

Test(host_evidence, edac_places_smbios_dimms_whose_locators_name_no_channel)
{
    /* Without EDAC the renamed locators prove nothing: one unknown for the machine. */
    int full[2][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}};
    json_t *doc = audit_tree_once(dell_with_edac(full, 0));
    cr_expect_str_eq(socket_verdict(doc, "machine"), "unknown");
    json_decref(doc);

    doc = audit_tree_once(dell_with_edac(full, 8));
    const char *placed = json_string_value(json_object_get(json_object_get(machine_of(doc), "memory"), "edac_placement"));
    cr_expect(placed && strstr(placed, "8 SMBIOS DIMMs placed"), "%s", placed ? placed : "(null)");
    cr_expect_str_eq(socket_verdict(doc, "socket 0"), "pass");
    cr_expect_str_eq(socket_verdict(doc, "socket 1"), "pass");
    json_decref(doc);

    /* Socket 1's four DIMMs two by two on channels 0 and 1: 2 of 4, which the count alone hid. */
    int paired[2][4] = {{0, 1, 2, 3}, {0, 0, 1, 1}};
    doc = audit_tree_once(dell_with_edac(paired, 8));
    cr_expect_str_eq(socket_verdict(doc, "socket 0"), "pass");
    cr_expect_str_eq(socket_verdict(doc, "socket 1"), "warn");
    json_decref(doc);

    /* EDAC lists 7 of the 8: the lists do not match, nothing is placed, and the audit says why. */
    doc = audit_tree_once(dell_with_edac(full, 7));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(machine_of(doc), "memory"), "edac_placement")),
                     "EDAC lists 7 DIMMs, SMBIOS 8: they do not match, not used");
    cr_expect_str_eq(socket_verdict(doc, "machine"), "unknown");
    json_decref(doc);
}

/* The Dell tree with locators that name nothing (as above) and an EDAC tree in the legacy csrow
 * layout (Documentation/admin-guide/ras.rst, "csrowX directories"): one controller per socket,
 * rows csrow0 .. csrow(rows-1) each spanning channels 0-3 (size_mb the row over its four channels),
 * the label of channel c written per labels: 's' sb_edac's CPU_SrcID#S_Ha#0_Chan#C_DIMM#0 (one row: the
 * layout rasdaemon issue 52 lists), 'b' a board label per slot, the same on every row of the slot,
 * '-' empty (kernels before 3.5). The SMBIOS DIMMs are 4 GiB, Rank 2. */
static char *dell_with_csrows(int rows, char labels)
{
    char *dir = dell_with_edac((int[2][4]){{0}}, 0);
    for (int s = 0; s < 2; s++)
        for (int row = 0; row < rows; row++) {
            char entry[32], file[32];
            snprintf(entry, sizeof entry, "mc%d/csrow%d", s, row);
            edac_write(dir, entry, "size_mb", "%d\n", 4 * 4096 / rows);
            for (int c = 0; c < 4; c++) {
                snprintf(file, sizeof file, "ch%d_dimm_label", c);
                if (labels == 's')
                    edac_write(dir, entry, file, "CPU_SrcID#%d_Ha#0_Chan#%d_DIMM#0\n", s, c);
                else if (labels == 'b')
                    edac_write(dir, entry, file, "P%d_DIMM_%c1\n", s + 1, 'A' + c);
                else
                    edac_write(dir, entry, file, "\n");
                snprintf(file, sizeof file, "ch%d_ce_count", c);
                edac_write(dir, entry, file, "0\n");
            }
        }
    return dir;
}

static const char *placement_of(json_t *doc)
{
    const char *p = json_string_value(json_object_get(json_object_get(machine_of(doc), "memory"), "edac_placement"));
    return p ? p : "(null)";
}

Test(host_evidence, legacy_csrow_layout_places_smbios_dimms)
{
    /* sb_edac's labels in the legacy rows: the socket and channel from the label, no rank. */
    json_t *doc = audit_tree_once(dell_with_csrows(1, 's'));
    cr_expect(strstr(placement_of(doc), "8 SMBIOS DIMMs placed") && strstr(placement_of(doc), "ranks not compared"),
              "%s", placement_of(doc));
    cr_expect_str_eq(socket_verdict(doc, "socket 0"), "pass");
    cr_expect_str_eq(socket_verdict(doc, "socket 1"), "pass");
    json_decref(doc);

    /* Board labels on two rows per slot: each label is one dual-rank 4 GiB module, as SMBIOS says. */
    doc = audit_tree_once(dell_with_csrows(2, 'b'));
    cr_expect(strstr(placement_of(doc), "8 SMBIOS DIMMs placed") && strstr(placement_of(doc), "rank"), "%s",
              placement_of(doc));
    cr_expect(!strstr(placement_of(doc), "ranks not compared"), "%s", placement_of(doc));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(machine_of(doc), "memory"), "locator_scheme")),
                     "EDAC dimm_label / dimm_location (SMBIOS DIMMs matched by size, rank and order)");
    cr_expect_str_eq(socket_verdict(doc, "socket 0"), "pass");
    cr_expect_str_eq(socket_verdict(doc, "socket 1"), "pass");
    json_decref(doc);
}

Test(host_evidence, rank_or_grouping_mismatch_places_nothing)
{
    /* Four rows per label: 4 GiB modules of rank 4 where SMBIOS says Rank 2. Same sizes, other ranks:
     * not the same DIMMs, so nothing is placed and the audit says why. */
    json_t *doc = audit_tree_once(dell_with_csrows(4, 'b'));
    cr_expect_str_eq(placement_of(doc), "the DIMM ranks EDAC gives (chip selects under one label) differ from "
                                        "SMBIOS's Rank: they do not match, not used");
    cr_expect_str_eq(socket_verdict(doc, "machine"), "unknown");
    json_decref(doc);

    /* Empty labels (a kernel before 3.5): 16 row-channels for 8 DIMMs, which rows share a DIMM unknown. */
    doc = audit_tree_once(dell_with_csrows(2, '-'));
    cr_expect(strstr(placement_of(doc), "EDAC lists 16 entries, 16 of them chip selects under the kernel's default "
                                        "labels") &&
                  strstr(placement_of(doc), "SMBIOS 8 DIMMs") && strstr(placement_of(doc), "not used"),
              "%s", placement_of(doc));
    cr_expect_str_eq(socket_verdict(doc, "machine"), "unknown");
    json_decref(doc);

    /* One row a slot and empty labels: 8 entries of 4 GiB, the counts and sizes agree, so every DIMM is
     * listed once and the rows place them (ranks not compared: EDAC gives none). */
    doc = audit_tree_once(dell_with_csrows(1, '-'));
    cr_expect(strstr(placement_of(doc), "8 SMBIOS DIMMs placed") && strstr(placement_of(doc), "ranks not compared"),
              "%s", placement_of(doc));
    cr_expect_str_eq(socket_verdict(doc, "socket 0"), "pass");
    json_decref(doc);
}

/* `snapshot` records the legacy rows the placement read: the recorded tree places the DIMMs alike. */
Test(host_evidence, snapshot_records_the_legacy_csrows)
{
    char *dir = dell_with_csrows(2, 'b');
    char snap[600];
    snprintf(snap, sizeof snap, "%s-snap", dir);
    struct run_result r = run_gpuvet("snapshot", "--sysroot", dir, snap, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    char label[700];
    snprintf(label, sizeof label, "%s/sys/devices/system/edac/mc/mc1/csrow1/ch3_dimm_label", snap);
    cr_assert_eq(access(label, R_OK), 0, "%s recorded", label);
    tree_remove(dir);
    free(dir);
    json_t *doc = audit_tree_once(strdup(snap));
    cr_expect(strstr(placement_of(doc), "8 SMBIOS DIMMs placed"), "%s", placement_of(doc));
    cr_expect_str_eq(socket_verdict(doc, "socket 1"), "pass");
    json_decref(doc);
}

/* Without SMBIOS, amd64_edac's chip selects (rank* entries, "csrow R channel C") under board labels
 * are the modules: two per label on one channel make one dual-rank DIMM of their summed size. Dell
 * tree, SMBIOS removed; two controllers, one per socket, a 2 x 8 GiB module on channels 0 and 1. */
Test(host_evidence, edac_only_chip_selects_under_board_labels_are_modules)
{
    char *dir = fixture_copy(DELL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "find '%s/sys/firmware' -type d -exec chmod u+w {} + && rm -rf '%s/sys/firmware/dmi'",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 4; k++) {
            int row = k / 2, chan = k % 2;
            char entry[32];
            snprintf(entry, sizeof entry, "mc%d/rank%d", s, k);
            edac_write(dir, entry, "size", "8192\n");
            edac_write(dir, entry, "dimm_location", "csrow %d channel %d \n", row, chan);
            edac_write(dir, entry, "dimm_label", "P%d_DIMM_%c1\n", s + 1, 'A' + chan);
        }
    json_t *doc = audit_tree_once(dir);
    json_t *mem = json_object_get(machine_of(doc), "memory"), *dimms = json_object_get(mem, "dimms");
    cr_assert_str_eq(json_string_value(json_object_get(mem, "source")), "edac");
    cr_assert_eq(json_array_size(dimms), 4, "4 modules, not 8 chip selects");
    size_t i;
    json_t *d;
    json_array_foreach(dimms, i, d) {
        cr_expect_eq(json_integer_value(json_object_get(d, "rank")), 2);
        cr_expect_eq(json_integer_value(json_object_get(d, "size_bytes")), 16LL << 30);
    }
    cr_expect_eq(json_integer_value(json_object_get(mem, "installed_bytes")), 64LL << 30);
    json_decref(doc);
}
