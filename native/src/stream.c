/* Version 1 streams: one canonical Huffman code per stream, blocks of block_slots symbols
 * (docs/probe-format.md, section 3).  A probe decodes the codes of its block up to its slot;
 * codes up to TB_LUT_BITS long are decoded with one table look-up, longer ones bit by bit. */
#include <stdlib.h>
#include <string.h>
#include "stream.h"

static inline uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

/* the length of the code at the start of bits (first bit lowest) if it is at most `avail` bits
 * long, else 0; *idx its alphabet index */
static uint32_t decode_one(const tb_stream *s, uint64_t bits, uint32_t avail, uint32_t *idx)
{
    uint64_t code = 0;
    uint32_t top = avail < s->maxlen ? avail : s->maxlen;
    for (uint32_t len = 1; len <= top; len++) {
        code = code << 1 | ((bits >> (len - 1)) & 1);
        if (code - s->first_code[len] < s->count[len]) {
            *idx = s->first_symbol[len] + (uint32_t)(code - s->first_code[len]);
            return len;
        }
    }
    return 0;
}

static uint32_t code_length(const tb_stream *s, uint64_t bits, uint32_t avail)
{
    uint32_t idx;
    return decode_one(s, bits, avail, &idx);
}

int tb_stream_open(tb_stream *s, const uint8_t *sec, uint64_t length, const char **why)
{
    memset(s, 0, sizeof *s);
    if (length < 32) { *why = "stream header truncated"; return -1; }
    s->k = ld32(sec);
    s->block_slots = ld32(sec + 4);
    s->n = ld64(sec + 8);
    s->blocks = ld64(sec + 16);
    s->maxlen = ld32(sec + 24);
    if (s->k < 1 || s->block_slots < 1 || s->maxlen < 1 || s->maxlen > 32) {
        *why = "stream header out of range"; return -1;
    }
    if (s->blocks != s->n / s->block_slots + (s->n % s->block_slots != 0)) {
        *why = "stream block count does not match its symbols"; return -1;
    }
    uint64_t at = 32;
    if ((uint64_t)s->k * 5 > length) { *why = "stream alphabet truncated"; return -1; }
    s->alphabet = sec + at;
    at += pad8((uint64_t)s->k * 4);
    const uint8_t *lengths = sec + at;
    at += pad8(s->k);
    if (s->blocks > length / 8 || at + 8 * (s->blocks + 1) > length) {
        *why = "stream block offsets truncated"; return -1;
    }
    s->offsets = sec + at;
    at += 8 * (s->blocks + 1);
    s->bits = sec + at;
    uint64_t bytes = length - at;
    s->end_bits = ld64(s->offsets + 8 * s->blocks);
    if (bytes < 8 || s->end_bits > 8 * (bytes - 8)) { *why = "stream bits truncated"; return -1; }
    /* canonical tables: lengths must be non-decreasing (canonical order) and form a prefix code */
    uint32_t prev = 1;
    for (uint32_t i = 0; i < s->k; i++) {
        uint32_t l = lengths[i];
        if (l < prev || l > s->maxlen) { *why = "stream code lengths not canonical"; return -1; }
        prev = l;
        s->count[l]++;
    }
    uint64_t code = 0;
    uint32_t sym = 0;
    for (uint32_t l = 1; l <= 32; l++) {
        s->first_code[l] = code;
        s->first_symbol[l] = sym;
        if (code + s->count[l] > ((uint64_t)1 << l)) { *why = "stream code lengths overfull"; return -1; }
        sym += s->count[l];
        code = (code + s->count[l]) << 1;
    }
    /* skip[w]: how many whole codes the first TB_LUT_BITS bits w hold, and their bits (a probe
     * skips the codes before its slot several at a time; one small table, so that a probe of a
     * table not probed lately costs few cache misses) */
    s->skip = calloc((size_t)1 << TB_LUT_BITS, sizeof *s->skip);
    if (!s->skip) { *why = "out of memory"; return -1; }
    for (uint32_t w = 0; w < (1u << TB_LUT_BITS); w++) {
        uint32_t count = 0, used = 0;
        while (count < 15) {
            uint32_t len = code_length(s, (uint64_t)w >> used, TB_LUT_BITS - used);
            if (!len) break;
            used += len;
            count++;
        }
        s->skip[w] = (uint16_t)(count << 8 | used);
    }
    return 0;
}

void tb_stream_close(tb_stream *s)
{
    free(s->skip);
    s->skip = NULL;
}

int tb_stream_get(const tb_stream *s, uint64_t slot, int32_t *value)
{
    if (slot >= s->n) return -1;
    uint64_t b = slot / s->block_slots;
    uint64_t pos = ld64(s->offsets + 8 * b);
    uint64_t left = slot - b * s->block_slots;
    const uint64_t mask = ((uint64_t)1 << TB_LUT_BITS) - 1;
    for (;;) {
        if (pos > s->end_bits) return -1;
        uint64_t w = ld64(s->bits + (pos >> 3)) >> (pos & 7);   /* >= 57 bits, first lowest */
        uint32_t sk = s->skip[w & mask];
        if ((sk >> 8) && (sk >> 8) <= left) {
            pos += sk & 255;
            left -= sk >> 8;
            continue;
        }
        uint32_t idx, len = decode_one(s, w, 32, &idx);
        if (!len) return -1;
        pos += len;
        if (left-- == 0) {
            if (pos > s->end_bits) return -1;
            *value = (int32_t)ld32(s->alphabet + 4 * (uint64_t)idx);
            return 0;
        }
    }
}
