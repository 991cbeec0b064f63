/* Chinese Checkers on the m x m rhombus: the port of solvers/chinese_checkers/index.py (the
 * mover's frame, colex ranks, mirror classes; _slot_of and _locate_row) and of the rhombus
 * position text and move text of tbdb.games.chinese_checkers.position.
 *
 * Table "{m}x{m}-{p}": slot = class(A) * C(N - P, P) + rank of B among the free cells, with A
 * the mover's cells and B the opponent's in the mover's frame (the second player to move: the
 * board turned 180 degrees, colours swapped); of a position and its mirror image the smaller
 * is stored.  The class numbers of A are computed once when the table is opened. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "gen_tables.h"
#include "cc_star.h"

#define MOVE_RADIX 128
#define MAX_CLASS_ENTRIES (1 << 24)
static const int PIECE_COUNTS[] = {1, 2, 3, 4, 6};

static int valid_pieces(int p)
{
    for (unsigned i = 0; i < sizeof PIECE_COUNTS / sizeof *PIECE_COUNTS; i++)
        if (PIECE_COUNTS[i] == p) return 1;
    return 0;
}

static void sort_small(int *a, int k)
{
    for (int i = 1; i < k; i++) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }
        a[j + 1] = v;
    }
}

static int64_t rank(const int *cells, int k)
{
    int64_t r = 0;
    for (int i = 0; i < k; i++) r += TB_BINOM[cells[i]][i + 1];
    return r;
}

static int64_t rank_free(const int *cells, const int *taken, int k)
{
    int64_t r = 0;
    int j = 0;
    for (int i = 0; i < k; i++) {
        while (j < k && taken[j] < cells[i]) j++;
        r += TB_BINOM[cells[i] - j][i + 1];
    }
    return r;
}

static void mirrored(const int *src, int k, const int8_t *mirror, int *dst)
{
    for (int q = 0; q < k; q++) dst[q] = mirror[src[q]];
    sort_small(dst, k);
}

/* start areas of the two-player rhombus game (geometry.START_AREAS), from the player's tip */
static const int START[7][6] = {{0}, {0}, {0, 1}, {0, 1, 2}, {0, 1, 2, 4}, {0}, {0, 1, 2, 3, 4, 5}};

/* "{m}x{m}-{p}" -> m, p (0 if not such a name) */
static int parse_name(const char *s, size_t n, int *m, int *p)
{
    int a = 0, b = 0, c = 0;
    size_t i = 0;
    if (i >= n || s[i] < '1' || s[i] > '9') return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && a < 100) a = a * 10 + s[i++] - '0';
    if (i >= n || s[i++] != 'x' || i >= n || s[i] < '1' || s[i] > '9') return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && b < 100) b = b * 10 + s[i++] - '0';
    if (i >= n || s[i++] != '-' || i >= n || s[i] < '1' || s[i] > '9') return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && c < 100) c = c * 10 + s[i++] - '0';
    if (i != n || a != b) return 0;
    *m = a;
    *p = c;
    return 1;
}

static int buildable(int m, int p) { return m >= 3 && m <= 9 && valid_pieces(p) && 2 * p <= m * m; }

