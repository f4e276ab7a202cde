#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp_fd(int fd, size_t *length)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    ssize_t n;
    while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    if (length)
        *length = len;
    return buf;
}

char *file_contents(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0, "cannot read %s", path);
    char *text = slurp_fd(fd, len);
    close(fd);
    return text;
}

char *run_shell(const char *command, int *status)
{
    char *full = NULL;
    cr_assert(asprintf(&full, "(%s) 2>&1", command) > 0);
    FILE *p = popen(full, "r");
    cr_assert_not_null(p, "%s", full);
    free(full);
    char *text = slurp_fd(fileno(p), NULL);
    int rc = pclose(p);
    *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return text;
}

struct run_result run_gpuvet(const char *arg, ...)
{
    const char *argv[64] = {GPUVET_BIN};
    int argc = 1;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;

    char out_path[] = "/tmp/gpuvet-test-outXXXXXX", err_path[] = "/tmp/gpuvet-test-errXXXXXX";
    int out = mkstemp(out_path), err = mkstemp(err_path);
    cr_assert(out >= 0 && err >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(out, 1);
        dup2(err, 2);
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        execv(GPUVET_BIN, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    struct run_result r = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, NULL, NULL};
    lseek(out, 0, SEEK_SET);
    lseek(err, 0, SEEK_SET);
    r.out = slurp_fd(out, NULL);
    r.err = slurp_fd(err, NULL);
    close(out);
    close(err);
    unlink(out_path);
    unlink(err_path);
    return r;
}

void run_result_free(struct run_result *r)
{
    free(r->out);
    free(r->err);
}

json_t *run_json(const struct run_result *r)
{
    json_error_t error;
    json_t *doc = json_loads(r->out, 0, &error);
    cr_assert_not_null(doc, "output is not JSON (%s, line %d); stderr: %s", error.text, error.line, r->err);
    return doc;
}

char *run_json_without_timing(const struct run_result *r)
{
    json_t *doc = run_json(r);
    json_object_del(doc, "elapsed_ms");
    json_object_del(doc, "generated_at"); /* the time of the run */
    char *text = json_dumps(doc, JSON_SORT_KEYS);
    json_decref(doc);
    return text;
}

const char *fixture(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", GPUVET_FIXTURES, rel);
    return path;
}

char *fixture_copy(const char *rel)
{
    char tmpl[] = "/tmp/gpuvet-tree-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    char cmd[8192];
    /* -l: the files are hard links to the fixture's (new folders, no file data copied). Where /tmp
     * is another file system, a real copy; --remove-destination, so that it never writes through
     * a link the first try made. */
    snprintf(cmd, sizeof cmd, "cp -al '%s/.' '%s/' 2>/dev/null || cp -a --remove-destination '%s/.' '%s/'", fixture(rel),
             tmpl, fixture(rel), tmpl);
    cr_assert_eq(system(cmd), 0, "cannot copy %s", rel);
    return strdup(tmpl);
}

void tree_own(const char *root, const char *rel)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && cp -p '%s' '%s.own' && mv -f '%s.own' '%s'", root, rel, rel, rel, rel);
    cr_assert_eq(system(cmd), 0, "cannot make %s/%s a file of its own", root, rel);
}

void tree_remove(const char *path)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

