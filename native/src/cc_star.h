/* The small stars' coalition tables (cc_star.c), called by the Chinese Checkers game (cc.c). */
#ifndef TB_CC_STAR_H
#define TB_CC_STAR_H
#include "internal.h"

/* a "star{H}-{N}-{M}-lone{L}" table's name -> holes, players, marbles (0: not such a name) */
int tb_star_table_name(const char *name, int *holes, int *players, int *marbles);
int tb_star_prepare(tb_file *f, int holes, int players, int marbles, char *err, size_t err_len);
void tb_star_release(tb_file *f);
uint64_t tb_star_heap_bytes(const tb_file *f);
/* a position text starting "star13-", "star37-" or "star73-": m = -holes, pieces = players,
 * side = mover, constraint = the lone player (1) */
int tb_star_parse(const char *t, size_t n, tb_position *pos, char *err, size_t err_len);
int tb_star_text(const tb_position *pos, tb_out *o);
int tb_star_probe_position(const tb_base *tb, const tb_position *pos, tb_value *v);
const int8_t (*tb_star_nbr(const tb_position *pos))[6];
int tb_star_cells(const tb_position *pos);

#endif
