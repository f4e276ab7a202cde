/* The kernel log's GPU lines and PCIe AER reports (model/kernel_log.h): the live ring buffer
 * (/dev/kmsg, read without blocking), a recorded tree's KERNEL_LOG_SNAPSHOT_FILE, or a saved log
 * (`--kernel-log FILE`: plain `dmesg`, `dmesg -T`, `dmesg -x`, `dmesg -r`, `dmesg --reltime`,
 * `journalctl -k` in its short, short-iso and
 * short-precise forms, syslog files with host names), told apart line by line by their prefix.
 * Only the last boot in the log counts: the kernel's own first line ("Linux version RELEASE (" at
 * time 0), journalctl's "-- Boot ID --" markers and a kernel timestamp that goes back start a new
 * one. Only the driver's own lines count (NVRM:, nvidia, nvidia-nvswitchN: as the message's start),
 * never a process's or a file's name that another message prints. The log is streamed: memory stays
 * bounded by the events kept (KLOG_MAX_EVENTS), time and bytes by KLOG_TIME_MAX_S and KLOG_BYTES_MAX.
 * Codes are classified by data/xid-codes.csv (NVIDIA's Xid catalogue) and the overrides. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe.h"
#include "util/datadir.h"
#include "util/fsrecord.h"
#include "util/fsroot.h"
#include "util/inputfile.h"
#include "util/i18n.h"
#include "util/pciaddr.h"

#define XID_TABLE "xid-codes.csv"
#define XID_FIELDS 5
#define KLOG_LINE_MAX 16384                    /* longer lines are skipped, counted */
#define KLOG_BYTES_MAX (8ULL << 30)           /* a saved log: its last 8 GiB */
#define KLOG_TIME_MAX_S 60.0                  /* and for at most a minute */
#define KMSG_BYTES_MAX (64u << 20)            /* the ring buffer is far smaller (log_buf_len) */
#define KMSG_TIME_MAX_S 5.0
#define KLOG_RECORD_MAX (32u << 20)           /* a snapshot keeps at most this much of the last boot */
#define RECENT_LINES 4                        /* a multi-line message names its GPU this close */

/* --- the catalogue ------------------------------------------------------------------------------- */

struct xid_row {
    int code;
    enum klog_class klass;
    char *action, *description;
};

struct xid_table {
    struct xid_row *rows;
    int count;
};

static bool code_in(const unsigned char *set, int code)
{
    return code >= 0 && code <= XID_CODE_MAX && (set[code / 8] >> (code % 8)) & 1;
}

bool xid_list_parse(const char *list, unsigned char set[XID_SET_BYTES])
{
    const char *p = list;
    if (!*p)
        return false;
    while (*p) {
        if (!isdigit((unsigned char)*p))
            return false;
        char *end;
        errno = 0;
        long code = strtol(p, &end, 10);
        if (errno || code < 0 || code > XID_CODE_MAX)
            return false;
        set[code / 8] |= (unsigned char)(1u << (code % 8));
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return false;
    }
    return true;
}

/* The row's problem (an N_() text) or NULL. */
static const char *row_problem(char **f, struct xid_row *out)
{
    char *end;
    errno = 0;
    long code = strtol(f[0], &end, 10);
    if (!*f[0] || *end || errno || code < 0 || code > XID_CODE_MAX)
        return N_("the code is not a number from 0 to 1023");
    if (!strcmp(f[1], "fault"))
        out->klass = KLOG_CLASS_FAULT;
    else if (!strcmp(f[1], "app"))
        out->klass = KLOG_CLASS_APP;
    else if (!strcmp(f[1], "warn"))
        out->klass = KLOG_CLASS_WARN;
    else
        return N_("the class is neither `fault`, `warn` nor `app`");
    if (!*f[2] || !*f[3] || !*f[4])
        return N_("the action, description and source must not be empty");
    out->code = (int)code;
    return NULL;
}

int xid_table_check(FILE *f, const char *label, char *err, size_t errlen)
{
    struct line_reader r;
    line_reader_init(&r, f, label, TEXT_LINE_MAX);
    char *fields[XID_FIELDS];
    int n, rc = 0;
    bool header = true;
    while (rc == 0 && (n = data_row_next(&r, fields, XID_FIELDS, err, errlen)) > 0) {
        if (header && n >= 1 && !strcmp(fields[0], "code")) {
            header = false;
            continue;
        }
        struct xid_row row;
        rc = data_row_error(label, r.number, n, XID_FIELDS, n == XID_FIELDS ? row_problem(fields, &row) : NULL, err,
                            errlen);
    }
    line_reader_free(&r);
    fclose(f);
    return rc == 0 && n == 0 ? 0 : -1;
}

static void xid_table_load(struct machine *m, struct xid_table *t)
{
    memset(t, 0, sizeof *t);
    char label[PATH_MAX];
    FILE *f = data_open(XID_TABLE, label, sizeof label);
    if (!f) { /* only when a --data folder lacks it: checked at start */
        machine_problem(m, label, "cannot be opened: Xid codes unclassified");
        return;
    }
    struct line_reader r;
    line_reader_init(&r, f, label, TEXT_LINE_MAX);
    char *fields[XID_FIELDS], err[PATH_MAX + 128];
    int n;
    while ((n = data_row_next(&r, fields, XID_FIELDS, err, sizeof err)) > 0) {
        struct xid_row row;
        if (n == XID_FIELDS && !strcmp(fields[0], "code"))
            continue;
        if (n != XID_FIELDS || row_problem(fields, &row))
            continue; /* the start-up check refused such a table already */
        struct xid_row *grown = realloc(t->rows, (size_t)(t->count + 1) * sizeof *grown);
        if (!grown)
            break;
        t->rows = grown;
        row.action = strdup(fields[2]);
        row.description = strdup(fields[3]);
        t->rows[t->count++] = row;
    }
    line_reader_free(&r);
    fclose(f);
}

static void xid_table_free(struct xid_table *t)
{
    for (int i = 0; i < t->count; i++) {
        free(t->rows[i].action);
        free(t->rows[i].description);
    }
    free(t->rows);
}

static const struct xid_row *xid_row_find(const struct xid_table *t, int code)
{
    for (int i = 0; i < t->count; i++)
        if (t->rows[i].code == code)
            return &t->rows[i];
    return NULL;
}

/* --- one log ---------------------------------------------------------------------------------------- */

struct parser {
    struct machine *m;
    struct kernel_log_info *k;
    struct xid_table table;
    const struct xid_overrides *xid; /* the request's --xid-fatal, --xid-ignore; NULL none */
    double last_mono;       /* the last kernel timestamp, seconds since boot; < 0 none yet */
    char recent_bus[32];    /* the GPU the last driver line named, for messages over several lines */
    char recent_when[40];   /* the last line's time: dmesg indents a message's further lines without one */
    long long recent_line;
    unsigned formats;       /* FMT_* bits seen */
    long long driver_lines; /* the driver's lines and the kernel's AER lines: evidence without a stamp */
    int aer_recent;         /* the AER record the last "PCIe Bus Error" line counted; -1 none */
    long long aer_line;     /* the line it was on */
    char *record;           /* the current boot's lines, kept for a snapshot (NULL when not recording) */
    size_t record_len, record_cap;
    bool record_full;
};

