/* SMBIOS type-17 locator schemes on real strings. Each row is copied from a linuxhw/DMI report
 * (CC BY 4.0; the path under Server/ is given) so a scheme is only trusted where a board writes it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/machine.h"
#include "probe/probe.h"

struct locator_case {
    const char *report; /* linuxhw/DMI Server/... */
    const char *locator, *bank;
    const char *scheme; /* NULL: no scheme may claim it */
    int socket;         /* raw, as the vendor numbers it */
    int channel;        /* controller * 64 + channel; -1 socket only */
};

static const struct locator_case cases[] = {
    {"DEPO Computers/Super/Super Server/F84E17B9619B", "P2-DIMME1", "P1_Node1_Channel0_Dimm0",
     "P0_Node0_Channel0_Dimm0", 1, 64},
    {"HUAWEI/1288H/1288H V5/C98B42F4F0E0", "DIMM130", "_Node1_Channel3_Dimm0", "_Node0_Channel0_Dimm0", 1, 3},
    {"INSPUR/SA5212/SA5212M4/4250B01550A6", "CHE_0", "A1_Node1_Channel0_Dimm0", "_Node0_Channel0_Dimm0", 1, 0},
    {"Hyve/Rigel-HS/Rigel-HS9216/7F5327D5ECB3", "CPU_1_DIMM_H_0", "H0_Node1_Channel1_Dimm0",
     "_Node0_Channel0_Dimm0", 1, 1},
    {"Lenovo/70FRR156CN/70FRR156CN RD450X/8535AF5D51BA", "CPU2 DIMM A0", "_Node1_Channel0_Dimm0",
     "_Node0_Channel0_Dimm0", 1, 0},
    {"Acer/AW2000h/AW2000h F2/03091D9F63A3", "DIMM_B1", "NODE 0 CHANNEL 1 DIMM 0", "NODE 0 CHANNEL 0 DIMM 0", 0, 1},
    {"HUAWEI/TaiShan/TaiShan 2280 V2/2603C7B2E57E", "DIMM010 J21", "SOCKET 0 CHANNEL 1 DIMM 0",
     "SOCKET 0 CHANNEL 0 DIMM 0", 0, 1},
    {"AMD/ETHANOL_DEBUG_X/ETHANOL_DEBUG_X/475A2B0CCAB4", "DIMM 1", "P0 CHANNEL C", "P0 CHANNEL A", 0, 2},
    /* Supermicro's empty slots say "NO DIMM" in the bank: the locator still names the channel. */
    {"Supermicro/SYS-4029GP-TRT2 (tests/fixtures)", "P2-DIMMD1", "NO DIMM", "P1-DIMMA1", 2, 3},
    {"Gigabyte Technology/C621/C621-WD12-IPMI/5E4783EDD64C", "P1_DIMM_C1", "NODE 1", "P1-DIMMA1", 1, 2},
    {"DEPO Computers/X8/X8DTU/0D6533604B8A", "P0_DIMM3B", "BANK11", "P1-DIMM1A", 0, 3},
    {"DEPO Computers/X8/X8DT3/81F58A958C06", "P1-2A", "BANK2", "P1-DIMM1A", 1, 2},
    {"DEPO Computers/X8/X8DT3/751F49BC6603", "P2-DIMM3A", "BANK10", "P1-DIMM1A", 2, 3},
    {"Gigabyte Technology/G482/G482-Z54-00/7CA16E0B16D7", "DIMM_P1_G1", "BANK 1", "DIMM_P0_A0", 1, 6},
    {"3Logic Group/Server/Server Graviton/1E34987A2608", "CPU1_DIMM_D1", "NODE 2", "CPU1_DIMM_A0", 1, 3},
    {"OEM/TG659/TG659V2/05D630AAC0F9", "CPU2 DIMM B1", "P1 CHANNEL B", "P0 CHANNEL A", 1, 1},
    {"Lenovo/4304E1U/4304E1U ThinkServer RD330/6F8A9549CD08", "CPU2_DimmA1", "CPU2_Bank0", "CPU1_DIMM_A0", 2, 0},
    {"Intel/BIRCHSTREAM/BIRCHSTREAM/1F03C9158405", "CPU0_DIMM_C", "BANK 2", "CPU1_DIMM_A0", 0, 2},
    {"ZTSYSTEMS/Z/Z801/2920EC336BF6", "CPU1_C0", "CPU1_Bank4", "CPU0_A0", 1, 2},
    {"Inspur/NF5280/NF5280M6/48E15DC00C22", "CPU1_C5D0", "NODE 6", "CPU0_C0D0", 1, 5},
    {"TYAN Computer/B7109/B7109F77DV14HR-2T-N/91971D0E7746", "P1_MC1_DIM_CH_E0", "NODE 2", "P0_MC0_DIM_CH_A0", 1,
     64 + 4},
    {"HUAWEI/1288H/1288H V5/96AA82145898", "DIMM141 J33", NULL, "DIMM000", 1, 4},
    /* Tyan S7012 (Xeon 5600): socket, channel letter, slot. */
    {"TYAN Computer/S/S7012/E4E1099CB0ED", "P1-ChA-DIMM0", "BANK06", "P0-ChA-DIMM0", 1, 0},
    /* Supermicro X8DA3: the X8 slot names as the BIOS writes them, the digit the channel. */
    {"Supermicro/X8/X8DA3/CC00F7DE0E2E", "NODE0-2B", "BANK3", "NODE0-1A", 0, 2},
    /* Socket only: the slot number is no channel. */
    {"Oracle/Sun/Sun Fire X4270 M3/3AEA7677F53C", "D7", "/SYS/MB/P0", "/SYS/MB/P0 (Oracle/Sun)", 0, -1},
    {"HPE/ProLiant/ProLiant BL460c Gen10/0D501A0F9103", "PROC 2 DIMM 3", NULL, "PROC 1 DIMM 3", 2, -1},
    {"Hewlett-Packard/ProLiant/ProLiant BL460c Gen8/1DB9D4472AA8", "PROC  2 DIMM  1", NULL, "PROC 1 DIMM 3", 2, -1},
    {"Hewlett-Packard/ProLiant/ProLiant BL460c G6/FA97A758D2C6", "PROC 1 DIMM 4B", NULL, "PROC 1 DIMM 3", 1, -1},
    {"Dell/Precision/Precision 7820 Tower/3792A2743A38", "DIMM2_CPU1", NULL, "DIMM1_CPU0", 1, -1},
    {"Lenovo/ThinkStation/ThinkStation P720 30BBS1PF00/41BFB52F3B1A", "CPU2_DIMM_3", "NODE 2", "CPU1_DIMM_3", 2, -1},
    {"Hewlett-Packard/Z6/Z6 G4 Workstation/2EFC95DF5773", "CPU0-DIMM4", "CPU0", "CPU1_DIMM_3", 0, -1},
    {"Lenovo/ThinkSystem/ThinkSystem SR530 -[7X08CTO1WW]-/16717DADAA79", "DIMM 10", "CPU 2", "DIMM 1 + CPU 1", 2, -1},
    /* Nothing proven: letters that run on across sockets, slot-only names, Dell's A1 (needs the vendor). */
    {"ASUSTek Computer/ESC4000/ESC4000 G4/E6BBA8966F48", "DIMM_G1", "NODE 3", NULL, -1, -1},
    {"IBM/System/System x -[79463AM]-/42AFC173F8EB", "DIMM03", "BANK03", NULL, -1, -1},
    {"Dell/PowerEdge/PowerEdge C4140/944FAD941A1D", "A1", NULL, NULL, -1, -1},
    {"Supermicro/SYS-4029GP-TRT2 (tests/fixtures)", "BIOS", "ROM0", NULL, -1, -1},
};

