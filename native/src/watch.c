/* Files that change under an open base (issue 61).  A base maps its files: a file rewritten in
 * place shows its new bytes through the mapping, and one truncated raises SIGBUS on a read past
 * its new end.  So each file keeps its identity from when it was opened (device, inode, size,
 * modification and change times), and every value a probe reads is followed by one fstat of
 * the file (tb_settle): if the identity moved, the value is dropped and the probe answers
 * TB_CHANGED, now and for every later probe of the file.  One fstat after the read is enough:
 * a change before or during the read sets the change time, which the kernel alone writes.
 * (Timestamps coarser than a change's spacing can hide a rewrite of the same size within one
 * tick of the opening; the manifest's SHA-256, checked as a lazy base opens a file, then
 * catches what was written before it.)  The descriptor is the mapped inode's, kept open; when
 * descriptors run short (a directory of more files than half the process's limit) a file is
 * watched by its real path instead, whose inode is compared first: a file replaced by rename
 * is a new inode at that path, and the old one, still mapped, is not a change (by descriptor:
 * the old inode has no link left, its change time moved with that alone).  Any other change of
 * its change time (chmod, a rename of the file itself, times set back after a write) counts
 * as a change: the base is to be opened again.
 *
 * SIGBUS: a handler, installed with the first guarded range, maps a page of zeros over the
 * faulting page of a registered range and returns, so the read sees zeros and the probe's
 * fstat then answers TB_CHANGED; a SIGBUS anywhere else goes to the handler before it (or
 * kills the process as it would have).  The ranges live in chunks that are never freed, so the
 * handler reads them without a lock while threads register and release others. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#if !defined(__wasi__) && !defined(_WIN32)
#define TB_HAVE_WATCH 1
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#else
#define LOAD(p) (*(p))
#define STORE(p, v) (*(p) = (v))
#define ADD(p, v) (*(p) += (v))
#endif

#ifdef TB_HAVE_WATCH
static void ident_of(const struct stat *st, tb_ident *id)
{
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_s = (int64_t)st->st_mtim.tv_sec;
    id->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
    id->ctime_s = (int64_t)st->st_ctim.tv_sec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
}

void tb_watch_ident(const void *st, tb_ident *id) { ident_of(st, id); }
#endif

int tb_watch_changed(const tb_file *f)
{
    if (LOAD(&f->changed)) return 1;
#ifdef TB_HAVE_WATCH
    struct stat st;
    tb_ident now;
    if (f->watch == TB_WATCH_FD) {
        if (fstat(f->fd, &st) != 0) return 0;   /* (EBADF only: the caller closed it) */
    } else if (f->watch == TB_WATCH_PATH) {
        /* gone, or another inode there (replaced by rename): the mapped one is as it was */
        if (stat(f->real_path, &st) != 0 || (uint64_t)st.st_dev != f->ident.dev ||
            (uint64_t)st.st_ino != f->ident.ino) return 0;
    } else {
        return 0;
    }
    ident_of(&st, &now);
    if (memcmp(&now, &f->ident, sizeof now) == 0) return 0;
    /* unlinked (replaced by rename, or removed), with its size and modification time: its
     * change time moved with its link count, and no name is left to open it by and write */
    if (st.st_nlink == 0 && now.size == f->ident.size && now.mtime_s == f->ident.mtime_s &&
        now.mtime_ns == f->ident.mtime_ns) return 0;
    STORE(&((tb_file *)f)->changed, 1);   /* (the one field a probe writes: once, the same 1) */
    return 1;
#else
    return 0;
#endif
}

const char *tb_changed(const tb_base *tb)
{
    if (!tb) return NULL;
    for (int i = 0; i < tb->count; i++)   /* (a probe marks the file; the base learns here) */
        if (LOAD(&tb->files[i]->changed)) return tb->files[i]->what;
    return NULL;
}

/* ------------------------------------------------------------------ SIGBUS */

#ifdef TB_HAVE_WATCH
#define CHUNK 1024

struct range { uintptr_t start, end; };
struct chunk { struct range r[CHUNK]; struct chunk *next; };

static struct chunk first;
static uint64_t faults;
static int lock_word, installed;
static long page_size;
static struct sigaction previous;

static void lock(void)
{
#if defined(__GNUC__) || defined(__clang__)
    while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lock_word, __ATOMIC_RELAXED)) {}
#endif
}

static void unlock(void)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
#endif
}

static void on_sigbus(int sig, siginfo_t *info, void *ctx)
{
    uintptr_t at = (uintptr_t)info->si_addr;
    if (info->si_code > 0)   /* a fault (not a kill): in a guarded range? */
        for (struct chunk *c = &first; c; c = LOAD(&c->next))
            for (int i = 0; i < CHUNK; i++) {
                uintptr_t start = LOAD(&c->r[i].start), end = LOAD(&c->r[i].end);
                if (!start || at < start || at >= end) continue;
                void *page = (void *)(at & ~(uintptr_t)(page_size - 1));
                if (mmap(page, (size_t)page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                         -1, 0) == MAP_FAILED) break;
                ADD(&faults, 1);
                return;   /* the read runs again, on zeros */
            }
    /* not ours: the handler before, or what SIGBUS does without one */
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(sig, info, ctx);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    signal(SIGBUS, SIG_DFL);
    if (info->si_code <= 0) raise(SIGBUS);   /* a fault repeats on return, a kill does not */
}

static int install(void)
{
    if (installed) return 0;
    page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) page_size = 4096;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &previous) != 0) return -1;
    installed = 1;
    return 0;
}
#endif

int tb_guard_mapping(const void *addr, size_t length)
{
#ifdef TB_HAVE_WATCH
    if (!addr || !length) return -1;
    lock();
    int rc = install();
    struct chunk *c = &first, *last = &first;
    struct range *free_slot = NULL;
    for (; c && !free_slot && !rc; last = c, c = c->next)
        for (int i = 0; i < CHUNK; i++)
            if (!c->r[i].start) { free_slot = &c->r[i]; break; }
    if (!free_slot && !rc) {
        struct chunk *more = calloc(1, sizeof *more);
        if (more) {
            free_slot = &more->r[0];
            STORE(&last->next, more);
        }
    }
    if (free_slot) {
        STORE(&free_slot->end, (uintptr_t)addr + length);   /* the end first: see on_sigbus */
        STORE(&free_slot->start, (uintptr_t)addr);
    }
    unlock();
    return free_slot ? 0 : -1;
#else
    (void)addr;
    (void)length;
    return -1;
#endif
}

void tb_unguard_mapping(const void *addr)
{
#ifdef TB_HAVE_WATCH
    if (!addr) return;
    lock();
    for (struct chunk *c = &first; c; c = c->next)
        for (int i = 0; i < CHUNK; i++)
            if (c->r[i].start == (uintptr_t)addr) {
                STORE(&c->r[i].start, (uintptr_t)0);
                unlock();
                return;
            }
    unlock();
#else
    (void)addr;
#endif
}

uint64_t tb_guard_faults(void)
{
#ifdef TB_HAVE_WATCH
    return LOAD(&faults);
#else
    return 0;
#endif
}
