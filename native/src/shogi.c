/* Shogi endgames: the port of solvers/shogi/index.py (slot_of, canonical, encode: two kings
 * and a multiset of other pieces, each in one of its states, black to move; white to move
 * through the colour swap, black's king folded onto files 1-5 by the mirror) and of the SFEN
 * text and USI move text of tbdb.games.shogi.position.
 *
 * Table "K<pieces>K", pieces strongest first (R B G S N L P).  Positions the rules forbid with
 * the side not to move in check are stored as illegal (TB_ILLEGAL); the parser checks the
 * rest (one king each, no dead piece, no two pawns on a file, piece counts). */
#include <stdio.h>
#include "internal.h"
#include "gen_tables.h"

#define NSQ 81
#define HAND 81
#define KING 8
#define PROMOTED 8
#define PAWN 1
#define KNIGHT 3
#define ROOK 6
#define DROP_BASE 80
#define PROMOTE_FLAG (1 << 14)
#define MAX_OTHERS 6
static const char LETTERS[] = " PLNSBRGK";
static const char ORDER[] = "RBGSNLP";
static const int MAX_OF_TYPE[8] = {0, 18, 4, 4, 4, 2, 2, 4};

/* a move code as the tables store it: to (7 bits, a square), from (7 bits, a square or
 * DROP_BASE + a hand piece's type, gold the last) and the promote flag, nothing above it, as
 * tbdb's game.py checks one (_stored_move_usi).  Any other code is none the table held: the
 * bits above the flag were ignored once, and a crafted code then read as a move */
static int shogi_code_ok(int32_t code)
{
    int to = code & 127, frm = (code >> 7) & 127;
    return code >= 0 && code < 2 * PROMOTE_FLAG && to <= 80 && frm <= DROP_BASE + 7;
}

/* C(n, k) for the small k of a group (exact in 64 bits) */
static int64_t binom(int64_t n, int k)
{
    if (k < 0 || n < k) return 0;
    int64_t r = 1;
    for (int i = 0; i < k; i++) r = r * (n - i) / (i + 1);
    return r;
}

static int dead(int colour, int t, int sq)
{
    int r = colour == 0 ? sq % 9 : 8 - sq % 9;
    if (t == PAWN || t == 2) return r == 0;
    if (t == KNIGHT) return r <= 1;
    return 0;
}

/* the types of a table name in name order; 0 if not a name */
static int parse_table_name(const char *name, int *types)
{
    size_t n = strlen(name);
    if (n < 2 || name[0] != 'K' || name[n - 1] != 'K' || n - 2 > MAX_OTHERS) return -1;
    int prev = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        const char *o = memchr(ORDER, name[i], 7);
        if (!o || (int)(o - ORDER) < prev) return -1;
        prev = (int)(o - ORDER);
        types[i - 1] = (int)(strchr(LETTERS, name[i]) - LETTERS);
    }
    return (int)n - 2;
}

static int tb_shogi_prepare(tb_file *f, char *err, size_t err_len)
{
    int types[MAX_OTHERS], k = parse_table_name(f->name, types);
    tb_shogi_table *t = &f->g.shogi;
    if (k < 1) {
        tb_seterr(err, err_len, "probe file of shogi table '%s': not a shogi table name", f->name);
        return TB_DAMAGED;
    }
    memset(t, 0, sizeof *t);
    t->k = k;
    for (int j = 0; j < k; j++) {
        t->type[j] = types[j];
        if (t->groups && t->gtype[t->groups - 1] == types[j]) t->gcount[t->groups - 1]++;
        else { t->gtype[t->groups] = types[j]; t->gcount[t->groups] = 1; t->gfirst[t->groups] = j; t->groups++; }
    }
    int64_t stride = 1;
    for (int g = t->groups - 1; g >= 0; g--) {
        t->gstride[g] = stride;
        stride *= binom(SHOGI_N_STATES[t->gtype[g]] + t->gcount[g] - 1, t->gcount[g]);
    }
    t->prod = stride;
    if (f->layout != TB_LAYOUT_INDEX || f->slots != (uint64_t)(SHOGI_N_KK * stride)) {
        tb_seterr(err, err_len, "probe file of shogi table '%s': %llu slots, expected %lld", f->name,
                  (unsigned long long)f->slots, (long long)(SHOGI_N_KK * stride));
        return TB_DAMAGED;
    }
    return TB_OK;
}

