/* Evidence files that try to hang, exhaust or flood the audit: /dev/zero and a FIFO as input, an
 * nvidia-smi file with internal entities, one with hundreds of copies of a real file's <gpu>, a file
 * size limit hit while bench storage writes. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define SMI(name) GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/" name

/* CPU seconds used by the children waited for so far: a cost bound that holds on a loaded machine,
 * where wall time measures the other jobs too (these tests guard against quadratic or worse work). */
static double children_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void expect_refused(const char *cmd, const char *option, const char *file)
{
    struct run_result r = cmd[0] == 'a' ? run_gpuvet(cmd, option, file, "--json", NULL)
                                        : run_gpuvet(cmd, file, "--json", NULL);
    cr_assert_eq(r.status, 2, "%s %s %s: exit %d; stderr: %s", cmd, option, file, r.status, r.err);
    cr_assert(strstr(r.err, "not a regular file"), "%s %s %s: stderr: %s", cmd, option, file, r.err);
    run_result_free(&r);
}

Test(hostile_input, dev_zero_is_refused_before_it_is_read)
{
    static const char *const options[] = {"--dmidecode", "--dmi-table", "--nvidia-smi", "--claim", "--bench"};
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        expect_refused("audit", options[i], "/dev/zero");
    expect_refused("cost", NULL, "/dev/zero");
}

Test(hostile_input, a_fifo_is_refused_not_waited_on)
{
    char dir[] = "/tmp/gpuvet-fifoXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/input", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    expect_refused("audit", "--claim", fifo);
    expect_refused("audit", "--nvidia-smi", fifo);
    unlink(fifo);
    rmdir(dir);
}

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/gpuvet-inputXXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

Test(hostile_input, nvidia_smi_entities_are_refused_unexpanded)
{
    /* 200 KB: one 50 KB entity referenced 50,000 times (2.5 GB once expanded). */
    size_t entity = 50000, refs = 50000;
    char *text = malloc(entity + refs * 3 + 512), *p = text;
    p += sprintf(p, "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log [\n<!ENTITY a \"");
    memset(p, 'x', entity);
    p += entity;
    p += sprintf(p, "\">\n]>\n<nvidia_smi_log><driver_version>");
    for (size_t i = 0; i < refs; i++)
        p += sprintf(p, "&a;");
    sprintf(p, "</driver_version></nvidia_smi_log>\n");
    char *path = write_temp(text);
    double start = children_cpu_s();
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, "--json", NULL);
    double took = children_cpu_s() - start;
    cr_assert_eq(r.status, 2, "exit %d; stderr: %s", r.status, r.err);
    cr_assert(strstr(r.err, "declares XML entities"), "stderr: %s", r.err);
    cr_assert(took < 5, "took %.1f s of CPU", took);
    run_result_free(&r);
    unlink(path);
    free(path);
    free(text);
}

Test(hostile_input, thousands_of_gpus_are_capped_with_a_message)
{
    /* A real file's <gpu> element, repeated 500 times. */
    FILE *f = fopen(SMI("telegraf-a100-sxm4-80gb-mig-v12.xml"), "r");
    cr_assert_not_null(f);
    char *real = calloc(1, 1 << 20);
    size_t n = fread(real, 1, (1 << 20) - 1, f);
    fclose(f);
    real[n] = '\0';
    char *open_gpu = strstr(real, "<gpu "), *close_gpu = strstr(real, "</gpu>");
    cr_assert(open_gpu && close_gpu);
    close_gpu += strlen("</gpu>");
    size_t gpu_len = (size_t)(close_gpu - open_gpu), copies = 500;
    char *text = malloc(n + gpu_len * copies + 1), *p = text;
    memcpy(p, real, (size_t)(open_gpu - real));
    p += open_gpu - real;
    for (size_t i = 0; i < copies; i++) {
        memcpy(p, open_gpu, gpu_len);
        p += gpu_len;
    }
    strcpy(p, close_gpu);
    char *path = write_temp(text);
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    json_t *gpus = json_object_get(json_object_get(doc, "machine"), "gpus");
    size_t count = json_is_array(gpus) ? json_array_size(gpus) : json_array_size(json_object_get(gpus, "devices"));
    cr_assert_eq(count, 64, "%zu GPUs read", count);
    cr_assert(strstr(r.out, "holds 500 <gpu> elements; only the first 64 are read"), "no message");
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
    free(path);
    free(text);
    free(real);
}

