/* --redact on every report format (text, JSON, HTML, Markdown) and `gpuvet snapshot --redact
 * --tar`: the real host name, MAC addresses and kernel command line of this machine, and the
 * serials and UUIDs of recorded machines, appear in none of them. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define DELL "sysroot/32em64t-2n8c+1mic"
#define A100 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml"

/* needle as a whole word in a buffer that may hold NULs. The dev VM is called "vm", which is also
 * the tail of "kvm", a key ("vm": true in JSON, "vm = true" in the pages' evidence) and a folder
 * (/proc/sys/vm/): a key or a path component is not the host name; a value, a line or a file's
 * content is. */
static bool has_word(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; p && (size_t)(p - hay) + n <= len; p++) {
        p = memmem(p, len - (size_t)(p - hay), needle, n);
        if (!p)
            return false;
        bool before = p > hay && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-');
        bool after = (size_t)(p - hay) + n < len && (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-');
        size_t rest = len - (size_t)(p - hay) - n;
        bool json_key = p > hay && p[-1] == '"' && rest > 1 && p[n] == '"' && p[n + 1] == ':';
        bool evidence_key = rest > 3 && !memcmp(p + n, " = ", 3);
        bool path_part = p > hay && p[-1] == '/' && (size_t)(p - hay) + n < len && p[n] == '/';
        if (!before && !after && !json_key && !evidence_key && !path_part)
            return true;
    }
    return false;
}

static bool has_text_nocase(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (!strncasecmp(hay + i, needle, n))
            return true;
    return false;
}

struct secrets {
    char host[256];
    char macs[16][32];
    int nmacs;
    char *cmdline;
};

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

/* This machine's identity as the files name it: /etc/hostname, /sys/class/net/ * /address. */
static struct secrets live_secrets(void)
{
    struct secrets s = {0};
    char *host = file_contents("/etc/hostname", NULL);
    snprintf(s.host, sizeof s.host, "%s", host);
    free(host);
    trim(s.host);
    cr_assert(strlen(s.host) >= 2, "no host name in /etc/hostname");
    DIR *d = opendir("/sys/class/net");
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d)) && s.nmacs < 16;) {
        char path[600];
        snprintf(path, sizeof path, "/sys/class/net/%s/address", e->d_name);
        if (e->d_name[0] == '.' || access(path, R_OK) != 0)
            continue;
        char *mac = file_contents(path, NULL);
        trim(mac);
        if (strlen(mac) >= 17 && strcmp(mac, "00:00:00:00:00:00") != 0)
            snprintf(s.macs[s.nmacs++], sizeof s.macs[0], "%s", mac);
        free(mac);
    }
    closedir(d);
    s.cmdline = file_contents("/proc/cmdline", NULL);
    trim(s.cmdline);
    return s;
}

static void assert_clean(const char *what, const char *data, size_t len, const struct secrets *s)
{
    cr_assert(!has_word(data, len, s->host), "%s holds the host name %s", what, s->host);
    for (int i = 0; i < s->nmacs; i++)
        cr_assert(!has_text_nocase(data, len, s->macs[i]), "%s holds the MAC %s", what, s->macs[i]);
    if (s->cmdline && strlen(s->cmdline) >= 8)
        cr_assert(!memmem(data, len, s->cmdline, strlen(s->cmdline)), "%s holds the kernel command line", what);
}

/* Runs an audit with --redact in every format; each output must be free of the secrets. */
static void audit_all_formats(const char *first, const char *second, const struct secrets *s)
{
    char dir[] = "/tmp/gpuvet-redact-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char html[128], md[128];
    snprintf(html, sizeof html, "%s/r.html", dir);
    snprintf(md, sizeof md, "%s/r.md", dir);
    struct run_result text = run_gpuvet("audit", "--redact", "--sample", "0", first, second, NULL);
    struct run_result json = run_gpuvet("audit", "--redact", "--json", "--html", html, "--markdown", md, "--sample",
                                        "0", first, second, NULL);
    cr_assert(text.status <= 1 && json.status <= 1, "%s %s", text.err, json.err);
    assert_clean("the text report", text.out, strlen(text.out), s);
    assert_clean("the JSON report", json.out, strlen(json.out), s);
    json_t *doc = run_json(&json);
    json_t *kernel = json_object_get(json_object_get(doc, "machine"), "kernel");
    const char *cmdline = json_string_value(json_object_get(kernel, "cmdline"));
    cr_assert(!cmdline || !strcmp(cmdline, "[redacted]"), "cmdline %s", cmdline);
    json_decref(doc);
    size_t len;
    char *page = file_contents(html, &len);
    assert_clean("the HTML page", page, len, s);
    free(page);
    char *ticket = file_contents(md, &len);
    assert_clean("the Markdown", ticket, len, s);
    free(ticket);
    run_result_free(&text);
    run_result_free(&json);
    tree_remove(dir);
}

