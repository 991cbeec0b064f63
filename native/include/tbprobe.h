/* tbprobe.h — probe tbdb's probe files (docs/probe-format.md) from C, C++, Rust or WebAssembly.
 *
 * A tb_base holds the probe files of one directory (`tbdb export --out DIR`), memory-mapped
 * (or read into memory where mmap is not available; or given as buffers, for WebAssembly).
 * Opening validates every file's header and section layout; a probe allocates nothing,
 * writes only to its output and may run on any number of threads at once.  Index tables come
 * in compressed streams (decoded a part of a block a probe; TB_OPEN_INDEX makes that part
 * small) or, exported with `tbdb export --direct`, in direct cells (one load a probe, several
 * times the size, nothing to index): the calls are the same.
 *
 *     tb_base *tb;
 *     char err[256];
 *     if (tb_open("probe/", &tb, err, sizeof err) != TB_OK) { fprintf(stderr, "%s\n", err); ... }
 *     int8_t board[32] = {...};              // CDC: a1 = 0 .. h4 = 31, colour * 7 + type, -1 empty
 *     tb_value v;
 *     if (tb_probe_cdc(tb, board, 0, &v) >= 0) printf("%d %d %d\n", v.result, v.distance, v.move);
 *     tb_close(tb);
 *
 * Every probe returns a status (also in v.status): TB_OK (result, distance and move filled),
 * TB_GAME_OVER (the game has ended: result and distance say how), or a negative error:
 * TB_ILLEGAL (the table marks the position as one the rules forbid), TB_MISSING (no table of
 * this tb_base holds it), TB_INVALID (the arrays are not a position of the game), TB_DAMAGED
 * (a file's data does not decode), TB_CHANGED (a file was rewritten or truncated in place since the
 * base opened it: tb_changed names it).
 *
 * A file changed under an open base: a mapped file keeps its inode, and a rewrite in place or a
 * truncation shows through the mapping.  Every value a probe reads is checked against the
 * file's identity (device, inode, size, modification and change times) taken when it was opened,
 * by one fstat after the read: a changed file answers TB_CHANGED from then on, never a value
 * read from its new bytes, and nothing read from the mapping is used without a bounds check.
 * A read of a page a truncation took away (SIGBUS) is absorbed (tb_guard_mapping): the probe sees
 * zeros there and then TB_CHANGED.  Replacing a file by rename (a new inode) changes nothing for
 * an open base: it keeps probing the file it opened until it is closed.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TBPROBE_VERSION "0.1.0"

/* statuses */
enum {
    TB_OK = 0,
    TB_GAME_OVER = 1,
    TB_ILLEGAL = -1,
    TB_MISSING = -2,
    TB_INVALID = -3,
    TB_DAMAGED = -4,
    TB_IO = -5,       /* tb_open: a file or directory could not be read */
    TB_NOMEM = -6,
    TB_CHANGED = -7   /* a probe: a file of the base changed in place since it was opened */
};

/* results, for the side to move */
enum { TB_LOSS = -1, TB_DRAW = 0, TB_WIN = 1 };

/* games */
typedef enum tb_game {
    TB_CDC = 0, TB_OWARE = 1, TB_SHOGI = 2, TB_CHINESE_CHECKERS = 3, TB_UTTT = 4,
    TB_TICTACTOE = 5,
    TB_CHESS = 6,
    TB_GAMES = 7
} tb_game;

typedef struct tb_value {
    int status;      /* as returned */
    int result;      /* TB_WIN / TB_DRAW / TB_LOSS (win/draw/loss games) */
    int distance;    /* plies to the end with best play (0: draw or game over) */
    int score;       /* Oware: net score for the side to move with the plies left */
    int32_t move;    /* best move as the game's move code on the position probed; -1 none */
} tb_value;

typedef struct tb_base tb_base;

/* Open every probe file of DIR (DIR/<game>/<table>.tbp, as `tbdb export` writes them).
 * Returns TB_OK and *out, or an error status with a one-line message in err (if err_len).
 * Checks each file against DIR/manifest.json (listed, same size; TB_DAMAGED naming the file
 * otherwise) and each file's structure; tb_open_flags adds: */
int tb_open(const char *dir, tb_base **out, char *err, size_t err_len);

