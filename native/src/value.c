/* The value of a slot of an index table (compressed streams or direct cells) or of a key of a
 * key table, read in place from a file's sections: what every probe ends in. */
#include "internal.h"

int tb_finish(tb_value *v, int status)
{
    v->status = status;
    return status;
}

/* where game slot `slot` lies in an index table's streams (its slot order, file.c) */
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
