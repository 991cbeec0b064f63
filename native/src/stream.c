/* Version 2 streams (docs/probe-format.md, section 3): a probe decodes the codes of its block
 * (canonical Huffman, most significant bit first) until the symbol that covers its slot, then
 * descends that symbol's pairs to the terminal of the slot.  Codes up to TB_FAST_BITS long are
 * decoded with one table look-up that also gives the symbol's size.  An indexed stream
 * (tb_stream_index) starts from the checkpoint before the slot instead of the block's start. */
#include <stdlib.h>
#include <string.h>
#include "stream.h"

static inline uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static inline uint64_t ld64_be(const uint8_t *p)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(ld64(p));
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
#endif
}

/* the look-up table on the next `bits` bits: symbol << 16 | size << 5 (0: in size[]) | code
 * length (0: a longer code) */
static void fill_fast(const tb_stream *s, uint32_t *fast, uint32_t bits)
{
    for (uint32_t l = 1; l <= bits && l <= s->maxlen; l++)
        for (uint32_t j = 0; j < s->code[l].count; j++) {
            uint32_t t = s->order[s->code[l].first_index + j];
            uint64_t lo = (s->code[l].first_code + j) << (bits - l);
            uint32_t z = s->size[t] < 2048 ? s->size[t] : 0;
            for (uint64_t f = 0; f < ((uint64_t)1 << (bits - l)); f++)
                fast[lo + f] = (uint32_t)t << 16 | z << 5 | l;
        }
}

int tb_stream_open(tb_stream *s, const uint8_t *sec, uint64_t length, const char **why)
{
    memset(s, 0, sizeof *s);
    if (length < 32) { *why = "stream header truncated"; return -1; }
    s->k = ld32(sec);
    s->symbols = ld32(sec + 4);
    s->block_slots = ld32(sec + 8);
    s->maxlen = ld32(sec + 12);
    s->n = ld64(sec + 16);
    s->blocks = ld64(sec + 24);
    uint32_t k = s->k, K = s->symbols, bs = s->block_slots;
    if (k < 1 || k > K || K > 65536 || s->maxlen < 1 || s->maxlen > 32 || bs < 1 || (bs & (bs - 1))) {
        *why = "stream header out of range"; return -1;
    }
    while ((1u << s->shift) < bs) s->shift++;
    if (s->blocks != (s->n >> s->shift) + ((s->n & (bs - 1)) != 0)) {
        *why = "stream block count does not match its slots"; return -1;
    }
    uint64_t at = 32;
    s->alphabet = sec + at;
    at += pad8(4ull * k);
    s->pairs = sec + at;
    at += pad8(4ull * (K - k));
    const uint8_t *lengths = sec + at;
    at += pad8(K);
    if (s->blocks > length / 4 || at + pad8(4 * (s->blocks + 1)) + 8 > length) {
        *why = "stream truncated"; return -1;
    }
    s->starts = sec + at;
    at += pad8(4 * (s->blocks + 1));
    s->bits = sec + at;
    uint64_t bit_bytes = length - at;
    s->bit_end = 8 * (bit_bytes - 8);
    /* block starts ascend from 0 and leave 8 bytes to load at the last */
    uint64_t prev = 0;
    for (uint64_t b = 0; b <= s->blocks; b++) {
        uint64_t st = ld32(s->starts + 4 * b);
        if ((b == 0 && st != 0) || st < prev) { *why = "stream block starts out of order"; return -1; }
        prev = st;
    }
    if (prev + 8 > bit_bytes) { *why = "stream block starts beyond its bits"; return -1; }
    uint32_t *size = s->size_memory = malloc(sizeof *s->size * K);
    s->order = s->order_memory = malloc(sizeof *s->order * K);
    s->fast = s->fast_memory = calloc((size_t)1 << TB_FAST_BITS, sizeof *s->fast);
    s->size = size;
    if (!s->size || !s->order || !s->fast) { *why = "out of memory"; return -1; }
    /* the grammar: a pair names earlier symbols and stands for at most a block */
    for (uint32_t t = 0; t < k; t++) size[t] = 1;
    for (uint32_t t = k; t < K; t++) {
        uint32_t l = ld16(s->pairs + 4ull * (t - k)), r = ld16(s->pairs + 4ull * (t - k) + 2);
        if (l >= t || r >= t) { *why = "a pair names a later symbol"; return -1; }
        uint64_t z = (uint64_t)s->size[l] + s->size[r];
        if (z > bs) { *why = "a symbol longer than a block"; return -1; }
        size[t] = (uint32_t)z;
    }
    /* the canonical code: a prefix code (Kraft sum <= 1), symbols by (length, number) */
    uint64_t kraft = 0;
    uint32_t present = 0;
    for (uint32_t t = 0; t < K; t++) {
        uint32_t l = lengths[t];
        if (l > s->maxlen) { *why = "a code longer than its stream says"; return -1; }
        if (l) { s->code[l].count++; kraft += (uint64_t)1 << (32 - l); present++; }
    }
    if ((!present && s->n) || kraft > ((uint64_t)1 << 32)) { *why = "code lengths that are no prefix code"; return -1; }
    uint32_t index = 0;
    uint64_t code = 0;
    for (uint32_t l = 1; l <= 32; l++) {
        s->code[l].first_code = code;
        s->code[l].first_index = index;
        index += s->code[l].count;
        code = (code + s->code[l].count) << 1;
    }
    uint32_t fill[33];
    for (uint32_t l = 0; l <= 32; l++) fill[l] = s->code[l].first_index;
    for (uint32_t t = 0; t < K; t++)
        if (lengths[t]) s->order_memory[fill[lengths[t]]++] = (uint16_t)t;
    fill_fast(s, s->fast_memory, TB_FAST_BITS);
    return 0;
}

