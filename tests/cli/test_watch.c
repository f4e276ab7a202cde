/* gpuvet watch. The diagnosis (which rule holds, with what evidence) is judged on timelines
 * replayed from files: hand-made ones holding the numbers each workload would show, real
 * `nvidia-smi dmon` logs and real H200 recordings, so every verdict asserted holds on any machine
 * however loaded. Live watches of real processes on this CPU-only machine (GPUs from the stand-in
 * NVML, tests/mock/nvml_mock.c) check what gpuvet saw and how it ends, never how much CPU a
 * workload got, which depends on the machine's load. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define A100_XML GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml"
#define DMON_PUCVMET GPUVET_TEST_SOURCE "/fixtures/watch/dmon-pucvmet-1080ti.log"
#define DMON_SM GPUVET_TEST_SOURCE "/fixtures/plan/dmon-sm.log"
#define H200(name) GPUVET_TEST_SOURCE "/fixtures/watch/h200-" name

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *temp_path(const char *suffix)
{
    char *path;
    cr_assert(asprintf(&path, "/tmp/gpuvet-watch-%d-%s", (int)getpid(), suffix) > 0);
    return path;
}

/* The stand-in NVML with one A100 whose SM utilisation stays at sm %: the GPU waits. */
static void mock_gpu_timeline(int sm)
{
    char *timeline = temp_path("timeline.txt");
    FILE *f = fopen(timeline, "w");
    cr_assert_not_null(f);
    fprintf(f, "# sm mem used_mib rx_kb_s tx_kb_s sm_mhz mem_mhz events power_mw\n");
    for (int i = 0; i < 3; i++)
        fprintf(f, "%d 10 20000 900000 30000 1410 1593 0 180000\n", sm);
    fclose(f);
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", A100_XML, 1);
    setenv("GPUVET_MOCK_NVML_TIMELINE", timeline, 1);
    free(timeline);
}

static json_t *load(const char *path)
{
    json_error_t error;
    json_t *doc = json_load_file(path, 0, &error);
    cr_assert_not_null(doc, "%s: %s", path, error.text);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "gpuvet.watch/1");
    return doc;
}

/* The diagnosis entry of id, or NULL. */
static json_t *diagnosis(json_t *doc, const char *id)
{
    size_t i;
    json_t *d;
    json_array_foreach (json_object_get(doc, "diagnosis"), i, d)
        if (!strcmp(json_string_value(json_object_get(d, "id")), id))
            return d;
    return NULL;
}

static const char *severity(json_t *doc, const char *id)
{
    json_t *d = diagnosis(doc, id);
    return d ? json_string_value(json_object_get(d, "severity")) : "absent";
}

/* Frees what a test of one watch run holds, and removes its --json file. */
static void cleanup(json_t *doc, struct run_result *r, char *json)
{
    json_decref(doc);
    run_result_free(r);
    unlink(json);
    free(json);
}

/* A process group of `busy` shells that each burn a core until killed: the first is the group's
 * leader and the others are its children. Exec'd, not forked copies of this test, so nothing of
 * the test runner lives on in them. */
static pid_t spawn_script(const char *script)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

static pid_t spawn_busy(int busy)
{
    char script[512] = "";
    for (int i = 1; i < busy; i++)
        strcat(script, "while :; do :; done & ");
    strcat(script, "while :; do :; done");
    return spawn_script(script);
}

