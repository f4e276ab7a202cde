/* Long report lines wrapped to the terminal's width, Chinese text included (report/wrap.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/wrap.h"
#include "util/output.h"
#include "util/width.h"

/* Chinese line breaking (kinsoku): no line starts with closing punctuation, none ends with an
 * opening one. */
static bool no_break_before(unsigned cp)
{
    static const unsigned closing[] = {0xFF0C, 0x3002, 0xFF1B, 0xFF1A, 0x3001, 0xFF09, 0x300D, 0x300F,
                                       0xFF01, 0xFF1F, 0x201D, 0x2019, 0x2026, 0x3011};
    for (size_t i = 0; i < sizeof closing / sizeof closing[0]; i++)
        if (cp == closing[i])
            return true;
    return false;
}

static bool no_break_after(unsigned cp) { return cp == 0xFF08 || cp == 0x300C || cp == 0x300E || cp == 0x201C || cp == 0x3010; }

/* Whether the word after the space at q is a unit, so that a number before the space stays with
 * it: "34 ms", "2.3 %", "25 s", "80 GB" never wrap apart. The word ends at a space, the line's end
 * or punctuation (",", ")", ";", ":", "."). */
static bool unit_follows(const char *q, const char *stop)
{
    static const char *const units[] = {"%",   "s",    "ms",   "us",   "ns",   "min",  "h",     "B",      "KB",
                                        "MB",  "GB",   "TB",   "KiB",  "MiB",  "GiB",  "TiB",   "GB/s",   "MB/s",
                                        "Gb/s", "GT/s", "MHz", "GHz",  "W",    "°C",   "TFLOPS", "tokens/s", "img/s",
                                        "cores", "x"};
    const char *w = q + 1, *e = w;
    while (e < stop && *e != ' ' && *e != ',' && *e != ')' && *e != ';' && *e != ':' &&
           !(*e == '.' && (e + 1 == stop || e[1] == ' ')))
        e++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if ((size_t)(e - w) == strlen(units[i]) && !strncmp(w, units[i], (size_t)(e - w)))
            return true;
    return false;
}

/* Columns a continuation of line (n bytes, indent spaces) is indented by. */
typedef size_t hang_fn(const char *line, size_t n, size_t indent, const char *hang_under);

/* "fix: ..." (hang_under) continues under its command, anything else 8 columns in (at most 40). */
static size_t hang_under_prefix(const char *line, size_t n, size_t indent, const char *hang_under)
{
    size_t under_len = hang_under ? strlen(hang_under) : 0;
    size_t hang = indent + 8;
    if (under_len && n > indent + under_len && !strncmp(line + indent, hang_under, under_len))
        hang = indent + display_width(hang_under);
    return hang > 40 ? 40 : hang;
}

/* A table row continues under its last column: the text after its last run of two or more
 * spaces (within the first 60 columns); a "- " item under its text; another line 8 columns in. */
static size_t hang_last_column(const char *line, size_t n, size_t indent, const char *unused)
{
    (void)unused;
    if (n > indent + 2 && line[indent] == '-' && line[indent + 1] == ' ')
        return indent + 2;
    size_t last = 0;
    for (size_t i = indent + 2; i < n; i++)
        if (line[i] != ' ' && line[i - 1] == ' ' && line[i - 2] == ' ') {
            size_t col = display_width_n(line, i);
            if (col > 60)
                break;
            last = col;
        }
    size_t hang = last ? last : indent + 8;
    return hang > 60 ? 60 : hang;
}

static void wrap_lines(FILE *o, const char *buf, size_t len, size_t width, hang_fn *hang_of, const char *hang_under)
{
    const char *end = buf + len;
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        size_t indent = 0;
        while (indent < n && line[indent] == ' ')
            indent++;
        size_t hang = hang_of(line, n, indent, hang_under);
        const char *p = line, *stop = line + n;
        bool first = true;
        while (p < stop) {
            size_t lead = first ? 0 : hang, room = width - lead;
            /* Find the longest prefix that fits in room columns; break at a space, or next to a
             * wide (CJK) character, which Chinese text breaks anywhere beside. */
            const char *q = p, *cut = NULL;
            size_t cols = 0;
            bool prev_wide = false;
            unsigned prev_cp = 0;
            while (q < stop) {
                if (*q == '\033') {
                    while (q < stop && *q != 'm')
                        q++;
                    if (q < stop)
                        q++;
                    continue;
                }
                unsigned cp;
                size_t bytes = utf8_decode(q, (size_t)(stop - q), &cp);
                size_t w = (size_t)codepoint_width(cp);
                if (cols + w > room)
                    break;
                if (q > p && (*q == ' ' || w == 2 || prev_wide) && !(first && q < p + indent) &&
                    !no_break_before(cp) && !no_break_after(prev_cp) &&
                    !(*q == ' ' && prev_cp >= '0' && prev_cp <= '9' && unit_follows(q, stop)))
                    cut = q;
                cols += w;
                prev_wide = w == 2;
                prev_cp = cp;
                q += bytes;
            }
            if (q >= stop) {
                cut = stop;
            } else if (!cut || cut - p <= (ptrdiff_t)(first ? indent : 0)) {
                /* One word wider than the line (a path, an ID): kept whole, the line runs over. */
                cut = q;
                while (cut < stop && *cut != ' ')
                    cut++;
            }
            const char *shown_end = cut; /* no trailing space where a line breaks before a CJK character */
            while (cut < stop && shown_end > p && shown_end[-1] == ' ')
                shown_end--;
            fprintf(o, "%*s%.*s\n", (int)lead, "", (int)(shown_end - p), p);
            p = cut;
            while (p < stop && *p == ' ')
                p++;
            first = false;
        }
        if (n == 0)
            fputc('\n', o);
        line += n + 1;
    }
}