void tb_stream_close(tb_stream *s)
{
    free(s->size_memory);
    free(s->order_memory);
    free(s->fast_memory);
    s->node = NULL;
    s->rank_info = NULL;
    s->size = s->size_memory = NULL;
    s->order = s->order_memory = NULL;
    s->fast = s->fast_memory = NULL;
    s->dir = NULL;
}

/* the code at bit pos: its symbol, length and size (slots); -1 if no code matches */
static inline int next_code_with(const tb_stream *s, const uint32_t *fast, uint32_t bits,
                                 uint64_t pos, uint32_t *sym_, uint32_t *len_, uint32_t *size_)
{
    uint64_t w = ld64_be(s->bits + (pos >> 3)) << (pos & 7);   /* the next 57+ bits, high first */
    uint32_t e = fast[w >> (64 - bits)];
    uint32_t sym, len = e & 31, size;
    if (len) {
        sym = e >> 16;
        size = (e >> 5) & 2047;
        if (!size) size = s->size[sym];
    } else {
        uint64_t code = 0;
        for (len = bits + 1; len <= s->maxlen; len++) {
            code = w >> (64 - len);
            if (code - s->code[len].first_code < s->code[len].count) break;
        }
        if (len > s->maxlen) return -1;
        uint32_t r = s->code[len].first_index + (uint32_t)(code - s->code[len].first_code);
        if (s->rank_info) {
            uint32_t x = s->rank_info[r];
            sym = x & 0xFFFF;
            size = (x >> 16) + 1;
        } else {
            sym = s->order[r];
            size = s->size[sym];
        }
    }
    *sym_ = sym;
    *len_ = len;
    *size_ = size;
    return 0;
}

static inline int next_code(const tb_stream *s, uint64_t pos, uint32_t *sym, uint32_t *len,
                            uint32_t *size)
{
    return next_code_with(s, s->fast, TB_FAST_BITS, pos, sym, len, size);
}

uint64_t tb_stream_index_words(const tb_stream *s)
{
    if (s->shift < TB_CHECKPOINT_BITS || s->shift > 16 || !s->blocks) return 0;
    return s->blocks * TB_CHECKPOINTS;
}

