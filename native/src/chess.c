/* Chess endgames: the port of tbdb.games.chess (material, locate, a position with an en passant
 * right valued through its children), solvers/chess/index.py (canonical), solvers/chess/moves.py
 * (legal moves, in the same order) and the FEN text of tbdb.games.chess.position.
 *
 * A table is a material as Syzygy names it, the stronger side first (KQvKR); it holds both
 * colours: a position whose material is the other way round is looked up with colours swapped
 * and the board turned (sq ^ 56).  Its slot is side * half + the smallest index over the board
 * symmetries (8 without pawns, the left-right mirror with them) that put the kings in a
 * canonical pair; a stored move maps back through the symmetry. */
#include <stdio.h>
#include "internal.h"
#include "gen_tables.h"

enum { PAWN = 1, KNIGHT = 2, BISHOP = 3, ROOK = 4, QUEEN = 5, KING = 6 };
#define BLACK_BIT 8
#define EP_FLAG 16
#define MAX_PIECES 5
#define MAX_MOVES 256
static const char LETTERS[] = ".PNBRQK";
static const int KD[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
/* 0-3 straight (rook), 4-7 diagonal (bishop) */
static const int DIRS[8][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}, {1, 1}, {1, -1}, {-1, -1}, {-1, 1}};

static int on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* ------------------------------------------------------------------ moves (moves.py) */

static int attacked(const int8_t *b, int sq, int by)
{
    int base = by * BLACK_BIT, f = sq % 8, r = sq / 8;
    for (int i = 0; i < 8; i++) {
        int ff = f + KD[i][0], rr = r + KD[i][1];
        if (on_board(ff, rr) && b[rr * 8 + ff] == base + KNIGHT) return 1;
        ff = f + DIRS[i][0];
        rr = r + DIRS[i][1];
        if (on_board(ff, rr) && b[rr * 8 + ff] == base + KING) return 1;
    }
    for (int d = 0; d < 8; d++) {
        for (int ff = f + DIRS[d][0], rr = r + DIRS[d][1]; on_board(ff, rr);
             ff += DIRS[d][0], rr += DIRS[d][1]) {
            int c = b[rr * 8 + ff];
            if (!c) continue;
            if (c == base + QUEEN || (d < 4 && c == base + ROOK) || (d >= 4 && c == base + BISHOP))
                return 1;
            break;
        }
    }
    int src = by == 0 ? sq - 8 : sq + 8;   /* a white pawn attacks from one rank below */
    if (src >= 0 && src < 64) {
        if (f > 0 && b[src - 1] == base + PAWN) return 1;
        if (f < 7 && b[src + 1] == base + PAWN) return 1;
    }
    return 0;
}

static int king_square(const int8_t *b, int side)
{
    for (int sq = 0; sq < 64; sq++)
        if (b[sq] == side * BLACK_BIT + KING) return sq;
    return -1;
}

static int in_check(const int8_t *b, int side)
{
    int k = king_square(b, side);
    return k >= 0 && attacked(b, k, 1 - side);
}

/* play a pseudo-legal move: the undo code (the piece removed, + EP_FLAG for en passant) */
static int make_move(int8_t *b, int32_t m, int side, int *new_ep)
{
    int fr = m & 63, to = (m >> 6) & 63, promo = m >> 12, piece = b[fr], undo = b[to];
    *new_ep = -1;
    if ((piece & 7) == PAWN) {
        if (undo == 0 && (to - fr) % 8 != 0) {
            int victim = side == 0 ? to - 8 : to + 8;
            undo = b[victim] + EP_FLAG;
            b[victim] = 0;
        } else if (to - fr == 16 || fr - to == 16) {
            *new_ep = (fr + to) / 2;
        }
    }
    b[to] = (int8_t)(promo == 0 ? piece : side * BLACK_BIT + promo);
    b[fr] = 0;
    return undo;
}

