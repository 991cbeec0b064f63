/* The set of tables of a tb_base: kept sorted by (game, name) and hashed for probes, which
 * find their table with one or two cache misses; adding a file, finding one, listing them. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int cmp_key(tb_game g1, const char *n1, tb_game g2, const char *n2)
{
    if (g1 != g2) return g1 < g2 ? -1 : 1;
    return strcmp(n1, n2);
}

uint64_t tb_name_hash(tb_game game, const char *name)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)game;          /* FNV-1a */
    for (; *name; name++) h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return h | 1;                                                   /* never 0, the empty mark */
}

const tb_file *tb_find(const tb_base *tb, tb_game game, const char *name)
{
    const tb_file *f = tb_find_held(tb, game, name);
    /* a lazy base opens the file now (the base's const is the probes' promise to the caller:
     * opening a file once changes no answer) */
    if (!f && tb->lazy) f = tb_lazy_open((tb_base *)tb, game, name);
    if (!f && tb->on_missing) tb->on_missing(tb->missing_ctx, name);
    return f;
}

const tb_file *tb_find_held(const tb_base *tb, tb_game game, const char *name)
{
    if (tb->index) {
        uint64_t h = tb_name_hash(game, name);
        for (uint32_t i = (uint32_t)h & tb->index_mask;; i = (i + 1) & tb->index_mask) {
            const tb_slot *sl = &tb->index[i];
            /* a slot's hash is written after its file (release): a lazy base inserts files
             * while other threads probe */
            uint64_t sh = TB_LOAD_ACQUIRE(&sl->hash);
            if (!sh) return NULL;
            if (sh == h && sl->file->game == game && strcmp(sl->file->name, name) == 0) {
#if defined(__GNUC__) || defined(__clang__)
                /* what the probe reads next, asked for at once: the game's table, the slot
                 * order and both streams' first lines (a table not probed lately is in no cache) */
                const tb_file *f = sl->file;
                for (int j = 0; j < 192; j += 64) __builtin_prefetch((const char *)&f->g + j);
                for (int j = 0; j < 136; j += 64) __builtin_prefetch((const char *)&f->digits + j);
                if (f->direct) __builtin_prefetch((const char *)&f->direct);
                else for (int j = 0; j < 128; j += 64) {
                    __builtin_prefetch((const char *)&f->vals + j);
                    __builtin_prefetch((const char *)&f->mov + j);
                }
#endif
                return sl->file;
            }
        }
    }
    int lo = 0, hi = tb->count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int c = cmp_key(tb->files[mid]->game, tb->files[mid]->name, game, name);
        if (c == 0) return tb->files[mid];
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return NULL;
}

int tb_base_insert(tb_base *tb, tb_file *f, char *err, size_t err_len)
{
    if (tb_find_held(tb, f->game, f->name)) {
        tb_seterr(err, err_len, "two probe files hold table '%s' of %s", f->name,
                  tb_game_name(f->game));
        return TB_INVALID;
    }
    if (tb->count == tb->cap) {
        int cap = tb->cap ? 2 * tb->cap : 64;
        tb_file **files = realloc(tb->files, (size_t)cap * sizeof *files);
        if (!files) { tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
        tb->files = files;
        tb->cap = cap;
    }
    int i = tb->count;
    while (i > 0 && cmp_key(tb->files[i - 1]->game, tb->files[i - 1]->name, f->game, f->name) > 0) {
        tb->files[i] = tb->files[i - 1];
        i--;
    }
    tb->files[i] = f;
    tb->count++;
    /* the hash index, at most half full: rebuilt when it grows (adding is not a probe) */
    if ((uint32_t)tb->count * 2 > tb->index_mask) {
        uint32_t size = 64;
        while (size < (uint32_t)tb->count * 4) size *= 2;
        tb_slot *index = calloc(size, sizeof *index);
        if (!index) { tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
        free(tb->index);
        tb->index = index;
        tb->index_mask = size - 1;
        for (int j = 0; j < tb->count; j++) {
            uint64_t h = tb_name_hash(tb->files[j]->game, tb->files[j]->name);
            uint32_t at = (uint32_t)h & tb->index_mask;
            while (tb->index[at].hash) at = (at + 1) & tb->index_mask;
            tb->index[at].hash = h;
            tb->index[at].file = tb->files[j];
        }
    } else {
        uint64_t h = tb_name_hash(f->game, f->name);
        uint32_t at = (uint32_t)h & tb->index_mask;
        while (tb->index[at].hash) at = (at + 1) & tb->index_mask;
        tb->index[at].file = f;
        TB_STORE_RELEASE(&tb->index[at].hash, h);   /* the file first: probes read it after */
    }
    return TB_OK;
}

int tb_table_count(const tb_base *tb) { return tb ? tb->count : 0; }

const char *tb_table_name(const tb_base *tb, int i, tb_game *game)
{
    if (!tb || i < 0 || i >= tb->count) return NULL;
    if (game) *game = tb->files[i]->game;
    return tb->files[i]->name;
}
