/* util/mo.c on the catalogue the build compiled from po/zh_CN.po (build/locale/...), on the same
 * file in the other byte order, and on cut and corrupted copies of it: a broken file is refused
 * with a reason, never read outside its bytes (the sanitizer build checks the reads). Then
 * i18n_strerror's own Chinese texts for the errno values gpuvet can meet. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/deadline.h"
#include "util/i18n.h"
#include "util/mo.h"

#define BUILT_MO GPUVET_BUILD_DIR "/locale/zh_CN/LC_MESSAGES/gpuvet.mo"

static unsigned char *real_mo(size_t *size)
{
    unsigned char *bytes = (unsigned char *)file_contents(BUILT_MO, size);
    cr_assert_not_null(bytes, "%s not built", BUILT_MO);
    cr_assert_gt(*size, 1000);
    return bytes;
}

/* A malloc'd copy of exactly len bytes, so that ASan sees a read past them. */
static unsigned char *exact_copy(const unsigned char *bytes, size_t len)
{
    unsigned char *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, bytes, len);
    return copy;
}

static uint32_t get_u32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static void reverse4(unsigned char *p)
{
    unsigned char t = p[0];
    p[0] = p[3];
    p[3] = t;
    t = p[1];
    p[1] = p[2];
    p[2] = t;
}

/* Lookups every good copy must answer the same way. */
static void expect_real_answers(const struct mo_catalogue *mo)
{
    cr_expect_eq(mo->nplurals, 1);
    const char *text = mo_lookup(mo, "No such file or directory");
    cr_assert_not_null(text);
    cr_expect_str_eq(text, "没有那个文件或目录");
    cr_expect_null(mo_lookup(mo, "a sentence gpuvet never wrote"));
    cr_expect_null(mo_lookup(mo, "\xff\xff"));
    /* A plural entry: found by its singular, one form (nplurals=1). */
    text = mo_lookup_plural(mo, "        %d socket, %d cores, %d threads", 0);
    cr_assert_not_null(text);
    cr_expect_str_eq(text, "        %d 个 CPU 插槽，%d 核，%d 线程");
    cr_expect_null(mo_lookup_plural(mo, "        %d socket, %d cores, %d threads", 1));
    cr_expect_null(mo_lookup_plural(mo, "No such file or directory", 1), "not a plural entry");
    /* A system-dependent message: "%<PRIu64>" in the catalogue, this system's conversion here. */
    text = mo_lookup(mo, "only %" PRIu64 " MiB may be used (%s): too little for STREAM arrays");
    cr_assert_not_null(text);
    cr_expect_str_eq(text, "只能使用 %" PRIu64 " MiB（%s）：放不下 STREAM 数组");
}

Test(mo, reads_the_catalogue_the_build_compiled)
{
    size_t size;
    unsigned char *bytes = real_mo(&size);
    struct mo_catalogue mo;
    char err[256] = "";
    cr_assert_eq(mo_open(&mo, bytes, size, err, sizeof err), 0, "%s", err);
    cr_expect_gt(mo.count, 1000);
    expect_real_answers(&mo);
    mo_close(&mo);
    free(bytes);
}

/* msgfmt writes the host's byte order; a catalogue made on a big-endian machine reads the same. */
Test(mo, reads_the_other_byte_order)
{
    size_t size;
    unsigned char *bytes = real_mo(&size);
    uint32_t count = get_u32(bytes + 8), originals = get_u32(bytes + 12), translations = get_u32(bytes + 16);
    uint32_t nsegments = get_u32(bytes + 28), segments = get_u32(bytes + 32), nsysdep = get_u32(bytes + 36);
    uint32_t sysdep_tables[2] = {get_u32(bytes + 40), get_u32(bytes + 44)};
    cr_assert_eq(get_u32(bytes + 4), 1, "minor revision 1: the catalogue has \"%%\" PRIu64 messages");
    for (uint32_t i = 0; i < count * 2; i++) {
        reverse4(bytes + originals + 4 * i);
        reverse4(bytes + translations + 4 * i);
    }
    for (uint32_t i = 0; i < nsegments * 2; i++)
        reverse4(bytes + segments + 4 * i);
    for (int t = 0; t < 2; t++)
        for (uint32_t i = 0; i < nsysdep; i++) {
            uint32_t descriptor = get_u32(bytes + sysdep_tables[t] + 4 * i);
            reverse4(bytes + sysdep_tables[t] + 4 * i);
            reverse4(bytes + descriptor); /* the base offset, then (length, segment) pairs to the end mark */
            for (uint32_t at = descriptor + 4;; at += 8) {
                bool end = get_u32(bytes + at + 4) == 0xffffffffu;
                reverse4(bytes + at);
                reverse4(bytes + at + 4);
                if (end)
                    break;
            }
        }
    for (size_t at = 0; at < 48; at += 4)
        reverse4(bytes + at);
    /* the hash table (sizes and offsets at 20 and 24) is not read; its words stay as they were */
    struct mo_catalogue mo;
    char err[256] = "";
    cr_assert_eq(mo_open(&mo, bytes, size, err, sizeof err), 0, "%s", err);
    cr_expect(mo.big_endian);
    expect_real_answers(&mo);
    mo_close(&mo);
    free(bytes);
}

