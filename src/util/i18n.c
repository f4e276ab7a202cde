#include "util/i18n.h"

#include "util/inputfile.h"
#include "util/mo.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The zh_CN catalogue compiled in (cmake/i18n.cmake: po/zh_CN.po through msgfmt, then
 * cmake/embed_data.cmake), so a binary copied alone speaks Chinese. */
extern const unsigned char embedded_catalogue_zh_CN[];
extern const size_t embedded_catalogue_zh_CN_size;

#define CATALOGUE_FILE "zh_CN/LC_MESSAGES/gpuvet.mo"
/* A catalogue is about 300 KB: a file far larger is not one (and is not read into memory). */
#define CATALOGUE_MAX_BYTES (64u << 20)

static enum i18n_language language = I18N_ENGLISH;
static _Thread_local int english_depth;
/* Inside an English scope the thread runs in the C locale, so that glibc's own messages (strerror
 * called directly, not through i18n_strerror) are English in the JSON too: outside it they may come
 * from libc's catalogue (i18n_init). */
static locale_t c_locale;
static _Thread_local locale_t outside_scope;
/* Messages are looked up in the installed catalogue (when there is a usable one: a translator's
 * newer copy), then in the built-in one. Both are set once, in i18n_init, before any thread starts,
 * and only read afterwards. */
static struct mo_catalogue installed_catalogue, built_in_catalogue;
static bool have_installed, have_built_in, catalogues_loaded;

enum i18n_language i18n_language(void) { return language; }
bool i18n_translating(void) { return language == I18N_CHINESE && english_depth == 0; }

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

/* glibc's C-locale texts of the errno values gpuvet can meet reading machine and user files, running
 * tools (fork, exec, wait, pipes) and writing outputs, marked for the catalogue: a reason such as
 * "No such file or directory" is Chinese without Debian's libc-l10n. An errno not in this table
 * keeps glibc's text: Chinese only where libc-l10n is installed (i18n_init), else English. */
static const struct errno_text {
    int error;
    const char *english;
} errno_texts[] = {
    {EPERM, N_("Operation not permitted")},
    {ENOENT, N_("No such file or directory")},
    {ESRCH, N_("No such process")},
    {EINTR, N_("Interrupted system call")},
    {EIO, N_("Input/output error")},
    {ENXIO, N_("No such device or address")},
    {E2BIG, N_("Argument list too long")},
    {ENOEXEC, N_("Exec format error")},
    {EBADF, N_("Bad file descriptor")},
    {ECHILD, N_("No child processes")},
    {EAGAIN, N_("Resource temporarily unavailable")},
    {ENOMEM, N_("Cannot allocate memory")},
    {EACCES, N_("Permission denied")},
    {EBUSY, N_("Device or resource busy")},
    {EEXIST, N_("File exists")},
    {EXDEV, N_("Invalid cross-device link")},
    {ENODEV, N_("No such device")},
    {ENOTDIR, N_("Not a directory")},
    {EISDIR, N_("Is a directory")},
    {EINVAL, N_("Invalid argument")},
    {ENFILE, N_("Too many open files in system")},
    {EMFILE, N_("Too many open files")},
    {ETXTBSY, N_("Text file busy")},
    {EFBIG, N_("File too large")},
    {ENOSPC, N_("No space left on device")},
    {EROFS, N_("Read-only file system")},
    {EPIPE, N_("Broken pipe")},
    {ERANGE, N_("Numerical result out of range")},
    {ENAMETOOLONG, N_("File name too long")},
    {ENOSYS, N_("Function not implemented")},
    {ENOTEMPTY, N_("Directory not empty")},
    {ELOOP, N_("Too many levels of symbolic links")},
    {ENODATA, N_("No data available")},
    {EOVERFLOW, N_("Value too large for defined data type")},
    {EOPNOTSUPP, N_("Operation not supported")},
    {ECONNREFUSED, N_("Connection refused")},
    {ETIMEDOUT, N_("Connection timed out")},
    {ESTALE, N_("Stale file handle")},
    {EDQUOT, N_("Disk quota exceeded")},
};

