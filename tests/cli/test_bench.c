/* gpuvet bench run as users run it, on this machine: the JSON's shape, the bounds it promises
 * (memory budget, no file left behind, Ctrl-C/SIGTERM clean-up), and the usage errors. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "testutil.h"
#include "util/parse.h"

static char *make_dir(void)
{
    char tmpl[] = "/tmp/gpuvet-bench-test-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

/* Entries of dir other than . and .. */
static int entries(const char *dir, char *first, size_t len)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s vanished", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            if (n++ == 0 && first)
                snprintf(first, len, "%s", e->d_name);
        }
    closedir(d);
    return n;
}

static double number_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "%s is not a number", key);
    return json_number_value(v);
}

static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    cr_assert_not_null(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    uint64_t bytes = 0;
    cr_assert(parse_meminfo_bytes(text, "MemAvailable", &bytes));
    return bytes;
}

Test(bench_cli, quick_all_measures_everything_within_its_bounds)
{
    char *dir = make_dir();
    uint64_t available_before = mem_available();
    struct run_result r = run_gpuvet("bench", "all", "--quick", "--json", "--dir", dir, "--seconds", "1", NULL);
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    json_t *doc = run_json(&r);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "gpuvet.bench/1");
    cr_assert(json_is_true(json_object_get(doc, "quick")));
    json_t *b = json_object_get(doc, "benchmarks");

    /* memory: STREAM's four kernels, per node, and the budget it promised to stay within. */
    json_t *mem = json_object_get(b, "memory");
    cr_assert_gt(number_at(mem, "triad_bytes_s"), 1e8);
    cr_assert_gt(number_at(mem, "copy_bytes_s"), 1e8);
    /* The mean over the timed passes (likwid-bench's statistic) cannot beat the best of them. */
    for (const char *const *k = (const char *const[]){"copy", "scale", "add", "triad", NULL}; *k; k++) {
        char best[32], mean[32];
        snprintf(best, sizeof best, "%s_bytes_s", *k);
        snprintf(mean, sizeof mean, "%s_mean_bytes_s", *k);
        cr_assert_gt(number_at(mem, mean), 1e8, "%s", mean);
        cr_assert_leq(number_at(mem, mean), number_at(mem, best) * (1 + 1e-9), "%s", mean);
    }
    cr_assert_not_null(json_string_value(json_object_get(mem, "kernel")));
    cr_assert(json_is_boolean(json_object_get(mem, "nontemporal_stores")));
    json_t *per_node = json_object_get(mem, "per_node");
    cr_assert(json_array_size(per_node) >= 1);
    size_t i;
    json_t *node;
    json_array_foreach(per_node, i, node) {
        cr_assert(json_is_integer(json_object_get(node, "node")));
        cr_assert_gt(number_at(node, "triad_bytes_s"), 1e8);
    }
    double budget = number_at(mem, "memory_budget_bytes"), allocated = number_at(mem, "allocated_bytes");
    cr_assert_leq(allocated, budget);
    /* A quarter of MemAvailable; the box's free memory moves a little between the two reads. */
    cr_assert_leq(budget, 0.25 * (double)available_before * 1.2, "budget %.0f vs MemAvailable %" PRIu64, budget,
                  available_before);
    /* The process never held more than the budget plus its own code and small buffers (and, in
     * the sanitizer build, AddressSanitizer's shadow: one byte per eight touched). */
    double peak = (double)usage.ru_maxrss * 1024, overhead = 128.0 * 1024 * 1024;
#if defined(__SANITIZE_ADDRESS__)
    overhead += budget / 8;