static int mirror_sq(int sq) { return SHOGI_MIRROR[sq]; }

/* index.encode: the slot seen through the colour swap and the mirror; -1 kings not a stored
 * pair, -2 a piece with no state (dead) */
static int64_t encode(const tb_shogi_table *t, const int *ksq, const int *loc, const int *col,
                      const int *prom, int swap, int mirror)
{
    int b = ksq[swap], w = ksq[1 - swap];
    if (swap) { b = 80 - b; w = 80 - w; }
    if (mirror) { b = mirror_sq(b); w = mirror_sq(w); }
    if (b >= 45 || SHOGI_KK_INDEX[b][w] < 0) return -1;
    int64_t slot = (int64_t)SHOGI_KK_INDEX[b][w] * t->prod;
    int st[MAX_OTHERS];
    for (int g = 0; g < t->groups; g++) {
        int ty = t->gtype[g], n = t->gcount[g], first = t->gfirst[g];
        for (int i = first; i < first + n; i++) {
            int sq = loc[i];
            if (sq != HAND) {
                if (swap) sq = 80 - sq;
                if (mirror) sq = mirror_sq(sq);
            }
            int s = SHOGI_STATE[ty][col[i] ^ swap][prom[i]][sq];
            if (s < 0) return -2;
            int j = i;
            while (j > first && st[j - 1] > s) { st[j] = st[j - 1]; j--; }
            st[j] = s;
        }
        int64_t rank = 0;
        for (int i = 0; i < n; i++) rank += binom(st[first + i] + i, i + 1);
        slot += rank * t->gstride[g];
    }
    return slot;
}