static void reap(pid_t pid)
{
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static char *pid_text(pid_t pid)
{
    static char buf[16];
    snprintf(buf, sizeof buf, "%d", (int)pid);
    return buf;
}

/* The diagnosis of a job is judged on hand-made gpuvet.watch/1 timelines: the numbers a live watch
 * would have measured for each workload, replayed, so the verdicts below hold on any machine however
 * loaded. (A live watch on this shared machine measures whatever CPU the workload got; its tests
 * below check what it saw, not how much.) One A100 or none, four CPUs unless said, six intervals of
 * 0.5 s, the job's root is pid 4000 and its workers 4001.., outsiders 5000.. */
struct scene {
    int ncpus;
    bool gpu;              /* one A100 seen; false: NVML was not there */
    double sm;             /* its SM utilisation, % */
    int processes;         /* in the job tree: the root and processes - 1 workers */
    double main_demand;    /* the root's main thread, cores wanted */
    int workers_listed;    /* the busiest workers kept in each sample */
    double worker_demand;  /* cores each of them wanted (CPU time plus run-queue wait) */
    double worker_cpu;     /* cores each of them got */
    double idle, iowait;   /* shares of all CPUs */
    double hog_cores;      /* one process outside the tree (pid 5000) */
    double rest_cores;     /* another (pid 5001) */
    double job_read_mbs, disk_read_mbs, disk_busy;
};

static json_t *scene_proc(int pid, int ppid, const char *name, double cpu, double demand)
{
    return json_pack("{s:i, s:i, s:s, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:f, s:i}", "pid", pid, "ppid", ppid, "name",
                     name, "cpu", cpu, "demand", demand, "main_cpu", cpu, "main_demand", demand, "threads", 1,
                     "running", 1, "blocked", 0, "majflt_per_s", 0.0, "numa_misplaced_threads", 0);
}

static json_t *scene_sample(const struct scene *sc, int i)
{
    json_t *procs = json_array();
    json_array_append_new(procs, scene_proc(4000, 1, "python3", sc->main_demand, sc->main_demand));
    double job_cpu = sc->main_demand, job_demand = sc->main_demand;
    for (int k = 0; k < sc->workers_listed; k++) {
        json_array_append_new(procs, scene_proc(4001 + k, 4000, "pt_data_worker", sc->worker_cpu, sc->worker_demand));
        job_cpu += sc->worker_cpu;
        job_demand += sc->worker_demand;
    }
    json_t *top = json_array();
    if (sc->hog_cores > 0)
        json_array_append_new(top, json_pack("{s:i, s:s, s:f}", "pid", 5000, "name", "hog", "cpu", sc->hog_cores));
    if (sc->rest_cores > 0)
        json_array_append_new(top, json_pack("{s:i, s:s, s:f}", "pid", 5001, "name", "sshd", "cpu", sc->rest_cores));
    json_t *s = json_pack(
        "{s:f, s:f, s:{s:f, s:f, s:f, s:f, s:f}, s:{s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:o},"
        " s:{s:f, s:o}, s:{s:s, s:f, s:f}, s:{s:f, s:f}, s:{s:f, s:f}}",
        "t", 0.5 * (i + 1), "seconds", 0.5, "cpu", "user", 1 - sc->idle - sc->iowait, "system", 0.0, "iowait", sc->iowait,
        "steal", 0.0, "idle", sc->idle, "job", "processes", sc->processes, "threads", sc->processes, "running",
        sc->processes, "blocked", 0, "cpu", job_cpu, "demand", job_demand, "majflt_per_s", 0.0, "read_mb_s",
        sc->job_read_mbs, "procs", procs, "others", "cpu", sc->hog_cores + sc->rest_cores, "top", top, "disk", "name",
        "sda", "read_mb_s", sc->disk_read_mbs, "busy", sc->disk_busy, "swap", "in_mb_s", 0.0, "out_mb_s", 0.0, "net",
        "rx_mb_s", 0.0, "tx_mb_s", 0.0);
    cr_assert_not_null(s);
    json_t *gpus = json_array();
    if (sc->gpu)
        json_array_append_new(gpus, json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i}", "sm", sc->sm, "mem",
                                              10.0, "mem_used_mib", 20000.0, "pcie_rx_mb_s", 900.0, "pcie_tx_mb_s",
                                              30.0, "link_mb_s", 31508.0, "sm_clock_mhz", 1410.0, "mem_clock_mhz",
                                              1593.0, "power_w", 180.0, "clock_events_mask", 0));
    json_object_set_new(s, "gpus", gpus);
    return s;
}

/* Replays the scene through `gpuvet watch --replay` and returns its gpuvet.watch/1 document. */
static json_t *replay_scene(const struct scene *sc, struct run_result *r)
{
    char *timeline = temp_path("scene.watch.json"), *json = temp_path("scene.json");
    json_t *doc = json_pack("{s:s, s:s, s:s, s:i, s:f, s:i, s:i, s:b, s:b}", "schema", "gpuvet.watch/1", "source", "live",
                            "target", "command: python3 train.py", "root_pid", 4000, "interval_s", 0.5, "ncpus",
                            sc->ncpus, "numa_nodes", 1, "host_seen", 1, "job_seen", 1);
    cr_assert_not_null(doc);
    json_t *gpus = json_array(), *samples = json_array();
    if (sc->gpu)
        json_array_append_new(gpus, json_pack("{s:i, s:s, s:s, s:i}", "index", 0, "bus_id", "0000:07:00.0", "name",
                                              "NVIDIA A100-SXM4-80GB", "numa_node", 0));
    else
        json_object_set_new(doc, "gpu_unseen", json_string("NVML is not installed (libnvidia-ml.so.1 was not found)"));
    json_object_set_new(doc, "gpus", gpus);
    for (int i = 0; i < 6; i++)
        json_array_append_new(samples, scene_sample(sc, i));
    json_object_set_new(doc, "samples", samples);
    cr_assert_eq(json_dump_file(doc, timeline, 0), 0);
    json_decref(doc);
    *r = run_gpuvet("watch", "--replay", timeline, "--json", "--output", json, NULL);
    cr_assert_eq(r->status, 0, "%s", r->err);
    doc = load(json);
    /* The text report of the same timeline, for the tests that read what a user sees. */
    run_result_free(r);
    *r = run_gpuvet("watch", "--replay", timeline, NULL);
    cr_assert_eq(r->status, 0, "%s", r->err);
    unlink(timeline);
    unlink(json);
    free(timeline);
    free(json);
    return doc;
}

static double evidence_number(json_t *doc, const char *id, const char *key)
{
    return json_number_value(json_object_get(json_object_get(diagnosis(doc, id), "evidence"), key));
}