#endif
    cr_assert_leq(peak, budget + overhead, "peak RSS %.0f MiB over the %.0f MiB budget", peak / 1048576,
                  budget / 1048576);
    json_t *fraction = json_object_get(mem, "fraction_of_theoretical");
    cr_assert(json_is_null(fraction) ? json_is_string(json_object_get(mem, "theoretical_unknown"))
                                     : json_is_number(fraction));

    /* latency: a square CPU-node x memory-node matrix beside the kernel's distances. */
    json_t *lat = json_object_get(b, "latency");
    json_t *matrix = json_object_get(lat, "matrix_ns"), *dist = json_object_get(lat, "kernel_distances");
    size_t ncpu = json_array_size(json_object_get(lat, "cpu_nodes")),
           nmem = json_array_size(json_object_get(lat, "memory_nodes"));
    cr_assert(ncpu >= 1 && json_array_size(matrix) == ncpu && json_array_size(dist) == ncpu);
    json_t *row;
    json_array_foreach(matrix, i, row) {
        cr_assert_eq(json_array_size(row), nmem);
        double ns = json_number_value(json_array_get(row, 0));
        /* DRAM is slower than any cache hit and faster than a page fault. */
        cr_assert(ns > 20 && ns < 10000, "latency %.1f ns", ns);
    }

    /* storage: measured, and its file is gone. */
    json_t *st = json_object_get(b, "storage");
    cr_assert_gt(number_at(st, "seq_read_bytes_s"), 1e6, "%s", json_dumps(st, 0));
    cr_assert_gt(number_at(st, "rand_read_iops"), 10);
    cr_assert_leq(number_at(st, "file_bytes"), 256.0 * 1024 * 1024);
    const char *engine = json_string_value(json_object_get(st, "engine"));
    cr_assert(engine && (!strcmp(engine, "io_uring") || !strcmp(engine, "pread-threads")));
    cr_assert_eq(entries(dir, NULL, 0), 0, "bench left a file in %s", dir);

    /* jitter: one wake-up per millisecond for the second asked for, ordered percentiles. */
    json_t *jit = json_object_get(b, "jitter");
    double samples = number_at(jit, "samples"), p50 = number_at(jit, "p50_us"), p99 = number_at(jit, "p99_us"),
           max = number_at(jit, "max_us");
    cr_assert_eq(samples, 1000);
    cr_assert(0 <= p50 && p50 <= p99 && p99 <= max, "p50 %.1f p99 %.1f max %.1f", p50, p99, max);

    /* decode: measured on the default images when mate-backgrounds is there, else says how to get them. */
    json_t *dec = json_object_get(b, "decode");
    if (access("/usr/share/backgrounds/mate/nature", R_OK) == 0 || !json_object_get(dec, "skipped")) {
        double per_core = number_at(dec, "images_s_per_core"), all = number_at(dec, "images_s_all_cores");
        cr_assert_gt(per_core, 1);
        cr_assert_gt(number_at(dec, "decode_only_mpix_s_per_core"), 1);
        json_t *feeds = json_object_get(dec, "feeds_gpus");
        cr_assert_float_eq(number_at(feeds, "a100"), all / 2470.0, 1e-3);
        /* The H100 SXM5's rate is the GPU table's (`gpuvet gpus h100`): no measured figure there, so
         * its estimate, the A100's 2470 img/s x 3350/2039 GB/s of memory bandwidth = 4058. */
        cr_assert_float_eq(number_at(feeds, "h100_demand_images_s"), 4058, 0.5);
        cr_assert_float_eq(number_at(feeds, "h100"), all / 4058.0, 1e-3);
        cr_assert(strstr(json_string_value(json_object_get(feeds, "basis")), "estimate, not measured"));
    } else {
        cr_assert(strstr(json_string_value(json_object_get(dec, "skipped")), "mate-backgrounds"));
    }

    /* pcie: measured per GPU where there is an NVIDIA device; otherwise the document says why not. */
    json_t *pcie = json_object_get(b, "pcie");
    if (system("grep -qs 0x10de /sys/bus/pci/devices/*/vendor") == 0) {
        cr_assert(json_is_array(pcie) || json_object_get(pcie, "skipped"));
    } else {
        const char *pcie_skip = json_string_value(json_object_get(pcie, "skipped"));
        cr_assert(pcie_skip && strstr(pcie_skip, "no NVIDIA GPU"), "pcie: %s", pcie_skip);
    }

    json_decref(doc);
    run_result_free(&r);
    rmdir(dir);
    free(dir);
}

