/* A tb_base: opening a directory of probe files (mmap where the platform has it, else a plain
 * read), adding files or caller-owned buffers, closing; and the entry points that dispatch on
 * the game (text, probes of a parsed position, move text). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#if !defined(__wasi__) && !defined(_WIN32)
#define TB_HAVE_MMAP 1
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#else
#include <dirent.h>
#include <sys/stat.h>
#endif

int tb_base_insert(tb_base *tb, tb_file *f, char *err, size_t err_len);

tb_base *tb_new(void)
{
    return calloc(1, sizeof(tb_base));
}

void tb_free_file(tb_file *f)
{
    tb_file_release(f);
#ifdef TB_HAVE_MMAP
    if (f->guarded) tb_unguard_mapping(f->data);
    if (f->mapped) munmap((void *)f->data, f->size);
    if (f->watch == TB_WATCH_FD) close(f->fd);
#endif
    free(f->real_path);
    free(f->owned);
    if (!f->in_arena) free(f);
}

void tb_close(tb_base *tb)
{
    if (!tb) return;
    tb_lazy_free(tb);
    for (int i = 0; i < tb->count; i++) tb_free_file(tb->files[i]);
    free(tb->files);
    free(tb->index);
    free(tb->uttt);
    for (int i = 0; i < tb->arenas; i++) {
#ifdef TB_HAVE_MMAP
        if (tb->arena[i].mapped) { munmap(tb->arena[i].p, tb->arena[i].bytes); continue; }
#endif
        free(tb->arena[i].p);
    }
    free(tb->arena);
    free(tb);
}

/* f read from data and checked (its game, its manifest entry's table), not yet in the base */
static int prepare(tb_base *tb, tb_file *f, const uint8_t *data, uint64_t size, const char *what,
                   int want_game, const tb_manifest_entry *me, char *err, size_t err_len)
{
    snprintf(f->what, sizeof f->what, "%s", what);
    int rc = tb_file_open_buffer(f, data, size, what, err, err_len);
    if (rc == TB_OK && f->game == TB_UTTT && !tb->uttt && !(tb->uttt = tb_uttt_tables_new())) {
        tb_seterr(err, err_len, "out of memory");
        rc = TB_NOMEM;
    }
    if (rc == TB_OK && want_game >= 0 && (int)f->game != want_game) {
        tb_seterr(err, err_len, "probe file '%s' holds a table of %s, not of %s", what,
                  tb_game_name(f->game), tb_game_name((tb_game)want_game));
        rc = TB_DAMAGED;
    }
    if (rc == TB_OK && me && strcmp(f->name, me->table) != 0) {
        tb_seterr(err, err_len, "probe file '%s' is damaged or not a probe file: it holds table "
                  "'%s', its manifest says '%s' (export it again)", what, f->name, me->table);
        rc = TB_DAMAGED;
    }
    char why[400];
    if (rc == TB_OK && me && tb_manifest_mismatch(me, f, why, sizeof why)) {
        /* entries swapped or a count edited: what tbdb's Python refuses (header_mismatch) */
        tb_seterr(err, err_len, "probe file '%s' is not the file its manifest lists: %s; export "
                  "it again", what, why);
        rc = TB_DAMAGED;
    }
    if (me) memcpy(f->sha256, me->sha256, sizeof f->sha256);
    return rc;
}

static int add(tb_base *tb, tb_file *f, const uint8_t *data, uint64_t size, const char *what,
               int want_game, const tb_manifest_entry *me, char *err, size_t err_len)
{
    int rc = prepare(tb, f, data, size, what, want_game, me, err, err_len);
    if (rc == TB_OK) rc = tb_base_insert(tb, f, err, err_len);
    if (rc != TB_OK) tb_free_file(f);
    return rc;
}