Test(locators, every_scheme_on_the_strings_boards_write)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct locator_case *c = &cases[i];
        int socket, channel;
        const char *scheme = memory_locator_scheme(c->locator, c->bank, &socket, &channel);
        if (!c->scheme) {
            cr_expect_null(scheme, "%s: '%s' / '%s' claimed by %s", c->report, c->locator, c->bank, scheme);
            continue;
        }
        cr_assert_not_null(scheme, "%s: '%s' / '%s' unmatched", c->report, c->locator, c->bank);
        cr_expect_str_eq(scheme, c->scheme, "%s: '%s'", c->report, c->locator);
        cr_expect_eq(socket, c->socket, "%s: '%s' socket %d", c->report, c->locator, socket);
        cr_expect_eq(channel, c->channel, "%s: '%s' channel %d", c->report, c->locator, channel);
    }
}

/* Board slot maps (data/board-slot-maps.csv) on strings copied from linuxhw/DMI reports: the model
 * from SMBIOS type 1 selects the row, the slot number the channel (index in the row's order). */
struct slot_case {
    const char *report, *vendor, *product, *locator, *bank;
    int socket, channel; /* -1: the map must not place it */
};

static const struct slot_case slot_cases[] = {
    /* DL380 G7 guide: slots 1-3 channel 1, 4-6 channel 2, 7-9 channel 3; the population letter follows. */
    {"Hewlett-Packard/ProLiant/ProLiant DL380 G7/251402BD003A", "HP", "ProLiant DL380 G7", "PROC 2 DIMM 9C", NULL, 2, 2},
    {"Hewlett-Packard/ProLiant/ProLiant DL380 G7/251402BD003A", "HP", "ProLiant DL380 G7", "PROC 1 DIMM 3A", NULL, 1, 0},
    /* DL380 G6 guide: the same three groups of three; slot 4H opens channel 2. The DL360 G6 and G7,
     * whose locators look alike, have no row: their own guides' tables were not read. */
    {"Hewlett-Packard/ProLiant/ProLiant DL380 G6/F03052EFB871", "HP", "ProLiant DL380 G6", "PROC 2 DIMM 4H",
     NULL, 2, 1},
    {"Hewlett-Packard/ProLiant/ProLiant DL380 G6/F03052EFB871", "HP", "ProLiant DL380 G6", "PROC 1 DIMM 7I",
     NULL, 1, 2},
    {"Hewlett-Packard/ProLiant/ProLiant DL360 G7/BE425EE16F85", "HP", "ProLiant DL360 G7", "PROC 1 DIMM 3A",
     NULL, -1, -1},
    {"Hewlett-Packard/ProLiant/ProLiant DL360 G6/442D4ED2B444", "HP", "ProLiant DL360 G6", "PROC 1 DIMM 3",
     NULL, -1, -1},
    /* DL360e Gen8 guide: slots 1-2, 3-4, 5-6; the BIOS pads with spaces. */
    {"Hewlett-Packard/ProLiant/ProLiant DL360e Gen8/D7898082F347", "HP", "ProLiant DL360e Gen8", "PROC  1 DIMM  2 ",
     NULL, 1, 0},
    {"Hewlett-Packard/ProLiant/ProLiant DL360e Gen8/D7898082F347", "HP", "ProLiant DL360e Gen8", "PROC  2 DIMM  5 ",
     NULL, 2, 2},
    /* SR650 V2 manual: slot 1 B, 3 A, 14 E; CPU 2's slot 30 is slot 14's twin (E). */
    {"Lenovo/ThinkSystem/ThinkSystem SR650 V2/7AC016764E14", "Lenovo", "ThinkSystem SR650 V2", "DIMM 1", "CPU 1", 1, 0},
    {"Lenovo/ThinkSystem/ThinkSystem SR650 V2/7AC016764E14", "Lenovo", "ThinkSystem SR650 V2", "DIMM 3", "CPU 1", 1, 1},
    {"Lenovo/ThinkSystem/ThinkSystem SR650 V2/7AC016764E14", "Lenovo", "ThinkSystem SR650 V2", "DIMM 30", "CPU 2", 2,
     6},
    /* SR570 rules table: DIMM 3 and 4 share iMC0 CH0 (channel 2 in the row's order). */
    {"Lenovo/ThinkSystem/ThinkSystem SR570 -[7Y03CTO1WW]-/6E047AAB3D39", "Lenovo", "ThinkSystem SR570 -[7Y03CTO1WW]-",
     "DIMM 3", "CPU 1", 1, 2},
    /* x3550 M3 manual, Table 11: DIMM01-03 channel 0, 04-06 channel 1, 07-09 channel 2 on CPU 1;
     * 10-18 the same on CPU 2. The bank locator ("BANK12") names no processor. */
    {"IBM/System x/System x3550 M3 -[2145CG8]-/2557A5FB1E15", "IBM", "System x3550 M3 -[2145CG8]-", "DIMM02",
     "BANK02", 1, 0},
    {"IBM/System x/System x3550 M3 -[2145CG8]-/2557A5FB1E15", "IBM", "System x3550 M3 -[2145CG8]-", "DIMM09",
     "BANK09", 1, 2},
    {"IBM/System x/System x3550 M3 -[2145CG8]-/2557A5FB1E15", "IBM", "System x3550 M3 -[2145CG8]-", "DIMM12",
     "BANK12", 2, 0},
    {"IBM/System x/System x3550 M3 -[2145CG8]-/2557A5FB1E15", "IBM", "System x3550 M3 -[2145CG8]-", "DIMM15",
     "BANK15", 2, 1},
    /* A locator of another form, and the x3650 M3, which has no row (its guide was not read). */
    {"IBM/System x/System x3550 M3 -[2145CG8]-/2557A5FB1E15", "IBM", "System x3550 M3 -[2145CG8]-", "PROC 1 DIMM 2",
     NULL, -1, -1},
    {"IBM/System x/System x3650 M3 -[794522U]-", "IBM", "System x3650 M3 -[794522U]-", "DIMM01", "BANK01", -1, -1},
    /* A slot the map lacks, and a model without a row (DL380p Gen8: no guide read), place nothing. */
    {"Hewlett-Packard/ProLiant/ProLiant DL360e Gen8/D7898082F347", "HP", "ProLiant DL360e Gen8", "PROC  1 DIMM  7 ",
     NULL, -1, -1},
    {"Hewlett-Packard/ProLiant/ProLiant DL380p Gen8/04C0E4BFF77E", "HP", "ProLiant DL380p Gen8", "PROC  1 DIMM  1 ",
     NULL, -1, -1},
};

