"""Chinese Checkers (CLI and SQL name ``chinese-checkers``; docs/rules/chinese_checkers.md): two
players on the m x m rhombus, strongly solved, and perft and distance tables on the star.

    position.py   Move, Position (rhombus) and StarPosition, their text forms, moves, perft
    tables.py     table names, ``RhombusTable`` (the index space) and ``DistanceTable``
    distance.py   a lone player on the star (``Placement``) and its distance tables' values
    game.py       ``ChineseCheckersGame``, the plug-in the registry names

Kernels: ``tbdb.solvers.chinese_checkers``.  SQL views: ``cc_positions``, ``cc_distance``.
"""
from tbdb.games.chinese_checkers.position import (BOARD_SIZES, PIECE_COUNTS, STAR_PIECES,
                                                  STAR_SEATS, Cell, Move, Position, StarPosition,
                                                  check_players, perft_divide)
from tbdb.games.chinese_checkers.game import ChineseCheckersGame

__all__ = ["BOARD_SIZES", "PIECE_COUNTS", "STAR_PIECES", "STAR_SEATS", "Cell",
           "ChineseCheckersGame", "Move", "Position", "StarPosition", "check_players",
           "perft_divide"]
