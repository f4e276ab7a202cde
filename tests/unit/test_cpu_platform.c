/* The CPU platform table looked up with model strings as /proc/cpuinfo and SMBIOS type 4 write
 * them: the per-model row wins over its range, the range over the family. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/machine.h"
#include "probe/probe.h"

struct expected_platform {
    const char *model;  /* as the kernel or dmidecode prints it */
    const char *name;   /* the row that must match */
    int channels, mts, mts_2dpc;
    enum platform_scope scope;
};

static const struct expected_platform cases[] = {
    {"Intel(R) Xeon(R) CPU E5-2640 v4 @ 2.40GHz", "Xeon E5-2640 v4", 4, 2133, 2133, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2603 v4 @ 1.70GHz", "Xeon E5-2603 v4", 4, 1866, 1866, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz", "Xeon E5-2620 v4", 4, 2133, 2133, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "Xeon E5-2680 v4", 4, 2400, 2133, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2630L v4 @ 1.80GHz", "Xeon E5-2630L v4", 4, 2133, 2133, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2630 v3 @ 2.40GHz", "Xeon E5-2630 v3", 4, 1866, 0, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz", "Xeon E5-2680", 4, 1600, 0, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5-2420 0 @ 1.90GHz", "Xeon E5-2400", 3, 1066, 0, PLATFORM_FAMILY},
    {"Intel(R) Xeon(R) CPU E5-4650 v4 @ 2.20GHz", "Xeon E5 v4", 4, 1866, 0, PLATFORM_FAMILY},
    {"Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz", "Xeon Silver 41xx (Skylake-SP)", 6, 2400, 2400, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 5118 CPU @ 2.30GHz", "Xeon Gold 51xx (Skylake-SP)", 6, 2400, 2400, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 5122 CPU @ 3.60GHz", "Xeon Gold 5122", 6, 2666, 2666, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz", "Xeon Gold 61xx (Skylake-SP)", 6, 2666, 2666, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz", "Xeon Platinum 81xx (Skylake-SP)", 6, 2666, 2666, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz", "Xeon Gold 52xx (Cascade Lake)", 6, 2666, 0, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", "Xeon Gold 62xx (Cascade Lake)", 6, 2933, 0, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6222V CPU @ 1.80GHz", "Xeon Gold 6222V", 6, 2400, 0, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) Platinum 9282 CPU @ 2.60GHz", "Xeon Platinum 92xx (Cascade Lake-AP)", 12, 2933, 0, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6348H CPU @ 2.30GHz", "Xeon Gold 6348H", 6, 3200, 2933, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) Platinum 8380HL CPU @ 2.90GHz", "Xeon Platinum 83xxH (Cooper Lake)", 6, 3200, 2933, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 5320H CPU @ 2.40GHz", "Xeon Gold 53xxH (Cooper Lake)", 6, 2933, 2933, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6328H CPU @ 2.80GHz", "Xeon Scalable 3rd gen H (Cooper Lake)", 6, 2933, 2933, PLATFORM_FAMILY},
    {"Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz", "Xeon Gold 63xx (Ice Lake)", 8, 3200, 3200, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz", "Xeon Gold 6330", 8, 2933, 2933, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) Gold 6330N CPU @ 2.20GHz", "Xeon Gold 6330N", 8, 2666, 2666, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) Gold 5318Y CPU @ 2.10GHz", "Xeon Gold 53xx (Ice Lake)", 8, 2933, 2933, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Silver 4310 CPU @ 2.10GHz", "Xeon Silver 43xx (Ice Lake)", 8, 2666, 2666, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", "Xeon Platinum 83xx (Ice Lake)", 8, 3200, 3200, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6430", "Xeon Gold 6430", 8, 4400, 4400, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) Gold 6448Y", "Xeon Gold 64xx (Sapphire Rapids)", 8, 4800, 4400, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 5418Y", "Xeon Gold 54xx (Sapphire Rapids)", 8, 4400, 4400, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Platinum 8480+", "Xeon Platinum 84xx (Sapphire Rapids)", 8, 4800, 4400, PLATFORM_MODELS},
    {"Intel(R) Xeon(R) Gold 6438N", "Xeon Scalable 4th gen (Sapphire Rapids)", 8, 4000, 4000, PLATFORM_FAMILY},
    {"INTEL(R) XEON(R) GOLD 6526Y", "Xeon Gold 6526Y", 8, 5200, 0, PLATFORM_MODEL},
    {"INTEL(R) XEON(R) GOLD 6548Y+", "Xeon Scalable 5th gen (Emerald Rapids)", 8, 4400, 0, PLATFORM_FAMILY},
    {"Intel(R) Xeon(R) 6980P", "Xeon 6 6900P (Granite Rapids-AP)", 12, 6400, 0, PLATFORM_MODELS},
    {"AMD EPYC 7452 32-Core Processor", "EPYC 7002 (Rome)", 8, 3200, 0, PLATFORM_MODELS},
    {"AMD EPYC 7763 64-Core Processor", "EPYC 7003 (Milan)", 8, 3200, 0, PLATFORM_MODELS},
    {"AMD EPYC 7551P 32-Core Processor", "EPYC 7551P", 8, 2666, 0, PLATFORM_MODEL},
    {"AMD EPYC 7251 8-Core Processor", "EPYC 7251", 8, 2400, 0, PLATFORM_MODEL},
    {"AMD EPYC 7261 8-Core Processor", "EPYC 7001 (Naples)", 8, 2400, 0, PLATFORM_FAMILY},
    {"AMD EPYC 9654 96-Core Processor", "EPYC 9004 (Genoa)", 12, 4800, 0, PLATFORM_MODELS},
    {"AMD EPYC 8534P 64-Core Processor", "EPYC 8004 (Siena)", 6, 4800, 0, PLATFORM_MODELS},
    {"AMD EPYC 9575F 64-Core Processor", "EPYC 9005 (Turin)", 12, 6000, 0, PLATFORM_MODELS},
    {"Kunpeng 920-4826", "Kunpeng 920", 8, 2933, 0, PLATFORM_MODELS},
    /* Xeon 5500/5600: 3 DDR3 channels, per-SKU speeds (ARK); 1066 with two DIMMs per channel (HP). */
    {"Intel(R) Xeon(R) CPU X5650 @ 2.67GHz", "Xeon X5650", 3, 1333, 1066, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU           E5620  @ 2.40GHz", "Xeon E5620", 3, 1066, 1066, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5520", "Xeon E5520", 3, 1066, 1066, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5506 @ 2.13GHz", "Xeon E5506", 3, 800, 800, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU E5607 @ 2.27GHz", "Xeon E5607", 3, 1066, 1066, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU L5609 @ 1.87GHz", "Xeon L5609", 3, 1066, 1066, PLATFORM_MODEL},
    {"Intel(R) Xeon(R) CPU X5698 @ 4.40GHz", "Xeon 5500/5600 (Nehalem/Westmere-EP)", 3, 800, 800, PLATFORM_FAMILY},
    /* AMD Opteron: G34 4 channels, C32 and socket F 2. */
    {"AMD Opteron(tm) Processor 6172", "Opteron 6100 (Magny-Cours; G34)", 4, 1333, 0, PLATFORM_FAMILY},
    {"AMD Opteron(TM) Processor 6272", "Opteron 6200 (Interlagos; G34)", 4, 1600, 0, PLATFORM_FAMILY},
    {"AMD Opteron(tm) Processor 6386 SE", "Opteron 6300 (Abu Dhabi; G34)", 4, 1866, 0, PLATFORM_FAMILY},
    {"AMD Opteron(tm) Processor 4274 HE", "Opteron 4200 (Valencia; C32)", 2, 1600, 0, PLATFORM_FAMILY},
    {"Six-Core AMD Opteron(tm) Processor 2435", "Opteron 2300/2400/8300/8400 (socket F; family 10h)", 2, 667, 0,
     PLATFORM_FAMILY},
    {"Dual-Core AMD Opteron(tm) Processor 2214", "Opteron 2200/8200 (socket F; K8)", 2, 667, 0, PLATFORM_FAMILY},
};

