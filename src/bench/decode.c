/* The CPU side of a CV data loader, as torchvision's ImageNet training transform does it: JPEG
 * decode (libjpeg-turbo, as Pillow uses), RandomResizedCrop to 224x224 (scale 0.08-1, ratio
 * 3/4-4/3, bilinear), random horizontal flip, and ToTensor+Normalize to fp32 CHW. Measured on one
 * core and on all cores, with decode alone beside it. Images: --images DIR, or by default
 * ImageNet-sized JPEGs (500 px wide, quality 90, 4:2:0) made once from the real photographs of
 * Debian's mate-backgrounds package and cached under the user's cache directory. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/jpeg_lib.h"
#include "util/gputable.h"
#include "util/i18n.h"

#define CROP 224
#define MAX_IMAGES 256
#define MAX_IMAGE_BYTES (16u << 20)
#define PHOTO_DIR "/usr/share/backgrounds/mate/nature"
#define CACHE_SUBDIR "gpuvet/imagenet-q90"
#define IMAGENET_WIDTH 500
#define IMAGENET_QUALITY 90
/* ResNet-50 training demand per GPU, images/s: the A100's comes in the options (the thresholds
 * table); the H100's is the GPU table's figure for this part (data/gpus.csv), one home for both. */
#define H100_TABLE_ID "h100-sxm5-80gb"

struct jpeg {
    unsigned char *data;
    unsigned long size;
    int width, height;
};

struct image_set {
    struct jpeg *items;
    int count;
    int max_width, max_height;
    char source[PATH_MAX + 64];
};

static bool has_jpeg_suffix(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted JPEG file names of a directory (at most max); -1 when it cannot be read. */
static int list_jpegs(const char *dir, char ***names, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    *names = calloc((size_t)max, sizeof **names);
    struct dirent *e;
    while ((e = readdir(d)) && n < max)
        if (e->d_name[0] != '.' && has_jpeg_suffix(e->d_name))
            (*names)[n++] = strdup(e->d_name);
    closedir(d);
    qsort(*names, (size_t)n, sizeof **names, compare_names);
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static unsigned char *read_file(const char *path, unsigned long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        if (len > 0 && len <= (long)MAX_IMAGE_BYTES && fseek(f, 0, SEEK_SET) == 0) {
            buf = malloc((size_t)len);
            if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
                free(buf);
                buf = NULL;
            }
            *size = (unsigned long)len;
        }
    }
    fclose(f);
    return buf;
}

/* Bilinear resize of an RGB region (sx, sy, sw, sh of a src_w-wide image) into dst (dw x dh). */
static void resize_bilinear(const unsigned char *src, int src_w, int sx, int sy, int sw, int sh, unsigned char *dst,
                            int dw, int dh)
{
    for (int y = 0; y < dh; y++) {
        float fy = (y + 0.5f) * sh / dh - 0.5f;
        if (fy < 0)
            fy = 0;
        int y0 = (int)fy, y1 = y0 + 1 < sh ? y0 + 1 : y0;
        float wy = fy - y0;
        const unsigned char *r0 = src + ((size_t)(sy + y0) * src_w + sx) * 3;
        const unsigned char *r1 = src + ((size_t)(sy + y1) * src_w + sx) * 3;
        for (int x = 0; x < dw; x++) {
            float fx = (x + 0.5f) * sw / dw - 0.5f;
            if (fx < 0)
                fx = 0;
            int x0 = (int)fx, x1 = x0 + 1 < sw ? x0 + 1 : x0;
            float wx = fx - x0;
            for (int c = 0; c < 3; c++) {
                float top = r0[x0 * 3 + c] * (1 - wx) + r0[x1 * 3 + c] * wx;
                float bottom = r1[x0 * 3 + c] * (1 - wx) + r1[x1 * 3 + c] * wx;
                dst[((size_t)y * dw + x) * 3 + c] = (unsigned char)(top * (1 - wy) + bottom * wy + 0.5f);
            }
        }
    }
}

/* Makes the default set once: each photograph, decoded and cut into its four quadrants, each
 * resized to 500 px wide (ImageNet's typical 500x375/500x333) and saved at quality 90. NULL, or
 * the {"skipped": why} result. */