Test(redact_outputs, this_machine_in_every_format)
{
    struct secrets s = live_secrets();
    /* Without --redact the host name is there: the check can see it. */
    struct run_result r = run_gpuvet("audit", "--sample", "0", NULL);
    cr_assert(has_word(r.out, strlen(r.out), s.host), "host name %s not in the plain report", s.host);
    run_result_free(&r);
    audit_all_formats(NULL, NULL, &s);
    free(s.cmdline);
}

/* The tarball, and the tree it unpacks to, hold none of it; the tree still audits. */
Test(redact_outputs, snapshot_tarball_of_this_machine)
{
    struct secrets s = live_secrets();
    char dir[] = "/tmp/gpuvet-redact-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char tar[128], cmd[1024], tree[160];
    snprintf(tar, sizeof tar, "%s/box.tar", dir);
    snprintf(tree, sizeof tree, "%s/box", dir);
    struct run_result r = run_gpuvet("snapshot", "--redact", "--tar", tar, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    size_t len;
    char *archive = file_contents(tar, &len);
    assert_clean("the snapshot tarball", archive, len, &s);
    cr_assert(len > 10240 && !memcmp(archive + 257, "ustar", 6), "a ustar archive");
    free(archive);
    snprintf(cmd, sizeof cmd, "tar -xf '%s' -C '%s' && grep -rlw '%s' '%s' >/dev/null", tar, dir, s.host, tree);
    cr_assert_neq(system(cmd), 0, "a file of the unpacked tree holds the host name");
    char cmdline_path[200];
    snprintf(cmdline_path, sizeof cmdline_path, "%s/proc/cmdline", tree);
    char *recorded = file_contents(cmdline_path, NULL);
    cr_assert_str_eq(recorded, "[redacted]\n");
    free(recorded);
    r = run_gpuvet("audit", "--sysroot", tree, "--json", NULL);
    cr_assert(r.status <= 1, "the redacted tree audits: %s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "machine"), "hostname")), "[redacted]");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    free(s.cmdline);
}

/* A recorded machine: the Dell tree's DIMM serial and asset tag (SMBIOS type 17 strings 3 and 4
 * of entries/17-0/raw) and the host name hwloc stamps into its export leave the tarball, and
 * the blanked SMBIOS entries still parse: the same 8 DIMMs. The tarball unpacks to exactly the
 * folder `snapshot --redact DIR` writes (the ustar writer against GNU tar). */
Test(redact_outputs, snapshot_tarball_of_a_recorded_machine)
{
    static const char *const serials[] = {"48AAE639", "01115021"};
    size_t len;
    char raw[600];
    snprintf(raw, sizeof raw, "%s/sys/firmware/dmi/entries/17-0/raw", fixture(DELL));
    char *original = file_contents(raw, &len);
    for (size_t i = 0; i < 2; i++)
        cr_assert_not_null(memmem(original, len, serials[i], strlen(serials[i])), "fixture holds %s", serials[i]);
    free(original);

    char dir[] = "/tmp/gpuvet-redact-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char tar[128], folder[128], cmd[1024];
    snprintf(tar, sizeof tar, "%s/dell.tar", dir);
    snprintf(folder, sizeof folder, "%s/folder", dir);
    struct run_result r = run_gpuvet("snapshot", "--sysroot", fixture(DELL), "--redact", "--tar", tar, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("snapshot", "--sysroot", fixture(DELL), "--redact", folder, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    char *archive = file_contents(tar, &len);
    for (size_t i = 0; i < 2; i++)
        cr_assert_null(memmem(archive, len, serials[i], strlen(serials[i])), "the tarball holds %s", serials[i]);
    struct secrets s = live_secrets();
    assert_clean("the recorded machine's tarball", archive, len, &s);
    free(archive);
    free(s.cmdline);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && tar -xf dell.tar && diff -r --no-dereference -x gpuvet-snapshot.json dell folder >&2", dir);
    cr_assert_eq(system(cmd), 0, "the tarball unpacks to the folder snapshot writes");
    char tree[160];
    snprintf(tree, sizeof tree, "%s/dell", dir);
    r = run_gpuvet("audit", "--sysroot", tree, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(json_array_size(json_object_get(json_object_get(json_object_get(doc, "machine"), "memory"), "dimms")),
                 8);
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
}

/* nvidia-smi's serial and UUID leave every format (JSON and text are also in test_nvidia.c). */
Test(redact_outputs, gpu_serials_in_every_format)
{
    struct secrets s = {.host = "1650522003820"};
    snprintf(s.macs[0], sizeof s.macs[0], "513536b6-7d19-9063-b049-1e69664bb298");
    s.nmacs = 1;
    audit_all_formats("--nvidia-smi", A100, &s);
}
