/* Chinese Checkers on the small stars (13, 37 and 73 holes) as coalition games: the port of
 * solvers/chinese_checkers/star_index.py (rank_placement), of the position text and moves of
 * tbdb.games.chinese_checkers.small_star and of the lookups of star_tables.py.
 *
 * Table "star{H}-{N}-{M}-lone{L}": slot = rank(placement) * N + mover - 1, values from the
 * side of the player to move.  Lone player L' is answered from the stored lone player L (1, or
 * 1 and 2 with four players) on the board turned back by L' - L seats.  Move codes: from * 64
 * + to, 4096 the pass. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "gen_tables.h"
#include "cc_star.h"

#define RADIX 64
#define PASS_CODE 4096
#define MAX_CELLS 73
#define MAX_PLAYERS 6

static const int SEATS[7][6] = {{0}, {0}, {0, 3}, {0, 2, 4}, {0, 1, 3, 4}, {0}, {0, 1, 2, 3, 4, 5}};

static int star_k(int holes) { return holes == 13 ? 1 : holes == 37 ? 2 : holes == 73 ? 3 : 0; }
static int cells_of(int k) { return 6 * k * k + 6 * k + 1; }
static int valid_players(int n) { return n == 2 || n == 3 || n == 4 || n == 6; }
static int stored_lone(int n, int lone) { return n == 4 ? (lone - 1) % 2 + 1 : 1; }

/* the regions of the star of size k for n players into t: each cell's (0 the hexagon, then one
 * per point some player uses, by point; -1 an unused point), each player's three (hexagon,
 * start, goal), a region's players in ascending order and its cells */
static void layout_of(tb_star_table *t, int k, int n)
{
    int used[6] = {0}, region_of_point[6], regions = 1;
    for (int p = 0; p < n; p++) used[SEATS[n][p]] = used[(SEATS[n][p] + 3) % 6] = 1;
    for (int q = 0; q < 6; q++) region_of_point[q] = used[q] ? regions++ : -1;
    t->regions = regions;
    for (int r = 0; r < regions; r++) {
        t->size[r] = t->nplayers[r] = 0;
        for (int p = 0; p < MAX_PLAYERS; p++) t->slot_of[r][p] = -1;
    }
    for (int c = 0; c < cells_of(k); c++) {
        int q = SMALL_STAR_POINT[k][c], r = q < 0 ? 0 : region_of_point[q];
        t->cell_region[c] = (int8_t)r;
        if (r >= 0) t->cells[r][t->size[r]++] = (int8_t)c;
    }
    for (int p = 0; p < n; p++) {
        int own[3] = {0, region_of_point[SEATS[n][p]], region_of_point[(SEATS[n][p] + 3) % 6]};
        for (int j = 0; j < 3; j++) {
            t->player_regions[p][j] = (int8_t)own[j];
            if (t->slot_of[own[j]][p] < 0) t->slot_of[own[j]][p] = (int8_t)t->nplayers[own[j]]++;
        }
    }
}

static int64_t binom(int a, int b)
{
    if (b < 0 || b > a) return 0;
    int64_t r = 1;
    for (int i = 1; i <= b; i++) r = r * (a - b + i) / i;
    return r;
}

/* the number of a composition (a0, a1, m - a0 - a1) in the order (0,0), (0,1), .., (1,0), .. */
static int comp_id(int m, int a0, int a1)
{
    int id = 0;
    for (int a = 0; a < a0; a++) id += m - a + 1;
    return id + a1;
}

