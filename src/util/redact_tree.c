/* Redaction of a recorded tree (util/redact_tree.h). Two passes: the first collects identifying
 * values (from the files that hold them), the second rewrites every file without them. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util/i18n.h"
#include "util/redact.h"
#include "util/redact_tree.h"

struct values {
    char **items;
    int count;
};

static void values_add(struct values *v, const char *text, size_t len, bool need_digit)
{
    while (len && isspace((unsigned char)*text))
        text++, len--;
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    /* Placeholders ("N/A", "Not Specified", "0000") are no one's identity, and removing them
     * everywhere would break the files that use them as ordinary values. */
    bool digit = false, only_zeros = true;
    for (size_t i = 0; i < len; i++) {
        digit |= isdigit((unsigned char)text[i]) != 0;
        only_zeros &= strchr("0-: ", text[i]) != NULL;
    }
    if (len < 2 || (need_digit && (len < 4 || !digit || only_zeros)) || !strncmp(text, REDACT_MARK, len))
        return;
    v->items = realloc(v->items, (size_t)(v->count + 1) * sizeof *v->items);
    v->items[v->count++] = strndup(text, len);
}

static const char *base_name(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? slash + 1 : rel;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

enum file_kind { FILE_ORDINARY, FILE_IDENTITY, FILE_HOSTNAME, FILE_CMDLINE, FILE_SMBIOS };

static enum file_kind kind_of(const char *rel)
{
    static const char *const identity_names[] = {"serial", "wwid", "wwn", "uuid", "nguid", "eui",
                                                 "node_guid", "sys_image_guid", "port_guid"};
    const char *base = base_name(rel);
    if (!strcmp(base, "hostname") || !strcmp(base, "domainname"))
        return FILE_HOSTNAME;
    if (!strcmp(rel, "proc/cmdline"))
        return FILE_CMDLINE;
    if (strstr(rel, "firmware/dmi/") && (!strcmp(base, "DMI") || !strcmp(base, "raw")))
        return FILE_SMBIOS;
    if (strstr(rel, "dmi/id/") && (ends_with(base, "_serial") || ends_with(base, "_uuid") || ends_with(base, "_asset_tag")))
        return FILE_IDENTITY;
    for (size_t i = 0; i < sizeof identity_names / sizeof identity_names[0]; i++)
        if (!strcmp(base, identity_names[i]))
            return FILE_IDENTITY;
    return FILE_ORDINARY;
}

/* SMBIOS string fields that identify a unit: {type, offset of the string number}. */
static const struct {
    unsigned char type, offset;
} smbios_identity[] = {
    {1, 0x07}, {2, 0x07}, {2, 0x08}, {3, 0x07}, {3, 0x08}, {4, 0x20}, {4, 0x21}, {17, 0x18}, {17, 0x19}, {39, 0x08},
    {39, 0x09},
};

/* Walks the structures of an SMBIOS table (or one raw entry); for each identifying string calls
 * collect (pass 1) or blanks it with 'X's (pass 2); pass 2 also zeroes the type 1 UUID. */
static void smbios_walk(char *data, size_t len, struct values *collect)
{
    size_t at = 0;
    while (at + 4 <= len) {
        unsigned char type = (unsigned char)data[at], length = (unsigned char)data[at + 1];
        if (length < 4 || at + length > len)
            return;
        size_t strings = at + length, end = strings;
        while (end + 1 < len && (data[end] || data[end + 1]))
            end++;
        if (!collect && type == 1 && length >= 0x18)
            memset(data + at + 0x08, 0, 16);
        for (size_t f = 0; f < sizeof smbios_identity / sizeof smbios_identity[0]; f++) {
            if (smbios_identity[f].type != type || smbios_identity[f].offset >= length)
                continue;
            int number = (unsigned char)data[at + smbios_identity[f].offset];
            size_t s = strings;
            for (int k = 1; k < number && s < end; k++)
                s += strlen(data + s) + 1;
            if (number == 0 || s >= end + 1 || s >= len)
                continue;
            size_t n = strnlen(data + s, len - s);
            if (collect)
                values_add(collect, data + s, n, true);
            else
                memset(data + s, 'X', n);
        }
        if (type == 127)
            return;
        at = end + 2;
    }
}

/* Values of <tag>VALUE</tag> (nvidia-smi's serial and uuid). */
static void xml_tag_values(const char *text, const char *tag, struct values *v)
{
    char open[32];
    snprintf(open, sizeof open, "<%s>", tag);
    for (const char *p = strstr(text, open); p; p = strstr(p, open)) {
        p += strlen(open);
        const char *end = strchr(p, '<');
        if (end)
            values_add(v, p, (size_t)(end - p), true);
    }
}

/* Values of hwloc's <info name="NAME" value="VALUE"/> whose name marks an identity. */
static void hwloc_info_values(const char *text, struct values *v)
{
    static const char *const marks[] = {"Serial", "UUID", "GUID", "GID", "Address", "AssetTag", "HostName", "WWN"};
    for (const char *p = strstr(text, "<info name=\""); p; p = strstr(p, "<info name=\"")) {
        p += strlen("<info name=\"");
        const char *name_end = strchr(p, '"'), *value = name_end ? strstr(name_end, "value=\"") : NULL;
        if (!value)
            return;
        value += strlen("value=\"");
        const char *value_end = strchr(value, '"');
        if (!value_end)
            return;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(name_end - p), p);
        for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
            if (strstr(name, marks[i])) {
                values_add(v, value, (size_t)(value_end - value), strcmp(marks[i], "HostName") != 0);
                break;
            }
    }
}