/* Two of a job's four workers (the other two are the shells that started them) each want a whole
 * core while the GPU sits at 35 %: the loader is the bottleneck; the main process only waits, so
 * it is not launch-bound. */
static const struct scene busy_workers = {.ncpus = 4, .gpu = true, .sm = 35, .processes = 5, .main_demand = 0.01,
                                          .workers_listed = 2, .worker_demand = 1.0, .worker_cpu = 1.0, .idle = 0.5};

Test(watch, workers_wanting_their_cores_are_input_cpu_bound)
{
    struct run_result r;
    json_t *doc = replay_scene(&busy_workers, &r);
    cr_expect(strstr(r.out, "INPUT_CPU_BOUND"), "%s", r.out);
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "warn");
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "absent");
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "absent", "SM 35 %% is not GPU-bound");
    cr_expect_str_eq(severity(doc, "HOST_CONTENTION"), "absent", "the workers got all they wanted");
    cr_expect_float_eq(evidence_number(doc, "INPUT_CPU_BOUND", "saturated_workers"), 2.0, 1e-9);
    cr_expect_float_eq(evidence_number(doc, "INPUT_CPU_BOUND", "workers"), 4.0, 1e-9);
    cr_expect_float_eq(evidence_number(doc, "INPUT_CPU_BOUND", "idle_cpus"), 2.0, 1e-9, "half of 4 CPUs idle");
    cr_expect_float_eq(json_number_value(json_object_get(diagnosis(doc, "INPUT_CPU_BOUND"), "gpu_time_explained")),
                       0.65, 1e-9, "the GPU's idle time (100 - 35 %%) of every interval");
    json_decref(doc);
    run_result_free(&r);
    /* Workers that want less than a core (0.80 < 0.85) are not the limit. */
    struct scene relaxed = busy_workers;
    relaxed.worker_demand = relaxed.worker_cpu = 0.80;
    doc = replay_scene(&relaxed, &r);
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "absent");
    json_decref(doc);
    run_result_free(&r);
}

/* The same workers without a GPU: the host side holds, but whether GPUs waited is unknown. */
Test(watch, without_nvml_the_input_diagnosis_is_unknown_and_says_why)
{
    struct scene sc = busy_workers;
    sc.gpu = false;
    struct run_result r;
    json_t *doc = replay_scene(&sc, &r);
    cr_assert_str_eq(severity(doc, "INPUT_CPU_BOUND"), "unknown");
    cr_expect(strstr(json_string_value(json_object_get(diagnosis(doc, "INPUT_CPU_BOUND"), "message")),
                     "whether the GPUs waited could not be seen"));
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "unknown");
    cr_expect_eq(json_array_size(json_object_get(doc, "gpus")), 0);
    json_decref(doc);
    run_result_free(&r);
}

/* A single-threaded main process that wants a whole core while the GPU waits. */
static const struct scene busy_main = {.ncpus = 4, .gpu = true, .sm = 40, .processes = 1, .main_demand = 0.98,
                                       .idle = 0.75};

Test(watch, a_busy_main_thread_is_launch_bound)
{
    struct run_result r;
    json_t *doc = replay_scene(&busy_main, &r);
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "warn");
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "absent", "one core of four, no workers");
    cr_expect_float_eq(evidence_number(doc, "LAUNCH_BOUND", "main_thread_demand"), 0.98, 1e-9);
    cr_expect_float_eq(json_number_value(json_object_get(diagnosis(doc, "LAUNCH_BOUND"), "gpu_time_explained")), 0.60,
                       1e-9);
    json_decref(doc);
    run_result_free(&r);
    struct scene half = busy_main;
    half.main_demand = 0.5;
    doc = replay_scene(&half, &r);
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "absent", "half a core is not the limit");
    json_decref(doc);
    run_result_free(&r);
    struct scene gpu_busy = busy_main;
    gpu_busy.sm = 90;
    doc = replay_scene(&gpu_busy, &r);
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "absent", "the GPU did not wait");
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "info");
    json_decref(doc);
    run_result_free(&r);
}

/* Two workers that want a whole core each get 0.35 core each: a hog outside the tree takes 1.2
 * cores and sshd 0.1 (four CPUs, so the job alone does not want all of them: only the workers'
 * demand, not the CPU they got, shows they are saturated). */
static const struct scene hogged = {.ncpus = 4, .gpu = true, .sm = 50, .processes = 3, .main_demand = 0.01,
                                    .workers_listed = 2, .worker_demand = 1.0, .worker_cpu = 0.35, .hog_cores = 1.2,
                                    .rest_cores = 0.1};