static void unmake_move(int8_t *b, int32_t m, int side, int undo)
{
    int fr = m & 63, to = (m >> 6) & 63, promo = m >> 12;
    b[fr] = (int8_t)(promo == 0 ? b[to] : side * BLACK_BIT + PAWN);
    if (undo >= EP_FLAG) {
        b[to] = 0;
        b[side == 0 ? to - 8 : to + 8] = (int8_t)(undo - EP_FLAG);
    } else {
        b[to] = (int8_t)undo;
    }
}

static int push(int32_t *out, int n, int8_t *b, int side, int fr, int to, int promo_rank, int king)
{
    int32_t m = fr + 64 * to;
    int ep;
    int undo = make_move(b, m, side, &ep);
    int ok = !attacked(b, king, 1 - side);
    unmake_move(b, m, side, undo);
    if (!ok) return n;
    if (promo_rank) {
        static const int PROMOS[4] = {QUEEN, ROOK, BISHOP, KNIGHT};
        for (int i = 0; i < 4; i++) out[n++] = m + 4096 * PROMOS[i];
        return n;
    }
    out[n] = m;
    return n + 1;
}

/* every legal move of side into out (the order of moves.py's legal_moves); b is scratch */
static int legal_moves(int8_t *b, int side, int ep, int32_t *out)
{
    int n = 0, own = side * BLACK_BIT, king = king_square(b, side);
    for (int fr = 0; fr < 64; fr++) {
        int c = b[fr];
        if (c == 0 || (c & BLACK_BIT) != own) continue;
        int t = c & 7, f = fr % 8, r = fr / 8;
        if (t == PAWN) {
            int step = side == 0 ? 8 : -8, to = fr + step;
            int last = side == 0 ? to / 8 == 7 : to / 8 == 0;
            if (b[to] == 0) {
                n = push(out, n, b, side, fr, to, last, king);
                int start = side == 0 ? r == 1 : r == 6;
                if (start && b[to + step] == 0) n = push(out, n, b, side, fr, to + step, 0, king);
            }
            for (int df = -1; df <= 1; df += 2) {
                if ((df < 0 && f == 0) || (df > 0 && f == 7)) continue;
                int tc = to + df, v = b[tc];
                if ((v != 0 && (v & BLACK_BIT) != own) || (tc == ep && v == 0))
                    n = push(out, n, b, side, fr, tc, last, king);
            }
        } else if (t == KNIGHT || t == KING) {
            for (int i = 0; i < 8; i++) {
                int ff = f + (t == KNIGHT ? KD[i][0] : DIRS[i][0]);
                int rr = r + (t == KNIGHT ? KD[i][1] : DIRS[i][1]);
                if (!on_board(ff, rr)) continue;
                int to = rr * 8 + ff, v = b[to];
                if (v == 0 || (v & BLACK_BIT) != own)
                    n = push(out, n, b, side, fr, to, 0, t == KING ? to : king);
            }
        } else {
            int d0 = t == BISHOP ? 4 : 0, d1 = t == ROOK ? 4 : 8;
            for (int d = d0; d < d1; d++) {
                for (int ff = f + DIRS[d][0], rr = r + DIRS[d][1]; on_board(ff, rr);
                     ff += DIRS[d][0], rr += DIRS[d][1]) {
                    int to = rr * 8 + ff, v = b[to];
                    if (v != 0 && (v & BLACK_BIT) == own) break;
                    n = push(out, n, b, side, fr, to, 0, king);
                    if (v != 0) break;
                }
            }
        }
    }
    return n;
}

/* ep if side has a legal en passant capture onto it, else -1 (no right at all) */
static int legal_ep(int8_t *b, int side, int ep)
{
    if (ep < 0) return -1;
    int32_t moves[MAX_MOVES];
    int n = legal_moves(b, side, ep, moves);
    for (int i = 0; i < n; i++)
        if (((moves[i] >> 6) & 63) == ep && (b[moves[i] & 63] & 7) == PAWN) return ep;
    return -1;
}

/* ------------------------------------------------------------------ tables (index.py) */

/* the half size of a table: king pairs times 64 squares a piece (48 a pawn) */
static int64_t half_size(const int *codes, int k, int pawns)
{
    int64_t n = pawns ? 1806 : 462;
    for (int i = 2; i < k; i++) n *= (codes[i] & 7) == PAWN ? 48 : 64;
    return n;
}

