/* Builds a man page at build time from two sources, so nothing is written twice:
 *   - the command's own `--help` text (synopsis, description, options, exit status), taken from the
 *     freshly built binary, so an option added to a builtin's usage string appears in its page;
 *   - man/PAGE.man: what --help does not say (more description, EXAMPLES, FILES, SEE ALSO...).
 * usage: mkman GPUVET_BINARY COMMAND|- SOURCE.man VERSION DATE OUT.1   ("-": the gpuvet(1) page)
 *
 * SOURCE.man markup: '#' lines are comments; a line in capitals alone starts a section; a blank line
 * ends a paragraph; a line indented by 4 spaces is a literal (example) line; `code` is set in bold.
 * A DESCRIPTION section comes first in the page's description, before what --help says.
 * gpuvet-audit(1) also gets a RULES section: every rule of `gpuvet audit --list-rules` with its
 * `gpuvet explain ID` text (title, area, severity per workload, rationale), the rules' one home. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* popen, open_memstream */
#endif
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *run(const char *binary, const char *args)
{
    char cmd[8192];
    /* The pages are English whatever the build's locale (gpuvet --lang picks the language). */
    snprintf(cmd, sizeof cmd, "'%s' --lang en %s", binary, args);
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror(cmd);
        exit(1);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int c;
    while ((c = fgetc(p)) != EOF)
        fputc(c, mem);
    fclose(mem);
    if (pclose(p) != 0) {
        fprintf(stderr, "mkman: %s failed\n", cmd);
        exit(1);
    }
    return text;
}

/* Writes text escaped for roff; `code` in bold. */
static void put_text(FILE *o, const char *s, size_t n)
{
    bool bold = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\')
            fputs("\\e", o);
        else if (c == '-')
            fputs("\\-", o);
        else if (c == '`') {
            fputs(bold ? "\\fR" : "\\fB", o);
            bold = !bold;
        } else
            fputc(c, o);
    }
    if (bold)
        fputs("\\fR", o);
}

/* One line of running text; \& keeps a leading '.' or '\'' from being a request. */
static void put_line(FILE *o, const char *s, size_t n)
{
    while (n && s[n - 1] == ' ')
        n--;
    if (n && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", o);
    put_text(o, s, n);
    fputc('\n', o);
}

static size_t indent_of(const char *s)
{
    size_t i = 0;
    while (s[i] == ' ')
        i++;
    return i;
}

/* "  --json   write ..." -> tag "--json", text "write ...": a gap of two spaces after the tag. */
static bool split_item(const char *line, size_t *tag_len, const char **desc)
{
    if (indent_of(line) != 2 || !line[2])
        return false;
    const char *gap = strstr(line + 2, "  ");
    if (!gap)
        return false;
    const char *d = gap;
    while (*d == ' ')
        d++;
    if (!*d)
        return false;
    *tag_len = (size_t)(gap - (line + 2));
    *desc = d;
    return true;
}

struct help {
    char **lines;
    int n;
};

static struct help split_lines(char *text)
{
    struct help h = {0};
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        h.lines = realloc(h.lines, sizeof *h.lines * (size_t)(h.n + 1));
        h.lines[h.n++] = line;
    }
    return h;
}

/* strtok_r drops blank lines, so split by hand to keep them (they end paragraphs). */
static struct help split_keep_blank(char *text)
{
    struct help h = {0};
    char *line = text;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        h.lines = realloc(h.lines, sizeof *h.lines * (size_t)(h.n + 1));
        h.lines[h.n++] = line;
        line = nl ? nl + 1 : NULL;
    }
    return h;
}

/* The help text after its usage block: paragraphs, option/command lists, headings ("llm-train:"). */
static void put_help_body(FILE *o, struct help *h, int from, bool *exit_status_seen, FILE *exit_status)
{
    enum { NONE, PARA, ITEM } state = NONE;
    for (int i = from; i < h->n; i++) {
        const char *line = h->lines[i];
        size_t tag_len;
        const char *desc;
        if (!*line) {
            state = NONE;
            continue;
        }
        if (!strncmp(line, "exit status:", 12)) {
            *exit_status_seen = true;
            put_line(exit_status, line + 13, strlen(line + 13));
            for (; i + 1 < h->n && *h->lines[i + 1] && indent_of(h->lines[i + 1]) == 0; i++)
                put_line(exit_status, h->lines[i + 1], strlen(h->lines[i + 1]));
            continue;
        }
        if (indent_of(line) == 2 && line[2] == '-' && !strstr(line + 2, "  ") && i + 1 < h->n &&
            indent_of(h->lines[i + 1]) >= 4) {
            /* an option whose tag is too long to keep its text beside it: the text is on the next lines */
            fputs(".TP\n.B ", o);
            put_text(o, line + 2, strlen(line + 2));
            fputc('\n', o);
            state = ITEM;
        } else if (split_item(line, &tag_len, &desc)) {
            fputs(".TP\n.B ", o);
            put_text(o, line + 2, tag_len);
            fputc('\n', o);
            put_line(o, desc, strlen(desc));
            state = ITEM;
        } else if (indent_of(line) >= 4 && state == ITEM) {
            put_line(o, line + indent_of(line), strlen(line + indent_of(line)));
        } else if (indent_of(line) == 0 && line[strlen(line) - 1] == ':' && !strchr(line, ' ')) {
            fputs(".SS ", o);
            put_line(o, line, strlen(line) - 1);
            state = NONE;
        } else {
            if (state != PARA)
                fputs(".PP\n", o);
            put_line(o, line + indent_of(line), strlen(line + indent_of(line)));
            state = PARA;
        }
    }
}

