/* The VALS/MOVE stream of an index table (docs/probe-format.md section 3, "Streams", format
 * version 2: pair substitution, then one canonical Huffman code; blocks of block_slots slots
 * starting on byte boundaries): its own module, so that a new stream coding replaces this file
 * and stream.c only. */
#ifndef TB_STREAM_H
#define TB_STREAM_H

#include <stdint.h>

#define TB_FAST_BITS 9

typedef struct tb_stream {
    uint32_t k, symbols, block_slots, shift, maxlen;
    uint64_t n, blocks;
    const uint8_t *alphabet;   /* i32[k] */
    const uint8_t *pairs;      /* u16[symbols - k][2] */
    const uint8_t *starts;     /* u32[blocks + 1] */
    const uint8_t *bits;
    uint32_t count[33];
    uint64_t first_code[33];
    uint32_t first_index[33];
    uint16_t *order;           /* symbols with a code, in canonical order */
    uint32_t *size;            /* slots each symbol stands for */
    uint32_t *fast;            /* 1 << TB_FAST_BITS entries on the next bits: symbol << 16 |
                                  size << 5 (0: look it up in size[]) | length (0: a longer
                                  code); 2 KB, fetched whole at the start of a probe */
} tb_stream;

/* Parse and validate a stream section of `length` bytes; 0 ok, else -1 with a reason in *why. */
int tb_stream_open(tb_stream *s, const uint8_t *section, uint64_t length, const char **why);
void tb_stream_close(tb_stream *s);
/* The value of one slot: 0 ok, -1 if the slot is out of range or the data does not decode. */
int tb_stream_get(const tb_stream *s, uint64_t slot, int32_t *value);

#endif
