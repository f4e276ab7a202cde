/* A reader of GNU .mo message catalogues (the gettext manual, "The Format of GNU MO Files"): the
 * file msgfmt makes from a .po. Our own, so that gpuvet carries its catalogue compiled in and needs
 * no libintl: util/i18n.c decides which catalogue to use, this file only reads one.
 *
 * mo_open checks the whole file once (magic in either byte order, every offset inside the data,
 * every string NUL-terminated, the originals sorted), so a lookup never reads outside it. */
#ifndef GPUVET_UTIL_MO_H
#define GPUVET_UTIL_MO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A message with system-dependent parts ("%" PRIu64 in the source), expanded for this system. */
struct mo_sysdep_message {
    char *original, *translation; /* plural entries hold their forms separated by NULs */
    size_t original_len, translation_len;
};

struct mo_catalogue {
    const unsigned char *data; /* not owned: the caller keeps it alive as long as the catalogue */
    size_t size;
    bool big_endian;           /* the file's byte order (msgfmt writes the host's) */
    uint32_t count;            /* N: messages */
    uint32_t originals;        /* O: offset of the table of original strings */
    uint32_t translations;     /* T: offset of the table of translations */
    int nplurals;              /* from the header's Plural-Forms; 0 when it has none */
    struct mo_sysdep_message *sysdep; /* malloc'd (mo_close frees them) */
    uint32_t nsysdep;
};

/* Checks size bytes at data as a .mo file. 0 and *mo filled, or -1 with a reason in err ("bad
 * magic number", "original string 12 ends past the end of the file", ...). A message with a
 * system-dependent segment this reader does not know is left out (it stays English). */
int mo_open(struct mo_catalogue *mo, const void *data, size_t size, char *err, size_t errlen);
/* Frees what mo_open allocated (not the data). */
void mo_close(struct mo_catalogue *mo);

/* The translation of msgid (for a plural entry, of its singular: the first form), or NULL when the
 * catalogue has none (an empty translation counts as none, as in gettext). */
const char *mo_lookup(const struct mo_catalogue *mo, const char *msgid);

/* Form `index` of the translation of the plural entry whose singular is `singular` (entries are
 * found by it, as in gettext), or NULL when the catalogue has no such entry, the entry is not a
 * plural one, or it has fewer forms. */
const char *mo_lookup_plural(const struct mo_catalogue *mo, const char *singular, unsigned index);

#endif
