/* A probe file's header and section table, fully validated (docs/probe-format.md sections 1,
 * 4, 5): what tb_file holds of each layout once open.  Its values are read by value.c, its
 * streams decoded by stream.c; the format's names are format.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* ------------------------------------------------------------------ the header */

static const char *const LAYOUT_TAGS[TB_LAYOUT_COUNT][4] = {
    [TB_LAYOUT_INDEX] = {TB_INDEX_SECTIONS, NULL},
    [TB_LAYOUT_KEY] = {TB_KEY_SECTIONS},
    [TB_LAYOUT_RUNS] = {TB_RUNS_SECTIONS},
    [TB_LAYOUT_DIRECT] = {TB_DIRECT_SECTIONS, NULL, NULL},
};
static const char *const STORAGE_NAMES[TB_LAYOUT_COUNT] = {TB_STORAGE_OF_LAYOUT};

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
    if (calp->length < 16) {
        *why = TB_SECTION_CELL_LAYOUT ": shorter than its counts";
        return -1;
    }
    uint32_t kv = tb_ld32(d), km = tb_ld32(d + 4), vb = tb_ld32(d + 8), mb = tb_ld32(d + 12);
    if (kv < 1 || kv > TB_MAX_CELL_SYMBOLS || km > TB_MAX_CELL_SYMBOLS || (km > 0) != f->moves ||
        calp->length != 16 + 4ull * (kv + km) || vb != symbol_bits(kv) || mb != symbol_bits(km)) {
        *why = TB_SECTION_CELL_LAYOUT ": alphabet sizes, widths or length do not agree";
        return -1;
    }
    for (uint32_t i = 1; i < kv + km; i++)
        if (i != kv && (int32_t)tb_ld32(d + 16 + 4 * i) <= (int32_t)tb_ld32(d + 12 + 4 * i)) {
            *why = TB_SECTION_CELL_LAYOUT ": an alphabet out of order";
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
        *why = TB_SECTION_CELLS ": not as long as the table's cells";
        return -1;
    }
    return 0;
}

/* what goes wrong below is written to why (`len` bytes) and the function returns -1 */
#define BAD(...) do { snprintf(why, len, __VA_ARGS__); return -1; } while (0)

/* the section table at st: each section of the layout's tags where the previous one ended,
 * the first at header_bytes, the last ending at the file's end */
static int open_sections(tb_file *f, const uint8_t *st, uint64_t header_bytes, uint32_t layout,
                         char *why, size_t len)
{
    uint64_t at = header_bytes, size = f->size;
    for (int i = 0; i < f->nsec; i++) {
        const uint8_t *e = st + TB_SECTION_ENTRY_BYTES * i;
        uint64_t off = tb_ld64(e + 8), length = tb_ld64(e + 16);
        memcpy(f->sec[i].tag, e, 4);
        f->sec[i].tag[4] = 0;
        if (memcmp(e, LAYOUT_TAGS[layout][i], 4) != 0) {
            char tag[40];                     /* quoted: a damaged tag may hold any byte */
            tb_quote(tag, sizeof tag, (const char *)e, 4);
            BAD("section %d is %s, not '%s'", i, tag, LAYOUT_TAGS[layout][i]);
        }
        if (off != at || length > size - off || pad8(length) > size - off)
            BAD("section %.4s at %llu, length %llu, in a file of %llu bytes", (const char *)e,
                (unsigned long long)off, (unsigned long long)length, (unsigned long long)size);
        f->sec[i].data = f->data + off;
        f->sec[i].length = length;
        at = off + pad8(length);
    }
    if (at != size) BAD("file of %llu bytes, sections end at %llu", (unsigned long long)size,
                        (unsigned long long)at);
    return 0;
}

/* an index table's sections: its slot order and streams */
static int open_index(tb_file *f, char *why, size_t len)
{
    const char *reason = NULL;
    const tb_section *s = section(f, TB_SECTION_ORDER);
    if (order_open(f, s->data, s->length))
        BAD(TB_SECTION_ORDER ": slot order does not match the table");
    s = section(f, TB_SECTION_VALUES);
    if (tb_stream_open(&f->vals, s->data, s->length, &reason))
        BAD(TB_SECTION_VALUES ": %s", reason);
    if (f->vals.n != f->slots)
        BAD(TB_SECTION_VALUES " holds %llu slots of %llu", (unsigned long long)f->vals.n,
            (unsigned long long)f->slots);
    if (f->moves) {
        s = section(f, TB_SECTION_MOVES);
        if (tb_stream_open(&f->mov, s->data, s->length, &reason))
            BAD(TB_SECTION_MOVES ": %s", reason);
        if (f->mov.n != f->slots)
            BAD(TB_SECTION_MOVES " holds %llu slots", (unsigned long long)f->mov.n);
    }
    return 0;
}

/* a key table's sections: one row each, as long as the rows */
static int open_keys(tb_file *f, char *why, size_t len)
{
    uint64_t n = f->rows;
    const tb_section *keys = section(f, TB_SECTION_KEYS), *res = section(f, TB_SECTION_KEY_RESULTS),
                     *dis = section(f, TB_SECTION_KEY_DISTANCES),
                     *mov = f->moves ? section(f, TB_SECTION_KEY_MOVES) : NULL;
    if (keys->length != 24 * n || res->length != n || dis->length != 2 * n ||
        (mov && mov->length != 4 * n))
        BAD("key sections of different lengths");
    f->keys = keys->data;
    f->kres = res->data;
    f->kdis = dis->data;
    f->kmov = mov ? mov->data : NULL;
    return 0;
}