int tb_stream_index(tb_stream *s, uint32_t *dir, uint32_t stride, const char **why)
{
    uint32_t ck = TB_CHECKPOINTS, chunk_shift = s->shift - TB_CHECKPOINT_BITS;
    /* decoding every code of the stream: a look-up table on 12 bits for the pass (a probe's
     * own is 9 bits, small enough to fetch whole) */
    const uint32_t bits = s->maxlen < 12 ? s->maxlen : 12;
    uint32_t *fast = calloc((size_t)1 << bits, sizeof *fast);
    if (!fast) { *why = "out of memory"; return -1; }
    fill_fast(s, fast, bits);
    int rc = 0;
    for (uint64_t b = 0; b < s->blocks && !rc; b++) {
        uint32_t *r = dir + b * stride;
        uint64_t first = ld32(s->starts + 4 * b), pos = 8 * first;
        uint64_t end = 8 * (uint64_t)ld32(s->starts + 4 * (b + 1));
        if (end > s->bit_end) end = s->bit_end;   /* (re-read from the mapping: see seek) */
        uint64_t slots = s->n - (b << s->shift);
        if (slots > s->block_slots) slots = s->block_slots;
        r[0] = (uint32_t)first;
        for (uint32_t c = 1; c < ck; c++) r[c] = 0;
        uint64_t at = 0;
        uint32_t c = 1;
        while (at < slots) {
            uint32_t sym, len, size;
            if (pos >= end || next_code_with(s, fast, bits, pos, &sym, &len, &size) ||
                pos + len > end) {
                *why = "a block that does not decode to its slots";
                rc = -1;
                break;
            }
            for (; c < ck && ((uint64_t)c << chunk_shift) < at + size; c++) {
                if (pos - 8 * first > 0xFFFF) { rc = 1; break; }   /* too long to index */
                r[c] = (uint32_t)(pos - 8 * first) | (uint32_t)at << 16;
            }
            at += size;
            pos += len;
        }
        if (!rc && at != slots) {
            *why = "a block whose symbols run past its slots";
            rc = -1;
        }
    }
    free(fast);
    if (rc) return rc < 0 ? -1 : 0;
    s->dir = dir;
    s->dir_stride = stride;
    s->chunk_shift = chunk_shift;
    return 0;
}

static uint64_t pad64(uint64_t n) { return (n + 63) & ~(uint64_t)63; }

/* what an indexed stream keeps (tb_stream_move_tables): the look-up table, the alphabet, and
 * for blocks of at most 65536 slots the nodes and the rank table (pairs, order and size[] then
 * stay unread), else order and size[] */
static int compact(const tb_stream *s) { return s->block_slots <= 65536; }

static uint32_t present(const tb_stream *s)
{
    uint32_t n = 0;
    for (uint32_t l = 1; l <= 32; l++) n += s->code[l].count;
    return n;
}

uint64_t tb_stream_heap_bytes(const tb_stream *s)
{
    if (!s->fast_memory) return 0;
    return (sizeof *s->fast << TB_FAST_BITS) + 6ull * s->symbols;
}

uint64_t tb_stream_tables_bytes(const tb_stream *s)
{
    if (!s->fast_memory) return 0;
    uint64_t z = pad64(sizeof *s->fast << TB_FAST_BITS) + pad64(4ull * s->k);
    if (compact(s)) z += pad64(6ull * (s->symbols - s->k)) + pad64(4ull * present(s));
    if (!compact(s) || s->block_slots >= 2048) z += pad64(4ull * s->symbols);   /* size[] */
    if (!compact(s)) z += pad64(2ull * s->symbols);                            /* order */
    return z;
}

/* the terminal every slot of symbol sym is, or 0xFFFF: a terminal itself, or a pair already
 * written (tb_stream_move_tables) with one terminal as both children */
static uint32_t one_terminal(const uint16_t *node, uint32_t k, uint32_t sym)
{
    if (sym < k) return sym;
    const uint16_t *nd = node + 3 * (sym - k);
    return nd[0] == nd[1] && nd[0] < k ? nd[0] : 0xFFFF;
}