Test(watch, a_hog_outside_the_tree_is_host_contention)
{
    struct run_result r;
    json_t *doc = replay_scene(&hogged, &r);
    cr_assert_str_eq(severity(doc, "HOST_CONTENTION"), "warn");
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "warn", "starved workers still want whole cores");
    cr_expect_float_eq(evidence_number(doc, "HOST_CONTENTION", "job_run_queue_wait_share"), 1.3 / 2.01, 1e-6);
    cr_expect_float_eq(evidence_number(doc, "HOST_CONTENTION", "others_cores"), 1.3, 1e-9);
    json_t *outsiders = json_object_get(json_object_get(diagnosis(doc, "HOST_CONTENTION"), "evidence"), "outsiders");
    cr_assert_eq(json_array_size(outsiders), 2);
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(outsiders, 0), "pid")), 5000, "the busiest first");
    cr_expect_float_eq(json_number_value(json_object_get(json_array_get(outsiders, 0), "cores")), 1.2, 1e-9);
    cr_expect(strstr(json_string_value(json_object_get(diagnosis(doc, "HOST_CONTENTION"), "message")),
                     "hog (pid 5000, 1.20 cores)"));
    json_decref(doc);
    run_result_free(&r);
    /* 0.08 cores of four outside the tree (under 5 % of the machine) is not contention. */
    struct scene quiet = hogged;
    quiet.hog_cores = 0.05;
    quiet.rest_cores = 0.03;
    doc = replay_scene(&quiet, &r);
    cr_expect_str_eq(severity(doc, "HOST_CONTENTION"), "absent");
    json_decref(doc);
    run_result_free(&r);
}

/* The job reads 120 MB/s from a disk busy 95 % of the time while the GPU sits at 30 %. */
static const struct scene reading = {.ncpus = 4, .gpu = true, .sm = 30, .processes = 1, .main_demand = 0.3,
                                     .idle = 0.7, .iowait = 0.05, .job_read_mbs = 120, .disk_read_mbs = 130,
                                     .disk_busy = 0.95};

Test(watch, a_reader_of_a_busy_disk_is_input_io_bound)
{
    struct run_result r;
    json_t *doc = replay_scene(&reading, &r);
    cr_expect_str_eq(severity(doc, "INPUT_IO_BOUND"), "warn", "%s", r.out);
    cr_expect_float_eq(evidence_number(doc, "INPUT_IO_BOUND", "disk_read_mb_s"), 130, 1e-9);
    cr_expect_float_eq(evidence_number(doc, "INPUT_IO_BOUND", "disk_busy"), 0.95, 1e-9);
    json_decref(doc);
    run_result_free(&r);
    /* The same busy disk while the job reads nothing: someone else's reads are not the job's wait. */
    struct scene not_ours = reading;
    not_ours.job_read_mbs = 0;
    doc = replay_scene(&not_ours, &r);
    cr_expect_str_eq(severity(doc, "INPUT_IO_BOUND"), "absent");
    json_decref(doc);
    run_result_free(&r);
}

/* The largest process count of the job tree over the samples. */
static json_int_t most_processes(json_t *doc)
{
    json_int_t most = 0;
    size_t i;
    json_t *s;
    json_array_foreach (json_object_get(doc, "samples"), i, s) {
        json_int_t n = json_integer_value(json_object_get(json_object_get(s, "job"), "processes"));
        most = n > most ? n : most;
    }
    return most;
}

/* A live job tree: gpuvet finds its processes, measures each one's CPU and demand, and reads the
 * stand-in GPU. How much CPU the workers got depends on the machine's load, so only that they were
 * measured is checked; the diagnosis of such numbers is the replayed tests' above. */
Test(watch, a_live_job_tree_is_sampled_with_its_gpu)
{
    mock_gpu_timeline(35);
    char *json = temp_path("cpu.json");
    struct run_result r = run_gpuvet("watch", "--interval", "0.5", "--json", "--output", json, "--", "sh", "-c",
                                     "timeout 3 sh -c 'while :; do :; done' & timeout 3 sh -c 'while :; do :; done' & "
                                     "wait",
                                     NULL);
    cr_assert_eq(r.status, 0, "the job's own status; stderr: %s", r.err);
    cr_expect(!strstr(r.err, "Diagnosis"), "--output FILE holds the report: %s", r.err);
    json_t *doc = load(json);
    cr_expect(json_is_true(json_object_get(doc, "host_seen")) && json_is_true(json_object_get(doc, "job_seen")));
    cr_expect_geq(most_processes(doc), 3, "the shell, and below it the timeouts and their busy shells");
    json_int_t root = json_integer_value(json_object_get(doc, "root_pid"));
    cr_expect_gt(root, 0);
    size_t i, k;
    json_t *s, *p;
    cr_assert_geq(json_array_size(json_object_get(doc, "samples")), 1);
    json_array_foreach (json_object_get(doc, "samples"), i, s) {
        json_t *job = json_object_get(s, "job");
        cr_expect_eq(json_real_value(json_object_get(json_array_get(json_object_get(s, "gpus"), 0), "sm")), 35.0);
        cr_expect_eq(json_integer_value(json_object_get(json_array_get(json_object_get(job, "procs"), 0), "pid")), root,
                     "the root first");
        json_array_foreach (json_object_get(job, "procs"), k, p) {
            cr_expect(json_is_number(json_object_get(p, "cpu")) && json_is_number(json_object_get(p, "demand")),
                      "sample %zu, process %zu: CPU and demand measured", i, k);
            cr_expect_geq(json_number_value(json_object_get(p, "demand")), 0);
        }
    }
    cleanup(doc, &r, json);
}