Test(hostile_input, a_file_size_limit_during_bench_storage_removes_its_file)
{
    char dir[] = "/tmp/gpuvet-xfszXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    /* `ulimit -f` (KiB in bash, 512-byte blocks in dash): far below the 64 MiB minimum file. */
    char script[512];
    snprintf(script, sizeof script, "ulimit -f 20000; exec '%s' bench storage --dir '%s' >/dev/null 2>&1",
             GPUVET_BIN, dir);
    int status = system(script);
    bool died_of_it = (WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) ||
                      (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGXFSZ);
    cr_assert(died_of_it, "status %#x: should die of SIGXFSZ", status);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    cr_assert_eq(system(cmd), 0, "the benchmark's file was left in %s", dir);
    rmdir(dir);
}

Test(hostile_input, a_report_that_cannot_be_written_is_exit_2)
{
    static const char *const sinks[] = {">&-", ">/dev/full"};
    for (size_t i = 0; i < sizeof sinks / sizeof *sinks; i++) {
        char script[1024];
        snprintf(script, sizeof script, "'%s' audit --json --sysroot '%s' %s 2>/dev/null", GPUVET_BIN,
                 fixture("sysroot/32intel64-2p8co2t+8ve"), sinks[i]);
        int status = system(script);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: status %#x, want exit 2", sinks[i], status);
    }
}

/* A real dmidecode file with its populated type-17 blocks repeated up to `dimms` times. */
static char *dmidecode_with_dimms(int dimms)
{
    FILE *f = fopen(GPUVET_TEST_SOURCE "/fixtures/dmidecode/gigabyte-g482-z54-2p-epyc-ddr4-16of32.dmidecode.txt", "r");
    cr_assert_not_null(f);
    static char real[1 << 20];
    size_t n = fread(real, 1, sizeof real - 1, f);
    fclose(f);
    real[n] = '\0';
    const char *dimm = strstr(real, "\n\nHandle 0x005C, DMI type 17,"); /* 16 GB in DIMM_P0_A1 */
    cr_assert_not_null(dimm, "the fixture changed");
    dimm += 2;
    size_t dimm_len = (size_t)(strstr(dimm, "\n\n") - dimm);
    char *path = strdup("/tmp/gpuvet-dimmsXXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    fwrite(real, 1, n, out);
    for (int i = 0; i < dimms; i++) {
        /* A handle of its own; the body (size, locator) as recorded. */
        const char *body = strchr(dimm, '\n');
        fprintf(out, "\nHandle 0x%04X, DMI type 17, 84 bytes%.*s\n", 0x8000 + i, (int)(dimm + dimm_len - body), body);
    }
    fclose(out);
    return path;
}

Test(hostile_input, thousands_of_dimms_are_refused_and_a_thousand_stay_fast)
{
    char *many = dmidecode_with_dimms(3000), *thousand = dmidecode_with_dimms(990); /* + the file's own 32 slots */
    struct run_result r = run_gpuvet("audit", "--dmidecode", many, "--json", NULL);
    cr_assert_eq(r.status, 2, "exit %d; stderr: %s", r.status, r.err);
    cr_assert(strstr(r.err, "memory devices, more than the 1024 any server has"), "stderr: %s", r.err);
    run_result_free(&r);
    double start = children_cpu_s();
    r = run_gpuvet("audit", "--dmidecode", thousand, "--json", NULL);
    double took = children_cpu_s() - start;
    cr_assert(r.status == 0 || r.status == 1, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    json_t *dimms = json_object_get(json_object_get(json_object_get(doc, "machine"), "memory"), "dimms");
    cr_assert_geq(json_array_size(dimms), 990);
    cr_assert(took < 5, "1000 DIMMs took %.1f s of CPU", took);
    json_decref(doc);
    run_result_free(&r);
    unlink(many);
    unlink(thousand);
    free(many);
    free(thousand);
}

/* A real file with every occurrence of `from` replaced by `to`, in a temporary file. */
static char *fixture_replaced(const char *path, const char *from, const char *to)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char real[1 << 20];
    size_t n = fread(real, 1, sizeof real - 1, f);
    fclose(f);
    real[n] = '\0';
    char *out = malloc(n * 4 + strlen(to) * 64 + 1), *w = out;
    int replaced = 0;
    for (const char *p = real; *p;) {
        if (!strncmp(p, from, strlen(from))) {
            w += sprintf(w, "%s", to);
            p += strlen(from);
            replaced++;
        } else {
            *w++ = *p++;
        }
    }
    *w = '\0';
    cr_assert(replaced > 0, "%s holds no %s", path, from);
    char *tmp = write_temp(out);
    free(out);
    return tmp;
}

#define A5000 SMI("telegraf-2x-rtx-a5000-schema-v13-drv590.xml")

Test(hostile_input, nvidia_smi_numbers_out_of_range_are_unknown_not_wrapped)
{
    static const char *const values[] = {"1e308", "inf", "nan", "99999999999999999999"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        /* The file's total memory, in MiB: a wrapped product would be a plausible size. */
        char to[64];
        snprintf(to, sizeof to, "<total>%s MiB</total>", values[i]);
        char *path = fixture_replaced(A5000, "<total>24564 MiB</total>", to);
        struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, "--json", NULL);
        cr_assert(r.status == 0 || r.status == 1, "%s: exit %d; stderr: %s", values[i], r.status, r.err);
        json_t *doc = run_json(&r);
        json_t *gpu = json_array_get(json_object_get(json_object_get(doc, "machine"), "gpus"), 0);
        cr_assert(json_is_null(json_object_get(gpu, "memory_bytes")), "%s: memory %lld", values[i],
                  (long long)json_integer_value(json_object_get(gpu, "memory_bytes")));
        cr_assert(strstr(r.err, "out of range (inf, nan or beyond 1e+15) read as unknown"), "%s: %s", values[i], r.err);
        json_decref(doc);
        run_result_free(&r);
        unlink(path);
        free(path);
    }
}

