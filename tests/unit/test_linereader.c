/* util/linereader: whole lines or a refusal naming FILE:LINE, never a cut line whose tail reads as
 * the next one; and each reader built on it, with a real file plus one over-long line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/dmi.h"
#include "probe/probe.h"
#include "testutil.h"
#include "util/datadir.h"
#include "util/gputable.h"
#include "util/linereader.h"
#include "util/parse.h"
#include "util/pciids.h"

#define DATA GPUVET_TEST_SOURCE "/../data"

static FILE *text_stream(const char *text) { return fmemopen((void *)text, strlen(text), "r"); }

Test(linereader, lines_up_to_the_cap_whole_then_a_refusal_naming_the_line)
{
    /* max 4: "abcd" fits, with "\r\n" too; "abcde" does not, whether or not a newline ends it. */
    FILE *f = text_stream("abcd\n\nabcd\r\nab\rcd\nabcde\nnever");
    struct line_reader r;
    char err[256];
    line_reader_init(&r, f, "t.txt", 4);
    cr_assert_eq(line_reader_next(&r, err, sizeof err), 1);
    cr_expect_str_eq(r.line, "abcd");
    cr_assert_eq(line_reader_next(&r, err, sizeof err), 1);
    cr_expect_str_eq(r.line, "");
    cr_assert_eq(line_reader_next(&r, err, sizeof err), 1);
    cr_expect_str_eq(r.line, "abcd");
    cr_expect_eq(r.length, 4);
    cr_assert_eq(line_reader_next(&r, err, sizeof err), -1, "a '\\r' inside counts: %s", r.line);
    cr_expect_str_eq(err, "t.txt:4: line longer than 4 bytes");
    line_reader_free(&r);
    fclose(f);

    f = text_stream("abcde");
    line_reader_init(&r, f, "t.txt", 4);
    cr_assert_eq(line_reader_next(&r, err, sizeof err), -1);
    cr_expect_str_eq(err, "t.txt:1: line longer than 4 bytes");
    line_reader_free(&r);
    fclose(f);

    f = text_stream("ab\ncd");
    line_reader_init(&r, f, "t.txt", 4);
    cr_assert_eq(line_reader_next(&r, err, sizeof err), 1);
    cr_assert_eq(line_reader_next(&r, err, sizeof err), 1);
    cr_expect_str_eq(r.line, "cd", "the last line needs no newline");
    cr_expect_eq(r.number, 2);
    cr_expect_eq(line_reader_next(&r, err, sizeof err), 0);
    line_reader_free(&r);
    fclose(f);
}

Test(linereader, text_lines_are_copied_whole)
{
    char *text = malloc(10010);
    memset(text, 'x', 10000);
    strcpy(text + 10000, "\r\nnext");
    const char *p = text;
    char *line = NULL;
    size_t capacity = 0;
    cr_assert(text_line_next(&p, &line, &capacity));
    cr_expect_eq(strlen(line), 10000);
    cr_assert(text_line_next(&p, &line, &capacity));
    cr_expect_str_eq(line, "next");
    cr_expect_not(text_line_next(&p, &line, &capacity));
    free(line);
    free(text);
}

/* The built-in tables can never hold a row gpuvet would refuse: each has a checker, and passes it. */
Test(linereader, every_built_in_table_passes_its_checker)
{
    cr_assert_gt(embedded_tables_count, 0);
    for (int i = 0; i < embedded_tables_count; i++) {
        int k = 0;
        while (k < data_table_checkers_count && strcmp(data_table_checkers[k].name, embedded_tables[i].name))
            k++;
        cr_assert_lt(k, data_table_checkers_count, "%s has no row checker", embedded_tables[i].name);
        FILE *f = fmemopen((void *)embedded_tables[i].bytes, embedded_tables[i].size, "r");
        char err[1024] = "";
        cr_expect_eq(data_table_checkers[k].check(f, embedded_tables[i].name, err, sizeof err), 0, "%s", err);
    }
}

/* A copy of data/NAME with `extra` appended, checked by checker: its error, "" when it passed. */
static void check_copy(const char *name, const char *extra, data_table_checker checker, char *err, size_t errlen)
{
    char path[512], *text = NULL;
    snprintf(path, sizeof path, "%s/%s", DATA, name);
    text = file_contents(path, NULL);
    cr_assert_not_null(text, "%s", path);
    char copy[] = "/tmp/gpuvet-table-XXXXXX";
    int fd = mkstemp(copy);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w+");
    fputs(text, f);
    fputs(extra, f);
    rewind(f);
    *err = '\0';
    checker(f, name, err, errlen);
    unlink(copy);
    free(text);
}

