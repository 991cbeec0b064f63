/* Internals shared by the library's modules (not installed). */
#ifndef TB_INTERNAL_H
#define TB_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "tbprobe.h"
#include "stream.h"
#include "format.h"

/* files are memory-mapped, and watched by descriptor or path, where the platform has mmap;
 * elsewhere (WASI) read into memory */
#if !defined(__wasi__) && !defined(_WIN32)
#define TB_HAVE_MMAP 1
#endif

/* little-endian loads from any address (the compiler makes each one load on x86/wasm) */
static inline uint16_t tb_ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t tb_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t tb_ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

#define TB_MAX_SECTIONS 8
#define TB_MAX_CELL_SYMBOLS 65536   /* of each column of direct cells: a cell is <= 32 bits */
#define TB_MAX_DIGITS 8      /* digits of an index table's slot order */
#define TB_NAME_MAX 64

/* loads and stores that order memory between threads (a lazy base's hash index, its entries'
 * states): GCC and clang builtins; elsewhere plain accesses (single-threaded use) */
#if defined(__GNUC__) || defined(__clang__)
#define TB_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TB_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
#define TB_LOAD_ACQUIRE(p) (*(p))
#define TB_STORE_RELEASE(p, v) (*(p) = (v))
#endif

typedef struct tb_section {
    char tag[5];
    const uint8_t *data;
    uint64_t length;
} tb_section;

/* what a game keeps per table, computed once when the file is opened */
typedef struct tb_cdc_table {
    int64_t desc[24];
    int64_t size;
} tb_cdc_table;

typedef struct tb_cc_table {
    int m, n, pieces;
    int64_t block;           /* C(N - P, P) */
    int8_t mirror[81];       /* the left-right mirror, or the identity where the mirror is no
                                symmetry of the game (2 pieces: the start area is not mirror
                                symmetric) */
    int64_t subsets;         /* C(N, P) */
    int32_t *class_of;       /* C(N, P) entries: class of each A that is no larger than its mirror */
} tb_cc_table;

typedef struct tb_star_table {   /* a small star's coalition table (cc_star.c) */
    int holes, k, players, marbles;
    int64_t vectors;         /* compositions of every player's marbles over its regions */
    int64_t *offsets;        /* vectors + 1: the placements before each vector (star_index) */
    /* the regions (0 the hexagon, then the points someone uses), made once when opened */
    int regions, size[7], nplayers[7];
    int8_t cell_region[73];  /* -1: a point no one rests on */
    int8_t player_regions[6][3], slot_of[7][6];   /* a player's place in a region, or -1 */
    int8_t cells[7][37];     /* each region's cells, ascending */
} tb_star_table;

typedef struct tb_shogi_table {
    int k, groups;
    int type[6];                              /* per piece, groups in name order */
    int gtype[6], gcount[6], gfirst[6];
    int64_t gstride[6], prod;
} tb_shogi_table;

/* a file's identity when it was opened (watch.c): a probe compares it with the file's now */
typedef struct tb_ident {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} tb_ident;

typedef struct tb_file {
    tb_game game;
    char name[TB_NAME_MAX];
    char what[512];          /* the path it was opened from, or the buffer's name */
    char sha256[65];         /* the manifest's (tb_open), "" for a buffer: tb_verify's */
    int layout;
    int moves;               /* flag bit 0 */
    int version;
    uint64_t slots, rows;
    const uint8_t *data;
    uint64_t size;
    void *owned;             /* read into memory: free it */
    int mapped;              /* mmap'ed: munmap data */
    int in_arena;            /* moved into tb_index's arena: not freed on its own */
    int nsec;
    tb_section sec[TB_MAX_SECTIONS];
    /* layout 0 */
    tb_stream vals, mov;
    int digits;              /* the slot order (ORDR): per digit of the game's index, most */
    uint64_t radix[TB_MAX_DIGITS], place[TB_MAX_DIGITS];   /* significant first */
    /* layout 3, direct cells (layout stays TB_LAYOUT_INDEX: the games locate slots alike) */
    int direct;
    uint32_t value_symbols, move_symbols, value_bits, cell_bits;
    const uint8_t *cells, *value_alphabet, *move_alphabet;   /* CELL; i32[] of CALP */
    /* layout 1 */
    const uint8_t *keys, *kres, *kdis, *kmov;
    /* layout 2 */
    const uint8_t *roff, *rsta, *rsco, *rmov;
    int horizon;
    union { tb_cdc_table cdc; tb_cc_table cc; tb_star_table star; tb_shogi_table shogi; } g;
    /* watch.c: how a probe checks that the file did not change since it was opened */
    int watch;               /* TB_WATCH_NONE (a buffer), _FD (fstat of fd) or _PATH (stat) */
    int fd;                  /* TB_WATCH_FD: kept open, the mapped inode's */
    char *real_path;         /* TB_WATCH_PATH: its real path (malloc'ed) */
    int changed;             /* found changed once: refused for good (atomic) */
    int guarded;             /* data registered with tb_guard_mapping */
    tb_ident ident;
} tb_file;

