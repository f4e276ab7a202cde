#include "model/kernel_log.h"

#include <stdlib.h>
#include <string.h>

void kernel_log_init(struct kernel_log_info *k)
{
    memset(k, 0, sizeof *k);
    k->last_seconds = -1;
}

void kernel_log_clear_events(struct kernel_log_info *k)
{
    for (int i = 0; i < k->nevents; i++) {
        free(k->events[i].meaning);
        free(k->events[i].action);
        free(k->events[i].text);
        free(k->events[i].process);
    }
    free(k->events);
    k->events = NULL;
    k->nevents = 0;
    k->events_dropped = 0;
    k->fault_events_dropped = 0;
    for (int i = 0; i < k->naer; i++)
        free(k->aer[i].text);
    free(k->aer);
    k->aer = NULL;
    k->naer = 0;
    k->aer_dropped = 0;
    k->last_seconds = -1;
}

void kernel_log_free(struct kernel_log_info *k)
{
    kernel_log_clear_events(k);
    free(k->source);
    free(k->format);
    free(k->unknown_reason);
    kernel_log_init(k);
}

const char *klog_kind_name(enum klog_kind kind)
{
    switch (kind) {
    case KLOG_XID: return "xid";
    case KLOG_SXID: return "sxid";
    case KLOG_FALLEN_OFF_BUS: return "fallen_off_bus";
    case KLOG_INIT_FAILED: return "init_failed";
    case KLOG_PROBE_FAILED: return "probe_failed";
    case KLOG_RESET_REQUIRED: return "reset_required";
    case KLOG_GSP_ERROR: return "gsp_error";
    case KLOG_UNSUPPORTED: return "unsupported_by_driver";
    case KLOG_NVLINK_FAILED: return "nvlink_failed";
    case KLOG_DRIVER_ERROR: return "driver_error";
    }
    return "?";
}

const char *klog_aer_severity_name(int severity)
{
    switch (severity) {
    case AER_CORRECTABLE: return "correctable";
    case AER_NONFATAL: return "nonfatal";
    case AER_FATAL: return "fatal";
    }
    return "?";
}

const char *klog_class_name(enum klog_class klass)
{
    switch (klass) {
    case KLOG_CLASS_FAULT: return "fault";
    case KLOG_CLASS_APP: return "application";
    case KLOG_CLASS_UNLISTED: return "unlisted";
    case KLOG_CLASS_IGNORED: return "ignored";
    case KLOG_CLASS_WARN: return "warn";
    }
    return "?";
}