static void expect_refused(const unsigned char *bytes, size_t len, const char *reason_part)
{
    unsigned char *copy = exact_copy(bytes, len);
    struct mo_catalogue mo;
    char err[256] = "";
    if (mo_open(&mo, copy, len, err, sizeof err) == 0) {
        cr_expect_fail("accepted (%zu bytes)", len);
        mo_close(&mo);
    }
    cr_expect(err[0], "no reason given");
    if (reason_part)
        cr_expect(strstr(err, reason_part), "want '%s' in '%s'", reason_part, err);
    free(copy);
}

/* The strings come last in msgfmt's layout: every copy cut short loses some of them. */
Test(mo, every_cut_copy_is_refused)
{
    size_t size;
    unsigned char *bytes = real_mo(&size);
    expect_refused(bytes, 0, "too short");
    expect_refused(bytes, 27, "too short");
    size_t step = size / 997 + 1, cuts = 0;
    for (size_t len = 28; len < size; len += step, cuts++)
        expect_refused(bytes, len, NULL);
    expect_refused(bytes, size - 1, "system-dependent string");
    cr_expect_gt(cuts, 900);
    free(bytes);
}

Test(mo, corrupted_copies_are_refused_with_the_reason)
{
    size_t size;
    unsigned char *bytes = real_mo(&size);
    unsigned char *bad = exact_copy(bytes, size);
    uint32_t originals = get_u32(bytes + 12), translations = get_u32(bytes + 16);

    bad[0] ^= 0xff;
    expect_refused(bad, size, "magic");
    memcpy(bad, bytes, size);
    put_u32(bad + 4, 2u << 16);
    expect_refused(bad, size, "revision 2.0");
    memcpy(bad, bytes, size);
    put_u32(bad + 8, 0x7fffffffu); /* N far too large: the tables would run past the end */
    expect_refused(bad, size, "table of original strings");
    memcpy(bad, bytes, size);
    put_u32(bad + 16, (uint32_t)size - 4);
    expect_refused(bad, size, "table of translations");
    memcpy(bad, bytes, size);
    put_u32(bad + originals + 8 * 5 + 4, (uint32_t)size); /* original 5's offset */
    expect_refused(bad, size, "original string 5 ends past the end");
    memcpy(bad, bytes, size);
    put_u32(bad + translations + 8 * 7, 0xfffffff0u); /* translation 7's length */
    expect_refused(bad, size, "translation 7 ends past the end");
    /* Two originals swapped: binary search would miss messages. */
    memcpy(bad, bytes, size);
    memcpy(bad + originals + 8 * 10, bytes + originals + 8 * 11, 8);
    memcpy(bad + originals + 8 * 11, bytes + originals + 8 * 10, 8);
    expect_refused(bad, size, "not sorted (entry 11)");
    free(bad);
    free(bytes);
}

/* Random bytes changed anywhere (a fixed seed, so a failure repeats): refused, or accepted and every
 * lookup stays inside the copy. */