static json_t *make_default_images(const char *cache)
{
    char **names;
    int n = list_jpegs(PHOTO_DIR, &names, MAX_IMAGES);
    if (n <= 0) {
        if (n == 0)
            free_names(names, n);
        return bench_skipped("no --images DIR given and %s holds no photographs: install the mate-backgrounds "
                             "package (scripts/setup.sh lists it) or pass --images DIR",
                             PHOTO_DIR);
    }
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", cache, (long)getpid());
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", cache);
    /* mkdir -p of the cache's parents. */
    for (char *slash = strchr(parent + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(parent, 0755);
        *slash = '/';
    }
    if (mkdir(tmp, 0755) != 0) {
        json_t *skipped = bench_skipped("cannot create %s: %s", tmp, i18n_error_text(errno));
        free_names(names, n);
        return skipped;
    }
    tjhandle dec = TJ(InitDecompress)(), enc = TJ(InitCompress)();
    int made = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", PHOTO_DIR, names[i]);
        unsigned long size;
        unsigned char *jpg = read_file(path, &size);
        int w, h, subsamp, colorspace;
        if (!jpg || TJ(DecompressHeader3)(dec, jpg, size, &w, &h, &subsamp, &colorspace) != 0 ||
            w < 2 * IMAGENET_WIDTH) {
            free(jpg);
            continue;
        }
        unsigned char *rgb = malloc((size_t)w * h * 3);
        if (rgb && TJ(Decompress2)(dec, jpg, size, rgb, w, 0, h, TJPF_RGB, 0) == 0) {
            int qw = w / 2, qh = h / 2, ow = IMAGENET_WIDTH, oh = (int)((double)IMAGENET_WIDTH * qh / qw + 0.5);
            unsigned char *small = malloc((size_t)ow * oh * 3);
            for (int q = 0; small && q < 4; q++) {
                resize_bilinear(rgb, w, (q % 2) * qw, (q / 2) * qh, qw, qh, small, ow, oh);
                unsigned char *out = NULL;
                unsigned long out_size = 0;
                if (TJ(Compress2)(enc, small, ow, 0, oh, TJPF_RGB, &out, &out_size, TJSAMP_420, IMAGENET_QUALITY, 0) ==
                    0) {
                    char dst[PATH_MAX];
                    snprintf(dst, sizeof dst, "%s/%03d.jpg", tmp, made);
                    FILE *f = fopen(dst, "wb");
                    if (f && fwrite(out, 1, out_size, f) == out_size)
                        made++;
                    if (f)
                        fclose(f);
                }
                TJ(Free)(out);
            }
            free(small);
        }
        free(rgb);
        free(jpg);
    }
    TJ(Destroy)(dec);
    TJ(Destroy)(enc);
    free_names(names, n);
    /* The rename makes the set appear whole or not at all, even if two runs race. */
    if (made == 0 || rename(tmp, cache) != 0) {
        char **left;
        int nleft = list_jpegs(tmp, &left, MAX_IMAGES);
        for (int i = 0; i < nleft; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", tmp, left[i]);
            unlink(path);
        }
        if (nleft >= 0)
            free_names(left, nleft);
        rmdir(tmp);
        if (made == 0)
            return bench_skipped("no photograph in %s could be made into an ImageNet-sized JPEG", PHOTO_DIR);
    }
    return NULL;
}

static bool default_cache_dir(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/')
        snprintf(out, len, "%s/%s", xdg, CACHE_SUBDIR);
    else if (home && *home)
        snprintf(out, len, "%s/.cache/%s", home, CACHE_SUBDIR);
    else
        return false;
    return true;
}

static void image_set_free(struct image_set *s)
{
    for (int i = 0; i < s->count; i++)
        free(s->items[i].data);
    free(s->items);
}

/* Loads the JPEGs of dir into memory (file I/O is not what is measured). NULL, or the
 * {"skipped": why} result. */
