/* Checkpoints and arenas (tb_index): each index table's blocks get checkpoints, and the file's
 * entry, its streams' decoding tables and the checkpoints move side by side into one arena, so
 * a cold probe misses the cache on few lines; the memory a base holds besides its files. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#ifdef TB_HAVE_MMAP
#include <sys/mman.h>
#endif

/* words of checkpoints file f needs and how its two streams share them: a table's two streams
 * keep a block's checkpoints side by side (two adjacent 64-byte lines) when their blocks agree */
static uint64_t index_words(const tb_file *f, int *shared)
{
    if (f->layout != TB_LAYOUT_INDEX || f->vals.dir) return 0;
    uint64_t v = tb_stream_index_words(&f->vals), m = f->moves ? tb_stream_index_words(&f->mov) : 0;
    *shared = v && m && f->vals.blocks == f->mov.blocks;
    return v + m;
}

static uint64_t tables_bytes(const tb_file *f)
{
    if (f->layout != TB_LAYOUT_INDEX) return 0;
    return tb_stream_tables_bytes(&f->vals) + (f->moves ? tb_stream_tables_bytes(&f->mov) : 0);
}

/* bytes file f needs in an arena: its entry (unless already in one), checkpoints, tables */
static uint64_t arena_need(const tb_file *f)
{
    int shared;
    const uint64_t file_bytes = (sizeof(tb_file) + 63) & ~(uint64_t)63;
    if (f->direct) return 0;   /* no streams to index, and left where it is (index_into) */
    return 4 * ((index_words(f, &shared) + 15) & ~(uint64_t)15) + tables_bytes(f) +
           (f->in_arena ? 0 : file_bytes);
}

/* a new arena of `need` bytes, 64-byte aligned, on huge pages where the platform has them: a
 * probe of a table not probed lately then misses the cache on it, rarely the TLB as well */
static uint8_t *raw_arena(tb_base *tb, uint64_t need, char *err, size_t err_len)
{
    struct tb_arena *more = realloc(tb->arena, (size_t)(tb->arenas + 1) * sizeof *more);
    if (!more) { tb_seterr(err, err_len, "out of memory"); return NULL; }
    tb->arena = more;
    struct tb_arena *a = &tb->arena[tb->arenas];
    if (need > SIZE_MAX / 2) { tb_seterr(err, err_len, "out of memory"); return NULL; }
    a->bytes = (size_t)need;
    a->mapped = 0;
    a->p = NULL;
#if defined(TB_HAVE_MMAP) && defined(MADV_HUGEPAGE)
    if (need >= (2u << 20)) {
        size_t huge = 2u << 20;
        a->bytes = (size_t)((need + huge - 1) / huge * huge);
        void *p = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            madvise(p, a->bytes, MADV_HUGEPAGE);
            a->p = p;
            a->mapped = 1;
        }
    }
#endif
    if (!a->p && !(a->p = malloc(a->bytes))) { tb_seterr(err, err_len, "out of memory"); return NULL; }
    tb->index_bytes += need;
    tb->arenas++;
    return (uint8_t *)(((uintptr_t)a->p + 63) & ~(uintptr_t)63);
}

/* A lazy base indexes one file at a time: its arenas are carved from chunks of POOL_CHUNK
 * bytes (one huge page), not allocated one by one.  Each fresh 4 KB page a process touches is
 * a page fault, and in a virtual machine a fault on memory new to it leaves the caches and
 * predictors cold for the lookups after it (measured in benchmarks/RESULTS.md) */
#define POOL_CHUNK ((uint64_t)2 << 20)

static uint8_t *new_arena(tb_base *tb, uint64_t need, char *err, size_t err_len)
{
    need = (need + 63) & ~(uint64_t)63;
    if (!tb->lazy || need > POOL_CHUNK / 4) return raw_arena(tb, need, err, err_len);
    if (tb->pool_left < need) {
        uint8_t *chunk = raw_arena(tb, POOL_CHUNK, err, err_len);
        if (!chunk) return NULL;
        tb->pool = chunk;
        tb->pool_left = POOL_CHUNK - 64;   /* what raw_arena's alignment may have taken */
    }
    uint8_t *p = tb->pool;
    tb->pool += need;
    tb->pool_left -= need;
    return p;
}

