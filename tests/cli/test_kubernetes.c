/* gpuvet on Kubernetes, against the formats its plumbing reads (not a real cluster): Node Problem
 * Detector's custom-plugin configuration (deploy/kubernetes/gpuvet-npd.json, as NPD's
 * custompluginmonitor validates it) and its plugin protocol (exit 0 OK, 1 problem, other unknown;
 * the message is stdout cut to max_output_length), Node Feature Discovery's features.d file
 * (`# +expiry-time=RFC3339`, key=value, label name and value alphabets), and the DaemonSet
 * manifest (valid YAML naming the host mounts). */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define NARROWED_LINK "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0/current_link_width"
#define NPD_CONFIG GPUVET_TEST_SOURCE "/../deploy/kubernetes/gpuvet-npd.json"
#define DAEMONSET GPUVET_TEST_SOURCE "/../deploy/kubernetes/gpuvet-daemonset.yaml"

/* Go's time.ParseDuration for the forms the configuration uses ("300s", "5m"), in seconds. */
static double duration_s(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    cr_assert(end != text, "duration %s", text);
    if (!strcmp(end, "s"))
        return v;
    if (!strcmp(end, "m"))
        return v * 60;
    cr_assert_fail("duration %s: not s or m", text);
    return 0;
}

static bool matches(const char *pattern, const char *text)
{
    regex_t re;
    cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0, "%s", pattern);
    bool ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* The configuration as NPD's Validate() reads it: plugin "custom", a rule's timeout within the
 * global one, every permanent rule's condition among the default conditions; and one rule per
 * area gpuvet health takes, each running `gpuvet health --area AREA`. */
Test(kubernetes, npd_custom_plugin_configuration)
{
    json_error_t e;
    json_t *cfg = json_load_file(NPD_CONFIG, 0, &e);
    cr_assert_not_null(cfg, "%s: %s", NPD_CONFIG, e.text);
    cr_assert_str_eq(json_string_value(json_object_get(cfg, "plugin")), "custom");
    json_t *pc = json_object_get(cfg, "pluginConfig");
    cr_assert_eq(json_integer_value(json_object_get(pc, "max_output_length")), 80, "NPD's default and health's line");
    double global = duration_s(json_string_value(json_object_get(pc, "timeout")));
    double interval = duration_s(json_string_value(json_object_get(pc, "invoke_interval")));
    cr_assert(global <= interval, "a run ends before the next starts");
    json_t *conditions = json_object_get(cfg, "conditions"), *rules = json_object_get(cfg, "rules");
    cr_assert(json_array_size(rules) > 0);
    static const char *const areas[] = {"pcie", "gpu", "memory", "numa", "cpu", "kernel", "storage", "network", "power"};
    int seen[sizeof areas / sizeof *areas] = {0};
    size_t i, j;
    json_t *rule, *cond;
    json_array_foreach(rules, i, rule) {
        cr_assert_str_eq(json_string_value(json_object_get(rule, "type")), "permanent");
        const char *condition = json_string_value(json_object_get(rule, "condition"));
        bool preset = false;
        json_array_foreach(conditions, j, cond)
            preset |= condition && !strcmp(json_string_value(json_object_get(cond, "type")), condition);
        cr_assert(preset, "permanent rule %s has no default condition", condition);
        cr_assert(duration_s(json_string_value(json_object_get(rule, "timeout"))) <= global);
        cr_assert_str_eq(json_string_value(json_object_get(rule, "path")), "/usr/bin/gpuvet", "the package's path");
        json_t *args = json_object_get(rule, "args");
        cr_assert_eq(json_array_size(args), 3);
        cr_assert_str_eq(json_string_value(json_array_get(args, 0)), "health");
        cr_assert_str_eq(json_string_value(json_array_get(args, 1)), "--area");
        const char *area = json_string_value(json_array_get(args, 2));
        for (size_t a = 0; a < sizeof areas / sizeof *areas; a++)
            seen[a] += !strcmp(area, areas[a]);
        /* The built binary takes it. */
        struct run_result r = run_gpuvet("health", "--area", area, "--sysroot", fixture(INTEL), NULL);
        cr_assert(r.status == 0 || r.status == 1, "--area %s: %s", area, r.err);
        run_result_free(&r);
    }
    for (size_t a = 0; a < sizeof areas / sizeof *areas; a++)
        cr_assert_eq(seen[a], 1, "area %s: %d rules", areas[a], seen[a]);
    cr_assert_eq(json_array_size(conditions), json_array_size(rules), "one condition per area");
    json_decref(cfg);
}

/* The plugin protocol on a node with a narrowed GPU link: only the pcie condition is set, its
 * message (stdout within 80 bytes) leads with the rule and the device; the other areas say OK. */
