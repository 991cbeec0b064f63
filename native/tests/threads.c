/* Probes from several threads at once (built with ThreadSanitizer by `make build/threads`):
 * every thread probes every position of TEXTS ("GAME<TAB>TEXT" lines) ROUNDS times on one
 * shared base and must get the single-threaded answers; a third of the threads on a second base
 * opened with TB_OPEN_INDEX, a third on a lazy base (TB_OPEN_LAZY | TB_OPEN_INDEX |
 * TB_OPEN_VERIFY) whose files those threads open as they first need them, racing each other.
 * usage: threads DIR TEXTS THREADS ROUNDS -> prints "probes N mismatches M" */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tbprobe.h"

static tb_base *tb, *indexed, *lazy;
static tb_position *pos;
static tb_value *want;
static size_t n;
static int rounds;

static void *run(void *arg)
{
    long bad = 0;
    size_t start = (size_t)arg;
    for (int r = 0; r < rounds; r++)
        for (size_t j = 0; j < n; j++) {
            size_t i = (j + start * 7919) % n;   /* each thread in its own order */
            tb_value v;
            tb_base *b = start % 3 == 0 ? tb : start % 3 == 1 ? indexed : lazy;
            int st = tb_probe_position(b, &pos[i], -1, &v);
            bad += st != want[i].status || v.result != want[i].result ||
                   v.distance != want[i].distance || v.move != want[i].move;
        }
    return (void *)bad;
}

int main(int argc, char **argv)
{
    if (argc < 5) return 2;
    char err[512], line[2048];
    if (tb_open(argv[1], &tb, err, sizeof err) ||
        tb_open_flags(argv[1], TB_OPEN_INDEX, &indexed, err, sizeof err) ||
        tb_open_flags(argv[1], TB_OPEN_LAZY | TB_OPEN_INDEX | TB_OPEN_VERIFY, &lazy, err,
                      sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    FILE *fp = fopen(argv[2], "r");
    int threads = atoi(argv[3]);
    rounds = atoi(argv[4]);
    if (!fp || threads < 1 || threads > 64) return 2;
    size_t cap = 256;
    pos = malloc(cap * sizeof *pos);
    while (fgets(line, sizeof line, fp)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        tab[1 + strcspn(tab + 1, "\n")] = 0;
        if (n == cap) pos = realloc(pos, (cap *= 2) * sizeof *pos);
        if (tb_parse(line, tab + 1, &pos[n], err, sizeof err) == TB_OK) n++;
    }
    fclose(fp);
    want = malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++) tb_probe_position(tb, &pos[i], -1, &want[i]);
    pthread_t t[64];
    for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, (void *)i);
    long bad = 0;
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (long)r;
    }
    printf("probes %zu mismatches %ld\n", n * rounds * (size_t)threads, bad);
    tb_close(tb);
    tb_close(indexed);
    tb_close(lazy);
    return bad != 0;
}
