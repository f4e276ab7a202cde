#include <criterion/criterion.h>
#include <stdlib.h>

#include "util/parse.h"

Test(link_speed, both_kernel_spellings)
{
    double v = 0;
    cr_assert(parse_link_speed("8 GT/s", &v));
    cr_assert_float_eq(v, 8.0, 1e-9);
    cr_assert(parse_link_speed("8.0 GT/s PCIe", &v));
    cr_assert_float_eq(v, 8.0, 1e-9);
    cr_assert(parse_link_speed("2.5 GT/s", &v));
    cr_assert_float_eq(v, 2.5, 1e-9);
    cr_assert(parse_link_speed("32.0 GT/s PCIe", &v));
    cr_assert_float_eq(v, 32.0, 1e-9);
}

Test(link_speed, rejects_unknown_and_garbage)
{
    double v = 0;
    cr_assert_not(parse_link_speed("Unknown speed", &v));
    cr_assert_not(parse_link_speed("", &v));
    cr_assert_not(parse_link_speed("fast", &v));
    cr_assert_not(parse_link_speed("8", &v));
    cr_assert_not(parse_link_speed(NULL, &v));
    cr_assert_not(parse_link_speed("-8 GT/s", &v));
}

Test(link_width, parses_and_rejects)
{
    int w = 0;
    cr_assert(parse_link_width("16", &w));
    cr_assert_eq(w, 16);
    cr_assert(parse_link_width("1\n", &w));
    cr_assert_eq(w, 1);
    cr_assert_not(parse_link_width("0", &w));
    cr_assert_not(parse_link_width("x16", &w));
    cr_assert_not(parse_link_width("16 lanes", &w));
    cr_assert_not(parse_link_width("255", &w));
}

Test(pcie, lane_rates_match_spec)
{
    /* SPEC: x16 per direction Gen3 15.75, Gen4 31.5, Gen5 63 GB/s. */
    cr_assert_float_eq(pcie_lane_gb_s(8.0) * 16, 15.75, 0.01);
    cr_assert_float_eq(pcie_lane_gb_s(16.0) * 16, 31.5, 0.03);
    cr_assert_float_eq(pcie_lane_gb_s(32.0) * 16, 63.0, 0.05);
    cr_assert_float_eq(pcie_lane_gb_s(2.5) * 16, 4.0, 1e-9);
    cr_assert_eq(pcie_generation(2.5), 1);
    cr_assert_eq(pcie_generation(8.0), 3);
    cr_assert_eq(pcie_generation(64.0), 6);
    cr_assert_eq(pcie_generation(3.0), 0);
}

Test(cpulist, ranges_singles_and_empty)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    cr_assert(parse_cpulist("0-7,16-23", s));
    cr_assert_eq(hwloc_bitmap_weight(s), 16);
    cr_assert(hwloc_bitmap_isset(s, 23));
    cr_assert_not(hwloc_bitmap_isset(s, 8));
    cr_assert(parse_cpulist("3\n", s));
    cr_assert_eq(hwloc_bitmap_weight(s), 1);
    cr_assert(parse_cpulist("", s));
    cr_assert(hwloc_bitmap_iszero(s));
    char *text = NULL;
    cr_assert(parse_cpulist("0-3,8", s));
    text = format_cpulist(s);
    cr_assert_str_eq(text, "0-3,8");
    free(text);
    hwloc_bitmap_free(s);
}

Test(cpulist, rejects_garbage)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    cr_assert_not(parse_cpulist("0-", s));
    cr_assert_not(parse_cpulist("7-3", s));
    cr_assert_not(parse_cpulist("a,b", s));
    cr_assert_not(parse_cpulist("0,,1", s));
    cr_assert_not(parse_cpulist("1 2", s));
    cr_assert_not(parse_cpulist(NULL, s));
    hwloc_bitmap_free(s);
}

Test(cpumask, hex_words)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    cr_assert(parse_cpumask("00ff00ff", s));
    cr_assert_eq(hwloc_bitmap_weight(s), 16);
    cr_assert(hwloc_bitmap_isset(s, 16));
    cr_assert_not(hwloc_bitmap_isset(s, 8));
    cr_assert(parse_cpumask("1,00000000", s));
    cr_assert_eq(hwloc_bitmap_first(s), 32);
    cr_assert_not(parse_cpumask("zz", s));
    cr_assert_not(parse_cpumask("", s));
    hwloc_bitmap_free(s);
}