/* Kernel log lines that carry an identity in their own words: the boot command line (x86's
 * "Command line:", and "Kernel command line:"; it may hold root=UUID=, ip=, hostnames, tokens) and
 * a USB device's "SerialNumber:" (drivers/usb/core/hub.c announce_device). */
static const char *const log_line_marks[] = {"command line:", "SerialNumber:"};

/* Pass 1: the serial numbers those lines name, to be removed wherever else they appear. */
static void log_line_values(const char *text, struct values *v)
{
    for (const char *p = strstr(text, "SerialNumber:"); p; p = strstr(p, "SerialNumber:")) {
        p += strlen("SerialNumber:");
        values_add(v, p, strcspn(p, "\r\n"), true);
    }
}

/* Pass 2: everything after a mark up to the end of its line becomes REDACT_MARK. */
static void redact_log_lines(char **data, size_t *len)
{
    char *out = NULL;
    size_t outlen = 0;
    FILE *mem = open_memstream(&out, &outlen);
    if (!mem)
        return;
    const char *p = *data, *end = *data + *len;
    bool changed = false;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
        const char *cut = NULL;
        for (size_t m = 0; m < sizeof log_line_marks / sizeof log_line_marks[0] && !cut; m++) {
            size_t k = strlen(log_line_marks[m]);
            for (size_t i = 0; i + k <= n && !cut; i++)
                if (!strncasecmp(p + i, log_line_marks[m], k))
                    cut = p + i + k;
        }
        if (cut && cut < p + n) {
            fwrite(p, 1, (size_t)(cut - p), mem);
            fputs(" " REDACT_MARK, mem);
            changed = true;
        } else {
            fwrite(p, 1, n, mem);
        }
        if (eol)
            fputc('\n', mem);
        p += n + (eol ? 1 : 0);
    }
    if (fclose(mem) != 0 || !changed) {
        free(out);
        return;
    }
    free(*data);
    *data = out;
    *len = outlen;
}

struct file_list {
    char **rel;
    int count;
};

static int list_files(const char *root, const char *rel, struct file_list *out, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *dir = opendir(path);
    if (!dir) {
        snprintf(err, errlen, "%s: %s", path, i18n_error_text(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *d; rc == 0 && (d = readdir(dir));) {
        if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
            continue;
        char child[4096], full[8192];
        snprintf(child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", d->d_name);
        snprintf(full, sizeof full, "%s/%s", root, child);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            rc = list_files(root, child, out, err, errlen);
        } else if (S_ISREG(st.st_mode)) {
            out->rel = realloc(out->rel, (size_t)(out->count + 1) * sizeof *out->rel);
            out->rel[out->count++] = strdup(child);
        }
    }
    closedir(dir);
    return rc;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&data, &size);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(f);
    fclose(mem);
    *len = size;
    return data;
}

static int write_all(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    chmod(path, 0644);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        snprintf(err, errlen, "%s: %s", path, i18n_error_text(errno));
        return -1;
    }
    return 0;
}

int redact_tree(const char *root, const char *const *literals, int nliterals, char *err, size_t errlen)
{
    struct file_list files = {0};
    if (list_files(root, "", &files, err, errlen) != 0)
        return -1;
    struct values v = {0};
    for (int i = 0; i < nliterals; i++)
        if (literals[i])
            values_add(&v, literals[i], strlen(literals[i]), false);
    char path[8192];
    for (int i = 0; i < files.count; i++) {
        snprintf(path, sizeof path, "%s/%s", root, files.rel[i]);
        size_t len;
        char *data = read_all(path, &len);
        if (!data)
            continue;
        enum file_kind kind = kind_of(files.rel[i]);
        if (kind == FILE_IDENTITY || kind == FILE_HOSTNAME)
            values_add(&v, data, strnlen(data, len), kind == FILE_IDENTITY);
        else if (kind == FILE_SMBIOS)
            smbios_walk(data, len, &v);
        else if (ends_with(files.rel[i], ".xml") && memchr(data, '\0', len) == NULL) {
            xml_tag_values(data, "serial", &v);
            xml_tag_values(data, "uuid", &v);
            hwloc_info_values(data, &v);
        } else if (memchr(data, '\0', len) == NULL) {
            log_line_values(data, &v);
        }
        free(data);
    }
    int rc = 0;
    for (int i = 0; i < files.count && rc == 0; i++) {
        snprintf(path, sizeof path, "%s/%s", root, files.rel[i]);
        enum file_kind kind = kind_of(files.rel[i]);
        if (kind == FILE_IDENTITY || kind == FILE_HOSTNAME || kind == FILE_CMDLINE) {
            rc = write_all(path, REDACT_MARK "\n", strlen(REDACT_MARK "\n"), err, errlen);
            continue;
        }
        size_t len;
        char *data = read_all(path, &len);
        if (!data)
            continue;
        bool binary = memchr(data, '\0', len) != NULL;
        if (kind == FILE_SMBIOS)
            smbios_walk(data, len, NULL);
        size_t before = len;
        char *original = malloc(len ? len : 1);
        memcpy(original, data, len);
        if (!binary)
            redact_log_lines(&data, &len);
        redact_buffer(&data, &len, (const char *const *)v.items, v.count, binary);
        if (kind == FILE_SMBIOS || len != before || memcmp(original, data, len) != 0)
            rc = write_all(path, data, len, err, errlen);
        free(original);
        free(data);
    }
    for (int i = 0; i < files.count; i++)
        free(files.rel[i]);
    free(files.rel);
    for (int i = 0; i < v.count; i++)
        free(v.items[i]);
    free(v.items);
    return rc;
}
