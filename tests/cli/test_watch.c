/* gpuvet watch on real workloads of this CPU-only machine (3-5 s each): the host side is
 * measured for real; the GPU side comes from the stand-in NVML replaying a timeline
 * (tests/mock/nvml_mock.c) or from a real `nvidia-smi dmon` log. The machine is small and shared,
 * so the assertions rest on facts that hold under load: a busy thread *wants* a whole core (CPU
 * time plus run-queue wait) however little it gets. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A job tree whose two workers burn their cores while the GPU sits at 35 %: the loader is the
 * bottleneck; the main process only waits, so it is not launch-bound. */
Test(watch, workers_burning_their_cores_are_input_cpu_bound)
{
    mock_gpu_timeline(35);
    char *json = temp_path("cpu.json");
    struct run_result r = run_gpuvet("watch", "--interval", "0.5", "--json", "--output", json, "--", "sh", "-c",
                                     "timeout 4 sh -c 'while :; do :; done' & timeout 4 sh -c 'while :; do :; done' & "
                                     "wait",
                                     NULL);
    cr_assert_eq(r.status, 0, "the job's own status; stderr: %s", r.err);
    cr_expect(!strstr(r.err, "INPUT_CPU_BOUND"), "the report went to --output, not stderr: %s", r.err);
    json_t *doc = load(json);
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "warn");
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "absent");
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "absent", "SM 35 %% is not GPU-bound");
    json_t *first = json_array_get(json_object_get(doc, "samples"), 1);
    cr_expect_geq(json_integer_value(json_object_get(json_object_get(first, "job"), "processes")), 3,
                  "the shell, and below it the timeouts and their busy shells");
    cr_expect_eq(json_real_value(json_object_get(json_array_get(json_object_get(first, "gpus"), 0), "sm")), 35.0);
    json_t *ev = json_object_get(diagnosis(doc, "INPUT_CPU_BOUND"), "evidence");
    cr_expect_geq(json_number_value(json_object_get(ev, "saturated_workers")), 1.5);
    double explained = json_number_value(json_object_get(diagnosis(doc, "INPUT_CPU_BOUND"), "gpu_time_explained"));
    cr_expect(explained > 0.3 && explained <= 0.65 + 1e-9, "idle GPU time of the intervals it held: %g", explained);
    cleanup(doc, &r, json);
}

/* The same workers without a GPU: the host side holds, but whether GPUs waited is unknown. */
Test(watch, without_nvml_the_input_diagnosis_is_unknown_and_says_why)
{
    unsetenv("GPUVET_NVML_LIBRARY");
    char *json = temp_path("nogpu.json");
    struct run_result r = run_gpuvet("watch", "--interval", "0.5", "--json", "--output", json, "--", "sh", "-c",
                                     "timeout 3 sh -c 'while :; do :; done' & timeout 3 sh -c 'while :; do :; done' & "
                                     "wait",
                                     NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = load(json);
    if (json_is_null(json_object_get(doc, "gpu_unseen")))
        cr_skip_test("this machine has NVIDIA GPUs");
    cr_assert_str_eq(severity(doc, "INPUT_CPU_BOUND"), "unknown");
    cr_expect(strstr(json_string_value(json_object_get(diagnosis(doc, "INPUT_CPU_BOUND"), "message")),
                     "whether the GPUs waited could not be seen"));
    cr_expect_str_eq(severity(doc, "GPU_BOUND"), "unknown");
    cr_expect_eq(json_array_size(json_object_get(doc, "gpus")), 0);
    cleanup(doc, &r, json);
}

/* A single-threaded busy main process, attached with --pid. */
Test(watch, a_busy_main_thread_is_launch_bound)
{
    mock_gpu_timeline(40);
    pid_t job = spawn_busy(1);
    char *json = temp_path("launch.json");
    struct run_result r =
        run_gpuvet("watch", "--pid", pid_text(job), "--interval", "0.5", "--duration", "3", "--json", "--output", json, NULL);
    reap(job);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "LAUNCH_BOUND") == NULL, "--output FILE holds the report, stdout only the live view: %s",
              r.out);
    json_t *doc = load(json);
    cr_expect_str_eq(severity(doc, "LAUNCH_BOUND"), "warn");
    cr_expect_str_eq(severity(doc, "INPUT_CPU_BOUND"), "absent", "one core of two, no workers");
    double demand = json_number_value(json_object_get(json_object_get(diagnosis(doc, "LAUNCH_BOUND"), "evidence"),
                                                      "main_thread_demand"));
    cr_expect(demand > 0.85 && demand < 1.2, "a spinning thread wants one core: %g", demand);
    cleanup(doc, &r, json);
}

