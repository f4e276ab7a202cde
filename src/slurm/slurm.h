/* Draining and resuming a node through Slurm's own `scontrol`, for `gpuvet health --slurm`: the one
 * place where gpuvet changes anything, and only through the scheduler, at the admin's request.
 * Knows nothing of machines or rules: it is handed a node name and a reason. */
#ifndef GPUVET_SLURM_SLURM_H
#define GPUVET_SLURM_SLURM_H

#include <stdbool.h>
#include <stddef.h>

/* The scontrol calls of one drain or resume (the read, then the update) share this budget and are
 * killed when it is spent: Slurm's HealthCheckProgram must end within 60 s. */
#define SLURM_SCONTROL_TIMEOUT_MS 10000
/* ... except that the update always gets at least this long. */
#define SLURM_SCONTROL_LAST_CALL_MS 500
/* The prefix of every reason gpuvet writes; reasons without it are someone else's. */
#define SLURM_REASON_PREFIX "gpuvet:"
/* The longest reason gpuvet sets, in bytes. Slurm documents no limit, but the reason must read back
 * equal from `scontrol show node` (one line, with " [user@time]" appended) or every later run
 * would relabel or never resume the node: the reason goes through text_one_line (util/sanitize.h:
 * no newline or control byte, no invalid UTF-8) and is cut to this, far inside the 511 bytes that
 * are read back of the Reason= line. */
#define SLURM_REASON_MAX 200

/* The scontrol to run: `given` when not NULL (it must be executable), else the first executable
 * of /usr/bin/scontrol, /usr/local/bin/scontrol, then scontrol in each PATH folder (PATH may be
 * unset, as under slurmd). 0, or -1 with the reason in err. */
int slurm_find_scontrol(const char *given, char *out, size_t outlen, char *err, size_t errlen);

/* Where Slurm's commands find slurm.conf: SLURM_CONF, else the compiled-in default, else the copy
 * a configless slurmd (Slurm 20.02+) keeps under /run/slurm/conf; beyond those, scontrol asks DNS
 * for the controller (configless). */
#define SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"
#define SLURM_CONF_CONFIGLESS "/run/slurm/conf/slurm.conf"

/* The slurm.conf the scontrol runs will read, as Slurm's commands find it, with one step before the
 * defaults: under slurmd (HealthCheckProgram, whose environment has no SLURM_CONF), the file that
 * slurmd was started with (its -f, else its SLURM_CONF), which is then put in SLURM_CONF for
 * scontrol. The path in out; returns how it was found ("SLURM_CONF", "slurmd's -f", ...), or NULL
 * when none was (out "none": scontrol tries DNS). */
const char *slurm_conf_locate(char *out, size_t outlen);

/* This node's Slurm name: SLURMD_NODENAME when set (slurmd sets it for HealthCheckProgram), else
 * the host name up to its first dot. */
void slurm_node_name(char *out, size_t outlen);

struct slurm_node {
    char state[128];     /* scontrol's State=, e.g. "IDLE+DRAIN" */
    char reason[512];    /* Reason= without the trailing " [user@time]"; "" none */
    bool drained;        /* DRAIN, DRAINING, DRAINED or DOWN */
};

/* Reads `scontrol show node NAME`. 0, or -1 with the reason in err. */
int slurm_node_read(const char *scontrol, const char *node, struct slurm_node *out, char *err, size_t errlen);

enum slurm_outcome {
    SLURM_UNCHANGED,    /* healthy and not drained by gpuvet, or already drained with this reason */
    SLURM_DRAINED,      /* drained now (or its gpuvet reason replaced) */
    SLURM_RESUMED,      /* healthy again: gpuvet's own drain lifted */
    SLURM_LEFT_ALONE,   /* drained or down for another reason: never touched */
};

/* Whether node is one node's name, not a hostlist ("gpu[01-64],login1") that scontrol would
 * expand: slurm_apply refuses any other, touching no node. */
bool slurm_node_name_is_one(const char *node);

/* Drains the node with reason (which starts with SLURM_REASON_PREFIX; made one safe line of at most
 * SLURM_REASON_MAX bytes here), or, reason NULL (healthy), resumes it when gpuvet drained it. A
 * Reason= longer than the node read holds is read cut (it is not gpuvet's reason of today, so it
 * is replaced or, when gpuvet's, resumed), never a failure that leaves the node drained for good. 0 with *outcome and a sentence in what, or -1 with err. */
int slurm_apply(const char *scontrol, const char *node, const char *reason, enum slurm_outcome *outcome,
                char *what, size_t whatlen, char *err, size_t errlen);

#endif
