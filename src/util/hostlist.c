#include "util/hostlist.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct host_name {
    const char *name;
    size_t prefix_len;          /* up to the trailing digits (all of it without digits) */
    bool numbered;
    unsigned long long number;
    int min_width, max_width;   /* printf widths that print the digits exactly as written */
};

static void split_name(struct host_name *h, const char *name)
{
    size_t len = strlen(name), start = len;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
        start--;
    size_t digits = len - start;
    h->name = name;
    h->prefix_len = len;
    h->numbered = false;
    /* 18 digits always fit in 64 bits; longer runs stay plain names. */
    if (digits == 0 || digits > 18)
        return;
    h->numbered = true;
    h->prefix_len = start;
    h->number = strtoull(name + start, NULL, 10);
    /* "007" prints only with width 3; "10" with width 1 or 2; "0" and "7" with width 1. */
    h->max_width = (int)digits;
    h->min_width = digits > 1 && name[start] == '0' ? (int)digits : 1;
}

static int prefix_cmp(const struct host_name *a, const struct host_name *b)
{
    size_t n = a->prefix_len < b->prefix_len ? a->prefix_len : b->prefix_len;
    int c = memcmp(a->name, b->name, n);
    if (c)
        return c;
    return (a->prefix_len > b->prefix_len) - (a->prefix_len < b->prefix_len);
}

static int host_cmp(const void *pa, const void *pb)
{
    const struct host_name *a = pa, *b = pb;
    int c = prefix_cmp(a, b);
    if (c)
        return c;
    if (a->numbered != b->numbered)
        return a->numbered ? 1 : -1; /* "gpu" before "gpu1" */
    if (!a->numbered || a->number == b->number)
        return strcmp(a->name, b->name);
    return a->number < b->number ? -1 : 1;
}

struct text {
    char *s;
    size_t len, cap;
};

static void append(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void append_number(struct text *t, unsigned long long v, int width)
{
    char buf[48];
    int n = snprintf(buf, sizeof buf, "%0*llu", width, v);
    append(t, buf, (size_t)n);
}

/* Appends hosts[0..n) (one prefix, all numbered, sorted) as PREFIX[ranges], or the plain name
 * when it is one host. */
static void append_ranges(struct text *t, const struct host_name *hosts, size_t n)
{
    append(t, hosts[0].name, hosts[0].prefix_len);
    if (n == 1) {
        append(t, hosts[0].name + hosts[0].prefix_len, strlen(hosts[0].name) - hosts[0].prefix_len);
        return;
    }
    append(t, "[", 1);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int lo_w = hosts[i].min_width, hi_w = hosts[i].max_width;
        while (j < n && hosts[j].number == hosts[j - 1].number + 1) {
            int lo = lo_w > hosts[j].min_width ? lo_w : hosts[j].min_width;
            int hi = hi_w < hosts[j].max_width ? hi_w : hosts[j].max_width;
            if (lo > hi)
                break;
            lo_w = lo;
            hi_w = hi;
            j++;
        }
        if (i > 0)
            append(t, ",", 1);
        append_number(t, hosts[i].number, lo_w);
        if (j - i > 1) {
            append(t, "-", 1);
            append_number(t, hosts[j - 1].number, lo_w);
        }
        i = j;
    }
    append(t, "]", 1);
}

char *hostlist_compress(const char *const *names, size_t n)
{
    struct text t = {0};
    append(&t, "", 0);
    struct host_name *hosts = calloc(n ? n : 1, sizeof *hosts);
    if (!hosts)
        abort();
    for (size_t i = 0; i < n; i++)
        split_name(&hosts[i], names[i]);
    qsort(hosts, n, sizeof *hosts, host_cmp);
    /* Duplicates are adjacent after sorting. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || strcmp(hosts[kept - 1].name, hosts[i].name))
            hosts[kept++] = hosts[i];
    for (size_t i = 0; i < kept;) {
        size_t j = i + 1;
        if (hosts[i].numbered)
            while (j < kept && hosts[j].numbered && prefix_cmp(&hosts[i], &hosts[j]) == 0)
                j++;
        if (i > 0)
            append(&t, ",", 1);
        if (hosts[i].numbered)
            append_ranges(&t, hosts + i, j - i);
        else
            append(&t, hosts[i].name, strlen(hosts[i].name));
        i = j;
    }
    free(hosts);
    return t.s;
}