Test(kubernetes, one_condition_per_area)
{
    char *tree = fixture_copy(INTEL);
    tree_write(tree, NARROWED_LINK, "8\n");
    struct run_result r = run_gpuvet("health", "--area", "pcie", "--sysroot", tree, NULL);
    cr_assert_eq(r.status, 1, "NPD's NonOK: %s", r.err);
    cr_assert(strlen(r.out) <= 81 && strchr(r.out, '\n') == r.out + strlen(r.out) - 1, "one line: %s", r.out);
    cr_assert(!strncmp(r.out, "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:3d:00.0: ", 46), "%s", r.out);
    run_result_free(&r);
    static const char *const others[] = {"gpu", "memory", "numa", "cpu", "kernel", "storage", "network", "power"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        r = run_gpuvet("health", "--area", others[i], "--sysroot", tree, NULL);
        cr_assert_eq(r.status, 0, "--area %s: %s", others[i], r.out);
        cr_assert_str_eq(r.out, "gpuvet: OK\n");
        run_result_free(&r);
    }
    r = run_gpuvet("health", "--area", "claims", "--sysroot", tree, NULL);
    cr_assert_eq(r.status, 2, "not a node condition: %s", r.err);
    cr_assert(strstr(r.err, "--area claims: expected pcie, gpu, memory"), "%s", r.err);
    run_result_free(&r);
    tree_remove(tree);
    free(tree);
}

/* The features.d file as NFD's local source reads it (source/local/local.go): the expiry directive
 * in RFC 3339, then key=value lines, each key a DNS-prefixed label name, each value within
 * Kubernetes' label alphabet; written through a hidden temporary file that is gone afterwards. */
Test(kubernetes, nfd_features_file)
{
    char *tree = fixture_copy(INTEL);
    tree_write(tree, NARROWED_LINK, "8\n");
    char dir[] = "/tmp/gpuvet-nfd-XXXXXX", file[4096];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/gpuvet", dir);
    time_t before = time(NULL);
    struct run_result r = run_gpuvet("health", "--nfd", file, "--nfd-interval", "60", "--sysroot", tree, NULL);
    time_t after = time(NULL);
    cr_assert_eq(r.status, 1, "the health verdict stays: %s", r.err);
    run_result_free(&r);
    char *text = file_contents(file, NULL);
    cr_assert_not_null(text);
    int labels = 0;
    bool expiry = false;
    const char *want[] = {"feature.node.kubernetes.io/gpuvet-verdict-general=fail",
                          "feature.node.kubernetes.io/gpuvet-verdict-llm-infer=fail",
                          "feature.node.kubernetes.io/gpuvet-gpu-link-narrowest=gen3-x8",
                          "feature.node.kubernetes.io/gpuvet-gpu-numa-memory=true",
                          "feature.node.kubernetes.io/gpuvet-memory-channels-full=unknown"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_assert(strstr(text, want[i]), "no %s in\n%s", want[i], text);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            if (!strncmp(line, "# +", 3)) {
                /* the only directive: expiry-time=, RFC 3339, twice the interval from now */
                struct tm tm = {0};
                const char *end = strptime(line, "# +expiry-time=%Y-%m-%dT%H:%M:%SZ", &tm);
                cr_assert(end && !*end, "directive %s", line);
                time_t at = timegm(&tm);
                cr_assert(at >= before + 120 && at <= after + 120, "expiry %s: not 2 x 60 s from now", line);
                expiry = true;
            }
            continue;
        }
        cr_assert(expiry, "the expiry directive comes before the labels");
        char *eq = strchr(line, '=');
        cr_assert_not_null(eq, "%s: not key=value", line);
        *eq = '\0';
        const char *key = line, *value = eq + 1, *slash = strchr(key, '/');
        cr_assert_not_null(slash, "%s: no DNS prefix", key);
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(slash - key), key);
        cr_assert(strlen(prefix) <= 253 && matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", prefix),
                  "%s: not a DNS subdomain", prefix);
        cr_assert(strlen(slash + 1) <= 63 && matches("^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$", slash + 1),
                  "%s: not a label name", slash + 1);
        cr_assert(strlen(value) <= 63 && matches("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$", value),
                  "%s=%s: not a label value", key, value);
        labels++;
    }
    cr_assert(expiry, "no # +expiry-time= line");
    cr_assert_eq(labels, 6 + 3, "a verdict per workload, the link, NUMA memory, channels");
    free(text);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    int status;
    char *listing = run_shell(cmd, &status);
    cr_assert_str_eq(listing, "gpuvet\n", "no temporary file left");
    free(listing);
    /* A folder that does not exist: an error naming the file, exit 2. */
    snprintf(file, sizeof file, "%s/missing/gpuvet", dir);
    r = run_gpuvet("health", "--nfd", file, "--sysroot", fixture(INTEL), NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--nfd ") && strstr(r.err, file), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("health", "--nfd", file, "--nfd-interval", "0", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    run_result_free(&r);
    tree_remove(dir);
    tree_remove(tree);
    free(tree);
}

