/* The WebAssembly face of libtbprobe: plain-number entry points for JavaScript (tbprobe.mjs).
 * JavaScript copies each probe file into memory it gets from tbw_alloc and hands it over with
 * tbw_add (the base keeps it until tbw_close); text comes in and goes out through buffers in
 * the module's memory.  WebAssembly runs one thread here, so the answer of the last probe
 * lives in one static record. */
#include <stdlib.h>
#include <string.h>
#include "tbprobe.h"

#define EXPORT(name) __attribute__((export_name(#name)))

static char err[512];
static char move_text[128];
static tb_value last;

EXPORT(tbw_alloc) void *tbw_alloc(size_t n) { return malloc(n ? n : 1); }
EXPORT(tbw_free) void tbw_free(void *p) { free(p); }
EXPORT(tbw_new) tb_base *tbw_new(void) { return tb_new(); }
EXPORT(tbw_close) void tbw_close(tb_base *tb) { tb_close(tb); }
EXPORT(tbw_error) const char *tbw_error(void) { return err; }
EXPORT(tbw_move_text) const char *tbw_move_text(void) { return move_text; }

EXPORT(tbw_add) int tbw_add(tb_base *tb, const void *data, size_t size, const char *name)
{
    err[0] = 0;
    return tb_add_buffer(tb, data, size, name, err, sizeof err);
}

/* tb_index on the files added (TB_OPEN_INDEX's checkpoints) */
EXPORT(tbw_index) int tbw_index(tb_base *tb) { return tb_index(tb, err, sizeof err); }

/* parse and probe one text; the value: tbw_value(field), the move: tbw_move_text() */
EXPORT(tbw_probe_text) int tbw_probe_text(tb_base *tb, const char *game, const char *text, int plies)
{
    tb_position pos;
    err[0] = move_text[0] = 0;
    memset(&last, 0, sizeof last);
    int rc = tb_parse(game, text, &pos, err, sizeof err);
    if (rc != TB_OK) return last.status = rc;
    rc = tb_probe_position(tb, &pos, plies, &last);
    if (rc >= 0 && last.move >= 0) tb_move_text(&pos, last.move, move_text, sizeof move_text);
    return rc;
}

EXPORT(tbw_probe_cdc) int tbw_probe_cdc(tb_base *tb, const int8_t *board, int side)
{
    return tb_probe_cdc(tb, board, side, &last);
}

EXPORT(tbw_probe_chinese_checkers) int tbw_probe_chinese_checkers(tb_base *tb, int m, const int8_t *cells, int mover)
{
    return tb_probe_chinese_checkers(tb, m, cells, mover, &last);
}

EXPORT(tbw_probe_oware) int tbw_probe_oware(tb_base *tb, const int8_t *houses, int plies)
{
    return tb_probe_oware(tb, houses, plies, &last);
}

/* a parsed position kept in the module's memory (tbw_free it): engines and the benchmark probe
 * it again and again without parsing */
EXPORT(tbw_parse) tb_position *tbw_parse(const char *game, const char *text)
{
    tb_position *pos = malloc(sizeof *pos);
    err[0] = 0;
    if (pos && tb_parse(game, text, pos, err, sizeof err) != TB_OK) { free(pos); return NULL; }
    return pos;
}

EXPORT(tbw_probe_position) int tbw_probe_position(tb_base *tb, const tb_position *pos, int plies)
{
    return tb_probe_position(tb, pos, plies, &last);
}

/* 0 status, 1 result, 2 distance, 3 score, 4 move */
EXPORT(tbw_value) int tbw_value(int field)
{
    switch (field) {
    case 0: return last.status;
    case 1: return last.result;
    case 2: return last.distance;
    case 3: return last.score;
    default: return last.move;
    }
}

/* probe n parsed positions rounds times inside the module (the benchmark's loop without a
 * JavaScript call per probe); returns the number of failed probes */
EXPORT(tbw_probe_loop) int tbw_probe_loop(tb_base *tb, tb_position **positions, int n, int rounds)
{
    int bad = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) bad += tb_probe_position(tb, positions[i], -1, &last) < 0;
    return bad;
}
