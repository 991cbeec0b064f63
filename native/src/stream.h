/* The VALS/MOVE stream of an index table (docs/probe-format.md section 3, "Streams"): its own
 * module so that a new stream coding replaces this file and stream.c only. */
#ifndef TB_STREAM_H
#define TB_STREAM_H

#include <stdint.h>

#define TB_LUT_BITS 10

typedef struct tb_stream {
    uint32_t k, block_slots, maxlen;
    uint64_t n, blocks;
    const uint8_t *alphabet;   /* i32[k] */
    const uint8_t *offsets;    /* i64[blocks + 1] */
    const uint8_t *bits;
    uint64_t end_bits;         /* offsets[blocks] */
    uint32_t count[33];
    uint64_t first_code[33];
    uint32_t first_symbol[33];
    uint16_t *skip;            /* 1 << TB_LUT_BITS entries: whole codes in the window << 8 | their bits */
} tb_stream;

/* Parse and validate a stream section of `length` bytes; 0 ok, else -1 with a reason in *why. */
int tb_stream_open(tb_stream *s, const uint8_t *section, uint64_t length, const char **why);
void tb_stream_close(tb_stream *s);
/* The value of one slot: 0 ok, -1 if the slot is out of range or the data does not decode. */
int tb_stream_get(const tb_stream *s, uint64_t slot, int32_t *value);

#endif