enum {
    TB_OPEN_INDEX = 1,   /* tb_index after opening: faster probes for memory and a pass over
                            every file (see tb_index) */
    TB_OPEN_VERIFY = 2,  /* tb_verify after opening: every file's SHA-256 against the manifest */
    TB_OPEN_POPULATE = 4, /* map every page of every file into the process after opening (Linux
                            5.14+, MADV_POPULATE_READ; elsewhere MADV_WILLNEED or nothing), so
                            that no probe takes a page fault: a fault costs about as much as a
                            probe on a real machine and 6-60 us in a virtual one.  Costs about
                            0.1 ms a MB of files when they are in the page cache */
    TB_OPEN_LAZY = 8,    /* read only the manifest now; the first probe that needs a table opens
                            its file, with the checks above, TB_OPEN_VERIFY's and TB_OPEN_INDEX's
                            for that file (TB_OPEN_POPULATE is not applied), before any other
                            thread sees it.  Opening costs the manifest whatever the directory
                            holds (CDC 2-4 pieces: 1,099 files, 70-165 ms eagerly); a table's
                            first probe pays for its file.  Probes stay thread-safe.  A file
                            that fails a check is refused for good: its probes answer
                            TB_MISSING, and tb_lazy_status says why */
    TB_OPEN_UNWATCHED = 16 /* no check of a file's identity after each value a probe reads (one
                            fstat: 0.1-0.2 us on a real machine, about 0.5 us in a virtual
                            one, where a probe takes 0.2-1 us): for an application whose files
                            are only ever replaced by rename.  A file changed in place then
                            still cannot crash a probe or make it read outside its mapping,
                            but its probes may answer wrong values instead of TB_CHANGED */
};
int tb_open_flags(const char *dir, unsigned flags, tb_base **out, char *err, size_t err_len);

/* A lazy base's files larger than max_bytes are not opened by probes (they answer TB_MISSING),
 * for an application that opens those its own way (tb_add_buffer).  Call it before probing. */
void tb_lazy_limit(tb_base *tb, uint64_t max_bytes);

/* A lazy base's files larger than max_bytes open without the base's TB_OPEN_VERIFY and
 * TB_OPEN_INDEX (their listing, size, structure and table still checked): a large file's
 * first probe then costs a mapping, not a pass over the file.  tbdb's Python reader checks
 * its files the same way (whole only up to 16 MiB).  Default: every file gets both. */
void tb_lazy_check_limit(tb_base *tb, uint64_t max_bytes);

/* Where a lazy base stands with one table: TB_OK once its file is open; TB_MISSING if the
 * manifest does not list it, no probe has needed it yet, or it is over the lazy limit; else the
 * status its file was refused with, the reason in err (as tb_open would have worded it). */
int tb_lazy_status(const tb_base *tb, const char *game, const char *table, char *err,
                   size_t err_len);

/* Decode every stream of the base's index tables once, checking that each block decodes to
 * its slots, and keep 16 checkpoints a block: a probe then decodes a sixteenth of a block at
 * most.  Costs 64 bytes a block a stream (about a fifth of the files' size) and the time to
 * decode the files once.  Idempotent; not thread-safe with probes. */
int tb_index(tb_base *tb, char *err, size_t err_len);

/* Bytes of the files a base holds (mapped, or read where there is no mmap) and of what it
 * computed from them (stream tables, tb_index's checkpoints, Chinese Checkers class numbers,
 * UTTT's board codes): its memory beside the page cache. */
void tb_memory(const tb_base *tb, uint64_t *file_bytes, uint64_t *table_bytes);

/* Check every file opened from a directory against the SHA-256 its manifest lists (reads every
 * byte: about 2-3 s a GB).  TB_OK, or TB_DAMAGED with the file named in err.  Buffers added
 * with tb_add_buffer have no manifest and are not checked. */
int tb_verify(const tb_base *tb, char *err, size_t err_len);

/* An empty base, then files added one by one: a path, or a buffer the caller keeps alive and
 * unchanged until tb_close (WebAssembly: the bytes of a file fetched by JavaScript). Adding is
 * not thread-safe; probing after the last add is. */
tb_base *tb_new(void);
int tb_add_file(tb_base *tb, const char *path, char *err, size_t err_len);
int tb_add_buffer(tb_base *tb, const void *data, size_t size, const char *name,
                  char *err, size_t err_len);
void tb_close(tb_base *tb);

