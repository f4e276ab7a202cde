#include "util/i18n.h"

#include <libgen.h>
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DOMAIN "gpuvet"

static enum i18n_language language = I18N_ENGLISH;
static char locale_dir[PATH_MAX];
static _Thread_local int english_depth;
/* Inside an English scope the thread runs in the C locale, so that glibc's own messages
 * (strerror) are English in the JSON too: with LANGUAGE=zh_CN they would come from libc's
 * catalogue. */
static locale_t c_locale;
static _Thread_local locale_t outside_scope;

enum i18n_language i18n_language(void) { return language; }
bool i18n_translating(void) { return language == I18N_CHINESE && english_depth == 0; }
const char *i18n_locale_dir(void) { return locale_dir; }

void i18n_english_begin(void)
{
    if (english_depth++ == 0 && c_locale)
        outside_scope = uselocale(c_locale);
}

void i18n_english_end(void)
{
    if (english_depth > 0 && --english_depth == 0 && outside_scope) {
        uselocale(outside_scope);
        outside_scope = (locale_t)0;
    }
}

/* Translations of sentences built at run time (i18n_asprintf), by their English text: a hash table
 * of chains. Entries live until the process ends, so _() may hand out their text. Probes may run
 * on several threads: one lock. */
struct kept_translation {
    struct kept_translation *next;
    char *local;
    char english[];
};
#define KEPT_BUCKETS 256
static struct kept_translation *kept[KEPT_BUCKETS];
static int nkept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned kept_bucket(const char *s)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % KEPT_BUCKETS;
}

/* Under kept_lock. */
static struct kept_translation *kept_find(const char *english)
{
    for (struct kept_translation *k = kept[kept_bucket(english)]; k; k = k->next)
        if (!strcmp(k->english, english))
            return k;
    return NULL;
}

int i18n_english_end_with(int rc)
{
    i18n_english_end();
    return rc;
}

char *i18n_format_local(const char *fmt, ...)
{
    char *local = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&local, fmt, ap) < 0)
        local = NULL;
    va_end(ap);
    return local;
}

void i18n_vformat_pair(char **english, char **local, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    if (vasprintf(english, fmt, ap) < 0)
        *english = NULL;
    *local = NULL;
    if (*english && i18n_translating() && vasprintf(local, _(fmt), again) < 0)
        *local = NULL;
    va_end(again);
}

int i18n_keep_translation(const char *english, char *local)
{
    if (!english || !local || !strcmp(english, local)) {
        free(local);
        return 0;
    }
    size_t len = strlen(english);
    pthread_mutex_lock(&kept_lock);
    struct kept_translation *k = kept_find(english);
    if (!k && (k = malloc(sizeof *k + len + 1))) {
        memcpy(k->english, english, len + 1);
        k->local = local;
        local = NULL;
        unsigned b = kept_bucket(english);
        k->next = kept[b];
        kept[b] = k;
        nkept++;
    }
    pthread_mutex_unlock(&kept_lock);
    free(local); /* already kept (the same sentence twice), or out of memory */
    return 0;
}

char *i18n_strerror(int error)
{
    i18n_english_begin(); /* the C locale: English */
    char *english = strdup(strerror(error));
    i18n_english_end();
    if (english && i18n_translating())
        i18n_keep_translation(english, strdup(strerror(error)));
    return english;
}

static const char *kept_translation(const char *english)
{
    const char *local = NULL;
    pthread_mutex_lock(&kept_lock);
    if (nkept) {
        const struct kept_translation *k = kept_find(english);
        local = k ? k->local : NULL;
    }
    pthread_mutex_unlock(&kept_lock);
    return local;
}

const char *i18n_text(const char *msgid)
{
    if (!i18n_translating() || !msgid || !*msgid)
        return msgid;
    const char *local = kept_translation(msgid);
    return local ? local : dgettext(DOMAIN, msgid);
}

const char *i18n_plural(const char *singular, const char *plural, unsigned long n)
{
    if (i18n_translating())
        return dngettext(DOMAIN, singular, plural, n);
    return n == 1 ? singular : plural;
}

/* "zh", "zh_CN", "zh_CN.UTF-8", "zh_CN.utf8" ... */
static bool names_chinese(const char *value) { return value && !strncasecmp(value, "zh", 2); }

static bool has_catalogue(const char *dir)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/zh_CN/LC_MESSAGES/" DOMAIN ".mo", dir);
    return access(path, R_OK) == 0;
}

/* Like util/datadir.c finds the tables: $GPUVET_LOCALE_DIR, then PREFIX/share/locale beside an
 * installed PREFIX/bin/gpuvet, then locale/ beside the binary (the build tree), then the
 * prefix compiled in. */
static bool find_locale_dir(void)
{
    const char *env = getenv("GPUVET_LOCALE_DIR");
    if (env && *env) {
        snprintf(locale_dir, sizeof locale_dir, "%s", env);
        return has_catalogue(locale_dir);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *bin = dirname(exe);
        snprintf(locale_dir, sizeof locale_dir, "%s/../share/locale", bin);
        if (has_catalogue(locale_dir))
            return true;
        snprintf(locale_dir, sizeof locale_dir, "%s/locale", bin);
        if (has_catalogue(locale_dir))
            return true;
    }
#ifdef GPUVET_LOCALEDIR
    snprintf(locale_dir, sizeof locale_dir, "%s", GPUVET_LOCALEDIR);
    if (has_catalogue(locale_dir))
        return true;
#endif
    locale_dir[0] = '\0';
    return false;
}

int i18n_init(const char *option)
{
    bool chinese;
    if (option) {
        if (!strcasecmp(option, "en") || !strcasecmp(option, "C"))
            chinese = false;
        else if (!strcasecmp(option, "zh") || !strcasecmp(option, "zh_CN") || !strcasecmp(option, "zh-CN"))
            chinese = true;
        else
            return -1;
    } else {
        const char *value = NULL;
        const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
        for (size_t i = 0; i < 3 && !value; i++) {
            const char *v = getenv(vars[i]);
            if (v && *v)
                value = v;
        }
        chinese = names_chinese(value);
    }
    language = I18N_ENGLISH;
    if (!chinese)
        return 0;
    if (!find_locale_dir()) {
        fputs("gpuvet: no Chinese catalogue (zh_CN/LC_MESSAGES/gpuvet.mo) found beside the binary, "
              "in PREFIX/share/locale or $GPUVET_LOCALE_DIR: messages stay in English\n",
              stderr);
        return 0;
    }
    /* zh_CN.UTF-8 is often not generated (a fresh Debian has C.UTF-8 only), and gettext ignores
     * LANGUAGE under the "C" locale but not under C.UTF-8: so messages come from C.UTF-8 plus
     * LANGUAGE, which works whatever locales exist. Only LC_MESSAGES and LC_CTYPE change: numbers
     * keep the C locale's decimal point (JSON, parsed files). */
    if (!setlocale(LC_MESSAGES, "C.UTF-8") && !setlocale(LC_MESSAGES, "zh_CN.UTF-8"))
        return 0;
    setlocale(LC_CTYPE, "C.UTF-8");
    setenv("LANGUAGE", "zh_CN", 1);
    if (!c_locale)
        c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    bindtextdomain(DOMAIN, locale_dir);
    bind_textdomain_codeset(DOMAIN, "UTF-8");
    language = I18N_CHINESE;
    return 0;
}
