/* util/mo.c: a translation is printed with its msgid's arguments, so one that carries other
 * conversions (%n, one %s more, %s for a %d) would make printf read or write what is not there.
 * mo_open checks every translation as `msgfmt -c` does and leaves the odd ones out (issue 25). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/mo.h"

#define BUILT_MO GPUVET_BUILD_DIR "/locale/zh_CN/LC_MESSAGES/gpuvet.mo"

Test(mo_formats, the_same_arguments_in_any_order_are_accepted)
{
    cr_expect(mo_format_compatible("%d of %d DIMM slots free", "%2$d 个内存槽位中 %1$d 个空闲"));
    cr_expect(mo_format_compatible("%s: %d GPUs", "%s：%d 个 GPU"));
    /* %.0s takes the plural's "s" and prints nothing (po/zh_CN.po does this). */
    cr_expect(mo_format_compatible(" with %d DIMM%s per channel", " 在每通道 %d 条内存时%.0s"));
    cr_expect(mo_format_compatible("%5.1f%% of %-10s", "%1$5.1f%% / %2$-10s"));
    cr_expect(mo_format_compatible("%*d items", "%*d 项"));
    cr_expect(mo_format_compatible("%lu bytes, %zu MiB", "%lu 字节，%zu MiB"));
    cr_expect(mo_format_compatible("%u of %x", "%d / %X"), "signedness does not change what is fetched");
    cr_expect(mo_format_compatible("%hhd %hd", "%d %d"), "short and char arrive as int");
    cr_expect(mo_format_compatible("no conversion", "没有转换"));
    cr_expect(mo_format_compatible("100%% sure", "百分之百%%"));
    cr_expect(mo_format_compatible("%s: %m", "%s：%m"));
    /* Trailing arguments left out are never read; a '%' before no conversion takes nothing (help
     * texts: "70 % or more" is no format). */
    cr_expect(mo_format_compatible("%s and %s", "%s"));
    cr_expect(mo_format_compatible("at 70 % or more", "70% 以上"));
    cr_expect(mo_format_compatible("0.68 or 68%", "0.68 或 68%"));
}

Test(mo_formats, other_conversions_are_refused)
{
    cr_expect_not(mo_format_compatible("%s failed", "%s 失败%n"), "%%n writes through an argument");
    cr_expect_not(mo_format_compatible("%d%n", "%d%n"), "%%n is refused even where the msgid has it");
    cr_expect_not(mo_format_compatible("%s failed", "%s %s 失败"), "one argument more");
    /* Argument 41416, not a width of 41416 before a '$': glibc's printf sizes a table of that many
     * arguments on the stack (fuzz_mo_format: a stack overflow); 0$ is no argument either. */
    cr_expect_not(mo_format_compatible("unknown command '%s'; did you mean %s?", "%41416$d\xb2" "6$d"));
    cr_expect_not(mo_format_compatible("%s", "%99999999999$s"));
    cr_expect_not(mo_format_compatible("%s", "%0$s"));
    cr_expect_not(mo_format_compatible("%d items", "%*41416$d 项"));
    /* After '*' no width digits follow: "%*4%S" is '*', the unknown '4', then a wide string. */
    cr_expect_not(mo_format_compatible("; %d of %d DIMM slots free", "%*4%S$"));
    cr_expect_not(mo_format_compatible("%d of %d", "%.*4%s"));
    cr_expect(mo_format_compatible("%d of %d", "%*d"), "a '*' width and its conversion");
    cr_expect_not(mo_format_compatible("%d GPUs", "%s 个 GPU"), "a string for an int");
    cr_expect_not(mo_format_compatible("%d GPUs", "%f 个 GPU"), "a double for an int");
    cr_expect_not(mo_format_compatible("%d GPUs", "%ld 个 GPU"), "a long for an int");
    cr_expect_not(mo_format_compatible("%zu MiB", "%u MiB"));
    cr_expect_not(mo_format_compatible("%f W", "%Lf W"));
    cr_expect_not(mo_format_compatible("%p", "%s"));
    cr_expect_not(mo_format_compatible("%d of %d", "%2$d / %d"), "numbered and unnumbered mixed");
    cr_expect_not(mo_format_compatible("%d of %d", "%2$d"), "a numbered argument left out before another");
    cr_expect_not(mo_format_compatible("%s", "%1$s %1$d"), "one argument with two types");
    cr_expect_not(mo_format_compatible("%s", "%99$s"));
    cr_expect_not(mo_format_compatible("done", "完成 %s"), "a message printed with no arguments");
    cr_expect_not(mo_format_compatible("%d", "%b"), "a letter some C library reads an argument for");
    cr_expect_not(mo_format_compatible("%d", "%w32d"));
    cr_expect_not(mo_format_compatible("0.68 or 68%", "%s"));
    cr_expect_not(mo_format_compatible("; %d of %d", "；%2"), "a directive cut by the end (found by fuzz_mo_format)");
    cr_expect_not(mo_format_compatible("no conversion", "x %-"));
    /* "%.1%" is one literal '%' to printf: the "%S" after "%%" is a wide string (found by
     * fuzz_mo_format: it crashed in wcsrtombs). */
    cr_expect_not(mo_format_compatible("; %d of %d", "%.1%%%%Sd"));
    cr_expect(mo_format_compatible("%d", "%.1%%d"), "'%%.1%%' then '%%d'");
}