int tb_probe_shogi(const tb_base *tb, const int8_t board[81], const int8_t hands[2][8], int side,
                   tb_value *v)
{
    v->result = v->distance = v->score = 0;
    v->move = -1;
    if (side != 0 && side != 1) return tb_finish(v, TB_INVALID);
    int count[8] = {0}, kings[2] = {0, 0}, ksq[2] = {-1, -1}, total = 0;
    for (int c = 0; c < 2; c++) {
        if (hands[c][0]) return tb_finish(v, TB_INVALID);
        for (int ty = 1; ty < 8; ty++) {
            if (hands[c][ty] < 0 || hands[c][ty] > 18) return tb_finish(v, TB_INVALID);
            count[ty] += hands[c][ty];
        }
    }
    int pawn_files[2][9] = {{0}};
    for (int sq = 0; sq < NSQ; sq++) {
        int p = board[sq];
        if (!p) continue;
        int ty = p & 15, c = p >> 4;
        if (p < 0 || c > 1 || ty == 0 || ty == 15) return tb_finish(v, TB_INVALID);
        if (ty == KING) { kings[c]++; ksq[c] = sq; continue; }
        if (ty <= KNIGHT && dead(c, ty, sq)) return tb_finish(v, TB_INVALID);
        if (ty == PAWN && pawn_files[c][sq / 9]++) return tb_finish(v, TB_INVALID);   /* nifu */
        count[ty > KING ? ty - PROMOTED : ty]++;
    }
    if (kings[0] != 1 || kings[1] != 1) return tb_finish(v, TB_INVALID);
    for (int ty = 1; ty < 8; ty++) {
        if (count[ty] > MAX_OF_TYPE[ty]) return tb_finish(v, TB_INVALID);
        total += count[ty];
    }
    if (!total) { v->result = TB_DRAW; return tb_finish(v, TB_GAME_OVER); }  /* bare kings */
    if (total > MAX_OTHERS) return tb_finish(v, TB_MISSING);
    char name[MAX_OTHERS + 3];
    int n = 0;
    name[n++] = 'K';
    for (int o = 0; o < 7; o++) {
        int ty = (int)(strchr(LETTERS, ORDER[o]) - LETTERS);
        for (int j = 0; j < count[ty]; j++) name[n++] = ORDER[o];
    }
    name[n++] = 'K';
    name[n] = 0;
    const tb_file *f = tb_find(tb, TB_SHOGI, name);
    if (!f) return tb_finish(v, TB_MISSING);
    const tb_shogi_table *t = &f->g.shogi;
    /* index.slot_of: each piece to the first free piece of its type, board then hands */
    int k = t->k, loc[MAX_OTHERS], col[MAX_OTHERS], prom[MAX_OTHERS];
    for (int j = 0; j < k; j++) { loc[j] = -1; col[j] = prom[j] = 0; }
    for (int sq = 0; sq < NSQ; sq++) {
        int p = board[sq], ty = p & 15;
        if (!p || ty == KING) continue;
        int base = ty > KING ? ty - PROMOTED : ty;
        for (int j = 0; j < k; j++)
            if (loc[j] < 0 && t->type[j] == base) { loc[j] = sq; col[j] = p >> 4; prom[j] = ty > KING; break; }
    }
    for (int c = 0; c < 2; c++)
        for (int ty = 1; ty < 8; ty++)
            for (int h = 0; h < hands[c][ty]; h++)
                for (int j = 0; j < k; j++)
                    if (loc[j] < 0 && t->type[j] == ty) { loc[j] = HAND; col[j] = c; break; }
    /* index.canonical: black's king on files 1-4 as it is, 6-9 mirrored, 5 the smaller slot */
    int b = side ? 80 - ksq[1] : ksq[0], file = b / 9, mirrored = 0;
    int64_t best = -1;
    for (int mirror = file > 4 ? 1 : 0; mirror < (file < 4 ? 1 : 2); mirror++) {
        int64_t e = encode(t, ksq, loc, col, prom, side, mirror);
        if (e == -2) return tb_finish(v, TB_INVALID);
        if (best < 0 || e < best) { best = e; mirrored = mirror; }
    }
    if (best < 0) return tb_finish(v, TB_INVALID);                 /* kings side by side */
    int st = tb_index_value(f, (uint64_t)best, v);
    if (v->move >= 0) {
        int32_t code = v->move;
        int to = code & 127, frm = (code >> 7) & 127;
        if (!shogi_code_ok(code)) { v->move = -1; return tb_finish(v, TB_DAMAGED); }
        if (mirrored) to = mirror_sq(to);
        if (side) to = 80 - to;
        if (frm <= DROP_BASE) {
            if (mirrored) frm = mirror_sq(frm);
            if (side) frm = 80 - frm;
        }
        v->move = (code & PROMOTE_FLAG) | frm << 7 | to;
    }
    return st;
}

/* ------------------------------------------------------------------ text */

static void square_name(int sq, char *out) { out[0] = (char)('1' + sq / 9); out[1] = (char)('a' + sq % 9); }