Test(hostile_input, a_wrapped_pstate_is_not_a_plausible_one)
{
    char *path = fixture_replaced(A5000, "<performance_state>P8</performance_state>",
                                  "<performance_state>P4294967296</performance_state>");
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *gpu = json_array_get(json_object_get(json_object_get(doc, "machine"), "gpus"), 0);
    cr_assert(json_is_null(json_object_get(gpu, "pstate")), "pstate %s",
              json_dumps(json_object_get(gpu, "pstate"), JSON_ENCODE_ANY));
    cr_assert(strstr(r.err, "is not P0..P15: unknown"), "%s", r.err);
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
    free(path);
}

Test(hostile_input, a_dimm_size_that_would_wrap_is_refused)
{
    char *path = fixture_replaced(GPUVET_TEST_SOURCE "/fixtures/dmidecode/gigabyte-g482-z54-2p-epyc-ddr4-16of32.dmidecode.txt",
                                  "Size: 16384 MB", "Size: 1099511627776 TB");
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, "--json", NULL);
    cr_assert_eq(r.status, 2, "exit %d; stderr: %s", r.status, r.err);
    cr_assert(strstr(r.err, "its Size is negative or more than 16 TB"), "%s", r.err);
    run_result_free(&r);
    unlink(path);
    free(path);
}

Test(hostile_input, an_infinite_price_per_tflops_is_null_with_its_reason)
{
    char *path = write_temp("name,gpu,count,price_per_hour,currency,util,tflops\n"
                            "huge,A100-80GB,1,1e308,USD,1e-300,312\nB,A100-80GB,1,2,USD,0.5,312\n");
    char *csv = NULL;
    cr_assert(asprintf(&csv, "%s.csv", path) > 0);
    cr_assert_eq(rename(path, csv), 0);
    struct run_result r = run_gpuvet("cost", csv, "--json", NULL);
    cr_assert_eq(r.status, 0, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r), *offer, *found = NULL;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(doc, "cost"), "offers"), i, offer)
        if (!strcmp(json_string_value(json_object_get(offer, "name")), "huge"))
            found = offer;
    cr_assert_not_null(found);
    json_t *key = json_object_get(found, "price_per_dense_tflops_hour");
    cr_assert(key && json_is_null(key), "the key was dropped or is not null");
    cr_assert(strstr(json_string_value(json_object_get(found, "price_per_dense_tflops_hour_unknown")), "infinite"));
    json_decref(doc);
    run_result_free(&r);
    unlink(csv);
    free(csv);
    free(path);
}

Test(hostile_input, terminal_escapes_in_evidence_are_printed_escaped)
{
    char *path = fixture_replaced(GPUVET_TEST_SOURCE "/fixtures/dmidecode/gigabyte-g482-z54-2p-epyc-ddr4-16of32.dmidecode.txt",
                                  "Locator: DIMM_P0_A1", "Locator: DIMM_\033]0;pwned\007\033[2J_A1");
    struct run_result r = run_gpuvet("audit", "--dmidecode", path, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d; stderr: %s", r.status, r.err);
    cr_assert_null(strchr(r.out, '\033'), "an escape code reached the terminal");
    cr_assert_null(strchr(r.out, '\007'));
    cr_assert(strstr(r.out, "DIMM_\\x1b]0;pwned\\x07\\x1b[2J_A1"), "%s", r.out);
    run_result_free(&r);
    unlink(path);
    free(path);
}
