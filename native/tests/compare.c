/* Probe many array-form rows in one process, for the tests' comparisons with Python:
 *   compare DIR GAME WIDTH ROWS OUT [M]
 * ROWS: n records of WIDTH int8 cells (Shogi: 81 squares, then the hands' 2 x 8), then int32 side (Oware: plies left) and int32
 * constraint (UTTT; a small star's players); OUT: n records of int32 status, result (Oware: score), distance, move.
 * Every row is probed three times, on a base opened plainly, on one opened with TB_OPEN_INDEX and
 * TB_OPEN_VERIFY, and on a lazy one (TB_OPEN_LAZY | TB_OPEN_INDEX | TB_OPEN_VERIFY: each file
 * opened by the first row that needs it): a row they answer differently exits 3 naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tbprobe.h"

int main(int argc, char **argv)
{
    if (argc < 6) return 2;
    int width = atoi(argv[3]), m = argc > 6 ? atoi(argv[6]) : 0;
    int game = tb_game_of(argv[2]);
    char err[512];
    tb_base *bases[3];
    if (game < 0 || width <= 0 || width > 128) return 2;
    if (tb_open(argv[1], &bases[0], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    if (tb_open_flags(argv[1], TB_OPEN_INDEX | TB_OPEN_VERIFY, &bases[1], err, sizeof err) ||
        tb_open_flags(argv[1], TB_OPEN_LAZY | TB_OPEN_INDEX | TB_OPEN_VERIFY, &bases[2], err,
                      sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    FILE *in = fopen(argv[4], "rb"), *out = fopen(argv[5], "wb");
    if (!in || !out) return 2;
    int8_t cells[128];
    int32_t extra[2], res[4], first[4];
    long row = 0;
    while (fread(cells, 1, (size_t)width, in) == (size_t)width && fread(extra, 4, 2, in) == 2) {
      for (int b = 0; b < 3; b++) {
        tb_base *tb = bases[b];
        tb_value v;
        switch (game) {
        case TB_CDC: tb_probe_cdc(tb, cells, extra[0], &v); break;
        case TB_CHINESE_CHECKERS:   /* m < 0: a small star of -m holes, players in constraint */
            if (m < 0) tb_probe_cc_star(tb, -m, extra[1], cells, extra[0], 1, &v);
            else tb_probe_chinese_checkers(tb, m, cells, extra[0], &v);
            break;
        case TB_TICTACTOE: tb_probe_tictactoe(tb, cells, &v); break;
        case TB_UTTT: tb_probe_uttt(tb, cells, extra[0], extra[1], 0, &v); break;
        case TB_OWARE: tb_probe_oware(tb, cells, extra[0], &v); v.result = v.score; break;
        case TB_SHOGI: tb_probe_shogi(tb, cells, (const int8_t (*)[8])(cells + 81), extra[0], &v); break;
        case TB_CHESS: tb_probe_chess(tb, cells, extra[0], extra[1], &v); break;
        default: return 2;
        }
        res[0] = v.status; res[1] = v.result; res[2] = v.distance; res[3] = v.move;
        if (b == 0) memcpy(first, res, sizeof res);
        else if (memcmp(first, res, sizeof res) != 0) {
            fprintf(stderr, "row %ld: %s base answers %d %d %d %d, plain base %d %d %d %d\n",
                    row, b == 1 ? "indexed" : "lazy", res[0], res[1], res[2], res[3], first[0],
                    first[1], first[2], first[3]);
            return 3;
        }
      }
      fwrite(res, 4, 4, out);
      row++;
    }
    fclose(in);
    fclose(out);
    tb_close(bases[0]);
    tb_close(bases[1]);
    tb_close(bases[2]);
    return 0;
}