Test(meminfo, proc_and_node_forms)
{
    uint64_t b = 0;
    cr_assert(parse_meminfo_bytes("MemTotal:       24683620 kB\nSwapTotal: 0 kB\n", "SwapTotal", &b));
    cr_assert_eq(b, 0);
    cr_assert(parse_meminfo_bytes("MemTotal:       24683620 kB\n", "MemTotal", &b));
    cr_assert_eq(b, 24683620ull * 1024);
    cr_assert(parse_meminfo_bytes("Node 1 MemTotal:       47925628 kB\nNode 1 MemFree: 1 kB", "MemTotal", &b));
    cr_assert_eq(b, 47925628ull * 1024);
    cr_assert_not(parse_meminfo_bytes("Node 0 MemFree: 5 kB\n", "MemTotal", &b));
    cr_assert_not(parse_meminfo_bytes("MemTotal: lots\n", "MemTotal", &b));
    /* A key that is a prefix of another must not match it. */
    cr_assert_not(parse_meminfo_bytes("MemTotalX: 5 kB\n", "MemTotal", &b));
}

Test(kernel_text, bracketed_choice_and_rows)
{
    char *c = parse_bracketed_choice("always [madvise] never");
    cr_assert_str_eq(c, "madvise");
    free(c);
    cr_assert_null(parse_bracketed_choice("always madvise never"));
    cr_assert_null(parse_bracketed_choice("[]"));
    int row[4];
    cr_assert_eq(parse_int_row("10 21 31\n", row, 4), 3);
    cr_assert_eq(row[2], 31);
    cr_assert_eq(parse_int_row("10 x", row, 4), -1);
    cr_assert_eq(parse_int_row("1 2 3 4 5", row, 4), -1);
}

/* /proc/stat with CPU 1 offline: its line is missing, so entries carry their CPU numbers. */
Test(parse, proc_stat_names_each_cpu)
{
    const char *text = "cpu  10 1 5 100 2 0 1 3 0 0\n"
                       "cpu0 6 1 3 50 1 0 1 2 0 0\n"
                       "cpu2 4 0 2 50 1 0 0 1 0 0\n"
                       "cpuX 1 2 3 4\n"
                       "cpu3 7 8\n"
                       "intr 12345 0 0\n"
                       "ctxt 999\n";
    struct cpu_ticks *t;
    int n = parse_proc_stat(text, &t);
    cr_assert_eq(n, 3);
    cr_assert_eq(t[0].cpu, -1);
    cr_assert_eq(t[1].cpu, 0);
    cr_assert_eq(t[2].cpu, 2);
    cr_assert_eq(t[2].steal, 1);
    cr_assert_eq(cpu_ticks_total(&t[0]), 10 + 1 + 5 + 100 + 2 + 0 + 1 + 3);
    free(t);
    /* A line cut short keeps its missing counters at 0 and takes none from the next line. */
    n = parse_proc_stat("cpu0 1 2 3 4\n9 9 9 9\n", &t);
    cr_assert_eq(n, 1);
    cr_assert_eq(t[0].iowait, 0);
    free(t);
    cr_assert_eq(parse_proc_stat("", &t), 0);
    free(t);
}

/* proc(5): comm may hold spaces and parentheses; the last ')' ends it. A real line of a thread. */
Test(parse, pid_stat_line)
{
    struct pid_stat ps;
    const char *line = "4242 (pt_data (worker) 1) D 4200 4200 4200 0 -1 4194368 1500 0 37 0 812 95 0 0 20 0 3 0 "
                       "123456 1000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 5 0 0 0 0 0";
    cr_assert(parse_pid_stat(line, &ps));
    cr_expect_str_eq(ps.name, "pt_data (worker) 1");
    cr_expect_eq(ps.state, 'D');
    cr_expect_eq(ps.ppid, 4200);
    cr_expect_eq(ps.majflt, 37);
    cr_expect_eq(ps.utime, 812);
    cr_expect_eq(ps.stime, 95);
    cr_expect_eq(ps.threads, 3);
    cr_expect_eq(ps.processor, 5);
    cr_expect_not(parse_pid_stat("no comm here", &ps));
    cr_expect_not(parse_pid_stat("1 (short) R 0", &ps), "fewer fields than stime");
    cr_assert(parse_pid_stat("1 (old) S 0 1 1 0 -1 0 0 0 0 0 7 8", &ps), "a line without processor");
    cr_expect_eq(ps.processor, -1);
}