enum { FMT_KMSG = 1, FMT_DMESG = 2, FMT_DMESG_T = 4, FMT_JOURNAL = 8, FMT_SYSLOG = 16, FMT_DMESG_ISO = 32,
       FMT_DMESG_REL = 64 };

static void record_line(struct parser *p, const char *line, size_t len)
{
    if (!p->record || p->record_full)
        return;
    if (p->record_len + len + 2 > KLOG_RECORD_MAX) {
        p->record_full = true;
        return;
    }
    if (p->record_len + len + 2 > p->record_cap) {
        size_t cap = p->record_cap ? p->record_cap : 1 << 16;
        while (cap < p->record_len + len + 2)
            cap *= 2;
        char *grown = realloc(p->record, cap);
        if (!grown) {
            p->record_full = true;
            return;
        }
        p->record = grown;
        p->record_cap = cap;
    }
    memcpy(p->record + p->record_len, line, len);
    p->record_len += len;
    p->record[p->record_len++] = '\n';
    p->record[p->record_len] = '\0';
}

static void new_boot(struct parser *p)
{
    p->k->boots++;
    kernel_log_clear_events(p->k);
    p->recent_bus[0] = '\0';
    p->last_mono = -1;
    p->aer_recent = -1;
    p->record_len = 0;
    p->record_full = false;
    if (p->record)
        p->record[0] = '\0';
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "[  12.345678]": the seconds; false when the brackets hold something else (dmesg -T's date). */
static bool mono_seconds(const char *s, size_t n, double *out)
{
    while (n > 0 && *s == ' ')
        s++, n--;
    if (n == 0 || n > 24 || !isdigit((unsigned char)*s))
        return false;
    char buf[32];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (*end || v < 0)
        return false;
    *out = v;
    return true;
}

static void set_time(char out[40], const char *s, size_t n)
{
    while (n > 0 && *s == ' ')
        s++, n--;
    if (n > 39)
        n = 39;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* "Dec  1 12:34:56" or "Dec 01 12:34:56.123456" (syslog, journalctl short and short-precise), the
 * month in the locale's word ("Dez", "déc.", "dic", "12月"): its length. */
static size_t syslog_time_length(const char *s)
{
    size_t m = 0;
    bool letter = false;
    for (; m < 16 && s[m] && s[m] != ' '; m++) {
        unsigned char c = (unsigned char)s[m];
        if (c >= 0x80 || isalpha(c))
            letter = true;
        else if (!isdigit(c) && c != '.')
            return 0;
    }
    if (!letter || m == 0 || s[m] != ' ')
        return 0;
    const char *d = s + m; /* " 1 12:34:56" or " 01 12:34:56" after the month */
    if (!(d[1] == ' ' || isdigit((unsigned char)d[1])) || !isdigit((unsigned char)d[2]) || d[3] != ' ')
        return 0;
    const char *t = d + 4;
    if (!(isdigit((unsigned char)t[0]) && isdigit((unsigned char)t[1]) && t[2] == ':' && isdigit((unsigned char)t[3]) &&
          isdigit((unsigned char)t[4]) && t[5] == ':' && isdigit((unsigned char)t[6]) && isdigit((unsigned char)t[7])))
        return 0;
    size_t n = m + 12;
    if (s[n] == '.')
        for (n++; isdigit((unsigned char)s[n]); n++)
            ;
    return s[n] == ' ' ? n : 0;
}

/* "2026-12-01T12:34:56..." (journalctl short-iso, RFC 3339 syslog, dmesg --time-format iso): its length. */
static size_t iso_time_length(const char *s)
{
    if (!(all_digits(s, 4) && s[4] == '-' && all_digits(s + 5, 2) && s[7] == '-' && all_digits(s + 8, 2) && s[10] == 'T'))
        return 0;
    size_t n = 11;
    while (s[n] && s[n] != ' ')
        n++;
    return s[n] == ' ' && n < 40 ? n : 0;
}

/* After a wall-clock time: "HOST TAG: message" (syslog, journalctl) or the message itself (dmesg's
 * iso form has no host). Returns the message, or NULL for a line of another program than the kernel. */
static const char *after_host(const char *s, bool *journal)
{
    const char *host_end = strchr(s, ' ');
    *journal = false;
    if (!host_end || host_end == s || host_end[-1] == ':')
        return s; /* no host: the message */
    const char *tag = host_end + 1, *tag_end = strchr(tag, ' ');
    if (!tag_end || tag_end == tag || tag_end[-1] != ':')
        return s;
    *journal = true;
    size_t n = (size_t)(tag_end - tag - 1);
    const char *bracket = memchr(tag, '[', n);
    if (bracket)
        n = (size_t)(bracket - tag);
    if (n == 6 && !strncmp(tag, "kernel", 6))
        return tag_end + 1;
    return NULL;
}

/* Whether text names a PCI function ("0000:3b:00.0", or nvidia's "0000:3b:00" without the
 * function) at s: its sysfs form in out. */
static bool bus_id_at(const char *s, char out[32])
{
    size_t d = 0;
    while (d < 8 && isxdigit((unsigned char)s[d]))
        d++;
    if (d < 4 || s[d] != ':' || !isxdigit((unsigned char)s[d + 1]) || !isxdigit((unsigned char)s[d + 2]) ||
        s[d + 3] != ':' || !isxdigit((unsigned char)s[d + 4]) || !isxdigit((unsigned char)s[d + 5]))
        return false;
    char text[PCI_ADDRESS_LEN + 4];
    size_t n = d + 6;
    if (s[n] == '.' && s[n + 1] >= '0' && s[n + 1] <= '7')
        snprintf(text, sizeof text, "%.*s", (int)(n + 2), s);
    else
        snprintf(text, sizeof text, "%.*s.0", (int)n, s);
    char norm[PCI_ADDRESS_LEN];
    if (!pci_address_normalise(text, norm))
        return false;
    snprintf(out, 32, "%s", norm);
    return true;
}

static bool find_bus_id(const char *msg, char out[32])
{
    for (const char *s = msg; *s; s++)
        if ((s == msg || !isxdigit((unsigned char)s[-1])) && bus_id_at(s, out))
            return true;
    return false;
}

/* Message text kept for the reports: printable ASCII only (kernel messages are ASCII; anything else
 * is a stray byte), cut at KLOG_TEXT_MAX. */
static char *clean_text(const char *s)
{
    size_t n = strlen(s);
    if (n > KLOG_TEXT_MAX)
        n = KLOG_TEXT_MAX;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '.'))
        n--;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
    out[n] = '\0';
    return out;
}

static void add_event(struct parser *p, enum klog_kind kind, enum klog_class klass, const char *class_source,
                      const char *bus_id, int code, const char *text, const char *process, const char *when)
{
    struct kernel_log_info *k = p->k;
    for (int i = 0; i < k->nevents; i++) {
        struct klog_event *e = &k->events[i];
        if (e->kind == kind && e->code == code && e->klass == klass && !strcmp(e->bus_id, bus_id)) {
            e->count++;
            snprintf(e->last_time, sizeof e->last_time, "%s", when);
            return;
        }
    }
    struct klog_event *e = NULL;
    if (k->nevents >= KLOG_MAX_EVENTS) {
        /* The table is full. A fault is kept first: it takes the place of an application's event,
         * which is counted as not kept; an application's event never evicts anything. */
        bool minor = klass == KLOG_CLASS_APP || klass == KLOG_CLASS_IGNORED;
        for (int i = k->nevents - 1; !minor && i >= 0 && !e; i--)
            if (k->events[i].klass == KLOG_CLASS_APP || k->events[i].klass == KLOG_CLASS_IGNORED)
                e = &k->events[i];
        if (!e) {
            k->events_dropped++;
            if (!minor)
                k->fault_events_dropped++;
            return;
        }
        k->events_dropped += e->count;
        free(e->text);
        free(e->process);
        free(e->meaning);
        free(e->action);
    } else {
        struct klog_event *grown = realloc(k->events, (size_t)(k->nevents + 1) * sizeof *grown);
        if (!grown) {
            k->events_dropped++;
            k->fault_events_dropped += klass != KLOG_CLASS_APP && klass != KLOG_CLASS_IGNORED;
            return;
        }
        k->events = grown;
        e = &k->events[k->nevents++];
    }
    *e = (struct klog_event){.kind = kind, .klass = klass, .class_source = class_source, .code = code, .count = 1};
    snprintf(e->bus_id, sizeof e->bus_id, "%s", bus_id);
    snprintf(e->first_time, sizeof e->first_time, "%s", when);
    snprintf(e->last_time, sizeof e->last_time, "%s", when);
    e->text = clean_text(text);
    e->process = process ? clean_text(process) : NULL;
    if (kind == KLOG_XID) {
        const struct xid_row *row = xid_row_find(&p->table, code);
        if (row) {
            e->meaning = strdup(row->description);
            e->action = strdup(row->action);
        }
    }
}

/* "NVRM: Xid (PCI:0000:3b:00): 79, pid=123, name=python, text" and the older forms without
 * "PCI:" or without pid and name; "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal,
 * text". true when the line was one. */
static bool parse_xid(struct parser *p, const char *msg, const char *when)
{
    const char *x;
    bool sxid = false;
    if (!strncmp(msg, "NVRM: Xid (", 11)) {
        x = msg + 6;
    } else if (!strncmp(msg, "nvidia-nvswitch", 15)) {
        x = msg + 15 + strspn(msg + 15, "0123456789");
        if (strncmp(x, ": SXid (", 8))
            return false;
        x += 3;
        sxid = true;
    } else {
        return false;
    }
    const char *in = x + 5, *close = strchr(in, ')');
    if (!close || close[1] != ':' || close[2] != ' ')
        return false;
    if (!strncmp(in, "PCI:", 4))
        in += 4;
    char bus[32] = "";
    if (!bus_id_at(in, bus))
        return false; /* the driver always names the GPU or switch */
    const char *c = close + 2;
    while (*c == ' ')
        c++;
    if (!isdigit((unsigned char)*c))
        return false;
    char *end;
    long code = strtol(c, &end, 10);
    if (code < 0 || code > 100000 || (*end && *end != ','))
        return false;
    const char *rest = end;
    if (*rest == ',')
        rest++;
    while (*rest == ' ')
        rest++;
    if (sxid) {
        /* The first line of an SXid gives its severity; the lines after it (Severity, Data) repeat
         * the code with details, and are not new errors. */
        enum klog_class klass;
        bool detail = false;
        if (!strncasecmp(rest, "Fatal", 5))
            klass = KLOG_CLASS_FAULT;
        else if (!strncasecmp(rest, "Non-fatal", 9) || !strncasecmp(rest, "Non fatal", 9) ||
                 !strncasecmp(rest, "Nonfatal", 8))
            klass = KLOG_CLASS_WARN; /* the switch's own event: the fabric still carries traffic */
        else if (!strncmp(rest, "Severity ", 9) && (rest[9] == '0' || rest[9] == '1') && !isdigit((unsigned char)rest[10]))
            /* NVSWITCH_ERROR_SEVERITY_NONFATAL = 0, _FATAL = 1 (open-gpu-kernel-modules,
             * ctrl_dev_nvswitch.h): an excerpt may hold only this line. */
            klass = rest[9] == '1' ? KLOG_CLASS_FAULT : KLOG_CLASS_WARN, detail = true;
        else /* no severity word ("26006, SOE HALTED", a "Data" line): the switch's error all the same */
            klass = KLOG_CLASS_WARN, detail = true;
        if (detail) /* the line after the first: a new error only when its first line is not in the log */
            for (int i = 0; i < p->k->nevents; i++)
                if (p->k->events[i].kind == KLOG_SXID && p->k->events[i].code == code &&
                    !strcmp(p->k->events[i].bus_id, bus))
                    return true;
        add_event(p, KLOG_SXID, klass, "SXid severity", bus, (int)code, rest, NULL, when);
        return true;
    }
    /* pid=..., name=... (drivers since about 470) */
    char process[128] = "";
    if (!strncmp(rest, "pid=", 4)) {
        const char *comma = strchr(rest, ',');
        const char *name = comma ? strstr(comma, " name=") : NULL;
        const char *after = name ? strchr(name + 1, ',') : comma;
        size_t n = after ? (size_t)(after - rest) : strlen(rest);
        snprintf(process, sizeof process, "%.*s", (int)(n < sizeof process ? n : sizeof process - 1), rest);
        rest = after ? after + 1 : rest + n;
        while (*rest == ' ')
            rest++;
    }
    enum klog_class klass = KLOG_CLASS_UNLISTED;
    const char *source = "catalogue";
    const struct xid_row *row = xid_row_find(&p->table, (int)code);
    if (row)
        klass = row->klass;
    /* Blackwell's NVLink Xids 144-150 say on the line whether the error was fatal ("149, NETIR_LINK_EVT
     * Fatal XC0 ...", "145, RLW_REMAP Nonfatal ..."): NVIDIA's decode of 144-150 gives non-fatal ones
     * no reset (GPUd #1174, NVSentinel #1357 stopped draining them). */
    if (code >= 144 && code <= 150) {
        const char *word = rest + strcspn(rest, " ,");
        while (*word == ' ' || *word == ',')
            word++;
        if (!strncmp(word, "Nonfatal", 8) || !strncmp(word, "Non-fatal", 9)) {
            klass = KLOG_CLASS_WARN;
            source = "the line's Nonfatal";
        } else if (!strncmp(word, "Fatal", 5)) {
            klass = KLOG_CLASS_FAULT;
            source = "the line's Fatal";
        }
    }
    /* 45 is the cleanup after another error; "caused by previous Xid 149" names it. An NVLink Xid
     * (74, 144-150) that this log does not hold happened all the same: warn, the line to look for. */
    const char *cause = code == 45 ? strstr(rest, "caused by previous Xid ") : NULL;
    if (cause) {
        long earlier = strtol(cause + 23, NULL, 10);
        bool seen = false;
        for (int i = 0; i < p->k->nevents; i++)
            seen |= p->k->events[i].kind == KLOG_XID && p->k->events[i].code == earlier &&
                    !strcmp(p->k->events[i].bus_id, bus);
        if ((earlier == 74 || (earlier >= 144 && earlier <= 150)) && !seen) {
            klass = KLOG_CLASS_WARN;
            source = "caused by an NVLink Xid";
        }
    }
    /* 154 says which recovery action the GPU needs now: back to "None" is no fault. */
    if (code == 154 && strstr(rest, "to 0x0 (None)")) {
        klass = KLOG_CLASS_APP;
        source = "driver message";
    }
    if (p->xid && code_in(p->xid->fatal, (int)code)) {
        klass = KLOG_CLASS_FAULT;
        source = "--xid-fatal";
    } else if (p->xid && code_in(p->xid->ignore, (int)code)) {
        klass = KLOG_CLASS_IGNORED;
        source = "--xid-ignore";
    }
    add_event(p, KLOG_XID, klass, source, bus, (int)code, rest, process[0] ? process : NULL, when);
    if (bus[0]) {
        snprintf(p->recent_bus, sizeof p->recent_bus, "%s", bus);
        p->recent_line = p->k->lines;
    }
    return true;
}

static bool contains_ci(const char *s, const char *word) { return strcasestr(s, word) != NULL; }

/* The GPU a driver line names, or the one a line just before named (messages over several lines). */
static void line_gpu(struct parser *p, const char *msg, char bus[32])
{
    if (find_bus_id(msg, bus)) {
        snprintf(p->recent_bus, sizeof p->recent_bus, "%s", bus);
        p->recent_line = p->k->lines;
        return;
    }
    if (p->recent_bus[0] && p->k->lines - p->recent_line <= RECENT_LINES)
        snprintf(bus, 32, "%s", p->recent_bus);
    else
        bus[0] = '\0';
}

/* --- PCIe AER lines ------------------------------------------------------------------------------ */

#define AER_DETAIL_LINES 6    /* the status and error-bit lines follow their "PCIe Bus Error" line */
#define AER_RECOVERY_LINES 12 /* the kernel's recovery names the devices below the port this close */

/* "Uncorrected (Fatal)", "Uncorrectable (Non-Fatal)", "Corrected", "Correctable": AER_*, or -1. */
static int aer_severity(const char *s)
{
    if (!strncmp(s, "Corrected", 9) || !strncmp(s, "Correctable", 11))
        return AER_CORRECTABLE;
    if (!strncmp(s, "Uncorrected (Non-Fatal)", 23) || !strncmp(s, "Uncorrectable (Non-Fatal)", 25))
        return AER_NONFATAL;
    if (!strncmp(s, "Uncorrected (Fatal)", 19) || !strncmp(s, "Uncorrectable (Fatal)", 21))
        return AER_FATAL;
    return -1;
}

static void aer_count(struct parser *p, const char *driver, size_t driver_len, const char *bus, int severity,
                      const char *msg, const char *when)
{
    struct kernel_log_info *k = p->k;
    for (int i = 0; i < k->naer; i++) {
        struct klog_aer *a = &k->aer[i];
        if (a->severity == severity && !strcmp(a->bus_id, bus)) {
            a->count++;
            snprintf(a->last_time, sizeof a->last_time, "%s", when);
            p->aer_recent = i;
            p->aer_line = k->lines;
            return;
        }
    }
    struct klog_aer *grown = k->naer < KLOG_MAX_AER ? realloc(k->aer, (size_t)(k->naer + 1) * sizeof *grown) : NULL;
    if (!grown) {
        k->aer_dropped++;
        p->aer_recent = -1;
        return;
    }
    k->aer = grown;
    struct klog_aer *a = &k->aer[k->naer];
    *a = (struct klog_aer){.severity = severity, .count = 1};
    snprintf(a->bus_id, sizeof a->bus_id, "%s", bus);
    snprintf(a->driver, sizeof a->driver, "%.*s", (int)driver_len, driver);
    snprintf(a->first_time, sizeof a->first_time, "%s", when);
    snprintf(a->last_time, sizeof a->last_time, "%s", when);
    a->text = clean_text(msg);
    p->aer_recent = k->naer++;
    p->aer_line = k->lines;
}

/* Appends an error bit's name ("[ 5] Surprise Down Error    (First)") to the record, once. */
static void aer_error_name(struct klog_aer *a, const char *s)
{
    const char *close = strchr(s, ']');
    if (!close)
        return;
    const char *name = close + 1;
    while (*name == ' ')
        name++;
    size_t n = strlen(name);
    const char *first = strstr(name, "(First)");
    if (first)
        n = (size_t)(first - name);
    while (n && name[n - 1] == ' ')
        n--;
    if (n == 0 || n > 48)
        return;
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)n, name);
    for (size_t i = 0; word[i]; i++)
        if ((unsigned char)word[i] < 0x20 || (unsigned char)word[i] >= 0x7f)
            word[i] = '?';
    if (strstr(a->errors, word))
        return;
    size_t used = strlen(a->errors);
    if (used + n + 3 < sizeof a->errors)
        snprintf(a->errors + used, sizeof a->errors - used, "%s%s", used ? ", " : "", word);
}