static int lines_of(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", DATA, name);
    char *text = file_contents(path, NULL);
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

/* A copy of data/NAME with `extra` appended must fail checker with "NAME:LINE: problem", LINE the
 * first appended line. */
static void expect_refused(const char *name, const char *extra, data_table_checker checker, const char *problem)
{
    char err[1024], want[512];
    check_copy(name, extra, checker, err, sizeof err);
    snprintf(want, sizeof want, "%s:%d: %s", name, lines_of(name) + 1, problem);
    cr_expect_str_eq(err, want);
}

Test(linereader, table_checkers_name_the_broken_line)
{
    char *long_row = malloc(5000);
    memset(long_row, 'x', 4998);
    strcpy(long_row + 4998, "\n");
    expect_refused("cpu-platforms.csv", "Xeon Test,Test,,,4,DDR4,2400,2666,,model,https://ark.intel.com/x,,\n",
                   cpu_platform_table_check,
                   "DIMMs-per-channel speeds must not exceed the 1DPC speed (see the header)");
    expect_refused("cpu-platforms.csv", long_row, cpu_platform_table_check, "line longer than 4096 bytes");
    expect_refused("board-slot-maps.csv", "Test,^X$,^Y$,dimm,2,A;B;C,doc,https://example.org\n",
                   board_slot_table_check,
                   "slot_channels must name as many channels as the channels field (see the header)");
    expect_refused("board-slot-maps.csv", long_row, board_slot_table_check, "line longer than 4096 bytes");
    expect_refused("gpus.csv", "x,\"broken\n", gpu_table_check, "unterminated quoted field");
    free(long_row);
}

/* The host's pci.ids (optional package): names come whole; a line over the cap stops the lookup
 * with its line number, keeping the names read before it. */
Test(linereader, pci_ids_over_long_line)
{
    const char *db = "/usr/share/misc/pci.ids";
    if (access(db, R_OK) != 0)
        cr_skip_test("%s is not installed (package pci.ids)", db);
    char dir[] = "/tmp/gpuvet-pciids-XXXXXX", cmd[1024], copy[600];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(copy, sizeof copy, "%s/pci.ids", dir);
    /* Up to NVIDIA's vendor line and its first device, then a comment of 5000 bytes. */
    snprintf(cmd, sizeof cmd, "sed -n '1,/^10de /p' '%s' > '%s' && python3 -c \"print('#' + 'y' * 5000)\" >> '%s'",
             db, copy, copy);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    int lines = 0;
    char *text = file_contents(copy, NULL);
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    free(text);
    setenv("GPUVET_PCI_IDS", copy, 1);
    struct pciids_name names[1] = {{.vendor_id = 0x10de, .device_id = 0x2330}};
    char err[1024], want[1024];
    cr_expect_eq(pciids_lookup(names, 1, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:%d: line longer than 4096 bytes", copy, lines);
    cr_expect_str_eq(err, want);
    cr_expect_str_eq(names[0].vendor_name, "NVIDIA Corporation");
    free(names[0].vendor_name);
    free(names[0].device_name);
    unsetenv("GPUVET_PCI_IDS");
    names[0] = (struct pciids_name){.vendor_id = 0x10de, .device_id = 0x2330};
    setenv("GPUVET_PCI_IDS", db, 1);
    cr_expect_eq(pciids_lookup(names, 1, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(names[0].vendor_name, "NVIDIA Corporation");
    cr_expect_not_null(names[0].device_name);
    free(names[0].vendor_name);
    free(names[0].device_name);
    unsetenv("GPUVET_PCI_IDS");
    tree_remove(dir);
}

/* A recorded /proc/stat whose cpu0 line is padded past the old 512-byte buffer: all its counters
 * are still read from that line. */
Test(linereader, proc_stat_long_cpu_line_read_whole)
{
    char path[512];
    snprintf(path, sizeof path, "%s/proc/stat", fixture("sysroot/32intel64-2p8co2t+8ve"));
    char *text = file_contents(path, NULL);
    cr_assert_not_null(text);
    struct cpu_ticks *plain, *padded;
    int n = parse_proc_stat(text, &plain);
    cr_assert_gt(n, 2);
    char *cpu0 = strstr(text, "\ncpu0 ") + 5;
    size_t pad = 600;
    char *long_text = malloc(strlen(text) + pad + 1);
    memcpy(long_text, text, (size_t)(cpu0 - text));
    memset(long_text + (cpu0 - text), ' ', pad);
    strcpy(long_text + (cpu0 - text) + pad, cpu0);
    cr_assert_eq(parse_proc_stat(long_text, &padded), n);
    cr_expect_eq(padded[1].cpu, 0);
    cr_expect_eq(cpu_ticks_total(&padded[1]), cpu_ticks_total(&plain[1]));
    cr_expect_eq(padded[1].idle, plain[1].idle);
    free(plain);
    free(padded);
    free(long_text);
    free(text);
}

/* A dmidecode report whose processor Version is 5000 bytes long: the value is read whole (the old
 * 4096-byte buffer cut it). */
Test(linereader, dmidecode_long_value_read_whole)
{
    char *text = file_contents(GPUVET_TEST_SOURCE "/fixtures/dmidecode/"
                                                  "supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24.dmidecode.txt",
                               NULL);
    cr_assert_not_null(text);
    const char *key = "\tVersion: Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz";
    char *at = strstr(text, key);
    cr_assert_not_null(at);
    size_t head = (size_t)(at - text) + strlen("\tVersion: "), pad = 5000;
    char *long_text = malloc(strlen(text) + pad + 1);
    memcpy(long_text, text, head);
    memset(long_text + head, 'V', pad);
    strcpy(long_text + head + pad, text + head);
    struct dmi_data d = {0};
    char *err = NULL;
    cr_assert_eq(dmidecode_parse(long_text, &d, &err), 0, "%s", err);
    cr_assert_geq(d.ncpus, 1);
    cr_expect_eq(strlen(d.cpus[0].version), pad + strlen("Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz"));
    cr_expect_eq(d.ncpus, 2);
    dmi_data_free(&d);
    free(long_text);
    free(text);
}
