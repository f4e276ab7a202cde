/* Parsers for the text formats of sysfs and procfs. Each rejects garbage instead of guessing. */
#ifndef GPUVET_UTIL_PARSE_H
#define GPUVET_UTIL_PARSE_H

#include <hwloc.h>
#include <stdbool.h>
#include <stdint.h>

/* "8 GT/s", "8.0 GT/s PCIe", "2.5 GT/s" -> 8.0; "Unknown speed" or garbage -> false. */
bool parse_link_speed(const char *text, double *gt_s);
/* A link width: "16" -> 16; "0" (no link) and garbage -> false. */
bool parse_link_width(const char *text, int *width);
/* PCIe lane payload rate in GB/s per direction, after line encoding (8b/10b, 128b/130b, FLIT). */
double pcie_lane_gb_s(double gt_s);
/* PCIe generation number for a transfer rate (2.5 -> 1, 8 -> 3, 64 -> 6); 0 when unknown. */
int pcie_generation(double gt_s);
/* The transfer rate of a PCIe generation (3 -> 8.0 GT/s); 0 for an unknown generation. */
double pcie_generation_gt_s(int gen);

/* A Linux cpulist ("0-7,16-23", "", "3") into set; false on garbage. */
bool parse_cpulist(const char *text, hwloc_bitmap_t set);
/* A Linux cpumask ("ff,00000000ffffffff") into set; false on garbage. */
bool parse_cpumask(const char *text, hwloc_bitmap_t set);
/* Formats a set as a cpulist into a malloc'd string. */
char *format_cpulist(hwloc_const_bitmap_t set);

/* Finds "Key: value kB" in /proc/meminfo or "Node N Key: value kB" in node meminfo text. */
bool parse_meminfo_bytes(const char *text, const char *key, uint64_t *bytes);

/* "always [madvise] never" -> "madvise" (malloc'd); NULL when no bracketed choice. */
char *parse_bracketed_choice(const char *text);

/* A row of a NUMA distance file ("10 21 31") into out[]; returns count, -1 on garbage. */
int parse_int_row(const char *text, int *out, int max);

/* One "cpu" line of /proc/stat, in clock ticks. */
struct cpu_ticks {
    int cpu; /* N of "cpuN"; -1 for the "cpu" line of all CPUs */
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
};
/* The cpu lines of /proc/stat text in their order: the all-CPU line, then one per online CPU (an
 * offline CPU has no line, so the index is not the CPU number). Returns the count and a malloc'd
 * array in *out; lines with fewer than four counters are skipped. */
int parse_proc_stat(const char *text, struct cpu_ticks **out);
unsigned long long cpu_ticks_total(const struct cpu_ticks *t);

/* Splits a line at blanks in place into at most max tokens; returns their count. */
int split_blanks(char *line, char **tokens, int max);

/* The fields gpuvet uses of one /proc/PID/stat or /proc/PID/task/TID/stat line (proc(5)). */
struct pid_stat {
    char name[64];        /* comm, between the first '(' and the last ')' */
    char state;           /* R, S, D, Z, ... */
    int ppid;
    unsigned long flags, majflt;
    unsigned long long utime, stime; /* clock ticks */
    int threads;
    int processor;        /* CPU it last ran on; -1 when the line is too short to say */
};
/* false when the line is not a stat line (no comm, fewer fields than stime). */
bool parse_pid_stat(const char *text, struct pid_stat *out);

/* The numbers users type, one set of suffixes for every command (a positive number; "6.7e9" works):
 * counts take K, M, B or G (1e9), T, decimal ("7B" parameters, "2T" tokens); token lengths take
 * k (1024) and M (1024^2) as model cards write them ("8k" = 8192, "128k" = 131072); sizes take B,
 * KB, MB, GB, TB (decimal) or KiB, MiB, GiB, TiB (binary). A lower-case b is bits ("150Gb"): a size
 * is bytes, so it is refused rather than read as bytes. */
bool parse_quantity(const char *s, double *out);
/* A whole token count in [1, max]: "4096", "8k", "128K", "1M". */
bool parse_token_count(const char *s, int max, int *out);
bool parse_bytes(const char *s, double *out);
/* A fraction in (0, 1], written 0.68 or 68%. */
bool parse_fraction(const char *s, double *out);
/* Seconds: a number with an optional unit, ms, s, m (minutes) or h: "20", "1.5s", "500ms", "5m". */
bool parse_seconds(const char *s, double *out);

/* ---- command-line option values ---------------------------------------------------------------
 * One helper per kind of value, one error style for every command: each returns true with *out
 * set, or false after writing "gpuvet CMD: --OPT VALUE: expected WHAT" to stderr (the caller
 * exits 2). cmd is the subcommand ("bench"), opt the long option without its dashes ("seconds"). */

/* A whole number in [min, max]. */
bool option_int(const char *cmd, const char *opt, const char *value, long min, long max, int *out);
/* A size in bytes with a unit (parse_bytes). */
bool option_bytes(const char *cmd, const char *opt, const char *value, double *out);
/* A token count in [1, max] (parse_token_count: 8k = 8192). */
bool option_tokens(const char *cmd, const char *opt, const char *value, int max, int *out);
/* A duration in seconds (parse_seconds) in (0, max], or [0, max] when zero_ok. */
bool option_seconds(const char *cmd, const char *opt, const char *value, bool zero_ok, double max, double *out);
/* A percentage in [0, max), written 5 or 5%; *out is the percentage (5, not 0.05). */
bool option_percent(const char *cmd, const char *opt, const char *value, double max, double *out);
/* A fraction in (0, 1], written 0.68 or 68% (parse_fraction). */
bool option_fraction(const char *cmd, const char *opt, const char *value, double *out);
/* A positive real with an optional count suffix (parse_quantity: 7B, 2T, 1e21). */
bool option_positive(const char *cmd, const char *opt, const char *value, double *out);
/* For values of their own kind (a name from a list, CUR=RATE): writes the same error with the
 * caller's "expected ..." text (a msgid: N_() marks it, this translates it) and returns false. */
bool option_invalid(const char *cmd, const char *opt, const char *value, const char *expected);

#endif