static int tb_chess_prepare(tb_file *f, char *err, size_t err_len)
{
    /* the name: K<pieces>vK<pieces>, pieces from Q R B N P; its slots: two halves */
    const char *name = f->name, *v = strchr(name, 'v');
    int codes[8], k = 2, pawns = 0, white_pawns = 0, black_pawns = 0;
    int ok = name[0] == 'K' && v && v[1] == 'K';
    codes[0] = KING;
    codes[1] = BLACK_BIT + KING;
    for (const char *p = name + 1; ok && *p; p++) {
        if (p == v || p == v + 1) continue;
        const char *l = strchr("PNBRQ", *p);
        if (!*p || !l || k == MAX_PIECES) { ok = 0; break; }
        codes[k++] = (p > v ? BLACK_BIT : 0) + (int)(l - "PNBRQ") + 1;
        pawns |= *p == 'P';
        white_pawns |= *p == 'P' && p < v;
        black_pawns |= *p == 'P' && p > v;
    }
    if (!ok || k < 3) {
        tb_seterr(err, err_len, "'%s' is no chess table name", name);
        return 1;
    }
    int64_t half = half_size(codes, k, pawns);
    /* a table with pawns of both colours has its en passant slots after the two halves (its
     * number is not checked here): this prober never reads them, it values a position with
     * an en passant right through its children */
    int ep_slots = white_pawns && black_pawns;
    if (f->layout != TB_LAYOUT_INDEX || f->slots < (uint64_t)(2 * half) ||
        (!ep_slots && f->slots != (uint64_t)(2 * half)) || f->slots > (uint64_t)(3 * half)) {
        tb_seterr(err, err_len, "chess table '%s' has %llu slots, expected %lld%s", name,
                  (unsigned long long)f->slots, (long long)(2 * half),
                  ep_slots ? " and its en passant slots" : "");
        return 1;
    }
    return 0;
}

/* (smallest index over the symmetries putting the kings in a canonical pair, its symmetry) */
static int64_t canonical(const int *codes, int k, int pawns, const int *sq, int *sym)
{
    int64_t best = -1;
    *sym = -1;
    for (int s = 0; s < (pawns ? 2 : 8); s++) {
        int a = CHESS_SYM[s][sq[0]], b = CHESS_SYM[s][sq[1]];
        int pair = pawns ? CHESS_PKPAIR_NUMBER[a * 64 + b] : CHESS_KPAIR_NUMBER[a * 64 + b];
        if (pair < 0) continue;
        int t[8];
        for (int i = 2; i < k; i++) t[i] = CHESS_SYM[s][sq[i]];
        for (int i = 3; i < k; i++) {      /* identical pieces' squares ascending */
            int v = t[i], j = i - 1;
            while (j >= 2 && codes[j] == codes[i] && t[j] > v) { t[j + 1] = t[j]; j--; }
            t[j + 1] = v;
        }
        int64_t idx = pair;
        for (int i = 2; i < k; i++)
            idx = (codes[i] & 7) == PAWN ? idx * 48 + (t[i] - 8) : idx * 64 + t[i];
        if (best < 0 || idx < best) { best = idx; *sym = s; }
    }
    return best;
}

/* Syzygy's order: more pieces first; with as many, the side whose pieces come first in
 * Q R B N P order (types sorted strongest first) */
static int weaker_first(const int *w, int nw, const int *bl, int nb)
{
    if (nw != nb) return nw < nb;
    for (int i = 0; i < nw; i++)
        if (w[i] != bl[i]) return bl[i] > w[i];    /* black's stronger piece comes first */
    return 0;
}

static int32_t map_move(int32_t m, int sym)
{
    int inv = CHESS_INVERSE[sym & 7], flip = sym >= 8 ? 56 : 0;
    int fr = CHESS_SYM[inv][m & 63] ^ flip, to = CHESS_SYM[inv][(m >> 6) & 63] ^ flip;
    return fr + 64 * to + 4096 * (m >> 12);
}