int tb_add_buffer(tb_base *tb, const void *data, size_t size, const char *name, char *err,
                  size_t err_len)
{
    tb_file *f = calloc(1, sizeof *f);
    if (!f) { tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
    return add(tb, f, data, size, name ? name : "(buffer)", -1, NULL, err, err_len);
}

/* the size the manifest gives a file against the one found (0 ok, else TB_DAMAGED written) */
static int check_size(const tb_manifest_entry *me, uint64_t size, const char *path, char *err,
                      size_t err_len)
{
    if (!me || me->size == size) return TB_OK;
    tb_seterr(err, err_len, "probe file '%s' is damaged or not a probe file: %llu bytes, its "
              "manifest says %llu (truncated or replaced; export it again)", path,
              (unsigned long long)size, (unsigned long long)me->size);
    return TB_DAMAGED;
}

#ifdef TB_HAVE_MMAP
/* what a file that is not a regular one is, as tbdb's Python words it (safe_files.kind) */
static const char *file_kind(mode_t mode)
{
    return S_ISLNK(mode) ? "a symbolic link" : S_ISDIR(mode) ? "a directory" :
           S_ISFIFO(mode) ? "a FIFO (named pipe)" : S_ISSOCK(mode) ? "a socket" :
           S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
           "some other kind of file";
}

/* How probes will check that f did not change (watch.c): by the descriptor it was mapped from,
 * kept open (close-on-exec) while it takes at most half the process's descriptors, else by its
 * real path (a directory of more files than that; tbdb's CLI raises the limit first) */
static void watch(tb_file *f, int fd, const struct stat *st, const char *path)
{
    struct rlimit rl;
    tb_watch_ident(st, &f->ident);
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        (rlim_t)fd < rl.rlim_cur / 2) {
        f->watch = TB_WATCH_FD;
        f->fd = fd;
        return;
    }
    close(fd);
    char real[PATH_MAX];
    if (realpath(path, real) && (f->real_path = strdup(real))) f->watch = TB_WATCH_PATH;
}
#endif

/* the file at path (its real path `real`, if known) mapped (or read) and prepared: TB_OK and
 * *out, not yet in the base */
static int map_file(tb_base *tb, const char *path, const char *real, int want_game,
                    const tb_manifest_entry *me, tb_file **out, char *err, size_t err_len)
{
    *out = NULL;
    tb_file *f = calloc(1, sizeof *f);
    if (!f) { tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
#ifdef TB_HAVE_MMAP
    /* a FIFO must not block the open; `real` (a manifest's entry, its real path checked to lie
     * inside the directory) is opened as checked: no link swapped in since */
    int fd = open(real ? real : path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (real ? O_NOFOLLOW : 0));
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd < 0) tb_seterr(err, err_len, "cannot read probe file '%s': %s", path, strerror(errno));
        else tb_seterr(err, err_len, "probe file '%s' is %s, not a regular file", path,
                       file_kind(st.st_mode));
        if (fd >= 0) close(fd);
        free(f);
        return TB_IO;
    }
    if (check_size(me, (uint64_t)st.st_size, path, err, err_len)) {
        close(fd);
        free(f);
        return TB_DAMAGED;
    }
    void *map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (map == MAP_FAILED) {
        tb_seterr(err, err_len, "probe file '%s' is damaged or not a probe file: %s", path,
                  st.st_size ? strerror(errno) : "empty");
        close(fd);
        free(f);
        return st.st_size ? TB_IO : TB_DAMAGED;
    }
    f->mapped = 1;
    /* the identity probes compare with (watch.c), taken before any byte was read; a read past
     * the end of a file truncated from now on is absorbed */
    watch(f, fd, &st, real ? real : path);
    f->guarded = tb_guard_mapping(map, (size_t)st.st_size) == 0;
    int rc = prepare(tb, f, map, (uint64_t)st.st_size, path, want_game, me, err, err_len);
#else
    (void)real;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        tb_seterr(err, err_len, "cannot read probe file '%s': %s", path, strerror(errno));
        free(f);
        return TB_IO;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) { fclose(fp); free(f); tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap) break;
        uint8_t *more = realloc(buf, cap *= 2);
        if (!more) free(buf);
        buf = more;
    }
    fclose(fp);
    f->owned = buf;
    if (check_size(me, n, path, err, err_len)) {
        free(buf);
        free(f);
        return TB_DAMAGED;
    }
    int rc = prepare(tb, f, buf, n, path, want_game, me, err, err_len);
#endif
    if (rc != TB_OK) tb_free_file(f);
    else *out = f;
    return rc;
}

void tb_unwatch(tb_file *f)
{
#ifdef TB_HAVE_MMAP
    if (f->watch == TB_WATCH_FD) close(f->fd);
#endif
    free(f->real_path);
    f->real_path = NULL;
    f->watch = TB_WATCH_NONE;
}

void tb_watch_buffer(tb_base *tb, const void *data, size_t size, const char *path)
{
#ifdef TB_HAVE_MMAP
    tb_file *f = NULL;
    for (int i = 0; i < tb->count && !f; i++)
        if (tb->files[i]->data == data && !tb->files[i]->watch) f = tb->files[i];
    if (!f) return;
    f->guarded = tb_guard_mapping(data, size) == 0;
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != size) {
        close(fd);   /* not the size mapped: changed since the caller mapped it */
        f->changed = 1;
        return;
    }
    watch(f, fd, &st, path);