struct reader {
    int fd;
    double until;
    int first; /* MiB it starts at */
};

/* Reads 1 MiB blocks of a 32 MiB file with O_DIRECT, in a loop, until the time is up (or it is killed). */
static void *read_loop(void *arg)
{
    const struct reader *r = arg;
    void *buf;
    if (posix_memalign(&buf, 4096, 1 << 20))
        return NULL;
    for (off_t mib = r->first; now_s() < r->until; mib = (mib + 1) % 32)
        if (pread(r->fd, buf, 1 << 20, mib << 20) < 0)
            break;
    free(buf);
    return NULL;
}

/* The name of the block device holding path as /sys/dev/block names it, and its parent (the
 * disk of a partition); "" when it is not a block device (overlay, tmpfs). */
static void block_names(const char *path, char *dev, char *disk, size_t size)
{
    struct stat st;
    char link[128], target[4096];
    *dev = *disk = '\0';
    cr_assert_eq(stat(path, &st), 0);
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return;
    target[n] = '\0';
    char *last = strrchr(target, '/');
    snprintf(dev, size, "%s", last ? last + 1 : target);
    if (last) {
        *last = '\0';
        char *parent = strrchr(target, '/');
        snprintf(disk, size, "%s", parent ? parent + 1 : target);
    }
}

/* A process with a file open (O_DIRECT, four threads reading as four loader workers would): the
 * disk of its open file is found through /proc/PID/fd and /sys/dev/block whatever the load. */
Test(watch, the_disk_of_a_readers_open_file_is_found)
{
    mock_gpu_timeline(30);
    char path[4096];
    snprintf(path, sizeof path, "%s/../watch-odirect-%d.bin", GPUVET_FIXTURES, (int)getpid());
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    cr_assert(fd >= 0);
    static char block[1 << 20];
    memset(block, 0x5a, sizeof block);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(write(fd, block, sizeof block), (ssize_t)sizeof block);
    fsync(fd);
    close(fd);
    char dev[64], disk[64];
    block_names(path, dev, disk, sizeof dev);
    fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0 || !*dev) {
        unlink(path);
        cr_skip_test("the build folder is not on a block device that takes O_DIRECT");
    }
    pid_t job = fork();
    cr_assert(job >= 0);
    if (job == 0) {
        setpgid(0, 0);
        static struct reader readers[4];
        pthread_t threads[4];
        for (int i = 0; i < 4; i++) {
            readers[i] = (struct reader){.fd = fd, .until = now_s() + 600, .first = i * 8};
            pthread_create(&threads[i], NULL, read_loop, &readers[i]);
        }
        for (int i = 0; i < 4; i++)
            pthread_join(threads[i], NULL);
        _exit(0);
    }
    setpgid(job, job);
    close(fd);
    char *json = temp_path("io.json");
    struct run_result r =
        run_gpuvet("watch", "--pid", pid_text(job), "--interval", "0.5", "--duration", "1.2", "--json", "--output", json, NULL);
    reap(job);
    unlink(path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = load(json);
    cr_expect(json_is_null(json_object_get(doc, "disk_unseen")), "%s",
              json_string_value(json_object_get(doc, "disk_unseen")));
    size_t i;
    json_t *s;
    cr_assert_geq(json_array_size(json_object_get(doc, "samples")), 1);
    json_array_foreach (json_object_get(doc, "samples"), i, s) {
        const char *name = json_string_value(json_object_get(json_object_get(s, "disk"), "name"));
        cr_expect(name && (!strcmp(name, dev) || !strcmp(name, disk)), "sample %zu: disk %s, the file is on %s of %s", i,
                  name ? name : "(none)", dev, disk);
        cr_expect(json_is_number(json_object_get(json_object_get(s, "job"), "read_mb_s")), "the job's reads are counted");
        cr_expect(json_is_number(json_object_get(json_object_get(s, "disk"), "busy")));
    }
    cleanup(doc, &r, json);
}

/* Processes outside the tree are never the job's own: a two-process hog beside a busy job. */
Test(watch, outsiders_are_never_the_job)
{
    mock_gpu_timeline(50);
    pid_t job = spawn_busy(2), hog = spawn_busy(2);
    char *json = temp_path("hog.json");
    struct run_result r =
        run_gpuvet("watch", "--pid", pid_text(job), "--interval", "0.5", "--duration", "1.2", "--json", "--output", json, NULL);
    reap(job);
    reap(hog);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "Diagnosis"), "--output FILE holds the report, stdout only the live view: %s", r.out);
    json_t *doc = load(json);
    char target[32];
    snprintf(target, sizeof target, "pid %d", (int)job);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "target")), target);
    size_t i, k, n;
    json_t *s, *o, *p;
    json_array_foreach (json_object_get(doc, "samples"), i, s) {
        json_array_foreach (json_object_get(json_object_get(s, "job"), "procs"), k, p)
            json_array_foreach (json_object_get(json_object_get(s, "others"), "top"), n, o)
                cr_expect_neq(json_integer_value(json_object_get(o, "pid")),
                              json_integer_value(json_object_get(p, "pid")), "a process of the job is not an outsider");
        cr_expect(json_is_number(json_object_get(json_object_get(s, "others"), "cpu")));
    }
    cleanup(doc, &r, json);
}