/* The platform row found for a CPU named `model` with CPUID family/model; free with machine_free. */
static void look_up(struct machine *m, const char *model, int family, int model_number)
{
    machine_init(m);
    m->cpu.model = strdup(model);
    m->cpu.family = family;
    m->cpu.model_number = model_number;
    probe_cpu_platform(m);
}

Test(cpu_platform, real_model_strings_match_their_row)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct expected_platform *e = &cases[i];
        struct machine m;
        look_up(&m, e->model, -1, -1);
        const struct cpu_platform *p = &m.memory.platform;
        cr_assert_not_null(p->name, "%s: %s", e->model, m.memory.platform_unknown_reason);
        cr_expect_str_eq(p->name, e->name, "%s", e->model);
        cr_expect_eq(p->channels_per_socket, e->channels, "%s", e->model);
        cr_expect_eq(p->mts, e->mts, "%s", e->model);
        cr_expect_eq(p->mts_at_dpc[1], e->mts, "%s", e->model);
        cr_expect_eq(p->mts_at_dpc[2], e->mts_2dpc, "%s", e->model);
        cr_expect_eq(p->scope, e->scope, "%s", e->model);
        cr_expect_not_null(p->source, "%s", e->model);
        machine_free(&m);
    }
}

Test(cpu_platform, sources_are_named_after_their_publisher)
{
    static const struct {
        const char *model, *label;
    } labels[] = {
        {"Intel(R) Xeon(R) CPU E5-2640 v4 @ 2.40GHz", "Intel ARK"},
        {"AMD EPYC 7452 32-Core Processor", "AMD"},
        {"Kunpeng 920-4826", "HiSilicon"},
    };
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        struct machine m;
        look_up(&m, labels[i].model, -1, -1);
        cr_assert_str_eq(m.memory.platform.source_label, labels[i].label);
        machine_free(&m);
    }
}

