/* tbprobe DIR GAME "POSITION" [PLIES_LEFT] [--json] [--index] [--verify] [--populate]: one lookup
 * from probe files, printing the fields `tbdb lookup --json` prints (outcome, distance, score,
 * best_move).  --index opens with TB_OPEN_INDEX (worth it for many positions from standard
 * input), --verify with TB_OPEN_VERIFY (every file's SHA-256 against the manifest),
 * --populate with TB_OPEN_POPULATE (every page mapped at once: no page fault while probing).  Errors: one line
 * on stderr, exit status 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>
#include "tbprobe.h"

static int usage(void)
{
    fprintf(stderr, "usage: tbprobe DIR GAME POSITION [PLIES_LEFT] [--json] [--scoring standard|codingame] [--index] [--verify] [--populate]\n");
    return 2;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 32) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static int fail(int batch, const char *msg)
{
    if (batch) {
        printf("{\"error\": ");
        json_string(msg);
        printf("}\n");
    } else {
        fprintf(stderr, "tbprobe: error: %s\n", msg);
    }
    return 2;
}

/* answer one position: the JSON line (or the text form); errors as one line on stderr, or
 * in batch mode as {"error": ...} on stdout.  Returns the exit status. */
static int scoring;   /* --scoring codingame (UTTT) */

static int answer(const tb_base *tb, const char *game, const char *text, int plies, int json, int batch)
{
    char err[512];
    tb_position pos;
    if (tb_parse(game, text, &pos, err, sizeof err) != TB_OK) return fail(batch, err);
    pos.scoring = scoring;
    /* the text as given, bar surrounding space (errors quote it) */
    size_t a = 0, n = strlen(text);
    while (a < n && (text[a] == ' ' || (text[a] >= '\t' && text[a] <= '\r'))) a++;
    while (n > a && (text[n - 1] == ' ' || (text[n - 1] >= '\t' && text[n - 1] <= '\r'))) n--;
    char shown[1024];
    snprintf(shown, sizeof shown, "%.*s", (int)(n - a), text + a);
    tb_value v;
    int st = tb_probe_position(tb, &pos, plies, &v);
    int rc = 0;
    if (st == TB_CHANGED) {
        const char *file = tb_changed(tb);
        char msg[1200];
        snprintf(msg, sizeof msg, "probe file '%s' changed since it was opened (rewritten or "
                 "truncated in place); open the directory again", file ? file : "?");
        rc = fail(batch, msg);
    } else if (st < 0) {
        const char *why = st == TB_ILLEGAL ? "cannot arise (the tables mark it illegal)"
                        : st == TB_MISSING ? "is in no table of these probe files"
                        : st == TB_INVALID ? "is not a position of the game"
                        : "is in a damaged probe file (run: tbdb verify --db DIR)";
        char msg[1200];
        snprintf(msg, sizeof msg, "%s position '%s' %s", game, shown, why);
        rc = fail(batch, msg);
    } else {
        /* the position as tbdb writes it (a FEN read with four fields gets its counters) */
        char canonical[1024];
        if (tb_position_text(&pos, canonical, sizeof canonical) > 0)
            snprintf(shown, sizeof shown, "%s", canonical);
        char move[64] = "";
        int has_move = v.move >= 0 && tb_move_text(&pos, v.move, move, sizeof move) > 0;
        if (json) {
            printf("{\"game\": ");
            json_string(game);
            printf(", \"position\": ");
            json_string(shown);
            printf(", \"outcome\": \"%s\", \"distance\": ", tb_outcome_name(v.result));
            if (pos.game == TB_OWARE) printf("null"); else printf("%d", v.distance);
            printf(", \"best_move\": ");
            if (has_move) json_string(move); else printf("null");
            if (pos.game == TB_OWARE) printf(", \"score\": %d, \"turns_left\": %d", v.score, plies < 0 ? 200 : plies);
            printf("}\n");
        } else {
            printf("position:  %s\n", shown);
            if (pos.game == TB_OWARE) printf("score:     %d\n", v.score);
            else printf("outcome:   %s\ndistance:  %d\n", tb_outcome_name(v.result), v.distance);
            printf("best move: %s\n", has_move ? move : "none");
        }
    }
    return rc;
}

/* Batch mode reads standard input itself: a line of any length is one line (the longest kept
 * is MAX_LINE bytes; a longer one is answered with one error, not in pieces), and the answers
 * written so far are flushed whenever reading would wait, so that a co-process that writes a
 * line and waits for its answer gets it, while a file of positions is answered in full
 * buffers. */
#define MAX_LINE 4095
static unsigned char in_buf[1 << 16];
static size_t in_at, in_end;
static int in_eof;

