/* util/output_file.c: a page FILE of --html/--markdown, "-" standing for stdout (audit, fleet and
 * compare share these). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/output_file.h"

Test(output_file, only_a_lone_dash_is_stdout)
{
    cr_expect(output_is_stdout("-"));
    cr_expect_not(output_is_stdout(NULL));
    cr_expect_not(output_is_stdout("--"));
    cr_expect_not(output_is_stdout("./-"));
    cr_expect_not(output_is_stdout("report.html"));
}

Test(output_file, a_dash_gives_stdout_and_closing_leaves_it_open)
{
    FILE *out = output_open("-", "fleet");
    cr_assert_eq(out, stdout);
    cr_expect_eq(output_close(out, "-", "fleet", 0), 0);
    cr_expect_neq(fcntl(STDOUT_FILENO, F_GETFD), -1, "stdout was closed");
}

Test(output_file, a_named_file_is_written_and_closed)
{
    char path[] = "/tmp/gpuvet-output-file-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    FILE *out = output_open(path, "audit");
    cr_assert_not_null(out);
    cr_assert_neq(out, stdout);
    fputs("<html></html>\n", out);
    /* The writer's status comes back when closing succeeds. */
    cr_expect_eq(output_close(out, path, "audit", -1), -1);
    FILE *in = fopen(path, "r");
    char line[64] = "";
    cr_assert_not_null(fgets(line, sizeof line, in));
    fclose(in);
    cr_expect_str_eq(line, "<html></html>\n");
    unlink(path);
}

Test(output_file, a_file_that_cannot_be_created_is_named_in_the_error, .init = cr_redirect_stderr)
{
    cr_expect_null(output_open("/nonexistent-dir/page.html", "compare"));
    fflush(stderr);
    cr_expect_stderr_eq_str("gpuvet compare: /nonexistent-dir/page.html: its folder /nonexistent-dir: No such file or "
                            "directory\n");
}

/* ---- output_target: what --output and --prom may replace (issue 25) ---- */

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "testutil.h"

/* The file's text (freed with the test process). */
static const char *file_text(const char *path) { return file_contents(path, NULL); }