/* RULES: each rule ID as a tagged paragraph holding its explain text. */
static void put_rules(FILE *o, const char *binary)
{
    char *list = run(binary, "audit --list-rules");
    struct help ids = split_lines(list);
    fputs(".SH RULES\n", o);
    const char *intro = "Every rule the audit judges by, as `gpuvet explain ID` prints it: its title, area, severity "
                        "per workload and why it exists. A rule's ID is stable: scripts, alerts and tickets may key on it.";
    put_line(o, intro, strlen(intro));
    for (int i = 0; i < ids.n; i++) {
        char id[64], args[128];
        if (sscanf(ids.lines[i], "%63s", id) != 1)
            continue;
        snprintf(args, sizeof args, "explain '%s'", id);
        char *text = run(binary, args);
        struct help h = split_keep_blank(text);
        fputs(".TP\n.B ", o);
        put_text(o, id, strlen(id));
        fputc('\n', o);
        bool header = true; /* title, area and severities: one per line; then the rationale's paragraphs */
        for (int k = 0; k < h.n; k++) {
            const char *line = h.lines[k];
            if (k == 0) {
                const char *title = strstr(line, " \xe2\x80\x94 "); /* "ID — title" */
                line = title ? title + 5 : line;
            }
            if (!*line) {
                header = false;
                if (k + 1 < h.n && *h.lines[k + 1])
                    fputs(".IP\n", o);
                continue;
            }
            if (header && k > 0)
                fputs(".br\n", o);
            put_line(o, line + indent_of(line), strlen(line + indent_of(line)));
        }
        free(h.lines);
        free(text);
    }
    free(ids.lines);
    free(list);
}

struct section {
    char name[64];
    char *text; /* roff */
    size_t len;
    FILE *out;
};

/* Converts SOURCE.man into roff, one buffer per section. */
static int read_source(const char *path, struct section *sections, int max)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(1);
    }
    int n = 0;
    struct section *cur = NULL;
    bool in_example = false, in_para = false;
    char line[4096];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#')
            continue;
        bool heading = line[0] && isupper((unsigned char)line[0]);
        for (const char *p = line; heading && *p; p++)
            heading = isupper((unsigned char)*p) || *p == ' ';
        if (heading) {
            if (cur && in_example)
                fputs(".fi\n.RE\n", cur->out);
            if (n == max) {
                fprintf(stderr, "%s:%d: too many sections\n", path, lineno);
                exit(1);
            }
            cur = &sections[n++];
            snprintf(cur->name, sizeof cur->name, "%.63s", line);
            cur->out = open_memstream(&cur->text, &cur->len);
            in_example = in_para = false;
            continue;
        }
        if (!cur) {
            if (line[0]) {
                fprintf(stderr, "%s:%d: text before the first section heading\n", path, lineno);
                exit(1);
            }
            continue;
        }
        if (!strncmp(line, "    ", 4)) {
            if (!in_example)
                fputs(".PP\n.RS 4\n.nf\n", cur->out);
            in_example = true;
            in_para = false;
            put_line(cur->out, line + 4, strlen(line + 4));
            continue;
        }
        if (in_example) {
            fputs(".fi\n.RE\n", cur->out);
            in_example = false;
        }
        if (!line[0]) {
            in_para = false;
            continue;
        }
        if (!in_para)
            fputs(".PP\n", cur->out);
        in_para = true;
        put_line(cur->out, line, strlen(line));
    }
    if (cur && in_example)
        fputs(".fi\n.RE\n", cur->out);
    fclose(f);
    for (int i = 0; i < n; i++)
        fclose(sections[i].out);
    return n;
}

static void upper(char *dst, const char *src, size_t len)
{
    size_t i = 0;
    for (; src[i] && i + 1 < len; i++)
        dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = '\0';
}

/* Writes the page, leaving out a .PP right after a heading: the heading starts the paragraph already
 * (mandoc -T lint warns "skipping paragraph macro"). */
