/* TB_OPEN_LAZY: a base over a directory of probe files whose files open on their first probe.
 *
 * Opening every file at once costs a mapping, a header and page faults per file: 70-165 ms for
 * the 1,099 files of CDC 2-4 pieces, before the first probe.  A lazy base reads the manifest
 * only; the probe that first needs a table opens its file with tb_open's checks (listed, inside
 * the directory, its size, its structure, its table), and with the base's TB_OPEN_VERIFY its
 * SHA-256, with TB_OPEN_INDEX its checkpoints, before any other thread can see it.  Probes stay
 * thread-safe: the hash index is sized for every entry at opening, so inserting a file writes
 * one slot (its file, then its hash, released) and never rebuilds what another thread reads;
 * opening itself is serialised by a lock.  A file that fails a check is refused once and for
 * all: its probes answer TB_MISSING, and tb_lazy_status says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#if !defined(__wasi__) && !defined(_WIN32)
#define TB_HAVE_SCHED 1
#include <sched.h>
#endif

enum { NOT_TRIED = 0, OPENED = 1, REFUSED = 2, TOO_LARGE = 3 };

struct tb_lazy {
    char dir[4096], root[4096];
    unsigned flags;
    uint64_t max_bytes;            /* larger files are left to the application (tb_lazy_limit) */
    uint64_t check_max;            /* larger files skip VERIFY and INDEX (tb_lazy_check_limit) */
    int count;
    tb_manifest_entry *entries;
    int *games;                    /* each entry's tb_game, -1 for a game this library lacks */
    int *state;                    /* NOT_TRIED .. TOO_LARGE */
    char **why;                    /* a refused entry's message */
    int32_t *slots;                /* (game, table) hash -> entry + 1 */
    uint32_t mask;
    int lock;
};

static void lock(struct tb_lazy *lz)
{
#if defined(__GNUC__) || defined(__clang__)
    while (__atomic_exchange_n(&lz->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lz->lock, __ATOMIC_RELAXED)) {
#ifdef TB_HAVE_SCHED
            sched_yield();   /* the holder opens a file: a millisecond, not a spin's worth */
#endif
        }
#else
    (void)lz;
#endif
}

static void unlock(struct tb_lazy *lz)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(&lz->lock, 0, __ATOMIC_RELEASE);
#else
    (void)lz;
#endif
}

int tb_lazy_init(tb_base *tb, const char *dir, const char *root, tb_manifest_entry *entries,
                 int count, unsigned flags, char *err, size_t err_len)
{
    struct tb_lazy *lz = calloc(1, sizeof *lz);
    uint32_t size = 64;
    while (size < (uint32_t)count * 4) size *= 2;
    if (lz) {
        lz->games = malloc(((size_t)count + 1) * sizeof *lz->games);
        lz->state = calloc((size_t)count + 1, sizeof *lz->state);
        lz->why = calloc((size_t)count + 1, sizeof *lz->why);
        lz->slots = calloc(size, sizeof *lz->slots);
    }
    /* the base's own hash index, sized now for every file it may hold (see above) */
    tb_slot *index = calloc(size, sizeof *index);
    if (!lz || !lz->games || !lz->state || !lz->why || !lz->slots || !index) {
        if (lz) { free(lz->games); free(lz->state); free(lz->why); free(lz->slots); }
        free(lz);
        free(index);
        free(entries);
        tb_seterr(err, err_len, "out of memory");
        return TB_NOMEM;
    }
    free(tb->index);
    tb->index = index;
    tb->index_mask = size - 1;
    snprintf(lz->dir, sizeof lz->dir, "%s", dir);
    snprintf(lz->root, sizeof lz->root, "%s", root);
    lz->flags = flags;
    lz->max_bytes = UINT64_MAX;
    lz->check_max = UINT64_MAX;
    lz->count = count;
    lz->entries = entries;
    lz->mask = size - 1;
    for (int i = 0; i < count; i++) {
        int g = tb_game_of(entries[i].game);
        lz->games[i] = g;
        if (g < 0) continue;
        uint32_t at = (uint32_t)tb_name_hash((tb_game)g, entries[i].table) & lz->mask;
        while (lz->slots[at]) at = (at + 1) & lz->mask;
        lz->slots[at] = i + 1;
        /* what a game's probes read before they name their table (UTTT's board codes; a base
         * makes them with its first file of the game): made now, so the first probe finds them */
        const tb_game_ops *game = tb_game_ops_of((tb_game)g);
        if (game->base_tables && game->base_tables(tb) != TB_OK) {
            tb->lazy = lz;
            tb_seterr(err, err_len, "out of memory");
            return TB_NOMEM;
        }
    }
    tb->lazy = lz;
    return TB_OK;
}

