/* The CSV reader on what spreadsheets and hand edits produce: quotes, commas and newlines inside
 * fields, CRLF, a byte-order mark, blank lines; and the FILE:LINE of what is wrong. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/csv.h"

static char *write_temp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gpuvet-csv-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

Test(csv, spreadsheet_export)
{
    const char *path = write_temp("\xEF\xBB\xBFname,gpu,count\r\n\"Offer, \"\"big\"\"\",h100,8\r\n\r\n"
                                  "\"two\nlines\",a100,\"4\"\r\n");
    struct csv_table t;
    char err[256];
    cr_assert_eq(csv_load(path, &t, err, sizeof err), 0, "%s", err);
    cr_expect_eq(t.ncols, 3);
    cr_expect_str_eq(t.header[0], "name");
    cr_assert_eq(t.nrows, 2);
    cr_expect_str_eq(t.rows[0].fields[0], "Offer, \"big\"");
    cr_expect_eq(t.rows[0].line, 2);
    cr_expect_str_eq(t.rows[1].fields[0], "two\nlines");
    cr_expect_eq(t.rows[1].line, 4, "after the blank line 3");
    double count;
    cr_expect_eq(csv_number(&t, &t.rows[1], csv_column(&t, "COUNT"), true, &count, err, sizeof err), 0);
    cr_expect_eq(count, 4);
    csv_free(&t);
    unlink(path);
}

Test(csv, errors_name_the_line)
{
    struct {
        const char *text, *expected;
    } cases[] = {
        {"a,b\n1,2\n3\n", ":3: 1 fields, the header has 2"},
        {"a,b\n1,\"2\n", ":2: unterminated quoted field"},
        {"a,b\n1,\"2\"x\n", ":2: text after a closing quote in field 2"},
        {"\n\n", ":3: empty file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = write_temp(cases[i].text);
        struct csv_table t;
        char err[256] = "";
        cr_expect_eq(csv_load(path, &t, err, sizeof err), -1, "case %zu", i);
        cr_expect(strstr(err, path) && strstr(err, cases[i].expected), "case %zu: %s", i, err);
        csv_free(&t);
        unlink(path);
    }
}

Test(csv, numbers)
{
    const char *path = write_temp("a,b\n1.5, 2 \nx,\n");
    struct csv_table t;
    char err[256];
    cr_assert_eq(csv_load(path, &t, err, sizeof err), 0, "%s", err);
    double v;
    cr_expect_eq(csv_number(&t, &t.rows[0], 1, true, &v, err, sizeof err), 0);
    cr_expect_eq(v, 2);
    cr_expect_eq(csv_number(&t, &t.rows[1], 0, true, &v, err, sizeof err), -1);
    cr_expect(strstr(err, ":3: a: 'x' is not a number"), "%s", err);
    cr_expect_eq(csv_number(&t, &t.rows[1], 1, false, &v, err, sizeof err), 0, "empty and optional");
    cr_expect_eq(csv_number(&t, &t.rows[1], 1, true, &v, err, sizeof err), -1, "empty and required");
    csv_free(&t);
    unlink(path);
}