/* The file a probe of this base last found changed since it was opened (TB_CHANGED): its path,
 * or NULL if none was.  Once changed, a file stays refused until the base is closed. */
const char *tb_changed(const tb_base *tb);

/* Reads of mapped memory whose file may shrink (a probe file truncated under an open reader):
 * register a range, and a read past the file's new end (SIGBUS) in it maps a page of zeros
 * there and returns, counted by tb_guard_faults, instead of killing the process.  The handler
 * is installed on the first registration and passes a SIGBUS outside every registered range to
 * the handler installed before it.  libtbprobe registers its own mappings; a reader with
 * mappings of its own (tbdb's Python readers) registers them here.  tb_guard_mapping: 0, or -1
 * (no memory, or a platform without signals: WebAssembly, Windows).  Thread-safe. */
int tb_guard_mapping(const void *addr, size_t length);
void tb_unguard_mapping(const void *addr);
uint64_t tb_guard_faults(void);

/* the tables held: count, and the game and name of the i-th (sorted by game, then name) */
int tb_table_count(const tb_base *tb);
const char *tb_table_name(const tb_base *tb, int i, tb_game *game);

/* ----------------------------------------------------------------- probes on array forms */

/* CDC: board[32] piece codes (a1 = 0, h1 = 7, a4 = 24 .. h4 = 31; colour * 7 + type with
 * K G M R N C P = 0..6, red 0 / black 1; -1 empty), side 0 red / 1 black to move.  Move codes:
 * from * 32 + to, + 1024 for a capture. */
int tb_probe_cdc(const tb_base *tb, const int8_t board[32], int side, tb_value *v);

/* Chinese Checkers on the m x m rhombus (m = 3..9): cells[m*m] row by row from the top tip
 * (0 empty, 1 first player, 2 second player), mover 1 or 2.  Move codes: from * 128 + to. */
int tb_probe_chinese_checkers(const tb_base *tb, int m, const int8_t *cells, int mover,
                              tb_value *v);

/* Chinese Checkers on the star, one player alone: cells[121] (row by row from the top tip, 1 a
 * piece, 1 to 5 pieces) heading for goal point 0..5 (0 top, clockwise; 3 bottom) -> TB_WIN with
 * the fewest moves in v.distance (table "star-distance-K"); no best move is stored (v.move -1).
 * A parsed placement has m = 0, pieces K and side = the goal. */
int tb_probe_star_distance(const tb_base *tb, const int8_t cells[121], int goal, tb_value *v);

/* Chinese Checkers on a small star of `holes` holes (13, 37, 73) for `players` (2, 3, 4, 6)
 * with equal marbles: cells row by row from the top tip (0 empty, else the player 1..players),
 * mover 1..players, and the lone player 1..players who plays against the coalition of the
 * others -> the value for the mover's side (TB_WIN: its side forces a win), the distance in
 * plies, the best move (from * 64 + to; 4096 the pass); a finished game (the last mover has
 * won) its winner's side's result at distance 0, TB_ILLEGAL where another player has all its
 * marbles home.  A parsed position has m = -holes, pieces = players, side = mover,
 * constraint = the lone player (1: set it after tb_parse to ask for another). */
int tb_probe_cc_star(const tb_base *tb, int holes, int players, const int8_t *cells, int mover,
                     int lone, tb_value *v);

/* Tic-tac-toe: cells[9] (a1.. row by row as tbdb's text: 0 empty, 1 X, 2 O); the side to move
 * follows from the counts.  Move codes: the cell 0..8. */
int tb_probe_tictactoe(const tb_base *tb, const int8_t cells[9], tb_value *v);

/* Oware: houses[12] seen from the player to move (houses 0-5 its own), plies_left 1..200 (0:
 * nothing left to gain, TB_GAME_OVER with score 0) -> v.score (net seeds the mover gains with
 * best play; v.result its sign) and v.move, the best house 0-5.  Book "seeds-NN". */
int tb_probe_oware(const tb_base *tb, const int8_t houses[12], int plies_left, tb_value *v);

/* Shogi: board[81] (square (file - 1) * 9 + rank, rank 0 = a; piece code owner * 16 + type,
 * P L N S B R G K = 1..8, promoted P..R = 9..14, 0 empty), hands[2][8] (black's then white's
 * counts by type 1..7; index 0 unused), side 0 black / 1 white to move.  Table "K<pieces>K"
 * (strongest first: R B G S N L P); bare kings: TB_GAME_OVER, a draw.  Move codes: to | from << 7
 * (from = 80 + type for a drop) | 1 << 14 for a promotion. */
