#include "model/faults.h"

#include <stdlib.h>
#include <string.h>

void fault_info_init(struct fault_info *f)
{
    memset(f, 0, sizeof *f);
    f->uptime_s = -1;
    f->nvswitches = -1;
    f->fabric_manager = -1;
    f->peermem = -1;
    f->nvidia_open = -1;
}

void fault_info_free(struct fault_info *f)
{
    for (int i = 0; i < f->naer; i++)
        for (int k = 0; k < AER_KINDS; k++)
            free(f->aer[i].nonzero[k]);
    free(f->aer);
    free(f->ib);
    for (int i = 0; i < f->nacs; i++)
        free(f->acs[i].unknown_reason);
    free(f->acs);
    free(f->peermem_module);
    free(f->peermem_failure);
    fault_info_init(f);
}

const char *ib_counter_name(int counter)
{
    static const char *const names[IB_COUNTERS] = {
        [IB_SYMBOL_ERROR] = "symbol_error",
        [IB_LINK_ERROR_RECOVERY] = "link_error_recovery",
        [IB_LINK_DOWNED] = "link_downed",
        [IB_PORT_RCV_ERRORS] = "port_rcv_errors",
        [IB_PORT_RCV_REMOTE_PHYSICAL_ERRORS] = "port_rcv_remote_physical_errors",
        [IB_LOCAL_LINK_INTEGRITY_ERRORS] = "local_link_integrity_errors",
        [IB_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = "excessive_buffer_overrun_errors",
        [IB_PORT_XMIT_DISCARDS] = "port_xmit_discards",
    };
    return counter >= 0 && counter < IB_COUNTERS ? names[counter] : "?";
}

const char *aer_kind_name(int kind)
{
    static const char *const names[AER_KINDS] = {"TOTAL_ERR_COR", "TOTAL_ERR_NONFATAL", "TOTAL_ERR_FATAL"};
    return kind >= 0 && kind < AER_KINDS ? names[kind] : "?";
}
