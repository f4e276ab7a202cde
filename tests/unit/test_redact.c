/* util/redact.c: the patterns --redact removes, and the look-alikes it must leave alone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/redact.h"
#include "util/redact_tree.h"

static void expect(const char *in, const char *const *literals, int n, const char *want)
{
    char *out = redact_text(in, literals, n);
    cr_assert_str_eq(out, want, "redact_text(\"%s\")", in);
    free(out);
}

Test(redact, addresses_and_uuids)
{
    expect("eth0 02:fc:00:00:00:01 up", NULL, 0, "eth0 [redacted] up");
    expect("ib0 80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:f9:bf:a1", NULL, 0, "ib0 [redacted]");
    expect("node_guid 0002:c903:00f9:bfa0\n", NULL, 0, "node_guid [redacted]\n");
    expect("nfs 10.1.2.3:/export/data", NULL, 0, "nfs [redacted]:/export/data");
    expect("gid fe80:0000:0000:0000:0002:c903:00f9:bfa1 and ::1 and fe80::1", NULL, 0,
           "gid [redacted] and [redacted] and [redacted]");
    expect("GPU-513536b6-7d19-9063-b049-1e69664bb298", NULL, 0, "GPU-[redacted]");
}

Test(redact, look_alikes_stay)
{
    const char *same[] = {"0000:3b:00.0 and 00000000:3B:00.0", "driver 535.104.05, kernel 5.10.0-28-amd64",
                          "firmware 86.04.91.00.01", "12:34:56", "CPUs 0-7,16-23", "std::vector"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        expect(same[i], NULL, 0, same[i]);
}

Test(redact, literals_as_whole_words)
{
    const char *host[] = {"vm", "1650522003820"};
    expect("gpuvet audit of vm (live), hypervisor kvm, vm.example.org", host, 2,
           "gpuvet audit of [redacted] (live), hypervisor kvm, [redacted].example.org");
    expect("<serial>1650522003820</serial> 16505220038201", host, 2, "<serial>[redacted]</serial> 16505220038201");
    const char *one[] = {"x", NULL};
    expect("x marks", one, 2, "x marks");
}

Test(redact, binary_keeps_its_length)
{
    char raw[] = "\x11\x22\x00\x11serial\0" "52:54:00:12:34:56\0\0";
    size_t len = sizeof raw - 1;
    char *data = malloc(len);
    memcpy(data, raw, len);
    const char *lit[] = {"serial"};
    redact_buffer(&data, &len, lit, 1, true);
    cr_assert_eq(len, sizeof raw - 1);
    cr_assert(!memcmp(data + 4, "XXXXXX\0XXXXXXXXXXXXXXXXX\0\0", 26));
    free(data);
}

/* snapshot --redact: the kernel log's boot command line and USB serial numbers go too. */
Test(redact, kernel_log_command_line_and_usb_serials)
{
    char root[] = "/tmp/gpuvet-redact-XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char path[256];
    snprintf(path, sizeof path, "%s/kernel-log.txt", root);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 secret_token=hunter22\n"
          "[    0.010000] Kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 secret_token=hunter22\n"
          "[    2.000000] usb 1-1: SerialNumber: 4C530001231215104154\n"
          "[    3.000000] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/notes.txt", root);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("device 4C530001231215104154 seen\n", f);
    fclose(f);
    char err[256] = "";
    cr_assert_eq(redact_tree(root, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/kernel-log.txt", root);
    char text[1024] = "";
    f = fopen(path, "r");
    cr_assert_not_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    cr_assert_null(strstr(text, "hunter22"), "the command line stays:\n%s", text);
    cr_assert_null(strstr(text, "4C530001231215104154"), "the USB serial stays:\n%s", text);
    cr_assert_not_null(strstr(text, "Command line: " REDACT_MARK "\n"), "%s", text);
    cr_assert_not_null(strstr(text, "SerialNumber: " REDACT_MARK "\n"), "%s", text);
    cr_assert_not_null(strstr(text, "GPU has fallen off the bus."), "other lines stay:\n%s", text);
    snprintf(path, sizeof path, "%s/notes.txt", root);
    f = fopen(path, "r");
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    cr_assert_str_eq(text, "device " REDACT_MARK " seen\n", "the serial elsewhere goes too");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
}
