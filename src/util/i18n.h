/* Messages in the user's language through gettext (glibc's libintl; catalogues in po/, compiled to
 * LOCALEDIR/zh_CN/LC_MESSAGES/gpuvet.mo at build time).
 *
 * The language is English unless `--lang zh` or LC_ALL / LC_MESSAGES / LANG (the first one set)
 * names zh. Human output is translated; machine output (JSON, Prometheus) never is: its writers and
 * the rules' English pass run inside i18n_english_begin/end, where _() returns the English text. */
#ifndef GPUVET_UTIL_I18N_H
#define GPUVET_UTIL_I18N_H

#include <stdbool.h>

/* Marks a string for translation and translates it now (English inside an English scope). */
#define _(msgid) i18n_text(msgid)
/* Marks a string for the catalogue only; it is translated where it is printed, with _(). */
#define N_(msgid) msgid

enum i18n_language { I18N_ENGLISH, I18N_CHINESE };

/* Picks the language: option "zh", "zh_CN", "en" (from --lang; NULL: the environment) and binds
 * the catalogue. Returns -1 for an option value it does not know (nothing changed). A Chinese
 * choice without a catalogue found stays English and says why on stderr. */
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

/* The folder the catalogue was bound from ("" when none): for --version and tests. */
const char *i18n_locale_dir(void);

#endif