int tb_probe_shogi(const tb_base *tb, const int8_t board[81], const int8_t hands[2][8], int side,
                   tb_value *v);

/* Ultimate Tic-Tac-Toe: cells[81] (index 9 * board + cell, both row by row: 0 empty, 1 x, 2 o;
 * a closed board may be given by its status alone, its nine cells all 3 won by x, 4 won by o,
 * 5 drawn), side 0 x / 1 o to move, constraint 0..8 or -1 (any board), scoring 0 standard /
 * 1 codingame (the table "<scoring>/positions").  Move codes: 9 * board + cell. */
int tb_probe_uttt(const tb_base *tb, const int8_t cells[81], int side, int constraint, int scoring,
                  tb_value *v);

/* Chess: board[64] (a1 = 0, b1 = 1 .. h8 = 63; 0 empty, white P N B R Q K = 1..6, black the
 * same + 8), side 0 white / 1 black to move, ep -1 or the en passant square (honoured where a
 * legal capture uses it: the position is then valued through its children, as tbdb's lookups
 * value it).  Table: the material as Syzygy names it, the stronger side first ("KQvKR", also
 * answering KRvKQ); mate, stalemate and bare kings: TB_GAME_OVER; the side not to move in check:
 * TB_ILLEGAL.  v.distance: plies to mate.  Move codes: from + 64 * to + 4096 * promotion
 * (N B R Q = 2..5). */
int tb_probe_chess(const tb_base *tb, const int8_t board[64], int side, int ep, tb_value *v);

/* ----------------------------------------------------------------- text */

/* A position of any game in its array form, as tb_parse reads it from tbdb's text. */
typedef struct tb_position {
    tb_game game;
    int side;         /* CDC 0/1; Chinese Checkers mover 1/2; Shogi, UTTT 0/1 */
    int m;            /* Chinese Checkers: board size (0: a star distance placement; -holes: a small star) */
    int pieces;       /* Chinese Checkers: pieces a side */
    int constraint;   /* UTTT: the board to play in (-1 any); a small star: the lone player */
    int scoring;      /* UTTT: 0 standard, 1 codingame (set it after tb_parse) */
    int8_t cells[128];
    int8_t hands[2][8];
    int ep;           /* chess: the en passant square a legal capture uses, else -1 */
    int halfmove;     /* chess: the FEN's move counters (kept for the text) */
    int fullmove;
} tb_position;

/* Read a position written as tbdb writes it (surrounding white space ignored).  `game` is the
 * tbdb name ("cdc", "chinese-checkers", "tictactoe", ...).  TB_OK, or TB_INVALID with a one-line
 * message quoting the text in err. */
int tb_parse(const char *game, const char *text, tb_position *pos, char *err, size_t err_len);

/* Probe a parsed position (plies_left: Oware only; -1 the most, 200). */
int tb_probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v);

/* Write a move code of a position (as a probe returns it) the way tbdb writes the move:
 * "c1xa1" (CDC), "12-17" or "3-12-23" (Chinese Checkers), "4" (tic-tac-toe), "4:0" (UTTT), "3" (Oware), "8h2b+" or "G*5b" (Shogi, USI), "e7e8q" (chess, UCI).  Returns the
 * length written (buf is NUL-terminated), or a negative status. */
int tb_move_text(const tb_position *pos, int32_t move, char *buf, size_t len);

/* The text tbdb writes for a position filled in the array form (game, side, cells, and per
 * game m and pieces, constraint, hands as tb_parse fills them): CDC "8/8/8/pKC5 r", SFEN with
 * the hands in R B G S N L P order and move number 1, ...; tb_parse reads it back.  Returns its
 * length, or TB_INVALID (codes out of range, or a buffer too small: then buf is ""). */
int tb_position_text(const tb_position *pos, char *buf, size_t len);

/* the game's tbdb name, and the game of a name (-1: unknown) */
const char *tb_game_name(tb_game game);
int tb_game_of(const char *name);

/* "win", "draw", "loss" */
const char *tb_outcome_name(int result);

#ifdef __cplusplus
}
#endif
#endif