static json_t *load_images(const char *dir, struct image_set *s)
{
    char **names;
    int n = list_jpegs(dir, &names, MAX_IMAGES);
    if (n < 0)
        return bench_skipped("%s: %s", dir, i18n_error_text(errno));
    s->items = calloc((size_t)(n ? n : 1), sizeof *s->items);
    tjhandle dec = TJ(InitDecompress)();
    int skipped = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct jpeg j = {0};
        int subsamp, colorspace;
        j.data = read_file(path, &j.size);
        if (!j.data || TJ(DecompressHeader3)(dec, j.data, j.size, &j.width, &j.height, &subsamp, &colorspace) != 0 ||
            j.width < 1 || j.height < 1) {
            free(j.data);
            skipped++;
            continue;
        }
        if (j.width > s->max_width)
            s->max_width = j.width;
        if (j.height > s->max_height)
            s->max_height = j.height;
        s->items[s->count++] = j;
    }
    TJ(Destroy)(dec);
    free_names(names, n);
    if (s->count == 0) {
        image_set_free(s);
        if (skipped)
            return bench_skipped("%s holds no readable JPEG (.jpg/.jpeg) file (some could not be parsed)", dir);
        return bench_skipped("%s holds no readable JPEG (.jpg/.jpeg) file", dir);
    }
    return NULL;
}

enum phase_kind { PHASE_DECODE, PHASE_PIPELINE };

struct decode_shared {
    const struct machine *machine;
    const struct image_set *images;
    enum phase_kind kind;
    double seconds;
};

struct decode_worker {
    const struct decode_shared *shared;
    unsigned pu;
    long images;
    double pixels;
    double elapsed;
    bool failed;
};

/* 24 random bits as a float in [0, 1). */
static float uniform(uint64_t *state) { return (bench_random(state) >> 40) / 16777216.0f; }

/* torchvision's RandomResizedCrop.get_params: 10 tries, then a centre crop within the ratios. */
static void random_crop(int w, int h, uint64_t *rng, int *cx, int *cy, int *cw, int *ch)
{
    double area = (double)w * h, log_lo = log(3.0 / 4.0), log_hi = log(4.0 / 3.0);
    for (int attempt = 0; attempt < 10; attempt++) {
        double target = area * (0.08 + uniform(rng) * 0.92);
        double ratio = exp(log_lo + uniform(rng) * (log_hi - log_lo));
        int tw = (int)lround(sqrt(target * ratio)), th = (int)lround(sqrt(target / ratio));
        if (tw > 0 && th > 0 && tw <= w && th <= h) {
            *cx = (int)(bench_random(rng) % (uint64_t)(w - tw + 1));
            *cy = (int)(bench_random(rng) % (uint64_t)(h - th + 1));
            *cw = tw;
            *ch = th;
            return;
        }
    }
    double in_ratio = (double)w / h;
    *cw = w;
    *ch = h;
    if (in_ratio < 3.0 / 4.0)
        *ch = (int)lround(w / (3.0 / 4.0));
    else if (in_ratio > 4.0 / 3.0)
        *cw = (int)lround(h * (4.0 / 3.0));
    *cx = (w - *cw) / 2;
    *cy = (h - *ch) / 2;
}

static void flip_horizontal(unsigned char *img, int w, int h)
{
    for (int y = 0; y < h; y++) {
        unsigned char *row = img + (size_t)y * w * 3;
        for (int l = 0, r = w - 1; l < r; l++, r--)
            for (int c = 0; c < 3; c++) {
                unsigned char t = row[l * 3 + c];
                row[l * 3 + c] = row[r * 3 + c];
                row[r * 3 + c] = t;
            }
    }
}

/* ToTensor + Normalize with ImageNet's mean and std, HWC uint8 -> CHW float. */
static void to_normalized_chw(const unsigned char *img, float *out)
{
    static const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < CROP * CROP; i++)
            out[(size_t)c * CROP * CROP + i] = (img[i * 3 + c] / 255.0f - mean[c]) / std[c];
}