static int probe(const tb_base *tb, int8_t *b, int side, int ep, tb_value *v);

/* a position with an en passant right: the value its children give it (Prober's rule: a win
 * through the quickest lost child, else a draw, else the longest loss; the first move in move
 * order realising it) */
static int by_children(const tb_base *tb, int8_t *b, int side, int ep, tb_value *v)
{
    int32_t moves[MAX_MOVES];
    int8_t res[MAX_MOVES];
    int16_t dist[MAX_MOVES];
    int n = legal_moves(b, side, ep, moves);
    int win = -1, draw = 0, loss = -1;
    for (int i = 0; i < n; i++) {
        int new_ep, undo = make_move(b, moves[i], side, &new_ep);
        tb_value c;
        int st = probe(tb, b, 1 - side, legal_ep(b, 1 - side, new_ep), &c);
        unmake_move(b, moves[i], side, undo);
        if (st < 0) {
            *v = c;
            v->move = -1;
            return tb_finish(v, st);
        }
        res[i] = (int8_t)c.result;
        dist[i] = (int16_t)c.distance;
        if (c.result == TB_LOSS && (win < 0 || c.distance < win)) win = c.distance;
        else if (c.result == TB_DRAW) draw = 1;
        else if (c.result == TB_WIN && c.distance > loss) loss = c.distance;
    }
    int want, at;
    if (win >= 0) { v->result = TB_WIN; v->distance = win + 1; want = TB_LOSS; at = win; }
    else if (draw) { v->result = TB_DRAW; v->distance = 0; want = TB_DRAW; at = 0; }
    else { v->result = TB_LOSS; v->distance = loss + 1; want = TB_WIN; at = loss; }
    v->score = 0;
    v->move = -1;
    for (int i = 0; i < n && v->move < 0; i++)
        if (res[i] == want && (want == TB_DRAW || dist[i] == at)) v->move = moves[i];
    return tb_finish(v, TB_OK);
}

static int probe(const tb_base *tb, int8_t *b, int side, int ep, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    int types[2][8], n[2] = {0, 0}, total = 0;
    for (int t = QUEEN; t >= PAWN; t--)           /* strongest first */
        for (int sq = 0; sq < 64; sq++)
            for (int c = 0; c < 2; c++)
                if (b[sq] == c * BLACK_BIT + t && n[c] < 7) types[c][n[c]++] = t;
    total = 2 + n[0] + n[1];
    if (total > MAX_PIECES) return tb_finish(v, TB_MISSING);
    if (ep >= 0) return by_children(tb, b, side, ep, v);
    int32_t moves[MAX_MOVES];
    if (legal_moves(b, side, -1, moves) == 0) {
        v->result = in_check(b, side) ? TB_LOSS : TB_DRAW;
        return tb_finish(v, TB_GAME_OVER);
    }
    if (total == 2) return tb_finish(v, TB_GAME_OVER);   /* bare kings: a draw */
    int flip = weaker_first(types[0], n[0], types[1], n[1]);
    const int *w = types[flip], *bl = types[1 - flip];
    int nw = n[flip], nb = n[1 - flip];
    char name[16];
    int k = 2, codes[8], pawns = 0, len = 0;
    codes[0] = KING;
    codes[1] = BLACK_BIT + KING;
    name[len++] = 'K';
    for (int i = 0; i < nw; i++) { codes[k++] = w[i]; name[len++] = LETTERS[w[i]]; }
    name[len++] = 'v';
    name[len++] = 'K';
    for (int i = 0; i < nb; i++) { codes[k++] = BLACK_BIT + bl[i]; name[len++] = LETTERS[bl[i]]; }
    name[len] = 0;
    for (int i = 2; i < k; i++) pawns |= (codes[i] & 7) == PAWN;
    const tb_file *f = tb_find(tb, TB_CHESS, name);
    if (!f) return tb_finish(v, TB_MISSING);
    int sq[8], taken[8] = {0};
    for (int s = 0; s < 64; s++) {
        if (!b[s]) continue;
        int code = flip ? b[s] ^ BLACK_BIT : b[s], at = flip ? s ^ 56 : s;
        for (int j = 0; j < k; j++)
            if (!taken[j] && codes[j] == code) { taken[j] = 1; sq[j] = at; break; }
    }
    int sym;
    int64_t idx = canonical(codes, k, pawns, sq, &sym);
    if (idx < 0) return tb_finish(v, TB_DAMAGED);
    int64_t half = half_size(codes, k, pawns);
    int st = tb_index_value(f, (uint64_t)((side ^ flip) * half + idx), v);
    if (v->move >= 0) {
        int32_t m = v->move;
        if (m >= 6 * 4096 || (m >> 12) == 1) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
        v->move = map_move(m, sym + 8 * flip);
    }
    return st;
}

