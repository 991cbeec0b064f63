/* Oware (Abapa): the port of solvers/oware/index.rank (lexicographic rank among the
 * compositions of the same seed count) and of the run lookup (solvers/lookup.run_value), with
 * the text of tbdb.games.oware.position.  Book "seeds-NN" holds the positions of NN seeds; a
 * position's runs tile 1..horizon plies left, each with a net score and best house. */
#include <stdio.h>
#include "internal.h"
#include "gen_tables.h"

#define HOUSES 12
#define TOTAL_SEEDS 48
#define MAX_SOLVE_N 18
#define MAX_T 200

/* the run of slot idx covering plies_left.  The offsets were checked when the file was opened,
 * but are read again from the mapping here: a file changed since may hold any, so each is
 * bounded by the runs (tb_settle then refuses the value) */
static int runs_value(const tb_file *f, uint64_t idx, int plies_left, tb_value *v)
{
    uint64_t lo = tb_ld64(f->roff + 8 * idx), hi = tb_ld64(f->roff + 8 * (idx + 1));
    if (lo >= hi || hi > f->rows) return tb_finish(v, TB_DAMAGED);   /* no runs: not stored */
    while (hi - lo > 1) {                                          /* the last run starting <= plies */
        uint64_t mid = lo + (hi - lo) / 2;
        if ((int16_t)tb_ld16(f->rsta + 2 * mid) <= plies_left) lo = mid; else hi = mid;
    }
    v->score = (int8_t)f->rsco[lo];
    v->result = v->score > 0 ? TB_WIN : v->score < 0 ? TB_LOSS : TB_DRAW;
    v->move = (int8_t)f->rmov[lo];
    if (v->move > 5) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
    return tb_finish(v, TB_OK);
}

int tb_probe_oware(const tb_base *tb, const int8_t houses[12], int plies_left, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    int r = 0;
    for (int i = 0; i < HOUSES; i++) {
        if (houses[i] < 0 || houses[i] > TOTAL_SEEDS) return tb_finish(v, TB_INVALID);
        r += houses[i];
    }
    if (r > TOTAL_SEEDS || plies_left < 0 || plies_left > MAX_T) return tb_finish(v, TB_INVALID);
    if (plies_left == 0) return tb_finish(v, TB_GAME_OVER);      /* nothing left to gain */
    if (r > MAX_SOLVE_N) return tb_finish(v, TB_MISSING);
    char name[24];
    snprintf(name, sizeof name, "seeds-%02d", r);
    const tb_file *f = tb_find(tb, TB_OWARE, name);
    if (!f || f->layout != TB_LAYOUT_RUNS) return tb_finish(v, TB_MISSING);
    int64_t idx = 0;
    for (int i = 0; i < HOUSES - 1; i++) {
        int k = HOUSES - 1 - i, a = houses[i];
        idx += OWARE_F[k][r] - OWARE_F[k][r - a];
        r -= a;
    }
    if ((uint64_t)idx >= f->slots) return tb_finish(v, TB_DAMAGED);
    return tb_settle(f, v, runs_value(f, (uint64_t)idx, plies_left, v));
}

static int tb_oware_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    size_t i = 0;
    int sum = 0;
    for (int h = 0; h < HOUSES; h++) {
        int x = 0, digits = 0;
        if (h && (i >= n || t[i++] != ' ')) goto bad;
        if (i < n && t[i] == '0') { i++; digits = 1; }             /* no leading zeros */
        else while (i < n && t[i] >= '0' && t[i] <= '9' && digits < 2) { x = x * 10 + t[i++] - '0'; digits++; }
        if (!digits) goto bad;
        pos->cells[h] = (int8_t)x;
        sum += x;
    }
    if (i != n) goto bad;
    if (sum > TOTAL_SEEDS) {
        tb_quote(q, sizeof q, t, n);
        tb_seterr(err, err_len, "Oware position %s holds %d seeds; a game has %d", q, sum, TOTAL_SEEDS);
        return TB_INVALID;
    }
    return TB_OK;
bad:
    tb_quote(q, sizeof q, t, n);
    tb_seterr(err, err_len, "malformed Oware position %s: expected 12 non-negative integers separated "
              "by single spaces, the mover's houses 0-5 first (e.g. '0 0 0 0 0 1 0 0 0 0 0 0')", q);
    return TB_INVALID;
}

static int tb_oware_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    (void)pos;
    if (move > 5) return TB_INVALID;
    return snprintf(buf, len, "%d", move);
}

static int tb_oware_text(const tb_position *pos, tb_out *o)
{
    for (int h = 0; h < HOUSES; h++) {
        if (pos->cells[h] < 0 || pos->cells[h] > TOTAL_SEEDS) return TB_INVALID;
        if (h) tb_put(o, ' ');
        tb_putn(o, pos->cells[h]);
    }
    return TB_OK;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    return tb_probe_oware(tb, pos->cells, plies_left < 0 ? 200 : plies_left, v);
}

const tb_game_ops tb_oware_game = {
    .name = "oware", .parse = tb_oware_parse, .text = tb_oware_text,
    .move_text = tb_oware_move_text, .probe = probe_position
};
