/* Opening a directory of probe files (tb_open_flags): its manifest read and checked, then each
 * file it lists mapped, checked and added, or kept for its first probe (TB_OPEN_LAZY); the
 * flags' passes over the files after (populate, verify, index). */
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
#include <unistd.h>
#endif

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

/* DIR's manifest read and parsed: TB_OK and its entries (malloc'ed, *count of them), else
 * tb_open's error.  Where files are mapped, root receives DIR's real path (PATH_MAX bytes) */
static int read_manifest(const char *dir, char *root, tb_manifest_entry **entries, int *count,
                         char *err, size_t err_len)
{
    char path[4096];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        tb_seterr(err, err_len, "'%s' is not a directory of probe files", dir);
        return TB_IO;
    }
    snprintf(path, sizeof path, "%s/" TB_MANIFEST, dir);
#ifdef TB_HAVE_MMAP
    if (lstat(path, &st) != 0) {   /* (a link is checked below: where it leads) */
#else
    if (stat(path, &st) != 0) {
#endif
        tb_seterr(err, err_len, "'%s' is not a directory of probe files: no " TB_MANIFEST " "
                  "(write one with: tbdb export --out %s)", dir, dir);
        return TB_IO;
    }
#ifdef TB_HAVE_MMAP
    char real[PATH_MAX];
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
                       tb_file_kind(st.st_mode));
        return TB_IO;
    }
    FILE *mf = fdopen(mfd, "rb");
    if (!mf) close(mfd);
#else
    (void)root;
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
    int rc = tb_manifest_parse(text, n, path, entries, count, err, err_len);
    free(text);
    return rc;
}

int tb_open_flags(const char *dir, unsigned flags, tb_base **out, char *err, size_t err_len)
{
#ifdef TB_HAVE_MMAP
    char root[PATH_MAX];
#else
    char root[1];
#endif
    *out = NULL;
    root[0] = 0;
    tb_manifest_entry *entries;
    int count, rc = read_manifest(dir, root, &entries, &count, err, err_len);
    if (rc != TB_OK) return rc;
    tb_base *tb = tb_new();
    if (!tb) { free(entries); tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
    if (flags & TB_OPEN_LAZY) {   /* the entries are kept; each file opens on its first probe */
        rc = tb_lazy_init(tb, dir, root, entries, count, flags, err, err_len);
        if (rc != TB_OK) { tb_close(tb); return rc; }
        *out = tb;
        return TB_OK;
    }
    for (int i = 0; i < count && rc == TB_OK; i++) {
        const tb_manifest_entry *me = &entries[i];
        int g = tb_game_of(me->game);
        if (g < 0) continue;               /* a game this library does not probe */
        tb_file *f;
        rc = tb_map_entry(tb, dir, root, me, g, &f, err, err_len);
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