static int tb_cc_prepare(tb_file *f, char *err, size_t err_len)
{
    tb_cc_table *t = &f->g.cc;
    int m, p;
    if (strncmp(f->name, "star-", 5) == 0) return TB_OK;   /* star distance tables: not yet probed */
    int holes, players, marbles;
    if (tb_star_table_name(f->name, &holes, &players, &marbles))
        return tb_star_prepare(f, holes, players, marbles, err, err_len);
    if (!parse_name(f->name, strlen(f->name), &m, &p) || !buildable(m, p)) {
        tb_seterr(err, err_len, "probe file of chinese-checkers table '%s': not a rhombus table", f->name);
        return TB_DAMAGED;
    }
    int n = m * m;
    int64_t subsets = TB_BINOM[n][p];
    t->m = m; t->n = n; t->pieces = p;
    t->block = TB_BINOM[n - p][p];
    /* the mirror is a symmetry only when it maps the start area onto itself */
    int symmetric = 1;
    for (int i = 0; i < p; i++) {
        int image = CC_MIRROR[m][START[p][i]], found = 0;
        for (int j = 0; j < p; j++) found |= START[p][j] == image;
        symmetric &= found;
    }
    for (int c = 0; c < n; c++) t->mirror[c] = symmetric ? CC_MIRROR[m][c] : (int8_t)c;
    if (subsets > MAX_CLASS_ENTRIES || f->layout != TB_LAYOUT_INDEX ||
        (uint64_t)(subsets / 2) > f->slots / (uint64_t)t->block) {
        tb_seterr(err, err_len, "probe file of chinese-checkers table '%s': %llu slots do not fit "
                  "the table", f->name, (unsigned long long)f->slots);
        return TB_DAMAGED;
    }
    t->class_of = malloc((size_t)subsets * sizeof *t->class_of);
    t->subsets = subsets;
    if (!t->class_of) { tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
    int cur[8], img[8];
    for (int i = 0; i < p; i++) cur[i] = i;
    int32_t classes = 0;
    for (int64_t r = 0; r < subsets; r++) {
        mirrored(cur, p, t->mirror, img);
        t->class_of[r] = r <= rank(img, p) ? classes++ : -1;
        int i = 0;  /* colex successor */
        while (i < p - 1 && cur[i] + 1 == cur[i + 1]) i++;
        cur[i]++;
        for (int j = 0; j < i; j++) cur[j] = j;
    }
    if (f->slots != (uint64_t)classes * (uint64_t)t->block) {
        tb_seterr(err, err_len, "probe file of chinese-checkers table '%s': %llu slots, expected %llu",
                  f->name, (unsigned long long)f->slots, (unsigned long long)classes * t->block);
        return TB_DAMAGED;
    }
    return TB_OK;
}

static void tb_cc_release(tb_file *f)
{
    int holes, players, marbles;
    if (tb_star_table_name(f->name, &holes, &players, &marbles)) { tb_star_release(f); return; }
    free(f->g.cc.class_of);
    f->g.cc.class_of = NULL;
}

int tb_probe_chinese_checkers(const tb_base *tb, int m, const int8_t *cells, int mover, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    if (m < 3 || m > 9 || (mover != 1 && mover != 2)) return tb_finish(v, TB_INVALID);
    int n = m * m, ones = 0, twos = 0;
    for (int c = 0; c < n; c++) {
        if (cells[c] < 0 || cells[c] > 2) return tb_finish(v, TB_INVALID);
        ones += cells[c] == 1;
        twos += cells[c] == 2;
    }
    if (ones != twos || !valid_pieces(ones) || 2 * ones > n) return tb_finish(v, TB_INVALID);
    int k = ones;
    char name[16] = {(char)('0' + m), 'x', (char)('0' + m), '-'};   /* "7x7-3" (no snprintf a probe) */
    if (k >= 10) { name[4] = (char)('0' + k / 10); name[5] = (char)('0' + k % 10); }
    else name[4] = (char)('0' + k);
    const tb_file *f = tb_find(tb, TB_CHINESE_CHECKERS, name);
    if (!f) return tb_finish(v, TB_MISSING);
    int mv[8], op[8], tmp[8], ia = 0, ib = 0;
    if (mover == 1) {
        for (int c = 0; c < n; c++) {
            if (cells[c] == 1) mv[ia++] = c;
            else if (cells[c] == 2) op[ib++] = c;
        }
    } else {
        for (int c = n - 1; c >= 0; c--) {
            if (cells[c] == 2) mv[ia++] = n - 1 - c;
            else if (cells[c] == 1) op[ib++] = n - 1 - c;
        }
    }
    const tb_cc_table *t = &f->g.cc;
    int64_t rm = rank(mv, k), slot;
    int mirror_flag = 0;
    int mvm[8];
    mirrored(mv, k, t->mirror, mvm);
    int64_t rmm = rank(mvm, k);
    if (rm < rmm) {
        slot = t->class_of[rm] * t->block + rank_free(op, mv, k);
    } else {
        mirrored(op, k, t->mirror, tmp);
        if (rm > rmm) {
            slot = t->class_of[rmm] * t->block + rank_free(tmp, mvm, k);
            mirror_flag = 1;
        } else {
            int64_t plain = rank_free(op, mv, k), image = rank_free(tmp, mv, k);
            if (image < plain) { slot = t->class_of[rm] * t->block + image; mirror_flag = 1; }
            else slot = t->class_of[rm] * t->block + plain;
        }
    }
    int st = tb_index_value(f, (uint64_t)slot, v);
    if (v->move >= 0) {
        int from = v->move / MOVE_RADIX, to = v->move % MOVE_RADIX;
        if (from >= n || to >= n) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
        if (mirror_flag) { from = t->mirror[from]; to = t->mirror[to]; }
        if (mover == 2) { from = n - 1 - from; to = n - 1 - to; }
        v->move = from * MOVE_RADIX + to;
    }
    return st;
}

/* ------------------------------------------------------------------ text */

static int star_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len);