static int tb_shogi_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len)
{
    char q[160], why[120] = "";
    static const char START[] = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    const char *text = t;
    size_t tn = n;
    if (n >= 5 && memcmp(t, "sfen ", 5) == 0) { t += 5; n -= 5; }
    if (n == 8 && memcmp(t, "startpos", 8) == 0) { t = START; n = strlen(START); }
    /* the fields, separated by white space */
    const char *part[5];
    size_t len[5];
    int parts = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && (t[i] == ' ' || (t[i] >= '\t' && t[i] <= '\r'))) i++;
        if (i >= n) break;
        size_t s = i;
        while (i < n && !(t[i] == ' ' || (t[i] >= '\t' && t[i] <= '\r'))) i++;
        if (parts == 5) { parts++; break; }
        part[parts] = t + s;
        len[parts++] = i - s;
    }
    int ok = (parts == 3 || parts == 4) && len[1] == 1 && (part[1][0] == 'b' || part[1][0] == 'w');
    for (size_t i = 0; ok && parts == 4 && i < len[3]; i++) ok = part[3][i] >= '0' && part[3][i] <= '9';
    if (!ok) {
        tb_quote(q, sizeof q, text, tn);
        tb_seterr(err, err_len, "malformed SFEN %s: expected board, side (b/w), hands and an "
                  "optional move number", q);
        return TB_INVALID;
    }
    memset(pos->cells, 0, 81);
    memset(pos->hands, 0, sizeof pos->hands);
    /* the board: ranks a..i, files 9..1 */
    int r = 0, f = 9, promoted = 0;
    for (size_t i = 0; i <= len[0]; i++) {
        char ch = i < len[0] ? part[0][i] : '/';
        if (ch == '/') {
            if (f != 0 || promoted || r > 8) {
                snprintf(why, sizeof why, r > 8 ? "more than 9 ranks" : "rank %d does not have 9 files", r + 1);
                goto bad;
            }
            r++; f = 9;
            continue;
        }
        if (ch >= '1' && ch <= '9') {
            if (promoted || f - (ch - '0') < 0) { snprintf(why, sizeof why, "bad rank %d", r + 1); goto bad; }
            f -= ch - '0';
            continue;
        }
        if (ch == '+') {
            if (promoted) { snprintf(why, sizeof why, "bad rank %d", r + 1); goto bad; }
            promoted = 1;
            continue;
        }
        char up = ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch;
        const char *l = up && up != ' ' ? strchr(LETTERS, up) : NULL;
        int ty = l ? (int)(l - LETTERS) : 0;
        if (ty < 1 || f < 1 || r > 8 || (promoted && ty > ROOK)) { snprintf(why, sizeof why, "bad rank %d", r + 1); goto bad; }
        pos->cells[(f - 1) * 9 + r] = (int8_t)(ty + (promoted ? PROMOTED : 0) + (ch != up ? 16 : 0));
        f--;
        promoted = 0;
    }
    if (r != 9) { snprintf(why, sizeof why, "%d ranks, expected 9", r); goto bad; }
    /* hands: counts and letters, '-' for none */
    if (!(len[2] == 1 && part[2][0] == '-')) {
        int num = 0, digits = 0;
        for (size_t i = 0; i < len[2]; i++) {
            char ch = part[2][i];
            if (ch >= '0' && ch <= '9') {
                if (!digits && ch == '0') { snprintf(why, sizeof why, "bad hand"); goto bad; }
                if (++digits > 2) { snprintf(why, sizeof why, "bad hand"); goto bad; }
                num = num * 10 + ch - '0';
                continue;
            }
            char up = ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch;
            const char *l = up && up != ' ' ? strchr(LETTERS, up) : NULL;
            int ty = l ? (int)(l - LETTERS) : 0;
            if (ty < 1 || ty == KING) { snprintf(why, sizeof why, "bad hand"); goto bad; }
            int c = ch != up, add = digits ? num : 1;
            if (pos->hands[c][ty] + add > 18) { snprintf(why, sizeof why, "bad hand"); goto bad; }
            pos->hands[c][ty] = (int8_t)(pos->hands[c][ty] + add);
            num = digits = 0;
        }
        if (digits) { snprintf(why, sizeof why, "bad hand"); goto bad; }
    }
    pos->side = part[1][0] == 'w';
    /* Position._validate, but for the check (the tables store those positions as illegal) */
    int kings[2] = {0, 0}, total[8] = {0}, pawns[2][9] = {{0}};
    for (int sq = 0; sq < 81; sq++) {
        int p = pos->cells[sq], ty = p & 15, c = p >> 4;
        if (!p) continue;
        if (ty == KING) { kings[c]++; continue; }
        total[ty > KING ? ty - PROMOTED : ty]++;
        if (ty <= KNIGHT && dead(c, ty, sq)) {
            char sqn[3] = {0};
            square_name(sq, sqn);
            snprintf(why, sizeof why, "the piece on %s can never move", sqn);
            goto invalid;
        }
        if (ty == PAWN && pawns[c][sq / 9]++) {
            snprintf(why, sizeof why, "two unpromoted pawns of one side on file %d (nifu)", sq / 9 + 1);
            goto invalid;
        }
    }
    for (int c = 0; c < 2; c++)
        if (kings[c] != 1) {
            snprintf(why, sizeof why, "%s has %d kings, expected 1", c ? "white" : "black", kings[c]);
            goto invalid;
        }
    for (int ty = 1; ty < 8; ty++) {
        total[ty] += pos->hands[0][ty] + pos->hands[1][ty];
        if (total[ty] > MAX_OF_TYPE[ty]) {
            snprintf(why, sizeof why, "%d pieces of type %c; shogi has %d", total[ty], LETTERS[ty],
                     MAX_OF_TYPE[ty]);
            goto invalid;
        }
    }
    return TB_OK;