int tb_probe_chess(const tb_base *tb, const int8_t board[64], int side, int ep, tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    if ((side != 0 && side != 1) || ep < -1 || ep > 63) return tb_finish(v, TB_INVALID);
    int8_t b[64];
    int kings[2] = {0, 0};
    for (int sq = 0; sq < 64; sq++) {
        int c = board[sq];
        if (c < 0 || c > 14 || (c & 7) == 7 || c == BLACK_BIT) return tb_finish(v, TB_INVALID);
        if ((c & 7) == PAWN && (sq < 8 || sq >= 56)) return tb_finish(v, TB_INVALID);
        if ((c & 7) == KING) kings[c >> 3]++;
        b[sq] = (int8_t)c;
    }
    if (kings[0] != 1 || kings[1] != 1) return tb_finish(v, TB_INVALID);
    if (ep >= 0 && ep / 8 != (side == 0 ? 5 : 2)) return tb_finish(v, TB_INVALID);
    if (in_check(b, 1 - side)) return tb_finish(v, TB_ILLEGAL);
    return probe(tb, b, side, legal_ep(b, side, ep), v);
}

/* ------------------------------------------------------------------ text */

static int square_of(const char *s)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return -1;
    return (s[1] - '1') * 8 + (s[0] - 'a');
}

static int tb_chess_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160];
    tb_quote(q, sizeof q, t, n);
    /* the fields, split at single spaces as Python's str.split(" ") */
    const char *field[7];
    size_t flen[7];
    int nf = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || t[i] == ' ') {
            if (nf == 7) { nf = 8; break; }
            field[nf] = t + start;
            flen[nf++] = i - start;
            start = i + 1;
        }
    }
#define BAD(...) do { tb_seterr(err, err_len, __VA_ARGS__); return TB_INVALID; } while (0)
    if (nf < 4 || nf > 6 || flen[1] != 1 || (field[1][0] != 'w' && field[1][0] != 'b'))
        BAD("malformed chess position %s: expected a FEN like '8/8/8/8/8/8/8/KQ5k w - - 0 1'", q);
    int8_t *b = pos->cells;
    int rank = 7, file = 0, prev_digit = 0;
    for (size_t i = 0; i < flen[0]; i++) {
        char c = field[0][i];
        if (c == '/') {
            if (file != 8 || rank == 0) BAD("malformed chess position %s: a rank of 8 squares", q);
            rank--;
            file = 0;
            prev_digit = 0;
        } else if (c >= '1' && c <= '8' && !prev_digit) {
            if (file + (c - '0') > 8) BAD("malformed chess position %s: a rank of 8 squares", q);
            file += c - '0';
            prev_digit = 1;
        } else {
            const char *l = c ? strchr("PNBRQKpnbrqk", c) : NULL;
            if (!l || file >= 8)
                BAD("malformed chess position %s: a rank holds other than P N B R Q K "
                    "(white), p n b r q k (black) and 1-8 (empty squares)", q);
            int type = (int)((l - "PNBRQKpnbrqk") % 6) + 1;
            b[rank * 8 + file++] = (int8_t)((c >= 'a' ? BLACK_BIT : 0) + type);
            prev_digit = 0;
        }
    }
    if (rank != 0 || file != 8) BAD("malformed chess position %s: expected 8 ranks", q);
    if (flen[2] != 1 || field[2][0] != '-')
        BAD("chess position %s has castling rights; tables have none (write '-')", q);
    int ep = -1;
    if (!(flen[3] == 1 && field[3][0] == '-')) {
        if (flen[3] != 2 || (ep = square_of(field[3])) < 0)
            BAD("malformed chess position %s: en passant square", q);
    }
    int counters[2] = {0, 1};
    for (int i = 4; i < nf; i++) {
        if (flen[i] == 0 || flen[i] > 6) BAD("malformed chess position %s: move counter", q);
        int x = 0;
        for (size_t j = 0; j < flen[i]; j++) {
            if (field[i][j] < '0' || field[i][j] > '9')
                BAD("malformed chess position %s: move counter", q);
            x = x * 10 + (field[i][j] - '0');
        }
        if (i == 5 && x < 1) BAD("malformed chess position %s: move counter", q);
        counters[i - 4] = x;
    }
    int side = field[1][0] == 'b';
    int kings[2] = {0, 0};
    for (int sq = 0; sq < 64; sq++) {
        if ((b[sq] & 7) == KING) kings[b[sq] >> 3]++;
        if ((b[sq] & 7) == PAWN && (sq < 8 || sq >= 56))
            BAD("chess position %s cannot arise: a pawn on the first or last rank", q);
    }
    if (kings[0] != 1 || kings[1] != 1) BAD("chess position %s cannot arise: a king count", q);
    if (in_check(b, 1 - side))
        BAD("chess position %s cannot arise: %s, not to move, is in check", q,
            side ? "white" : "black");
    if (ep >= 0 && ep / 8 != (side == 0 ? 5 : 2))
        BAD("chess position %s cannot arise: the en passant square is not behind a pawn that "
            "just moved two squares", q);
