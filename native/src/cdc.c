/* Chinese Dark Chess: the port of tbdb.games.cdc (material, locate) and solvers/cdc/index.py
 * (index_of, canonical) and the position text of tbdb.games.cdc.position.
 *
 * A table is a canonical material (red has more pieces, then stronger ones: KGvR); its slot is
 * (side ^ swap) * size + the canonical index of the piece placement under the four board
 * symmetries; a stored move maps back through the symmetry (each is its own inverse). */
#include <stdio.h>
#include "internal.h"
#include "gen_tables.h"

#define NSQ 32
#define MAX_PIECES 5
static const char LETTERS[] = "KGMRNCP";
static const int MAX_PER_SIDE[7] = {1, 2, 2, 2, 2, 2, 5};

/* side key comparison of Material.is_canonical: (count, tuple(-t)) of sorted types */
static int side_cmp(const int *a, int na, const int *b, int nb)
{
    if (na != nb) return na < nb ? -1 : 1;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i]) return -a[i] < -b[i] ? -1 : 1;
    return 0;
}

/* desc (solvers/cdc/index.py) of a canonical material given as sorted types per side */
static void make_desc(const int *red, int nr, const int *black, int nb, int64_t *desc)
{
    int codes[MAX_PIECES * 2], n = 0;
    for (int i = 0; i < nr; i++) codes[n++] = red[i];
    for (int i = 0; i < nb; i++) codes[n++] = 7 + black[i];
    /* groups of identical codes in order of first appearance */
    int gcode[14], gcount[14], ng = 0;
    for (int i = 0; i < n; i++) {
        if (ng && gcode[ng - 1] == codes[i]) gcount[ng - 1]++;
        else { gcode[ng] = codes[i]; gcount[ng] = 1; ng++; }
    }
    int lead = -1;
    for (int g = 0; g < ng && lead < 0; g++) if (gcount[g] == 1) lead = g;
    for (int g = 0; g < ng && lead < 0; g++) if (gcount[g] == 2) lead = g;
    memset(desc, 0, 24 * sizeof *desc);
    desc[0] = n;
    desc[1] = gcount[lead] == 1 ? 0 : 1;
    desc[2] = ng;
    int j = 0, g2 = 0;
    desc[4 + g2++] = gcount[lead];
    for (int c = 0; c < gcount[lead]; c++) desc[12 + j++] = gcode[lead];
    for (int g = 0; g < ng; g++) {
        if (g == lead) continue;
        desc[4 + g2++] = gcount[g];
        for (int c = 0; c < gcount[g]; c++) desc[12 + j++] = gcode[g];
    }
}

static int64_t table_size(const int64_t *desc)
{
    int64_t size = desc[1] == 0 ? 8 : 136;
    int64_t occ = desc[4];
    for (int g = 1; g < desc[2]; g++) {
        size *= TB_BINOM[NSQ - occ][desc[4 + g]];
        occ += desc[4 + g];
    }
    return size;
}

static int64_t index_of(const int *sq, const int64_t *desc)
{
    int64_t idx;
    if (desc[1] == 0) {
        idx = CDC_DOMAIN_INDEX[sq[0]];
        if (idx < 0) return -1;
    } else {
        int a = sq[0], b = sq[1];
        if (a > b) { int t = a; a = b; b = t; }
        idx = CDC_PAIR_INDEX[a * NSQ + b];
        if (idx < 0) return -1;
    }
    int pos = (int)desc[4];
    for (int g = 1; g < desc[2]; g++) {
        int m = (int)desc[4 + g];
        int64_t rank = 0;
        for (int e = pos; e < pos + m; e++) {
            int s = sq[e], compact = s, order = 1;
            for (int f = 0; f < pos; f++) compact -= sq[f] < s;
            for (int f = pos; f < pos + m; f++) order += sq[f] < s;
            rank += TB_BINOM[compact][order];
        }
        idx = idx * TB_BINOM[NSQ - pos][m] + rank;
        pos += m;
    }
    return idx;
}

static int64_t canonical(const int *sq, const int64_t *desc, int *sym)
{
    int k = (int)desc[0], tmp[16];
    if (desc[1] == 0) {
        int s = CDC_TO_DOMAIN[sq[0]];
        for (int j = 0; j < k; j++) tmp[j] = CDC_SYM[s][sq[j]];
        *sym = s;
        return index_of(tmp, desc);
    }
    int64_t best = -1;
    *sym = 0;
    for (int s = 0; s < 4; s++) {
        for (int j = 0; j < k; j++) tmp[j] = CDC_SYM[s][sq[j]];
        int64_t idx = index_of(tmp, desc);
        if (idx >= 0 && (best < 0 || idx < best)) { best = idx; *sym = s; }
    }
    return best;
}