void print_wrapped(FILE *o, const char *buf, size_t len, size_t width, const char *hang_under)
{
    wrap_lines(o, buf, len, width, hang_under_prefix, hang_under);
}

void print_wrapped_table(FILE *o, const char *buf, size_t len, size_t width)
{
    wrap_lines(o, buf, len, width, hang_last_column, NULL);
}

static size_t hang_at_indent(const char *line, size_t n, size_t indent, const char *unused)
{
    (void)line, (void)n, (void)unused;
    return indent;
}

void print_wrapped_indented(FILE *o, const char *buf, size_t len, size_t width)
{
    wrap_lines(o, buf, len, width, hang_at_indent, NULL);
}

int render_wrapped_table(FILE *out, int (*render)(FILE *out, const void *ctx), const void *ctx)
{
    char *buf;
    size_t len;
    int rc = text_render_to_memory(render, ctx, &buf, &len);
    if (rc == TEXT_NO_MEMORY)
        return render(out, ctx);
    if (rc == 0)
        print_wrapped_table(out, buf, len, report_columns(out));
    free(buf);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

size_t report_columns(FILE *o)
{
    long cols = 0;
    struct winsize ws;
    int fd = o ? fileno(o) : -1;
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        cols = ws.ws_col;
    } else {
        const char *env = getenv("COLUMNS");
        char *end;
        if (env && *env) {
            long v = strtol(env, &end, 10);
            if (!*end && v > 0)
                cols = v;
        }
    }
    if (cols <= 0)
        cols = REPORT_COLUMNS;
    if (cols < REPORT_COLUMNS_MIN)
        cols = REPORT_COLUMNS_MIN;
    if (cols > REPORT_COLUMNS_MAX)
        cols = REPORT_COLUMNS_MAX;
    return (size_t)cols;
}

/* A help line continues under its text: an option's description (after its last run of two or
 * more spaces), a usage line's first "[", or an indented line's own indent. */
static size_t hang_help(const char *line, size_t n, size_t indent, const char *unused)
{
    (void)unused;
    const char *bracket = memchr(line, '[', n);
    if (indent == 0 && bracket && display_width_n(line, (size_t)(bracket - line)) <= 40)
        return display_width_n(line, (size_t)(bracket - line));
    size_t last = 0;
    for (size_t i = indent + 2; i < n; i++)
        if (line[i] != ' ' && line[i - 1] == ' ' && line[i - 2] == ' ') {
            size_t col = display_width_n(line, i);
            if (col > 40)
                break;
            last = col;
        }
    return last ? last : indent;
}

static unsigned first_codepoint(const char *s, size_t n)
{
    unsigned cp = 0;
    return n && utf8_decode(s, n, &cp) ? cp : 0;
}

static unsigned last_codepoint(const char *s, size_t n)
{
    size_t k = n;
    while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
        k--;
    unsigned cp = 0;
    return k > 0 && utf8_decode(s + k - 1, n - (k - 1), &cp) ? cp : 0;
}

static bool fullwidth_punctuation(unsigned cp) { return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF65); }

/* Two lines of one paragraph join with a space, except in Chinese: between two CJK characters and
 * beside full-width punctuation, which carry no space. */
static bool join_without_space(unsigned before, unsigned after)
{
    return (codepoint_width(before) == 2 && codepoint_width(after) == 2) || fullwidth_punctuation(before) ||
           fullwidth_punctuation(after);
}