#undef BAD
    pos->side = side;
    pos->ep = legal_ep(b, side, ep);
    pos->halfmove = counters[0];
    pos->fullmove = counters[1];
    return TB_OK;
}

static int tb_chess_text(const tb_position *pos, tb_out *o)
{
    const int8_t *b = pos->cells;
    for (int r = 7; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < 8; f++) {
            int c = b[r * 8 + f];
            if (c < 0 || c > 14 || (c & 7) == 7 || c == BLACK_BIT) return TB_INVALID;
            if (!c) { empty++; continue; }
            if (empty) { tb_put(o, (char)('0' + empty)); empty = 0; }
            char l = LETTERS[c & 7];
            tb_put(o, c & BLACK_BIT ? (char)(l - 'A' + 'a') : l);
        }
        if (empty) tb_put(o, (char)('0' + empty));
        if (r) tb_put(o, '/');
    }
    if ((pos->side != 0 && pos->side != 1) || pos->ep < -1 || pos->ep > 63 ||
        pos->halfmove < 0 || pos->fullmove < 1)
        return TB_INVALID;
    tb_puts(o, pos->side ? " b - " : " w - ");
    if (pos->ep >= 0) {
        tb_put(o, (char)('a' + pos->ep % 8));
        tb_put(o, (char)('1' + pos->ep / 8));
    } else {
        tb_put(o, '-');
    }
    tb_put(o, ' ');
    tb_putn(o, pos->halfmove);
    tb_put(o, ' ');
    tb_putn(o, pos->fullmove);
    return TB_OK;
}

static int tb_chess_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    (void)pos;
    int fr = move & 63, to = (move >> 6) & 63, promo = move >> 12;
    if (move < 0 || promo > QUEEN || promo == PAWN || len < 6) return TB_INVALID;
    int n = snprintf(buf, len, "%c%c%c%c", 'a' + fr % 8, '1' + fr / 8, 'a' + to % 8, '1' + to / 8);
    if (promo) { buf[n++] = " pnbrq"[promo]; buf[n] = 0; }
    return n;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    (void)plies_left;
    return tb_probe_chess(tb, pos->cells, pos->side, pos->ep, v);
}

const tb_game_ops tb_chess_game = {
    .name = "chess", .parse = tb_chess_parse, .text = tb_chess_text,
    .move_text = tb_chess_move_text, .probe = probe_position, .prepare = tb_chess_prepare
};