int tb_star_prepare(tb_file *f, int holes, int n, int m, char *err, size_t err_len)
{
    tb_star_table *t = &f->g.star;
    int k = star_k(holes);
    layout_of(t, k, n);
    int ncomp = (m + 1) * (m + 2) / 2;
    int64_t vectors = 1;
    for (int p = 0; p < n; p++) vectors *= ncomp;
    t->offsets = malloc((size_t)(vectors + 1) * sizeof *t->offsets);
    if (!t->offsets) { tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
    t->vectors = vectors;
    t->offsets[0] = 0;
    int comp[MAX_PLAYERS];
    for (int64_t v = 0; v < vectors; v++) {
        int64_t rest = v, ways = 1;
        for (int p = n - 1; p >= 0; p--) { comp[p] = (int)(rest % ncomp); rest /= ncomp; }
        int parts[7][MAX_PLAYERS], np[7] = {0};
        for (int p = 0; p < n; p++) {
            int a0 = 0, c = comp[p];   /* comp_id's inverse */
            while (c >= m - a0 + 1) { c -= m - a0 + 1; a0++; }
            int a[3] = {a0, c, m - a0 - c};
            for (int j = 0; j < 3; j++) {
                int r = t->player_regions[p][j];
                parts[r][np[r]++] = a[j];
            }
        }
        for (int r = 0; r < t->regions && ways; r++) {
            int free = t->size[r];
            for (int j = 0; j < np[r]; j++) { ways *= binom(free, parts[r][j]); free -= parts[r][j]; }
            if (free < 0) ways = 0;
        }
        t->offsets[v + 1] = t->offsets[v] + ways;
    }
    t->holes = holes; t->k = k; t->players = n; t->marbles = m;
    if (f->layout != TB_LAYOUT_INDEX || f->slots != (uint64_t)t->offsets[vectors] * (uint64_t)n) {
        tb_seterr(err, err_len, "probe file of chinese-checkers table '%s': %llu slots, expected %llu",
                  f->name, (unsigned long long)f->slots,
                  (unsigned long long)t->offsets[vectors] * (unsigned long long)n);
        free(t->offsets);
        t->offsets = NULL;
        return TB_DAMAGED;
    }
    return TB_OK;
}

void tb_star_release(tb_file *f)
{
    free(f->g.star.offsets);
    f->g.star.offsets = NULL;
}

uint64_t tb_star_heap_bytes(const tb_file *f)
{
    return f->g.star.offsets ? 8 * (uint64_t)(f->g.star.vectors + 1) : 0;
}

/* star_index.rank_placement: -1 if a marble rests where its player may not or a player has
 * other than m marbles */
static int64_t rank_placement(const tb_star_table *t, const int8_t *cells)
{
    int k = t->k, n = t->players, m = t->marbles;
    int counts[MAX_PLAYERS][3] = {{0}};
    for (int c = 0; c < cells_of(k); c++) {
        int p = cells[c];
        if (!p) continue;
        int r = t->cell_region[c], j = 0;
        if (r < 0) return -1;
        while (j < 3 && t->player_regions[p - 1][j] != r) j++;
        if (j == 3) return -1;
        counts[p - 1][j]++;
    }
    int ncomp = (m + 1) * (m + 2) / 2;
    int64_t vid = 0, within = 0;
    for (int p = 0; p < n; p++) {
        if (counts[p][0] + counts[p][1] + counts[p][2] != m) return -1;
        vid = vid * ncomp + comp_id(m, counts[p][0], counts[p][1]);
    }
    for (int r = 0; r < t->regions; r++) {
        int free = t->size[r];
        for (int j = 0; j < t->nplayers[r]; j++) {
            int a = 0, fi = 0;
            int64_t rank = 0;
            for (int i = 0; i < t->size[r]; i++) {
                int q = cells[t->cells[r][i]], at = q > 0 ? t->slot_of[r][q - 1] : -1;
                if (q > 0 && at >= 0 && at < j) continue;   /* taken by a player before */
                if (q > 0 && at == j) rank += binom(fi, ++a);
                fi++;
            }
            within = within * binom(free, a) + rank;
            free -= a;
        }
    }
    return t->offsets[vid] + within;
}

/* where cell c goes when the board turns clockwise by `shift` seats of n players */
static int turn_cell(int k, int n, int shift, int c)
{
    int steps = ((6 * shift / n) % 6 + 6) % 6;
    for (int s = 0; s < steps; s++) c = SMALL_STAR_ROTATE[k][c];
    return c;
}

/* 'over' (the last mover has every marble on its goal), 'illegal' (another player has) */
enum { PLAYING = 0, OVER = 1, ILLEGAL_POSITION = 2 };

static int status_of(int k, int n, const int8_t *cells, int mover)
{
    int last = (mover - 2 + n) % n + 1, out = PLAYING;
    for (int p = 1; p <= n; p++) {
        int goal = (SEATS[n][p - 1] + 3) % 6, won = 1;
        for (int c = 0; c < cells_of(k); c++)
            if (cells[c] == p && SMALL_STAR_POINT[k][c] != goal) { won = 0; break; }
        if (won) {
            if (p != last) return ILLEGAL_POSITION;
            out = OVER;
        }
    }
    return out;
}

static int may_rest(int k, int n, int p, int c)
{
    int q = SMALL_STAR_POINT[k][c], seat = SEATS[n][p - 1];
    return q < 0 || q == seat || q == (seat + 3) % 6;
}

/* whether player p has a move: a step, or a chain of hops (the marble lifted, through any
 * cell) ending on another cell where p may rest */
static int has_move(int k, int n, const int8_t *cells, int p)
{
    int total = cells_of(k);
    for (int s = 0; s < total; s++) {
        if (cells[s] != p) continue;
        int8_t lifted[MAX_CELLS];
        uint8_t seen[MAX_CELLS] = {0};
        int stack[MAX_CELLS], top = 1;
        memcpy(lifted, cells, (size_t)total);
        lifted[s] = 0;
        seen[s] = 1;
        stack[0] = s;
        for (int d = 0; d < 6; d++) {
            int t = SMALL_STAR_NBR[k][s][d];
            if (t >= 0 && !lifted[t] && may_rest(k, n, p, t)) return 1;
        }
        while (top > 0) {
            int u = stack[--top];
            for (int d = 0; d < 6; d++) {
                int o = SMALL_STAR_NBR[k][u][d];
                int t = o >= 0 && lifted[o] ? SMALL_STAR_NBR[k][o][d] : -1;
                if (t < 0 || lifted[t] || seen[t]) continue;
                if (may_rest(k, n, p, t)) return 1;
                seen[t] = 1;
                stack[top++] = t;
            }
        }
    }
    return 0;
}

int tb_probe_cc_star(const tb_base *tb, int holes, int players, const int8_t *cells, int mover,
                     int lone, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    int k = star_k(holes), n = players;
    if (!k || !valid_players(n) || mover < 1 || mover > n || lone < 1 || lone > n)
        return tb_finish(v, TB_INVALID);
    int count[MAX_PLAYERS + 1] = {0};
    for (int c = 0; c < cells_of(k); c++) {
        if (cells[c] < 0 || cells[c] > n) return tb_finish(v, TB_INVALID);
        if (cells[c] && !may_rest(k, n, cells[c], c)) return tb_finish(v, TB_INVALID);
        count[cells[c]]++;
    }
    int m = count[1];
    for (int p = 2; p <= n; p++)
        if (count[p] != m) return tb_finish(v, TB_INVALID);
    if (m < 1 || m > k * (k + 1) / 2) return tb_finish(v, TB_INVALID);
    /* a finished game is in the table too (its winner's side won, at distance 0) */
    if (status_of(k, n, cells, mover) == ILLEGAL_POSITION) return tb_finish(v, TB_ILLEGAL);
    int stored = stored_lone(n, lone), shift = lone - stored;
    char name[TB_NAME_MAX];
    snprintf(name, sizeof name, "star%d-%d-%d-lone%d", holes, n, m, stored);
    const tb_file *f = tb_find(tb, TB_CHINESE_CHECKERS, name);
    if (!f) return tb_finish(v, TB_MISSING);
    int8_t turned[MAX_CELLS];
    const int8_t *board = cells;
    if (shift) {   /* the board turned back by `shift` seats, each player p renamed p - shift */
        memset(turned, 0, sizeof turned);
        for (int c = 0; c < cells_of(k); c++)
            if (cells[c]) turned[turn_cell(k, n, -shift, c)] = (int8_t)((cells[c] - 1 - shift + n) % n + 1);
        board = turned;
    }
    int64_t rank = rank_placement(&f->g.star, board);
    if (rank < 0) return tb_finish(v, TB_INVALID);
    int turned_mover = (mover - 1 - shift + n) % n + 1;
    int s = tb_index_value(f, (uint64_t)rank * (uint64_t)n + (uint64_t)(turned_mover - 1), v);
    if (v->move >= 0 && v->move != PASS_CODE) {
        int from = v->move / RADIX, to = v->move % RADIX;
        if (v->move >= RADIX * RADIX || from >= cells_of(k) || to >= cells_of(k)) {
            v->move = -1;
            return tb_finish(v, TB_DAMAGED);
        }
        v->move = turn_cell(k, n, shift, from) * RADIX + turn_cell(k, n, shift, to);
    } else if (v->move == PASS_CODE && has_move(k, n, cells, mover)) {
        v->move = -1;
        return tb_finish(v, TB_DAMAGED);
    }
    return s;
}

/* ------------------------------------------------------------------ text */

/* "star{H}-{N} rows mover" (tbdb.games.chinese_checkers.small_star.SmallStarPosition.text) */
int tb_star_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    tb_quote(q, sizeof q, t, n);
    int holes = 0, players = 0;
    const char *sp1 = memchr(t, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(t + n - sp1 - 1)) : NULL;
    if (n > 8 && sp1 == t + 8 && t[6] == '-') {
        holes = (t[4] - '0') * 10 + (t[5] - '0');
        players = t[7] - '0';
    }
    if (!star_k(holes) || !sp2 || t + n != sp2 + 2 || sp2[1] < '1' || sp2[1] > '6' ||
        players < 1 || players > 9) {
        tb_seterr(err, err_len, "malformed Chinese Checkers star position %s: expected 'starH-N' "
                  "(H holes: 13, 37 or 73; N players), the rows from the top tip joined by '/', and "
                  "the player to move", q);
        return TB_INVALID;
    }
    if (!valid_players(players)) {
        tb_seterr(err, err_len, "star position %s: the star is played by [2, 3, 4, 6] players, not %d",
                  q, players);
        return TB_INVALID;
    }
    int k = star_k(holes), mover = sp2[1] - '0';
    if (mover > players) {
        tb_seterr(err, err_len, "star position %s: no player %d among %d", q, mover, players);
        return TB_INVALID;
    }
    const char *s = sp1 + 1;
    int rows = 4 * k + 1, cell = 0, count[7] = {0};
    for (int row = 0; row < rows; row++) {
        int len = SMALL_STAR_ROW_LENGTHS[k][row], got = 0;
        while (s < sp2 && *s != '/') {
            const char *sym = *s ? memchr(".123456", *s, (size_t)players + 1) : NULL;
            if (!sym) {
                char qc[16];
                tb_quote(qc, sizeof qc, s, 1);
                tb_seterr(err, err_len, "malformed Chinese Checkers star position %s: unknown cell %s",
                          q, qc);
                return TB_INVALID;
            }
            if (got < len) pos->cells[cell + got] = (int8_t)(sym - ".123456");
            got++;
            s++;
        }
        if (got != len) {
            tb_seterr(err, err_len, "malformed Chinese Checkers star position %s: row %d has %d cells, "
                      "expected %d", q, row + 1, got, len);
            return TB_INVALID;
        }
        for (int i = 0; i < len; i++) count[pos->cells[cell + i]]++;
        cell += len;
        if (row < rows - 1) {
            if (s >= sp2) {
                tb_seterr(err, err_len, "malformed Chinese Checkers star position %s: %d rows, "
                          "expected %d", q, row + 1, rows);
                return TB_INVALID;
            }
            s++;
        }
    }
    if (s != sp2) {
        tb_seterr(err, err_len, "malformed Chinese Checkers star position %s: more than %d rows", q, rows);
        return TB_INVALID;
    }
    for (int p = 2; p <= players; p++)
        if (count[p] != count[1] || count[1] < 1 || count[1] > k * (k + 1) / 2) {
            tb_seterr(err, err_len, "star position %s: the players do not have the same number of "
                      "marbles, 1 to %d", q, k * (k + 1) / 2);
            return TB_INVALID;
        }
    for (int c = 0; c < cells_of(k); c++)
        if (pos->cells[c] && !may_rest(k, players, pos->cells[c], c)) {
            tb_seterr(err, err_len, "star position %s cannot arise: player %d's marble on cell %d "
                      "rests on another player's point", q, pos->cells[c], c);
            return TB_INVALID;
        }
    pos->m = -holes;
    pos->pieces = players;
    pos->side = mover;
    pos->constraint = 1;   /* the lone player */
    return TB_OK;
}

