#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsrecord.h"
#include "util/fsroot.h"
#include "util/inputfile.h"

static char root[64];

static void make_tree(void)
{
    snprintf(root, sizeof root, "/tmp/gpuvet-fsroot-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0 sys/bus/pci/devices && "
             "printf '0x030200\\n' > sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/class && "
             "printf '  17 \\n' > sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/number && "
             "printf 'seventeen\\n' > sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/garbage && "
             "ln -s ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0 sys/bus/pci/devices/0000:01:00.0",
             root);
    cr_assert_eq(system(cmd), 0);
    fsroot_set(root);
}

static void drop_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    cr_assert_eq(system(cmd), 0);
    fsroot_set(NULL);
    fsroot_record_to(NULL);
}

TestSuite(fsroot, .init = make_tree, .fini = drop_tree);

Test(fsroot, reads_under_the_root_and_trims)
{
    char *s = fs_read("/sys/bus/pci/devices/0000:01:00.0/class");
    cr_assert_str_eq(s, "0x030200");
    free(s);
    long v;
    cr_assert(fs_read_long("/sys/bus/pci/devices/0000:01:00.0/class", &v));
    cr_assert_eq(v, 0x030200);
    cr_assert(fs_read_long("/sys/bus/pci/devices/0000:01:00.0/number", &v));
    cr_assert_eq(v, 17);
    cr_assert_not(fs_read_long("/sys/bus/pci/devices/0000:01:00.0/garbage", &v));
    cr_assert_null(fs_read("/sys/does/not/exist"));
}

Test(fsroot, resolves_relative_links_inside_the_root)
{
    char *real = fs_resolve("/sys/bus/pci/devices/0000:01:00.0");
    cr_assert_str_eq(real, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
    free(real);
    char **names;
    int n = fs_list("/sys/bus/pci/devices", &names);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(names[0], "0000:01:00.0");
    fs_list_free(names, n);
}

Test(fsroot, records_what_was_read_with_its_links)
{
    char rec[64];
    snprintf(rec, sizeof rec, "/tmp/gpuvet-record-XXXXXX");
    cr_assert_not_null(mkdtemp(rec));
    fsroot_record_to(rec);
    char *s = fs_read("/sys/bus/pci/devices/0000:01:00.0/class");
    free(s);
    fsroot_record_to(NULL);
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:01:00.0", rec);
    ssize_t n = readlink(path, target, sizeof target - 1);
    cr_assert(n > 0, "the link was not recorded");
    target[n] = '\0';
    cr_assert_str_eq(target, "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
    snprintf(path, sizeof path, "%s/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/class", rec);
    cr_assert_eq(access(path, R_OK), 0, "the file was not recorded");
    /* What was not read is not recorded. */
    snprintf(path, sizeof path, "%s/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/garbage", rec);
    cr_assert_neq(access(path, F_OK), 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", rec);
    cr_assert_eq(system(cmd), 0);
}

/* --- links that try to leave the root, both with openat2 and with the walking fallback ------- */

static void add_hostile_links(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p etc proc && printf 'recorded\\n' > etc/hostname && "
             "ln -s /etc/hostname proc/absolute && "            /* absolute: re-rooted to the tree's */
             "ln -s ../../../../../../etc/hostname proc/climbing && " /* .. stops at the root */
             "ln -s loop_b proc/loop_a && ln -s loop_a proc/loop_b && mkfifo proc/fifo",
             root);
    cr_assert_eq(system(cmd), 0);
}

static void check_links_stay_inside(bool openat2)
{
    add_hostile_links();
    fsroot_use_openat2(openat2);
    char *s = fs_read("/proc/absolute");
    cr_assert_str_eq(s, "recorded", "an absolute link left the root (openat2 %d)", openat2);
    free(s);
    s = fs_read("/proc/climbing");
    cr_assert_str_eq(s, "recorded", "a climbing link left the root (openat2 %d)", openat2);
    free(s);
    cr_assert_null(fs_read("/proc/loop_a"));
    cr_assert_str_eq(fs_last_failure(), "/proc/loop_a is a symlink loop");
    cr_assert_null(fs_read("/proc/fifo"));
    cr_assert(strstr(fs_last_failure(), "not a regular file"));
    cr_assert_null(fs_read("/proc/none"));
    cr_assert_null(fs_last_failure(), "a missing file is just missing");
    /* Listing and resolving follow the same rule. */
    cr_assert(fs_is_dir("/sys/bus/pci/devices/0000:01:00.0"));
    char *real = fs_resolve("/proc/absolute");
    cr_assert_str_eq(real, "/etc/hostname");
    free(real);
    fsroot_use_openat2(true);
}

Test(fsroot, links_stay_inside_the_root_with_openat2) { check_links_stay_inside(true); }
Test(fsroot, links_stay_inside_the_root_walking) { check_links_stay_inside(false); }

Test(fsroot, an_oversized_file_is_called_oversized)
{
    char path[256];
    snprintf(path, sizeof path, "%s/sys/big", root);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_assert_eq(truncate(path, 17 << 20), 0);
    cr_assert_null(fs_read("/sys/big"));
    cr_assert(strstr(fs_last_failure(), "/sys/big is oversized"));
}

Test(fsroot, input_files_must_be_regular)
{
    char why[256];
    size_t len;
    cr_assert_null(input_file_read("/dev/zero", 1 << 20, &len, why, sizeof why));
    cr_assert(strstr(why, "not a regular file"), "%s", why);
    cr_assert_not(input_file_check("/dev/zero", 1 << 20, why, sizeof why));
    /* A live /proc file is no saved file either: /proc/kmsg's read waits for the next message. */
    cr_assert_null(input_file_read("/proc/self/status", 1 << 20, &len, why, sizeof why));
    cr_assert(strstr(why, "not a regular file"), "%s", why);
    char path[256];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:01:00.0/class", root);
    unsigned char *text = input_file_read(path, 1 << 20, &len, why, sizeof why);
    cr_assert_not_null(text);
    cr_assert_str_eq((char *)text, "0x030200\n");
    free(text);
}

Test(fsroot, tree_check_names_a_link_that_leaves)
{
    char why[512];
    cr_assert(fs_tree_is_closed("/sys", why, sizeof why), "%s", why);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ln -s ../../../../etc %s/sys/out", root);
    cr_assert_eq(system(cmd), 0);
    cr_assert_not(fs_tree_is_closed("/sys", why, sizeof why));
    cr_assert(strstr(why, "/sys/out links outside the tree"), "%s", why);
}