void tb_lazy_free(tb_base *tb)
{
    struct tb_lazy *lz = tb->lazy;
    if (!lz) return;
    for (int i = 0; i < lz->count; i++) free(lz->why[i]);
    free(lz->why);
    free(lz->entries);
    free(lz->games);
    free(lz->state);
    free(lz->slots);
    free(lz);
    tb->lazy = NULL;
}

static int entry_of(const struct tb_lazy *lz, int game, const char *name)
{
    for (uint32_t at = (uint32_t)tb_name_hash((tb_game)game, name) & lz->mask;;
         at = (at + 1) & lz->mask) {
        int32_t e = lz->slots[at] - 1;
        if (e < 0) return -1;
        if (lz->games[e] == game && strcmp(lz->entries[e].table, name) == 0) return e;
    }
}

/* entry e's file opened, checked and inserted; NULL with *why set (malloc'ed) if refused.  The
 * WebAssembly build gets its files as buffers (tb_add_buffer) and opens none itself: there a
 * probe never reaches the file system (which would import WASI's) */
static const tb_file *open_entry(tb_base *tb, struct tb_lazy *lz, int e, char **why)
{
#ifdef __wasi__
    (void)tb;
    (void)lz;
    (void)e;
    *why = NULL;
    return NULL;
#else
    char err[512] = "";
    tb_file *f = NULL;
    int rc = tb_map_entry(tb, lz->dir, lz->root, &lz->entries[e], lz->games[e], &f, err,
                          sizeof err);
    unsigned flags = lz->entries[e].size > lz->check_max
        ? lz->flags & ~(unsigned)(TB_OPEN_VERIFY | TB_OPEN_INDEX) : lz->flags;
    if (rc == TB_OK && (flags & TB_OPEN_UNWATCHED)) tb_unwatch(f);
    if (rc == TB_OK && (flags & TB_OPEN_VERIFY)) rc = tb_verify_file(f, err, sizeof err);
    if (rc == TB_OK && (flags & TB_OPEN_INDEX)) rc = tb_index_file(tb, &f, err, sizeof err);
    if (rc == TB_OK) rc = tb_base_insert(tb, f, err, sizeof err);
    if (rc == TB_OK) {
        if (tb->on_opened) tb->on_opened(tb->missing_ctx, f);
        return f;
    }
    if (f) tb_free_file(f);
    size_t n = strlen(err) + 1;
    if ((*why = malloc(n + 8))) snprintf(*why, n + 8, "%d %s", rc, err);
    return NULL;
#endif
}

const tb_file *tb_lazy_open(tb_base *tb, tb_game game, const char *name)
{
    struct tb_lazy *lz = tb->lazy;
    int e = entry_of(lz, (int)game, name);
    if (e < 0 || TB_LOAD_ACQUIRE(&lz->state[e]) != NOT_TRIED) return NULL;
    lock(lz);
    const tb_file *f = tb_find_held(tb, game, name);   /* another thread may have opened it */
    if (!f && lz->state[e] == NOT_TRIED) {
        int state;
        if (lz->entries[e].size > lz->max_bytes) {
            state = TOO_LARGE;
        } else {
            f = open_entry(tb, lz, e, &lz->why[e]);
            state = f ? OPENED : REFUSED;
        }
        TB_STORE_RELEASE(&lz->state[e], state);
    }
    unlock(lz);
    return f;
}

void tb_lazy_limit(tb_base *tb, uint64_t max_bytes)
{
    if (tb && tb->lazy) tb->lazy->max_bytes = max_bytes;
}

void tb_lazy_check_limit(tb_base *tb, uint64_t max_bytes)
{
    if (tb && tb->lazy) tb->lazy->check_max = max_bytes;
}

int tb_lazy_status(const tb_base *tb, const char *game, const char *table, char *err,
                   size_t err_len)
{
    if (!tb || !tb->lazy) return TB_INVALID;
    struct tb_lazy *lz = tb->lazy;
    int g = tb_game_of(game);
    int e = g < 0 ? -1 : entry_of(lz, g, table);
    if (e < 0) {
        tb_seterr(err, err_len, "no table '%s' of %s in '%s'", table, game, lz->dir);
        return TB_MISSING;
    }
    switch (TB_LOAD_ACQUIRE(&lz->state[e])) {
    case OPENED: return TB_OK;
    case NOT_TRIED:
        tb_seterr(err, err_len, "table '%s' of %s not probed yet", table, game);
        return TB_MISSING;
    case TOO_LARGE:
        tb_seterr(err, err_len, "probe file of table '%s' of %s is over the base's lazy limit "
                  "(%llu bytes)", table, game, (unsigned long long)lz->entries[e].size);
        return TB_MISSING;
    default: {
        const char *why = lz->why[e];
        int rc = why ? atoi(why) : TB_NOMEM;
        const char *msg = why ? strchr(why, ' ') : NULL;
        tb_seterr(err, err_len, "%s", msg ? msg + 1 : "out of memory");
        return rc;
    }
    }
}
