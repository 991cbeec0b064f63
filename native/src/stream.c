/* Version 2 streams (docs/probe-format.md, section 3): a probe decodes the codes of its block
 * (canonical Huffman, most significant bit first) until the symbol that covers its slot, then
 * descends that symbol's pairs to the terminal of the slot.  Codes up to TB_FAST_BITS long are
 * decoded with one table look-up that also gives the symbol's size. */
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
    /* block starts ascend from 0 and leave 8 bytes to load at the last */
    uint64_t prev = 0;
    for (uint64_t b = 0; b <= s->blocks; b++) {
        uint64_t st = ld32(s->starts + 4 * b);
        if ((b == 0 && st != 0) || st < prev) { *why = "stream block starts out of order"; return -1; }
        prev = st;
    }
    if (prev + 8 > bit_bytes) { *why = "stream block starts beyond its bits"; return -1; }
    s->size = malloc(sizeof *s->size * K);
    s->order = malloc(sizeof *s->order * K);
    s->fast = calloc((size_t)1 << TB_FAST_BITS, sizeof *s->fast);
    if (!s->size || !s->order || !s->fast) { *why = "out of memory"; return -1; }
    /* the grammar: a pair names earlier symbols and stands for at most a block */
    for (uint32_t t = 0; t < k; t++) s->size[t] = 1;
    for (uint32_t t = k; t < K; t++) {
        uint32_t l = ld16(s->pairs + 4ull * (t - k)), r = ld16(s->pairs + 4ull * (t - k) + 2);
        if (l >= t || r >= t) { *why = "a pair names a later symbol"; return -1; }
        uint64_t z = (uint64_t)s->size[l] + s->size[r];
        if (z > bs) { *why = "a symbol longer than a block"; return -1; }
        s->size[t] = (uint32_t)z;
    }
    /* the canonical code: a prefix code (Kraft sum <= 1), symbols by (length, number) */
    uint64_t kraft = 0;
    uint32_t present = 0;
    for (uint32_t t = 0; t < K; t++) {
        uint32_t l = lengths[t];
        if (l > s->maxlen) { *why = "a code longer than its stream says"; return -1; }
        if (l) { s->count[l]++; kraft += (uint64_t)1 << (32 - l); present++; }
    }
    if ((!present && s->n) || kraft > ((uint64_t)1 << 32)) { *why = "code lengths that are no prefix code"; return -1; }
    uint32_t index = 0;
    uint64_t code = 0;
    for (uint32_t l = 1; l <= 32; l++) {
        s->first_code[l] = code;
        s->first_index[l] = index;
        index += s->count[l];
        code = (code + s->count[l]) << 1;
    }
    uint32_t fill[33];
    memcpy(fill, s->first_index, sizeof fill);
    for (uint32_t t = 0; t < K; t++)
        if (lengths[t]) s->order[fill[lengths[t]]++] = (uint16_t)t;
    for (uint32_t l = 1; l <= TB_FAST_BITS && l <= s->maxlen; l++)
        for (uint32_t j = 0; j < s->count[l]; j++) {
            uint32_t t = s->order[s->first_index[l] + j];
            uint64_t lo = (s->first_code[l] + j) << (TB_FAST_BITS - l);
            uint32_t z = s->size[t] < 2048 ? s->size[t] : 0;
            for (uint64_t f = 0; f < ((uint64_t)1 << (TB_FAST_BITS - l)); f++)
                s->fast[lo + f] = (uint32_t)t << 16 | z << 5 | l;
        }
    return 0;
}

void tb_stream_close(tb_stream *s)
{
    free(s->size);
    free(s->order);
    free(s->fast);
    s->size = NULL;
    s->order = NULL;
    s->fast = NULL;
}

int tb_stream_get(const tb_stream *s, uint64_t slot, int32_t *value)
{
    if (slot >= s->n) return -1;
    uint64_t b = slot >> s->shift;
    uint64_t pos = 8 * (uint64_t)ld32(s->starts + 4 * b), end = 8 * (uint64_t)ld32(s->starts + 4 * (b + 1));
    uint64_t rem = slot - (b << s->shift);
#if defined(__GNUC__) || defined(__clang__)
    /* a table not probed lately is not in the cache: ask for the look-up table and the block's
     * bytes at once rather than one dependent miss a code */
    for (size_t i = 0; i < (sizeof *s->fast << TB_FAST_BITS); i += 64)
        __builtin_prefetch((const char *)s->fast + i);
    for (uint64_t i = pos >> 3; i < (end >> 3) && i < (pos >> 3) + 2048; i += 64)
        __builtin_prefetch(s->bits + i);
#endif
    while (pos < end) {
        uint64_t w = ld64_be(s->bits + (pos >> 3)) << (pos & 7);   /* the next 57+ bits, high first */
        uint32_t e = s->fast[w >> (64 - TB_FAST_BITS)];
        uint32_t sym, len = e & 31, size;
        if (len) {
            sym = e >> 16;
            size = (e >> 5) & 2047;
            if (!size) size = s->size[sym];
        } else {
            for (len = TB_FAST_BITS + 1; len <= s->maxlen; len++) {
                uint64_t code = w >> (64 - len);
                if (code - s->first_code[len] < s->count[len]) break;
            }
            if (len > s->maxlen) return -1;
            sym = s->order[s->first_index[len] + (uint32_t)((w >> (64 - len)) - s->first_code[len])];
            size = s->size[sym];
        }
        if (rem < size) {
            while (sym >= s->k) {                 /* descend the pair to the slot's terminal */
                const uint8_t *p = s->pairs + 4ull * (sym - s->k);
                uint32_t left = ld16(p);
                if (rem < s->size[left]) sym = left;
                else { rem -= s->size[left]; sym = ld16(p + 2); }
            }
            *value = (int32_t)ld32(s->alphabet + 4ull * sym);
            return 0;
        }
        rem -= size;
        pos += len;
    }
    return -1;
}
