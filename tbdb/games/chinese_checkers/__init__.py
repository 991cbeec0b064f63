"""Chinese Checkers (CLI and SQL name ``chinese-checkers``; docs/rules/chinese_checkers.md): two
players on the m x m rhombus, strongly solved; 2, 3, 4 and 6 players on the small stars as
coalition games; perft and distance tables on the 121-hole star.

    position.py     Move, Position (rhombus) and StarPosition, their text forms, moves, perft
    tables.py       table names, ``RhombusTable`` (the index space) and ``DistanceTable``
    distance.py     a lone player on the star (``Placement``) and its distance tables' values
    small_star.py   ``SmallStarPosition``: the 13-, 37- and 73-hole stars' positions and moves
    stars.py        ``StarSpace``: a small star's placements and their index
    star_build.py   the one-byte coalition solve, saved and resumed
    star_tables.py  the small stars' tables: names, build, lookups for every lone player
    rhombus_batch.py  the rhombus's batch form checked
    game.py         ``ChineseCheckersGame``, the plug-in the registry names

Kernels: ``tbdb.solvers.chinese_checkers``.  SQL views: ``cc_positions``, ``cc_distance``,
``cc_star_positions``, ``cc_star_coalitions``.
"""
from tbdb.games.chinese_checkers.position import (BOARD_SIZES, PIECE_COUNTS, STAR_PIECES,
                                                  STAR_SEATS, Cell, Move, Position, StarPosition,
                                                  check_players, perft_divide)
from tbdb.games.chinese_checkers.game import ChineseCheckersGame

__all__ = ["BOARD_SIZES", "PIECE_COUNTS", "STAR_PIECES", "STAR_SEATS", "Cell",
           "ChineseCheckersGame", "Move", "Position", "StarPosition", "check_players",
           "perft_divide"]
