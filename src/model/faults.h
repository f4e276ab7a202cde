/* Faults the hardware counted beside the GPUs' own: the NVSwitch fabric's manager, PCIe AER
 * counters of the GPUs and the ports above them, InfiniBand/RoCE port error counters, and what
 * GPUDirect RDMA needs (the peer-memory module, ACS on the switches between a GPU and its NIC).
 * Every count is -1 when it was not read; tristates are -1 unknown, 0 no, 1 yes. */
#ifndef GPUVET_MODEL_FAULTS_H
#define GPUVET_MODEL_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

/* The AER counters one PCI function keeps (aer_dev_correctable, _nonfatal, _fatal in sysfs). */
enum { AER_CORRECTABLE, AER_NONFATAL, AER_FATAL, AER_KINDS };

struct aer_counts {
    char bus_id[32];
    char of_gpu[32];        /* the GPU this function is, or sits above */
    bool is_gpu;            /* the GPU itself, not a port on its path */
    int64_t total[AER_KINDS]; /* TOTAL_ERR_COR / _NONFATAL / _FATAL; -1 not read */
    char *nonzero[AER_KINDS]; /* "RxErr 3, BadTLP 1": the named counters above zero; NULL none */
};

/* One InfiniBand/RoCE port's error counters (/sys/class/infiniband/DEV/ports/N/counters). */
enum {
    IB_SYMBOL_ERROR,
    IB_LINK_ERROR_RECOVERY,
    IB_LINK_DOWNED,
    IB_PORT_RCV_ERRORS,
    IB_PORT_RCV_REMOTE_PHYSICAL_ERRORS,
    IB_LOCAL_LINK_INTEGRITY_ERRORS,
    IB_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
    IB_PORT_XMIT_DISCARDS,
    IB_COUNTERS
};

struct ib_port_errors {
    char device[64];        /* "mlx5_0" */
    int port;
    int64_t counters[IB_COUNTERS]; /* -1 not read */
};

/* The PCIe ACS state of a switch port between a GPU and an RDMA NIC. */
struct acs_port {
    char bus_id[32];
    char gpu[32], nic[32];  /* the pair whose path runs through it */
    int redirect;           /* tristate: P2P request or completion redirect, or egress control, on */
    char *unknown_reason;   /* why the state is unknown (config space not readable); NULL when known */
};

struct fault_info {
    double uptime_s;        /* /proc/uptime when the counters were read; -1 unknown */
    /* NVSwitch fabric: PCI functions of NVIDIA's bridge class (0x0680), -1 when the bus was not read. */
    int nvswitches;
    int fabric_manager;     /* tristate: an nv-fabricmanager process runs */
    const char *fabric_manager_unknown; /* why it is unknown (static English); NULL when known */
    bool fabric_manager_by_name;  /* running judged by the process name alone: its /proc/PID/exe unreadable */
    char fabric_manager_not_real[160]; /* a process by that name that is not the real one: why; "" none */
    bool aer_read;          /* the GPUs' sysfs entries were looked at */
    struct aer_counts *aer;
    int naer;
    struct ib_port_errors *ib;
    int nib;
    bool gpudirect_probed;  /* NVIDIA GPUs and RDMA NICs both exist: the two facts below were looked for */
    int peermem;            /* tristate: nvidia_peermem (or the older nv_peer_mem) loaded */
    char *peermem_module;   /* which one; NULL none or unknown */
    const char *peermem_missing; /* peermem unknown: why /proc/modules is absent (static English) */
    char *peermem_failure;  /* or the file is there and unreadable: fs_last_failure's words, owned */
    int nvidia_open;        /* tristate: the NVIDIA kernel module is the open one (/proc/driver/nvidia/version) */
    struct acs_port *acs;
    int nacs;
};

void fault_info_init(struct fault_info *f);
void fault_info_free(struct fault_info *f);

/* sysfs names of the counters, in enum order ("symbol_error", ...; "TOTAL_ERR_COR", ...). */
const char *ib_counter_name(int counter);
const char *aer_kind_name(int kind);

#endif
