/* POSIX ustar (IEEE Std 1003.1-2001 "pax interchange format"): 512-byte headers, octal fields,
 * contents padded to 512 bytes, two zero blocks at the end. Names or link targets that do not
 * fit the header go into a preceding pax extended header ('x'), which GNU tar and bsdtar read. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/ustar.h"
#include "util/i18n.h"

#define BLOCK 512

struct tar_out {
    FILE *file;
    const char *path;
    long long mtime;
    char *err;
    size_t errlen;
    int failed;
};

static void octal(char *field, size_t width, unsigned long long value)
{
    snprintf(field, width, "%0*llo", (int)width - 1, value);
}

static void pad_to_block(struct tar_out *t, size_t len)
{
    static const char zeros[BLOCK];
    size_t pad = (BLOCK - len % BLOCK) % BLOCK;
    if (pad && fwrite(zeros, 1, pad, t->file) != pad)
        t->failed = 1;
}

static void write_block_padded(struct tar_out *t, const void *data, size_t len)
{
    if (len && fwrite(data, 1, len, t->file) != len)
        t->failed = 1;
    pad_to_block(t, len);
}

static void header(struct tar_out *t, const char *name, char type, unsigned mode, unsigned long long size,
                   const char *link)
{
    char h[BLOCK];
    memset(h, 0, sizeof h);
    snprintf(h, 100, "%s", name);
    octal(h + 100, 8, mode);
    octal(h + 108, 8, 0);
    octal(h + 116, 8, 0);
    octal(h + 124, 12, size);
    octal(h + 136, 12, (unsigned long long)t->mtime);
    memset(h + 148, ' ', 8);
    h[156] = type;
    if (link)
        snprintf(h + 157, 100, "%s", link);
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < BLOCK; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    write_block_padded(t, h, BLOCK);
}

/* One pax record: "<len> key=value\n", len counting itself. */
static void pax_record(char **buf, size_t *len, const char *key, const char *value)
{
    size_t body = strlen(key) + strlen(value) + 3, n = body + 1;
    while (snprintf(NULL, 0, "%zu", n) + body != n)
        n++;
    *buf = realloc(*buf, *len + n + 1);
    snprintf(*buf + *len, n + 1, "%zu %s=%s\n", n, key, value);
    *len += n;
}

static void entry(struct tar_out *t, const char *name, char type, unsigned mode, unsigned long long size,
                  const char *link)
{
    char *pax = NULL;
    size_t pax_len = 0;
    if (strlen(name) >= 100)
        pax_record(&pax, &pax_len, "path", name);
    if (link && strlen(link) >= 100)
        pax_record(&pax, &pax_len, "linkpath", link);
    if (pax) {
        header(t, "PaxHeader", 'x', 0644, pax_len, NULL);
        write_block_padded(t, pax, pax_len);
        free(pax);
    }
    header(t, name, type, mode, size, link);
}

static int add_file(struct tar_out *t, const char *full, const char *name, const struct stat *st)
{
    FILE *in = fopen(full, "rb");
    if (!in) {
        snprintf(t->err, t->errlen, "%s: %s", full, i18n_error_text(errno));
        return -1;
    }
    entry(t, name, '0', 0644, (unsigned long long)st->st_size, NULL);
    char buf[65536];
    size_t n, total = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0 && total + n <= (size_t)st->st_size) {
        if (fwrite(buf, 1, n, t->file) != n)
            t->failed = 1;
        total += n;
    }
    fclose(in);
    if (total != (size_t)st->st_size) {
        snprintf(t->err, t->errlen, _("%s: changed while it was packed"), full);
        return -1;
    }
    pad_to_block(t, total);
    return 0;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Depth first, names sorted so the same tree always packs the same way. */
static int add_tree(struct tar_out *t, const char *full, const char *name)
{
    DIR *dir = opendir(full);
    if (!dir) {
        snprintf(t->err, t->errlen, "%s: %s", full, i18n_error_text(errno));
        return -1;
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *d; (d = readdir(dir));) {
        if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
            continue;
        names = realloc(names, (count + 1) * sizeof *names);
        names[count++] = strdup(d->d_name);
    }
    closedir(dir);
    if (count)
        qsort(names, count, sizeof *names, compare_names);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        char *child_full = NULL, *child_name = NULL;
        if (rc == 0 && asprintf(&child_full, "%s/%s", full, names[i]) > 0 &&
            asprintf(&child_name, "%s/%s", name, names[i]) > 0) {
            struct stat st;
            if (lstat(child_full, &st) != 0) {
                snprintf(t->err, t->errlen, "%s: %s", child_full, i18n_error_text(errno));
                rc = -1;
            } else if (S_ISDIR(st.st_mode)) {
                char *dir_name = NULL;
                if (asprintf(&dir_name, "%s/", child_name) > 0)
                    entry(t, dir_name, '5', 0755, 0, NULL);
                free(dir_name);
                rc = add_tree(t, child_full, child_name);
            } else if (S_ISLNK(st.st_mode)) {
                char target[4096];
                ssize_t n = readlink(child_full, target, sizeof target - 1);
                if (n < 0) {
                    snprintf(t->err, t->errlen, "%s: %s", child_full, i18n_error_text(errno));
                    rc = -1;
                } else {
                    target[n] = '\0';
                    entry(t, child_name, '2', 0777, 0, target);
                }
            } else if (S_ISREG(st.st_mode)) {
                rc = add_file(t, child_full, child_name, &st);
            }
        }
        free(child_full);
        free(child_name);
        free(names[i]);
    }
    free(names);
    return rc;
}

int ustar_write_tree(const char *root, const char *top, const char *path, char *err, size_t errlen)
{
    struct tar_out t = {.path = path, .mtime = (long long)time(NULL), .err = err, .errlen = errlen};
    t.file = fopen(path, "wb");
    if (!t.file) {
        snprintf(err, errlen, "%s: %s", path, i18n_error_text(errno));
        return -1;
    }
    char *top_dir = NULL;
    int rc = asprintf(&top_dir, "%s/", top) > 0 ? 0 : -1;
    if (rc == 0) {
        entry(&t, top_dir, '5', 0755, 0, NULL);
        rc = add_tree(&t, root, top);
    }
    free(top_dir);
    static const char zeros[2 * BLOCK];
    if (fwrite(zeros, 1, sizeof zeros, t.file) != sizeof zeros)
        t.failed = 1;
    if (fclose(t.file) != 0)
        t.failed = 1;
    if (rc == 0 && t.failed) {
        snprintf(err, errlen, "%s: %s", path, i18n_error_text(errno ? errno : EIO));
        rc = -1;
    }
    if (rc != 0)
        unlink(path);
    return rc;
}