static int next_byte(void)
{
    if (in_at == in_end) {
        if (in_eof) return EOF;
        fflush(stdout);   /* reading may wait: what is answered goes out first */
        ssize_t got;
        do got = read(0, in_buf, sizeof in_buf); while (got < 0 && errno == EINTR);
        if (got <= 0) { in_eof = 1; return EOF; }
        in_at = 0;
        in_end = (size_t)got;
    }
    return in_buf[in_at++];
}

/* the next line without its newline into buf (at most cap - 1 bytes of it, NUL-terminated):
 * its whole length, or -1 at the end of the input */
static long read_line(char *buf, size_t cap)
{
    long n = 0;
    int c;
    while ((c = next_byte()) != EOF && c != '\n') {
        if ((size_t)n + 1 < cap) buf[n] = (char)c;
        if (n < LONG_MAX) n++;
    }
    if (c == EOF && n == 0) return -1;
    buf[(size_t)n < cap ? (size_t)n : cap - 1] = 0;
    return n;
}

/* a probe keeps each file's descriptor to check it did not change (watch.c): a directory of
 * more files than half the soft limit is watched by path instead, slower; the hard limit is
 * this process's to take */
static void more_descriptors(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    more_descriptors();
    const char *args[4];
    int nargs = 0, json = 0;
    unsigned flags = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--index") == 0) flags |= TB_OPEN_INDEX;
        else if (strcmp(argv[i], "--verify") == 0) flags |= TB_OPEN_VERIFY;
        else if (strcmp(argv[i], "--populate") == 0) flags |= TB_OPEN_POPULATE;
        else if (strcmp(argv[i], "--scoring") == 0 && i + 1 < argc) {
            const char *sc = argv[++i];
            if (strcmp(sc, "standard") && strcmp(sc, "codingame")) {
                fprintf(stderr, "tbprobe: error: scoring is 'standard' or 'codingame', not '%s'\n", sc);
                return 2;
            }
            scoring = strcmp(sc, "codingame") == 0;
        }
        else if (strncmp(argv[i], "--", 2) == 0) {   /* no position of any game starts so */
            fprintf(stderr, "tbprobe: error: unknown option '%s'%s\n", argv[i],
                    strcmp(argv[i], "--scoring") == 0 ? " without its value (standard or codingame)" : "");
            return 2;
        }
        else if (nargs < 4) args[nargs++] = argv[i];
        else return usage();
    }
    if (nargs < 3) return usage();
    const char *dir = args[0], *game = args[1], *text = args[2];
    int plies = -1;
    if (nargs == 4) {
        char *end;
        long p = strtol(args[3], &end, 10);
        if (!*args[3] || *end || p < 1 || p > 200) {
            fprintf(stderr, "tbprobe: error: plies left must be an integer from 1 to 200, not '%s'\n", args[3]);
            return 2;
        }
        plies = (int)p;
    }
    char err[512];
    if (tb_game_of(game) < 0) {
        fprintf(stderr, "tbprobe: error: unknown game '%s'\n", game);
        return 2;
    }
    if (plies >= 0 && tb_game_of(game) != TB_OWARE && strcmp(text, "-") != 0) {
        fprintf(stderr, "tbprobe: error: plies left '%s' is for oware positions only, not %s\n",
                args[3], game);
        return 2;
    }
    tb_base *tb;
    if (tb_open_flags(dir, flags, &tb, err, sizeof err) != TB_OK) {
        fprintf(stderr, "tbprobe: error: %s\n", err);
        return 2;
    }
    if (strcmp(text, "-") == 0) {     /* one position a line ("TEXT" or "GAME<TAB>TEXT") */
        char line[MAX_LINE + 1];
        long n;
        while ((n = read_line(line, sizeof line)) >= 0) {
            if (n > MAX_LINE || (size_t)n != strlen(line)) {   /* one answer for it, whole */
                char msg[200];
                if (n > MAX_LINE)
                    snprintf(msg, sizeof msg, "a line of %ld bytes: longer than any position "
                             "(at most %d bytes a line)", n, MAX_LINE);
                else
                    snprintf(msg, sizeof msg, "a line holding a NUL byte: not a position");
                fail(1, msg);
                continue;
            }
            char *tab = strchr(line, '\t');
            const char *g = game, *t = line;
            if (tab) { *tab = 0; g = line; t = tab + 1; }
            answer(tb, g, t, plies, 1, 1);
        }
        fflush(stdout);
        tb_close(tb);
        return 0;
    }
    int rc = answer(tb, game, text, plies, json, 0);
    tb_close(tb);
    return rc;
}
