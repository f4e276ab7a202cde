/* The catalogue gpuvet reads itself (util/mo.c, util/i18n.c): a catalogue in GPUVET_LOCALE_DIR that is
 * cut short, corrupted or not a file is named once on stderr and the built-in one speaks instead; a
 * catalogue whose plural rule gpuvet does not know gives no plural forms, none guessed; a missing
 * file's reason is gpuvet's own Chinese, whatever the C library's locales say. (The copied-alone
 * binary and a translator's changed catalogue: tests/cli/test_install.c.) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define TREE "sysroot/h200-firecracker-vm"
#define BUILT_MO GPUVET_BUILD_DIR "/locale/zh_CN/LC_MESSAGES/gpuvet.mo"

static char dir[] = "/tmp/gpuvet-catalogue-XXXXXX";

static void make_dir(void)
{
    cr_assert_not_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/zh_CN/LC_MESSAGES'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void remove_dir(void) { tree_remove(dir); }

TestSuite(i18n_catalogue, .init = make_dir, .fini = remove_dir);

/* Runs shell command `setup` (may be ""), then gpuvet with GPUVET_LOCALE_DIR=dir and args. */
static char *run_with_catalogue(const char *setup, const char *args, int *status)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s%s GPUVET_LOCALE_DIR='%s' '%s' %s", setup, *setup ? " && " : "", dir, GPUVET_BIN, args);
    return run_shell(cmd, status);
}

static int count(const char *text, const char *part)
{
    int n = 0;
    for (const char *at = text; (at = strstr(at, part)); at += strlen(part))
        n++;
    return n;
}

/* Each broken catalogue: the file named once with the reason, then the command in Chinese as usual. */
static void expect_broken_catalogue_named(const char *setup, const char *reason)
{
    int status;
    char *out = run_with_catalogue(setup, "--lang zh audi", &status);
    char path[512], notice[1024];
    snprintf(path, sizeof path, "%s/zh_CN/LC_MESSAGES/gpuvet.mo", dir);
    snprintf(notice, sizeof notice, "gpuvet: %s：不是可用的消息目录（%s", path, reason);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, notice), "want '%s' in:\n%s", notice, out);
    cr_expect_eq(count(out, path), 1, "named once:\n%s", out);
    cr_expect(strstr(out, "gpuvet: 未知命令“audi”；你是不是想用 audit？"), "the built-in catalogue:\n%s", out);
    free(out);
}

Test(i18n_catalogue, broken_installed_catalogues_fall_back_to_the_built_in_one)
{
    char setup[2048];
    /* cut in the middle of its strings */
    snprintf(setup, sizeof setup, "head -c 150000 '%s' > '%s/zh_CN/LC_MESSAGES/gpuvet.mo'", BUILT_MO, dir);
    expect_broken_catalogue_named(setup, "第 ");
    /* cut inside the header */
    snprintf(setup, sizeof setup, "head -c 20 '%s' > '%s/zh_CN/LC_MESSAGES/gpuvet.mo'", BUILT_MO, dir);
    expect_broken_catalogue_named(setup, "20 字节：不足以容纳 MO 文件头");
    /* not a catalogue at all */
    snprintf(setup, sizeof setup, "cp '%s/../po/zh_CN.po' '%s/zh_CN/LC_MESSAGES/gpuvet.mo'", GPUVET_TEST_SOURCE, dir);
    expect_broken_catalogue_named(setup, "幻数错误");
    /* a folder where the file should be */
    snprintf(setup, sizeof setup, "rm -f '%s/zh_CN/LC_MESSAGES/gpuvet.mo' && mkdir '%s/zh_CN/LC_MESSAGES/gpuvet.mo'", dir, dir);
    expect_broken_catalogue_named(setup, "是一个目录");
}

Test(i18n_catalogue, a_locale_dir_without_a_catalogue_is_said)
{
    int status;
    char *out = run_with_catalogue("", "--lang zh audi", &status);
    char notice[1024];
    snprintf(notice, sizeof notice, "gpuvet: GPUVET_LOCALE_DIR=%s 中没有 zh_CN/LC_MESSAGES/gpuvet.mo：改用内置的消息目录", dir);
    cr_expect(strstr(out, notice), "%s", out);
    cr_expect(strstr(out, "未知命令“audi”"), "%s", out);
    free(out);
    /* English asks for no catalogue: nothing said. */
    out = run_with_catalogue("", "--lang en audi", &status);
    cr_expect_null(strstr(out, "GPUVET_LOCALE_DIR"), "%s", out);
    free(out);
}