/* a score-run table's sections: offsets a position, the runs' columns */
static int open_runs(tb_file *f, char *why, size_t len)
{
    uint64_t n = f->rows;
    const tb_section *off = section(f, TB_SECTION_RUN_OFFSETS),
                     *sta = section(f, TB_SECTION_RUN_STARTS),
                     *sco = section(f, TB_SECTION_RUN_SCORES),
                     *mov = section(f, TB_SECTION_RUN_MOVES);
    if (f->slots > f->size / 8 || off->length != 8 * (f->slots + 1) || sta->length != 2 * n ||
        sco->length != n || mov->length != n)
        BAD("run sections of different lengths");
    f->roff = off->data;
    f->rsta = sta->data;
    f->rsco = sco->data;
    f->rmov = mov->data;
    /* offsets non-decreasing from 0 to rows: a probe then reads only runs that exist */
    uint64_t prev = 0;
    for (uint64_t i = 0; i <= f->slots; i++) {
        uint64_t o = tb_ld64(f->roff + 8 * i);
        if (o < prev || o > n || (i == 0 && o != 0)) BAD("run offsets out of order");
        prev = o;
    }
    if (prev != n) BAD("run offsets do not end at the runs");
    return 0;
}

/* the fixed header's counts and the meta JSON (game, table, storage, params' horizon), then
 * the sections of the layout */
static int open_header(tb_file *f, char *why, size_t len)
{
    const uint8_t *d = f->data;
    uint64_t header_bytes = tb_ld32(d + 12);
    uint32_t layout = tb_ld32(d + 16), flags = tb_ld32(d + 20);
    f->slots = tb_ld64(d + 24);
    f->rows = tb_ld64(d + 32);
    uint32_t nsec = tb_ld32(d + 40), meta = tb_ld32(d + 44);
    if (layout >= TB_LAYOUT_COUNT) BAD("unknown layout %u", layout);
    if (flags & ~(uint32_t)TB_FLAG_MOVES) BAD("unknown flags %u", flags);
    f->direct = layout == TB_LAYOUT_DIRECT;
    f->layout = f->direct ? TB_LAYOUT_INDEX : (int)layout;
    f->moves = flags & TB_FLAG_MOVES;
    int want = layout == TB_LAYOUT_INDEX ? 2 + f->moves : layout == TB_LAYOUT_KEY ?
               3 + f->moves : layout == TB_LAYOUT_RUNS ? 4 : 2;
    if (nsec != (uint32_t)want) BAD("%u sections, expected %d", nsec, want);
    if (header_bytes > f->size ||
        header_bytes != TB_HEADER_BYTES + pad8(meta) + (uint64_t)TB_SECTION_ENTRY_BYTES * nsec)
        BAD("header length %llu does not match", (unsigned long long)header_bytes);
    const char *js = (const char *)d + TB_HEADER_BYTES, *jend = js + meta;
    char game[32], storage[16];
    if (tb_json_string(js, jend, "game", game, sizeof game) ||
        tb_json_string(js, jend, "table", f->name, sizeof f->name) ||
        tb_json_string(js, jend, "storage", storage, sizeof storage))
        BAD("header JSON lacks game, table or storage");
    int g = tb_game_of(game);
    if (g < 0) BAD("unknown game '%s'", game);
    f->game = (tb_game)g;
    if (strcmp(storage, STORAGE_NAMES[layout]) != 0)
        BAD("storage '%s' with layout %u", storage, layout);
    const char *params = tb_json_member(js, jend, "params");
    long long horizon = 0;
    if (params && tb_json_int(params, jend, "horizon", &horizon) == 0) f->horizon = (int)horizon;
    f->nsec = (int)nsec;
    if (open_sections(f, d + TB_HEADER_BYTES + pad8(meta), header_bytes, layout, why, len))
        return -1;
    const char *reason = NULL;
    if (f->direct) {
        const tb_section *calp = section(f, TB_SECTION_CELL_LAYOUT);
        if (direct_open(f, calp, section(f, TB_SECTION_CELLS), &reason)) BAD("%s", reason);
        return 0;
    }
    return layout == TB_LAYOUT_INDEX ? open_index(f, why, len) :
           layout == TB_LAYOUT_KEY ? open_keys(f, why, len) : open_runs(f, why, len);
}
#undef BAD

int tb_file_open_buffer(tb_file *f, const uint8_t *d, uint64_t size, const char *what,
                        char *err, size_t err_len)
{
    char why[160];
    f->data = d;
    f->size = size;
    if (size < TB_HEADER_BYTES || memcmp(d, TB_MAGIC, TB_MAGIC_BYTES) != 0)
        snprintf(why, sizeof why, "no " TB_MAGIC " magic");
    else if ((f->version = (int)tb_ld32(d + 8)) != TB_FORMAT_VERSION) {
        tb_seterr(err, err_len, "probe file '%s' has format version %d; this tbprobe reads "
                  "version %d (export the tables again with this tbdb: tbdb export)", what,
                  f->version, TB_FORMAT_VERSION);
        return TB_DAMAGED;
    } else if (open_header(f, why, sizeof why) == 0) {
        const tb_game_ops *game = tb_game_ops_of(f->game);
        return game->prepare ? game->prepare(f, err, err_len) : TB_OK;
    }
    tb_seterr(err, err_len, "probe file '%s' is damaged or not a probe file: %s", what, why);
    return TB_DAMAGED;
}

void tb_file_release(tb_file *f)
{
    tb_stream_close(&f->vals);
    tb_stream_close(&f->mov);
    const tb_game_ops *game = tb_game_ops_of(f->game);
    if (game && game->release) game->release(f);
}
