/* A probe file changed under an open base (issue 61), built with the sanitizers by
 * `make build/changed` and driven by tests/test_native_hostile.py.
 *
 *   changed DIR TEXTS FILE OTHER MODE FLAGS
 *     probes every "GAME<TAB>TEXT" line of TEXTS on a base over DIR (tb_open_flags FLAGS),
 *     changes FILE (one of DIR's probe files) as MODE says, probes them all again and prints
 *     one line a probe, "before|after STATUS RESULT DISTANCE MOVE", then "changed PATH" (what
 *     tb_changed names, or "-") and "faults N" (reads past a file's end absorbed).  MODE:
 *     truncate (to 0 bytes), half (to half its size), flip (every byte past the first 64
 *     inverted in place, same size), copy (OTHER's bytes written over it in place), rename
 *     (OTHER's bytes written beside it and renamed over it: a new inode), chmod.
 *   changed DIR TEXTS FILE OTHER race FLAGS THREADS ROUNDS
 *     ROUNDS times: FILE restored (by rename), a base opened, THREADS threads probing every
 *     line over and over while FILE is rewritten in place (flipped, or truncated to half on odd
 *     rounds); every answer must be the one before the change or TB_CHANGED, and after the
 *     change every probe of FILE's table TB_CHANGED.  Prints "probes P changed C wrong W
 *     unflagged U faults N". */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "positions.h"

static tb_position *pos;
static tb_value *want;
static size_t n;
static tb_base *tb;
static int stop;
static long probes, changed_count, wrong;

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long z = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)z + 1);
    if (buf && fread(buf, 1, (size_t)z, fp) != (size_t)z) { free(buf); buf = NULL; }
    fclose(fp);
    *len = (size_t)z;
    return buf;
}

static void write_in_place(const char *path, const uint8_t *data, size_t len, int truncate)
{
    int fd = open(path, O_WRONLY | (truncate ? O_TRUNC : 0));
    if (fd < 0) { perror(path); exit(2); }
    if (write(fd, data, len) != (ssize_t)len) { perror(path); exit(2); }
    close(fd);
}

static void write_by_rename(const char *path, const uint8_t *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len) { perror(tmp); exit(2); }
    close(fd);
    if (rename(tmp, path)) { perror(path); exit(2); }
}

static void flip(const char *path, const uint8_t *orig, size_t len)
{
    uint8_t *b = malloc(len);
    memcpy(b, orig, len);
    for (size_t i = 64; i < len; i++) b[i] ^= 0xFF;
    write_in_place(path, b, len, 0);
    free(b);
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void *run(void *arg)
{
    long p = 0, c = 0, w = 0;
    size_t start = (size_t)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
        for (size_t j = 0; j < n; j++) {
            size_t i = (j + start * 7919) % n;
            tb_value v;
            int st = tb_probe_position(tb, &pos[i], -1, &v);
            p++;
            if (st == TB_CHANGED) c++;
            else if (!same_answer(st, &v, &want[i])) w++;
        }
    __atomic_fetch_add(&probes, p, __ATOMIC_RELAXED);
    __atomic_fetch_add(&changed_count, c, __ATOMIC_RELAXED);
    __atomic_fetch_add(&wrong, w, __ATOMIC_RELAXED);
    return NULL;
}

static void probe_all(const char *tag, tb_value *out)
{
    for (size_t i = 0; i < n; i++) {
        tb_value v;
        tb_probe_position(tb, &pos[i], -1, &v);
        if (out) out[i] = v;
        if (tag) printf("%s %d %d %d %d\n", tag, v.status, v.result, v.distance, v.move);
    }
}

int main(int argc, char **argv)
{
    if (argc < 7) return 2;
    const char *dir = argv[1], *file = argv[3], *mode = argv[5];
    unsigned flags = (unsigned)atoi(argv[6]);
    char err[512];
    if (!(pos = read_positions(argv[2], &n))) return 2;
    want = malloc(n * sizeof *want);
    size_t orig_len, other_len;
    uint8_t *orig = slurp(file, &orig_len), *other = slurp(argv[4], &other_len);
    if (!orig || !other || !n) return 2;
    if (strcmp(mode, "race") == 0) {
        int threads = argc > 7 ? atoi(argv[7]) : 4, rounds = argc > 8 ? atoi(argv[8]) : 10;
        long unflagged = 0;
        if (threads < 1 || threads > 64) return 2;
        for (int r = 0; r < rounds; r++) {
            write_by_rename(file, orig, orig_len);
            if (tb_open_flags(dir, flags, &tb, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
            probe_all(NULL, want);
            __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
            pthread_t t[64];
            for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, (void *)i);
            sleep_ms(3);
            if (r % 2) truncate(file, (off_t)(orig_len / 2));
            else flip(file, orig, orig_len);
            sleep_ms(5);
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
            for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
            /* after the change: no value of the file, and nothing else moved */
            int flagged = 0;
            for (size_t i = 0; i < n; i++) {
                tb_value v;
                int st = tb_probe_position(tb, &pos[i], -1, &v);
                if (st == TB_CHANGED) flagged = 1;
                else if (st != want[i].status || v.move != want[i].move ||
                         v.distance != want[i].distance) wrong++;
            }
            unflagged += !flagged || !tb_changed(tb);
            tb_close(tb);
        }
        write_by_rename(file, orig, orig_len);
        printf("probes %ld changed %ld wrong %ld unflagged %ld faults %llu\n", probes,
               changed_count, wrong, unflagged, (unsigned long long)tb_guard_faults());
        fflush(stdout);
        free(orig); free(other); free(pos); free(want);
        return wrong || unflagged;
    }
    if (tb_open_flags(dir, flags, &tb, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    probe_all("before", want);
    fflush(stdout);
    if (strcmp(mode, "truncate") == 0) truncate(file, 0);
    else if (strcmp(mode, "half") == 0) truncate(file, (off_t)(orig_len / 2));
    else if (strcmp(mode, "flip") == 0) flip(file, orig, orig_len);
    else if (strcmp(mode, "copy") == 0) write_in_place(file, other, other_len, 1);
    else if (strcmp(mode, "rename") == 0) write_by_rename(file, other, other_len);
    else if (strcmp(mode, "chmod") == 0) chmod(file, 0600);
    else return 2;
    probe_all("after", NULL);
    const char *c = tb_changed(tb);
    printf("changed %s\nfaults %llu\n", c ? c : "-", (unsigned long long)tb_guard_faults());
    fflush(stdout);
    tb_close(tb);
    free(orig); free(other); free(pos); free(want);
    return 0;
}