static int tb_cc_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    if (n >= 14 && memcmp(t, "star-distance-", 14) == 0) return star_parse(t, n, pos, err, err_len);
    if (n >= 5 && memcmp(t, "star", 4) == 0 && t[4] >= '0' && t[4] <= '9')
        return tb_star_parse(t, n, pos, err, err_len);
    tb_quote(q, sizeof q, t, n);
    const char *sp1 = memchr(t, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(t + n - sp1 - 1)) : NULL;
    int m = 0, p = 0;
    if (!sp1 || !sp2 || memchr(sp2 + 1, ' ', (size_t)(t + n - sp2 - 1)) ||
        !parse_name(t, (size_t)(sp1 - t), &m, &p) || t + n != sp2 + 2 ||
        (sp2[1] != '1' && sp2[1] != '2')) {
        tb_seterr(err, err_len, "malformed Chinese Checkers position %s: expected 'MxM-P', the rows "
                  "from the top tip joined by '/', and the player to move (e.g. '3x3-1 1/../.../../2 1')", q);
        return TB_INVALID;
    }
    if (!buildable(m, p)) {
        tb_seterr(err, err_len, "Chinese Checkers position %s: the rhombus is 3x3 to 9x9 with "
                  "(1, 2, 3, 4, 6) pieces a side that fit", q);
        return TB_INVALID;
    }
    /* rows r + c = d have 1, 2, .., m, .., 1 cells */
    const char *s = sp1 + 1;
    int rows = 2 * m - 1, cell = 0, count[3] = {0, 0, 0};
    for (int d = 0; d < rows; d++) {
        int len = d < m ? d + 1 : 2 * m - 1 - d, got = 0;
        while (s < sp2 && *s != '/') {
            const char *sym = memchr(".12", *s, 3);
            if (!sym || !*s) {
                char qc[16];
                tb_quote(qc, sizeof qc, s, 1);
                tb_seterr(err, err_len, "malformed Chinese Checkers position %s: unknown cell %s "
                          "(expected one of '.12')", q, qc);
                return TB_INVALID;
            }
            if (got < len) pos->cells[cell + got] = (int8_t)(sym - ".12");
            got++;
            s++;
        }
        if (got != len) {
            tb_seterr(err, err_len, "malformed Chinese Checkers position %s: row %d has %d cells, "
                      "expected %d", q, d + 1, got, len);
            return TB_INVALID;
        }
        for (int i = 0; i < len; i++) count[pos->cells[cell + i]]++;
        cell += len;
        if (d < rows - 1) {
            if (s >= sp2) {
                tb_seterr(err, err_len, "malformed Chinese Checkers position %s: %d rows, expected %d",
                          q, d + 1, rows);
                return TB_INVALID;
            }
            s++;
        }
    }
    if (s != sp2) {
        tb_seterr(err, err_len, "malformed Chinese Checkers position %s: more than %d rows", q, rows);
        return TB_INVALID;
    }
    for (int player = 1; player <= 2; player++)
        if (count[player] != p) {
            tb_seterr(err, err_len, "Chinese Checkers position %s: player %d has %d pieces, not %d",
                      q, player, count[player], p);
            return TB_INVALID;
        }
    pos->m = m;
    pos->pieces = p;
    pos->side = sp2[1] - '0';
    return TB_OK;
}