static void *decode_worker_run(void *arg)
{
    struct decode_worker *w = arg;
    const struct decode_shared *s = w->shared;
    bench_pin_thread(s->machine, w->pu);
    tjhandle dec = TJ(InitDecompress)();
    unsigned char *rgb = malloc((size_t)s->images->max_width * s->images->max_height * 3);
    unsigned char *crop = malloc(CROP * CROP * 3);
    float *tensor = malloc(sizeof(float) * 3 * CROP * CROP);
    if (!dec || !rgb || !crop || !tensor) {
        w->failed = true;
    } else {
        uint64_t rng = 0x9e3779b97f4a7c15ull * (w->pu + 1);
        int next = (int)(w->pu % (unsigned)s->images->count);
        double start = bench_now(), deadline = start + s->seconds;
        while (bench_now() < deadline) {
            const struct jpeg *j = &s->images->items[next];
            next = (next + 1) % s->images->count;
            if (TJ(Decompress2)(dec, j->data, j->size, rgb, j->width, 0, j->height, TJPF_RGB, 0) != 0 &&
                TJ(GetErrorCode)(dec) == TJERR_FATAL) {
                w->failed = true;
                break;
            }
            if (s->kind == PHASE_PIPELINE) {
                int cx, cy, cw, ch;
                random_crop(j->width, j->height, &rng, &cx, &cy, &cw, &ch);
                resize_bilinear(rgb, j->width, cx, cy, cw, ch, crop, CROP, CROP);
                if (bench_random(&rng) >> 63)
                    flip_horizontal(crop, CROP, CROP);
                to_normalized_chw(crop, tensor);
            }
            w->images++;
            w->pixels += (double)j->width * j->height;
        }
        w->elapsed = bench_now() - start;
    }
    if (dec)
        TJ(Destroy)(dec);
    free(rgb);
    free(crop);
    free(tensor);
    return NULL;
}

/* Runs one phase on the PUs of `pus`; returns false when a decode failed. */
/* Decodes on one thread per PU of pus; false when a decode failed or, with *thread_error set,
 * when not every thread could be started (a rate from fewer cores would be a wrong figure). */
static bool decode_phase(const struct decode_shared *shared, hwloc_const_bitmap_t pus, double *images_s,
                         double *mpix_s, int *thread_error)
{
    int n = hwloc_bitmap_weight(pus);
    struct decode_worker *workers = calloc((size_t)n, sizeof *workers);
    pthread_t *ids = calloc((size_t)n, sizeof *ids);
    int k = 0, started = 0, pu;
    hwloc_bitmap_foreach_begin(pu, pus) workers[k++] = (struct decode_worker){shared, (unsigned)pu, 0, 0, 0, false};
    hwloc_bitmap_foreach_end();
    for (int i = 0; i < n && !*thread_error; i++)
        if ((*thread_error = bench_thread_create(&ids[i], decode_worker_run, &workers[i])) == 0)
            started++;
    bool ok = started == n;
    *images_s = *mpix_s = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(ids[i], NULL);
        ok = ok && !workers[i].failed;
        if (workers[i].elapsed > 0) {
            *images_s += workers[i].images / workers[i].elapsed;
            *mpix_s += workers[i].pixels / workers[i].elapsed / 1e6;
        }
    }
    free(workers);
    free(ids);
    return ok;
}

/* The H100's ResNet-50 rate and where it comes from: the GPU table's measured figure, else its
 * estimate (util/gputable.c). 0 with the reason when the table cannot be read. */
static double h100_rate(char *source, size_t len)
{
    struct gpu_table table;
    char err[256];
    double rate = 0;
    if (gpu_table_load_default(&table, err, sizeof err) != 0) {
        snprintf(source, len, "unknown, the GPU table could not be read: %s", err);
        return 0;
    }
    const struct gpu_spec *g = NULL;
    for (int i = 0; i < table.count && !g; i++)
        if (!strcmp(table.gpus[i].id, H100_TABLE_ID))
            g = &table.gpus[i];
    const char *from = NULL;
    if (g)
        rate = gpu_resnet50_rate(g, &from);
    if (rate > 0)
        snprintf(source, len, "%.0f img/s (%s)", rate, from && *from ? from : "the GPU table");
    else
        snprintf(source, len, "unknown, the GPU table has no ResNet-50 figure for %s", H100_TABLE_ID);
    gpu_table_free(&table);
    return rate;
}