/* *fp indexed into the arena at *at (moved there, with its tables), *at advanced past it */
static int index_into(tb_file **fp, uint8_t **at, char *err, size_t err_len)
{
    tb_file *f = *fp;
    uint8_t *p = *at;
    int shared;
    const uint64_t file_bytes = (sizeof(tb_file) + 63) & ~(uint64_t)63;
    if (f->direct) return TB_OK;   /* nothing to index (arena_need: none) */
    if (!f->in_arena) {       /* the file's own entry too, beside its tables */
        tb_file *moved = (tb_file *)p;
        memcpy(moved, f, sizeof *f);
        moved->in_arena = 1;
        free(f);
        *fp = f = moved;
        p += file_bytes;
    }
    *at = p;
    if (f->layout != TB_LAYOUT_INDEX) return TB_OK;
    uint64_t w = index_words(f, &shared), tv = tb_stream_tables_bytes(&f->vals),
             tm = f->moves ? tb_stream_tables_bytes(&f->mov) : 0;
    uint32_t *dir = (uint32_t *)(p + tv + tm);
    const char *why = NULL;
    int rc = 0;
    if (w && shared) {
        rc = tb_stream_index(&f->vals, dir, 2 * TB_CHECKPOINTS, &why) ||
             tb_stream_index(&f->mov, dir + TB_CHECKPOINTS, 2 * TB_CHECKPOINTS, &why);
    } else if (w) {
        uint64_t v = tb_stream_index_words(&f->vals);
        if (v) rc = tb_stream_index(&f->vals, dir, TB_CHECKPOINTS, &why);
        if (!rc && f->moves && tb_stream_index_words(&f->mov))
            rc = tb_stream_index(&f->mov, dir + v, TB_CHECKPOINTS, &why);
    }
    if (rc) {
        tb_seterr(err, err_len, "probe file '%s' is damaged: %s", f->what, why);
        return strcmp(why, "out of memory") == 0 ? TB_NOMEM : TB_DAMAGED;
    }
    /* then the tables move beside the checkpoints (indexing read them where they were) */
    tb_stream_move_tables(&f->vals, p);
    if (f->moves) tb_stream_move_tables(&f->mov, p + tv);
    *at = p + tv + tm + 4 * ((w + 15) & ~(uint64_t)15);
    return TB_OK;
}

int tb_index(tb_base *tb, char *err, size_t err_len)
{
    uint64_t need = 64;
    for (int i = 0; i < tb->count; i++) need += arena_need(tb->files[i]);
    if (need == 64) return TB_OK;
    uint8_t *at = new_arena(tb, need, err, err_len);
    if (!at) return TB_NOMEM;
    int status = TB_OK;
    for (int i = 0; i < tb->count && status == TB_OK; i++)
        status = index_into(&tb->files[i], &at, err, err_len);
    /* the hash index, onto the moved entries (also after a damaged file: the base stays usable,
     * the files indexed so far indexed) */
    memset(tb->index, 0, (size_t)(tb->index_mask + 1) * sizeof *tb->index);
    for (int j = 0; j < tb->count; j++) {
        uint64_t h = tb_name_hash(tb->files[j]->game, tb->files[j]->name);
        uint32_t slot = (uint32_t)h & tb->index_mask;
        while (tb->index[slot].hash) slot = (slot + 1) & tb->index_mask;
        tb->index[slot].hash = h;
        tb->index[slot].file = tb->files[j];
    }
    return status;
}

int tb_index_file(tb_base *tb, tb_file **f, char *err, size_t err_len)
{
    if ((*f)->layout != TB_LAYOUT_INDEX) return TB_OK;
    uint64_t need = 64 + arena_need(*f);
    if (need == 64) return TB_OK;
    uint8_t *at = new_arena(tb, need, err, err_len);
    return at ? index_into(f, &at, err, err_len) : TB_NOMEM;
}

void tb_memory(const tb_base *tb, uint64_t *file_bytes, uint64_t *table_bytes)
{
    uint64_t files = 0, tables = tb ? sizeof *tb + tb->index_bytes + (tb->uttt ? tb_uttt_tables_size() : 0) +
                                      (uint64_t)(tb->index_mask + 1) * sizeof(tb_slot) : 0;
    for (int i = 0; tb && i < tb->count; i++) {
        const tb_file *f = tb->files[i];
        files += f->size;
        tables += (f->in_arena ? 0 : sizeof *f) + tb_stream_heap_bytes(&f->vals) +
                  tb_stream_heap_bytes(&f->mov);
        const tb_game_ops *game = tb_game_ops_of(f->game);
        if (game && game->heap_bytes) tables += game->heap_bytes(f);
    }
    if (file_bytes) *file_bytes = files;
    if (table_bytes) *table_bytes = tables;
}