void print_help(FILE *o, const char *text)
{
    size_t width = report_columns(o), len = strlen(text);
    /* A paragraph (a line and the deeper-indented lines that continue it) that does not fit is
     * joined and wrapped again at this width; one that fits is left as written. */
    char *joined = NULL;
    size_t joined_len = 0;
    FILE *m = open_memstream(&joined, &joined_len);
    if (!m) {
        fputs(text, o);
        return;
    }
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        size_t indent = 0;
        while (indent < n && line[indent] == ' ')
            indent++;
        /* the paragraph: following lines indented deeper than this one, not an option of their own */
        const char *next = line + n + (nl ? 1 : 0), *par_end = next;
        bool too_wide = display_width_n(line, n) > width;
        while (par_end < end && n > indent) {
            const char *e = memchr(par_end, '\n', (size_t)(end - par_end));
            size_t k = e ? (size_t)(e - par_end) : (size_t)(end - par_end);
            size_t in = 0;
            while (in < k && par_end[in] == ' ')
                in++;
            /* a new option, a note of its own (a capital), or after a usage line what is no "[...]" */
            if (in == k || in <= indent || par_end[in] == '-' || (par_end[in] >= 'A' && par_end[in] <= 'Z') ||
                (indent == 0 && par_end[in] != '['))
                break;
            too_wide |= display_width_n(par_end, k) > width;
            par_end += k + (e ? 1 : 0);
        }
        if (!too_wide || par_end == next) {
            fwrite(line, 1, (size_t)(par_end - line), m);
            if (par_end == end && end[-1] != '\n')
                fputc('\n', m);
            line = par_end;
            continue;
        }
        fwrite(line, 1, n, m);
        const char *prev = line;
        size_t prev_n = n;
        for (const char *p = next; p < par_end;) {
            const char *e = memchr(p, '\n', (size_t)(par_end - p));
            size_t k = e ? (size_t)(e - p) : (size_t)(par_end - p);
            size_t in = 0;
            while (in < k && p[in] == ' ')
                in++;
            /* Chinese joins without a space */
            if (!join_without_space(last_codepoint(prev, prev_n), first_codepoint(p + in, k - in)))
                fputc(' ', m);
            fwrite(p + in, 1, k - in, m);
            prev = p + in, prev_n = k - in;
            p += k + (e ? 1 : 0);
        }
        fputc('\n', m);
        line = par_end;
    }
    fclose(m);
    /* "[--lang zh|en]" is one thing: its spaces become no-break spaces (U+00A0, one column, no
     * break point) while the text is wrapped, and spaces again on the way out. */
    char *kept = malloc(joined_len * 2 + 1);
    if (!kept) {
        wrap_lines(o, joined, joined_len, width, hang_help, NULL);
        free(joined);
        return;
    }
    size_t k = 0;
    int depth = 0;
    for (size_t i = 0; i < joined_len; i++) {
        char c = joined[i];
        depth = c == '[' ? depth + 1 : c == ']' && depth > 0 ? depth - 1 : c == '\n' ? 0 : depth;
        if (c == ' ' && depth > 0) {
            kept[k++] = '\xc2';
            kept[k++] = '\xa0';
        } else {
            kept[k++] = c;
        }
    }
    free(joined);
    char *wrapped = NULL;
    size_t wrapped_len = 0;
    FILE *w = open_memstream(&wrapped, &wrapped_len);
    if (!w) {
        free(kept);
        return;
    }
    wrap_lines(w, kept, k, width, hang_help, NULL);
    fclose(w);
    free(kept);
    for (size_t i = 0; i < wrapped_len; i++) {
        if (wrapped[i] == '\xc2' && i + 1 < wrapped_len && wrapped[i + 1] == '\xa0') {
            fputc(' ', o);
            i++;
        } else {
            fputc(wrapped[i], o);
        }
    }
    free(wrapped);
}

/* error_vline with its arguments given here. */
static char *error_line(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *error_line(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = error_vline(command, fmt, ap);
    va_end(ap);
    return line;
}

void print_note_line(FILE *out, const char *line, const char *hang_under)
{
    char *escaped = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&escaped, &len);
    bool ready = false;
    if (m) {
        bool written = text_write_escaped(m, line, strlen(line), NULL) == 0;
        ready = fclose(m) == 0 && written;
    }
    int fd = fileno(out);
    if (ready && fd >= 0 && isatty(fd))
        print_wrapped(out, escaped, len, report_columns(out), hang_under);
    else if (ready)
        fwrite(escaped, 1, len, out);
    else
        text_write_escaped(out, line, strlen(line), NULL);
    free(escaped);
}

void print_note_to(FILE *out, const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = error_vline(command, fmt, ap);
    va_end(ap);
    char *prefix = error_line(command, "%s", "");
    if (line && prefix) {
        prefix[strcspn(prefix, "\n")] = '\0';
        print_note_line(out, line, prefix);
    } else if (line) {
        text_write_escaped(out, line, strlen(line), NULL);
    }
    free(prefix);
    free(line);
}
