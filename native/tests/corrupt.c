/* Truncated and corrupted probe files (built with the sanitizers by `make build/corrupt`):
 * each mutation of each file given is opened from an exactly sized heap copy; tb_add_buffer
 * either refuses it with one line or accepts it, and then every slot (index tables) or many
 * keys (key tables) are probed: a wrong value is allowed, a crash or a read past the buffer is
 * not; then the same after tb_index (which decodes every block: it may refuse the file too,
 * and the base must stay usable).
 * usage: corrupt SEED MUTATIONS FILE...  -> prints "refused N accepted M indexed K" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static unsigned long long state;
static unsigned rnd(void)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(state >> 33);
}

static void probe_all(const tb_base *tb)
{
    for (int i = 0; i < tb->count; i++) {
        const tb_file *f = tb->files[i];
        tb_value v;
        if (f->layout == 0) {
            uint64_t step = f->slots > 20000 ? f->slots / 20000 : 1;
            for (uint64_t s = 0; s < f->slots + 3; s += step) tb_index_value(f, s, &v);
        } else if (f->layout == 1) {
            for (int k = 0; k < 2000; k++) tb_key_value(f, (int64_t)rnd() % 20000, 0, 0, &v);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    state = strtoull(argv[1], NULL, 10);
    long mutations = strtol(argv[2], NULL, 10), refused = 0, accepted = 0, indexed = 0;
    for (int a = 3; a < argc; a++) {
        FILE *fp = fopen(argv[a], "rb");
        if (!fp) return 2;
        fseek(fp, 0, SEEK_END);
        long size = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *orig = malloc((size_t)size);
        if (fread(orig, 1, (size_t)size, fp) != (size_t)size) return 2;
        fclose(fp);
        for (long m = 0; m <= mutations; m++) {
            size_t n = (size_t)size;
            unsigned kind = m == 0 ? 9 : rnd() % 4;
            if (kind == 0) n = rnd() % (unsigned)size;                 /* truncated */
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, orig, n);
            if (kind == 1 || kind == 2) {                              /* bytes changed */
                int flips = kind == 1 ? 1 : 1 + (int)(rnd() % 16);
                for (int k = 0; k < flips; k++) {
                    size_t at = kind == 1 && rnd() % 2 ? rnd() % (n < 400 ? n : 400) : rnd() % n;
                    copy[at] ^= (uint8_t)(1u << (rnd() % 8));
                }
            } else if (kind == 3) {                                    /* a word set to extremes */
                size_t at = (rnd() % (n / 4)) * 4;
                uint32_t w = rnd() % 2 ? 0xFFFFFFFFu : rnd();
                memcpy(copy + at, &w, 4);
            }
            tb_base *tb = tb_new();
            char err[300];
            err[0] = 0;
            if (tb_add_buffer(tb, copy, n, argv[a], err, sizeof err) == TB_OK) {
                accepted++;
                probe_all(tb);
                err[0] = 0;
                int rc = tb_index(tb, err, sizeof err);
                if (rc == TB_OK) { indexed++; probe_all(tb); }
                else if (!err[0] || strchr(err, '\n')) { fprintf(stderr, "bad error '%s'\n", err); return 1; }
                else if (m == 0) { fprintf(stderr, "tb_index refused the intact file: %s\n", err); return 1; }
                else probe_all(tb);             /* a base tb_index refused stays usable */
            } else {
                refused++;
                if (!err[0] || strchr(err, '\n')) { fprintf(stderr, "bad error '%s'\n", err); return 1; }
                if (m == 0) { fprintf(stderr, "refused the intact file: %s\n", err); return 1; }
            }
            tb_close(tb);
            free(copy);
        }
        free(orig);
    }
    printf("refused %ld accepted %ld indexed %ld\n", refused, accepted, indexed);
    return 0;
}
