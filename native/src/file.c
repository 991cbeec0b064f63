/* Probe files: opening (mmap, or a plain read), the header and section table with full
 * validation (docs/probe-format.md sections 1, 4, 5), the set of tables of a tb_base, and the
 * value of a slot or key.  Stream decoding is stream.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static const char *GAME_NAMES[TB_GAMES] = {
    "cdc", "oware", "shogi", "chinese-checkers", "uttt", "tictactoe", "chess"
};

const char *tb_game_name(tb_game game)
{
    return (unsigned)game < TB_GAMES ? GAME_NAMES[game] : "?";
}

int tb_game_of(const char *name)
{
    for (int g = 0; g < TB_GAMES; g++)
        if (strcmp(name, GAME_NAMES[g]) == 0) return g;
    return -1;
}

const char *tb_outcome_name(int result)
{
    return result > 0 ? "win" : result < 0 ? "loss" : "draw";
}

void tb_seterr(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

int tb_finish(tb_value *v, int status)
{
    v->status = status;
    return status;
}

/* ------------------------------------------------------------------ the meta JSON */

const char *tb_json_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
    return p;
}

/* the end of the JSON value at p (NULL if malformed) */
const char *tb_json_skip(const char *p, const char *end, int depth)
{
    p = tb_json_ws(p, end);
    if (p >= end || depth > 32) return NULL;
    if (*p == '"') {
        for (p++; p < end; p++) {
            if (*p == '\\') p++;
            else if (*p == '"') return p + 1;
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = tb_json_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = tb_json_skip(p, end, depth + 1);          /* the key */
                if (!p) return NULL;
                p = tb_json_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            p = tb_json_skip(p, end, depth + 1);
            if (!p) return NULL;
            p = tb_json_ws(p, end);
            if (p >= end) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
           *p != '\t' && *p != '\r') p++;
    return p;
}

/* the value of member `key` of the object at p (NULL if absent or malformed) */
const char *tb_json_member(const char *p, const char *end, const char *key)
{
    size_t klen = strlen(key);
    p = tb_json_ws(p, end);
    if (p >= end || *p != '{') return NULL;
    p = tb_json_ws(p + 1, end);
    while (p < end && *p == '"') {
        const char *k = p + 1, *kend = tb_json_skip(p, end, 0);
        if (!kend) return NULL;
        p = tb_json_ws(kend, end);
        if (p >= end || *p != ':') return NULL;
        p = tb_json_ws(p + 1, end);
        if ((size_t)(kend - 1 - k) == klen && memcmp(k, key, klen) == 0) return p;
        p = tb_json_skip(p, end, 0);
        if (!p) return NULL;
        p = tb_json_ws(p, end);
        if (p < end && *p == ',') p = tb_json_ws(p + 1, end);
    }
    return NULL;
}

static int hex4(const char *p, const char *end, unsigned *u)
{
    *u = 0;
    for (int i = 0; i < 4; i++) {
        if (p + i >= end) return -1;
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ?
                     (unsigned)(c - 'a' + 10) : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (d > 15) return -1;
        *u = *u << 4 | d;
    }
    return 0;
}

/* a string member copied to out, escapes decoded (\uXXXX to UTF-8, as Python's json.dumps
 * writes a name that is not ASCII): 0 ok, -1 if absent, malformed or too long */
int tb_json_string(const char *obj, const char *end, const char *key, char *out, size_t len)
{
    const char *v = tb_json_member(obj, end, key);
    return v ? tb_json_decode(v, end, out, len) : -1;
}

/* the string at v decoded to out, as tb_json_string: 0 ok, -1 */
int tb_json_decode(const char *v, const char *end, char *out, size_t len)
{
    if (!v || v >= end || *v != '"' || !len) return -1;
    size_t i = 0;
    for (v++; v < end && *v != '"'; v++) {
        unsigned u = (unsigned char)*v;
        int raw = u != '\\';                 /* a byte as it is (UTF-8 stays UTF-8) */
        if (!raw) {
            if (++v >= end) return -1;
            switch (*v) {
            case '"': case '\\': case '/': u = (unsigned char)*v; break;
            case 'b': u = '\b'; break;
            case 'f': u = '\f'; break;
            case 'n': u = '\n'; break;
            case 'r': u = '\r'; break;
            case 't': u = '\t'; break;
            case 'u':
                if (hex4(v + 1, end, &u)) return -1;
                v += 4;
                if (u >= 0xD800 && u < 0xDC00) {                /* a surrogate pair */
                    unsigned lo;
                    if (v + 2 >= end || v[1] != '\\' || v[2] != 'u' || hex4(v + 3, end, &lo) ||
                        lo < 0xDC00 || lo >= 0xE000) return -1;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    v += 6;
                } else if (u >= 0xDC00 && u < 0xE000) return -1;
                break;
            default: return -1;
            }
        }
        char b[4];
        size_t k = 0;
        if (raw || u < 0x80) b[k++] = (char)u;
        else if (u < 0x800) { b[k++] = (char)(0xC0 | u >> 6); b[k++] = (char)(0x80 | (u & 63)); }
        else if (u < 0x10000) { b[k++] = (char)(0xE0 | u >> 12); b[k++] = (char)(0x80 | (u >> 6 & 63));
                                b[k++] = (char)(0x80 | (u & 63)); }
        else { b[k++] = (char)(0xF0 | u >> 18); b[k++] = (char)(0x80 | (u >> 12 & 63));
               b[k++] = (char)(0x80 | (u >> 6 & 63)); b[k++] = (char)(0x80 | (u & 63)); }
        if (i + k >= len) return -1;
        memcpy(out + i, b, k);
        i += k;
    }
    if (v >= end) return -1;
    out[i] = 0;
    return 0;
}

int tb_json_int(const char *obj, const char *end, const char *key, long long *out)
{
    const char *v = tb_json_member(obj, end, key);
    if (!v) return -1;
    int neg = v < end && *v == '-', digits = 0;
    long long x = 0;
    for (v += neg; v < end && *v >= '0' && *v <= '9' && digits < 18; v++, digits++)
        x = x * 10 + (*v - '0');
    if (!digits) return -1;
    *out = neg ? -x : x;
    return 0;
}

/* ------------------------------------------------------------------ the header */

static const char *const LAYOUT_TAGS[4][4] = {
    {"ORDR", "VALS", "MOVE", NULL},
    {"KEYS", "KRES", "KDIS", "KMOV"},
    {"ROFF", "RSTA", "RSCO", "RMOV"},
    {"CALP", "CELL", NULL, NULL},
};
static const char *const STORAGE_NAMES[4] = {"index", "key", "runs", "index"};

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static const tb_section *section(const tb_file *f, const char *tag)
{
    for (int i = 0; i < f->nsec; i++)
        if (memcmp(f->sec[i].tag, tag, 4) == 0) return &f->sec[i];
    return NULL;
}

/* The slot order of an index table (docs/probe-format.md, "Slot order"): the digits of the
 * game's index (radix, place in the streams), a permutation of them whose radices multiply to
 * the table's slots.  0 ok, -1 damaged. */
static int order_open(tb_file *f, const uint8_t *d, uint64_t length)
{
    if (length < 8) return -1;
    uint32_t digits = tb_ld32(d), reserved = tb_ld32(d + 4);
    if (reserved || digits < 1 || digits > TB_MAX_DIGITS || length != 8 + 16ull * digits) return -1;
    int used[TB_MAX_DIGITS] = {0};
    uint64_t expect = 1;
    f->digits = (int)digits;
    for (uint32_t i = 0; i < digits; i++) {
        f->radix[i] = tb_ld64(d + 8 + 16 * i);
        f->place[i] = tb_ld64(d + 16 + 16 * i);
    }
    /* by place: the smallest 1, each next the one before times its radix */
    for (uint32_t n = 0; n < digits; n++) {
        int found = -1;
        for (uint32_t i = 0; i < digits; i++)
            if (!used[i] && f->place[i] == expect) { found = (int)i; break; }
        if (found < 0 || f->radix[found] < 1 || f->radix[found] > f->slots) return -1;
        used[found] = 1;
        if (n + 1 < digits && expect > f->slots / f->radix[found]) return -1;
        expect *= f->radix[found];
    }
    return expect == f->slots ? 0 : -1;
}

/* where game slot `slot` lies in an index table's streams */
static inline uint64_t order_position(const tb_file *f, uint64_t slot)
{
    uint64_t pos = 0;
    for (int i = f->digits - 1; i >= 0; i--) {
        uint64_t q = slot / f->radix[i];
        pos += (slot - q * f->radix[i]) * f->place[i];
        slot = q;
    }
    return pos;
}

/* bits of a column of k symbols (0 for one, or none) */
static uint32_t symbol_bits(uint32_t k)
{
    uint32_t b = 0;
    while (k > 1 && (1ull << b) < k) b++;
    return b;
}

/* Direct cells (docs/probe-format.md, layout 3): CALP's alphabets, ascending, and widths as
 * their sizes imply; CELL as long as the slots' cells and 8 bytes (a probe loads a word at any
 * cell).  0 ok, -1 with the reason in *why. */
static int direct_open(tb_file *f, const tb_section *calp, const tb_section *cell, const char **why)
{
    const uint8_t *d = calp->data;
    if (calp->length < 16) { *why = "CALP: shorter than its counts"; return -1; }
    uint32_t kv = tb_ld32(d), km = tb_ld32(d + 4), vb = tb_ld32(d + 8), mb = tb_ld32(d + 12);
    if (kv < 1 || kv > TB_MAX_CELL_SYMBOLS || km > TB_MAX_CELL_SYMBOLS || (km > 0) != f->moves ||
        calp->length != 16 + 4ull * (kv + km) || vb != symbol_bits(kv) || mb != symbol_bits(km)) {
        *why = "CALP: alphabet sizes, widths or length do not agree";
        return -1;
    }
    for (uint32_t i = 1; i < kv + km; i++)
        if (i != kv && (int32_t)tb_ld32(d + 16 + 4 * i) <= (int32_t)tb_ld32(d + 12 + 4 * i)) {
            *why = "CALP: an alphabet out of order";
            return -1;
        }
    f->value_symbols = kv;
    f->move_symbols = km;
    f->value_bits = vb;
    f->cell_bits = vb + mb;
    f->value_alphabet = d + 16;
    f->move_alphabet = d + 16 + 4ull * kv;
    f->cells = cell->data;
    if (f->slots > (UINT64_MAX - 7) / 64 ||
        cell->length != (f->slots * f->cell_bits + 7) / 8 + 8) {
        *why = "CELL: not as long as the table's cells";
        return -1;
    }
    return 0;
}

int tb_file_open_buffer(tb_file *f, const uint8_t *d, uint64_t size, const char *what,
                        char *err, size_t err_len)
{
#define BAD(...) do { char why_[160]; snprintf(why_, sizeof why_, __VA_ARGS__); \
        tb_seterr(err, err_len, "probe file '%s' is damaged or not a probe file: %s", what, why_); \
        return TB_DAMAGED; } while (0)
    f->data = d;
    f->size = size;
    if (size < 48 || memcmp(d, "TBDBPRB1", 8) != 0) BAD("no TBDBPRB1 magic");
    f->version = (int)tb_ld32(d + 8);
    if (f->version != 3) {
        tb_seterr(err, err_len, "probe file '%s' has format version %d; this tbprobe reads "
                  "version 3 (export the tables again with this tbdb: tbdb export)", what, f->version);
        return TB_DAMAGED;
    }
    uint64_t header_bytes = tb_ld32(d + 12);
    uint32_t layout = tb_ld32(d + 16), flags = tb_ld32(d + 20);
    f->slots = tb_ld64(d + 24);
    f->rows = tb_ld64(d + 32);
    uint32_t nsec = tb_ld32(d + 40), meta = tb_ld32(d + 44);
    if (layout > 3) BAD("unknown layout %u", layout);
    if (flags & ~1u) BAD("unknown flags %u", flags);
    f->direct = layout == TB_LAYOUT_DIRECT;
    f->layout = f->direct ? TB_LAYOUT_INDEX : (int)layout;
    f->moves = flags & 1;
    int want = layout == 0 ? 2 + f->moves : layout == 1 ? 3 + f->moves : layout == 2 ? 4 : 2;
    if (nsec != (uint32_t)want) BAD("%u sections, expected %d", nsec, want);
    if (header_bytes != 48 + pad8(meta) + 56ull * nsec || header_bytes > size)
        BAD("header length %llu does not match", (unsigned long long)header_bytes);
    /* the meta JSON: game, table, storage */
    const char *js = (const char *)d + 48, *jend = js + meta;
    char game[32], storage[16];
    if (tb_json_string(js, jend, "game", game, sizeof game) ||
        tb_json_string(js, jend, "table", f->name, sizeof f->name) ||
        tb_json_string(js, jend, "storage", storage, sizeof storage))
        BAD("header JSON lacks game, table or storage");
    int g = tb_game_of(game);
    if (g < 0) BAD("unknown game '%s'", game);
    f->game = (tb_game)g;
    if (strcmp(storage, STORAGE_NAMES[layout]) != 0) BAD("storage '%s' with layout %u", storage, layout);
    const char *params = tb_json_member(js, jend, "params");
    long long horizon = 0;
    if (params && tb_json_int(params, jend, "horizon", &horizon) == 0) f->horizon = (int)horizon;
    /* the section table: each section where the previous one ended */
    uint64_t at = header_bytes;
    const uint8_t *st = d + 48 + pad8(meta);
    f->nsec = (int)nsec;
    for (uint32_t i = 0; i < nsec; i++) {
        const uint8_t *e = st + 56 * i;
        uint64_t off = tb_ld64(e + 8), len = tb_ld64(e + 16);
        memcpy(f->sec[i].tag, e, 4);
        f->sec[i].tag[4] = 0;
        if (memcmp(e, LAYOUT_TAGS[layout][i], 4) != 0) {
            char tag[40];                     /* quoted: a damaged tag may hold any byte */
            tb_quote(tag, sizeof tag, (const char *)e, 4);
            BAD("section %u is %s, not '%s'", i, tag, LAYOUT_TAGS[layout][i]);
        }
        if (off != at || len > size - off || pad8(len) > size - off)
            BAD("section %.4s at %llu, length %llu, in a file of %llu bytes", (const char *)e,
                (unsigned long long)off, (unsigned long long)len, (unsigned long long)size);
        f->sec[i].data = d + off;
        f->sec[i].length = len;
        at = off + pad8(len);
    }
    if (at != size) BAD("file of %llu bytes, sections end at %llu", (unsigned long long)size,
                        (unsigned long long)at);
    const char *why = NULL;
    if (f->direct) {
        if (direct_open(f, section(f, "CALP"), section(f, "CELL"), &why)) BAD("%s", why);
    } else if (layout == TB_LAYOUT_INDEX) {
        const tb_section *s = section(f, "ORDR");
        if (order_open(f, s->data, s->length)) BAD("ORDR: slot order does not match the table");
        s = section(f, "VALS");
        if (tb_stream_open(&f->vals, s->data, s->length, &why)) BAD("VALS: %s", why);
        if (f->vals.n != f->slots) BAD("VALS holds %llu slots of %llu", (unsigned long long)f->vals.n,
                                       (unsigned long long)f->slots);
        if (f->moves) {
            s = section(f, "MOVE");
            if (tb_stream_open(&f->mov, s->data, s->length, &why)) BAD("MOVE: %s", why);
            if (f->mov.n != f->slots) BAD("MOVE holds %llu slots", (unsigned long long)f->mov.n);
        }
    } else if (layout == TB_LAYOUT_KEYS) {
        uint64_t n = f->rows;
        if (section(f, "KEYS")->length != 24 * n || section(f, "KRES")->length != n ||
            section(f, "KDIS")->length != 2 * n || (f->moves && section(f, "KMOV")->length != 4 * n))
            BAD("key sections of different lengths");
        f->keys = section(f, "KEYS")->data;
        f->kres = section(f, "KRES")->data;
        f->kdis = section(f, "KDIS")->data;
        f->kmov = f->moves ? section(f, "KMOV")->data : NULL;
    } else {
        uint64_t n = f->rows;
        if (f->slots > size / 8 || section(f, "ROFF")->length != 8 * (f->slots + 1) ||
            section(f, "RSTA")->length != 2 * n || section(f, "RSCO")->length != n ||
            section(f, "RMOV")->length != n)
            BAD("run sections of different lengths");
        f->roff = section(f, "ROFF")->data;
        f->rsta = section(f, "RSTA")->data;
        f->rsco = section(f, "RSCO")->data;
        f->rmov = section(f, "RMOV")->data;
        /* offsets non-decreasing from 0 to rows: a probe then reads only runs that exist */
        uint64_t prev = 0;
        for (uint64_t i = 0; i <= f->slots; i++) {
            uint64_t o = tb_ld64(f->roff + 8 * i);
            if (o < prev || o > n || (i == 0 && o != 0)) BAD("run offsets out of order");
            prev = o;
        }
        if (prev != n) BAD("run offsets do not end at the runs");
    }
    int rc = 0;
    err_len = err_len ? err_len : 0;
    switch (f->game) {
    case TB_CDC: rc = tb_cdc_prepare(f, err, err_len); break;
    case TB_CHINESE_CHECKERS: rc = tb_cc_prepare(f, err, err_len); break;
    case TB_TICTACTOE: rc = tb_ttt_prepare(f, err, err_len); break;
    case TB_SHOGI: rc = tb_shogi_prepare(f, err, err_len); break;
    case TB_CHESS: rc = tb_chess_prepare(f, err, err_len); break;
    default: break;
    }
    return rc;
#undef BAD
}