/* The DaemonSet: valid YAML (python3-yaml), whose containers mount the host's /sys, /dev/kmsg, the
 * GPU Operator's driver root and NFD's features.d, see the host's processes (hostPID: /proc), and
 * run what the configuration and the README say. */
Test(kubernetes, daemonset_manifest)
{
    int status;
    char *probe = run_shell("python3 -c 'import yaml' 2>&1", &status);
    free(probe);
    if (status != 0)
        cr_skip_test("python3-yaml is not installed (scripts/test.sh installs it): the manifest is not parsed");
    char dir[] = "/tmp/gpuvet-k8s-XXXXXX", cmd[8192];
    cr_assert_not_null(mkdtemp(dir));
    tree_write(dir, "mounts.py",
               "import sys, yaml\n"
               "docs = list(yaml.safe_load_all(open(sys.argv[1])))\n"
               "ds = [d for d in docs if d['kind'] == 'DaemonSet'][0]\n"
               "spec = ds['spec']['template']['spec']\n"
               "print('hostPID', spec.get('hostPID'))\n"
               "vols = {v['name']: v.get('hostPath', {}).get('path') for v in spec['volumes']}\n"
               "for c in spec['containers']:\n"
               "    for m in c['volumeMounts']:\n"
               "        print(c['name'], vols[m['name']], '->', m['mountPath'], 'ro' if m.get('readOnly') else 'rw')\n"
               "    print(c['name'], 'runs', ' '.join(c['command']))\n"
               "print('kinds', ' '.join(d['kind'] for d in docs))\n");
    snprintf(cmd, sizeof cmd, "python3 '%s/mounts.py' '%s'", dir, DAEMONSET);
    char *out = run_shell(cmd, &status);
    cr_assert_eq(status, 0, "not valid YAML: %s", out);
    const char *want[] = {
        "hostPID True\n",
        "node-problem-detector /sys -> /sys ro\n",
        "node-problem-detector /dev/kmsg -> /dev/kmsg ro\n",
        "node-problem-detector /run/nvidia/driver -> /run/nvidia/driver ro\n",
        "node-problem-detector None -> /config ro\n",
        "node-problem-detector runs /node-problem-detector --logtostderr --config.custom-plugin-monitor=/config/gpuvet-npd.json\n",
        "gpuvet-nfd-labels /sys -> /sys ro\n",
        "gpuvet-nfd-labels /run/nvidia/driver -> /run/nvidia/driver ro\n",
        "gpuvet-nfd-labels /etc/kubernetes/node-feature-discovery/features.d -> "
        "/etc/kubernetes/node-feature-discovery/features.d rw\n",
        "/usr/bin/gpuvet health --nfd /etc/kubernetes/node-feature-discovery/features.d/gpuvet --nfd-interval 300 ",
        "kinds ServiceAccount ClusterRole ClusterRoleBinding DaemonSet\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_assert(strstr(out, want[i]), "no \"%s\" in\n%s", want[i], out);
    free(out);
    tree_remove(dir);
}

/* The labels come from the same audit as the line: a node that fails --expect-gpus is labelled fail
 * for every workload (they were judged without --expect-gpus before the one audit pipeline). */
Test(kubernetes, nfd_verdicts_count_expect_gpus)
{
    char dir[] = "/tmp/gpuvet-nfd-XXXXXX", file[4096];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/gpuvet", dir);
    const char *const workloads[] = {"general", "cv-train", "llm-train", "llm-infer", "render", "hpc"};
    for (int expect = 8; expect <= 9; expect++) {
        char n[8], label[128];
        snprintf(n, sizeof n, "%d", expect);
        struct run_result r = run_gpuvet("health", "--nfd", file, "--sysroot", fixture(INTEL), "--expect-gpus", n, NULL);
        cr_assert_eq(r.status, expect == 9 ? 1 : 0, "%s%s", r.out, r.err);
        cr_assert_eq(!strncmp(r.out, "gpuvet: FAIL GPU_LOST", 21), expect == 9, "%s", r.out);
        run_result_free(&r);
        char *text = file_contents(file, NULL);
        cr_assert_not_null(text);
        for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
            snprintf(label, sizeof label, "feature.node.kubernetes.io/gpuvet-verdict-%s=%s\n", workloads[w],
                     expect == 9 ? "fail" : "warn");
            cr_expect(strstr(text, label), "no %s in\n%s", label, text);
        }
        free(text);
    }
    tree_remove(dir);
}