/* Starts `gpuvet bench storage --dir dir`, waits until its file exists, sends sig. */
static void interrupt_storage(int sig)
{
    char *dir = make_dir();
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(GPUVET_BIN, GPUVET_BIN, "bench", "storage", "--dir", dir, (char *)NULL);
        _exit(127);
    }
    char name[256] = "";
    struct timespec step = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 3000 && entries(dir, name, sizeof name) == 0; i++)
        nanosleep(&step, NULL);
    cr_assert(strncmp(name, ".gpuvet-bench-", 14) == 0, "no bench file appeared in %s (saw '%s')", dir, name);
    /* Let it get into the writing or reading. */
    struct timespec settle = {0, 300 * 1000 * 1000};
    nanosleep(&settle, NULL);
    cr_assert_eq(kill(pid, sig), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sig, "status %#x: should die of signal %d", status, sig);
    cr_assert_eq(entries(dir, name, sizeof name), 0, "%s left behind in %s", name, dir);
    rmdir(dir);
    free(dir);
}

Test(bench_cli, ctrl_c_removes_the_storage_file) { interrupt_storage(SIGINT); }
Test(bench_cli, sigterm_removes_the_storage_file) { interrupt_storage(SIGTERM); }

/* On a machine without an NVIDIA GPU, pcie alone cannot run and says why. */
Test(bench_cli, pcie_without_a_gpu_says_why)
{
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU: bench pcie measures it (scripts/gpu-check.sh)");
    struct run_result r = run_gpuvet("bench", "pcie", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "no NVIDIA GPU on this machine"), "stderr: %s", r.err);
    run_result_free(&r);
}

