/* Byte units, one home for every layer. Binary units count what the kernel, SMBIOS and memory
 * sizes count (GiB); decimal units count what vendors quote (GB of GPU memory, GB/s of bandwidth,
 * disk sizes). Doubles, so that a byte count divided by one keeps its fraction. */
#ifndef GPUVET_UTIL_UNITS_H
#define GPUVET_UTIL_UNITS_H

#define KIB 1024.0
#define MIB (1024.0 * KIB)
#define GIB (1024.0 * MIB)
#define TIB (1024.0 * GIB)

#define KB 1e3
#define MB 1e6
#define GB 1e9
#define TB 1e12
#define PB 1e15

/* The decimals (1 to 3) at which two non-negative sizes printed side by side differ, so that a
 * verdict never reads "needs 17.7 GB of 17.7 GB usable: does not fit"; 1 when they are equal. */
static inline int decimals_apart(double a, double b)
{
    double scale = 10;
    for (int decimals = 1; decimals <= 3; decimals++, scale *= 10)
        if ((long long)(a * scale + 0.5) != (long long)(b * scale + 0.5))
            return decimals;
    return a == b ? 1 : 3;
}

/* The decimals of a size in GB in a report: one below 1000 GB, none from there (at most four
 * significant figures). Every mention of one figure is printed with it, "%.*f GB", so that a table
 * and the text beside it never read "401 GB" and "401.5 GB" for the same quantity. */
static inline int gb_decimals(double bytes) { return bytes / GB >= 999.95 ? 0 : 1; }

#endif