static json_t *decode_run(const struct bench_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    struct image_set images = {0};
    json_t *skipped;
    const char *dir = ctx->opts->images;
    char cache[PATH_MAX], no_library[256];
    if (!jpeg_lib_get(no_library, sizeof no_library))
        return bench_skipped("libturbojpeg.so.0 cannot be loaded (package libturbojpeg0): %s", no_library);
    if (!dir) {
        if (!default_cache_dir(cache, sizeof cache))
            return bench_skipped("neither XDG_CACHE_HOME nor HOME is set, so the default images have no cache: "
                                 "pass --images DIR");
        struct stat st;
        if (stat(cache, &st) != 0 && (skipped = make_default_images(cache)) != NULL)
            return skipped;
        dir = cache;
    }
    if ((skipped = load_images(dir, &images)) != NULL)
        return skipped;
    bench_progress(ctx, 0.05);

    double seconds = ctx->opts->quick ? 1.0 : 4.0;
    hwloc_bitmap_t cores = bench_core_pus(m, NULL);
    if (hwloc_bitmap_iszero(cores))
        hwloc_bitmap_set(cores, 0);
    hwloc_bitmap_t one = hwloc_bitmap_alloc();
    hwloc_bitmap_only(one, (unsigned)hwloc_bitmap_first(cores));
    struct decode_shared shared = {m, &images, PHASE_DECODE, seconds};
    double decode_img1, decode_mpix1, pipe_img1, pipe_mpix1, decode_imgN, decode_mpixN, pipe_imgN, pipe_mpixN;
    int thread_error = 0;
    bool ok = decode_phase(&shared, one, &decode_img1, &decode_mpix1, &thread_error);
    bench_progress(ctx, 0.3);
    shared.kind = PHASE_PIPELINE;
    ok = ok && decode_phase(&shared, one, &pipe_img1, &pipe_mpix1, &thread_error);
    bench_progress(ctx, 0.5);
    shared.kind = PHASE_DECODE;
    ok = ok && decode_phase(&shared, cores, &decode_imgN, &decode_mpixN, &thread_error);
    bench_progress(ctx, 0.75);
    shared.kind = PHASE_PIPELINE;
    int ncores = hwloc_bitmap_weight(cores);
    ok = ok && decode_phase(&shared, cores, &pipe_imgN, &pipe_mpixN, &thread_error);
    hwloc_bitmap_free(one);
    hwloc_bitmap_free(cores);

    double pixels = 0, bytes = 0;
    for (int i = 0; i < images.count; i++) {
        pixels += (double)images.items[i].width * images.items[i].height;
        bytes += (double)images.items[i].size;
    }
    json_t *set = json_pack("{s:s, s:i, s:f, s:f}", "dir", dir, "count", images.count, "mean_megapixels",
                            pixels / images.count / 1e6, "mean_bytes", bytes / images.count);
    image_set_free(&images);
    if (thread_error) {
        json_decref(set);
        return bench_thread_error(ncores, thread_error);
    }
    if (!ok) {
        json_decref(set);
        return bench_set_text(json_object(), "error", "libturbojpeg could not decode the images");
    }
    double a100 = ctx->opts->a100_resnet50_img_s;
    char h100_source[300];
    double h100 = h100_rate(h100_source, sizeof h100_source);
    char basis[512];
    snprintf(basis, sizeof basis,
             "ResNet-50 mixed-precision training: %.0f img/s per A100 (NVIDIA's published training rate); "
             "H100 SXM5: %s",
             a100, h100_source);
    json_t *feeds = json_pack("{s:o, s:o, s:f, s:o, s:s}", "a100", a100 > 0 ? json_real(pipe_imgN / a100) : json_null(),
                              "h100", h100 > 0 ? json_real(pipe_imgN / h100) : json_null(), "a100_demand_images_s",
                              a100, "h100_demand_images_s", h100 > 0 ? json_real(h100) : json_null(), "basis", basis);
    json_t *out = json_pack(
        "{s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:f, s:o, s:o, s:s}", "images_s_per_core", pipe_img1,
        "decode_only_mpix_s_per_core", decode_mpix1, "decode_only_images_s_per_core", decode_img1,
        "images_s_all_cores", pipe_imgN, "decode_only_mpix_s_all_cores", decode_mpixN,
        "decode_only_images_s_all_cores", decode_imgN, "cores", ncores, "seconds_per_phase", seconds, "images", set,
        "feeds_gpus", feeds, "pipeline",
        "libturbojpeg decode to RGB, RandomResizedCrop 224 (scale 0.08-1, ratio 3/4-4/3, bilinear), random "
        "horizontal flip, normalize to fp32 CHW");
    return out;
}

const struct bench_info bench_decode_info = {
    "decode", decode_run,
    "JPEG decode + RandomResizedCrop 224 + flip (libturbojpeg) per core and on all cores; GPUs it can feed", NULL};