int tb_star_text(const tb_position *pos, tb_out *o)
{
    int holes = -pos->m, k = star_k(holes), n = pos->pieces, cell = 0;
    if (!k || !valid_players(n) || pos->side < 1 || pos->side > n) return TB_INVALID;
    for (int c = 0; c < cells_of(k); c++)
        if (pos->cells[c] < 0 || pos->cells[c] > n) return TB_INVALID;
    tb_puts(o, "star");
    tb_putn(o, holes);
    tb_put(o, '-');
    tb_putn(o, n);
    tb_put(o, ' ');
    for (int row = 0; row < 4 * k + 1; row++) {
        for (int i = 0; i < SMALL_STAR_ROW_LENGTHS[k][row]; i++) tb_put(o, ".123456"[pos->cells[cell++]]);
        if (row < 4 * k) tb_put(o, '/');
    }
    tb_put(o, ' ');
    tb_putn(o, pos->side);
    return TB_OK;
}

/* the neighbour table and the move radix of a small star's position */
const int8_t (*tb_star_nbr(const tb_position *pos))[6]
{
    int k = star_k(-pos->m);
    return k ? SMALL_STAR_NBR[k] : NULL;
}

int tb_star_cells(const tb_position *pos) { int k = star_k(-pos->m); return k ? cells_of(k) : 0; }

