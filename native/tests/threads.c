/* Probes from several threads at once (built with ThreadSanitizer by `make build/threads`):
 * every thread probes every position of TEXTS ("GAME<TAB>TEXT" lines) ROUNDS times on one
 * shared base and must get the single-threaded answers; a third of the threads on a second base
 * opened with TB_OPEN_INDEX, a third on a lazy base (TB_OPEN_LAZY | TB_OPEN_INDEX |
 * TB_OPEN_VERIFY) whose files those threads open as they first need them, racing each other.
 * usage: threads DIR TEXTS THREADS ROUNDS -> prints "probes N mismatches M" */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "positions.h"

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
            bad += !same_answer(tb_probe_position(b, &pos[i], -1, &v), &v, &want[i]);
        }
    return (void *)bad;
}

int main(int argc, char **argv)
{
    if (argc < 5) return 2;
    char err[512];
    if (tb_open(argv[1], &tb, err, sizeof err) ||
        tb_open_flags(argv[1], TB_OPEN_INDEX, &indexed, err, sizeof err) ||
        tb_open_flags(argv[1], TB_OPEN_LAZY | TB_OPEN_INDEX | TB_OPEN_VERIFY, &lazy, err,
                      sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    int threads = atoi(argv[3]);
    rounds = atoi(argv[4]);
    if (threads < 1 || threads > 64 || !(pos = read_positions(argv[2], &n))) return 2;
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
