/* `gpuvet cost` as text: offers ranked per currency by price per dense TFLOPS-hour; and the
 * offers of `gpuvet plan --offers` ranked by the cost of the planned job. */
#include <stdio.h>
#include <strings.h>

#include "report/cost_report.h"

int cost_report_text(FILE *out, const struct cost_report *r, const struct offers *offers)
{
    if (r->util_from)
        fprintf(out, "Utilisation from %s: mean SM %.1f%% over %d samples\n\n", r->util_from, r->measured_util * 100,
                r->measured_samples);
    fprintf(out,
            "Offers ranked by price per dense %s TFLOPS-hour = price per hour / (GPUs x dense TFLOPS x "
            "utilisation)\n\n",
            precision_name(r->prec));
    fprintf(out, "%-3s %-24s %-16s %3s %12s %5s %14s %12s", "#", "NAME", "GPU", "N", "PRICE/HOUR", "UTIL",
            "PER TFLOPS-H", "PER GPU-GB-H");
    if (r->job_flops > 0)
        fprintf(out, " %10s %12s", "JOB HOURS", "JOB COST");
    fputc('\n', out);
    int rank = 0, groups = 0;
    for (int i = 0; i < offers->count; i++) {
        const struct offer *it = &offers->items[i];
        /* Each currency is its own ranking: a price in CNY and one in USD are not comparable. */
        if (i == 0 || strcasecmp(it->ranked_currency, offers->items[i - 1].ranked_currency)) {
            fprintf(out, "-- prices in %s%s\n", it->ranked_currency,
                    offers_fx_converted_any(offers, it->ranked_currency) ? " (converted with --fx)" : "");
            rank = 0;
            groups++;
        }
        char price[48], per_tflops[32] = "-";
        snprintf(price, sizeof price, "%.3f %s", it->price_per_hour, it->currency);
        if (it->per_dense_tflops_hour > 0)
            snprintf(per_tflops, sizeof per_tflops, "%.6f", it->per_dense_tflops_hour);
        fprintf(out, "%-3d %-24.24s %-16s %3d %12s %5.2f %14s %12.5f", ++rank, it->name, it->gpu->id, it->count, price,
                it->applied_util, per_tflops, it->per_gpu_memory_gb_hour);
        if (r->job_flops > 0 && it->hours > 0)
            fprintf(out, " %10.1f %12.2f", it->hours, it->cost);
        fputc('\n', out);
        for (int k = 0; k < it->nflags; k++)
            fprintf(out, "      ! %s\n", it->flags[k]);
    }
    if (groups > 1)
        fprintf(out,
                "\nOffers in %d currencies are ranked apart; --fx CUR=RATE (US dollars per unit) ranks them "
                "together.\n",
                groups);
    if (r->job_flops > 0)
        fprintf(out, "\nJob: %.3g FLOPs; hours = FLOPs / (GPUs x dense TFLOPS x 1e12 x utilisation x 3600).\n",
                r->job_flops);
    fprintf(out,
            "\nDense figures only: vendors' headline tensor TFLOPS (H100 SXM FP16 \"1979\") are with 2:4\n"
            "sparsity, which training does not use (NVIDIA H100 datasheet, footnote: \"with sparsity\"). Dividing\n"
            "by 1979 halves the H100's price per TFLOPS-hour against an A100 quoted dense (312).\n");
    return ferror(out) ? -1 : 0;
}
