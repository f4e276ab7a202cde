#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "report/gpus_report.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "util/output.h"

static const struct opt_command gpus_command_help = {
    .name = "gpus",
    .usage = N_("usage: gpuvet gpus [--json] [NAME...]\n"
                "\n"
                "Lists the GPU table (vendor peak figures, dense and sparse tensor TFLOPS apart, with a source "
                "per row), or resolves NAMEs: a canonical id (h100-sxm5-80gb), a short form (H100-80GB picks "
                "the SXM part and says so) or an nvidia-smi product name (\"NVIDIA A100-SXM4-80GB\").\n"
                "\n"),
    .footer = N_("The table is data/gpus.csv, compiled in; PREFIX/share/gpuvet/gpus.csv beside an installed gpuvet, "
                 "gpuvet --data DIR or GPUVET_DATA_DIR overrides it.\n"
                 "exit status: 0 ok, 2 unknown GPU or unreadable table\n"),
};

int cmd_gpus(int argc, char **argv)
{
    bool json = false;
    struct opt options[] = {
        OPT_FLAG("json", 'j', &json, N_("write the gpuvet.gpus/1 JSON document")),
        OPT_END(),
    };
    int parsed = opt_parse(&gpus_command_help, options, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    struct gpu_table table;
    char err[1024];
    if (gpu_table_load_default(&table, err, sizeof err) != 0) {
        print_error("gpus", "%s", err);
        gpu_table_free(&table);
        return EXIT_CANNOT_RUN;
    }
    int status = 0;
    json_t *list = json_array();
    if (!json && optind == argc)
        gpus_text_header(stdout);
    if (optind == argc) {
        for (int i = 0; i < table.count; i++) {
            if (json)
                json_array_append_new(list, gpus_spec_json(&table.gpus[i], NULL, NULL));
            else
                gpus_text_row(stdout, &table.gpus[i]);
        }
        if (!json)
            gpus_text_footer(stdout);
    }
    for (int i = optind; i < argc; i++) {
        char note[512];
        int count; /* "8 x H100" as offers write it: the GPU is what is listed */
        /* The note goes into the JSON in English; an error is in the reader's language. */
        if (json)
            i18n_english_begin();
        const struct gpu_spec *g = gpu_lookup_counted(&table, argv[i], &count, note, sizeof note, err, sizeof err);
        if (json)
            i18n_english_end();
        if (!g) {
            gpu_lookup_counted(&table, argv[i], &count, NULL, 0, err, sizeof err);
            print_error("gpus", "%s", err);
            status = EXIT_CANNOT_RUN;
            continue;
        }
        if (json)
            json_array_append_new(list, gpus_spec_json(g, argv[i], note));
        else
            gpus_text_detail(stdout, g, note);
    }
    if (json && status == 0) {
        gpus_json_document(stdout, table.path, list);
    } else {
        json_decref(list);
    }
    gpu_table_free(&table);
    return status;
}
