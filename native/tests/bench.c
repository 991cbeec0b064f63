/* Probe speed of libtbprobe: `bench DIR TEXTS [ROUNDS]` reads positions (one per line:
 * "GAME<TAB>TEXT"), warms the page cache with one pass, then times every probe on its own,
 * in the array form (tb_probe_position on a parsed position) and from text (tb_parse +
 * probe), ROUNDS times over the list, and prints one JSON line: medians, 90th percentiles and
 * the rate of back-to-back probes.  Driven by benchmarks/native.py. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include "tbprobe.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p) { return v[(size_t)(p * (n - 1))]; }

/* The machine's floor under a cold probe: nanoseconds a load that depends on the one before
 * takes (a random cycle through the cache lines of `bytes` of memory, in 4 KB pages as the
 * mapped files are).  A probe of a table not probed lately makes a few such loads one after
 * the other (its block's checkpoint, then the block's bits, then the decoding tables), so its
 * median cannot be below a few of these, whatever the decoding costs. */
static double dependent_load_ns(size_t bytes)
{
    size_t lines = bytes / 64;
    if (lines < 2) return 0;
    uint64_t *mem = malloc(lines * 64);
    uint32_t *order = malloc(lines * sizeof *order);
    if (!mem || !order) { free(mem); free(order); return 0; }
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) {          /* Fisher-Yates, xorshift64 */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t j = x % (i + 1);
        uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (size_t i = 0; i < lines; i++) mem[8 * (size_t)order[i]] = 8 * (uint64_t)order[(i + 1) % lines];
    free(order);
    uint64_t at = 0;
    size_t steps = lines < 2000000 ? lines : 2000000;
    for (size_t i = 0; i < steps; i++) at = mem[at];  /* the pages mapped, the caches filled */
    double t = now_ns();
    for (size_t i = 0; i < steps; i++) at = mem[at];
    double ns = (now_ns() - t) / (double)steps;
    free(mem);
    return ns + (double)(at & 1) * 1e-9;              /* `at` used: the loop is not dropped */
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: bench DIR TEXTS [ROUNDS [FLAGS]]\n"); return 2; }
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    unsigned flags = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
    char err[512];
    tb_base *tb;
    double t0 = now_ns();
    if (tb_open_flags(argv[1], flags, &tb, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    double open_ms = (now_ns() - t0) / 1e6;
    uint64_t file_bytes, table_bytes;
    tb_memory(tb, &file_bytes, &table_bytes);
    FILE *fp = fopen(argv[2], "r");
    if (!fp) return 2;
    size_t cap = 1024, n = 0;
    char (*games)[24] = malloc(cap * sizeof *games);
    char **texts = malloc(cap * sizeof *texts);
    tb_position *pos = malloc(cap * sizeof *pos);
    char line[2048];
    while (fgets(line, sizeof line, fp)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        line[strcspn(tab + 1, "\n") + (size_t)(tab + 1 - line)] = 0;
        if (n == cap) {
            cap *= 2;
            games = realloc(games, cap * sizeof *games);
            texts = realloc(texts, cap * sizeof *texts);
            pos = realloc(pos, cap * sizeof *pos);
        }
        snprintf(games[n], sizeof games[n], "%.23s", line);
        texts[n] = strdup(tab + 1);
        if (tb_parse(games[n], texts[n], &pos[n], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
        n++;
    }
    fclose(fp);
    if (!n) return 2;
    tb_value v;
    long bad = 0;
    for (size_t i = 0; i < n; i++) bad += tb_probe_position(tb, &pos[i], -1, &v) < 0;  /* warm */
    double *arr = malloc(n * rounds * sizeof *arr), *txt = malloc(n * rounds * sizeof *txt);
    /* each form in passes of its own: a position was last probed a whole pass earlier, so
     * neither form finds the other's cache lines */
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    size_t k = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            double a = now_ns();
            tb_probe_position(tb, &pos[i], -1, &v);
            arr[k + i] = now_ns() - a;
        }
        for (size_t i = 0; i < n; i++) {
            double b = now_ns();
            tb_position p;
            tb_parse(games[i], texts[i], &p, err, sizeof err);
            tb_probe_position(tb, &p, -1, &v);
            txt[k + i] = now_ns() - b;
        }
        k += n;
    }
    getrusage(RUSAGE_SELF, &ru1);
    long faults = ru1.ru_minflt - ru0.ru_minflt + ru1.ru_majflt - ru0.ru_majflt;
    /* the same position probed twice in a row: the second probe's time (cache warm) */
    double *hot = malloc(n * sizeof *hot);
    for (size_t i = 0; i < n; i++) {
        tb_probe_position(tb, &pos[i], -1, &v);
        double a = now_ns();
        tb_probe_position(tb, &pos[i], -1, &v);
        hot[i] = now_ns() - a;
    }
    qsort(hot, n, sizeof *hot, cmp);
    /* back to back: the rate an engine sees */
    double s = now_ns();
    long sink = 0;
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < n; i++) sink += tb_probe_position(tb, &pos[i], -1, &v) + v.distance;
    double rate = n * rounds / ((now_ns() - s) / 1e9);
    qsort(arr, k, sizeof *arr, cmp);
    qsort(txt, k, sizeof *txt, cmp);
    double t_a = now_ns(), t_b = now_ns();   /* the clock's own cost, reported beside */
    double load_ns = dependent_load_ns((size_t)file_bytes);
    printf("{\"positions\": %zu, \"probes\": %zu, \"errors\": %ld, \"open_ms\": %.3f, "
           "\"array_median_ns\": %.1f, \"array_p90_ns\": %.1f, \"text_median_ns\": %.1f, "
           "\"text_p90_ns\": %.1f, \"repeat_median_ns\": %.1f, \"page_faults_per_probe\": %.2f, \"rate_per_s\": %.0f, \"clock_ns\": %.1f, \"dependent_load_ns\": %.1f, \"sink\": %ld, "
           "\"file_bytes\": %llu, \"table_bytes\": %llu}\n",
           n, k, bad, open_ms, pct(arr, k, .5), pct(arr, k, .9), pct(txt, k, .5), pct(txt, k, .9),
           pct(hot, n, .5), (double)faults / (2.0 * k), rate, t_b - t_a, load_ns, sink & 1,
           (unsigned long long)file_bytes, (unsigned long long)table_bytes);
    tb_close(tb);
    return 0;
}
