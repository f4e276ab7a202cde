/* Strings from a machine under someone else's control (a CUDA folder name, a DMI field, a host
 * name in a fleet document) reach every output through the one sanitiser (util/sanitize.h):
 * never a finding dropped, never a forged line, never a hostlist that names other nodes, and a
 * Slurm reason that reads back equal. Hostile strings planted in copies of real recorded trees. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "slurm/slurm.h"
#include "util/sanitize.h"

#define H200 "sysroot/h200-firecracker-vm"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define KVM "sysroot/2pa-pcidomain32bits"

/* A CUDA toolkit folder /usr/local/NAME whose lib64 holds a libcudart newer than any driver:
 * GPU_DRIVER_CUDA fails with the library's path as its subject. */
static void plant_cuda_folder(const char *root, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/usr/local/%s", root, name);
    cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s", path);
    strcat(path, "/lib64");
    cr_assert_eq(mkdir(path, 0755), 0);
    strcat(path, "/libcudart.so.99.1.0");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
}

static int count_severity(json_t *doc, const char *severity)
{
    int n = 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(doc, "findings"), i, f)
        n += !strcmp(json_string_value(json_object_get(f, "severity")), severity);
    return n;
}

Test(hostile_strings, a_cuda_folder_that_is_not_utf8_keeps_its_fail_in_every_output)
{
    char *root = fixture_copy(H200);
    plant_cuda_folder(root, "cuda-\xff\xfex");
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", root, NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    json_t *summary = json_object_get(doc, "summary");
    int counted = (int)json_integer_value(json_object_get(json_object_get(summary, "counts"), "fail"));
    cr_assert_eq(count_severity(doc, "fail"), counted, "the summary counts %d fails, the findings list %d", counted,
                 count_severity(doc, "fail"));
    json_t *cuda = findings_of(doc, "GPU_DRIVER_CUDA", NULL);
    cr_assert_eq(json_array_size(cuda), 1);
    const char *subject = json_string_value(json_object_get(json_array_get(cuda, 0), "subject"));
    cr_assert(strstr(subject, "/usr/local/cuda-\xef\xbf\xbd\xef\xbf\xbdx/lib64/libcudart.so.99.1.0"), "%s", subject);
    json_decref(cuda);
    json_decref(doc);
    run_result_free(&r);

    /* Prometheus: node_exporter drops a whole file for one invalid byte, the verdict with it. */
    char prom[4096];
    snprintf(prom, sizeof prom, "%s/gpuvet.prom", root);
    r = run_gpuvet("audit", "--sysroot", root, "--prom", prom, NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    char *text = file_contents(prom, NULL);
    cr_assert(text_is_utf8(text), "the textfile is not UTF-8");
    cr_assert(strstr(text, "rule=\"GPU_DRIVER_CUDA\""), "%s", text);
    cr_assert(strstr(text, "gpuvet_verdict{command=\"audit\",verdict=\"fail\"} 1"), "%s", text);
    free(text);
    /* The text report shows the bytes, escaped. */
    cr_assert(text_is_utf8(r.out));
    cr_assert(strstr(r.out, "cuda-\\xff\\xfex"), "%s", r.out);
    run_result_free(&r);

    r = run_gpuvet("health", "--sysroot", root, NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert_eq(count_of(r.out, "\n"), 1, "%s", r.out);
    cr_assert(text_is_utf8(r.out) && text_is_utf8(r.err), "health printed invalid UTF-8");
    cr_assert(strstr(r.out, "gpuvet: FAIL GPU_DRIVER_CUDA /usr/local/cuda-\\xff\\xfex/"), "%s", r.out);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(hostile_strings, a_newline_and_escapes_in_a_subject_forge_no_line)
{
    char *root = fixture_copy(H200);
    plant_cuda_folder(root, "cuda-x\ngpuvet: OK\033[2J");
    struct run_result r = run_gpuvet("health", "--sysroot", root, NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert_eq(count_of(r.out, "\n"), 1, "a second line on stdout:\n%s", r.out);
    cr_assert(!strncmp(r.out, "gpuvet: FAIL GPU_DRIVER_CUDA /usr/local/cuda-x\\x0agpuvet: OK\\x1b[2J", 65), "%s", r.out);
    cr_assert_null(strchr(r.err, '\033'), "an escape reached stderr: %s", r.err);
    cr_assert_null(strstr(r.err, "\ngpuvet: OK"), "a forged line on stderr: %s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sysroot", root, NULL);
    cr_assert_null(strchr(r.out, '\033'));
    cr_assert_null(strstr(r.out, "\ngpuvet: OK"), "a forged line in the text report");
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(hostile_strings, a_cpu_name_with_escapes_and_bad_bytes_reaches_no_page_raw)
{
    char *root = fixture_copy(KVM), cpuinfo[4096];
    snprintf(cpuinfo, sizeof cpuinfo, "%s/proc/cpuinfo", root);
    char *text = file_contents(cpuinfo, NULL), *at;
    const char model[] = "Intel Core Processor (Skylake, IBRS)", evil[] = "Evil\033]0;t\007\xff KVM";
    while ((at = strstr(text, model))) /* the same length: the rest of the file stays */
        memcpy(at, evil, sizeof evil - 1), memset(at + sizeof evil - 1, ' ', sizeof model - sizeof evil);
    tree_write(root, "proc/cpuinfo", text);
    free(text);
    char html[4096], md[4096];
    snprintf(html, sizeof html, "%s/page.html", root);
    snprintf(md, sizeof md, "%s/ticket.md", root);
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", root, "--html", html, "--markdown", md, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    const char *shown = json_string_value(json_object_get(json_object_get(json_object_get(doc, "machine"), "cpu"), "model"));
    cr_assert(shown && !strncmp(shown, "Evil\033]0;t\007\xef\xbf\xbd KVM", 14), "the CPU model was dropped: %s", shown);
    json_decref(doc);
    run_result_free(&r);
    const char *pages[] = {html, md};
    for (int i = 0; i < 2; i++) {
        char *text = file_contents(pages[i], NULL);
        cr_assert(text_is_utf8(text), "%s is not UTF-8", pages[i]);
        cr_assert_null(strchr(text, '\033'), "%s holds an escape", pages[i]);
        cr_assert_null(strchr(text, '\007'));
        /* Markdown also escapes the ']' */
        cr_assert(strstr(text, "Evil\\x1b") && strstr(text, "0;t\\x07\\xff KVM"), "%s", pages[i]);
        free(text);
    }
    tree_remove(root);
    free(root);
}

/* Three nodes of one audit, the third with another kernel: it is odd, and its name would make the
 * hostlist name 99 GPU nodes and the login node. */
Test(hostile_strings, a_host_name_outside_the_slurm_alphabet_is_in_no_hostlist)
{
    char *audit = saved_audit(INTEL), dir[] = "/tmp/gpuvet-hosts-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *hosts[] = {"gpu01", "gpu02", "gpu[01-99],login1"};
    for (int i = 0; i < 3; i++) {
        json_error_t error;
        json_t *doc = json_load_file(audit, 0, &error);
        cr_assert_not_null(doc, "%s", error.text);
        json_t *machine = json_object_get(doc, "machine");
        json_object_set_new(machine, "hostname", json_string(hosts[i]));
        if (i == 2)
            json_object_set_new(json_object_get(machine, "kernel"), "release", json_string("6.99.0-odd"));
        char path[4096];
        snprintf(path, sizeof path, "%s/node%d.json", dir, i);
        cr_assert_eq(json_dump_file(doc, path, 0), 0);
        json_decref(doc);
    }
    struct run_result r = run_gpuvet("fleet", "--json", dir, NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "host name \"gpu[01-99],login1\" is not a Slurm host name"), "%s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "odd_hosts")), "");
    json_t *apart = json_object_get(doc, "hosts_not_in_hostlists");
    cr_assert_eq(json_array_size(apart), 1);
    cr_assert_str_eq(json_string_value(json_array_get(apart, 0)), "gpu[01-99],login1");
    size_t i;
    json_t *group;
    json_array_foreach(json_object_get(doc, "groups"), i, group) {
        const char *list = json_string_value(json_object_get(group, "hosts"));
        cr_assert(list && !strstr(list, "99") && !strstr(list, "login1"), "hostlist %s", list);
    }
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("fleet", dir, NULL);
    cr_assert(strstr(r.out, "odd nodes: none\n"), "%s", r.out);
    cr_assert(strstr(r.out, "in no hostlist (not a Slurm host name): \"gpu[01-99],login1\""), "%s", r.out);
    run_result_free(&r);
    tree_remove(dir);
    unlink(audit);
    free(audit);
}

/* A stand-in scontrol that keeps the node's state in its folder as Slurm would: `show node` prints
 * the drain reason back with the " [user@time]" Slurm appends; `update` stores it and counts. */
static char *fake_scontrol(void)
{
    char dir[] = "/tmp/gpuvet-slurm-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char body[4096];
    snprintf(body, sizeof body,
             "#!/bin/sh\nS='%s'\n"
             "if [ \"$1\" = show ]; then\n"
             "  if [ -f \"$S/reason\" ]; then printf 'NodeName=n1 Arch=x86_64\\n   State=IDLE+DRAIN ThreadsPerCore=2\\n"
             "   Reason=%%s [root@2026-12-01T21:00:00]\\n' \"$(cat \"$S/reason\")\";\n"
             "  else printf 'NodeName=n1 Arch=x86_64\\n   State=IDLE ThreadsPerCore=2\\n'; fi\n"
             "  exit 0\nfi\n"
             "echo \"$@\" >> \"$S/updates\"\n"
             "for a in \"$@\"; do case \"$a\" in Reason=*) printf '%%s' \"${a#Reason=}\" > \"$S/reason\";; "
             "State=RESUME) rm -f \"$S/reason\";; esac; done\n",
             dir);
    tree_write(dir, "scontrol", body);
    char path[4096];
    snprintf(path, sizeof path, "%s/scontrol", dir);
    chmod(path, 0755);
    return strdup(path);
}

/* The file NAME beside the stand-in scontrol. */
static void beside(char *out, size_t size, const char *scontrol, const char *name)
{
    size_t dir = strlen(scontrol) - strlen("scontrol");
    snprintf(out, size, "%.*s%s", (int)dir, scontrol, name);
}

static int updates_of(const char *scontrol)
{
    char path[4096];
    beside(path, sizeof path, scontrol, "updates");
    char *text = access(path, F_OK) == 0 ? file_contents(path, NULL) : NULL;
    int n = text ? count_of(text, "\n") : 0;
    free(text);
    return n;
}

/* A runtime whose real path is about 540 bytes: the reason would not read back whole. */
Test(hostile_strings, a_long_slurm_reason_is_cut_and_reads_back_equal)
{
    char *root = fixture_copy(H200), name[256], deep[1024], link[1024];
    memset(name, 'a', 200);
    strcpy(name + 200, "");
    char folder[300];
    snprintf(folder, sizeof folder, "cuda-%s", name);
    snprintf(deep, sizeof deep, "%s/usr/local/%s", root, folder);
    cr_assert_eq(mkdir(deep, 0755), 0);
    memset(name, 'b', 250);
    name[250] = '\0';
    snprintf(deep + strlen(deep), sizeof deep - strlen(deep), "/%s", name);
    cr_assert_eq(mkdir(deep, 0755), 0);
    strcat(deep, "/lib");
    cr_assert_eq(mkdir(deep, 0755), 0);
    char lib[1100];
    snprintf(lib, sizeof lib, "%s/libcudart.so.99.1.0", deep);
    fclose(fopen(lib, "w"));
    snprintf(link, sizeof link, "%s/usr/local/%s/lib64", root, folder);
    char target[300];
    snprintf(target, sizeof target, "%s/lib", name);
    cr_assert_eq(symlink(target, link), 0);

    char *scontrol = fake_scontrol();
    for (int run = 0; run < 2; run++) {
        struct run_result r = run_gpuvet("health", "--sysroot", root, "--slurm", "--node", "n1", "--scontrol", scontrol,
                                         NULL);
        cr_assert_eq(r.status, 1, "run %d: exit %d: %s", run + 1, r.status, r.err);
        cr_assert(strstr(r.err, run ? "already drained" : "node n1 drained"), "run %d: %s", run + 1, r.err);
        run_result_free(&r);
    }
    cr_assert_eq(updates_of(scontrol), 1, "the second run drained again: the reason did not read back equal");
    char reason_path[4096];
    beside(reason_path, sizeof reason_path, scontrol, "reason");
    char *reason = file_contents(reason_path, NULL);
    cr_assert_leq(strlen(reason), SLURM_REASON_MAX);
    cr_assert(!strncmp(reason, "gpuvet:GPU_DRIVER_CUDA /usr/local/cuda-aaaa", 43), "%s", reason);
    free(reason);

    /* A reason too long to read back (an older gpuvet's) is replaced, not a failure for good. */
    char *old = malloc(700);
    memset(old, 'x', 699);
    memcpy(old, "gpuvet: OLD ", 12);
    old[699] = '\0';
    FILE *f = fopen(reason_path, "w");
    fputs(old, f);
    fclose(f);
    free(old);
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--slurm", "--node", "n1", "--scontrol",
                                     scontrol, NULL);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "node n1 resumed"), "%s", r.err);
    run_result_free(&r);
    cr_assert_eq(updates_of(scontrol), 2);
    char dir[4096];
    beside(dir, sizeof dir, scontrol, "");
    tree_remove(dir);
    free(scontrol);
    tree_remove(root);
    free(root);
}