void tb_stream_move_tables(tb_stream *s, uint8_t *to)
{
    if (!s->fast_memory) return;
    uint32_t k = s->k, K = s->symbols;
    size_t z = sizeof *s->fast << TB_FAST_BITS;
    memcpy(to, s->fast, z);
    s->fast = (const uint32_t *)to;
    to += pad64(z);
    memcpy(to, s->alphabet, 4ull * k);
    s->alphabet = to;
    to += pad64(4ull * k);
    if (compact(s)) {
        /* a pair: left, right, size of left (< a block).  A pair whose terminals are all one
         * (a run of one value, the commonest pair there is) gets that terminal as both
         * children: its descent is one step, one cache miss, not one a level.  Pairs name
         * earlier symbols only, so one pass in order finds them (`one_terminal`, over the
         * node array itself) */
        uint16_t *node = (uint16_t *)to;
        for (uint32_t t = k; t < K; t++) {
            uint16_t l = ld16(s->pairs + 4ull * (t - k)), r = ld16(s->pairs + 4ull * (t - k) + 2);
            uint32_t a = one_terminal(node, k, l), b = one_terminal(node, k, r);
            int same = a == b && a != 0xFFFF;
            node[3 * (t - k)] = same ? (uint16_t)a : l;
            node[3 * (t - k) + 1] = same ? (uint16_t)a : r;
            node[3 * (t - k) + 2] = (uint16_t)s->size[l];
        }
        s->node = node;
        to += pad64(6ull * (K - k));
        uint32_t *ri = (uint32_t *)to, n = present(s);   /* a code: symbol | (size - 1) << 16 */
        for (uint32_t i = 0; i < n; i++) ri[i] = s->order[i] | (s->size[s->order[i]] - 1) << 16;
        s->rank_info = ri;
        to += pad64(4ull * n);
    }
    if (!compact(s) || s->block_slots >= 2048) {
        memcpy(to, s->size, 4ull * K);
        s->size = (const uint32_t *)to;
        to += pad64(4ull * K);
    } else {
        s->size = NULL;
    }
    if (!compact(s)) {
        memcpy(to, s->order, 2ull * K);
        s->order = (const uint16_t *)to;
    } else {
        s->order = NULL;
    }
    free(s->fast_memory);
    free(s->size_memory);
    free(s->order_memory);
    s->fast_memory = s->size_memory = NULL;
    s->order_memory = NULL;
}

void tb_stream_prefetch(const tb_stream *s, uint64_t slot)
{
#if defined(__GNUC__) || defined(__clang__)
    uint64_t b = slot >> s->shift;
    if (b >= s->blocks) return;
    if (s->dir) __builtin_prefetch(s->dir + b * s->dir_stride);
    else __builtin_prefetch(s->starts + 4 * b);
#else
    (void)s;
    (void)slot;
#endif
}

void tb_stream_prefetch_tables(const tb_stream *s)
{
#if defined(__GNUC__) || defined(__clang__)
    /* a table not probed lately is not in the cache: ask for its look-up table at once rather
     * than one dependent miss a code (after the block's bits were asked for: those come
     * first) */
    for (size_t i = 0; i < (sizeof *s->fast << TB_FAST_BITS); i += 64)
        __builtin_prefetch((const char *)s->fast + i);
    if (s->maxlen > TB_FAST_BITS)                        /* the longer codes' bounds */
        for (const char *p = (const char *)&s->code[TB_FAST_BITS + 1];
             p <= (const char *)&s->code[s->maxlen]; p += 64)
            __builtin_prefetch(p);
    for (size_t i = 0; i < 4ull * s->k && i < 512; i += 64)   /* the alphabet's first lines */
        __builtin_prefetch(s->alphabet + i);
#else
    (void)s;
#endif
}

int tb_stream_seek(const tb_stream *s, uint64_t slot, tb_cursor *cur)
{
    if (slot >= s->n) return -1;
    uint64_t b = slot >> s->shift;
    uint64_t rem = slot - (b << s->shift);
    if (s->dir) {
        const uint32_t *r = s->dir + b * s->dir_stride;
        uint64_t pos = 8 * (uint64_t)r[0];
        uint32_t c = (uint32_t)(rem >> s->chunk_shift);
        if (c) {
            pos += r[c] & 0xFFFF;
            rem -= r[c] >> 16;
        }
        cur->pos = pos;
        /* the checkpoints were decoded at indexing: the slot's code is near; this bound only
         * keeps a file changed since then from reading past its end */
        cur->end = pos + 0x10000 < s->bit_end ? pos + 0x10000 : s->bit_end;
        cur->rem = rem;
#if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(s->bits + (pos >> 3));
        __builtin_prefetch(s->bits + (pos >> 3) + 64);
#endif
        return 0;
    }
    /* the block's starts were checked when the stream was opened, but are read again from the
     * mapping: a file changed in place since may hold any, so they are bounded by the bits
     * (the value read is then refused: tb_settle) */
    cur->pos = 8 * (uint64_t)ld32(s->starts + 4 * b);
    cur->end = 8 * (uint64_t)ld32(s->starts + 4 * (b + 1));
    if (cur->end > s->bit_end) cur->end = s->bit_end;
    if (cur->pos > cur->end) return -1;
    cur->rem = rem;
#if defined(__GNUC__) || defined(__clang__)
    for (uint64_t i = cur->pos >> 3; i < (cur->end >> 3) && i < (cur->pos >> 3) + 2048; i += 64)
        __builtin_prefetch(s->bits + i);
#endif
    return 0;
}