Test(locators, board_slot_maps_on_the_strings_boards_write)
{
    for (size_t i = 0; i < sizeof slot_cases / sizeof slot_cases[0]; i++) {
        const struct slot_case *c = &slot_cases[i];
        struct machine m;
        machine_init(&m);
        struct board_slot_map map;
        bool found = board_slot_map_find(&m, c->vendor, c->product, &map);
        int socket = -1, channel = -1;
        bool placed = found && board_slot_map_place(&map, c->locator, c->bank, &socket, &channel);
        cr_expect_eq(m.nproblems, 0, "%s: the table has a broken row", c->report);
        if (c->socket < 0) {
            cr_expect(!placed, "%s: '%s' placed on %d/%d", c->report, c->locator, socket, channel);
        } else {
            cr_assert(placed, "%s: '%s' not placed", c->report, c->locator);
            cr_expect_eq(socket, c->socket, "%s: '%s' socket %d", c->report, c->locator, socket);
            cr_expect_eq(channel, c->channel, "%s: '%s' channel %d", c->report, c->locator, channel);
            cr_expect(strstr(map.scheme, "slot map: "), "%s", map.scheme);
        }
        board_slot_map_free(&map);
        machine_free(&m);
    }
}

/* A broken row is reported with its file and line, whatever the machine. */
Test(locators, a_broken_slot_map_row_names_its_line)
{
    char dir[] = "/tmp/gpuvet-slots-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/board-slot-maps.csv", dir);
    FILE *out = fopen(path, "w");
    cr_assert_not_null(out);
    fputs("# name,vendor_regex,product_regex,scheme,channels,slot_channels,document,source\n"
          "Two channels named three,^HP$,^X$,proc-dimm,2,1;2;3,Guide,https://example.org/\n"
          "Unknown scheme,^HP$,^Y$,slot-letter,2,1;2,Guide,https://example.org/\n"
          /* a comma inside the document title splits it: one field too many, not a longer source */
          "Comma in the title,^HP$,^ProLiant DL380 G7$,proc-dimm,2,1;2,Guide, page 3,https://example.org/\n",
          out);
    fclose(out);
    setenv("GPUVET_DATA_DIR", dir, 1);
    struct machine m;
    machine_init(&m);
    struct board_slot_map map;
    cr_expect(!board_slot_map_find(&m, "HP", "ProLiant DL380 G7", &map));
    unsetenv("GPUVET_DATA_DIR");
    cr_assert_eq(m.nproblems, 3);
    cr_expect(strstr(m.problems[0].message, "line 2: slot_channels must name as many channels"), "%s",
              m.problems[0].message);
    cr_expect(strstr(m.problems[1].message, "line 3: scheme must be"), "%s", m.problems[1].message);
    cr_expect(strstr(m.problems[2].message, "line 4: 9 fields, expected 8"), "%s", m.problems[2].message);
    cr_expect(strstr(m.problems[2].path, "board-slot-maps.csv"), "%s", m.problems[2].path);
    board_slot_map_free(&map);
    machine_free(&m);
    unlink(path);
    rmdir(dir);
}