/* The kernel's AER lines, "DRIVER BDF: [AER: ]PCIe Bus Error: severity=..., type=..." and the
 * lines after it; true when the line was one of them. An "nvidia BDF:" line about AER recovery
 * soon after an uncorrectable error of another function names a GPU below it. */
static bool parse_aer(struct parser *p, const char *msg, const char *when)
{
    size_t drv = strspn(msg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
    char bus[32];
    if (drv == 0 || drv >= 24 || msg[drv] != ' ' || !bus_id_at(msg + drv + 1, bus))
        return false;
    const char *rest = strstr(msg + drv + 1, ": ");
    if (!rest || rest - msg > (long)drv + 20)
        return false;
    rest += 2;
    const char *bare = !strncmp(rest, "AER: ", 5) ? rest + 5 : rest;
    if (!strncmp(bare, "PCIe Bus Error: severity=", 25)) {
        int severity = aer_severity(bare + 25);
        if (severity < 0)
            return false;
        aer_count(p, msg, drv, bus, severity, msg, when);
        return true;
    }
    struct klog_aer *recent = p->aer_recent >= 0 ? &p->k->aer[p->aer_recent] : NULL;
    long long since = p->k->lines - p->aer_line;
    if (recent && since <= AER_DETAIL_LINES && !strcmp(recent->bus_id, bus)) {
        const char *b = bare;
        while (*b == ' ')
            b++;
        if (*b == '[' && (isdigit((unsigned char)b[1]) || b[1] == ' ')) {
            aer_error_name(recent, b);
            return true;
        }
        if (!strncmp(b, "device [", 8))
            return true; /* "device [8086:6f04] error status/mask=..." */
    }
    if (recent && since <= AER_RECOVERY_LINES && recent->severity != AER_CORRECTABLE && drv == 6 &&
        !strncmp(msg, "nvidia", 6) && strcmp(recent->bus_id, bus) && !recent->gpu_below[0] &&
        (strstr(rest, "AER") || strstr(rest, "error_detected")))
        snprintf(recent->gpu_below, sizeof recent->gpu_below, "%s", bus);
    return false;
}

/* Whether the message starts with a process's name (comm, at most TASK_COMM_LEN - 1 = 15 bytes, any
 * text its owner chose) in one of the kernel's forms that lead with it: "comm[pid]: segfault at ...",
 * "comm[pid] general protection ...", "comm invoked oom-killer: ...", "comm (pid): drop_caches: 1".
 * Such a line is never the driver's or the kernel's first line, whatever the name says. */
static bool comm_led(const char *msg)
{
    for (size_t i = 1; i <= 16 && msg[i - 1]; i++) {
        const char *c = msg + i;
        if (*c == '[' && isdigit((unsigned char)c[1])) {
            c++;
            while (isdigit((unsigned char)*c))
                c++;
            if (*c == ']')
                return true;
        }
        if (!strncmp(c, " invoked oom-killer", 19))
            return true;
        if (c[0] == ' ' && c[1] == '(' && isdigit((unsigned char)c[2])) {
            c += 2;
            while (isdigit((unsigned char)*c))
                c++;
            if (c[0] == ')' && c[1] == ':')
                return true;
        }
    }
    return false;
}

/* The kernel's own first line: "Linux version RELEASE (builder) ..." at time 0 (printk's clock does
 * not run yet), or without a kernel timestamp where the log has none. A process named "Linux
 * version ..." cannot write it: its name is 15 bytes, and the kernel prints it with "[pid]" after. */
static bool kernel_first_line(const char *msg, double mono)
{
    if (strncmp(msg, "Linux version ", 14) || (mono >= 0 && mono > 0.0000005))
        return false;
    const char *r = msg + 14;
    if (!isdigit((unsigned char)*r))
        return false;
    while (*r && *r != ' ' && *r != '[')
        r++;
    return r[0] == ' ' && r[1] == '(' && !comm_led(msg);
}

/* The driver's own line starts: "nvidia:", "nvidia-modeset:", "nvidia-nvswitch3:", "nvidia-uvm:",
 * "nvidia 0000:3b:00.0:", "nvidia-peermem ..." (not "nvidia-smi -q" in a text about it). */
static bool nvidia_line(const char *msg)
{
    if (strncmp(msg, "nvidia", 6))
        return false;
    const char *c = msg + 6;
    if (*c == ' ')
        return bus_id_at(c + 1, (char[32]){0});
    if (*c == '-' || *c == '_') {
        const char *word = ++c;
        while (isalnum((unsigned char)*c) || *c == '_' || *c == '-')
            c++;
        return c > word && (*c == ':' || (c - word == 7 && !strncmp(word, "peermem", 7) && *c == ' '));
    }
    return *c == ':';
}

static void parse_message(struct parser *p, const char *msg, const char *when, double mono)
{
    while (*msg == ' ' || *msg == '\t')
        msg++;
    if (kernel_first_line(msg, mono)) {
        new_boot(p);
        return;
    }
    /* Only the driver's own lines count: NVRM, nvidia, nvidia-nvswitchN as the message's start,
     * never a process's name or a file's that another message prints. */
    bool nvrm = !strncmp(msg, "NVRM:", 5);
    bool nvidia = nvrm || nvidia_line(msg);
    if ((nvidia || isalpha((unsigned char)*msg)) && comm_led(msg))
        return;
    if (parse_aer(p, msg, when)) {
        p->driver_lines++;
        return;
    }
    if (!nvidia)
        return;
    p->driver_lines++;
    const char *serial = strstr(msg, "Serial Number: ");
    serial = serial ? serial + 15 : strstr(msg, "serial number is ");
    if (serial && serial[0] == 's')
        serial += 17;
    if (serial && p->k->nserials < 16) {
        size_t n = strspn(serial, "0123456789ABCDEFabcdef");
        bool known = false;
        for (int i = 0; i < p->k->nserials; i++)
            known |= strlen(p->k->serials[i]) == n && !strncmp(p->k->serials[i], serial, n);
        if (n >= 4 && n < sizeof p->k->serials[0] && !known)
            snprintf(p->k->serials[p->k->nserials++], sizeof p->k->serials[0], "%.*s", (int)n, serial);
    }
    if (parse_xid(p, msg, when))
        return;
    char bus[32];
    line_gpu(p, msg, bus);
    /* "nvidia 0000:2c:00.0: ..." (the kernel's device prefix for the driver's function) */
    bool nvidia_device = !strncmp(msg, "nvidia ", 7) && bus_id_at(msg + 7, (char[32]){0});
    if (contains_ci(msg, "fallen off the bus") || strstr(msg, "GPU lost from the bus") ||
        strstr(msg, "NV_ERR_GPU_IS_LOST"))
        add_event(p, KLOG_FALLEN_OFF_BUS, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    else if (strstr(msg, "RmInitAdapter failed") || strstr(msg, "rm_init_adapter failed") ||
             (strstr(msg, "RmInitAdapter") && contains_ci(msg, "fail")))
        add_event(p, KLOG_INIT_FAILED, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    else if ((!strncmp(msg, "nvidia", 6) && strstr(msg, "probe of ") && strstr(msg, " failed")) ||
             (nvidia_device && strstr(msg, "probe with driver nvidia failed")) || strstr(msg, "probe routine failed"))
        add_event(p, KLOG_PROBE_FAILED, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    else if (nvrm && strstr(msg, "is not supported by open"))
        add_event(p, KLOG_UNSUPPORTED, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    else if (nvrm && (contains_ci(msg, "reset required") || contains_ci(msg, "requires a reset") ||
                      contains_ci(msg, "needs to be reset") || strstr(msg, "NV_ERR_RESET_REQUIRED")))
        add_event(p, KLOG_RESET_REQUIRED, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    else if (nvrm && (strstr(msg, "postRxDetLinkMask failed") || strstr(msg, "Failed to update Rx Detect Link mask")))
        add_event(p, KLOG_NVLINK_FAILED, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    else if (nvrm && (strstr(msg, "GSP") || strstr(msg, "kgsp") || strstr(msg, "Gsp")) &&
             (contains_ci(msg, "error") || contains_ci(msg, "failed") || contains_ci(msg, "timeout") ||
              contains_ci(msg, "timed out")))
        add_event(p, KLOG_GSP_ERROR, KLOG_CLASS_FAULT, "driver message", bus, -1, msg, NULL, when);
    /* Never a pass for what was not understood: a driver line that names an error no pattern above
     * knows is quoted as such (warn). PCIe AER recovery lines are the AER rule's. */
    else if ((nvrm || nvidia_device) && !strstr(msg, "AER") &&
             (strstr(msg, "NV_ERR_") || contains_ci(msg, "error") || contains_ci(msg, "fail") ||
              contains_ci(msg, "assert")))
        add_event(p, KLOG_DRIVER_ERROR, KLOG_CLASS_UNLISTED, "driver message", bus, -1, msg, NULL, when);
}

/* One line of any of the formats: its time and message, boot markers, then the message. */
static void parse_line(struct parser *p, char *line, size_t len)
{
    p->k->lines++;
    p->k->bytes += (long long)len + 1;
    const char *s = line;
    char when[40] = "";
    double mono = -1;
    if (s[0] == '<') { /* dmesg -r, syslog's raw priority */
        size_t n = 1;
        while (isdigit((unsigned char)s[n]))
            n++;
        if (n > 1 && s[n] == '>')
            s += n + 1;
    }
    if (!strncmp(s, "-- ", 3)) { /* journalctl's markers: "-- Boot 32-hex-digits --", "-- Reboot --" */
        size_t hex = strspn(s + 8, "0123456789abcdef");
        if ((!strncmp(s, "-- Boot ", 8) && hex == 32 && !strcmp(s + 40, " --")) || !strcmp(s, "-- Reboot --"))
            new_boot(p);
        return;
    }
    /* kmsg: "PRI,SEQ,USEC,FLAGS;message" */
    const char *semi = strchr(s, ';');
    if (semi && semi - s < 64) {
        int fields = 0;
        const char *c = s;
        while (c < semi && (isdigit((unsigned char)*c) || *c == ',' || *c == '-' || *c == 'c' || *c == '+'))
            fields += *c++ == ',';
        if (c == semi && fields >= 3 && isdigit((unsigned char)*s)) {
            const char *usec = strchr(strchr(s, ',') + 1, ',') + 1;
            unsigned long long us = strtoull(usec, NULL, 10);
            mono = (double)us / 1e6;
            snprintf(when, sizeof when, "%.6f", mono);
            p->formats |= FMT_KMSG;
            s = semi + 1;
        }
    }
    /* dmesg -x: "kern  :warn  : " */
    if (mono < 0 && !strncmp(s, "kern", 4) && (s[4] == ' ' || s[4] == ':')) {
        const char *c1 = strchr(s, ':');
        const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c1 && c2 && c2 - s < 20 && c2[1] == ' ')
            s = c2 + 2;
    }
    bool journal = false;
    size_t t;
    if (mono < 0 && (t = syslog_time_length(s)) > 0) {
        set_time(when, s, t);
        s = after_host(s + t + 1, &journal);
        p->formats |= journal ? FMT_SYSLOG : FMT_DMESG_T;
    } else if (mono < 0 && (t = iso_time_length(s)) > 0) {
        set_time(when, s, t);
        s = after_host(s + t + 1, &journal);
        p->formats |= journal ? FMT_JOURNAL : FMT_DMESG_ISO;
    }
    if (!s)
        return; /* another program's line in a syslog file */
    while (*s == ' ')
        s++;
    if (!strncmp(s, "kernel: ", 8)) /* a journal's or syslog's facility tag, its stamp and host cut off */
        s += 8;
    if (s[0] == '[') { /* dmesg's "[  12.345678]", dmesg -T's "[Tue Dec  1 12:34:56 2026]", or inside syslog */
        const char *close = memchr(s, ']', strnlen(s, 48));
        if (close) {
            double v;
            const char *b = s + 1;
            /* dmesg -T writes ctime's "Tue Dec  1 12:34:56 2026"; other brackets are text. */
            /* dmesg -T writes "%a %b %e %H:%M:%S %Y" in the locale's words: "Tue Dec  1 12:34:56 2026",
             * "Di Dez  1 12:34:56 2026". */
            size_t bl = (size_t)(close - b);
            const char *y = bl >= 20 ? close - 5 : b, *hms = bl >= 20 ? close - 13 : b;
            bool ctime_like = bl >= 20 && bl <= 44 && y[0] == ' ' && all_digits(y + 1, 4) && hms[-1] == ' ' &&
                              isdigit((unsigned char)hms[0]) && hms[2] == ':' && hms[5] == ':' &&
                              isdigit((unsigned char)hms[7]);
            /* dmesg --reltime (and -H after its first line): "[  +0.000844]", seconds since the line before. */
            const char *plus = b;
            while (plus < close && *plus == ' ')
                plus++;
            bool relative = *plus == '+' && mono_seconds(plus + 1, (size_t)(close - plus - 1), &v);
            /* dmesg -H writes the date and minute ("[Dec  2 04:17]") on the first line and where the
             * minute changes, the relative form between. */
            char month[4];
            int day, hour, minute, used = 0;
            relative = relative || (close - b <= 14 && sscanf(b, "%3[A-Za-z] %d %d:%d%n", month, &day, &hour, &minute,
                                                              &used) == 4 &&
                                    b + used == close && isupper((unsigned char)month[0]) && day >= 1 && day <= 31 &&
                                    hour >= 0 && hour < 24 && minute >= 0 && minute < 60);
            if (mono_seconds(b, (size_t)(close - b), &v)) {
                mono = v;
                p->formats |= journal ? 0 : FMT_DMESG;
            } else if (ctime_like && !journal) {
                p->formats |= FMT_DMESG_T;
            } else if (relative && !journal) {
                p->formats |= FMT_DMESG_REL;
            }
            if (!when[0] && (ctime_like || mono >= 0 || relative))
                set_time(when, b, (size_t)(close - b));
            if (ctime_like || mono >= 0 || relative)
                s = close + 1;
        }
    }
    /* A kernel timestamp that goes back is a new boot whose "Linux version" line the log lost. */
    if (mono >= 0) {
        if (p->last_mono >= 0 && mono + 1.0 < p->last_mono)
            new_boot(p);
        p->last_mono = mono;
        p->k->last_seconds = mono;
    }
    /* A further line of a message ("               NVRM: fallen off the bus ...") has no stamp of its
     * own: it was written at its first line's time. */
    if (!when[0] && line[0] == ' ' && p->recent_when[0])
        snprintf(when, sizeof when, "%s", p->recent_when);
    else if (when[0])
        snprintf(p->recent_when, sizeof p->recent_when, "%s", when);
    else
        p->recent_when[0] = '\0';
    parse_message(p, s, when[0] ? when : "?", mono);
    record_line(p, line, len);
}

static const char *format_name(unsigned formats)
{
    switch (formats) {
    case 0: return "unknown";
    case FMT_KMSG: return "kmsg";
    case FMT_DMESG: return "dmesg";
    case FMT_DMESG_T: return "dmesg -T";
    case FMT_DMESG_ISO: return "dmesg --time-format iso";
    case FMT_DMESG_REL: return "dmesg --reltime";
    case FMT_JOURNAL: return "journalctl -o short-iso";
    case FMT_SYSLOG: return "syslog or journalctl";
    case FMT_SYSLOG | FMT_DMESG: return "syslog with kernel timestamps";
    }
    return "mixed";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void parser_begin(struct parser *p, struct machine *m, const char *source, const struct xid_overrides *xid)
{
    kernel_log_free(&m->kernel_log);
    *p = (struct parser){.m = m, .k = &m->kernel_log, .xid = xid, .last_mono = -1, .aer_recent = -1};
    p->k->source = strdup(source);
    xid_table_load(m, &p->table);
    if (fsroot_recording()) {
        p->record = malloc(1);
        if (p->record)
            p->record[0] = '\0';
    }
}

static void parser_end(struct parser *p)
{
    p->k->read = true;
    p->k->format = strdup(format_name(p->formats));
    if (p->record) {
        fs_record_text(KERNEL_LOG_SNAPSHOT_FILE, p->record);
        free(p->record);
    }
    xid_table_free(&p->table);
}

/* --- reading a saved log ------------------------------------------------------------------------ */

#define KLOG_READ_CHUNK (4u << 20)   /* read(2) this much at a time */
#define KLOG_FULL_PARSE_LINES 256    /* the first lines are all parsed: they tell the log's format */

/* A line is parsed only when it holds one of these (or is among the first lines, or follows an AER
 * line): every line an event or a boot comes from does. The others are counted. A kernel timestamp
 * that goes back is seen at the next line parsed: the events cleared are the same; boots_seen may
 * count two boots without a driver line between them as one. */
static const char *const KLOG_NEEDLES[] = {"NVRM",          "nvidia ", "nvidia:",        "nvidia-nvswitch",
                                            "Linux version", "AER",     "PCIe Bus Error", "-- "};
#define KLOG_NEEDLE_COUNT (sizeof KLOG_NEEDLES / sizeof *KLOG_NEEDLES)

/* The needles' first bytes (a table that stays in the L1 cache), then their first two bytes. */
static unsigned char needle_first[256];
static unsigned char needle_pairs[65536];

static void needle_pairs_init(void)
{
    if (needle_first['N'])
        return;
    needle_first['\n'] = 1;
    for (size_t i = 0; i < KLOG_NEEDLE_COUNT; i++) {
        needle_first[(unsigned char)KLOG_NEEDLES[i][0]] = 1;
        needle_pairs[((unsigned char)KLOG_NEEDLES[i][0] << 8) | (unsigned char)KLOG_NEEDLES[i][1]] = 1;
    }
}

/* Counts the lines from s up to the start of the first line holding a needle, which it returns
 * (NULL: none before end; every line counted). */
static char *next_candidate(struct parser *p, char *s, char *end)
{
    char *line = s, *from = s;
    long long lines = 0;
    for (; s + 1 < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (!needle_first[c])
            continue;
        if (c == '\n') {
            lines++;
            line = s + 1;
            continue;
        }
        if (!needle_pairs[(c << 8) | (unsigned char)s[1]])
            continue;
        for (size_t i = 0; i < KLOG_NEEDLE_COUNT; i++) {
            size_t n = strlen(KLOG_NEEDLES[i]);
            if ((size_t)(end - s) >= n && !memcmp(s, KLOG_NEEDLES[i], n)) {
                p->k->lines += lines;
                p->k->bytes += (long long)(line - from);
                return line;
            }
        }
    }
    if (s < end && *s == '\n')
        lines++, line = s + 1;
    if (line < end)
        lines++; /* the log's last line, without its "\n" */
    p->k->lines += lines;
    p->k->bytes += (long long)(end - from);
    return NULL;
}

/* One line at s (without its "\n", NUL written over it): parsed, or counted when too long. */
static void take_line(struct parser *p, char *s, size_t len)
{
    if (len > KLOG_LINE_MAX) {
        p->k->lines++;
        p->k->lines_too_long++;
        p->k->bytes += (long long)len + 1;
        return;
    }
    s[len] = '\0';
    size_t n = len;
    if (n && s[n - 1] == '\r')
        s[--n] = '\0';
    parse_line(p, s, n);
}

/* The whole lines in b[0..n) (b[n] is writable). */
static void parse_block(struct parser *p, char *b, size_t n)
{
    char *pos = b, *end = b + n, *parsed_to = b;
    while (pos < end) {
        bool every_line = p->record || p->k->lines < KLOG_FULL_PARSE_LINES ||
                          (p->aer_recent >= 0 && p->k->lines - p->aer_line < AER_DETAIL_LINES);
        if (!every_line && !(pos = next_candidate(p, pos, end)))
            break;
        char *nl = memchr(pos, '\n', (size_t)(end - pos));
        size_t len = nl ? (size_t)(nl - pos) : (size_t)(end - pos);
        take_line(p, pos, len);
        pos += len + 1;
        parsed_to = pos;
    }
    /* The block's last line is parsed too (counted once): its timestamp is the boot's latest, which
     * a rate per minute since boot divides by, and a timestamp that went back shows there. */
    char *last_end = end > b && end[-1] == '\n' ? end - 1 : end;
    char *last = last_end > b ? memrchr(b, '\n', (size_t)(last_end - b)) : NULL;
    last = last ? last + 1 : b;
    if (last >= parsed_to && last < last_end) {
        size_t len = (size_t)(last_end - last);
        p->k->lines--;
        p->k->bytes -= (long long)len + 1;
        take_line(p, last, len);
    }
}

/* Reads fd to its end within the bounds: a file larger than KLOG_BYTES_MAX from its last
 * KLOG_BYTES_MAX bytes (the last boot is at the end; the verdict says the log was read in part).
 * A read stopped by the time bound drops the events: the boot they belong to is not known to be the
 * last. 0, or -1 on a read error (in m->problems). */
static int parse_fd(struct parser *p, int fd, const char *label, double max_s)
{
    /* The tests set a smaller budget (GPUVET_TEST_KLOG_BYTES) to read a small file from its end. */
    unsigned long long budget = KLOG_BYTES_MAX;
    const char *test_budget = getenv("GPUVET_TEST_KLOG_BYTES");
    if (test_budget && strtoull(test_budget, NULL, 10) > 0)
        budget = strtoull(test_budget, NULL, 10);
    struct stat st;
    bool skip_first = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > budget) {
        if (lseek(fd, (off_t)(st.st_size - (off_t)budget), SEEK_SET) >= 0) {
            skip_first = true; /* the first, partial line */
            p->k->truncated = true;
        }
    }
    needle_pairs_init();
    size_t cap = KLOG_READ_CHUNK + KLOG_LINE_MAX + 2;
    char *buf = malloc(cap);
    if (!buf) {
        machine_problem(p->m, label, "%s", i18n_error_text(ENOMEM));
        return -1;
    }
    double start = now_s();
    size_t have = 0;
    bool skipping = false; /* in the rest of a line over KLOG_LINE_MAX (or the first partial one) */
    int rc = 0;
    for (;;) {
        ssize_t got = read(fd, buf + have, cap - 1 - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            machine_problem(p->m, label, "%s", i18n_error_text(errno));
            rc = -1;
            break;
        }
        bool eof = got == 0;
        have += (size_t)got;
        char *from = buf;
        if (skipping || skip_first) {
            char *nl = memchr(buf, '\n', have);
            if (!nl && !eof) {
                have = 0; /* still in the long line */
                continue;
            }
            if (skipping) {
                p->k->lines++;
                p->k->lines_too_long++;
            }
            skipping = skip_first = false;
            from = nl ? nl + 1 : buf + have;
        }
        char *last = have ? memrchr(from, '\n', (size_t)(buf + have - from)) : NULL;
        size_t whole = last ? (size_t)(last + 1 - from) : 0;
        if (eof && from + whole < buf + have)
            whole = (size_t)(buf + have - from); /* the last line without its "\n" */
        if (whole)
            parse_block(p, from, whole);
        size_t rest = (size_t)(buf + have - (from + whole));
        memmove(buf, from + whole, rest);
        have = rest;
        if (have > KLOG_LINE_MAX) { /* a line over the cap: skip to its end */
            skipping = true;
            have = 0;
        }
        if (eof)
            break;
        if (now_s() - start > max_s) {
            p->k->truncated = true;
            kernel_log_clear_events(p->k);
            break;
        }
    }
    free(buf);
    return rc;
}

int probe_kernel_log_file(struct machine *m, const char *path, const struct xid_overrides *xid)
{
    /* The gate: regular files only, opened and read non-blocking; no bound on the size (a file
     * larger than the reading budget is read from its end). */
    FILE *f = input_file_open(path, INPUT_FILE_STREAMED);
    if (!f) {
        char why[256];
        input_file_reason(errno, INPUT_FILE_STREAMED, why, sizeof why);
        machine_problem_reason(m, path, why);
        return -1;
    }
    struct parser p;
    parser_begin(&p, m, path, xid);
    int rc = parse_fd(&p, fileno(f), path, KLOG_TIME_MAX_S);
    fclose(f);
    unsigned formats = p.formats;
    bool grep_of_driver_lines = p.driver_lines > 0;
    parser_end(&p);
    /* A file with no line of a kernel log's forms is not one: judging it would pass any file. Lines
     * without a stamp are evidence when the driver's or the kernel's AER lines are among them, as a
     * message's own start (a pasted excerpt, a grep). */
    if (rc == 0 && formats == 0 && !grep_of_driver_lines) {
        machine_problem(m, path, m->kernel_log.lines == 0 ? "is empty: not a kernel log"
                                                          : "no line is in a kernel log's form (dmesg, journalctl -k, "
                                                            "syslog) and none is the NVIDIA driver's (NVRM:, nvidia, "
                                                            "nvidia-nvswitch) or a PCIe AER report: not a kernel log");
        m->kernel_log.read = false;
        return -1;
    }
    return rc;
}

/* /dev/kmsg: one record per read(2), "PRI,SEQ,USEC,FLAGS;message\n" and continuation lines
 * (" KEY=value") after it; O_NONBLOCK, so the end of the buffer is EAGAIN, never a wait. */
static void read_kmsg(struct machine *m, const struct xid_overrides *xid)
{
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int error = errno;
        struct kernel_log_info *k = &m->kernel_log;
        kernel_log_free(k);
        k->source = strdup("/dev/kmsg");
        char *restrict_text = fs_read("/proc/sys/kernel/dmesg_restrict");
        bool restricted = restrict_text && !strcmp(restrict_text, "1");
        free(restrict_text);
        if ((error == EPERM || error == EACCES) && restricted)
            k->unknown_reason = strdup(N_("the kernel log is readable by root only here (kernel.dmesg_restrict=1): "
                                          "run as root, or give --kernel-log FILE"));
        else if (error == EPERM || error == EACCES)
            k->unknown_reason = strdup(N_("/dev/kmsg is not readable here (a container without CAP_SYSLOG, or a "
                                          "security policy): run on the host as root, or give --kernel-log FILE"));
        else
            i18n_asprintf(&k->unknown_reason, "/dev/kmsg cannot be opened: %s", i18n_error_text(error));
        return;
    }
    struct parser p;
    parser_begin(&p, m, "/dev/kmsg", xid);
    char buf[8192];
    double start = now_s();
    unsigned long long total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE)
            continue; /* records overwritten while reading: go on with the next one */
        if (n <= 0)
            break;    /* EAGAIN: the end of the buffer */
        buf[n] = '\0';
        total += (unsigned long long)n;
        char *nl = strchr(buf, '\n');
        size_t len = nl ? (size_t)(nl - buf) : (size_t)n;
        buf[len] = '\0';
        /* The record goes on in the dmesg form, which a snapshot replays like any saved log. */
        char *semi = strchr(buf, ';');
        char line[sizeof buf + 32];
        int w = -1;
        if (semi) {
            unsigned long long us = 0;
            const char *c = strchr(buf, ',');
            c = c ? strchr(c + 1, ',') : NULL;
            if (c)
                us = strtoull(c + 1, NULL, 10);
            w = snprintf(line, sizeof line, "[%5llu.%06llu] %s", us / 1000000, us % 1000000, semi + 1);
        }
        if (w > 0)
            parse_line(&p, line, (size_t)w < sizeof line ? (size_t)w : sizeof line - 1);
        if (total > KMSG_BYTES_MAX || now_s() - start > KMSG_TIME_MAX_S) {
            p.k->truncated = true;
            break;
        }
    }
    close(fd);
    p.formats = FMT_KMSG;
    parser_end(&p);
}

/* A saved log open at fd, labelled source: read whole (fd closed); fd < 0: unknown, with why. */
static void read_log_fd(struct machine *m, int fd, const char *source, char *why, const struct xid_overrides *xid)
{
    if (fd < 0) {
        kernel_log_free(&m->kernel_log);
        m->kernel_log.source = strdup(source);
        m->kernel_log.unknown_reason = why;
        return;
    }
    free(why);
    struct parser p;
    parser_begin(&p, m, source, xid);
    parse_fd(&p, fd, source, KLOG_TIME_MAX_S);
    close(fd);
    parser_end(&p);
}

void probe_kernel_log(struct machine *m, const struct xid_overrides *xid)
{
#ifdef GPUVET_TEST_HOOKS
    /* GPUVET_TEST_KERNEL_LOG=FILE: the live machine's ring buffer is this saved log, which the CUDA
     * stand-in appends an Xid line to while `bench gpu --burn` runs. Only in a build with the test
     * suite (GPUVET_TESTS=ON): in the binary users run (setup.sh, the package), no environment
     * variable can put another file in place of /dev/kmsg and hide a live fault. */
    const char *test_log = getenv("GPUVET_TEST_KERNEL_LOG");
    if (fsroot_is_live() && test_log && *test_log) {
        int fd = open(test_log, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        char *why = NULL;
        if (fd < 0)
            i18n_asprintf(&why, "%s cannot be opened: %s", test_log, i18n_error_text(errno));
        read_log_fd(m, fd, test_log, why, xid);
        return;
    }
#endif
    if (fsroot_is_live()) {
        read_kmsg(m, xid);
        return;
    }
    int fd = fs_open(KERNEL_LOG_SNAPSHOT_FILE, O_RDONLY | O_NONBLOCK);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    read_log_fd(m, fd, KERNEL_LOG_SNAPSHOT_FILE,
                fd < 0 ? strdup(N_("no kernel log in the recorded tree (a `gpuvet snapshot` records one): give "
                                   "--kernel-log FILE"))
                       : NULL,
                xid);
}