void tb_file_release(tb_file *f)
{
    tb_stream_close(&f->vals);
    tb_stream_close(&f->mov);
    if (f->game == TB_CHINESE_CHECKERS) tb_cc_release(f);
}

/* ------------------------------------------------------------------ the tables of a base */

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

/* ------------------------------------------------------------------ values */

/* the value of a slot from its cell: one load, then the alphabets (asked for beside it) */
static int direct_value(const tb_file *f, uint64_t slot, int32_t *x, int32_t *m)
{
    uint64_t p = slot * f->cell_bits;
    const uint8_t *at = f->cells + (p >> 3);
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(f->value_alphabet);
    __builtin_prefetch(f->move_alphabet);
#endif
    uint64_t cell = tb_ld64(at) >> (p & 7);
    uint32_t vs = (uint32_t)cell & ((1u << f->value_bits) - 1);
    if (vs >= f->value_symbols) return -1;
    *x = (int32_t)tb_ld32(f->value_alphabet + 4 * vs);
    if (f->moves) {
        uint32_t ms = (uint32_t)(cell >> f->value_bits) &
                      (uint32_t)((1ull << (f->cell_bits - f->value_bits)) - 1);
        if (ms >= f->move_symbols) return -1;
        *m = (int32_t)tb_ld32(f->move_alphabet + 4 * ms);
    }
    return 0;
}