/* CPU seconds (utime + stime) a process has used so far. */
static double cpu_seconds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    unsigned long long utime = 0, stime = 0;
    cr_assert_eq(fscanf(f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime), 2);
    fclose(f);
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* An unrelated four-process hog outside the tree while the job wants both cores. The outsiders
 * are named by the CPU they got: on a shared machine whose scheduler gives this session little,
 * the hog is named only when it really took a share, which the test measures on its own. */
Test(watch, a_hog_outside_the_tree_is_host_contention)
{
    mock_gpu_timeline(50);
    pid_t job = spawn_busy(2), hog = spawn_busy(4);
    char *json = temp_path("hog.json");
    double hog_before = cpu_seconds(hog), start = now_s();
    struct run_result r =
        run_gpuvet("watch", "--pid", pid_text(job), "--interval", "0.5", "--duration", "3", "--json", "--output", json, NULL);
    double hog_cores = (cpu_seconds(hog) - hog_before) / (now_s() - start);
    reap(job);
    reap(hog);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = load(json);
    cr_assert_str_eq(severity(doc, "HOST_CONTENTION"), "warn");
    json_t *ev = json_object_get(diagnosis(doc, "HOST_CONTENTION"), "evidence"), *o;
    cr_expect_geq(json_number_value(json_object_get(ev, "job_run_queue_wait_share")), 0.10);
    size_t i;
    bool named = false;
    json_array_foreach (json_object_get(ev, "outsiders"), i, o) {
        cr_expect_neq(json_integer_value(json_object_get(o, "pid")), job, "the job is not an outsider");
        named |= json_integer_value(json_object_get(o, "pid")) == hog;
    }
    if (hog_cores >= 0.5)
        cr_expect(named, "the hog took %.2f cores and is named: %s", hog_cores,
                  json_string_value(json_object_get(diagnosis(doc, "HOST_CONTENTION"), "message")));
    cleanup(doc, &r, json);
}

struct reader {
    int fd;
    double until;
    int first; /* MiB it starts at */
};

/* Reads 1 MiB blocks of a 32 MiB file with O_DIRECT, in a loop, until the time is up. */
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

/* A process reading a file with O_DIRECT in a loop (four threads, as four loader workers would): the disk of its open file is found through
 * /proc/PID/fd and /sys/dev/block, and /proc/diskstats shows it busy. */
Test(watch, an_o_direct_reader_is_input_io_bound)
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
    fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0) {
        unlink(path);
        cr_skip_test("O_DIRECT is not supported where the build folder lives");
    }
    pid_t job = fork();
    cr_assert(job >= 0);
    if (job == 0) {
        static struct reader readers[4];
        pthread_t threads[4];
        for (int i = 0; i < 4; i++) {
            readers[i] = (struct reader){.fd = fd, .until = now_s() + 6, .first = i * 8};
            pthread_create(&threads[i], NULL, read_loop, &readers[i]);
        }
        for (int i = 0; i < 4; i++)
            pthread_join(threads[i], NULL);
        _exit(0);
    }
    close(fd);
    char *json = temp_path("io.json");
    struct run_result r =
        run_gpuvet("watch", "--pid", pid_text(job), "--interval", "0.5", "--duration", "3", "--json", "--output", json, NULL);
    reap(job);
    unlink(path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = load(json);
    cr_expect(json_is_null(json_object_get(doc, "disk_unseen")), "%s",
              json_string_value(json_object_get(doc, "disk_unseen")));
    json_t *sample = json_array_get(json_object_get(doc, "samples"), 2);
    cr_expect_gt(json_number_value(json_object_get(json_object_get(sample, "job"), "read_mb_s")), 1.0);
    cr_expect_str_eq(severity(doc, "INPUT_IO_BOUND"), "warn", "%s", r.out);
    json_t *ev = json_object_get(diagnosis(doc, "INPUT_IO_BOUND"), "evidence");
    cr_expect_gt(json_number_value(json_object_get(ev, "disk_read_mb_s")), 10, "the disk of its file is read");
    cr_expect_gt(json_number_value(json_object_get(ev, "disk_busy")), 0.2);
    cleanup(doc, &r, json);
}

/* Ctrl-C sent to gpuvet alone is passed on to the job; the diagnosis follows and the job's
 * status (killed by SIGINT: 130) becomes gpuvet's. */
Test(watch, an_interrupt_is_passed_on_and_ends_with_the_diagnosis)
{
    char err_path[] = "/tmp/gpuvet-watch-errXXXXXX";
    int err = mkstemp(err_path);
    cr_assert(err >= 0);
    double start = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(err, 2);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        execl(GPUVET_BIN, GPUVET_BIN, "watch", "--interval", "0.5", "--", "sleep", "30", (char *)NULL);
        _exit(126);
    }
    sleep(2);
    kill(pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
    cr_expect(now_s() - start < 15, "gpuvet stopped soon after the interrupt");
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
    cr_expect_geq(json_integer_value(json_object_get(measured, "samples")), 2);
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