enum { TB_WATCH_NONE = 0, TB_WATCH_FD = 1, TB_WATCH_PATH = 2 };
/* watch.c: a struct stat's identity (st: a struct stat *); 1 if file f changed since it was opened (then marked so), else 0 */
void tb_watch_ident(const void *st, tb_ident *id);
int tb_watch_changed(const tb_file *f);
/* base.c: the file last added as a buffer at data (a caller's mapping of the file at path)
 * watched as the base's own files are, and its range guarded (tbdb's Python extension) */
void tb_watch_buffer(tb_base *tb, const void *data, size_t size, const char *path);
/* base.c: f no longer watched (TB_OPEN_UNWATCHED) */
void tb_unwatch(tb_file *f);
/* a probe's status once its value is read: TB_CHANGED (the value dropped) if the file changed */
static inline int tb_settle(const tb_file *f, tb_value *v, int status)
{
    if (f->watch && tb_watch_changed(f)) {
        v->result = v->distance = v->score = 0;
        v->move = -1;
        v->status = TB_CHANGED;
        return TB_CHANGED;
    }
    return status;
}

typedef struct tb_uttt_tables tb_uttt_tables;

typedef struct tb_slot {
    uint64_t hash;            /* of (game, name); 0: empty */
    tb_file *file;
} tb_slot;

struct tb_base {
    int count, cap;
    tb_slot *index;           /* open addressing on (game, name): a probe finds its table with
                                 one or two cache misses, not a binary search's dozen */
    uint32_t index_mask;
    int arenas;
    uint64_t index_bytes;     /* the arenas' bytes */
    struct tb_arena { void *p; size_t bytes; int mapped; } *arena;   /* tb_index's checkpoints */
    tb_uttt_tables *uttt;     /* board-code tables, once a uttt file is added */
    tb_file **files;          /* sorted by (game, name) after each add */
    struct tb_lazy *lazy;     /* TB_OPEN_LAZY: the manifest's files not opened yet (lazy.c) */
    uint8_t *pool;            /* a lazy base's arena chunk being carved (arena.c: new_arena) */
    uint64_t pool_left;
    /* called by a probe whose table the base does not have (nor open lazily), with the name it
     * looked for: the Python binding's, which opens such a file its own way; NULL: none */
    void (*on_missing)(void *ctx, const char *name);
    void *missing_ctx;
    /* called (with missing_ctx) after a lazy base opened a file itself: the Python binding
     * maps a large file's pages ahead in the background; NULL: none */
    void (*on_opened)(void *ctx, const tb_file *f);
};

/* text.c: the little JSON the headers and the manifest need (NULL / -1: absent or malformed) */
const char *tb_json_ws(const char *p, const char *end);
const char *tb_json_skip(const char *p, const char *end, int depth);   /* the end of a value */
const char *tb_json_member(const char *obj, const char *end, const char *key);
int tb_json_string(const char *obj, const char *end, const char *key, char *out, size_t len);
int tb_json_int(const char *obj, const char *end, const char *key, long long *out);
int tb_json_decode(const char *v, const char *end, char *out, size_t len);   /* a string at v */
void tb_seterr(char *err, size_t len, const char *fmt, ...);
/* quote text into err as Python's repr would (first 100 characters of a long one) */
void tb_quote(char *out, size_t len, const char *t, size_t n);

/* manifest.c: DIR/manifest.json's entries, and SHA-256 */
/* `fields_at`: where, counted from the entry, its members that the file's header holds too
 * lie (a JSON object of their values' text as the manifest writes them, NUL-ended, after the
 * entries in their one block: one free releases both); tb_manifest_mismatch compares them with
 * the header's (tbdb's Python: directory.header_mismatch) */
typedef struct tb_manifest_entry {
    char path[256], game[32], table[TB_NAME_MAX], sha256[65];
    uint64_t size, fields_at;
} tb_manifest_entry;
/* the entries of a manifest's text: TB_OK and *out (malloc'ed, *count of them), else
 * TB_DAMAGED with a message quoting `what` */
int tb_manifest_parse(const char *text, size_t n, const char *what, tb_manifest_entry **out,
                      int *count, char *err, size_t err_len);
/* which field manifest entry `me` and file f's header disagree on, with both values, written
 * to why (1), or 0: the meta JSON's game, table, storage, params, layout, slots, positions
 * (compared as JSON values: 1, 1.0 and true are not one count) and the binary header's slots
 * and moves flag */
int tb_manifest_mismatch(const tb_manifest_entry *me, const tb_file *f, char *why, size_t len);
void tb_sha256_hex(const uint8_t *data, uint64_t n, char out[65]);
void tb_sha256_plain(const uint8_t *data, uint64_t n, char out[65]);   /* without SHA-NI */

/* base.c: a manifest entry's file (DIR/path: present, inside the directory whose real path is
 * root, mapped or read, checked), not yet in the base, with tb_open's words for what is wrong;
 * freeing one; what a file that is not a regular one is (st_mode), as tbdb's Python words it */
int tb_map_entry(tb_base *tb, const char *dir, const char *root, const tb_manifest_entry *me,
                 int game, tb_file **out, char *err, size_t err_len);