static inline int index_value(const tb_file *f, uint64_t slot, tb_value *v)
{
    int32_t x, m = -1;
    tb_cursor cv, cm;
    if (slot >= f->slots) return tb_finish(v, TB_DAMAGED);
    if (f->direct) {
        if (direct_value(f, slot, &x, &m)) return tb_finish(v, TB_DAMAGED);
        goto found;
    }
    slot = order_position(f, slot);
    /* both streams ask for their memory before either decodes: their misses overlap */
    tb_stream_prefetch(&f->vals, slot);
    if (f->moves) tb_stream_prefetch(&f->mov, slot);
    if (tb_stream_seek(&f->vals, slot, &cv)) return tb_finish(v, TB_DAMAGED);
    if (f->moves && tb_stream_seek(&f->mov, slot, &cm)) return tb_finish(v, TB_DAMAGED);
    tb_stream_prefetch_tables(&f->vals);
    if (f->moves) tb_stream_prefetch_tables(&f->mov);
    if (f->moves ? tb_stream_decode2(&f->vals, &cv, &f->mov, &cm, &x, &m)
                 : tb_stream_decode(&f->vals, &cv, &x)) return tb_finish(v, TB_DAMAGED);
found:;
    int r = x >> 16;
    v->result = r;
    v->distance = (int16_t)(x & 0xFFFF);
    v->score = 0;
    v->move = m;
    if (r == -2) { v->move = -1; return tb_finish(v, TB_ILLEGAL); }
    if (r < -1 || r > 1) return tb_finish(v, TB_DAMAGED);   /* NONE: a lookup never asks for it */
    return tb_finish(v, TB_OK);
}

