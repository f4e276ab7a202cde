/* --redact for every report format: identifying values are taken out of the model and the
 * findings once, before any format is written, so text, JSON, HTML and Markdown agree. */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/redact.h"

struct literals {
    const char **items;
    int count;
};

static void scrub(char **s, const struct literals *l)
{
    if (!*s)
        return;
    char *clean = redact_text(*s, l->items, l->count);
    free(*s);
    *s = clean;
}

static void replace(char **s)
{
    if (!*s)
        return;
    free(*s);
    *s = strdup(REDACTED);
}

static void scrub_json(json_t *value, const struct literals *l)
{
    if (json_is_string(value)) {
        char *clean = redact_text(json_string_value(value), l->items, l->count);
        json_string_set(value, clean);
        free(clean);
    } else if (json_is_array(value)) {
        size_t i;
        json_t *item;
        json_array_foreach(value, i, item) scrub_json(item, l);
    } else if (json_is_object(value)) {
        const char *key;
        json_t *item;
        json_object_foreach(value, key, item) scrub_json(item, l);
    }
}

static void scrub_location(struct storage_location *loc, const struct literals *l)
{
    scrub(&loc->path, l);
    scrub(&loc->mountpoint, l);
    scrub(&loc->source, l);
    scrub(&loc->unknown_reason, l);
}

void report_redact_audit(struct machine *m, struct findings *f)
{
    /* The values themselves, wherever else they were copied (a message, a path). */
    const char **items = calloc((size_t)(1 + 2 * m->gpus.count), sizeof *items);
    int count = 0;
    items[count++] = m->hostname;
    for (int i = 0; i < m->gpus.count; i++) {
        items[count++] = m->gpus.items[i].serial;
        items[count++] = m->gpus.items[i].uuid;
    }
    struct literals l = {items, count};
    /* Scrub copies first: the literals still point at the original strings. */
    scrub(&m->source, &l);
    scrub(&m->gpus.source, &l);
    scrub(&m->virt.evidence, &l);
    scrub(&m->memory.unknown_reason, &l);
    scrub(&m->memory.ecc_evidence, &l);
    scrub_location(&m->storage.root, &l);
    if (m->storage.has_data)
        scrub_location(&m->storage.data, &l);
    for (int i = 0; i < m->contention.nprocs; i++)
        scrub(&m->contention.procs[i].name, &l);
    scrub(&m->bench.source, &l);
    scrub(&m->bench.storage_dir, &l);
    scrub(&m->bench.storage_file, &l);
    for (int i = 0; i < m->nproblems; i++) {
        scrub(&m->problems[i].path, &l);
        scrub(&m->problems[i].message, &l);
        scrub(&m->problems[i].message_local, &l);
    }
    for (int i = 0; i < f->count; i++) {
        struct finding *it = &f->items[i];
        scrub(&it->subject, &l);
        scrub(&it->message, &l);
        scrub(&it->fix, &l);
        scrub(&it->message_local, &l);
        scrub(&it->fix_local, &l);
        if (it->evidence) {
            report_redact(it->evidence);
            scrub_json(it->evidence, &l);
        }
    }
    free(items);
    replace(&m->hostname);
    replace(&m->kernel.cmdline);
    for (int i = 0; i < m->gpus.count; i++) {
        replace(&m->gpus.items[i].serial);
        replace(&m->gpus.items[i].uuid);
    }
}
