/* A tb_base's files: a new base and closing one; adding a file (mapped where the platform has
 * mmap, else read) or a caller's buffer, each checked (its header, its game, its manifest
 * entry) and watched for changes (watch.c) before it joins the base's tables (tables.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#include <sys/stat.h>
#ifdef TB_HAVE_MMAP
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

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
    const tb_game_ops *game = rc == TB_OK ? tb_game_ops_of(f->game) : NULL;
    if (game && game->base_tables && game->base_tables(tb) != TB_OK) {
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
const char *tb_file_kind(unsigned mode)
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
                       tb_file_kind(st.st_mode));
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