static int material_name(const int *red, int nr, const int *black, int nb, char *out)
{
    int n = 0;
    for (int i = 0; i < nr; i++) out[n++] = LETTERS[red[i]];
    out[n++] = 'v';
    for (int i = 0; i < nb; i++) out[n++] = LETTERS[black[i]];
    out[n] = 0;
    return n;
}

static int tb_cdc_prepare(tb_file *f, char *err, size_t err_len)
{
    int side[2][MAX_PIECES * 2], count[2] = {0, 0}, s = 0, kinds[14] = {0};
    const char *p = f->name;
    for (; *p; p++) {
        if (*p == 'v') { if (s++) break; continue; }
        const char *l = memchr(LETTERS, *p, 7);
        if (!l || count[s] >= MAX_PIECES) break;
        int t = (int)(l - LETTERS);
        if (count[s] && side[s][count[s] - 1] > t) break;   /* rank order */
        if (++kinds[s * 7 + t] > MAX_PER_SIDE[t]) break;
        side[s][count[s]++] = t;
    }
    if (*p || s != 1 || !count[0] || !count[1] || count[0] + count[1] > MAX_PIECES ||
        side_cmp(side[0], count[0], side[1], count[1]) < 0) {
        tb_seterr(err, err_len, "probe file of cdc table '%s': not a canonical CDC material", f->name);
        return TB_DAMAGED;
    }
    make_desc(side[0], count[0], side[1], count[1], f->g.cdc.desc);
    f->g.cdc.size = table_size(f->g.cdc.desc);
    if (f->layout != TB_LAYOUT_INDEX || f->slots != (uint64_t)(2 * f->g.cdc.size)) {
        tb_seterr(err, err_len, "probe file of cdc table '%s': %llu slots, expected %lld",
                  f->name, (unsigned long long)f->slots, (long long)(2 * f->g.cdc.size));
        return TB_DAMAGED;
    }
    return TB_OK;
}

int tb_probe_cdc(const tb_base *tb, const int8_t board[32], int side, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    if (side != 0 && side != 1) return tb_finish(v, TB_INVALID);
    int kinds[14] = {0}, total = 0;
    for (int s = 0; s < NSQ; s++) {
        int c = board[s];
        if (c < -1 || c > 13) return tb_finish(v, TB_INVALID);
        if (c >= 0) {
            if (++kinds[c] > MAX_PER_SIDE[c % 7]) return tb_finish(v, TB_INVALID);
            total++;
        }
    }
    int types[2][MAX_PIECES * 2], n[2] = {0, 0};
    if (total > MAX_PIECES) return tb_finish(v, TB_MISSING);
    for (int c = 0; c < 14; c++)
        for (int j = 0; j < kinds[c]; j++) types[c / 7][n[c / 7]++] = c % 7;
    if (!n[1 - side]) return tb_finish(v, TB_INVALID);     /* the side that just moved has nothing */
    if (!n[side]) {                                          /* the side to move has lost */
        v->result = TB_LOSS;
        return tb_finish(v, TB_GAME_OVER);
    }
    int swap = side_cmp(types[0], n[0], types[1], n[1]) < 0;
    char name[16];
    material_name(types[swap], n[swap], types[1 - swap], n[1 - swap], name);
    const tb_file *f = tb_find(tb, TB_CDC, name);
    if (!f) return tb_finish(v, TB_MISSING);
    const int64_t *desc = f->g.cdc.desc;
    int k = (int)desc[0], sq[16];
    for (int j = 0; j < k; j++) sq[j] = -1;
    for (int s = 0; s < NSQ; s++) {
        int code = board[s];
        if (code < 0) continue;
        if (swap) code = (1 - code / 7) * 7 + code % 7;
        for (int j = 0; j < k; j++)
            if (sq[j] < 0 && desc[12 + j] == code) { sq[j] = s; break; }
    }
    int sym;
    int64_t idx = canonical(sq, desc, &sym);
    if (idx < 0) return tb_finish(v, TB_DAMAGED);
    int st = tb_index_value(f, (uint64_t)((side ^ swap) * f->g.cdc.size + idx), v);
    if (v->move >= 0) {
        int32_t m = v->move;
        if (m >= 2048) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
        v->move = (m & 1024) | CDC_SYM[sym][(m & 1023) >> 5] << 5 | CDC_SYM[sym][m & 31];
    }
    return st;
}

/* ------------------------------------------------------------------ text */