static int write_page(const char *path, char *text)
{
    FILE *o = fopen(path, "w");
    if (!o) {
        perror(path);
        return 1;
    }
    bool after_heading = false;
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line) - 1; /* the last line lacks its newline: never so, but safe */
        size_t len = (size_t)(end - line) + (*end != '\n');
        bool paragraph = len == 3 && !strncmp(line, ".PP", 3);
        if (!(after_heading && paragraph))
            fprintf(o, "%.*s\n", (int)len, line);
        after_heading = !strncmp(line, ".SH ", 4) || !strncmp(line, ".SS ", 4);
    }
    if (fclose(o) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fputs("usage: mkman GPUVET_BINARY COMMAND|- SOURCE.man VERSION DATE OUT.1\n", stderr);
        return 2;
    }
    const char *binary = argv[1], *command = argv[2], *source = argv[3], *version = argv[4], *date = argv[5],
               *out_path = argv[6];
    bool top = !strcmp(command, "-");
    /* The help texts wrap to the terminal's width where they know it: the pages have one width. */
    setenv("COLUMNS", "100", 1);
    char page[128], args[256];
    snprintf(page, sizeof page, top ? "gpuvet" : "gpuvet-%s", command);
    snprintf(args, sizeof args, top ? "--help" : "%s --help", command);
    char *help_text = run(binary, args);
    struct help h = split_keep_blank(help_text);

    /* The NAME line: the summary `gpuvet --help` gives the command (main.c's table). */
    char summary[512] = "";
    if (!top) {
        char *list_text = run(binary, "--help");
        struct help list = split_lines(list_text);
        for (int i = 0; i < list.n; i++) {
            size_t tag_len;
            const char *desc;
            if (split_item(list.lines[i], &tag_len, &desc) && tag_len == strlen(command) &&
                !strncmp(list.lines[i] + 2, command, tag_len))
                snprintf(summary, sizeof summary, "%s", desc);
        }
        free(list.lines);
        free(list_text);
        if (!*summary) {
            fprintf(stderr, "mkman: `gpuvet --help` lists no command '%s' (add it to main.c)\n", command);
            return 1;
        }
    }
    struct section sections[16];
    int nsections = read_source(source, sections, 16);
    const struct section *name_section = NULL, *description = NULL;
    for (int i = 0; i < nsections; i++) {
        if (!strcmp(sections[i].name, "NAME"))
            name_section = &sections[i];
        if (!strcmp(sections[i].name, "DESCRIPTION"))
            description = &sections[i];
    }
    if (top && !name_section) {
        fprintf(stderr, "%s: the gpuvet(1) source needs a NAME section\n", source);
        return 1;
    }

    char *page_text = NULL;
    size_t page_len = 0;
    FILE *o = open_memstream(&page_text, &page_len);
    char title[128];
    upper(title, page, sizeof title);
    fputs(".TH ", o);
    put_text(o, title, strlen(title));
    fprintf(o, " 1 \"%s\" \"gpuvet %s\" \"gpuvet manual\"\n.SH NAME\n", date, version);
    put_text(o, page, strlen(page));
    fputs(" \\- ", o);
    if (top) {
        /* the NAME section's text is one plain line */
        const char *t = name_section->text;
        while (!strncmp(t, ".PP\n", 4))
            t += 4;
        fputs(t, o);
    } else {
        put_line(o, summary, strlen(summary));
    }
    /* SYNOPSIS: the usage block, continuation lines included. */
    fputs(".SH SYNOPSIS\n.nf\n", o);
    int i = 0;
    for (; i < h.n && *h.lines[i]; i++) {
        const char *line = h.lines[i];
        if (!strncmp(line, "usage: ", 7))
            line += 7;
        else
            line += indent_of(line) >= 7 ? 7 : indent_of(line);
        put_line(o, line, strlen(line));
    }
    fputs(".fi\n.SH DESCRIPTION\n", o);
    if (description)
        fputs(description->text, o);
    char *exit_text = NULL;
    size_t exit_len = 0;
    FILE *exit_status = open_memstream(&exit_text, &exit_len);
    bool exit_seen = false;
    put_help_body(o, &h, i, &exit_seen, exit_status);
    fclose(exit_status);
    if (exit_seen)
        fprintf(o, ".SH EXIT STATUS\n%s", exit_text);
    if (!top && !strcmp(command, "audit"))
        put_rules(o, binary);
    for (int s = 0; s < nsections; s++)
        if (&sections[s] != description && &sections[s] != name_section)
            fprintf(o, ".SH %s\n%s", sections[s].name, sections[s].text);
    fclose(o);
    if (write_page(out_path, page_text) != 0)
        return 1;
    free(page_text);
    for (int s = 0; s < nsections; s++)
        free(sections[s].text);
    free(exit_text);
    free(h.lines);
    free(help_text);
    return 0;
}
