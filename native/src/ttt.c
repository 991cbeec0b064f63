/* Tic-tac-toe: the port of solvers/tictactoe/index.py (canonical key: the smallest base-3 code
 * of the 8 images of the board) and of the text of tbdb.games.tictactoe.position.  One key
 * table, "all", keyed (code, 0, 0). */
#include <stdio.h>
#include "internal.h"
#include "gen_tables.h"

static const int LINES[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

static int has_line(const int8_t *b, int who)
{
    for (int l = 0; l < 8; l++)
        if (b[LINES[l][0]] == who && b[LINES[l][1]] == who && b[LINES[l][2]] == who) return 1;
    return 0;
}

/* what makes a board unreachable from the empty one, or NULL (TicTacToePosition.impossible) */
static const char *impossible(const int8_t *b)
{
    int xs = 0, os = 0;
    for (int i = 0; i < 9; i++) { xs += b[i] == 1; os += b[i] == 2; }
    if (xs != os && xs != os + 1) return "x and o counts (x moves first, then each in turn)";
    int x = has_line(b, 1), o = has_line(b, 2);
    if (x && o) return "both players have a line";
    if (x && xs != os + 1) return "x has a line but o has moved since";
    if (o && xs != os) return "o has a line but x has moved since";
    return NULL;
}

static int tb_ttt_prepare(tb_file *f, char *err, size_t err_len)
{
    if (strcmp(f->name, "all") != 0 || f->layout != TB_LAYOUT_KEY) {
        tb_seterr(err, err_len, "probe file of tictactoe table '%s': not the key table 'all'", f->name);
        return TB_DAMAGED;
    }
    return TB_OK;
}

int tb_probe_tictactoe(const tb_base *tb, const int8_t cells[9], tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    for (int i = 0; i < 9; i++)
        if (cells[i] < 0 || cells[i] > 2) return tb_finish(v, TB_INVALID);
    if (impossible(cells)) return tb_finish(v, TB_INVALID);
    const tb_file *f = tb_find(tb, TB_TICTACTOE, "all");
    if (!f) return tb_finish(v, TB_MISSING);
    int64_t best = -1;
    int sym = 0;
    static const int64_t POW3[9] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};
    for (int s = 0; s < 8; s++) {
        int64_t code = 0;
        for (int i = 0; i < 9; i++) code += cells[i] * POW3[TTT_SYM[s][i]];
        if (best < 0 || code < best) { best = code; sym = s; }
    }
    int st = tb_key_value(f, best, 0, 0, v);
    if (st == TB_MISSING) return tb_finish(v, TB_DAMAGED);   /* every reachable board is stored */
    if (v->move >= 0) {
        if (v->move > 8) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
        v->move = TTT_SYM[TTT_INVERSE[sym]][v->move];
    }
    return st;
}

static int tb_ttt_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    int ok = n == 9;
    for (size_t i = 0; ok && i < 9; i++) {
        const char *c = t[i] ? memchr(".xo", t[i], 3) : NULL;
        if (!c) ok = 0;
        else pos->cells[i] = (int8_t)(c - ".xo");
    }
    if (!ok) {
        tb_quote(q, sizeof q, t, n);
        tb_seterr(err, err_len, "malformed tic-tac-toe position %s: expected nine cells of 'x', 'o' "
                  "or '.', row by row (e.g. 'x...o....')", q);
        return TB_INVALID;
    }
    const char *why = impossible(pos->cells);
    if (why) {
        tb_quote(q, sizeof q, t, n);
        tb_seterr(err, err_len, "tic-tac-toe position %s cannot arise: %s", q, why);
        return TB_INVALID;
    }
    return TB_OK;
}

static int tb_ttt_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    (void)pos;
    if (move > 8) return TB_INVALID;
    return snprintf(buf, len, "%d", move);
}

static int tb_ttt_text(const tb_position *pos, tb_out *o)
{
    for (int c = 0; c < 9; c++) {
        if (pos->cells[c] < 0 || pos->cells[c] > 2) return TB_INVALID;
        tb_put(o, ".xo"[pos->cells[c]]);
    }
    return TB_OK;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    (void)plies_left;
    return tb_probe_tictactoe(tb, pos->cells, v);
}

const tb_game_ops tb_ttt_game = {
    .name = "tictactoe", .parse = tb_ttt_parse, .text = tb_ttt_text,
    .move_text = tb_ttt_move_text, .probe = probe_position, .prepare = tb_ttt_prepare
};