/* Engineering samples carry no model name: CPUID picks the family row, never a model row. */
Test(cpu_platform, engineering_samples_get_the_family_row_by_cpuid)
{
    struct machine m;
    look_up(&m, "Genuine Intel(R) CPU 0000%@", 6, 79);
    cr_assert_str_eq(m.memory.platform.name, "Xeon E5 v4");
    cr_assert_eq(m.memory.platform.scope, PLATFORM_FAMILY);
    machine_free(&m);
}

Test(cpu_platform, an_unknown_cpu_has_no_row_and_says_why)
{
    struct machine m;
    look_up(&m, "Intel(R) Xeon(R) CPU E7- 4870  @ 2.40GHz", 6, 47);
    cr_assert_null(m.memory.platform.name);
    cr_assert(strstr(m.memory.platform_unknown_reason, "E7- 4870"), "%s", m.memory.platform_unknown_reason);
    machine_free(&m);
}

/* Front-side-bus Xeons have no memory controller: no channel count, and the reason says so, whether
 * the CPU is named or known by CPUID only (HP DL360 G5 BIOSes leave the name empty). */
Test(cpu_platform, front_side_bus_cpus_say_the_controller_is_in_the_chipset)
{
    static const struct {
        const char *model;
        int family, model_number;
    } fsb[] = {
        {"Intel(R) Xeon(R) CPU           E5430  @ 2.66GHz", -1, -1},
        {"Intel(R) Xeon(R) CPU 5150 @ 2.66GHz", -1, -1},
        {"unknown", 6, 23},
        {"Intel(R) Xeon(TM) CPU 2.66GHz", 15, 4},
    };
    for (size_t i = 0; i < sizeof fsb / sizeof fsb[0]; i++) {
        struct machine m;
        look_up(&m, fsb[i].model, fsb[i].family, fsb[i].model_number);
        cr_expect_null(m.memory.platform.name, "%s", fsb[i].model);
        cr_expect_eq(m.memory.platform.channels_per_socket, 0, "%s", fsb[i].model);
        cr_expect(m.memory.platform_unknown_reason && strstr(m.memory.platform_unknown_reason, "no memory controller"),
                  "%s: %s", fsb[i].model, m.memory.platform_unknown_reason);
        machine_free(&m);
    }
}

