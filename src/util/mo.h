/* A reader of GNU .mo message catalogues (the gettext manual, "The Format of GNU MO Files"): the
 * file msgfmt makes from a .po. Our own, so that gpuvet carries its catalogue compiled in and needs
 * no libintl: util/i18n.c decides which catalogue to use, this file only reads one.
 *
 * mo_open checks the whole file once (magic in either byte order, every offset inside the data,
 * every string NUL-terminated, the originals sorted), so a lookup never reads outside it.
 *
 * A translation is data, not code: printf runs it with the arguments its msgid was written for.
 * mo_open checks each translation's conversions against its msgid's, as `msgfmt -c` does: only
 * arguments the msgid takes, each with the same type (positional %2$s allowed, without gaps and
 * with one type per argument; %.0s takes a string and prints nothing, as po/zh_CN.po uses it to
 * drop a plural's "s"). Unlike msgfmt -c it lets a translation leave trailing arguments out: the
 * .mo no longer marks which messages are formats, and a help text's "70 % or more" is none. %n
 * and a letter that is no known conversion are never accepted. A translation that fails is left
 * out: that message is taken from the built-in catalogue, or stays English. */
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
    unsigned char *refused;    /* per message, 1: its translation's conversions differ from its msgid's */
    uint32_t nrefused;         /* those messages, and system-dependent ones left out for the same reason */
};

/* Checks size bytes at data as a .mo file. 0 and *mo filled, or -1 with a reason in err ("bad
 * magic number", "original string 12 ends past the end of the file", ...). A message with a
 * system-dependent segment this reader does not know is left out (it stays English). */
int mo_open(struct mo_catalogue *mo, const void *data, size_t size, char *err, size_t errlen);
/* mo_open without the conversion check, for the catalogue compiled into gpuvet: `msgfmt --check`
 * made it from po/zh_CN.po at build time and test_mo_formats checks it as mo_open would; checking
 * its 1,900 messages again would cost every Chinese run about 0.7 ms. */
int mo_open_built_in(struct mo_catalogue *mo, const void *data, size_t size, char *err, size_t errlen);
/* Whether `translation` may be printed with the arguments `msgid` takes (the rule above). A msgid
 * that is not a valid format takes none: its translation may hold no conversion either. */
bool mo_format_compatible(const char *msgid, const char *translation);
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