/* the symbol whose code covers the cursor's slot, and the slot's offset in it: 0, or -1 if the
 * data does not decode */
static inline int find_code(const tb_stream *s, const tb_cursor *cur, uint32_t *sym_, uint64_t *rem_)
{
    uint64_t pos = cur->pos, end = cur->end, rem = cur->rem;
    while (pos < end) {
        uint32_t sym, len, size;
        if (next_code(s, pos, &sym, &len, &size)) return -1;
        if (rem < size) {
            *sym_ = sym;
            *rem_ = rem;
            return 0;
        }
        rem -= size;
        pos += len;
    }
    return -1;
}

/* one step down the pair `sym` towards offset rem (a node: no branch to mispredict) */
static inline uint32_t node_step(const tb_stream *s, uint32_t sym, uint64_t *rem)
{
    const uint16_t *nd = s->node + 3 * (sym - s->k);
    uint32_t right = *rem >= nd[2];
    *rem -= right ? nd[2] : 0;
    return nd[right];
}

/* the terminal of symbol sym at offset rem */
static inline uint32_t descend(const tb_stream *s, uint32_t sym, uint64_t rem)
{
    if (s->node) {
        while (sym >= s->k) sym = node_step(s, sym, &rem);
        return sym;
    }
    while (sym >= s->k) {
        /* pairs in the mapping (checked at opening to name earlier symbols, and bounded so
         * again: a file changed since may hold any) */
        const uint8_t *p = s->pairs + 4ull * (sym - s->k);
        uint32_t left = ld16(p), right = ld16(p + 2);
        if (left >= sym || right >= sym) return 0;   /* some terminal: tb_settle refuses it */
        if (rem < s->size[left]) sym = left;
        else { rem -= s->size[left]; sym = right; }
    }
    return sym;
}

int tb_stream_decode(const tb_stream *s, const tb_cursor *cur, int32_t *value)
{
    uint32_t sym;
    uint64_t rem;
    if (find_code(s, cur, &sym, &rem)) return -1;
    *value = (int32_t)ld32(s->alphabet + 4ull * descend(s, sym, rem));
    return 0;
}

int tb_stream_decode2(const tb_stream *a, const tb_cursor *ca, const tb_stream *b,
                      const tb_cursor *cb, int32_t *va, int32_t *vb)
{
    uint32_t x, y;
    uint64_t rx, ry;
    if (find_code(a, ca, &x, &rx) || find_code(b, cb, &y, &ry)) return -1;
    if (a->node && b->node) {
        /* both descents in one loop: their misses (nodes of tables not probed lately) overlap */
        while (x >= a->k && y >= b->k) {
            x = node_step(a, x, &rx);
            y = node_step(b, y, &ry);
        }
    }
    x = descend(a, x, rx);
    y = descend(b, y, ry);
    *va = (int32_t)ld32(a->alphabet + 4ull * x);
    *vb = (int32_t)ld32(b->alphabet + 4ull * y);
    return 0;
}

int tb_stream_get(const tb_stream *s, uint64_t slot, int32_t *value)
{
    tb_cursor c;
    tb_stream_prefetch(s, slot);
    tb_stream_prefetch_tables(s);
    if (tb_stream_seek(s, slot, &c)) return -1;
    return tb_stream_decode(s, &c, value);
}