/* Desktop parts share the Xeons' digits (Pentium E5300, Core 2 Duo E7400): the rows want "Xeon". */
Test(cpu_platform, desktop_parts_with_xeon_like_numbers_get_no_xeon_row)
{
    const char *desktop[] = {"Pentium(R) Dual-Core  CPU      E5300  @ 2.60GHz",
                             "Intel(R) Core(TM)2 Duo CPU     E7400  @ 2.80GHz"};
    for (size_t i = 0; i < sizeof desktop / sizeof desktop[0]; i++) {
        struct machine m;
        look_up(&m, desktop[i], -1, -1);
        cr_expect_null(m.memory.platform.name, "%s: %s", desktop[i], m.memory.platform.name);
        machine_free(&m);
    }
}

/* An unnamed Westmere-EP (CPUID family 6 model 44) gets the 5500/5600 family row. */
Test(cpu_platform, unnamed_westmere_gets_the_family_row)
{
    struct machine m;
    look_up(&m, "unknown", 6, 44);
    cr_assert_str_eq(m.memory.platform.name, "Xeon 5500/5600 (Nehalem/Westmere-EP)");
    cr_assert_eq(m.memory.platform.channels_per_socket, 3);
    machine_free(&m);
}

/* A broken row is reported with its line even when the CPU matched a row above it. */
Test(cpu_platform, a_broken_row_is_reported_whatever_the_cpu)
{
    char dir[] = "/tmp/gpuvet-platform-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/cpu-platforms.csv", dir);
    FILE *out = fopen(path, "w");
    cr_assert_not_null(out);
    fputs("# name,model_regex,cpuid_family,cpuid_models,channels_per_socket,ddr,mts,mts_2dpc,mts_3dpc,scope,source,"
          "dpc_source,max_sockets\n"
          "Xeon E5-2640 v4,E5-2640 v4,,,4,DDR4,2133,2133,,model,https://ark.intel.com/,,\n"
          "Xeon E5-2680 v4,E5-2680 v4,,,4,DDR4,2400,2666,,model,https://ark.intel.com/,,\n"
          "Xeon Gold 6430,Gold 6430,,,8,DDR5,4400,4400,,modle,https://ark.intel.com/,,\n"
          /* a comma too many: once folded into the last field and read as a valid row */
          "Xeon Gold 6330,Gold 6330,,,8,DDR4,2933,2933,,model,https://ark.intel.com/,,,\n"
          "Xeon Gold 6338,Gold 6338,,,8,DDR4,3200,2933,,model,https://ark.intel.com/,,0\n",
          out);
    fclose(out);
    setenv("GPUVET_DATA_DIR", dir, 1);
    struct machine m;
    look_up(&m, "Intel(R) Xeon(R) CPU E5-2640 v4 @ 2.40GHz", 6, 79);
    unsetenv("GPUVET_DATA_DIR");
    cr_assert_str_eq(m.memory.platform.name, "Xeon E5-2640 v4");
    cr_assert_eq(m.nproblems, 4);
    cr_assert(strstr(m.problems[0].message, "line 3: DIMMs-per-channel speeds"), "%s", m.problems[0].message);
    cr_assert(strstr(m.problems[1].message, "line 4: scope"), "%s", m.problems[1].message);
    cr_assert(strstr(m.problems[2].message, "line 5: 14 fields, expected 13"), "%s", m.problems[2].message);
    cr_assert(strstr(m.problems[2].path, "cpu-platforms.csv"), "%s", m.problems[2].path);
    cr_assert(strstr(m.problems[3].message, "line 6: max_sockets must be empty or 1 to 32"), "%s", m.problems[3].message);
    machine_free(&m);
    unlink(path);
    rmdir(dir);
}