/* Our translation of glibc's C-locale text for error, NULL for an errno outside errno_texts. */
static const char *own_error_translation(int error, const char *english)
{
    for (size_t i = 0; i < sizeof errno_texts / sizeof errno_texts[0]; i++)
        if (errno_texts[i].error == error && !strcmp(errno_texts[i].english, english))
            return _(english);
    return NULL;
}

char *i18n_strerror(int error)
{
    i18n_english_begin(); /* the C locale: English */
    char *english = strdup(strerror(error));
    i18n_english_end();
    if (!english || !i18n_translating())
        return english;
    const char *local = own_error_translation(error, english);
    /* else glibc's, in the reader's language where libc-l10n is installed */
    i18n_keep_translation(english, strdup(local ? local : strerror(error)));
    return english;
}

const char *i18n_error_text(int error)
{
    if (!i18n_translating()) {
        /* glibc's English (a constant, or its thread's buffer for an unknown value), even after a
         * Chinese run in this process set LANGUAGE */
        i18n_english_begin();
        const char *english = strerror(error);
        i18n_english_end();
        return english;
    }
    char english[128];
    i18n_english_begin(); /* the C locale: glibc's English, the msgid */
    snprintf(english, sizeof english, "%s", strerror(error));
    i18n_english_end();
    const char *local = own_error_translation(error, english);
    return local ? local : strerror(error);
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
    if (!local && have_installed)
        local = mo_lookup(&installed_catalogue, msgid);
    if (!local && have_built_in)
        local = mo_lookup(&built_in_catalogue, msgid);
    return local ? local : msgid;
}

/* A catalogue's plural form for n: Chinese has one form (nplurals=1). For any other rule gpuvet
 * would have to evaluate the header's plural expression; it shows the English instead of guessing. */
static const char *plural_form(const struct mo_catalogue *catalogue, const char *singular)
{
    return catalogue->nplurals == 1 ? mo_lookup_plural(catalogue, singular, 0) : NULL;
}

const char *i18n_plural(const char *singular, const char *plural, unsigned long n)
{
    if (i18n_translating()) {
        const char *local = have_installed ? plural_form(&installed_catalogue, singular) : NULL;
        if (!local && have_built_in)
            local = plural_form(&built_in_catalogue, singular);
        if (local)
            return local;
    }
    return n == 1 ? singular : plural;
}

/* "zh", "zh_CN", "zh_CN.UTF-8", "zh_CN.utf8" ... */
static bool names_chinese(const char *value) { return value && !strncasecmp(value, "zh", 2); }

/* Like util/datadir.c finds the tables: $GPUVET_LOCALE_DIR, then PREFIX/share/locale beside an
 * installed PREFIX/bin/gpuvet, then locale/ beside the binary (the build tree), then the prefix
 * compiled in. The path of the first catalogue file there into path; false when none. */
static bool find_installed_catalogue(char *path, size_t len)
{
    const char *env = getenv("GPUVET_LOCALE_DIR");
    if (env && *env) {
        snprintf(path, len, "%s/" CATALOGUE_FILE, env);
        if (access(path, F_OK) == 0)
            return true;
        /* Named on purpose: say that it is not used. */
        fprintf(stderr, _("gpuvet: GPUVET_LOCALE_DIR=%s holds no %s: using the built-in catalogue\n"), env,
                CATALOGUE_FILE);
        return false;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *bin = dirname(exe);
        snprintf(path, len, "%s/../share/locale/" CATALOGUE_FILE, bin);
        if (access(path, F_OK) == 0)
            return true;
        snprintf(path, len, "%s/locale/" CATALOGUE_FILE, bin);
        if (access(path, F_OK) == 0)
            return true;
    }
#ifdef GPUVET_LOCALEDIR
    snprintf(path, len, "%s/" CATALOGUE_FILE, GPUVET_LOCALEDIR);
    if (access(path, F_OK) == 0)
        return true;
#endif
    return false;
}

