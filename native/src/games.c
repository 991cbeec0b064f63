/* The games the library probes: one registry, indexed by tb_game, of what each game's file
 * provides (tb_game_ops), and the entry points that go through it (names, text, probes of a
 * parsed position, move text).  A new game adds its file, its tb_game value and one entry. */
#include <string.h>
#include "internal.h"

static const tb_game_ops *const GAMES[TB_GAMES] = {
    [TB_CDC] = &tb_cdc_game,
    [TB_OWARE] = &tb_oware_game,
    [TB_SHOGI] = &tb_shogi_game,
    [TB_CHINESE_CHECKERS] = &tb_cc_game,
    [TB_UTTT] = &tb_uttt_game,
    [TB_TICTACTOE] = &tb_ttt_game,
    [TB_CHESS] = &tb_chess_game,
};

const tb_game_ops *tb_game_ops_of(tb_game game)
{
    return (unsigned)game < TB_GAMES ? GAMES[game] : NULL;
}

const char *tb_game_name(tb_game game)
{
    return (unsigned)game < TB_GAMES ? GAMES[game]->name : "?";
}

int tb_game_of(const char *name)
{
    for (int g = 0; g < TB_GAMES; g++)
        if (strcmp(name, GAMES[g]->name) == 0) return g;
    return -1;
}

int tb_parse(const char *game, const char *text, tb_position *pos, char *err, size_t err_len)
{
    memset(pos, 0, sizeof *pos);
    int g = game ? tb_game_of(game) : -1;
    if (g < 0) {
        tb_seterr(err, err_len, "unknown game '%s'", game ? game : "(null)");
        return TB_INVALID;
    }
    size_t n = strlen(text);
    while (n && (text[n - 1] == ' ' || (text[n - 1] >= '\t' && text[n - 1] <= '\r'))) n--;
    while (n && (*text == ' ' || (*text >= '\t' && *text <= '\r'))) { text++; n--; }
    pos->game = (tb_game)g;
    return GAMES[g]->parse(text, n, pos, err, err_len);
}

int tb_probe_position(const tb_base *tb, const tb_position *pos, int plies_left, tb_value *v)
{
    if ((unsigned)pos->game < TB_GAMES) return GAMES[pos->game]->probe(tb, pos, plies_left, v);
    v->result = v->distance = v->score = 0;
    v->move = -1;
    return tb_finish(v, TB_MISSING);
}

int tb_position_text(const tb_position *pos, char *buf, size_t len)
{
    tb_out o = {buf, len, 0};
    int rc = (unsigned)pos->game < TB_GAMES ? GAMES[pos->game]->text(pos, &o) : TB_INVALID;
    if (len) buf[rc == TB_OK && o.n < len ? o.n : 0] = 0;
    if (rc != TB_OK) return TB_INVALID;
    return o.n < len ? (int)o.n : TB_INVALID;        /* too small a buffer: nothing written */
}

int tb_move_text(const tb_position *pos, int32_t move, char *buf, size_t len)
{
    if (!len) return TB_INVALID;
    buf[0] = 0;
    if (move < 0 || (unsigned)pos->game >= TB_GAMES) return TB_INVALID;
    return GAMES[pos->game]->move_text(pos, move, buf, len);
}