static int tb_cdc_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    int cells[32], nr = 0;
    const char *why = NULL;
    char whybuf[96];
    size_t i = 0;
    /* four ranks, rank 4 first */
    int rank_cells[4][8];
    for (nr = 0; nr < 4; nr++) {
        int files = 0, prev_digit = 0;
        size_t start = i;
        while (i < n && t[i] != '/' && t[i] != ' ') {
            char ch = t[i];
            if (ch >= '1' && ch <= '8') {
                if (prev_digit) { why = "two digits in a row"; goto bad; }
                for (int k = 0; k < ch - '0'; k++) { if (files < 8) rank_cells[nr][files] = -1; files++; }
                prev_digit = 1;
            } else {
                char up = ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch;
                const char *l = up ? memchr(LETTERS, up, 7) : NULL;
                if (!l) {
                    char qc[16];
                    tb_quote(qc, sizeof qc, &t[i], 1);
                    snprintf(whybuf, sizeof whybuf, "unknown piece %s", qc);
                    why = whybuf;
                    goto bad;
                }
                if (files < 8) rank_cells[nr][files] = (int)(l - LETTERS) + (ch != up ? 7 : 0);
                files++;
                prev_digit = 0;
            }
            if (files > 8) break;
            i++;
        }
        if (files != 8) {
            snprintf(whybuf, sizeof whybuf, "rank %d covers %s8 files", 4 - nr,
                     files > 8 ? "more than " : "not ");
            why = whybuf;
            goto bad;
        }
        (void)start;
        if (nr < 3) {
            if (i >= n || t[i] != '/') { why = "expected 4 ranks separated by '/'"; goto bad; }
            i++;
        }
    }
    if (i + 2 != n || t[i] != ' ' || (t[i + 1] != 'r' && t[i + 1] != 'b')) {
        why = "expected 4 ranks separated by '/', a space and 'r' or 'b' (e.g. '4g2K/8/8/8 r')";
        goto bad;
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++) cells[(3 - r) * 8 + c] = rank_cells[r][c];
    /* every piece counted first, then the first kind too many (square a1 first) named with
     * its whole count, as tbdb names it */
    int kinds[14] = {0};
    for (int s = 0; s < 32; s++) {
        pos->cells[s] = (int8_t)cells[s];
        if (cells[s] >= 0) kinds[cells[s]]++;
    }
    for (int s = 0; s < 32; s++) {
        int code = cells[s];
        if (code >= 0 && kinds[code] > MAX_PER_SIDE[code % 7]) {
            tb_quote(q, sizeof q, t, n);
            char l = LETTERS[code % 7];
            tb_seterr(err, err_len, "CDC position %s has %d %c; a side has at most %d", q,
                      kinds[code], code >= 7 ? l + 32 : l, MAX_PER_SIDE[code % 7]);
            return TB_INVALID;
        }
    }
    pos->side = t[i + 1] == 'b';
    return TB_OK;
bad:
    tb_quote(q, sizeof q, t, n);
    tb_seterr(err, err_len, "malformed CDC position %s: %s", q, why);
    return TB_INVALID;
}

static int tb_cdc_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    (void)pos;
    if (move >= 2048) return TB_INVALID;
    int from = (move & 1023) >> 5, to = move & 31;
    return snprintf(buf, len, "%c%d%c%c%d", 'a' + from % 8, from / 8 + 1, move & 1024 ? 'x' : '-',
                    'a' + to % 8, to / 8 + 1);
}

static int tb_cdc_text(const tb_position *pos, tb_out *o)
{
    if (pos->side != 0 && pos->side != 1) return TB_INVALID;
    for (int row = 3; row >= 0; row--) {
        int empty = 0;
        for (int col = 0; col < 8; col++) {
            int code = pos->cells[row * 8 + col];
            if (code < -1 || code > 13) return TB_INVALID;
            if (code < 0) { empty++; continue; }
            if (empty) { tb_putn(o, empty); empty = 0; }
            tb_put(o, code < 7 ? LETTERS[code] : (char)(LETTERS[code - 7] + 32));
        }
        if (empty) tb_putn(o, empty);
        if (row) tb_put(o, '/');
    }
    tb_put(o, ' ');
    tb_put(o, "rb"[pos->side]);
    return TB_OK;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    (void)plies_left;
    return tb_probe_cdc(tb, pos->cells, pos->side, v);
}

const tb_game_ops tb_cdc_game = {
    .name = "cdc", .parse = tb_cdc_parse, .text = tb_cdc_text, .move_text = tb_cdc_move_text,
    .probe = probe_position, .prepare = tb_cdc_prepare
};