/* hop landings from u on cells (the moving piece lifted); nbr: [cells][6] */
static int hops(const int8_t *cells, const int8_t (*nbr)[6], int u, int *out)
{
    int k = 0;
    for (int d = 0; d < 6; d++) {
        int w = nbr[u][d];
        if (w >= 0 && cells[w]) {
            int x = nbr[w][d];
            if (x >= 0 && !cells[x]) out[k++] = x;
        }
    }
    return k;
}

static int tb_cc_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    int m = pos->m, n = m ? m * m : 121, s = move / MOVE_RADIX, t = move % MOVE_RADIX;
    const int8_t (*nbr)[6] = m > 0 ? CC_NBR[m] : STAR_NBR;
    if (m < 0) {   /* a small star: from * 64 + to, 4096 the pass */
        if (move == 4096) return snprintf(buf, len, "pass");
        nbr = tb_star_nbr(pos);
        n = tb_star_cells(pos);
        s = move / 64;
        t = move % 64;
        if (!nbr || move < 0 || move >= 64 * 64) return TB_INVALID;
    }
    if ((m > 0 && (m < 3 || m > 9)) || s >= n || t >= n) return TB_INVALID;
    int8_t cells[121];
    memcpy(cells, pos->cells, (size_t)n);
    cells[s] = 0;
    for (int d = 0; d < 6; d++)
        if (nbr[s][d] == t) return snprintf(buf, len, "%d-%d", s, t);
    /* hops are reversible: distances to t, then from s the smallest cell one closer each time */
    int dist[121], queue[121], qh = 0, qt = 0, land[6];
    for (int c = 0; c < n; c++) dist[c] = -1;
    dist[t] = 0;
    queue[qt++] = t;
    while (qh < qt) {
        int u = queue[qh++], h = hops(cells, nbr, u, land);
        for (int i = 0; i < h; i++)
            if (dist[land[i]] < 0) { dist[land[i]] = dist[u] + 1; queue[qt++] = land[i]; }
    }
    if (dist[s] < 0) return TB_INVALID;
    int o = snprintf(buf, len, "%d", s), u = s;
    while (u != t) {
        int h = hops(cells, nbr, u, land), best = -1;
        for (int i = 0; i < h; i++)
            if (dist[land[i]] == dist[u] - 1 && (best < 0 || land[i] < best)) best = land[i];
        if (best < 0) return TB_INVALID;
        u = best;
        if ((size_t)o < len) o += snprintf(buf + o, len - (size_t)o, "-%d", u);
    }
    return o;
}

/* ------------------------------------------------------------------ star distance placements */

#define STAR_CELLS 121
#define STAR_GOAL_POINT 3
#define STAR_MAX_PIECES 5

/* One player alone on the star: its fewest moves to fill goal point `goal` (0 top, clockwise)
 * with `cells` (1 a piece).  Table "star-distance-K": the board turned so that the goal is the
 * bottom point, the cells ranked colexicographically (DistanceTable.rank).  No best move is
 * stored for them (tbdb derives one from the children). */
static int64_t star_rank(const int *cells, int k, int goal)
{
    int pc[STAR_MAX_PIECES];
    for (int i = 0; i < k; i++) pc[i] = cells[i];
    for (int r = 0; r < (STAR_GOAL_POINT - goal + 6) % 6; r++)
        for (int i = 0; i < k; i++) pc[i] = STAR_ROTATE[pc[i]];
    sort_small(pc, k);
    int64_t rank = 0;
    for (int i = 0; i < k; i++) rank += TB_BINOM[pc[i]][i + 1];
    return rank;
}

/* the cells the piece on s can reach, ascending (moves.destinations: hop chains over any
 * piece with the piece lifted, and steps) */