/* the value read, then the file's identity (tb_settle): a value read from bytes that changed
 * since the file was opened is never returned */
int tb_index_value(const tb_file *f, uint64_t slot, tb_value *v)
{
    return tb_settle(f, v, index_value(f, slot, v));
}

static inline int key_value(const tb_file *f, int64_t k0, int64_t k1, int64_t k2, tb_value *v)
{
    uint64_t lo = 0, hi = f->rows;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const uint8_t *row = f->keys + 24 * mid;
        int64_t a = (int64_t)tb_ld64(row), b = (int64_t)tb_ld64(row + 8), c = (int64_t)tb_ld64(row + 16);
        int cmp = a != k0 ? (a < k0 ? -1 : 1) : b != k1 ? (b < k1 ? -1 : 1) : c != k2 ? (c < k2 ? -1 : 1) : 0;
        if (cmp == 0) {
            int r = (int8_t)f->kres[mid];
            v->result = r;
            v->distance = (int16_t)tb_ld16(f->kdis + 2 * mid);
            v->score = 0;
            v->move = f->kmov ? (int32_t)tb_ld32(f->kmov + 4 * mid) : -1;
            if (r == -2) { v->move = -1; return tb_finish(v, TB_ILLEGAL); }
            if (r < -1 || r > 1) return tb_finish(v, TB_DAMAGED);
            return tb_finish(v, TB_OK);
        }
        if (cmp < 0) lo = mid + 1; else hi = mid;
    }
    return tb_finish(v, TB_MISSING);
}

int tb_key_value(const tb_file *f, int64_t k0, int64_t k1, int64_t k2, tb_value *v)
{
    return tb_settle(f, v, key_value(f, k0, k1, k2, v));
}