Test(mo, random_damage_never_reads_outside_the_file)
{
    size_t size;
    unsigned char *bytes = real_mo(&size);
    uint32_t originals = get_u32(bytes + 12);
    srand(14);
    int refused = 0;
    for (int round = 0; round < 300; round++) {
        unsigned char *bad = exact_copy(bytes, size);
        for (int k = 0; k < 4; k++) {
            /* half the damage in the header and tables, where it matters most */
            size_t at = k % 2 ? (size_t)rand() % size : (size_t)rand() % (originals + 64);
            bad[at] = (unsigned char)rand();
        }
        struct mo_catalogue mo;
        char err[256];
        if (mo_open(&mo, bad, size, err, sizeof err) == 0) {
            const char *text = mo_lookup(&mo, "No such file or directory");
            if (text)
                cr_expect_lt(strlen(text), size);
            text = mo_lookup_plural(&mo, "        %d socket, %d cores, %d threads", 0);
            if (text)
                cr_expect_lt(strlen(text), size);
            mo_close(&mo);
        } else {
            refused++;
        }
        free(bad);
    }
    cr_expect_gt(refused, 0);
    free(bytes);
}

/* gpuvet's own Chinese for the errno values it can meet (the table in util/i18n.c and its msgids
 * must be glibc's C-locale texts exactly, or these stay English). */
Test(mo, strerror_texts_are_chinese_from_the_catalogue)
{
    static const int errors[] = {ENOENT, EACCES,    EPERM,  EISDIR,    ENOTDIR, ELOOP,  ENAMETOOLONG, EIO,
                                 ENOMEM, EINVAL,    ENOSPC, EROFS,     EEXIST,  ENOTEMPTY, EBUSY,    ETIMEDOUT,
                                 EAGAIN, EMFILE,    ENFILE, ENODEV,    ENXIO,   EFBIG,  EPIPE,        ECHILD,
                                 ENOEXEC, E2BIG,    EXDEV,  ENODATA,   EDQUOT,  ETXTBSY, ESRCH,       EOPNOTSUPP};
    cr_assert_eq(i18n_init("zh"), 0);
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        char *english = i18n_strerror(errors[i]);
        cr_assert_not_null(english);
        i18n_english_begin();
        cr_expect_str_eq(_(english), english, "English inside an English scope");
        i18n_english_end();
        const char *local = _(english);
        cr_expect_str_neq(local, english, "errno %d (%s) has no Chinese text", errors[i], english);
        cr_expect((unsigned char)local[0] >= 0xe4, "errno %d: '%s' is not Chinese", errors[i], local);
        free(english);
    }
    char *english = i18n_strerror(ENOENT);
    cr_expect_str_eq(english, "No such file or directory");
    cr_expect_str_eq(_(english), "没有那个文件或目录");
    free(english);
    english = i18n_strerror(EACCES);
    cr_expect_str_eq(_(english), "权限不够");
    free(english);
    cr_assert_eq(i18n_init("en"), 0);
}

/* i18n_error_text, for messages printed at once: the same Chinese, English inside an English scope
 * and in English mode, glibc's text for an errno outside the table. */
Test(mo, error_text_follows_the_language_and_the_scope)
{
    cr_assert_eq(i18n_init("zh"), 0);
    cr_expect_str_eq(i18n_error_text(ENOENT), "没有那个文件或目录");
    cr_expect_str_eq(i18n_error_text(EISDIR), "是一个目录");
    i18n_english_begin();
    cr_expect_str_eq(i18n_error_text(ENOENT), "No such file or directory");
    i18n_english_end();
    char outside[128];
    snprintf(outside, sizeof outside, "%s", strerror(EDOM));
    cr_expect_str_eq(i18n_error_text(EDOM), outside, "an errno outside the table keeps glibc's text");
    cr_assert_eq(i18n_init("en"), 0);
    cr_expect_str_eq(i18n_error_text(ENOENT), "No such file or directory");
}

/* Work run under a deadline (a benchmark's measurement, a probe) runs in another thread: it keeps
 * the caller's English scope, so texts it writes into a JSON document stay English. */
static void note_translating(void *arg) { *(bool *)arg = i18n_translating(); }

Test(mo, deadline_work_keeps_the_callers_english_scope)
{
    cr_assert_eq(i18n_init("zh"), 0);
    bool translating = false;
    cr_assert(deadline_run(note_translating, &translating, NULL, 5));
    cr_expect(translating, "outside a scope the worker translates");
    i18n_english_begin();
    cr_assert(deadline_run(note_translating, &translating, NULL, 5));
    i18n_english_end();
    cr_expect(!translating, "inside the caller's English scope the worker does not");
    cr_assert_eq(i18n_init("en"), 0);
}