static int destinations(int8_t *board, int s, int *out)
{
    uint8_t seen[STAR_CELLS] = {0};
    int stack[STAR_CELLS], top = 1, n = 0;
    board[s] = 0;
    seen[s] = 1;
    stack[0] = s;
    while (top > 0) {
        int u = stack[--top];
        for (int d = 0; d < 6; d++) {
            int o = STAR_NBR[u][d];
            if (o < 0 || !board[o]) continue;
            int t = STAR_NBR[o][d];
            if (t < 0 || board[t] || seen[t]) continue;
            seen[t] = 1;
            stack[top++] = t;
            out[n++] = t;
        }
    }
    for (int d = 0; d < 6; d++) {
        int t = STAR_NBR[s][d];
        if (t >= 0 && !board[t]) out[n++] = t;
    }
    board[s] = 1;
    sort_small(out, n);
    return n;
}

int tb_probe_star_distance(const tb_base *tb, const int8_t cells[121], int goal, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    if (goal < 0 || goal > 5) return tb_finish(v, TB_INVALID);
    int pc[STAR_MAX_PIECES], k = 0;
    for (int c = 0; c < STAR_CELLS; c++) {
        if (cells[c] != 0 && cells[c] != 1) return tb_finish(v, TB_INVALID);
        if (cells[c]) {
            if (k == STAR_MAX_PIECES) return tb_finish(v, TB_MISSING);
            pc[k++] = c;
        }
    }
    if (!k) return tb_finish(v, TB_INVALID);
    char name[32];
    snprintf(name, sizeof name, "star-distance-%d", k);
    const tb_file *f = tb_find(tb, TB_CHINESE_CHECKERS, name);
    if (!f || f->layout != TB_LAYOUT_INDEX) return tb_finish(v, TB_MISSING);
    int st = tb_index_value(f, (uint64_t)star_rank(pc, k, goal), v);
    if (st != TB_OK || v->move >= 0 || v->distance <= 0) return st;
    /* no move stored: the first move (pieces by cell, destinations ascending) that brings the
     * placement one move closer, as tbdb derives it (ChineseCheckersGame.derive_best) */
    int8_t board[STAR_CELLS];
    int dest[STAR_CELLS];
    memcpy(board, cells, STAR_CELLS);
    for (int i = 0; i < k; i++) {
        int s = pc[i], nd = destinations(board, s, dest);
        for (int j = 0; j < nd; j++) {
            int child[STAR_MAX_PIECES];
            for (int q = 0; q < k; q++) child[q] = pc[q] == s ? dest[j] : pc[q];
            tb_value c;
            int cs = tb_index_value(f, (uint64_t)star_rank(child, k, goal), &c);
            if (cs != TB_OK) {
                v->move = -1;
                return tb_finish(v, cs == TB_CHANGED ? TB_CHANGED : TB_DAMAGED);
            }
            if (c.distance == v->distance - 1) {
                v->move = s * MOVE_RADIX + dest[j];
                return tb_finish(v, TB_OK);
            }
        }
    }
    return tb_finish(v, TB_OK);
}

