/* What the kernel log says about the GPUs since the current boot (probe/kernel_log.c fills it,
 * rules/gpu_faults.c judges it): the NVIDIA driver's Xid lines, NVSwitch SXid lines, "fallen off
 * the bus", failed probes and initialisations, "reset required" and GSP errors. Lines of one kind,
 * GPU and code are counted in one event, with the first and last time the log gave. */
#ifndef GPUVET_MODEL_KERNEL_LOG_H
#define GPUVET_MODEL_KERNEL_LOG_H

#include <stdbool.h>

#include "model/faults.h"

enum klog_kind {
    KLOG_XID,            /* NVRM: Xid (PCI:...): N, ... */
    KLOG_SXID,           /* nvidia-nvswitchN: SXid (PCI:...): N, Fatal|Non-fatal, ... */
    KLOG_FALLEN_OFF_BUS, /* "... has fallen off the bus" without an Xid 79 on the line */
    KLOG_INIT_FAILED,    /* RmInitAdapter failed, rm_init_adapter failed */
    KLOG_PROBE_FAILED,   /* nvidia: probe of BDF failed; NVRM: The NVIDIA probe routine failed */
    KLOG_RESET_REQUIRED, /* a driver line that says the GPU needs a reset */
    KLOG_GSP_ERROR,      /* GSP firmware errors outside an Xid line */
    KLOG_UNSUPPORTED,    /* the open kernel module refuses a GPU without GSP ("not supported by open nvidia.ko") */
    KLOG_NVLINK_FAILED,  /* NVLink discovery failed: "postRxDetLinkMask failed", "Failed to update Rx Detect Link mask" */
    KLOG_DRIVER_ERROR,   /* a driver line naming an error (NV_ERR_*, failed, error, assertion) no pattern knows */
};

/* How an event weighs, by NVIDIA's catalogue (data/xid-codes.csv) or an override. */
enum klog_class {
    KLOG_CLASS_FAULT,    /* hardware or driver fault: the GPU is not usable as delivered */
    KLOG_CLASS_APP,      /* caused by the application (or informational): the job's bug */
    KLOG_CLASS_UNLISTED, /* an Xid the table does not know */
    KLOG_CLASS_IGNORED,  /* --xid-ignore */
    KLOG_CLASS_WARN,     /* a fault the GPU keeps working through (a non-fatal NVLink Xid or SXid, a code
                          * the catalogue lists as unused): warn, never drain */
};

#define KLOG_MAX_EVENTS 256   /* distinct (kind, GPU, code); more are counted, not kept */
#define KLOG_TEXT_MAX 240     /* the first line's text kept, in bytes */

struct klog_event {
    enum klog_kind kind;
    enum klog_class klass;
    const char *class_source; /* "catalogue", "--xid-fatal", "--xid-ignore", "SXid severity", "driver message" */
    char bus_id[32];          /* sysfs form; "" when the line names none */
    int code;                 /* the Xid or SXid; -1 for the other kinds */
    char *meaning;            /* the catalogue's description; NULL when none */
    char *action;             /* the catalogue's action in words; NULL when none */
    char *text;               /* the first line's message (sanitised, cut at KLOG_TEXT_MAX) */
    char *process;            /* "pid=123, name=python" when the Xid line named one; NULL */
    long count;
    char first_time[40], last_time[40]; /* as the log wrote them ("[ 12.345678]" without brackets) */
};

#define KLOG_MAX_AER 64        /* distinct (function, severity) AER records kept; more are counted */

/* The kernel's PCIe AER report of one function at one severity: "pcieport 0000:00:02.0: [AER: ]PCIe
 * Bus Error: severity=Uncorrected (Fatal), type=..." (drivers/pci/pcie/aer.c; 6.x writes
 * "Correctable" and "Uncorrectable (Non-Fatal)"), counted per line. One "Multiple ... error
 * received" stands for several errors and recent kernels rate-limit these lines: a count is a
 * lower bound. */
struct klog_aer {
    char bus_id[32];          /* the function whose error status the line printed (sysfs form) */
    char driver[24];          /* the name the line starts with: "pcieport", "nvidia", "nvme" */
    int severity;             /* AER_CORRECTABLE, AER_NONFATAL or AER_FATAL (model/faults.h) */
    long count;
    char first_time[40], last_time[40];
    char *text;               /* the first line's message (sanitised) */
    char errors[128];         /* the error bits the lines after it name ("Surprise Down Error, BadTLP") */
    char gpu_below[32];       /* an NVIDIA function the kernel's recovery of this error named next
                               * ("nvidia 0000:02:00.0: device has no AER-aware driver"); "" none */
};

struct kernel_log_info {
    bool read;             /* a log was read (the events below are the current boot's) */
    char *source;          /* "/dev/kmsg", the --kernel-log FILE, or the recorded file's path */
    char *format;          /* "kmsg", "dmesg", "dmesg -T", "journalctl", "syslog", "mixed", "unknown" */
    char *unknown_reason;  /* why no log could be read; NULL when read */
    long long lines, bytes;
    int boots;             /* boot boundaries seen (the last one's events are kept) */
    long lines_too_long;   /* lines over the reader's cap, skipped */
    bool truncated;        /* stopped at the byte or time bound: the events are of what was read */
    long events_dropped;   /* lines of events not kept (beyond KLOG_MAX_EVENTS; application events
                            * make way for faults) */
    long fault_events_dropped; /* of them, lines of faults: the table held only faults */
    struct klog_event *events;
    int nevents;
    struct klog_aer *aer;  /* the current boot's AER lines */
    int naer;
    long aer_dropped;      /* AER lines beyond KLOG_MAX_AER records */
    double last_seconds;   /* the current boot's last kernel timestamp (seconds since boot); -1 none */
    /* GPU board serial numbers the driver's lines name ("GPU Board Serial Number: N"), for
     * `snapshot --redact` to remove from the recorded log: a GPU that fell off the bus is in no
     * other list. */
    char serials[16][40];
    int nserials;
};

void kernel_log_init(struct kernel_log_info *k);
void kernel_log_free(struct kernel_log_info *k);
/* Drops the events and AER records gathered so far (a new boot began in the log). */
void kernel_log_clear_events(struct kernel_log_info *k);
/* "xid", "sxid", "fallen_off_bus", ...: the JSON's words. */
const char *klog_kind_name(enum klog_kind kind);
/* "correctable", "nonfatal", "fatal": the JSON's words for an AER severity. */
const char *klog_aer_severity_name(int severity);
/* "fault", "application", "unlisted", "ignored". */
const char *klog_class_name(enum klog_class klass);

#endif
