/* The Debian package, built as docs/install.md says (cpack -G DEB), holds the binary, the tables, the man
 * pages and the completions under /usr, declares the libraries the binary links, and its binary,
 * unpacked with `dpkg-deb -x` into an empty root, runs with nothing else of gpuvet around.
 * It also holds the documents Debian policy asks for (share/doc/gpuvet: a changelog whose version is
 * the package's, a machine-readable copyright file), and lintian, where installed, finds no error
 * and no warning in it. Skipped (77) where cpack or dpkg-deb is not installed.
 * What this does not prove: that apt resolves the Depends on a fresh system and that the package
 * installs there; scripts/fresh-debian-check.sh --deb does that in a debootstrapped Debian 12. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

Test(deb, package_holds_everything_and_its_binary_runs)
{
    char dir[] = "/tmp/gpuvet-deb-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[4096];
    int status;
    snprintf(cmd, sizeof cmd, "cd '%s' && cpack -G DEB --config '%s/CPackConfig.cmake' -B '%s/out'", dir,
             GPUVET_BUILD_DIR, dir);
    char *out = run_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "dpkg-deb -f '%s'/out/gpuvet_*.deb Depends", dir);
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    cr_expect(strstr(out, "libhwloc") && strstr(out, "libjansson") && strstr(out, "libxml2"), "Depends: %s", out);
    free(out);

    /* a summary line and the extended description lintian asks for */
    snprintf(cmd, sizeof cmd, "dpkg-deb -f '%s'/out/gpuvet_*.deb Description", dir);
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "audit GPU servers") && strstr(out, "\n gpuvet finds the traps"), "Description: %s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "dpkg-deb -c '%s'/out/gpuvet_*.deb", dir);
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    cr_expect(strstr(out, " ./usr/share/doc/gpuvet/changelog.gz\n") && strstr(out, " ./usr/share/doc/gpuvet/copyright\n"),
              "no changelog.gz or copyright in share/doc/gpuvet:\n%s", out);
    free(out);

    /* The changelog's latest entry is the package's version, which is the binary's. */
    snprintf(cmd, sizeof cmd, "dpkg-deb -f '%s'/out/gpuvet_*.deb Version && dpkg-deb --fsys-tarfile '%s'/out/gpuvet_*.deb | "
             "tar -xO ./usr/share/doc/gpuvet/changelog.gz | zcat | head -n 1", dir, dir);
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    cr_expect_str_eq(out, GPUVET_VERSION "\ngpuvet (" GPUVET_VERSION ") UNRELEASED; urgency=medium\n");
    free(out);

    /* Machine-readable (DEP-5): the format's header, a Files paragraph and its License. */
    snprintf(cmd, sizeof cmd, "dpkg-deb --fsys-tarfile '%s'/out/gpuvet_*.deb | tar -xO ./usr/share/doc/gpuvet/copyright", dir);
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    const char dep5_header[] = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n";
    cr_expect(strncmp(out, dep5_header, strlen(dep5_header)) == 0 &&
              strstr(out, "\nUpstream-Name: gpuvet\n") && strstr(out, "\nFiles: *\n") && strstr(out, "\nLicense: "),
              "copyright:\n%s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "command -v lintian >/dev/null || exit 77; lintian --fail-on error,warning '%s'/out/gpuvet_*.deb", dir);
    out = run_shell(cmd, &status);
    if (status == 77)
        cr_log_warn("lintian is not installed: the package's lintian check is skipped");
    else
        cr_expect_eq(status, 0, "lintian finds errors or warnings:\n%s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "dpkg-deb -x '%s'/out/gpuvet_*.deb '%s/root' && cd '%s/root' && "
             "ls usr/bin/gpuvet usr/share/gpuvet/gpus.csv usr/share/gpuvet/cpu-platforms.csv "
             "usr/share/man/man1/gpuvet.1.gz usr/share/man/man1/gpuvet-audit.1.gz "
             "usr/share/bash-completion/completions/gpuvet usr/share/zsh/vendor-completions/_gpuvet",
             dir, dir, dir);
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    free(out);

    /* The unpacked binary reads the tables unpacked beside it (ROOT/usr/share/gpuvet). */
    snprintf(cmd, sizeof cmd, "cd / && '%s/root/usr/bin/gpuvet' audit --sample 0 --json --sysroot '%s' | "
             "grep -A3 '\"file\": \"cpu-platforms.csv\"'", dir, fixture("sysroot/h200-firecracker-vm"));
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    char expected[256];
    snprintf(expected, sizeof expected, "\"path\": \"%s/root/usr/share/gpuvet/cpu-platforms.csv\"", dir);
    cr_expect(strstr(out, "\"source\": \"installed\"") && strstr(out, expected), "%s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Without the packaging tools there is nothing to build: skipped (77), not failed. */
int main(int argc, char *argv[])
{
    if (system("command -v cpack >/dev/null && command -v dpkg-deb >/dev/null") != 0) {
        fputs("cpack or dpkg-deb is not installed: the Debian package is not built (skipped)\n", stderr);
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