Test(bench_cli, usage_errors)
{
    struct run_result r = run_gpuvet("bench", "disk", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unknown benchmark 'disk'"));
    run_result_free(&r);
    r = run_gpuvet("bench", "jitter", "--seconds", "-1", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--seconds"));
    run_result_free(&r);
    r = run_gpuvet("bench", "jitter", "--cpu", "two", NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
}

Test(bench_cli, jitter_on_a_cpu_this_process_cannot_use_is_skipped)
{
    struct run_result r = run_gpuvet("bench", "jitter", "--cpu", "100000", "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(r.status, 2);
    const char *why = json_string_value(json_object_get(json_object_get(json_object_get(doc, "benchmarks"), "jitter"),
                                                        "skipped"));
    cr_assert(why && strstr(why, "CPU 100000"), "%s", r.out);
    json_decref(doc);
    run_result_free(&r);
}

Test(bench_cli, storage_in_a_missing_directory_is_skipped)
{
    struct run_result r = run_gpuvet("bench", "storage", "--quick", "--dir", "/nonexistent/gpuvet", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.out, "/nonexistent/gpuvet"), "%s", r.out);
    run_result_free(&r);
}

/* Writes bytes of a repeating counter to path; returns a checksum of them. */
static uint64_t write_counter_file(const char *path, size_t bytes)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    uint64_t sum = 0;
    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++) {
        uint64_t word = i * 0x9e3779b97f4a7c15ull;
        sum += word;
        cr_assert_eq(fwrite(&word, sizeof word, 1, f), 1);
    }
    fclose(f);
    return sum;
}

static uint64_t checksum_file(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    uint64_t sum = 0, word;
    while (fread(&word, sizeof word, 1, f) == 1)
        sum += word;
    fclose(f);
    return sum;
}

/* A new folder holding a 64 MiB counter file named name (the path in path); returns the folder and
 * the file's checksum in *sum when sum is not NULL. */
static char *shard_in_new_dir(const char *name, char *path, size_t len, uint64_t *sum)
{
    char *dir = make_dir();
    snprintf(path, len, "%s/%s", dir, name);
    uint64_t written = write_counter_file(path, 64u << 20);
    if (sum)
        *sum = written;
    return dir;
}

/* --file reads the user's own file, and leaves it exactly as it was. */
Test(bench_cli, storage_reads_an_existing_file_and_leaves_it)
{
    char path[4096];
    uint64_t sum;
    char *dir = shard_in_new_dir("shard-0000.tar", path, sizeof path, &sum);
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);
    struct run_result r = run_gpuvet("bench", "storage", "--quick", "--json", "--file", path, NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *st = json_object_get(json_object_get(doc, "benchmarks"), "storage");
    cr_assert_str_eq(json_string_value(json_object_get(st, "file")), path);
    cr_assert_null(json_object_get(st, "dir"));
    cr_assert_eq(number_at(st, "file_bytes"), 64u << 20);
    cr_assert_gt(number_at(st, "seq_read_bytes_s"), 1e6);
    cr_assert_gt(number_at(st, "rand_read_iops"), 10);
    cr_assert_eq(stat(path, &after), 0);
    cr_assert_eq(after.st_size, before.st_size);
    cr_assert_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    cr_assert_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    cr_assert_eq(checksum_file(path), sum, "the file's bytes changed");
    cr_assert_eq(entries(dir, NULL, 0), 1, "bench left a file beside the shard");
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* A file too small to defeat the drive's cache, or not a file at all, is skipped with the reason. */
Test(bench_cli, storage_file_that_cannot_be_measured_is_named)
{
    char *dir = make_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/small.bin", dir);
    write_counter_file(path, 1u << 20);
    struct run_result r = run_gpuvet("bench", "storage", "--quick", "--file", path, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.out, path) && strstr(r.out, "at least 64 MiB"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("bench", "storage", "--quick", "--file", dir, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.out, "not a regular file"), "%s", r.out);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* A directory on tmpfs is RAM: measured only where the kernel allows O_DIRECT there (6.6+), and
 * then the result says it is not a disk. */
Test(bench_cli, storage_on_tmpfs_is_not_called_a_disk)
{
    char dir[] = "/dev/shm/gpuvet-bench-test-XXXXXX";
    if (!mkdtemp(dir))
        cr_skip_test("no /dev/shm here");
    struct run_result r = run_gpuvet("bench", "storage", "--quick", "--json", "--dir", dir, NULL);
    json_t *doc = run_json(&r);
    json_t *st = json_object_get(json_object_get(doc, "benchmarks"), "storage");
    const char *skipped = json_string_value(json_object_get(st, "skipped"));
    const char *note = json_string_value(json_object_get(st, "note"));
    if (skipped)
        cr_assert(strstr(skipped, "O_DIRECT"), "%s", skipped);
    else
        cr_assert(note && strstr(note, "not a disk"), "%s", r.out);
    cr_assert_eq(entries(dir, NULL, 0), 0, "bench left a file in %s", dir);
    json_decref(doc);
    run_result_free(&r);
    rmdir(dir);
}

Test(bench_cli, decode_on_a_folder_without_jpegs_says_so)
{
    char *dir = make_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/notes.jpg", dir);
    FILE *f = fopen(path, "w");
    fputs("not a JPEG", f);
    fclose(f);
    struct run_result r = run_gpuvet("bench", "decode", "--quick", "--images", dir, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.out, "no readable JPEG"), "%s", r.out);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

Test(bench_cli, default_images_are_imagenet_sized_and_cached)
{
    if (access("/usr/share/backgrounds/mate/nature", R_OK) != 0)
        cr_skip_test("mate-backgrounds is not installed");
    char *cache = make_dir();
    setenv("XDG_CACHE_HOME", cache, 1);
    struct run_result r = run_gpuvet("bench", "decode", "--quick", "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *set = json_object_get(json_object_get(json_object_get(doc, "benchmarks"), "decode"), "images");
    cr_assert_gt(number_at(set, "count"), 8);
    /* Each cached image is a 500-pixel-wide 4:2:0 JPEG, as most of ImageNet is. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/gpuvet/imagenet-q90", cache);
    cr_assert_str_eq(json_string_value(json_object_get(set, "dir")), dir);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    tjhandle tj = tjInitDecompress();
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        unsigned char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        int w, h, subsamp, cs;
        cr_assert_eq(tjDecompressHeader3(tj, buf, n, &w, &h, &subsamp, &cs), 0, "%s", path);
        cr_assert_eq(w, 500);
        cr_assert(h >= 250 && h <= 400, "%s is %dx%d", path, w, h);
        cr_assert_eq(subsamp, TJSAMP_420);
        unlink(path);
        checked++;
    }
    closedir(d);
    tjDestroy(tj);
    cr_assert_eq(checked, number_at(set, "count"));
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/gpuvet", cache);
    rmdir(dir);
    rmdir(cache);
    free(cache);
    json_decref(doc);
    run_result_free(&r);
}

/* The block layer's count of bytes read by this process' waited-for children (getrusage's
 * ru_inblock is in 512-byte units; submit_bio counts O_DIRECT reads there too). */
static double children_block_bytes_read(void)
{
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return (double)ru.ru_inblock * 512;
}

/* The rates are bytes over seconds the device really served. The kernel's count of what gpuvet (and
 * the child it reads in) read is seq_rate * s1 + rand_rate * s2, with each phase s1, s2 at least the
 * 2 s of --quick and both within elapsed_s: divided by the summed rates that is a time between 2 s
 * and elapsed_s - 2 s. A stub printing plausible numbers reads nothing; a rate divided by the wrong
 * time, or a reading child that is never waited for, misses. */
Test(bench_cli, storage_rates_match_the_bytes_the_kernel_counted)
{
    if (access("/proc/self/io", R_OK) != 0)
        cr_skip_test("this kernel keeps no per-task I/O accounting");
    char path[4096];
    char *dir = shard_in_new_dir("shard-0001.tar", path, sizeof path, NULL);
    struct statfs fs;
    cr_assert_eq(statfs(path, &fs), 0);
    if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
        unlink(path);
        rmdir(dir);
        cr_skip_test("%s is on tmpfs: no block device counts the reads", dir);
    }
    double before = children_block_bytes_read();
    struct run_result r = run_gpuvet("bench", "storage", "--quick", "--json", "--file", path, NULL);
    double read_bytes = children_block_bytes_read() - before;
    json_t *doc = run_json(&r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *st = json_object_get(json_object_get(doc, "benchmarks"), "storage");
    cr_assert(json_is_true(json_object_get(st, "own_session")), "%s", r.out);
    double rate = number_at(st, "seq_read_bytes_s") + number_at(st, "rand_read_iops") * number_at(st, "rand_block_bytes");
    /* Up to 64 MiB more may be the program and its libraries, read from disk when not cached. */
    double seconds_of_reading = read_bytes / rate, elapsed = number_at(st, "elapsed_s");
    double most = (elapsed - 2.0) * 1.02 + 64.0 * 1048576 / rate;
    cr_assert(seconds_of_reading >= 2.0 * 0.98 && seconds_of_reading <= most,
              "%.0f bytes read at %.0f B/s is %.2f s of reading; want 2 s to %.2f s (elapsed %.2f s)",
              read_bytes, rate, seconds_of_reading, most, elapsed);
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* pid's parent and session from /proc/pid/stat; false when it is gone or a zombie. */
static bool process_alive(pid_t pid, pid_t *parent, pid_t *session)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *after_name = strrchr(text, ')');
    char state;
    int ppid, pgrp, sid;
    if (!after_name || sscanf(after_name + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4 || state == 'Z')
        return false;
    if (parent)
        *parent = ppid;
    if (session)
        *session = sid;
    return true;
}

/* The child of pid that leads a session of its own, or 0. */
static pid_t own_session_child(pid_t pid)
{
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    struct dirent *e;
    pid_t found = 0;
    while (!found && (e = readdir(d))) {
        pid_t candidate = (pid_t)atoi(e->d_name), parent, session;
        if (candidate > 0 && process_alive(candidate, &parent, &session) && parent == pid && session == candidate)
            found = candidate;
    }
    closedir(d);
    return found;
}

/* The reads run in a child that leads its own session (as fio's jobs do), so a Ctrl-C from the
 * terminal reaches only gpuvet: the child must die with it and leave nothing reading. */
Test(bench_cli, storage_reads_in_its_own_session_and_dies_with_ctrl_c)
{
    char path[4096];
    char *dir = shard_in_new_dir("shard-0002.tar", path, sizeof path, NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(GPUVET_BIN, GPUVET_BIN, "bench", "storage", "--file", path, (char *)NULL);
        _exit(127);
    }
    pid_t reader = 0;
    struct timespec step = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 3000 && !reader; i++) {
        nanosleep(&step, NULL);
        reader = own_session_child(pid);
    }
    cr_assert(reader > 0, "gpuvet (pid %d) started no child in a session of its own", (int)pid);
    /* The child holds the file open: it is the one reading. */
    char fd_dir[64], link[4096 + 64], target[4096];
    snprintf(fd_dir, sizeof fd_dir, "/proc/%d/fd", (int)reader);
    DIR *d = opendir(fd_dir);
    cr_assert_not_null(d);
    bool holds_file = false;
    struct dirent *e;
    while ((e = readdir(d)) && !holds_file) {
        snprintf(link, sizeof link, "%s/%s", fd_dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            holds_file = !strcmp(target, path);
        }
    }
    closedir(d);
    cr_assert(holds_file, "the session leader %d does not hold %s open", (int)reader, path);
    cr_assert_eq(kill(pid, SIGINT), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status %#x: should die of SIGINT", status);
    bool reader_alive = true;
    for (int i = 0; i < 200 && (reader_alive = process_alive(reader, NULL, NULL)); i++)
        nanosleep(&step, NULL);
    cr_assert(!reader_alive, "the reading child %d outlived gpuvet", (int)reader);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* A benchmark that cannot start its threads fails alone: the run goes on and keeps the others'
 * results. GPUVET_TEST_THREAD_LIMIT stands in for RLIMIT_NPROC, which root (the test runner) ignores;
 * it makes bench's own thread creation fail with EAGAIN, so the real error path runs. */
Test(bench_cli, a_benchmark_without_its_threads_fails_alone)
{
    setenv("GPUVET_TEST_THREAD_LIMIT", "1", 1);
    struct run_result r = run_gpuvet("bench", "memory", "jitter", "--quick", "--json", "--seconds", "1", NULL);
    unsetenv("GPUVET_TEST_THREAD_LIMIT");
    json_t *doc = run_json(&r);
    json_t *b = json_object_get(doc, "benchmarks");
    json_t *mem = json_object_get(b, "memory");
    if (json_object_get(mem, "skipped") || json_object_get(mem, "threads"))
        cr_skip_test("memory needs a single thread here (one core) or cannot run: %s", r.out);
    cr_assert_eq(r.status, 2, "a failed benchmark must show in the exit status: %s", r.err);
    const char *error = json_string_value(json_object_get(mem, "error"));
    cr_assert(error && strstr(error, "could not start ") && strstr(error, " threads: Resource temporarily unavailable"),
              "%s", r.out);
    cr_assert_null(json_object_get(mem, "triad_bytes_s"), "a failed run has no figure: %s", r.out);
    /* jitter needs one thread: it still measured, after memory failed. */
    cr_assert_gt(number_at(json_object_get(b, "jitter"), "p50_us"), 0, "%s", r.out);
    json_decref(doc);
    run_result_free(&r);
}
