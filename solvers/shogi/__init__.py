"""Shogi's Numba kernels (arrays and scalars in, arrays out; the game is ``tbdb.games.shogi``).

    moves.py    board and move codes, legal moves, make / unmake, perft
    tables.py   table descriptions, rank / unrank, canonical form, census / children / parents
    text.py     SFEN parsed, checked, rewritten and placed in its table in one call
"""