int tb_star_probe_position(const tb_base *tb, const tb_position *pos, tb_value *v)
{
    return tb_probe_cc_star(tb, -pos->m, pos->pieces, pos->cells, pos->side,
                            pos->constraint ? pos->constraint : 1, v);
}

/* digits at *s (no sign, no leading zero, at most 4) into *out, *s moved past them; 0 if none */
static int digits(const char **s, int *out)
{
    const char *p = *s;
    int v = 0, n = 0;
    if (*p == '0' && p[1] >= '0' && p[1] <= '9') return 0;
    while (*p >= '0' && *p <= '9' && n < 4) { v = v * 10 + (*p++ - '0'); n++; }
    if (!n || (*p >= '0' && *p <= '9')) return 0;
    *s = p;
    *out = v;
    return 1;
}

static int literal(const char **s, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*s, word, n) != 0) return 0;
    *s += n;
    return 1;
}

/* "star{H}-{N}-{M}-lone{L}" -> holes, players, marbles (0 if not such a name); parsed by hand,
 * as the other games' names are (sscanf pulls 128-bit arithmetic into the WebAssembly build) */
int tb_star_table_name(const char *s, int *holes, int *players, int *marbles)
{
    int h, n, m, lone;
    if (!literal(&s, "star") || !digits(&s, &h) || !literal(&s, "-") || !digits(&s, &n) ||
        !literal(&s, "-") || !digits(&s, &m) || !literal(&s, "-lone") || !digits(&s, &lone) ||
        *s)
        return 0;
    int k = star_k(h);
    if (!k || !valid_players(n) || m < 1 || m > k * (k + 1) / 2 || lone < 1 ||
        lone > (n == 4 ? 2 : 1))
        return 0;
    *holes = h; *players = n; *marbles = m;
    return 1;
}