/* True once pid has a child that runs `name` (gpuvet has started its job, so its handlers are set). */
static bool has_child_named(pid_t pid, const char *name)
{
    char path[64], children[4096] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(children, 1, sizeof children - 1, f);
    children[n] = '\0';
    fclose(f);
    for (char *tok = strtok(children, " \n"); tok; tok = strtok(NULL, " \n")) {
        char comm_path[64], comm[64] = "";
        snprintf(comm_path, sizeof comm_path, "/proc/%s/comm", tok);
        FILE *c = fopen(comm_path, "r");
        if (c) {
            bool same = fgets(comm, sizeof comm, c) && !strncmp(comm, name, strlen(name)) && comm[strlen(name)] == '\n';
            fclose(c);
            if (same)
                return true;
        }
    }
    return false;
}

/* Ctrl-C sent to gpuvet alone is passed on to the job; the diagnosis follows and the job's
 * status (killed by SIGINT: 130) becomes gpuvet's. The interrupt is sent once the job runs, not
 * after a fixed wait that a loaded machine may not have reached. */
Test(watch, an_interrupt_is_passed_on_and_ends_with_the_diagnosis)
{
    char err_path[] = "/tmp/gpuvet-watch-errXXXXXX";
    int err = mkstemp(err_path);
    cr_assert(err >= 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(err, 2);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        execl(GPUVET_BIN, GPUVET_BIN, "watch", "--interval", "0.5", "--", "sleep", "100", (char *)NULL);
        _exit(126);
    }
    int status;
    while (!has_child_named(pid, "sleep"))
        if (waitpid(pid, &status, WNOHANG) == pid)
            cr_assert_fail("gpuvet ended before its job started");
        else
            usleep(10000);
    /* Sent again until gpuvet ends: one that lands while gpuvet is still starting the job (the exec
     * is done, its pid not yet recorded) is not passed on. Had gpuvet never passed it on, it would
     * wait out the job's 100 s and end with the job's status, 0. */
    for (kill(pid, SIGINT); waitpid(pid, &status, WNOHANG) == 0; kill(pid, SIGINT))
        usleep(200000);
    cr_assert(WIFEXITED(status), "gpuvet ended by itself, not by the signal");
    cr_expect_eq(WEXITSTATUS(status), 130, "the job's status: killed by SIGINT");
    char text[65536] = "";
    lseek(err, 0, SEEK_SET);
    ssize_t n = read(err, text, sizeof text - 1);
    text[n > 0 ? n : 0] = '\0';
    cr_expect(strstr(text, "Diagnosis"), "%s", text);
    cr_expect(strstr(text, "interrupted by signal 2"), "%s", text);
    close(err);
    unlink(err_path);
}

