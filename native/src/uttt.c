/* Ultimate Tic-Tac-Toe: the port of solvers/uttt (batch._row_state, levels.legal, keys:
 * board codes and canonical_codes; moves.game_over and terminal_value) and of the position
 * text of tbdb.games.uttt.position.
 *
 * A position is stored in the key table "<scoring>/positions" under its exact canonical key
 * (word0, word1, constraint of the canonical image), the smallest of its eight images' keys.
 * The board-code tables (260 KB) are computed once per base, when its first uttt file is
 * added, rather than compiled in. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "gen_tables.h"

#define FIRST_OPEN 3
#define C4_HI 584
#define C4_LO 19
#define FULL 511

struct tb_uttt_tables {
    int32_t tern[512];
    int16_t code_of_tern[19683];
    int16_t open_x[UTTT_R], open_o[UTTT_R];
    int16_t sym_code[8][UTTT_R];
};

static int popcount9(int m) { int n = 0; for (; m; m &= m - 1) n++; return n; }

static int permute(int mask, const int8_t *perm)
{
    int out = 0;
    for (int c = 0; c < 9; c++) out |= ((mask >> c) & 1) << perm[c];
    return out;
}

size_t tb_uttt_tables_size(void) { return sizeof(tb_uttt_tables); }

tb_uttt_tables *tb_uttt_tables_new(void)
{
    tb_uttt_tables *t = malloc(sizeof *t);
    if (!t) return NULL;
    for (int m = 0; m < 512; m++) {
        int32_t v = 0, p = 1;
        for (int c = 0; c < 9; c++, p *= 3) if ((m >> c) & 1) v += p;
        t->tern[m] = v;
    }
    int n = FIRST_OPEN;
    for (int i = 0; i < FIRST_OPEN; i++) t->open_x[i] = t->open_o[i] = 0;
    for (int v = 0; v < 19683; v++) {
        int xm = 0, om = 0, r = v;
        for (int c = 0; c < 9; c++, r /= 3) {
            if (r % 3 == 1) xm |= 1 << c;
            else if (r % 3 == 2) om |= 1 << c;
        }
        if (!UTTT_HAS_LINE[xm] && !UTTT_HAS_LINE[om] && (xm | om) != FULL) {
            t->code_of_tern[v] = (int16_t)n;
            t->open_x[n] = (int16_t)xm;
            t->open_o[n] = (int16_t)om;
            n++;
        } else {
            t->code_of_tern[v] = -1;
        }
    }
    for (int g = 0; g < 8; g++)
        for (int code = 0; code < UTTT_R; code++)
            t->sym_code[g][code] = code < FIRST_OPEN ? (int16_t)code :
                t->code_of_tern[t->tern[permute(t->open_x[code], UTTT_SYM[g])] +
                                2 * t->tern[permute(t->open_o[code], UTTT_SYM[g])]];
    return t;
}

/* ------------------------------------------------------------------ legality (levels.legal) */

static int in_sum(int target, int lo, int hi, int dense)
{
    if (target < lo || target > hi) return 0;
    return dense || (target - lo) % 2 == 0;
}

static int con_fits(int con, int closed, int c)
{
    if ((closed >> c) & 1) return con < 0;
    return con == c;
}

static int legal(const tb_uttt_tables *t, const int *codes, int side, int con)
{
    int closed = 0, won_x = 0, won_o = 0, open_diff = 0, marks = 0, lo = 0, hi = 0, dense = 0;
    for (int b = 0; b < 9; b++) {
        int c = codes[b];
        if (c < FIRST_OPEN) {
            closed |= 1 << b;
            if (c == 0) won_x |= 1 << b;
            else if (c == 1) won_o |= 1 << b;
            lo += UTTT_CLOSED_LO[c];
            hi += UTTT_CLOSED_HI[c];
            if (UTTT_CLOSED_STEP[c] == 1) dense++;
        } else {
            open_diff += popcount9(t->open_x[c]) - popcount9(t->open_o[c]);
            marks += popcount9(t->open_x[c] | t->open_o[c]);
        }
    }
    if (closed == 0 && marks == 0) return side == 0 && con < 0;
    if (con >= 0 && ((closed >> con) & 1)) return 0;
    int mover = side == 0 ? won_x : won_o, theirs = side == 0 ? won_o : won_x;
    if (UTTT_HAS_LINE[mover]) return 0;
    int last = 1 - side, lines = UTTT_HAS_LINE[theirs], target = side - open_diff;
    for (int b = 0; b < 9; b++) {
        int s = codes[b];
        if (s >= FIRST_OPEN) {
            if (lines || !in_sum(target, lo, hi, dense > 0)) continue;
            int mine = last == 0 ? t->open_x[s] : t->open_o[s];
            for (int c = 0; c < 9; c++)
                if (((mine >> c) & 1) && con_fits(con, closed, c)) return 1;
            continue;
        }
        if (s != last && s != 2) continue;
        if (lines && (s != last || UTTT_HAS_LINE[theirs & ~(1 << b)])) continue;
        int rest_lo = lo - UTTT_CLOSED_LO[s], rest_hi = hi - UTTT_CLOSED_HI[s];
        int rest_dense = dense - (UTTT_CLOSED_STEP[s] == 1);
        for (int c = 0; c < 9; c++) {
            if (UTTT_LAST_STEP[s][last][c] < 0 || !con_fits(con, closed, c)) continue;
            if (in_sum(target, rest_lo + UTTT_LAST_LO[s][last][c], rest_hi + UTTT_LAST_HI[s][last][c],
                       rest_dense > 0 || UTTT_LAST_STEP[s][last][c] == 1))
                return 1;
        }
    }
    return 0;
}

