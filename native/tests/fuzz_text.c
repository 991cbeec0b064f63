/* Fuzz the text parsers (built with AddressSanitizer and UndefinedBehaviorSanitizer by
 * `make build/fuzz_text`): random strings and mutations of valid positions, each parsed from
 * an exactly sized heap copy (a read past it is caught); every refusal is one non-empty line,
 * every accepted position writes move text into small buffers without overflow, and its own
 * text (tb_position_text), which parses back to the same position and writes the same text.
 * usage: fuzz_text SEED COUNT  -> prints "accepted N refused M" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tbprobe.h"

static const char *GAMES[] = {"cdc", "chinese-checkers", "tictactoe", "oware", "shogi", "uttt",
                              "chess"};
static const char *SEEDS[] = {
    "8/8/8/pKC5 r", "4g2K/8/8/8 b", "kgmrncpP/8/KGMRNCp1/8 r",
    "4x4-1 ./../.1./..../.2./../. 1", "3x3-1 1/../.../../2 2",
    "7x7-3 1/11/1../..../...../....../......./....../...../..../2../22/2 1",
    "x...o....", "xxxoo....", ".........",
    "0 0 0 0 1 1 0 0 1 0 0 0", "4 4 4 4 4 4 4 4 4 4 4 4",
    "8k/9/9/9/9/9/9/9/K8 b G 1", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "4k4/9/4G4/9/9/9/9/9/4K4 w 2P3p 12", "sfen startpos",
    "XXXXXXXXXxo.oxooxoox..oxox.ooxxxo.oooxoxx.xooxooxox..oOOOOOOOOOXXXXXXXXXxx.xoxo.. x 8",
    "start",
    "8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "8/8/7k/8/3Pp3/8/7K/8 b - d3 0 1", "8/1P6/k7/8/K7/8/8/8 w - -",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "star-distance-1 1/../.../..../............./............/.........../........../........./"
    "........../.........../............/............./..../.../../. 3",
};
static const char ALPHABET[] = "./12345678KGMRNCPkgmrncpxo rb-0123456789x\t\n\\'\"\x01\xff+*XODwBSLGQqde";

static unsigned long long state;
static unsigned rnd(void)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(state >> 33);
}

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    state = strtoull(argv[1], NULL, 10);
    long count = strtol(argv[2], NULL, 10), accepted = 0, refused = 0;
    char text[512];
    for (long i = 0; i < count; i++) {
        size_t n;
        if (rnd() % 3 == 0) {
            n = rnd() % 80;
            for (size_t j = 0; j < n; j++) text[j] = ALPHABET[rnd() % (sizeof ALPHABET - 1)];
        } else {
            const char *s = SEEDS[rnd() % (sizeof SEEDS / sizeof *SEEDS)];
            n = strlen(s);
            memcpy(text, s, n);
            int edits = 1 + (int)(rnd() % 4);
            for (int e = 0; e < edits; e++) {
                unsigned kind = rnd() % 3, at = n ? rnd() % (unsigned)n : 0;
                char c = ALPHABET[rnd() % (sizeof ALPHABET - 1)];
                if (kind == 0 && n) text[at] = c;
                else if (kind == 1 && n + 1 < sizeof text) { memmove(text + at + 1, text + at, n - at); text[at] = c; n++; }
                else if (n) { memmove(text + at, text + at + 1, n - at - 1); n--; }
            }
        }
        char *heap = malloc(n + 1);    /* exactly sized: ASan sees any read past it */
        memcpy(heap, text, n);
        heap[n] = 0;
        for (size_t g = 0; g < sizeof GAMES / sizeof *GAMES; g++) {
            tb_position pos;
            char err[200];
            err[0] = 0;
            int rc = tb_parse(GAMES[g], heap, &pos, err, sizeof err);
            if (rc == TB_OK) {
                accepted++;
                char small[6];
                for (int k = 0; k < 8; k++) tb_move_text(&pos, (int32_t)(rnd() % 20000) - 10, small, sizeof small);
                char wrote[300], again[300];
                tb_position back;
                int len = tb_position_text(&pos, wrote, sizeof wrote);
                if (len <= 0 || tb_position_text(&pos, small, sizeof small) != TB_INVALID || small[0] ||
                    tb_parse(GAMES[g], wrote, &back, err, sizeof err) != TB_OK ||
                    tb_position_text(&back, again, sizeof again) != len || strcmp(wrote, again) != 0 ||
                    memcmp(back.cells, pos.cells, sizeof pos.cells) || back.side != pos.side) {
                    fprintf(stderr, "position wrote of %s %s: '%s' does not read back (%s)\n",
                            GAMES[g], heap, len > 0 ? wrote : "", err);
                    return 1;
                }
            } else {
                refused++;
                if (!err[0] || strchr(err, '\n')) {
                    fprintf(stderr, "bad error line for %s %s: '%s'\n", GAMES[g], heap, err);
                    return 1;
                }
            }
        }
        free(heap);
    }
    printf("accepted %ld refused %ld\n", accepted, refused);
    return 0;
}
