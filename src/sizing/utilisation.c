#include "sizing/utilisation.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/inputfile.h"
#include "util/i18n.h"
#include "util/linereader.h"
#include "util/parse.h"

enum { MAX_COLUMNS = 64 };

int dmon_mean_sm_utilisation(const char *path, double *mean, int *samples, char *err, size_t errlen)
{
    FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
    if (!f) {
        snprintf(err, errlen, _("%s: %s"), path, input_file_error(errno));
        return -1;
    }
    struct line_reader r;
    line_reader_init(&r, f, path, TEXT_LINE_MAX);
    int lineno = 0, sm_column = -1, rc = 0, got;
    double sum = 0;
    *samples = 0;
    while (rc == 0 && (got = line_reader_next(&r, err, errlen)) != 0) {
        if (got < 0) {
            rc = -1;
            break;
        }
        char *line = r.line;
        lineno = r.number;
        char *tokens[MAX_COLUMNS];
        if (line[0] == '#') {
            /* "# gpu sm mem ..." names the columns (a "# Idx % % ..." units line follows); with -o T
             * or -o DT the time columns come first, so the index is taken from the header. */
            int n = split_blanks(line + 1, tokens, MAX_COLUMNS), gpu = -1, sm = -1;
            for (int i = 0; i < n; i++) {
                if (!strcmp(tokens[i], "gpu"))
                    gpu = i;
                if (!strcmp(tokens[i], "sm"))
                    sm = i;
            }
            if (gpu >= 0 && sm >= 0)
                sm_column = sm;
            continue;
        }
        int n = split_blanks(line, tokens, MAX_COLUMNS);
        if (n == 0)
            continue;
        if (sm_column < 0) {
            snprintf(err, errlen, "%s:%d: a sample before any '# gpu sm ...' header: not `nvidia-smi dmon -s u` "
                                  "output",
                     path, lineno);
            rc = -1;
        } else if (sm_column >= n) {
            snprintf(err, errlen, "%s:%d: %d columns, the header puts sm in column %d", path, lineno, n,
                     sm_column + 1);
            rc = -1;
        } else if (strcmp(tokens[sm_column], "-") != 0) {
            char *end;
            double v = strtod(tokens[sm_column], &end);
            if (end == tokens[sm_column] || (*end && strcmp(end, "%")) || v < 0 || v > 100) {
                snprintf(err, errlen, "%s:%d: sm '%s' is not a percentage", path, lineno, tokens[sm_column]);
                rc = -1;
            } else {
                sum += v;
                (*samples)++;
            }
        }
    }
    line_reader_free(&r);
    fclose(f);
    if (rc == 0 && *samples == 0) {
        snprintf(err, errlen, "%s:%d: no sm samples (record with `nvidia-smi dmon -s u` while the job runs)", path,
                 lineno);
        rc = -1;
    }
    if (rc == 0)
        *mean = sum / *samples / 100;
    return rc;
}