/* a line that one move made: some mark whose removal leaves no line (batch._closing_ok) */
static int closing_ok(int mine)
{
    for (int c = 0; c < 9; c++)
        if (((mine >> c) & 1) && !UTTT_HAS_LINE[mine & ~(1 << c)]) return 1;
    return 0;
}

int tb_probe_uttt(const tb_base *tb, const int8_t cells[81], int side, int constraint, int scoring,
                  tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    const tb_uttt_tables *t = tb->uttt;
    if (side < 0 || side > 1 || constraint < -1 || constraint > 8 || scoring < 0 || scoring > 1)
        return tb_finish(v, TB_INVALID);
    /* batch._row_state: the boards' masks and statuses */
    int xm[9] = {0}, om[9] = {0}, won_x = 0, won_o = 0, closed = 0, by_status = 0, diff = 0;
    for (int b = 0; b < 9; b++) {
        int first = cells[9 * b];
        if (first >= 3) {
            for (int c = 0; c < 9; c++) if (cells[9 * b + c] != first) return tb_finish(v, TB_INVALID);
            if (first > 5) return tb_finish(v, TB_INVALID);
            closed |= 1 << b;
            by_status = 1;
            if (first == 3) won_x |= 1 << b;
            else if (first == 4) won_o |= 1 << b;
            continue;
        }
        for (int c = 0; c < 9; c++) {
            int x = cells[9 * b + c];
            if (x == 1) xm[b] |= 1 << c;
            else if (x == 2) om[b] |= 1 << c;
            else if (x != 0) return tb_finish(v, TB_INVALID);
        }
        int hx = UTTT_HAS_LINE[xm[b]], ho = UTTT_HAS_LINE[om[b]];
        if ((hx && ho) || (hx && !closing_ok(xm[b])) || (ho && !closing_ok(om[b])))
            return tb_finish(v, TB_INVALID);
        diff += popcount9(xm[b]) - popcount9(om[b]);
        if (hx) { won_x |= 1 << b; closed |= 1 << b; }
        else if (ho) { won_o |= 1 << b; closed |= 1 << b; }
        else if ((xm[b] | om[b]) == FULL) closed |= 1 << b;
    }
    if (!by_status && diff != side) return tb_finish(v, TB_INVALID);
    if (!t) return tb_finish(v, TB_MISSING);     /* no uttt file: no code tables either */
    int codes[9];
    for (int b = 0; b < 9; b++) {
        if ((closed >> b) & 1) codes[b] = (won_x >> b) & 1 ? 0 : (won_o >> b) & 1 ? 1 : 2;
        else codes[b] = t->code_of_tern[t->tern[xm[b]] + 2 * t->tern[om[b]]];
    }
    if (!legal(t, codes, side, constraint)) return tb_finish(v, TB_INVALID);
    /* moves.game_over / terminal_value */
    if (UTTT_HAS_LINE[won_x] || UTTT_HAS_LINE[won_o] || closed == FULL) {
        int me = side == 0 ? won_x : won_o, them = side == 0 ? won_o : won_x;
        v->result = UTTT_HAS_LINE[them] ? -1 : UTTT_HAS_LINE[me] ? 1 : 0;
        if (!v->result && scoring == 1) {
            int a = popcount9(me), c = popcount9(them);
            v->result = a > c ? 1 : a < c ? -1 : 0;
        }
        return tb_finish(v, TB_GAME_OVER);
    }
    /* keys.canonical_codes */
    const int64_t r = UTTT_R;
    int64_t best0 = -1, best1 = -1;
    int best_g = 0;
    for (int g = 0; g < 8; g++) {
        const int8_t *inv = UTTT_INV_SYM[g];
        const int16_t *sc = t->sym_code[g];
        int64_t c4 = sc[codes[inv[4]]];
        int64_t w0 = sc[codes[inv[0]]];
        w0 = w0 * r + sc[codes[inv[1]]];
        w0 = w0 * r + sc[codes[inv[2]]];
        w0 = w0 * r + sc[codes[inv[3]]];
        w0 = w0 * C4_HI + c4 / C4_LO;
        if (best0 >= 0 && w0 > best0) continue;
        int64_t w1 = c4 % C4_LO;
        w1 = w1 * r + sc[codes[inv[5]]];
        w1 = w1 * r + sc[codes[inv[6]]];
        w1 = w1 * r + sc[codes[inv[7]]];
        w1 = w1 * r + sc[codes[inv[8]]];
        w1 = w1 * 20 + side * 10 + (constraint < 0 ? 9 : UTTT_SYM[g][constraint]);
        if (best0 < 0 || w0 < best0 || w1 < best1) { best0 = w0; best1 = w1; best_g = g; }
    }
    int64_t k = best1 % 10;
    const tb_file *f = tb_find(tb, TB_UTTT, scoring ? "codingame/positions" : "standard/positions");
    if (!f) return tb_finish(v, TB_MISSING);
    int st = tb_key_value(f, best0, best1, k == 9 ? -1 : k, v);
    if (v->move >= 0) {
        if (v->move > 80) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
        v->move = 9 * UTTT_INV_SYM[best_g][v->move / 9] + UTTT_INV_SYM[best_g][v->move % 9];
    }
    return st;
}