void tb_free_file(tb_file *f);
const char *tb_file_kind(unsigned mode);
/* arena.c: indexing one file into an arena of its own before it is inserted (*f moves there) */
int tb_index_file(tb_base *tb, tb_file **f, char *err, size_t err_len);
/* manifest.c: one file's SHA-256 against its manifest's (TB_OK, or TB_DAMAGED naming it) */
int tb_verify_file(const tb_file *f, char *err, size_t err_len);

/* lazy.c: TB_OPEN_LAZY.  tb_lazy_init keeps the manifest's entries (taking `entries`); a probe
 * that misses a table calls tb_lazy_open, which opens, checks and inserts its file once
 * (serialised by a lock; the hash index was sized for every entry, so probes in other threads
 * never see it rebuilt) and returns it, or NULL (not listed, refused, over the size limit) */
int tb_lazy_init(tb_base *tb, const char *dir, const char *root, tb_manifest_entry *entries,
                 int count, unsigned flags, char *err, size_t err_len);
const tb_file *tb_lazy_open(tb_base *tb, tb_game game, const char *name);
void tb_lazy_free(tb_base *tb);
/* tables.c: the base's tables.  tb_find_held: among those the base holds (no lazy opening, no
 * hook); tb_find: opened lazily, else the hook told; adding one (TB_INVALID if the base holds
 * its table already) */
const tb_file *tb_find_held(const tb_base *tb, tb_game game, const char *name);
const tb_file *tb_find(const tb_base *tb, tb_game game, const char *name);
int tb_base_insert(tb_base *tb, tb_file *f, char *err, size_t err_len);
uint64_t tb_name_hash(tb_game game, const char *name);

/* file.c: a probe file's header and sections checked and read into f (TB_OK, else TB_DAMAGED
 * with the reason); what opening it allocated, freed */
int tb_file_open_buffer(tb_file *f, const uint8_t *data, uint64_t size, const char *what,
                        char *err, size_t err_len);
void tb_file_release(tb_file *f);

/* value.c: (result, distance, move) at slot of an index table; TB_OK or TB_DAMAGED /
 * TB_MISSING (NONE) */
int tb_index_value(const tb_file *f, uint64_t slot, tb_value *v);
/* the row of a key table holding (k0, k1, k2); TB_OK or TB_MISSING */
int tb_key_value(const tb_file *f, int64_t k0, int64_t k1, int64_t k2, tb_value *v);
/* the value's status from a stored result (-2 illegal) */
int tb_finish(tb_value *v, int status);

/* uttt.c: the board-code tables a base shares among its UTTT tables */
tb_uttt_tables *tb_uttt_tables_new(void);
size_t tb_uttt_tables_size(void);

/* where a game writes a position's text (tb_game_ops.text, for tb_position_text): as
 * snprintf, counting what does not fit */
typedef struct tb_out { char *buf; size_t len, n; } tb_out;
static inline void tb_put(tb_out *o, char c)
{
    if (o->n + 1 < o->len) o->buf[o->n] = c;
    o->n++;
}
static inline void tb_puts(tb_out *o, const char *s) { while (*s) tb_put(o, *s++); }
static inline void tb_putn(tb_out *o, int x)
{
    char d[12];
    int k = 0;
    if (x < 0) { tb_put(o, '-'); x = -x; }
    do { d[k++] = (char)('0' + x % 10); x /= 10; } while (x && k < 11);
    while (k) tb_put(o, d[--k]);
}

/* A game as the library's generic code sees it: each game's file defines one, games.c's
 * registry lists them by tb_game.  The first five are required; the others may be NULL. */
typedef struct tb_game_ops {
    const char *name;    /* as tbdb names it: tb_parse's, the manifest's and the headers' game */
    /* the position in text t (n bytes, trimmed): TB_OK, else TB_INVALID with the message */
    int (*parse)(const char *t, size_t n, tb_position *pos, char *err, size_t err_len);
    int (*text)(const tb_position *pos, tb_out *o);   /* its text: TB_OK or TB_INVALID */
    /* a stored move as text: its length, or TB_INVALID */
    int (*move_text)(const tb_position *pos, int32_t move, char *buf, size_t len);
    /* tb_probe_position for a position of the game */
    int (*probe)(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v);
    /* what a table needs once its file is opened (TB_OK, else an error message written) */
    int (*prepare)(tb_file *f, char *err, size_t err_len);
    void (*release)(tb_file *f);                    /* what prepare allocated, freed */
    uint64_t (*heap_bytes)(const tb_file *f);       /* bytes prepare allocated (tb_memory) */
    /* what the base needs before any probe of the game (TB_OK or TB_NOMEM): made with its
     * first file or lazy entry of the game */
    int (*base_tables)(tb_base *tb);
} tb_game_ops;
extern const tb_game_ops tb_cdc_game, tb_oware_game, tb_shogi_game, tb_cc_game, tb_uttt_game,
    tb_ttt_game, tb_chess_game;
const tb_game_ops *tb_game_ops_of(tb_game game);   /* games.c; NULL: not a game */

#endif
