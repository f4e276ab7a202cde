/* Messages in the user's language from gettext catalogues (po/zh_CN.po, compiled by msgfmt at build
 * time into the binary and into LOCALEDIR/zh_CN/LC_MESSAGES/gpuvet.mo), read by our own .mo reader
 * (util/mo.c): no libintl, no locale to generate. An installed catalogue overrides the built-in one.
 *
 * The language is English unless `--lang zh` or LC_ALL / LC_MESSAGES / LANG (the first one set)
 * names zh. Human output is translated; machine output (JSON, Prometheus) never is: its writers and
 * the rules' English pass run inside i18n_english_begin/end, where _() returns the English text. */
#ifndef GPUVET_UTIL_I18N_H
#define GPUVET_UTIL_I18N_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Marks a string for translation and translates it now (English inside an English scope). */
#define _(msgid) i18n_text(msgid)
/* Marks a string for the catalogue only; it is translated where it is printed, with _(). */
#define N_(msgid) msgid

enum i18n_language { I18N_ENGLISH, I18N_CHINESE };

/* Picks the language: option "zh", "zh_CN", "en" (from --lang; NULL: the environment) and, the first
 * time Chinese is chosen, loads the catalogues: the built-in one, and over it the first
 * zh_CN/LC_MESSAGES/gpuvet.mo in $GPUVET_LOCALE_DIR, PREFIX/share/locale beside an installed binary,
 * locale/ beside it (the build tree) or the install prefix compiled in. An installed file that is
 * not a usable catalogue is named once on stderr and the built-in one is used. Returns -1 for an
 * option value it does not know (nothing changed). */
int i18n_init(const char *option);

/* The language messages are shown in (English before i18n_init, so unit tests see English). */
enum i18n_language i18n_language(void);
/* True when _() translates here and now: Chinese chosen and no English scope open on this thread. */
bool i18n_translating(void);

const char *i18n_text(const char *msgid) __attribute__((format_arg(1)));
/* The same, for "%d thing" / "%d things": n picks the form (English); Chinese has one form. */
const char *i18n_plural(const char *singular, const char *plural, unsigned long n)
    __attribute__((format_arg(1))) __attribute__((format_arg(2)));

/* Machine output and the rules' English pass: _() returns the English text until the matching end.
 * Scopes nest and are per thread. */
void i18n_english_begin(void);
void i18n_english_end(void);

/* A sentence built at run time around a file, mount, driver name or errno text (a probe's reason
 * for an unknown fact): formats fmt into a malloc'd *english with the arguments evaluated inside an
 * English scope (so _() and strerror() in them give English: the model and the JSON keep it), and
 * when translating formats _(fmt) with the arguments evaluated again in the reader's language and
 * remembers it as the translation of *english: _(*english) where the text is printed shows it, as
 * it shows a constant reason marked with N_(). The arguments are evaluated twice: no side effects.
 * 0, or -1 with *english NULL when out of memory. */
#define i18n_asprintf(english, fmt, ...)                                                                \
    (i18n_english_begin(), i18n_english_end_with(asprintf((english), fmt, __VA_ARGS__)) < 0              \
         ? (*(english) = NULL, -1)                                                                      \
         : (i18n_translating() ? i18n_keep_translation(*(english), i18n_format_local(_(fmt), __VA_ARGS__)) \
                               : 0))

/* i18n_asprintf into a caller's buffer (an error or reason returned through char *why, size_t len):
 * the English in buf, cut to len, and its translation kept, so _(buf) where it is printed shows it.
 * The arguments are evaluated twice, as for i18n_asprintf. Out of memory: buf holds "". */
#define i18n_snprintf(buf, len, fmt, ...)                                                              \
    do {                                                                                               \
        char *i18n_text_ = NULL;                                                                       \
        i18n_asprintf(&i18n_text_, fmt, __VA_ARGS__);                                                  \
        snprintf((buf), (len), "%s", i18n_text_ ? i18n_text_ : "");                                    \
        free(i18n_text_);                                                                              \
    } while (0)

/* A sentence in English (*english) and, when gpuvet speaks another language, in it (*local, else
 * NULL): fmt and _(fmt) with the same arguments, which are the same in both languages (paths,
 * numbers). Either is NULL when out of memory. For helpers that keep both texts side by side. */
void i18n_vformat_pair(char **english, char **local, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* Parts of i18n_asprintf: closes the English scope and passes rc on; formats the translation
 * (NULL when out of memory); keeps local (taken over) as the translation of english for _(). */
int i18n_english_end_with(int rc);
char *i18n_format_local(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int i18n_keep_translation(const char *english, char *local);

/* strerror(error) in English (malloc'd; NULL when out of memory), glibc's C-locale text; for the errno
 * values gpuvet can meet (a table in i18n.c) its translation from our catalogue kept, as
 * i18n_asprintf does, so _() of it is Chinese without the C library's own translations. */
char *i18n_strerror(int error);
/* strerror(error) for a message printed at once: in the reader's language, from our catalogue for
 * the errno values of that table (glibc's text for the others); English inside an English scope,
 * like strerror itself. Not to be freed; like strerror, valid until the next call. */
const char *i18n_error_text(int error);

#endif