static void make_dir(char *dir)
{
    strcpy(dir, "/tmp/gpuvet-target-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(const char *dir)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}

/* Writes text to path through output_target; the result of open (or finish when open succeeded). */
static int write_target(const char *path, const char *text, char *why, size_t why_size)
{
    struct output_target t;
    if (output_target_open(&t, path, 0644, why, why_size) != 0)
        return -1;
    cr_assert_eq(write(t.fd, text, strlen(text)), (ssize_t)strlen(text));
    return output_target_finish(&t, true, why, why_size);
}

/* Only `name` (and the given others) in dir: no temporary file left behind. */
static int entries_in(const char *dir)
{
    char command[160];
    snprintf(command, sizeof command, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(command, "r");
    int n = -1;
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

Test(output_target, a_missing_or_regular_file_is_replaced_whole)
{
    char dir[64], path[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/out.prom", dir);
    cr_assert_eq(write_target(path, "first\n", why, sizeof why), 0, "%s", why);
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);
    cr_assert_eq(write_target(path, "second\n", why, sizeof why), 0, "%s", why);
    cr_assert_eq(stat(path, &after), 0);
    cr_expect_neq(before.st_ino, after.st_ino, "a regular file is replaced by rename, not rewritten in place");
    cr_expect_str_eq(file_text(path), "second\n");
    cr_expect_eq(entries_in(dir), 1, "the temporary file was left behind");
    remove_dir(dir);
}

Test(output_target, a_character_device_is_written_through_and_stays_a_device)
{
    char dir[64], path[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/null", dir);
    /* A null device of our own (major 1, minor 3), never the real /dev/null: needs root. */
    if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        remove_dir(dir);
        cr_skip_test("mknod needs root");
    }
    cr_assert_eq(write_target(path, "metrics\n", why, sizeof why), 0, "%s", why);
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISCHR(st.st_mode), "the device was replaced (mode %o)", (unsigned)st.st_mode);
    cr_expect_eq(entries_in(dir), 1);
    remove_dir(dir);
}

Test(output_target, a_fifo_is_written_through_to_its_reader)
{
    char dir[64], path[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/pipe", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    int reader = open(path, O_RDONLY | O_NONBLOCK);
    cr_assert_geq(reader, 0);
    cr_assert_eq(write_target(path, "through\n", why, sizeof why), 0, "%s", why);
    char got[32] = "";
    cr_expect_eq(read(reader, got, sizeof got - 1), 8);
    cr_expect_str_eq(got, "through\n");
    close(reader);
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    remove_dir(dir);
}

Test(output_target, a_fifo_nobody_reads_is_refused_at_once)
{
    char dir[64], path[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/pipe", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    time_t start = time(NULL);
    cr_expect_eq(write_target(path, "x", why, sizeof why), -1);
    cr_expect_leq(time(NULL) - start, 2, "opening the FIFO waited for a reader");
    cr_expect(strstr(why, "nobody reads"), "%s", why);
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode));
    remove_dir(dir);
}

Test(output_target, a_symlink_is_followed_and_stays_a_link)
{
    char dir[64], path[96], link[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/real.prom", dir);
    snprintf(link, sizeof link, "%s/link.prom", dir);
    cr_assert_eq(write_target(path, "old\n", why, sizeof why), 0, "%s", why);
    cr_assert_eq(symlink("real.prom", link), 0);
    cr_assert_eq(write_target(link, "new\n", why, sizeof why), 0, "%s", why);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced by a file");
    cr_expect_str_eq(file_text(path), "new\n");
    cr_expect_eq(entries_in(dir), 2);
    remove_dir(dir);
}

Test(output_target, a_symlink_to_a_device_writes_through_it)
{
    char dir[64], path[96], link[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/pipe", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(symlink("pipe", link), 0);
    int reader = open(path, O_RDONLY | O_NONBLOCK);
    cr_assert_eq(write_target(link, "via link\n", why, sizeof why), 0, "%s", why);
    char got[32] = "";
    cr_expect_eq(read(reader, got, sizeof got - 1), 9);
    close(reader);
    struct stat st;
    cr_expect(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    cr_expect(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
    remove_dir(dir);
}

Test(output_target, folders_dangling_links_sockets_and_missing_folders_are_refused)
{
    char dir[64], path[128], why[512];
    make_dir(dir);
    cr_expect_eq(output_target_check(dir, why, sizeof why), -1);
    cr_expect_str_eq(why, "Is a directory");
    snprintf(path, sizeof path, "%s/missing/x.prom", dir);
    cr_expect_eq(output_target_check(path, why, sizeof why), -1);
    cr_expect(strstr(why, "missing: No such file or directory"), "%s", why);
    snprintf(path, sizeof path, "%s/dangling", dir);
    cr_assert_eq(symlink("nowhere", path), 0);
    cr_expect_eq(output_target_check(path, why, sizeof why), -1);
    cr_expect(strstr(why, "missing file"), "%s", why);
    cr_expect_eq(entries_in(dir), 1, "a check creates nothing");
    remove_dir(dir);
}

Test(output_target, a_link_another_user_made_is_not_followed)
{
    if (geteuid() != 0)
        cr_skip_test("chown of a link needs root");
    char dir[64], path[96], link[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/victim", dir);
    snprintf(link, sizeof link, "%s/out.prom", dir);
    cr_assert_eq(write_target(path, "keep me\n", why, sizeof why), 0, "%s", why);
    cr_assert_eq(symlink("victim", link), 0);
    cr_assert_eq(lchown(link, 4242, 4242), 0);
    cr_expect_eq(write_target(link, "overwritten\n", why, sizeof why), -1);
    cr_expect(strstr(why, "another user (uid 4242)"), "%s", why);
    cr_expect_str_eq(file_text(path), "keep me\n");
    remove_dir(dir);
}

Test(output_target, stdout_by_name_is_written_through_its_descriptor)
{
    char dir[64], path[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/shell.out", dir);
    /* As `gpuvet ... --output /dev/stdout > shell.out`: the shell's file gets the text, unreplaced. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct stat before, after;
    cr_assert_eq(fstat(fd, &before), 0);
    char alias[32];
    snprintf(alias, sizeof alias, "/dev/fd/%d", fd);
    cr_assert_eq(write_target(alias, "by descriptor\n", why, sizeof why), 0, "%s", why);
    close(fd);
    cr_assert_eq(stat(path, &after), 0);
    cr_expect_eq(before.st_ino, after.st_ino);
    cr_expect_str_eq(file_text(path), "by descriptor\n");
    remove_dir(dir);
}

/* A signal that ends the run removes the temporary file (SIGINT, SIGTERM, SIGHUP). */
static void killed_while_writing(int sig)
{
    char dir[64], path[96], why[512];
    make_dir(dir);
    snprintf(path, sizeof path, "%s/out.json", dir);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        signal(sig, SIG_DFL);
        struct output_target t;
        if (output_target_open(&t, path, 0644, why, sizeof why) != 0)
            _exit(10);
        if (write(t.fd, "half", 4) != 4)
            _exit(11);
        raise(sig);
        _exit(12);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig, "status %d", status);
    cr_expect_eq(entries_in(dir), 0, "signal %d left the temporary file", sig);
    remove_dir(dir);
}

Test(output_target, sigint_removes_the_temporary_file) { killed_while_writing(SIGINT); }
Test(output_target, sigterm_removes_the_temporary_file) { killed_while_writing(SIGTERM); }
Test(output_target, sighup_removes_the_temporary_file) { killed_while_writing(SIGHUP); }
