/* The VALS/MOVE stream of an index table (docs/probe-format.md section 3, "Streams", format
 * version 3: pair substitution, then one canonical Huffman code; blocks of block_slots slots
 * starting on byte boundaries): its own module, so that a new stream coding replaces this file
 * and stream.c only. */
#ifndef TB_STREAM_H
#define TB_STREAM_H

#include <stdint.h>

#define TB_FAST_BITS 9
/* checkpoints a block when the stream is indexed (tb_stream_index): a probe then decodes the
 * codes of one sixteenth of a block at most, not of the whole block up to its slot.  16, not 8,
 * brought CC 7x7-3's probes under issue 25's target; 32 gained little for twice the memory, and
 * nothing on CDC, whose cold probes wait for misses, not for decoding (benchmarks/RESULTS.md) */
#define TB_CHECKPOINT_BITS 4
#define TB_CHECKPOINTS (1 << TB_CHECKPOINT_BITS)

typedef struct tb_stream {
    /* what every probe reads, first (one or two cache lines) */
    uint32_t k, shift, chunk_shift, dir_stride;
    uint64_t n, bit_end;
    const uint32_t *dir;       /* NULL, or TB_CHECKPOINTS words a block, every dir_stride words
                                  (tb_index's arena): [0] the block's first byte, [c] for c >= 1
                                  the code that covers slot c << chunk_shift of the block: its
                                  bit offset in the block | the block slot its symbol starts
                                  at << 16 */
    const uint32_t *fast;      /* 1 << TB_FAST_BITS entries on the next bits: symbol << 16 |
                                  size << 5 (0: look it up in size[]) | length (0: a longer
                                  code); 2 KB, fetched whole at the start of a probe */
    const uint8_t *bits;
    const uint32_t *size;      /* slots each symbol stands for */
    const uint16_t *node;      /* per pair symbol: left, right, size of left (one read a level
                                  of the descent; NULL for blocks over 65536 slots: pairs and
                                  size[] then) */
    const uint8_t *pairs;      /* u16[symbols - k][2] */
    const uint8_t *alphabet;   /* i32[k] */
    const uint8_t *starts;     /* u32[blocks + 1] */
    uint64_t blocks;
    uint32_t maxlen, symbols, block_slots;
    const uint32_t *rank_info; /* per code in canonical order: its symbol | (size - 1) << 16
                                  (a code longer than TB_FAST_BITS: one read; NULL for blocks
                                  over 65536 slots: order and size[] then) */
    /* the canonical code, by length: codes longer than TB_FAST_BITS are found here */
    struct { uint64_t first_code; uint32_t count, first_index; } code[33];
    const uint16_t *order;     /* symbols with a code, in canonical order */
    uint32_t *size_memory, *fast_memory;
    uint16_t *order_memory;    /* what tb_stream_open allocated (NULL once moved) */
} tb_stream;

/* where a probe of one slot starts decoding (tb_stream_seek), so that a table's two streams
 * can ask for their memory at once before either decodes */
typedef struct tb_cursor {
    uint64_t pos, end, rem;
} tb_cursor;

/* Parse and validate a stream section of `length` bytes; 0 ok, else -1 with a reason in *why. */
int tb_stream_open(tb_stream *s, const uint8_t *section, uint64_t length, const char **why);
/* Words of checkpoints the stream needs to be indexed (0: it cannot be: blocks too short or too
 * long for 16-bit offsets). */
uint64_t tb_stream_index_words(const tb_stream *s);
/* Decode the whole stream once, checking that every block holds exactly its slots within its
 * bytes, and write TB_CHECKPOINTS checkpoints a block to dir, a block every `stride` words
 * (the caller's memory, kept until the stream closes): 0 ok (or a stream with a block too long
 * to index, left unindexed), else -1 with a reason in *why. */
int tb_stream_index(tb_stream *s, uint32_t *dir, uint32_t stride, const char **why);
void tb_stream_close(tb_stream *s);
/* Bytes the stream's tables (look-up table, pairs, sizes, order, alphabet) take, and moving
 * them to `to` (64-byte aligned, that many bytes, kept until the stream closes): tb_index puts
 * every table of a base beside its checkpoints, on huge pages. */
uint64_t tb_stream_tables_bytes(const tb_stream *s);
/* bytes tb_stream_open allocated and the stream still holds */
uint64_t tb_stream_heap_bytes(const tb_stream *s);
void tb_stream_move_tables(tb_stream *s, uint8_t *to);
/* Ask for the memory a probe of `slot` reads first (the block start or its checkpoints), and for
 * the tables every probe reads (look-up table, code bounds, the alphabet's first lines). */
void tb_stream_prefetch(const tb_stream *s, uint64_t slot);
void tb_stream_prefetch_tables(const tb_stream *s);
/* Find where the slot's decoding starts and ask for those bits: -1 if out of range. */
int tb_stream_seek(const tb_stream *s, uint64_t slot, tb_cursor *c);
/* The value at a sought cursor: 0 ok, -1 if the data does not decode. */
int tb_stream_decode(const tb_stream *s, const tb_cursor *c, int32_t *value);
/* The values at two sought cursors of two streams (a table's values and moves), decoded side by
 * side: 0 ok, -1 if either does not decode. */
int tb_stream_decode2(const tb_stream *a, const tb_cursor *ca, const tb_stream *b,
                      const tb_cursor *cb, int32_t *va, int32_t *vb);
/* The value of one slot: 0 ok, -1 if the slot is out of range or the data does not decode. */
int tb_stream_get(const tb_stream *s, uint64_t slot, int32_t *value);

#endif