#else
    (void)tb;
    (void)data;
    (void)size;
    (void)path;
#endif
}

static int add_file(tb_base *tb, const char *path, int want_game, const tb_manifest_entry *me,
                    char *err, size_t err_len)
{
    tb_file *f;
    int rc = map_file(tb, path, NULL, want_game, me, &f, err, err_len);
    if (rc == TB_OK && (rc = tb_base_insert(tb, f, err, err_len)) != TB_OK) tb_free_file(f);
    return rc;
}

int tb_map_entry(tb_base *tb, const char *dir, const char *root, const tb_manifest_entry *me,
                 int game, tb_file **out, char *err, size_t err_len)
{
    char path[4096 + 2 * TB_NAME_MAX + 256];
    struct stat st;
    *out = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, me->path);
    if (stat(path, &st) != 0) {
        tb_seterr(err, err_len, "probe file '%s' of table '%s' of %s is missing from '%s' "
                  "(export it again: tbdb export --out %s --game %s --table %s)", path,
                  me->table, me->game, dir, dir, me->game, me->table);
        return TB_IO;
    }
#ifdef TB_HAVE_MMAP
    char real[PATH_MAX];
    size_t rl = strlen(root);
    if (!realpath(path, real) || strncmp(real, root, rl) != 0 || real[rl] != '/') {
        tb_seterr(err, err_len, "probe file '%s' leaves '%s'", path, dir);
        return TB_IO;
    }
    return map_file(tb, path, real, game, me, out, err, err_len);
#else
    (void)root;
    return map_file(tb, path, NULL, game, me, out, err, err_len);
#endif
}

int tb_add_file(tb_base *tb, const char *path, char *err, size_t err_len)
{
    return add_file(tb, path, -1, NULL, err, err_len);
}

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
 * predictors cold for the lookups after it (about 24 pages a CDC table of 150 KB; single
 * lookups right after a table's first ran 6 us slower) */
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
        if (f->game == TB_CHINESE_CHECKERS && f->g.cc.class_of) tables += 4 * (uint64_t)f->g.cc.subsets;
    }
    if (file_bytes) *file_bytes = files;
    if (table_bytes) *table_bytes = tables;
}

int tb_open(const char *dir, tb_base **out, char *err, size_t err_len)
{
    return tb_open_flags(dir, 0, out, err, err_len);
}

/* TB_OPEN_POPULATE: every mapped file's pages in the page tables now, not one fault at a time
 * as probes touch them (a hint: the kernel may refuse it, and nothing depends on it) */
static void populate(tb_base *tb)
{
#if defined(TB_HAVE_MMAP)
    for (int i = 0; i < tb->count; i++) {
        tb_file *f = tb->files[i];
        if (!f->mapped) continue;
#if defined(MADV_POPULATE_READ)
        if (madvise((void *)f->data, f->size, MADV_POPULATE_READ) == 0) continue;
#elif defined(__linux__)
        if (madvise((void *)f->data, f->size, 22) == 0) continue;   /* MADV_POPULATE_READ */
#endif
#if defined(MADV_WILLNEED)
        madvise((void *)f->data, f->size, MADV_WILLNEED);
#endif
    }
#else
    (void)tb;
#endif
}

int tb_open_flags(const char *dir, unsigned flags, tb_base **out, char *err, size_t err_len)
{
    *out = NULL;
    char path[4096];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        tb_seterr(err, err_len, "'%s' is not a directory of probe files", dir);
        return TB_IO;
    }
    snprintf(path, sizeof path, "%s/manifest.json", dir);
