/* The data tables' row checkers, by file name: gpuvet checks every table with them before a command
 * runs (util/datadir.h), so a broken row stops it with FILE:LINE instead of turning facts unknown. */
#include "probe/probe.h"
#include "util/datadir.h"
#include "util/gputable.h"

const struct data_table_checks data_table_checkers[] = {
    {"gpus.csv", gpu_table_check},
    {"cpu-platforms.csv", cpu_platform_table_check},
    {"board-slot-maps.csv", board_slot_table_check},
    {"xid-codes.csv", xid_table_check},
};
const int data_table_checkers_count = (int)(sizeof data_table_checkers / sizeof data_table_checkers[0]);

int probe_data_tables_check(char *err, size_t errlen)
{
    return data_tables_check(data_table_checkers, data_table_checkers_count, err, errlen);
}