/* ------------------------------------------------------------------ text */

static int tb_uttt_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    static const char START[] = "start";
    if (n == 5 && memcmp(t, START, 5) == 0) {
        memset(pos->cells, 0, 81);
        pos->side = 0;
        pos->constraint = -1;
        return TB_OK;
    }
    if (n != 85 || t[81] != ' ' || (t[82] != 'x' && t[82] != 'o') || t[83] != ' ' ||
        !((t[84] >= '0' && t[84] <= '8') || t[84] == '-')) {
        tb_quote(q, sizeof q, t, n);
        tb_seterr(err, err_len, "malformed uttt position %s: expected 81 characters 'x', 'o' or '.' "
                  "(board-major), a space, the side to move 'x' or 'o', a space and the board to "
                  "play in '0'-'8' or '-' (or 'start')", q);
        return TB_INVALID;
    }
    for (int b = 0; b < 9; b++) {
        const char *block = t + 9 * b;
        int status = 0;
        if (memcmp(block, "XXXXXXXXX", 9) == 0) status = 3;
        else if (memcmp(block, "OOOOOOOOO", 9) == 0) status = 4;
        else if (memcmp(block, "DDDDDDDDD", 9) == 0) status = 5;
        for (int c = 0; c < 9; c++) {
            if (status) { pos->cells[9 * b + c] = (int8_t)status; continue; }
            const char *s = block[c] ? memchr(".xo", block[c], 3) : NULL;
            if (!s) {
                char qb[32];
                tb_quote(q, sizeof q, t, n);
                tb_quote(qb, sizeof qb, block, 9);
                tb_seterr(err, err_len, "malformed uttt position %s: small board %d is %s; cells are "
                          "'x', 'o' or '.', and a closed board may be written XXXXXXXXX, OOOOOOOOO "
                          "or DDDDDDDDD", q, b, qb);
                return TB_INVALID;
            }
            pos->cells[9 * b + c] = (int8_t)(s - ".xo");
        }
    }
    pos->side = t[82] == 'o';
    pos->constraint = t[84] == '-' ? -1 : t[84] - '0';
    return TB_OK;
}

static int tb_uttt_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    (void)pos;
    if (move > 80) return TB_INVALID;
    return snprintf(buf, len, "%d:%d", move / 9, move % 9);
}

static int tb_uttt_text(const tb_position *pos, tb_out *o)
{
    if ((pos->side != 0 && pos->side != 1) || pos->constraint < -1 || pos->constraint > 8)
        return TB_INVALID;
    for (int c = 0; c < 81; c++) {
        if (pos->cells[c] < 0 || pos->cells[c] > 5) return TB_INVALID;
        tb_put(o, ".xoXOD"[pos->cells[c]]);
    }
    tb_put(o, ' ');
    tb_put(o, "xo"[pos->side]);
    tb_put(o, ' ');
    tb_put(o, pos->constraint < 0 ? '-' : (char)('0' + pos->constraint));
    return TB_OK;
}

/* a probe reads the base's board-code tables before it names its table: made with the base's
 * first UTTT file (or entry, a lazy base's) */
static int base_tables(tb_base *tb)
{
    return tb->uttt || (tb->uttt = tb_uttt_tables_new()) ? TB_OK : TB_NOMEM;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    (void)plies_left;
    return tb_probe_uttt(tb, pos->cells, pos->side, pos->constraint, pos->scoring, v);
}

const tb_game_ops tb_uttt_game = {
    .name = "uttt", .parse = tb_uttt_parse, .text = tb_uttt_text,
    .move_text = tb_uttt_move_text, .probe = probe_position, .base_tables = base_tables
};