/* An installed catalogue with a plural rule other than Chinese's one form: gpuvet does not evaluate
 * plural expressions, so it takes no plural form from that catalogue (the changed one below is not
 * shown) and uses the built-in catalogue's one form, or English where no catalogue with one form has
 * the message, never a guessed form. Its other messages are used as usual. */
Test(i18n_catalogue, plurals_of_an_unknown_rule_are_not_guessed)
{
    char setup[2048];
    snprintf(setup, sizeof setup,
             "sed -e 's/nplurals=1; plural=0;/nplurals=2; plural=(n != 1);/' "
             "-e 's/^msgstr\\[0\\] \"%%d 张加速卡：\"/msgstr[0] \"%%d 块加速卡（改）：\"/' "
             "-e 's/^msgstr \"没有那个文件或目录\"/msgstr \"文件不存在（改）\"/' '%s/../po/zh_CN.po' > '%s/two.po' && "
             "grep -q '块加速卡（改）' '%s/two.po' && msgfmt -o '%s/zh_CN/LC_MESSAGES/gpuvet.mo' '%s/two.po'",
             GPUVET_TEST_SOURCE, dir, dir, dir, dir);
    char args[1024];
    snprintf(args, sizeof args, "--lang zh audit --sample 0 --claim /nonexistent.json --sysroot '%s'", fixture(TREE));
    int status;
    char *out = run_with_catalogue(setup, args, &status);
    cr_expect(strstr(out, "/nonexistent.json：文件不存在（改）"), "the installed catalogue is used:\n%s", out);
    cr_expect_null(strstr(out, "不是可用的消息目录"), "a good catalogue:\n%s", out);
    free(out);
    snprintf(args, sizeof args, "--lang zh audit --sample 0 --sysroot '%s'", fixture(TREE));
    out = run_with_catalogue(setup, args, &status);
    cr_expect(strstr(out, "1 张加速卡：1x NVIDIA H200"), "the built-in catalogue's one form:\n%s", out);
    cr_expect_null(strstr(out, "块加速卡（改）"), "%s", out);
    free(out);
}

/* "No such file or directory" in Chinese is gpuvet's (po/zh_CN.po), with the C library told to speak
 * English: it does not depend on Debian's libc-l10n. */
Test(i18n_catalogue, missing_file_reason_is_chinese_without_libc_translations)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "env -u GPUVET_LOCALE_DIR LANGUAGE=en LC_ALL=C '%s' --lang zh audit --claim /nonexistent.json --sample 0 --sysroot '%s'",
             GPUVET_BIN, fixture(TREE));
    int status;
    char *out = run_shell(cmd, &status);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, "/nonexistent.json：没有那个文件或目录"), "%s", out);
    cr_expect_null(strstr(out, "No such file"), "%s", out);
    free(out);
    /* The JSON of the same run would keep the English; in English the reason is glibc's text. */
    snprintf(cmd, sizeof cmd, "'%s' audit --claim /nonexistent.json --sample 0 --sysroot '%s'", GPUVET_BIN, fixture(TREE));
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "/nonexistent.json: No such file or directory"), "%s", out);
    free(out);
}

/* A translation with other conversions than its msgid (issue 25): printf would read arguments that
 * were never passed (%s more) or write through one (%n). That message is left out of the installed
 * catalogue: the built-in one speaks it, and gpuvet does not crash. */
Test(i18n_catalogue, a_translation_with_other_conversions_is_not_printed)
{
    char po[512], setup[2048];
    snprintf(po, sizeof po, "%s/x.po", dir);
    FILE *f = fopen(po, "w");
    cr_assert_not_null(f);
    fputs("msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n"
          "msgid \"gpuvet: unknown command '%s'; did you mean %s?\\n\"\n"
          "msgstr \"%s%s%s%s%s%s%s%s%s%s%n\\n\"\n",
          f);
    fclose(f);
    snprintf(setup, sizeof setup, "msgfmt -o '%s/zh_CN/LC_MESSAGES/gpuvet.mo' '%s'", dir, po);
    int status;
    char *out = run_with_catalogue(setup, "--lang zh audi", &status);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, "gpuvet: 未知命令“audi”；你是不是想用 audit？"), "the built-in translation:\n%s", out);
    free(out);
}