bad:
    tb_quote(q, sizeof q, text, tn);
    tb_seterr(err, err_len, "malformed SFEN %s: %s", q, why);
    return TB_INVALID;
invalid:
    tb_quote(q, sizeof q, text, tn);
    tb_seterr(err, err_len, "SFEN %s: %s", q, why);
    return TB_INVALID;
}

static int tb_shogi_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    (void)pos;
    int to = move & 127, frm = (move >> 7) & 127;
    char a[3] = {0}, b[3] = {0};
    if (!shogi_code_ok(move)) return TB_INVALID;
    square_name(to, b);
    if (frm > DROP_BASE) return snprintf(buf, len, "%c*%s", LETTERS[frm - DROP_BASE], b);
    square_name(frm, a);
    return snprintf(buf, len, "%s%s%s", a, b, move & PROMOTE_FLAG ? "+" : "");
}

static int tb_shogi_text(const tb_position *pos, tb_out *o)
{
    static const int HAND_ORDER[7] = {6, 5, 7, 4, 3, 2, 1};   /* R B G S N L P, as SFEN writes */
    if (pos->side != 0 && pos->side != 1) return TB_INVALID;
    for (int r = 0; r < 9; r++) {
        int empty = 0;
        for (int f = 8; f >= 0; f--) {
            int code = pos->cells[f * 9 + r], t = code & 15;
            if (code == 0) { empty++; continue; }
            if (code < 0 || code > 31 || t < 1 || t > 14) return TB_INVALID;
            if (empty) { tb_putn(o, empty); empty = 0; }
            char l = t > KING ? LETTERS[t - PROMOTED] : LETTERS[t];
            if (t > KING) tb_put(o, '+');
            tb_put(o, code < 16 ? l : (char)(l + 32));
        }
        if (empty) tb_putn(o, empty);
        if (r < 8) tb_put(o, '/');
    }
    tb_put(o, ' ');
    tb_put(o, "bw"[pos->side]);
    tb_put(o, ' ');
    int any = 0;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 7; i++) {
            int t = HAND_ORDER[i], k = pos->hands[c][t];
            if (k < 0 || k > 18) return TB_INVALID;
            if (!k) continue;
            if (k > 1) tb_putn(o, k);
            tb_put(o, c == 0 ? LETTERS[t] : (char)(LETTERS[t] + 32));
            any = 1;
        }
    if (!any) tb_put(o, '-');
    tb_puts(o, " 1");
    return TB_OK;
}

/* ------------------------------------------------------------------ the game (games.c) */

static int probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    (void)plies_left;
    return tb_probe_shogi(tb, pos->cells, (const int8_t (*)[8])pos->hands, pos->side, v);
}

const tb_game_ops tb_shogi_game = {
    .name = "shogi", .parse = tb_shogi_parse, .text = tb_shogi_text,
    .move_text = tb_shogi_move_text, .probe = probe_position, .prepare = tb_shogi_prepare
};