void tree_write(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    unlink(path); /* the fixture's files are read-only copies */
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

json_t *findings_of(json_t *doc, const char *id, const char *subject)
{
    json_t *out = json_array(), *f;
    size_t i;
    json_array_foreach(json_object_get(doc, "findings"), i, f)
    {
        if (strcmp(json_string_value(json_object_get(f, "id")), id) != 0)
            continue;
        if (subject && strcmp(json_string_value(json_object_get(f, "subject")), subject) != 0)
            continue;
        json_array_append(out, f);
    }
    return out;
}

json_t *one_finding(json_t *doc, const char *id, const char *subject)
{
    json_t *found = findings_of(doc, id, subject);
    cr_assert_eq(json_array_size(found), 1, "%s on %s: %zu findings", id, subject, json_array_size(found));
    json_t *f = json_incref(json_array_get(found, 0));
    json_decref(found);
    return f;
}

void expect_finding(json_t *doc, const char *id, const char *subject, const char *severity, const char *words)
{
    json_t *f = one_finding(doc, id, subject);
    const char *sev = json_string_value(json_object_get(f, "severity"));
    const char *msg = json_string_value(json_object_get(f, "message"));
    cr_assert_str_eq(sev, severity, "%s %s: %s", id, subject, msg);
    if (words)
        cr_assert(msg && strstr(msg, words), "%s %s: %s", id, subject, msg);
    json_decref(f);
}

json_t *array_entry(json_t *array, const char *key, const char *value)
{
    size_t i;
    json_t *entry;
    json_array_foreach(array, i, entry)
    {
        const char *v = json_string_value(json_object_get(entry, key));
        if (v && !strcmp(v, value))
            return entry;
    }
    return NULL;
}

int count_findings(json_t *doc, const char *id, const char *severity)
{
    json_t *all = findings_of(doc, id, NULL), *f;
    size_t i;
    int n = 0;
    json_array_foreach(all, i, f)
        n += !strcmp(json_string_value(json_object_get(f, "severity")), severity);
    json_decref(all);
    return n;
}

bool host_has_nvidia_gpu(void)
{
    DIR *dir = opendir("/sys/bus/pci/devices");
    if (!dir)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(dir))) {
        char path[512], vendor[16] = "", class_id[16] = "";
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(vendor, sizeof vendor, f))
                vendor[0] = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", e->d_name);
        f = fopen(path, "r");
        if (f) {
            if (!fgets(class_id, sizeof class_id, f))
                class_id[0] = 0;
            fclose(f);
        }
        found = !strncmp(vendor, "0x10de", 6) && !strncmp(class_id, "0x03", 4);
    }
    closedir(dir);
    return found;
}

/* Cells of a Markdown table row: '|' not escaped by an odd run of backslashes. */
static int pipes(const char *line, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] != '|')
            continue;
        size_t slashes = 0;
        while (slashes < i && line[i - 1 - slashes] == '\\')
            slashes++;
        n += slashes % 2 == 0;
    }
    return n;
}

static bool delimiter_row(const char *line, size_t len)
{
    int dashes = 0;
    for (size_t i = 0; i < len; i++) {
        if (!strchr("|-: ", line[i]))
            return false;
        dashes += line[i] == '-';
    }
    return dashes > 0 && line[0] == '|' && line[len - 1] == '|';
}

/* Every table: a blank line before it, a header, a delimiter row with as many cells, rows with
 * as many cells, each row starting and ending with '|'. Returns the number of tables. */
int markdown_check_tables(const char *md, const char *name)
{
    int tables = 0, columns = 0, row = 0;
    bool previous_blank = true;
    for (const char *line = md; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        bool is_row = len > 0 && line[0] == '|';
        if (is_row) {
            cr_assert(line[len - 1] == '|', "%s: table row does not end with '|': %.*s", name, (int)len, line);
            if (row == 0) {
                cr_assert(previous_blank, "%s: table without a blank line before it: %.*s", name, (int)len, line);
                columns = pipes(line, len);
                tables++;
            } else if (row == 1) {
                cr_assert(delimiter_row(line, len), "%s: second table line is no delimiter row: %.*s", name, (int)len,
                          line);
            }
            cr_assert_eq(pipes(line, len), columns, "%s: row with %d cells in a table of %d: %.*s", name,
                         pipes(line, len) - 1, columns - 1, (int)len, line);
            row++;
        } else {
            cr_assert(row != 1, "%s: a table of one line", name);
            row = 0;
        }
        previous_blank = len == 0;
        line = nl ? nl + 1 : line + len;
    }
    return tables;
}

void html_check_well_formed(const char *path)
{
    char *command = NULL;
    int status;
    cr_assert(asprintf(&command, "python3 '%s/support/html_well_formed.py' '%s'", GPUVET_TEST_SOURCE, path) > 0);
    char *out = run_shell(command, &status);
    cr_assert_eq(status, 0, "%s is not well-formed HTML:\n%s", path, out);
    free(out);
    free(command);
}

char *saved_audit(const char *tree)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", fixture(tree), NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    char path[] = "/tmp/gpuvet-audit-XXXXXX.json";
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, r.out, strlen(r.out)), (ssize_t)strlen(r.out));
    close(fd);
    run_result_free(&r);
    return strdup(path);
}

int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

char *text_unwrapped(const char *text, const char *joiner)
{
    char *out = malloc(strlen(text) + 1), *w = out;
    cr_assert_not_null(out);
    for (const char *r = text; *r; r++) {
        if (*r == '\n') {
            while (r[1] == ' ')
                r++;
            w = stpcpy(w, joiner);
            continue;
        }
        *w++ = *r;
    }
    *w = '\0';
    return out;
}
