"""Shogi endgames with drops and promotion (CLI and SQL name ``shogi``; docs/rules/shogi.md).

    position.py   Position and Move, their SFEN and USI text forms, legal moves, perft
    tables.py     table names (``KGK``, ``KRGK``) and their index spaces, ``Symmetry``, locate
    game.py       ``ShogiGame``, the plug-in the registry names: plan, lookups, batch, perft

Kernels: ``tbdb.solvers.shogi``.
"""
from tbdb.games.shogi.position import (BLACK, HAND_ORDER, LETTERS, MAX_OF_TYPE, START_SFEN, WHITE,
                                       Move, PieceCode, Position, Square, parse_square, perft,
                                       piece_text, square_name)
from tbdb.games.shogi.game import ShogiGame

__all__ = ["BLACK", "HAND_ORDER", "LETTERS", "MAX_OF_TYPE", "START_SFEN", "WHITE", "Move",
           "PieceCode", "Position", "ShogiGame", "Square", "parse_square", "perft", "piece_text",
           "square_name"]