Test(watch, a_job_that_exits_at_once_keeps_its_status)
{
    struct run_result r = run_gpuvet("watch", "--", "sh", "-c", "exit 3", NULL);
    cr_expect_eq(r.status, 3);
    cr_expect(strstr(r.err, "nothing to diagnose"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("watch", "--", "/nonexistent/trainer", NULL);
    cr_expect_eq(r.status, 127);
    cr_expect(strstr(r.err, "cannot run '/nonexistent/trainer': No such file or directory"), "%s", r.err);
    run_result_free(&r);
}

/* The process ends while watched. It is this test's child and stays a zombie until the test
 * reaps it, which gpuvet counts as ended (only its exit status is left). */
Test(watch, a_pid_that_vanishes_ends_the_watch_cleanly)
{
    pid_t job = spawn_script("exec sleep 1.5");
    char *json = temp_path("vanish.json");
    struct run_result r = run_gpuvet("watch", "--pid", pid_text(job), "--interval", "0.5", "--json", NULL);
    reap(job);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char expected[64];
    snprintf(expected, sizeof expected, "process %d ended after", (int)job);
    json_t *doc = run_json(&r);
    cr_assert_not_null(doc, "--json: the document on stdout: %s", r.out);
    cr_expect(strstr(json_string_value(json_object_get(doc, "end")), expected), "%s", r.out);
    cr_expect_leq(json_array_size(json_object_get(doc, "samples")), 4);
    cleanup(doc, &r, json);
}

Test(watch, a_pid_that_is_not_there_or_not_ours)
{
    struct run_result r = run_gpuvet("watch", "--pid", "999999999", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no process 999999999"), "%s", r.err);
    run_result_free(&r);
    /* Another user's process: its threads can be counted, its open files cannot. */
    char *json = temp_path("pid1.json");
    char cmd[2048];
    bool drop = geteuid() == 0 && system("command -v setpriv >/dev/null") == 0;
    if (geteuid() == 0 && !drop)
        cr_skip_test("needs util-linux's setpriv to drop root");
    snprintf(cmd, sizeof cmd, "cd /tmp && %s %s watch --pid 1 --duration 1.2 --interval 0.5 --json --output %s.u >/dev/null",
             drop ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "", GPUVET_BIN, json);
    cr_assert_eq(system(cmd), 0);
    char other[4200];
    snprintf(other, sizeof other, "%s.u", json);
    json_t *doc = load(other);
    const char *why = json_string_value(json_object_get(doc, "disk_unseen"));
    cr_expect(why && strstr(why, "/proc/1/fd may not be read"), "%s", why ? why : "(null)");
    json_decref(doc);
    unlink(other);
    free(json);
}

/* A real `nvidia-smi dmon -s pucvmet` log: GPU side only, so host-side rules are unknown. */
Test(watch, replays_a_dmon_log)
{
    char *json = temp_path("dmon.json");
    struct run_result r = run_gpuvet("watch", "--replay", DMON_PUCVMET, "--json", "--output", json, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = load(json);
    json_t *samples = json_object_get(doc, "samples");
    cr_assert_eq(json_array_size(samples), 5);
    json_t *gpu = json_array_get(json_object_get(json_array_get(samples, 4), "gpus"), 0);
    cr_expect_eq(json_real_value(json_object_get(gpu, "sm")), 9.0);
    cr_expect_eq(json_real_value(json_object_get(gpu, "mem_used_mib")), 821.0);
    cr_expect_eq(json_real_value(json_object_get(gpu, "pcie_rx_mb_s")), 0.0);
    cr_expect_eq(json_real_value(json_object_get(gpu, "sm_clock_mhz")), 1151.0);
    cr_expect_eq(json_array_size(json_object_get(gpu, "clock_events")), 0, "pviol and tviol are 0");
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "absent", "SM 0-9 %%");
    cr_expect_str_eq(severity(doc, "GPU_THROTTLED"), "absent");
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "unknown", "a dmon log has no host side");
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("watch", "--replay", DMON_PUCVMET, NULL);
    cr_expect(strstr(r.out, "host side not seen: an nvidia-smi dmon log records only the GPUs"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("watch", "--replay", DMON_SM, NULL);
    cr_expect_eq(r.status, 0, "a -s u log replays too: %s", r.err);
    run_result_free(&r);
    unlink(json);
    free(json);
}

/* Timelines recorded by gpuvet watch on a real H200 (scripts/gpu-check.sh): a job whose main
 * thread prepares each batch in Python, and the same job without that work. The seconds before
 * the GPU first shows activity (importing torch) are start-up and not judged. */
Test(watch, real_h200_timelines_name_the_main_thread_and_the_gpu_bound_case)
{
    char *json = temp_path("h200.json");
    struct run_result r = run_gpuvet("watch", "--replay", H200("slow-producer.watch.json"), "--json", "--output", json, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = load(json);
    json_t *first = json_array_get(json_object_get(doc, "diagnosis"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(first, "id")), "LAUNCH_BOUND", "ranked first");
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "absent");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(first, "evidence"), "startup_intervals")), 7);
    cr_expect_gt(json_real_value(json_object_get(first, "gpu_time_explained")), 0.8);
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("watch", "--replay", H200("gpu-bound.watch.json"), "--json", "--output", json, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    doc = load(json);
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "info");
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "absent", "the spinning sync is not launch-bound while SM is 99 %%");
    cr_expect_str_eq(severity(doc, "GPU_THROTTLED"), "absent", "sw_power_cap at 690 W is normal");
    cr_expect_str_eq(severity(doc, "PCIE_BOUND"), "absent", "14 GB/s of a 63 GB/s link");
    cleanup(doc, &r, json);
    r = run_gpuvet("watch", "--replay", H200("dmon-pucvmet.log"), NULL);
    cr_expect_eq(r.status, 0, "the newer dmon columns (jpg, ofa, ccpm) are skipped: %s", r.err);
    cr_expect(strstr(r.out, "22 interval(s)"), "%s", r.out);
    run_result_free(&r);
}