/* "star-distance-K rows goal" (tbdb.games.chinese_checkers.distance.Placement) */
static int star_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    tb_quote(q, sizeof q, t, n);
    const char *sp1 = memchr(t, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(t + n - sp1 - 1)) : NULL;
    int k = 0;
    size_t h = 14;                                    /* strlen("star-distance-") */
    int ok = sp1 && sp2 && (size_t)(sp1 - t) > h && t[h] >= '1' && t[h] <= '9' &&
             t + n == sp2 + 2 && sp2[1] >= '0' && sp2[1] <= '5';
    for (size_t i = h; ok && t + i < sp1; i++) {
        ok = t[i] >= '0' && t[i] <= '9' && k < 1000;
        k = k * 10 + t[i] - '0';
    }
    if (!ok) {
        tb_seterr(err, err_len, "malformed star placement %s: expected 'star-distance-K', the 17 "
                  "rows of the star from the top tip joined by '/' ('1' a piece, '.' empty) and "
                  "the goal point 0..5 (0 top, clockwise; 3 bottom)", q);
        return TB_INVALID;
    }
    const char *s = sp1 + 1;
    int cell = 0, count = 0;
    for (int row = 0; row < 17; row++) {
        int len = STAR_ROW_LENGTHS[row], got = 0;
        while (s < sp2 && *s != '/') {
            if (*s != '.' && *s != '1') {
                char qc[16];
                tb_quote(qc, sizeof qc, s, 1);
                tb_seterr(err, err_len, "malformed star placement %s: unknown cell %s (expected "
                          "one of '.1')", q, qc);
                return TB_INVALID;
            }
            if (got < len) { pos->cells[cell + got] = (int8_t)(*s == '1'); count += *s == '1'; }
            got++;
            s++;
        }
        if (got != len) {
            tb_seterr(err, err_len, "malformed star placement %s: row %d has %d cells, expected %d",
                      q, row + 1, got, len);
            return TB_INVALID;
        }
        cell += len;
        if (row < 16) {
            if (s >= sp2) {
                tb_seterr(err, err_len, "malformed star placement %s: %d rows, expected 17", q, row + 1);
                return TB_INVALID;
            }
            s++;
        }
    }
    if (s != sp2) {
        tb_seterr(err, err_len, "malformed star placement %s: more than 17 rows", q);
        return TB_INVALID;
    }
    if (k < 1 || k > 10 || count != k) {
        tb_seterr(err, err_len, "star placement %s: %d pieces on the board, but the head says %d "
                  "(1 to 10)", q, count, k);
        return TB_INVALID;
    }
    pos->m = 0;                                       /* the star */
    pos->pieces = k;
    pos->side = sp2[1] - '0';                         /* the goal point */
    return TB_OK;
}

static int tb_cc_text(const tb_position *pos, tb_out *o)
{
    if (pos->m < 0) return tb_star_text(pos, o);
    int star = pos->m == 0, cells = 0, rows = star ? 17 : 2 * pos->m - 1, pieces = 0;
    if (star ? pos->side < 0 || pos->side > 5 : pos->m < 3 || pos->m > 9 || (pos->side != 1 && pos->side != 2))
        return TB_INVALID;
    int n = star ? 121 : pos->m * pos->m;
    for (int c = 0; c < n; c++) {
        if (pos->cells[c] < 0 || pos->cells[c] > (star ? 1 : 2)) return TB_INVALID;
        pieces += pos->cells[c] == 1;
    }
    if (star) { tb_puts(o, "star-distance-"); tb_putn(o, pieces); }
    else { tb_putn(o, pos->m); tb_put(o, 'x'); tb_putn(o, pos->m); tb_put(o, '-'); tb_putn(o, pieces); }
    tb_put(o, ' ');
    for (int d = 0; d < rows; d++) {
        int len = star ? STAR_ROW_LENGTHS[d] : d < pos->m ? d + 1 : 2 * pos->m - 1 - d;
        for (int i = 0; i < len; i++) tb_put(o, ".12"[pos->cells[cells++]]);
        if (d < rows - 1) tb_put(o, '/');
    }
    tb_put(o, ' ');
    tb_putn(o, pos->side);
    return TB_OK;
}

/* what prepare allocated (tb_memory) */
static uint64_t heap_bytes(const tb_file *f)
{
    int holes, players, marbles;
    if (tb_star_table_name(f->name, &holes, &players, &marbles)) return tb_star_heap_bytes(f);
    return f->g.cc.class_of ? 4 * (uint64_t)f->g.cc.subsets : 0;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    (void)plies_left;
    if (pos->m < 0) return tb_star_probe_position(tb, pos, v);
    if (pos->m == 0) return tb_probe_star_distance(tb, pos->cells, pos->side, v);
    return tb_probe_chinese_checkers(tb, pos->m, pos->cells, pos->side, v);
}

const tb_game_ops tb_cc_game = {
    .name = "chinese-checkers", .parse = tb_cc_parse, .text = tb_cc_text,
    .move_text = tb_cc_move_text, .probe = probe_position, .prepare = tb_cc_prepare,
    .release = tb_cc_release, .heap_bytes = heap_bytes
};