#ifdef TB_HAVE_MMAP
    if (lstat(path, &st) != 0) {   /* (a link is checked below: where it leads) */
#else
    if (stat(path, &st) != 0) {
#endif
        tb_seterr(err, err_len, "'%s' is not a directory of probe files: no manifest.json "
                  "(write one with: tbdb export --out %s)", dir, dir);
        return TB_IO;
    }
#ifdef TB_HAVE_MMAP
    char root[PATH_MAX], real[PATH_MAX];
    if (!realpath(dir, root)) {
        tb_seterr(err, err_len, "cannot read '%s': %s", dir, strerror(errno));
        return TB_IO;
    }
    /* the manifest: inside the directory (a link out of it refused, as tbdb's Python refuses
     * it), a regular file (a FIFO is neither waited on nor read), opened as checked */
    size_t rl = strlen(root);
    if (!realpath(path, real)) {
        tb_seterr(err, err_len, "cannot read manifest '%s': %s", path, strerror(errno));
        return TB_IO;
    }
    if (strncmp(real, root, rl) != 0 || real[rl] != '/') {
        tb_seterr(err, err_len, "manifest '%s' is a link to '%s', outside '%s'; probe files must "
                  "lie inside their directory", path, real, dir);
        return TB_IO;
    }
    int mfd = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (mfd < 0 || fstat(mfd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (mfd >= 0) close(mfd);
        if (mfd < 0) tb_seterr(err, err_len, "cannot read manifest '%s': %s", path, strerror(errno));
        else tb_seterr(err, err_len, "manifest '%s' is %s, not a regular file", path,
                       file_kind(st.st_mode));
        return TB_IO;
    }
    FILE *mf = fdopen(mfd, "rb");
    if (!mf) close(mfd);
#else
    FILE *mf = fopen(path, "rb");
#endif
    /* the manifest: the files to open, each with its size and checksum */
    size_t cap = 1 << 16, n = 0;
    char *text = mf ? malloc(cap) : NULL;
    while (text) {
        n += fread(text + n, 1, cap - n, mf);
        if (n < cap || cap >= ((size_t)1 << 30)) break;
        char *more = realloc(text, cap *= 2);
        if (!more) free(text);
        text = more;
    }
    if (mf) fclose(mf);
    if (!text) {
        tb_seterr(err, err_len, mf ? "out of memory" : "cannot read '%s': %s", path, strerror(errno));
        return mf ? TB_NOMEM : TB_IO;
    }
    tb_manifest_entry *entries;
    int count, rc = tb_manifest_parse(text, n, path, &entries, &count, err, err_len);
    free(text);
    if (rc != TB_OK) return rc;
    tb_base *tb = tb_new();
    if (!tb) { free(entries); tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
    if (flags & TB_OPEN_LAZY) {   /* the entries are kept; each file opens on its first probe */
#ifdef TB_HAVE_MMAP
        rc = tb_lazy_init(tb, dir, root, entries, count, flags, err, err_len);
#else
        rc = tb_lazy_init(tb, dir, "", entries, count, flags, err, err_len);
#endif
        if (rc != TB_OK) { tb_close(tb); return rc; }
        *out = tb;
        return TB_OK;
    }
    for (int i = 0; i < count && rc == TB_OK; i++) {
        const tb_manifest_entry *me = &entries[i];
        int g = tb_game_of(me->game);
        if (g < 0) continue;               /* a game this library does not probe */
        tb_file *f;
#ifdef TB_HAVE_MMAP
        rc = tb_map_entry(tb, dir, root, me, g, &f, err, err_len);
#else
        rc = tb_map_entry(tb, dir, "", me, g, &f, err, err_len);
#endif
        if (rc == TB_OK && (flags & TB_OPEN_UNWATCHED)) tb_unwatch(f);
        if (rc == TB_OK && (rc = tb_base_insert(tb, f, err, err_len)) != TB_OK) tb_free_file(f);
    }
    free(entries);
    if (rc == TB_OK && (flags & TB_OPEN_POPULATE)) populate(tb);
    if (rc == TB_OK && (flags & TB_OPEN_VERIFY)) rc = tb_verify(tb, err, err_len);
    if (rc == TB_OK && (flags & TB_OPEN_INDEX)) rc = tb_index(tb, err, err_len);
    if (rc != TB_OK) {
        tb_close(tb);
        return rc;
    }
    *out = tb;
    return TB_OK;
}

/* ------------------------------------------------------------------ text and dispatch */

void tb_quote(char *out, size_t len, const char *t, size_t n)
{
    /* Python's repr of a str: single quotes unless the text has one and no double quote */
    size_t shown = n > 100 ? 100 : n, o = 0;
    int dq = memchr(t, '\'', shown) && !memchr(t, '"', shown);
    char q = dq ? '"' : '\'';
    if (!len) return;
#define PUT(c) do { if (o + 1 < len) out[o++] = (c); } while (0)
    PUT(q);
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '\\' || c == (unsigned char)q) { PUT('\\'); PUT((char)c); }
        else if (c == '\n') { PUT('\\'); PUT('n'); }
        else if (c == '\t') { PUT('\\'); PUT('t'); }
        else if (c == '\r') { PUT('\\'); PUT('r'); }
        else if (c < 32 || c == 127) {
            char hex[5];
            snprintf(hex, sizeof hex, "\\x%02x", c);
            for (int k = 0; k < 4; k++) PUT(hex[k]);
        } else PUT((char)c);
    }
    PUT(q);
    out[o] = 0;
    if (n > 100) {
        char more[48];
        snprintf(more, sizeof more, "... (%zu characters)", n);
        size_t m = strlen(more);
        if (o + m < len) { memcpy(out + o, more, m + 1); }
    }
#undef PUT
}