Test(mo_formats, every_translation_of_the_real_catalogue_is_accepted)
{
    size_t size;
    unsigned char *bytes = (unsigned char *)file_contents(BUILT_MO, &size);
    cr_assert_not_null(bytes, "%s not built", BUILT_MO);
    struct mo_catalogue mo;
    char err[256];
    cr_assert_eq(mo_open(&mo, bytes, size, err, sizeof err), 0, "%s", err);
    for (uint32_t i = 0; i < mo.count; i++)
        if (mo.refused[i]) {
            uint32_t len = 0;
            const unsigned char *d = mo.data + mo.originals + 8 * i;
            len = (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24;
            cr_expect_not(mo.refused[i], "entry %u refused: %s", i, (const char *)mo.data + len);
        }
    cr_expect_eq(mo.nrefused, 0);
    mo_close(&mo);
    free(bytes);
}

/* A catalogue msgfmt makes without -c from po text, read back; the caller frees *bytes. */
static void crafted(const char *po, unsigned char **bytes, size_t *size, struct mo_catalogue *mo)
{
    char dir[] = "/tmp/gpuvet-mo-formats-XXXXXX", path[64], command[256];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x.po", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n"
          "\"Plural-Forms: nplurals=1; plural=0;\\n\"\n\n",
          f);
    fputs(po, f);
    fclose(f);
    snprintf(command, sizeof command, "msgfmt -o '%s/x.mo' '%s' 2>&1", dir, path);
    int status;
    char *out = run_shell(command, &status);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/x.mo", dir);
    *bytes = (unsigned char *)file_contents(path, size);
    tree_remove(dir);
    char err[256];
    cr_assert_eq(mo_open(mo, *bytes, *size, err, sizeof err), 0, "%s", err);
}

Test(mo_formats, a_crafted_catalogue_keeps_only_its_sound_translations)
{
    unsigned char *bytes;
    size_t size;
    struct mo_catalogue mo;
    crafted("msgid \"%s failed\"\nmsgstr \"%s 失败%n\"\n\n"
            "msgid \"%d GPUs\"\nmsgstr \"%s%s%s%s 个 GPU\"\n\n"
            "msgid \"%d of %d\"\nmsgstr \"%2$d 中的 %1$d\"\n\n"
            "msgid \"%d accelerator\"\nmsgid_plural \"%d accelerators\"\nmsgstr[0] \"%d 张加速卡\"\n\n"
            "msgid \"one socket\"\nmsgid_plural \"%d sockets\"\nmsgstr[0] \"%d 个插槽\"\n\n"
            "msgid \"%d DIMM\"\nmsgid_plural \"%d DIMMs\"\nmsgstr[0] \"%s 条内存\"\n",
            &bytes, &size, &mo);
    cr_expect_null(mo_lookup(&mo, "%s failed"));
    cr_expect_null(mo_lookup(&mo, "%d GPUs"));
    cr_expect_str_eq(mo_lookup(&mo, "%d of %d"), "%2$d 中的 %1$d");
    cr_expect_str_eq(mo_lookup_plural(&mo, "%d accelerator", 0), "%d 张加速卡");
    /* A form may follow the plural msgid: the same arguments reach both. */
    cr_expect_str_eq(mo_lookup_plural(&mo, "one socket", 0), "%d 个插槽");
    cr_expect_null(mo_lookup_plural(&mo, "%d DIMM", 0));
    cr_expect_eq(mo.nrefused, 3);
    mo_close(&mo);
    free(bytes);
}