/* The whole file (malloc'd; it stays for the process's life, the catalogue points into it), or NULL
 * with the reason in err. */
static unsigned char *read_catalogue_file(const char *path, size_t *size, char *err, size_t errlen)
{
    FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
    if (!f) {
        char *reason = i18n_strerror(errno);
        snprintf(err, errlen, "%s", reason ? _(reason) : "");
        free(reason);
        return NULL;
    }
    unsigned char *bytes = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used == capacity) {
            if (capacity >= CATALOGUE_MAX_BYTES) {
                snprintf(err, errlen, _("larger than %u MiB"), CATALOGUE_MAX_BYTES >> 20);
                break;
            }
            capacity = capacity ? capacity * 2 : 1u << 19;
            unsigned char *grown = realloc(bytes, capacity);
            if (!grown) {
                snprintf(err, errlen, "%s", _("out of memory"));
                break;
            }
            bytes = grown;
        }
        size_t got = fread(bytes + used, 1, capacity - used, f);
        used += got;
        if (got == 0) {
            if (!ferror(f)) {
                fclose(f);
                *size = used;
                return bytes;
            }
            snprintf(err, errlen, "%s", _("read error"));
            break;
        }
    }
    fclose(f);
    free(bytes);
    return NULL;
}

/* The built-in catalogue, then an installed one over it. A broken installed file (cut short,
 * corrupted, not a catalogue) is said once on stderr, naming it, and the built-in one is used. */
static void load_catalogues(void)
{
    catalogues_loaded = true;
    char err[256];
    have_built_in = mo_open_built_in(&built_in_catalogue, embedded_catalogue_zh_CN, embedded_catalogue_zh_CN_size, err,
                            sizeof err) == 0;
    if (!have_built_in) /* msgfmt made it at build time: only a broken build gets here */
        fprintf(stderr, "gpuvet: the built-in Chinese catalogue is unreadable (%s)\n", err);
    language = I18N_CHINESE; /* so that the reasons below are in Chinese */
    char path[PATH_MAX + 64];
    if (!find_installed_catalogue(path, sizeof path))
        return;
    size_t size = 0;
    unsigned char *bytes = read_catalogue_file(path, &size, err, sizeof err);
    if (bytes && mo_open(&installed_catalogue, bytes, size, err, sizeof err) == 0) {
        have_installed = true;
        return;
    }
    free(bytes);
    fprintf(stderr, _("gpuvet: %s: not a usable message catalogue (%s): using the built-in one\n"), path, err);
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
    if (!catalogues_loaded)
        load_catalogues();
    language = have_installed || have_built_in ? I18N_CHINESE : I18N_ENGLISH;
    /* gpuvet's own messages need no locale (it reads its catalogue itself and counts display width
     * with its own table, util/width.c). This is for glibc's: the strerror() texts printed without
     * i18n_strerror, and errno values outside errno_texts, are Chinese where Debian's libc-l10n is
     * installed. zh_CN.UTF-8 is often not generated, and glibc ignores LANGUAGE under "C" but not
     * under C.UTF-8, so: C.UTF-8 plus LANGUAGE (LC_CTYPE too: libc converts its UTF-8 texts to the
     * LC_CTYPE charset). Numbers keep the C locale's decimal point (JSON, parsed files). Where
     * neither locale exists, glibc's texts stay English; gpuvet's are Chinese all the same. */
    if (language == I18N_CHINESE && (setlocale(LC_MESSAGES, "C.UTF-8") || setlocale(LC_MESSAGES, "zh_CN.UTF-8"))) {
        setlocale(LC_CTYPE, "C.UTF-8");
        setenv("LANGUAGE", "zh_CN", 1);
        if (!c_locale)
            c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    }
    return 0;
}