int tb_parse(const char *game, const char *text, tb_position *pos, char *err, size_t err_len)
{
    memset(pos, 0, sizeof *pos);
    int g = game ? tb_game_of(game) : -1;
    if (g < 0) {
        tb_seterr(err, err_len, "unknown game '%s'", game ? game : "(null)");
        return TB_INVALID;
    }
    size_t n = strlen(text);
    while (n && (text[n - 1] == ' ' || (text[n - 1] >= '\t' && text[n - 1] <= '\r'))) n--;
    while (n && (*text == ' ' || (*text >= '\t' && *text <= '\r'))) { text++; n--; }
    pos->game = (tb_game)g;
    switch (g) {
    case TB_CDC: return tb_cdc_parse(text, n, pos, err, err_len);
    case TB_CHINESE_CHECKERS: return tb_cc_parse(text, n, pos, err, err_len);
    case TB_TICTACTOE: return tb_ttt_parse(text, n, pos, err, err_len);
    case TB_UTTT: return tb_uttt_parse(text, n, pos, err, err_len);
    case TB_OWARE: return tb_oware_parse(text, n, pos, err, err_len);
    case TB_SHOGI: return tb_shogi_parse(text, n, pos, err, err_len);
    case TB_CHESS: return tb_chess_parse(text, n, pos, err, err_len);
    default:
        tb_seterr(err, err_len, "tbprobe does not read %s positions yet", game);
        return TB_INVALID;
    }
}

int tb_probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    switch (pos->game) {
    case TB_OWARE: return tb_probe_oware(tb, pos->cells, plies_left < 0 ? 200 : plies_left, v);
    case TB_CDC: return tb_probe_cdc(tb, pos->cells, pos->side, v);
    case TB_CHINESE_CHECKERS:
        if (pos->m == 0) return tb_probe_star_distance(tb, pos->cells, pos->side, v);
        return tb_probe_chinese_checkers(tb, pos->m, pos->cells, pos->side, v);
    case TB_TICTACTOE: return tb_probe_tictactoe(tb, pos->cells, v);
    case TB_SHOGI: return tb_probe_shogi(tb, pos->cells, (const int8_t (*)[8])pos->hands, pos->side, v);
    case TB_UTTT: return tb_probe_uttt(tb, pos->cells, pos->side, pos->constraint, pos->scoring, v);
    case TB_CHESS: return tb_probe_chess(tb, pos->cells, pos->side, pos->ep, v);
    default:
        v->result = v->distance = v->score = 0;
        v->move = -1;
        return tb_finish(v, TB_MISSING);
    }
}

int tb_position_text(const tb_position *pos, char *buf, size_t len)
{
    tb_out o = {buf, len, 0};
    int rc;
    switch (pos->game) {
    case TB_CDC: rc = tb_cdc_text(pos, &o); break;
    case TB_CHINESE_CHECKERS: rc = tb_cc_text(pos, &o); break;
    case TB_TICTACTOE: rc = tb_ttt_text(pos, &o); break;
    case TB_UTTT: rc = tb_uttt_text(pos, &o); break;
    case TB_OWARE: rc = tb_oware_text(pos, &o); break;
    case TB_SHOGI: rc = tb_shogi_text(pos, &o); break;
    case TB_CHESS: rc = tb_chess_text(pos, &o); break;
    default: rc = TB_INVALID;
    }
    if (len) buf[rc == TB_OK && o.n < len ? o.n : 0] = 0;
    if (rc != TB_OK) return TB_INVALID;
    return o.n < len ? (int)o.n : TB_INVALID;        /* too small a buffer: nothing written */
}

int tb_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    if (!len) return TB_INVALID;
    buf[0] = 0;
    if (move < 0) return TB_INVALID;
    switch (pos->game) {
    case TB_CDC: return tb_cdc_move_text(pos, move, buf, len);
    case TB_CHINESE_CHECKERS: return tb_cc_move_text(pos, move, buf, len);
    case TB_TICTACTOE: return tb_ttt_move_text(pos, move, buf, len);
    case TB_UTTT: return tb_uttt_move_text(pos, move, buf, len);
    case TB_OWARE: return tb_oware_move_text(pos, move, buf, len);
    case TB_SHOGI: return tb_shogi_move_text(pos, move, buf, len);
    case TB_CHESS: return tb_chess_move_text(pos, move, buf, len);
    default: return TB_INVALID;
    }
}