/* A saved timeline replays to the same diagnosis. */
Test(watch, a_saved_timeline_replays_to_the_same_diagnosis)
{
    mock_gpu_timeline(45);
    char *first = temp_path("first.json"), *second = temp_path("second.json");
    struct run_result r = run_gpuvet("watch", "--interval", "0.5", "--json", "--output", first, "--", "sh", "-c",
                                     "timeout 2 sh -c 'while :; do :; done'", NULL);
    cr_assert_eq(r.status, 124, "timeout's own status passes through: %s", r.err);
    run_result_free(&r);
    r = run_gpuvet("watch", "--replay", first, "--json", "--output", second, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *a = load(first), *b = load(second);
    json_t *da = json_object_get(a, "diagnosis"), *db = json_object_get(b, "diagnosis");
    cr_assert_eq(json_array_size(da), json_array_size(db));
    for (size_t i = 0; i < json_array_size(da); i++)
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(da, i), "id")),
                         json_string_value(json_object_get(json_array_get(db, i), "id")));
    cr_expect_eq(json_array_size(json_object_get(a, "samples")), json_array_size(json_object_get(b, "samples")));
    /* The timeline's mean SM utilisation prices offers (the mock GPU sat at 45 %). */
    r = (run_result_free(&r), run_gpuvet("cost", GPUVET_TEST_SOURCE "/fixtures/plan/offers-seed.csv", "--util-from",
                                          first, "--json", NULL));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *cost = run_json(&r);
    json_t *measured = json_object_get(json_object_get(cost, "cost"), "utilisation_measured");
    cr_expect_float_eq(json_real_value(json_object_get(measured, "mean_sm")), 0.45, 1e-9);
    cr_expect_eq(json_integer_value(json_object_get(measured, "samples")),
                 (json_int_t)json_array_size(json_object_get(a, "samples")), "one GPU reading a sample");
    json_decref(cost);
    json_decref(a);
    json_decref(b);
    run_result_free(&r);
    unlink(first);
    unlink(second);
    free(first);
    free(second);
}

Test(watch, bad_input_names_the_file)
{
    char *bad = temp_path("bad.log");
    FILE *f = fopen(bad, "w");
    fputs("# gpu sm mem\n# Idx % %\n    0  busy  3\n", f);
    fclose(f);
    struct run_result r = run_gpuvet("watch", "--replay", bad, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, ":3: sm 'busy' is not a number"), "%s", r.err);
    run_result_free(&r);
    f = fopen(bad, "w");
    fputs("{\"schema\": \"gpuvet.audit/1\"}", f);
    fclose(f);
    r = run_gpuvet("watch", "--replay", bad, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "not a gpuvet.watch/1 document"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("watch", "--pid", "1", "--", "true", NULL);
    cr_expect_eq(r.status, 2, "one of COMMAND, --pid or --replay");
    run_result_free(&r);
    r = run_gpuvet("watch", "--interval", "0", NULL);
    cr_expect_eq(r.status, 2);
    run_result_free(&r);
    unlink(bad);
    free(bad);
}

Test(watch, the_machine_alone_and_explain)
{
    struct run_result r = run_gpuvet("watch", "--duration", "1.2", "--interval", "0.5", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "no job was watched"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("explain", "INPUT_CPU_BOUND", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "loader workers"), "%s", r.out);
    run_result_free(&r);
}

/* --json means what it means in every other command: the document on stdout; --output FILE takes
 * the report to a file. A command line from before, `--json FILE`, is refused with the new
 * spelling and writes nothing, and with a COMMAND (whose output is stdout) --json needs --output. */
Test(watch, json_is_stdout_and_output_names_the_file)
{
    struct run_result r = run_gpuvet("watch", "--replay", DMON_PUCVMET, "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_not_null(doc, "%s", r.out);
    cr_expect_eq(json_array_size(json_object_get(doc, "samples")), 5);
    json_decref(doc);
    run_result_free(&r);

    char *file = temp_path("old-spelling.json");
    unlink(file);
    r = run_gpuvet("watch", "--replay", DMON_PUCVMET, "--json", file, NULL);
    cr_expect_eq(r.status, 2, "%s", r.out);
    cr_expect(strstr(r.err, "--json --output") && strstr(r.err, file), "%s", r.err);
    cr_expect(access(file, F_OK) != 0, "nothing was written to %s", file);
    run_result_free(&r);
    char equals[4200];
    snprintf(equals, sizeof equals, "--json=%s", file);
    r = run_gpuvet("watch", "--replay", DMON_PUCVMET, equals, NULL);
    cr_expect_eq(r.status, 2, "%s", r.out);
    cr_expect(strstr(r.err, "--json --output"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("watch", "--json", file, "--", "sh", "-c", "true", NULL);
    cr_expect_eq(r.status, 2, "%s", r.out);
    cr_expect(access(file, F_OK) != 0, "nothing was written to %s", file);
    run_result_free(&r);
    r = run_gpuvet("watch", "--json", "--", "sh", "-c", "true", NULL);
    cr_expect_eq(r.status, 2, "%s", r.out);
    cr_expect(strstr(r.err, "--output FILE"), "%s", r.err);
    run_result_free(&r);

    r = run_gpuvet("watch", "--replay", DMON_PUCVMET, "--json", "--output", file, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out[0], '\0', "the report went to the file: %s", r.out);
    doc = load(file);
    cr_expect_eq(json_array_size(json_object_get(doc, "samples")), 5);
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("watch", "--replay", DMON_PUCVMET, "--output", file, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char text[8192] = "";
    FILE *f = fopen(file, "r");
    cr_assert_not_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    cr_expect(strstr(text, "host side not seen"), "the text report in the file: %s", text);
    run_result_free(&r);
    unlink(file);
    free(file);
}
